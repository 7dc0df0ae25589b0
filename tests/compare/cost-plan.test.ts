import { describe, expect, it } from "vitest";
import { planCost } from "../../src/compare/cost-plan.js";
import { planDesign } from "../../src/compare/planning.js";
import { renderCostPlan } from "../../src/render/cost-plan.js";
import { makeExecution, makeReport, makeScenarioReport, makeTrial } from "../support/report-factory.js";

function pricedScenario(id: string, costs: (number | null)[]) {
  return makeScenarioReport({
    id,
    trials: costs.map((cost_usd, index) =>
      makeTrial({ trial: index + 1, outcome: "pass", execution: makeExecution({ cost_usd }) }),
    ),
  });
}

describe("planCost: what a PR and a base-branch run cost at a design", () => {
  // One cheap scenario and one dear one: each is priced at its own mean, not the run's.
  const report = makeReport([
    pricedScenario("cheap", [0.01, 0.01, 0.01]),
    pricedScenario("dear", [0.1, 0.1, 0.1]),
  ]);

  it("prices each scenario's first trials at its own mean, the screen's extras at the run's", () => {
    const plan = planDesign({ scenarios: 2, trials: 3, extraTrials: 4, baselineRuns: 3 });
    const cost = planCost(report, plan)!;
    expect(cost.trials_priced).toBe(6);
    expect(cost.base_run.trials).toBe(6);
    expect(cost.base_run.expected).toBeCloseTo(0.33, 10);
    const mean = 0.055;
    expect(cost.pull_request.expected).toBeCloseTo(0.33 + plan.head_trials.extra * mean, 10);
    expect(cost.pull_request.extra_trials_max).toBe(8);
    // The range: from no scenario extended to every one, widened by the trials' spread.
    expect(cost.pull_request.low).toBeLessThan(0.33);
    expect(cost.pull_request.high).toBeGreaterThan(0.33 + 8 * mean);
    expect(cost.base_run.low).toBeLessThan(0.33);
    expect(cost.base_run.high).toBeGreaterThan(0.33);
  });

  it("scales to a planned scenario count the report does not have at the run's mean", () => {
    const plan = planDesign({ scenarios: 10, trials: 2, extraTrials: 0, baselineRuns: 3 });
    const cost = planCost(report, plan)!;
    expect(cost.base_run.expected).toBeCloseTo(10 * 2 * 0.055, 10);
    expect(cost.pull_request.expected).toBeCloseTo(cost.base_run.expected, 10);
  });

  it("leaves trials without a known cost out and says so; with none known it says unknown, never $0", () => {
    const partly = makeReport([pricedScenario("a", [0.02, null]), pricedScenario("b", [0.02, 0.02])]);
    const plan = planDesign({ scenarios: 2, trials: 2, extraTrials: 0, baselineRuns: 3 });
    const cost = planCost(partly, plan)!;
    expect(cost.trials_unknown).toBe(1);
    expect(cost.base_run.expected).toBeCloseTo(0.08, 10);
    expect(renderCostPlan(cost, "r.json")).toContain("1 trial(s) without a known cost left out");
    const none = makeReport([pricedScenario("a", [null, null])]);
    expect(
      planCost(none, planDesign({ scenarios: 1, trials: 2, extraTrials: 0, baselineRuns: 3 })),
    ).toBeNull();
    expect(renderCostPlan(null, "r.json")).toBe(
      "Cost: unknown: no trial of r.json has a known cost (its model is not in the price table, or it used none).",
    );
  });

  it("writes the PR's and the base run's dollars with their ranges", () => {
    const plan = planDesign({ scenarios: 2, trials: 3, extraTrials: 4, baselineRuns: 3 });
    const lines = renderCostPlan(planCost(report, plan), "report.json").split("\n");
    expect(lines[0]).toMatch(
      /^Cost per PR: ~\$0\.\d+ \(6 first trials \+ ~\d+ extra \(up to 8 if every scenario is extended\); 95% range \$[\d.]+–\$[\d.]+\)\.$/,
    );
    expect(lines[1]).toMatch(/^Cost per base-branch run: ~\$0\.33 \(6 trials, none extra/);
    expect(lines[2]).toBe("From 6 priced trial(s) of report.json: $0.055 a trial on average (sd $0.049).");
  });
});
