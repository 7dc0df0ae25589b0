/**
 * Issue 15, item 1: cost by default. A run prices its tokens with the built-in table without any
 * flag (the agent's and the judge's), an unknown model's cost is unknown (not $0) and counted as
 * such, and `maxCostUsd` stops the next trial at -j 1 and at -j 4.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createAnthropicAgent } from "../../src/agents/anthropic.js";
import { JUDGE_TOOL_NAME } from "../../src/evaluate/judge.js";
import { createAnthropicClient } from "../../src/model/anthropic-client.js";
import { DEFAULT_PRICE_TABLE } from "../../src/model/pricing.js";
import { renderReportMarkdown } from "../../src/render/report-markdown.js";
import { renderTerminalSummary } from "../../src/render/terminal.js";
import { defaultRunOptions, type RunOptions } from "../../src/run/options.js";
import { runSuite } from "../../src/run/suite.js";
import type { Scenario } from "../../src/scenario/types.js";
import {
  bashCall,
  finalText,
  type ModelServer,
  type ScriptedUsage,
  scriptByTurn,
  startModelServer,
  toolUse,
} from "../support/model-server.js";
import { makeScenario } from "../support/scenario-factory.js";
import { makeTempDir } from "../support/temp-dirs.js";

/** Every usage field non-zero, so a price missing for any of them shows. */
const TURN_USAGE = {
  input_tokens: 1200,
  output_tokens: 300,
  cache_read_input_tokens: 4000,
  cache_creation_input_tokens: 900,
} satisfies ScriptedUsage;
const JUDGE_USAGE = { input_tokens: 2000, output_tokens: 150 } satisfies ScriptedUsage;
const TURNS = 2;

const agentScript = scriptByTurn([
  bashCall("echo hi > x.txt", { usage: TURN_USAGE }),
  finalText("done", TURN_USAGE),
]);

let server: ModelServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

async function runWith(scenario: Scenario, options: Partial<RunOptions>) {
  server = await startModelServer((request) =>
    request.body.tool_choice?.name === JUDGE_TOOL_NAME
      ? {
          kind: "message",
          content: [
            toolUse(
              { scores: { done: 1 }, confidence: 0.9, issues: [], highlights: [] },
              JUDGE_TOOL_NAME,
              "toolu_judge",
            ),
          ],
          stop_reason: "tool_use",
          usage: JUDGE_USAGE,
        }
      : agentScript(request),
  );
  const client = createAnthropicClient({ apiKey: "sk-ant-test-cost", baseURL: server.url });
  const outDir = makeTempDir("ltt-cost-");
  const { report } = await runSuite(
    [scenario],
    defaultRunOptions({ agent: "anthropic", model: "claude-haiku-4-5", outDir, ...options }),
    { agent: createAnthropicAgent(client), judgeClient: client, env: { PATH: process.env.PATH } },
  );
  return report;
}

function scenarioWith(trials: number, judged = false): Scenario {
  return makeScenario({
    id: "write-file",
    task: "write hi to x.txt",
    trials,
    evaluation: {
      gates: [{ type: "file_contains", path: "x.txt", substring: "hi", weight: 1 }],
      ...(judged
        ? {
            judge: {
              enabled: true,
              passThreshold: 0.5,
              rubric: { file: "/rubric.md", criteria: [{ id: "done", weight: 1, description: "did it" }] },
            },
          }
        : {}),
    },
  });
}

/** USD per million tokens, from the table itself: the test follows the table's prices. */
function priced(model: string, usage: ScriptedUsage, times: number): number {
  const price = DEFAULT_PRICE_TABLE[model];
  if (!price) throw new Error(`${model} is not in the price table`);
  return (
    (times *
      ((usage.input_tokens ?? 0) * price.input +
        (usage.output_tokens ?? 0) * price.output +
        (usage.cache_read_input_tokens ?? 0) * price.cache_read +
        (usage.cache_creation_input_tokens ?? 0) * price.cache_write)) /
    1_000_000
  );
}

const TRIAL_COST = priced("claude-haiku-4-5", TURN_USAGE, TURNS);

describe("cost by default", () => {
  it("prices a Haiku trial with the built-in table, cache reads and writes included, without --prices", async () => {
    const report = await runWith(scenarioWith(1), {});
    const [trial] = report.scenarios[0]?.trials ?? [];
    expect(trial?.outcome).toBe("pass");
    expect(trial?.execution.cost_usd).toBeCloseTo(TRIAL_COST, 12);
    expect(report.summary.total_cost_usd).toBeCloseTo(TRIAL_COST, 12);
    expect(report.summary.trials_cost_unknown).toBe(0);
    expect(report.run.price_table["claude-haiku-4-5"]).toEqual(DEFAULT_PRICE_TABLE["claude-haiku-4-5"]);
  });

  it("counts the judge's cost, priced for the model that judged", async () => {
    const report = await runWith(scenarioWith(1, true), { judgeModel: "claude-sonnet-4-5" });
    const [trial] = report.scenarios[0]?.trials ?? [];
    const judgeCost = priced("claude-sonnet-4-5", JUDGE_USAGE, 1);
    expect(trial?.judge_usage?.cost_usd).toBeCloseTo(judgeCost, 12);
    expect(report.summary.judge_cost_usd).toBeCloseTo(judgeCost, 12);
    expect(report.summary.total_cost_usd).toBeCloseTo(TRIAL_COST + judgeCost, 12);
  });

  it("merges given prices over the table instead of replacing it", () => {
    const options = defaultRunOptions({
      outDir: "/tmp/x",
      prices: { "my-model": DEFAULT_PRICE_TABLE["claude-haiku-4-5"]! },
    });
    expect(Object.keys(options.prices)).toEqual(expect.arrayContaining(["my-model", "claude-haiku-4-5"]));
  });

  it("reports an unknown model's cost as unknown, counts the trials and never prints $0", async () => {
    const report = await runWith(scenarioWith(2), { model: "some-local-model" });
    const trials = report.scenarios[0]?.trials ?? [];
    expect(trials.map((t) => t.execution.cost_usd)).toEqual([null, null]);
    expect(report.summary.trials_cost_unknown).toBe(2);
    const terminal = renderTerminalSummary(report, { color: false });
    const markdown = renderReportMarkdown(report);
    for (const text of [terminal, markdown]) {
      expect(text).toContain("cost unknown for 2 trials");
      expect(text).not.toMatch(/\$0(?![.\d])/);
    }
  });
});

describe("max-cost-usd stops the next trial", () => {
  it("at -j 1: a trial starts only if the spend plus its estimate stays under the cap", async () => {
    // After one trial, spent + the next trial's estimate (the first one's cost) is 2x, over 1.5x.
    const report = await runWith(scenarioWith(3), { maxCostUsd: TRIAL_COST * 1.5, concurrency: 1 });
    const outcomes = report.scenarios[0]?.trials.map((t) => t.outcome);
    expect(outcomes).toEqual(["pass", "skipped", "skipped"]);
    expect(server?.messageRequests()).toHaveLength(TURNS);
    expect(report.run.incomplete).toBe(true);
    expect(report.summary.total_cost_usd).toBeLessThanOrEqual(TRIAL_COST * 1.5);
  });

  it("at -j 4: the trials in flight count against the cap", async () => {
    // The first trial runs alone (nothing to estimate from); then one more fits under 2.5x, a third does not.
    const report = await runWith(scenarioWith(6), { maxCostUsd: TRIAL_COST * 2.5, concurrency: 4 });
    const outcomes = report.scenarios[0]?.trials.map((t) => t.outcome) ?? [];
    expect(outcomes.filter((o) => o === "pass")).toHaveLength(2);
    expect(outcomes.filter((o) => o === "skipped")).toHaveLength(4);
    expect(server?.messageRequests()).toHaveLength(2 * TURNS);
    expect(report.summary.total_cost_usd).toBeLessThanOrEqual(TRIAL_COST * 2.5);
  });
});
