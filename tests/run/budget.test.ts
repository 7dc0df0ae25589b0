import { describe, expect, it } from "vitest";
import { buildScenarioReport, scenarioMetaOf } from "../../src/results/aggregate.js";
import type { Report, TrialReport } from "../../src/results/types.js";
import { createBudget } from "../../src/run/budget.js";
import type { PlannedTrial } from "../../src/run/plan.js";
import { makeReport, makeTrial } from "../support/report-factory.js";
import { makeScenario } from "../support/scenario-factory.js";

function planned(id: string, trial: number): PlannedTrial {
  return {
    key: `${id}#${trial}`,
    scenarioKey: id,
    scenario: makeScenario({ id }),
    variant: null,
    model: "claude-test",
    agent: "anthropic",
    inMatrix: false,
    inAgentMatrix: false,
    trial,
  };
}

function costing(usd: number): TrialReport {
  const trial = makeTrial({ trial: 1, outcome: "pass" });
  return { ...trial, execution: { ...trial.execution, cost_usd: usd } };
}

function baselineWith(costs: Record<string, number>): Report {
  const scenarios = Object.entries(costs).map(([id, usd]) =>
    buildScenarioReport(scenarioMetaOf(makeScenario({ id }), null), [costing(usd), costing(usd)]),
  );
  return makeReport(scenarios);
}

describe("cost budget", () => {
  it("admits everything without a cap", () => {
    const budget = createBudget(null, null, []);
    expect(budget.admit(planned("a", 1), 10)).toBe("go");
  });

  it("with no estimate yet, starts one trial at a time", () => {
    const budget = createBudget(1, null, []);
    expect(budget.estimateTotal([planned("a", 1)])).toBeNull();
    expect(budget.admit(planned("a", 1), 0)).toBe("go");
    budget.start(planned("a", 1));
    expect(budget.admit(planned("a", 2), 1)).toBe("wait");
    budget.finish(planned("a", 1), costing(0.3));
    // Spent 0.3; the estimate is now 0.3 a trial: two more fit under 1.0 (0.3 + 0.3 + 0.3), a third in flight does not.
    expect(budget.admit(planned("a", 2), 0)).toBe("go");
    budget.start(planned("a", 2));
    expect(budget.admit(planned("a", 3), 1)).toBe("go");
    budget.start(planned("a", 3));
    expect(budget.admit(planned("a", 4), 2)).toBe("wait");
    budget.finish(planned("a", 2), costing(0.3));
    budget.finish(planned("a", 3), costing(0.3));
    expect(budget.admit(planned("a", 4), 0)).toBe("over");
  });

  it("estimates from the baseline's cost for the same scenario", () => {
    const budget = createBudget(0.5, baselineWith({ a: 0.2, b: 0.05 }), []);
    expect(budget.estimateTotal([planned("a", 1), planned("a", 2), planned("b", 1)])).toBeCloseTo(0.45, 10);
    budget.start(planned("a", 1));
    budget.start(planned("a", 2));
    expect(budget.admit(planned("b", 1), 2)).toBe("go");
    budget.start(planned("b", 1));
    expect(budget.admit(planned("a", 3), 3)).toBe("wait");
  });

  it("counts an earlier attempt's spend when resuming", () => {
    const budget = createBudget(1, null, [costing(0.6), costing(0.5)]);
    expect(budget.admit(planned("a", 3), 0)).toBe("over");
  });
});
