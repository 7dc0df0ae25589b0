/**
 * A model matrix end to end through the CLI (in process), the real Anthropic SDK against a scripted
 * loopback server and real bash: two models × three scenarios, one every model passes, one only the
 * stronger passes, one no model can pass. The report carries the cross-model view; every output shows it.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Decision, decide } from "../../src/compare/decision.js";
import { renderComment } from "../../src/render/pr-comment.js";
import type { Report } from "../../src/results/types.js";
import { runMain } from "../cli/run-main.js";
import {
  bashCall,
  finalText,
  firstUserText,
  type ModelServer,
  startModelServer,
  turnOf,
} from "../support/model-server.js";
import {
  type OpenAiServer,
  openAiBashCall,
  openAiText,
  openAiTurnOf,
  startOpenAiServer,
} from "../support/openai-server.js";

const STRONG = "claude-strong-1";
const WEAK = "claude-weak-1";

function scenario(name: string, category: string, task: string, gate: string): string {
  return `name: ${name}\ncategory: ${category}\ntask: ${task}\nevaluation:\n  gates:\n${gate}\n`;
}

let dir: string;
let server: ModelServer;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "model-matrix-"));
  await mkdir(path.join(dir, "scenarios"));
  await writeFile(
    path.join(dir, "scenarios/easy.yaml"),
    scenario("easy", "files", "Write ok to easy.txt", "    - type: file_exists\n      path: easy.txt"),
  );
  await writeFile(
    path.join(dir, "scenarios/hard.yaml"),
    scenario("hard", "files", "Write ok to hard.txt", "    - type: file_exists\n      path: hard.txt"),
  );
  await writeFile(
    path.join(dir, "scenarios/broken.yaml"),
    scenario(
      "broken",
      "docs",
      "Write ok to broken.txt",
      "    - type: file_exists\n      path: never-written.txt",
    ),
  );
  // The strong model does what it is asked; the weak one writes the wrong file on the hard task.
  server = await startModelServer((request) => {
    if (turnOf(request) > 0) return finalText("done");
    const file = /to (\S+\.txt)/.exec(firstUserText(request))?.[1] ?? "x.txt";
    const wrong = request.body.model === WEAK && file === "hard.txt";
    return bashCall(`echo ok > ${wrong ? "other.txt" : file}`);
  });
});

afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

describe("a run across two models", () => {
  let report: Report;
  let stdout: string;
  const out = () => path.join(dir, "out");

  beforeAll(async () => {
    const result = await runMain(
      ["run", "scenarios", "--model", STRONG, "--model", WEAK, "--sandbox", "local", "--out", out()],
      { cwd: dir, env: { ANTHROPIC_API_KEY: "sk-test-matrix", ANTHROPIC_BASE_URL: server.url } },
    );
    stdout = result.stdout + result.stderr;
    expect(result.code, stdout).toBe(1);
    report = JSON.parse(await readFile(path.join(out(), "report.json"), "utf8")) as Report;
  });

  it("runs every scenario with each model, with the same trials", () => {
    expect(report.run.models).toEqual([STRONG, WEAK]);
    const entries = report.scenarios.map((s) => [s.id, s.model, s.trials.length]);
    expect(entries.sort()).toEqual(
      [
        ["broken", STRONG, 3],
        ["broken", WEAK, 3],
        ["easy", STRONG, 3],
        ["easy", WEAK, 3],
        ["hard", STRONG, 3],
        ["hard", WEAK, 3],
      ].sort(),
    );
    const models = new Set(server.messageRequests().map((r) => r.body.model));
    expect(models).toEqual(new Set([STRONG, WEAK]));
  });

  it("classifies each scenario across the models", () => {
    const matrix = report.model_matrix;
    expect(matrix?.models).toEqual([STRONG, WEAK]);
    const byScenario = Object.fromEntries((matrix?.rows ?? []).map((r) => [r.scenario, r.classification]));
    expect(byScenario).toEqual({ broken: "all_fail", easy: "all_pass", hard: "some_fail" });
    expect(matrix?.counts).toEqual({
      all_fail: 1,
      some_fail: 1,
      all_unreliable: 0,
      all_pass: 1,
      incomplete: 0,
    });
    const hard = matrix?.rows.find((r) => r.scenario === "hard");
    expect(hard?.cells[STRONG]).toMatchObject({ state: "pass", passed: 3, evaluated: 3 });
    expect(hard?.cells[WEAK]).toMatchObject({ state: "fail", passed: 0, evaluated: 3 });
  });

  it("gives each model its own EvalSummary and per-category rates", () => {
    const [strong, weak] = report.model_matrix?.summaries ?? [];
    expect(strong?.model).toBe(STRONG);
    expect(strong?.summary).toMatchObject({ total_tasks: 9, total_passed: 6, total_tool_calls: 9 });
    expect(weak?.summary).toMatchObject({ total_tasks: 9, total_passed: 3 });
    expect(strong?.summary.by_category.files).toMatchObject({ tasks: 6, passed: 6 });
    expect(weak?.summary.by_category.files).toMatchObject({ tasks: 6, passed: 3 });
  });

  it("shows the baseline table and the diagnosis in report.md, report.html and the terminal", async () => {
    const markdown = await readFile(path.join(out(), "report.md"), "utf8");
    expect(markdown).toContain("## Models side by side");
    expect(markdown).toContain(`| | \`${STRONG}\` | \`${WEAK}\` |`);
    expect(markdown).toContain("| Tasks passed | 6/9 | 3/9 |");
    expect(markdown).toMatch(
      /\| `broken` \| ❌ 0\/3 \| ❌ 0\/3 \| every model fails \(2 of 2, no trial passed\): likely the tool or its guidance \|/,
    );
    expect(markdown).toMatch(/\| `hard` \| ✅ 3\/3 \| ❌ 0\/3 \| 1 of 2 models fail: model capability \|/);
    const html = await readFile(path.join(out(), "report.html"), "utf8");
    expect(html).toContain('<section id="models">');
    expect(stdout).toContain("broken: every model fails (2 of 2, no trial passed)");
    expect(stdout).toContain(`hard: not passed by ${WEAK} (1 of 2)`);
  });

  it("keys each model's entry apart, so a comparison pairs the same model's trials", async () => {
    const result = await runMain(
      ["compare", path.join(out(), "report.json"), path.join(out(), "report.json"), "--format", "json"],
      {
        cwd: dir,
      },
    );
    const keys = (JSON.parse(result.stdout) as { scenarios: { key: string }[] }).scenarios
      .map((s) => s.key)
      .sort();
    expect(keys).toEqual([
      `broken~${STRONG}`,
      `broken~${WEAK}`,
      `easy~${STRONG}`,
      `easy~${WEAK}`,
      `hard~${STRONG}`,
      `hard~${WEAK}`,
    ]);
  });

  it("compares two matrix runs model by model, one or several --baseline alike, whatever their models' order", async () => {
    // The same run, its models listed the other way round (its `model` is the first given).
    const reversed = path.join(dir, "reversed.json");
    await writeFile(
      reversed,
      JSON.stringify({ ...report, run: { ...report.run, model: WEAK, models: [WEAK, STRONG] } }),
    );
    const headFile = path.join(out(), "report.json");
    for (const baselines of [[headFile, reversed], [reversed]]) {
      const result = await runMain(
        ["compare", headFile, ...baselines.flatMap((file) => ["--baseline", file]), "--format", "json"],
        { cwd: dir },
      );
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).not.toContain("left out");
      const { decision } = JSON.parse(result.stdout) as { decision: Decision };
      expect(decision.design).toMatchObject({
        scenarios: 6,
        head_trials: 3,
        baseline_runs: baselines.length,
      });
      const hard = decision.scenarios.find((s) => s.key === `hard~${WEAK}`);
      expect(hard?.base).toEqual({ passed: 0, trials: 3 * baselines.length });
      expect(decision.scenarios.every((s) => s.base !== null)).toBe(true);
      expect(decision.not_compared).toEqual([]);
    }
  });

  it("leads the PR comment with the decision, then the models side by side", () => {
    const decision = decide({ head: report, baseline: null, failOn: { kind: "outcome" } });
    const body = renderComment({
      key: "matrix",
      report,
      decision,
      comparison: null,
      baseline: { status: "missing", reason: "first run" },
      runUrl: null,
      artifactUrl: null,
      headSha: null,
      now: Date.now(),
    });
    const models = body.indexOf("## Models side by side");
    expect(models).toBeGreaterThan(0);
    expect(
      body.indexOf("every model fails (2 of 2, no trial passed): likely the tool or its guidance"),
    ).toBeGreaterThan(models);
    // Only the decision's headline comes before the matrix.
    expect(body.slice(0, models)).not.toContain("<details>");
  });
});

describe("a run across two models of two providers", () => {
  const ANTHROPIC_MODEL = "claude-haiku-4-5";
  const OPENAI_MODEL = "openai:gpt-5-mini";
  let openai: OpenAiServer;
  let report: Report;
  let output: string;

  beforeAll(async () => {
    // The OpenAI-compatible model writes the wrong file on the hard task; Claude does as asked.
    openai = await startOpenAiServer((request) => {
      if (openAiTurnOf(request) > 0) return openAiText("done");
      const messages: { role: string; content: unknown }[] = request.body.messages ?? [];
      const task = JSON.stringify(messages.find((m) => m.role === "user")?.content ?? "");
      const file = /to (\S+\.txt)/.exec(task)?.[1] ?? "x.txt";
      return openAiBashCall(`echo ok > ${file === "hard.txt" ? "other.txt" : file}`, {
        prompt_tokens: 1000,
        completion_tokens: 50,
      });
    });
    const out = path.join(dir, "two-providers");
    const result = await runMain(
      [
        "run",
        "scenarios",
        "--model",
        `${ANTHROPIC_MODEL},${OPENAI_MODEL}`,
        "--sandbox",
        "local",
        "--out",
        out,
      ],
      {
        cwd: dir,
        env: {
          ANTHROPIC_API_KEY: "sk-ant-test-matrix",
          ANTHROPIC_BASE_URL: server.url,
          OPENAI_API_KEY: "sk-proj-test-matrix",
          OPENAI_BASE_URL: openai.url,
        },
      },
    );
    output = result.stdout + result.stderr;
    expect(result.code, output).toBe(1);
    report = JSON.parse(await readFile(path.join(out, "report.json"), "utf8")) as Report;
  });

  afterAll(async () => {
    await openai.close();
  });

  it("calls each provider for its own model only", () => {
    // The Anthropic server also answered the first run's models; none of its requests names an OpenAI model.
    const anthropicModels = new Set(server.messageRequests().map((r) => r.body.model));
    expect(anthropicModels).toContain(ANTHROPIC_MODEL);
    expect([...anthropicModels].filter((m) => /gpt|openai/.test(String(m)))).toEqual([]);
    // 9 trials of the OpenAI model, two calls each (a command, then done).
    expect(openai.requests).toHaveLength(18);
    expect(new Set(openai.requests.map((r) => r.body.model))).toEqual(new Set(["gpt-5-mini"]));
  });

  it("prints bashkit-eval's baseline table for both, with the cross-model classification and costs", async () => {
    const matrix = report.model_matrix;
    expect(matrix?.models).toEqual([ANTHROPIC_MODEL, OPENAI_MODEL]);
    expect(Object.fromEntries((matrix?.rows ?? []).map((r) => [r.scenario, r.classification]))).toEqual({
      broken: "all_fail",
      easy: "all_pass",
      hard: "some_fail",
    });
    const [claude, gpt] = matrix?.summaries ?? [];
    expect(claude?.summary.total_passed).toBe(6);
    expect(gpt?.summary.total_passed).toBe(3);
    // Both models are in the price table: each column has a known cost.
    expect(claude?.summary.total_cost_usd).toBeGreaterThan(0);
    expect(gpt?.summary.total_cost_usd).toBeGreaterThan(0);
    expect(gpt?.summary.trials_cost_unknown).toBe(0);
    const md = await readFile(path.join(dir, "two-providers", "report.md"), "utf8");
    expect(md).toContain(`| | \`${ANTHROPIC_MODEL}\` | \`${OPENAI_MODEL}\` |`);
    expect(md).toContain("| Tasks passed | 6/9 | 3/9 |");
    expect(output).toContain(`hard: not passed by ${OPENAI_MODEL}`);
  });
});
