/**
 * One command runs a suite with five agents — the built-in one, Claude Code, OpenCode, Codex and
 * Gemini CLI, the real CLIs — each against its own scripted loopback server, given to it alone
 * (`--base-url claude-code=URL`, `--model codex=openai:…`). The run's shared base URLs point at a
 * trap that must see no request: every agent talked to its own server. Two scenarios: every entry
 * extracts the names (one failing call on the way); Codex's and Gemini's scripted models count the
 * adults wrong (1 of the scenario's 3 points). The terminal prints the cross-entry table (agent ·
 * model) with tool calls, tokens, truthful cost (Gemini's unknown, never $0), per-category rates
 * (score ÷ max score, the pass rate beside) and a classification whose words match its counts; the
 * report names every entry; no honest agent's trial is flagged as forged.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatTokens } from "../../src/render/format.js";
import type { Report, RunSummary } from "../../src/results/types.js";
import {
  type GeminiServer,
  geminiShellCall,
  geminiText,
  geminiTurnOf,
  offersShell,
  startGeminiServer,
} from "../support/gemini-server.js";
import { type LoopbackServer, startLoopbackServer } from "../support/loopback-server.js";
import {
  bashCall,
  finalText,
  type ModelServer,
  scriptByTurn,
  startModelServer,
} from "../support/model-server.js";
import {
  answerText,
  type ResponsesServer,
  responsesScript,
  runCommand,
  startResponsesServer,
} from "../support/responses-stream-server.js";
import { ROOT, runCli } from "../support/run-cli.js";
import { makeTempDir } from "../support/temp-dirs.js";

const SUITE = path.join(ROOT, "tests/fixtures/e2e/suite");
const WRITE = "jq -r '.[].name' data.json > names.txt";
/** A call that fails (exit 5, a jq syntax error): each entry's tool calls are 1 ok / 1 error. */
const FAIL = "jq -r '.[' data.json";
const COUNT_RIGHT = "jq '[.[] | select(.age > 30)] | length' data.json > count.txt";
/** Counts 27 too: count.txt exists (1 point) but says 3 (the 2 points of "the count is 2" lost). */
const COUNT_WRONG = "jq '[.[] | select(.age >= 27)] | length' data.json > count.txt";
const ANTHROPIC_USAGE = { input_tokens: 700, output_tokens: 30 };

/** Whether a request's conversation is count_adults's (its task asks who is older than 30). */
function isCountTask(body: unknown): boolean {
  return JSON.stringify(body ?? null).includes("older than 30");
}

const ENTRIES = [
  "anthropic · claude-haiku-4-5",
  "claude-code · claude-haiku-4-5",
  "opencode · claude-haiku-4-5",
  "codex · openai:gpt-5.2",
  "gemini-cli · gemini-2.5-flash",
];

/** A Messages API server that scripts the agent's own conversation (`tool`: its shell tool's name). */
function anthropicServer(tool: string): Promise<ModelServer> {
  const script = scriptByTurn(
    {
      names: [
        bashCall(WRITE, { name: tool, usage: ANTHROPIC_USAGE }),
        bashCall(FAIL, { name: tool, usage: ANTHROPIC_USAGE }),
        finalText("Names written.", ANTHROPIC_USAGE),
      ],
      count: [
        bashCall(COUNT_RIGHT, { name: tool, usage: ANTHROPIC_USAGE }),
        finalText("Counted.", ANTHROPIC_USAGE),
      ],
    },
    (request) => (isCountTask(request.body?.messages) ? "count" : "names"),
  );
  // A side request (a title, a quota probe) offers no shell tool: a plain answer.
  return startModelServer((request) =>
    (request.body?.tools ?? []).some((t: { name?: string }) => t.name === tool)
      ? script(request)
      : finalText("ok"),
  );
}

describe("an agent matrix through the real CLI", () => {
  let builtIn: ModelServer;
  let claude: ModelServer;
  let opencode: ModelServer;
  let codex: ResponsesServer;
  let gemini: GeminiServer;
  let trap: LoopbackServer;
  const trapped: string[] = [];
  let result: { code: number | null; stdout: string; stderr: string };
  let report: Report;

  beforeAll(async () => {
    builtIn = await anthropicServer("bash");
    claude = await anthropicServer("Bash");
    opencode = await anthropicServer("bash");
    const codexNames = responsesScript([
      runCommand(WRITE, { input_tokens: 1000, output_tokens: 20 }),
      runCommand(FAIL, { input_tokens: 1100, output_tokens: 20 }),
      answerText("Names written.", { input_tokens: 1200, output_tokens: 10 }),
    ]);
    const codexCount = responsesScript([
      runCommand(COUNT_WRONG, { input_tokens: 1000, output_tokens: 20 }),
      answerText("Counted.", { input_tokens: 1200, output_tokens: 10 }),
    ]);
    codex = await startResponsesServer((request) =>
      isCountTask(request.body?.input) ? codexCount(request) : codexNames(request),
    );
    const geminiNames = [geminiShellCall(WRITE), geminiShellCall(FAIL), geminiText("Names written.")];
    const geminiCount = [geminiShellCall(COUNT_WRONG), geminiText("Counted.")];
    gemini = await startGeminiServer((request) => {
      if (!offersShell(request)) return geminiText("ok");
      const script = isCountTask(request.body?.contents) ? geminiCount : geminiNames;
      return script[geminiTurnOf(request)] ?? geminiText("(done)");
    });
    trap = await startLoopbackServer((req, res) => {
      trapped.push(`${req.method} ${req.url}`);
      res.writeHead(500).end();
    });
    const out = makeTempDir("ltt-agent-matrix-");
    result = await runCli(
      [
        "run",
        SUITE,
        "--agent",
        "anthropic,claude-code,opencode",
        "--agent",
        "codex",
        "--agent",
        "gemini-cli",
        "--model",
        "claude-haiku-4-5",
        "--model",
        "codex=openai:gpt-5.2",
        "--model",
        "gemini-cli=gemini-2.5-flash",
        "--base-url",
        `anthropic=${builtIn.url}`,
        "--base-url",
        `claude-code=${claude.url}`,
        "--base-url",
        `opencode=${opencode.url}`,
        "--openai-base-url",
        `codex=${codex.url}`,
        "--gemini-base-url",
        `gemini-cli=${gemini.url}`,
        "--trials",
        "1",
        "--out",
        out,
      ],
      {
        env: {
          ANTHROPIC_API_KEY: "sk-ant-matrix-canary-1",
          OPENAI_API_KEY: "sk-openai-matrix-canary-2",
          GEMINI_API_KEY: "AIza-matrix-canary-3",
          // The run's shared base URLs: no agent of this run may use them.
          ANTHROPIC_BASE_URL: trap.url,
          OPENAI_BASE_URL: `${trap.url}/v1`,
          GOOGLE_GEMINI_BASE_URL: trap.url,
        },
      },
    );
    report = JSON.parse(await readFile(path.join(out, "report.json"), "utf8")) as Report;
  }, 900_000);

  afterAll(async () => {
    await Promise.all([builtIn, claude, opencode, codex, gemini, trap].map((server) => server?.close()));
  });

  it("runs every entry against its own server, and none against the shared ones", () => {
    expect(result.stderr).not.toMatch(/\n\s+at /);
    // Two entries failed a scenario: the run's own exit status says so.
    expect(result.code, result.stderr).toBe(1);
    expect(trapped).toEqual([]);
    for (const server of [builtIn, claude, opencode])
      expect(server.messageRequests().length).toBeGreaterThan(0);
    expect(codex.requests.length).toBeGreaterThan(0);
    expect(gemini.generateRequests().filter(offersShell).length).toBeGreaterThan(0);
    // Each server answered one agent: Claude Code's asked for its Bash tool, the others for bash.
    expect(
      claude.messageRequests().some((r) => r.body?.tools?.some((t: { name?: string }) => t.name === "Bash")),
    ).toBe(true);
    expect(
      builtIn
        .messageRequests()
        .every((r) => r.body?.tools?.every((t: { name?: string }) => t.name !== "Bash")),
    ).toBe(true);
    expect(new Set(codex.requests.map((r) => r.body.model))).toEqual(new Set(["gpt-5.2"]));
    expect(
      new Set(
        gemini
          .generateRequests()
          .filter(offersShell)
          .map((r) => r.model),
      ),
    ).toEqual(new Set(["gemini-2.5-flash"]));
  });

  it("names every entry by agent and model in the report", () => {
    expect(report.run.agents).toEqual(["anthropic", "claude-code", "opencode", "codex", "gemini-cli"]);
    expect(report.run.entries?.map((e) => `${e.agent} · ${e.model}`)).toEqual(ENTRIES);
    expect(report.model_matrix?.models).toEqual(ENTRIES);
    const keys = report.scenarios.map((s) => `${s.id}~${s.agent}/${s.model}`).sort();
    expect(keys).toEqual(
      ENTRIES.flatMap((e) =>
        ["count_adults", "extract_names"].map((id) => `${id}~${e.replace(" · ", "/")}`),
      ).sort(),
    );
    expect(report.model_matrix?.counts).toMatchObject({ all_pass: 1, some_fail: 1, all_fail: 0 });
    for (const scenario of report.scenarios) {
      const [trial] = scenario.trials;
      const names = scenario.id === "extract_names";
      const wrong = !names && (scenario.agent === "codex" || scenario.agent === "gemini-cli");
      expect(trial?.outcome, `${scenario.agent} ${scenario.id}: ${trial?.reason}`).toBe(
        wrong ? "fail" : "pass",
      );
      expect(trial?.end_reason).toBe("natural_stop");
      // The shim saw every call with its exit code, as the agent's own events did.
      expect(trial?.interaction).toMatchObject(
        names ? { total_commands: 2, error_count: 1 } : { total_commands: 1, error_count: 0 },
      );
      expect(trial?.execution).toMatchObject(
        names ? { tool_calls: 2, tool_calls_error: 1 } : { tool_calls: 1, tool_calls_error: 0 },
      );
      expect(trial?.score).toBe(names ? 3 : wrong ? 1 : 3);
      // Honest agents: no trial is flagged as forged.
      expect(trial?.shim_disagreements ?? []).toEqual([]);
    }
  });

  it("prints one table row per entry with its tool calls, tokens, truthful cost, category rate and classification", () => {
    const summaries = new Map(report.model_matrix?.summaries.map((s) => [s.model, s.summary]));
    const lines = result.stdout.split("\n");
    expect(lines, result.stdout).toContain("Agents · models (5):");
    for (const entry of ENTRIES) {
      const summary = summaries.get(entry) as RunSummary;
      const wrong = entry.startsWith("codex") || entry.startsWith("gemini-cli");
      expect(summary.total_tool_calls).toBe(3);
      expect(summary.total_input_tokens).toBeGreaterThan(0);
      expect(summary.total_output_tokens).toBeGreaterThan(0);
      const row = lines.find((line) => line.startsWith(`  ${entry} `));
      expect(row, entry).toBeDefined();
      expect(row).toContain(wrong ? "1/2 passed (50%)" : "2/2 passed (100%)");
      expect(row).toContain("tool calls 3 (2 ok / 1 error)");
      // The tokens shown are the entry's own.
      expect(row).toContain(
        `tokens ${formatTokens(summary.total_input_tokens)} in / ${formatTokens(summary.total_output_tokens)} out`,
      );
      // The category rate as the seed defines it, score ÷ max score (4 of 6 points when the count
      // is wrong), with the pass rate beside it.
      const next = lines[lines.indexOf(row as string) + 1];
      expect(next).toContain(
        wrong
          ? "rate (score ÷ max): json 67% (pass 50%, 1/2)"
          : "rate (score ÷ max): json 100% (pass 100%, 2/2)",
      );
    }
    // The built-in agent's tokens are exactly what its server said (5 answers of 700 in / 30 out).
    expect(summaries.get("anthropic · claude-haiku-4-5")).toMatchObject({
      total_input_tokens: 3500,
      total_output_tokens: 150,
    });
    // Codex's, exactly its server's usage.
    expect(summaries.get("codex · openai:gpt-5.2")).toMatchObject({
      total_input_tokens: 5500,
      total_output_tokens: 80,
    });
    // Gemini models are not in the price table and Gemini CLI reports no cost: unknown, never $0.
    const geminiRow = lines.find((line) => line.startsWith("  gemini-cli · gemini-2.5-flash "));
    expect(geminiRow).toContain("cost unknown for 2 trials");
    expect(summaries.get("gemini-cli · gemini-2.5-flash")?.trials_cost_unknown).toBe(2);
    const codexRow = lines.find((line) => line.startsWith("  codex · openai:gpt-5.2 "));
    expect(codexRow).toMatch(/cost \$\d/);
    expect(codexRow).not.toContain("unknown");
    // The classification's words match its counts.
    expect(result.stdout).toContain(
      "By scenario: 1 some agents · models fail, others pass: agent or model capability · 1 all pass",
    );
    expect(result.stdout).toContain(
      "count_adults: not passed by codex · openai:gpt-5.2, gemini-cli · gemini-2.5-flash (2 of 5)",
    );
    // Every key stays outside what was printed.
    for (const key of ["sk-ant-matrix-canary-1", "sk-openai-matrix-canary-2", "AIza-matrix-canary-3"]) {
      expect(result.stdout + result.stderr).not.toContain(key);
    }
  });
});
