import { describe, expect, it } from "vitest";
import { decideRun } from "../../src/compare/decide-run.js";
import { buildRunHistory, runLevelSpread } from "../../src/compare/run-history.js";
import { settleBaseline } from "../../src/run/baseline.js";
import { wilsonInterval } from "../../src/stats/stats.js";
import {
  GUIDANCE_CHANGED_AT,
  HISTORY_BASE_RUNS,
  makeExampleHistory,
  TERSE_GUIDANCE,
  TOOL_CHANGED_AT,
  TOOL_PATH,
} from "../support/history-runs.js";
import { makeReport, makeScenarioReport, trialsFrom } from "../support/report-factory.js";

async function decidedHistory() {
  const { base, head } = await makeExampleHistory();
  const settled = settleBaseline(base, head, { pool: true });
  const { decision } = decideRun({
    report: head,
    baseline: {
      report: settled.report,
      pooling: {
        runs: settled.used,
        excluded: settled.excluded,
        ...(settled.runCounts ? { runCounts: settled.runCounts } : {}),
      },
    },
    policy: { failOn: null, gateMetrics: [] },
  });
  return { base, head, decision, history: buildRunHistory({ head, base, decision }) };
}

describe("buildRunHistory", () => {
  it("orders the base runs by time, the head last, and marks where the tool and the guidance changed", async () => {
    const { history } = await decidedHistory();
    expect(history.runs.map((r) => r.label)).toEqual([
      ...Array.from({ length: HISTORY_BASE_RUNS }, (_, i) => `run #${i + 1}`),
      "head `13aaaaa`",
    ]);
    expect(history.runs.map((r) => r.head)).toEqual([...Array(HISTORY_BASE_RUNS).fill(false), true]);
    expect(history.suite.markers.map((m) => [m.run, m.kinds])).toEqual([
      [TOOL_CHANGED_AT, ["tool"]],
      [GUIDANCE_CHANGED_AT, ["guidance"]],
      [HISTORY_BASE_RUNS, ["tool"]],
    ]);
    expect(history.suite.markers[1]?.files).toEqual([
      {
        kind: "guidance",
        path: TERSE_GUIDANCE,
        change: "changed",
        scenarios: ["customers_by_country@terse"],
      },
    ]);
    expect(history.suite.markers[0]?.files.map((f) => [f.path, f.scenarios.length])).toEqual([
      [TOOL_PATH, 9],
    ]);
    const terse = history.scenarios.find((s) => s.key === "customers_by_country@terse");
    expect(terse?.markers.map((m) => [m.run, m.kinds])).toEqual([
      [TOOL_CHANGED_AT, ["tool"]],
      [GUIDANCE_CHANGED_AT, ["guidance"]],
      [HISTORY_BASE_RUNS, ["tool"]],
    ]);
    const detailed = history.scenarios.find((s) => s.key === "customers_by_country@detailed");
    expect(detailed?.markers.map((m) => m.run)).toEqual([TOOL_CHANGED_AT, HISTORY_BASE_RUNS]);
  });

  it("gives each run its pass rate with the Wilson interval, its metrics, and the decision's run-level spread", async () => {
    const { history, decision, base } = await decidedHistory();
    const active = history.scenarios.find((s) => s.key === "active_customers")!;
    expect(active.points).toHaveLength(HISTORY_BASE_RUNS + 1);
    // active_customers (jq): 3/3 before the tool change but for the wobble, one pass fewer after.
    const before = active.points[0]!;
    const after = active.points[TOOL_CHANGED_AT]!;
    const expectedBefore = wilsonInterval(before.passed, 3)!;
    expect([before.low, before.high]).toEqual([expectedBefore.low, expectedBefore.high]);
    expect(after.passed).toBeLessThan(3);
    expect(after.metrics.help).toBe(1);
    expect(before.metrics.help).toBe(0);
    // The suite point sums the run's evaluated trials.
    const oldest = base.at(-1)!.report;
    expect(history.suite.points[0]).toMatchObject({ passed: oldest.summary.passed, trials: 27 });
    expect(history.suite.points[0]?.metrics.tokens).toBe(10_800);
    expect(history.suite.points[0]?.metrics.cost).toBeCloseTo(0.04);
    // The band: the decision's ICC over the base runs' pooled rate.
    expect(history.icc).toBe(decision.variation?.icc_used);
    const pooledPassed = active.points.slice(0, -1).reduce((s, p) => s + p!.passed, 0);
    expect(active.spread).toEqual(runLevelSpread(pooledPassed, 36, history.icc!));
  });

  it("leaves out a base run of another agent, saying why", async () => {
    const { head, base } = await makeExampleHistory();
    const other = {
      label: "run #99",
      report: makeReport([makeScenarioReport({ id: "active_customers", trials: trialsFrom([{}]) })], {
        agent: "anthropic",
      }),
    };
    const history = buildRunHistory({ head, base: [...base, other] });
    expect(history.runs).toHaveLength(HISTORY_BASE_RUNS + 1);
    expect(history.left_out).toEqual([
      { label: "run #99", scenario: null, reason: "agent anthropic, not oracle" },
    ]);
    expect(history.icc).toBeNull();
    expect(history.scenarios[0]?.spread).toBeNull();
  });
});

describe("runLevelSpread", () => {
  it("is the central 95% of a Beta with the pooled rate and the ICC, and collapses without run-to-run variation", () => {
    const spread = runLevelSpread(30, 40, 0.2)!;
    expect(spread.rate).toBe(0.75);
    // Beta(3, 1): its quantiles are q^(1/3).
    expect(spread.low).toBeCloseTo(0.025 ** (1 / 3), 6);
    expect(spread.high).toBeCloseTo(0.975 ** (1 / 3), 6);
    expect(runLevelSpread(30, 40, 0)).toEqual({ rate: 0.75, low: 0.75, high: 0.75 });
    expect(runLevelSpread(40, 40, 0.2)).toEqual({ rate: 1, low: 1, high: 1 });
    expect(runLevelSpread(0, 0, 0.2)).toBeNull();
  });
});
