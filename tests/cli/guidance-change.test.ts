/**
 * A guidance author's pull request, end to end through the CLI (in process, real bash, the oracle
 * agent): a suite whose scenarios use `guidance.file: AGENTS.md`, base-branch runs, AGENTS.md
 * edited, the head run against them. The guidance is the treatment: the scenarios are compared
 * (not "No baseline yet"), the regression they show is caught, and every output names the change.
 * A scenario whose own YAML changed is not compared, and is listed with its head results.
 */
import { execFileSync } from "node:child_process";
import { cp, mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { EXIT } from "../../src/cli/main.js";
import { compareReports } from "../../src/compare/compare.js";
import type { Decision } from "../../src/compare/decision.js";
import { decide } from "../../src/compare/decision.js";
import { poolBaselines } from "../../src/compare/pool-baselines.js";
import { renderComment } from "../../src/render/pr-comment.js";
import type { Report } from "../../src/results/types.js";
import { makeTempDir } from "../support/temp-dirs.js";
import { runMain } from "./run-main.js";

/** The oracle copies the guidance it was given (AGENTS.md in its work dir) to out.txt; the gate wants `--json` in it. */
function scenario(name: string, extra = ""): string {
  return [
    `name: ${name}`,
    `task: Follow AGENTS.md for ${name}.${extra}`,
    "guidance: {file: ../AGENTS.md, mode: workdir}",
    "solution: cat AGENTS.md > out.txt",
    "evaluation:",
    "  gates:",
    "    - {type: file_contains, path: out.txt, substring: '--json', description: the guidance says --json}",
    "",
  ].join("\n");
}

const GOOD = "Always pass --json to the tool.\n";
const BAD = "Pass whatever flags you like.\n";
const BASE_RUNS = 4;

let dir: string;
let baseFiles: string[];

async function runSuiteIn(out: string, baselines: string[] = []) {
  return runMain(
    [
      "run",
      "evals",
      "--agent",
      "oracle",
      "--trials",
      "3",
      "--extra-trials",
      "0",
      "--sandbox",
      "local",
      "--out",
      out,
      "-q",
      ...baselines.flatMap((file) => ["--baseline", file]),
    ],
    { cwd: dir },
  );
}

beforeAll(async () => {
  dir = makeTempDir("guidance-change-");
  // A repository: the scenarios name the guidance at its root, as the README advises.
  execFileSync("git", ["init", "-q", dir]);
  await mkdir(path.join(dir, "evals"));
  await writeFile(path.join(dir, "AGENTS.md"), GOOD);
  await writeFile(path.join(dir, "evals/alpha.yaml"), scenario("alpha"));
  await writeFile(path.join(dir, "evals/beta.yaml"), scenario("beta"));
  await writeFile(path.join(dir, "evals/gamma.yaml"), scenario("gamma"));
  // The base branch's runs: one real run, kept as several pushes' reports.
  const base = await runSuiteIn(path.join(dir, "base"));
  expect(base.code, base.stderr).toBe(EXIT.ok);
  baseFiles = [];
  for (let i = 0; i < BASE_RUNS; i += 1) {
    const file = path.join(dir, `base-${i}.json`);
    await cp(path.join(dir, "base/report.json"), file);
    baseFiles.push(file);
  }
}, 120_000);

describe("a pull request that edits only AGENTS.md", () => {
  let decision: Decision & { reason: string };
  let head: Report;
  let stderr: string;

  beforeAll(async () => {
    await writeFile(path.join(dir, "AGENTS.md"), BAD);
    const result = await runSuiteIn(path.join(dir, "head"), baseFiles);
    stderr = result.stderr;
    // Every scenario dropped from 12/12 to 0/3: the decision governs and fails.
    expect(result.code, stderr).toBe(EXIT.failed);
    head = JSON.parse(await readFile(path.join(dir, "head/report.json"), "utf8")) as Report;
    const comparison = JSON.parse(await readFile(path.join(dir, "head/comparison.json"), "utf8")) as {
      decision: Decision & { reason: string };
    };
    decision = comparison.decision;
    await writeFile(path.join(dir, "AGENTS.md"), GOOD);
  }, 120_000);

  it("pools every base run and compares every scenario: no scenario changed", () => {
    expect(stderr).not.toContain("left out of the baseline");
    expect(decision.basis).toBe("regression");
    expect(decision.regressed.sort()).toEqual(["alpha", "beta", "gamma"]);
    expect(decision.not_compared).toEqual([]);
    expect(decision.scenarios.map((s) => [s.key, s.base, s.head])).toEqual([
      ["alpha", { passed: 12, trials: 12 }, { passed: 0, trials: 3 }],
      ["beta", { passed: 12, trials: 12 }, { passed: 0, trials: 3 }],
      ["gamma", { passed: 12, trials: 12 }, { passed: 0, trials: 3 }],
    ]);
  });

  it("records the treatment and names the guidance change, per scenario and summarised", async () => {
    const base = JSON.parse(await readFile(baseFiles[0] as string, "utf8")) as Report;
    const [before, after] = [base, head].map((r) => r.scenarios.find((s) => s.id === "alpha"));
    expect(after?.measurement_hash).toBe(before?.measurement_hash);
    expect(after?.content_hash).not.toBe(before?.content_hash);
    expect(after?.treatment?.guidance).toEqual([
      {
        path: "AGENTS.md",
        mode: "workdir",
        sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
        // The oracle runs its solution: no model is shown the guidance.
        delivery: "not_shown",
      },
    ]);
    expect(decision.treatment_changes?.files).toEqual([
      { kind: "guidance", path: "AGENTS.md", change: "changed", scenarios: ["alpha", "beta", "gamma"] },
    ]);
    expect(decision.treatment_changes?.scenarios.map((s) => s.key)).toEqual(["alpha", "beta", "gamma"]);
    const markdown = await readFile(path.join(dir, "head/comparison.md"), "utf8");
    expect(markdown).toContain("Guidance changed: `AGENTS.md` (3 scenarios) — the change under test.");
    const reportMd = await readFile(path.join(dir, "head/report.md"), "utf8");
    expect(reportMd).toContain("Guidance changed: `AGENTS.md` (3 scenarios)");
  });

  it("the PR comment compares, fails and names the change (the library, as the action does)", async () => {
    const candidates = await Promise.all(
      baseFiles.map(async (file, i) => ({
        label: `run #${10 - i}`,
        report: JSON.parse(await readFile(file, "utf8")) as Report,
      })),
    );
    const pooled = poolBaselines(candidates, head);
    expect(pooled.excluded).toEqual([]);
    expect(pooled.used).toHaveLength(BASE_RUNS);
    const pooling = { runs: pooled.used, excluded: pooled.excluded };
    const verdict = decide({ head, baseline: pooled.report, pooling });
    const body = renderComment({
      key: "llm-tool-test",
      report: head,
      decision: verdict,
      comparison: compareReports(pooled.report as Report, head),
      baseline: {
        status: "found",
        source: {
          kind: "auto",
          sha: "0123456789abcdef0123456789abcdef01234567",
          createdAt: null,
          runId: 10,
          runNumber: 10,
          runUrl: null,
          artifactId: null,
          matchesBaseSha: true,
          file: "report.json",
        },
        baseRef: "main",
        baseSha: null,
        moreRuns: BASE_RUNS - 1,
      },
      runUrl: null,
      artifactUrl: null,
      headSha: null,
      now: 0,
    });
    const [, headline, , , guidanceLine, , warningLine] = body.split("\n");
    expect(headline).toMatch(/^## 🔴 Regression in 3 scenarios/u);
    expect(body).not.toContain("No baseline yet");
    expect(guidanceLine).toBe("Guidance changed: `AGENTS.md` (3 scenarios) — the change under test.");
    // The oracle reads no guidance (its solution copies the file): the comment says so under the change.
    expect(warningLine).toBe(
      "⚠️ The changed guidance `AGENTS.md` was not shown to the agent (3 scenarios): this agent reads no guidance, so the change cannot show in these results; run with an agent that does (docs/agents.md, Guidance).",
    );
  });
});

describe("a pull request that changes one scenario's own YAML", () => {
  it("lists it as not compared, with its head results, and does not call the run a plain pass", async () => {
    const text = scenario("gamma");
    // gamma's gate now wants what the guidance does not say: it falls to 0/3.
    await writeFile(path.join(dir, "evals/gamma.yaml"), text.replace("'--json'", "'--yaml'"));
    try {
      const result = await runSuiteIn(path.join(dir, "changed"), baseFiles);
      expect(result.stderr).toContain("scenario `gamma`: the scenario changed since this run");
      expect(result.code, result.stderr).toBe(EXIT.ok);
      const comparison = JSON.parse(await readFile(path.join(dir, "changed/comparison.json"), "utf8")) as {
        decision: Decision & { reason: string };
      };
      const d = comparison.decision;
      expect(d.not_compared).toEqual([
        { key: "gamma", reason: "measurement_changed", head: { passed: 0, trials: 3 } },
      ]);
      expect(d.scenarios.find((s) => s.key === "gamma")).toMatchObject({ base: null, tested: false });
      // A scenario not compared makes the run inconclusive, never a plain pass (issue 24).
      expect(d.basis).toBe("inconclusive");
      expect(d.reason).toMatch(/^Inconclusive: no regression seen, but .*1 scenario was not compared/);
      const markdown = await readFile(path.join(dir, "changed/comparison.md"), "utf8");
      expect(markdown).toContain(
        "Not compared, no verdict (head results shown): changed since the base runs (1): `gamma` 0/3.",
      );
    } finally {
      await writeFile(path.join(dir, "evals/gamma.yaml"), text);
    }
  }, 120_000);
});
