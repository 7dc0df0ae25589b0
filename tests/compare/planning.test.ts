import { describe, expect, it } from "vitest";
import { planTrialsNeeded, renderTrialPlan } from "../../src/compare/planning.js";
import { ConfigError } from "../../src/errors.js";
import { trialsNeededForMean, trialsNeededForRate } from "../../src/stats/stats.js";
import { makeReport, makeScenarioReport, type TrialSpec, trialsFrom } from "../support/report-factory.js";
import { loadFixture } from "../support/report-fixtures.js";

const withRates = (rates: number[]): TrialSpec[] => rates.map((r) => ({ first_try_success_rate: r }));

describe("planTrialsNeeded", () => {
  it("plans a rate metric from the observed spread, per scenario and for the suite", () => {
    // Scenario a: values 0.5, 0.9 → sd = 0.2828 (by hand: √(0.08)); b: 0.6, 1.0 → the same sd.
    const report = makeReport([
      makeScenarioReport({ id: "a", trials: trialsFrom(withRates([0.5, 0.9])) }),
      makeScenarioReport({ id: "b", trials: trialsFrom(withRates([0.6, 1.0])) }),
      makeScenarioReport({ id: "c", trials: trialsFrom(withRates([1, 1, 1])) }),
      makeScenarioReport({ id: "d", trials: trialsFrom(withRates([0.7])) }),
    ]);
    const plan = planTrialsNeeded(report, { effect: 0.1, metric: "first_try_success_rate" });
    const [a, b, c, d] = plan.scenarios;
    expect(a!.sd).toBeCloseTo(Math.sqrt(0.08), 12);
    // 2·(1.959964 + 0.841621)²·0.08/0.01 + 1.959964²/4 = 125.6 + 0.96 → 127.
    expect(a!.trials_needed).toBe(127);
    expect(a!.trials_needed).toBe(trialsNeededForMean({ sd: Math.sqrt(0.08), effect: 0.1 }));
    expect(b!.trials_needed).toBe(127);
    expect(c).toMatchObject({ trials_needed: null, sd: 0 });
    expect(c!.note).toContain("no spread in 3 trials");
    expect(d).toMatchObject({ trials_needed: null, sd: null, n: 1 });
    // Pooled over a, b and c (degrees of freedom 1, 1, 2): (0.08 + 0.08 + 0) / 4 = 0.04 → sd 0.2.
    expect(plan.suite.pooled_sd).toBeCloseTo(0.2, 12);
    expect(plan.suite.trials_per_scenario).toBe(trialsNeededForMean({ sd: 0.2, effect: 0.1 }));
    expect(plan.suite.max_trials).toBe(127);
    expect(plan.suite.scenarios_planned).toBe(2);
    expect(renderTrialPlan(plan)).toBe(
      `To detect a 10-point change in first_try_success_rate with 80% power (α = 0.05) you need ≈ ${plan.suite.trials_per_scenario} trials per scenario on each side (observed sd 0.2; the most demanding scenario needs 127).`,
    );
  });

  it("plans pass_rate with the two-proportion formula at each scenario's observed rate", () => {
    const plan = planTrialsNeeded(loadFixture("base"), { effect: 0.2 });
    expect(plan.metric).toBe("pass_rate");
    const link = plan.scenarios.find((s) => s.key === "link-notes")!;
    expect(link.mean).toBeCloseTo(0.6, 12);
    expect(link.trials_needed).toBe(trialsNeededForRate({ baseline: 0.6, effect: 0.2 }));
    // A scenario that always passed still gets a plan: detecting a drop from 100% to 80%.
    const create = plan.scenarios.find((s) => s.key === "create-note")!;
    expect(create.trials_needed).toBe(trialsNeededForRate({ baseline: 1, effect: -0.2 }));
    expect(plan.suite.trials_per_scenario).toBe(create.trials_needed);
    expect(renderTrialPlan(plan)).toMatch(
      /^To detect a 20-point change in pass_rate with 80% power \(α = 0\.05\) you need ≈ \d+ trials per scenario on each side/,
    );
  });

  it("divides alpha over the tests the comparison will correct for, which asks for more trials", () => {
    const report = makeReport([makeScenarioReport({ id: "a", trials: trialsFrom(withRates([0.5, 0.9])) })]);
    const one = planTrialsNeeded(report, { effect: 0.1, metric: "first_try_success_rate" });
    const many = planTrialsNeeded(report, { effect: 0.1, metric: "first_try_success_rate", tests: 20 });
    expect(many.alpha_per_test).toBeCloseTo(0.0025, 12);
    expect(many.suite.trials_per_scenario!).toBeGreaterThan(one.suite.trials_per_scenario!);
    expect(renderTrialPlan(many)).toContain("(α = 0.05 over 20 tests)");
  });

  it("says when the report cannot support a plan", () => {
    const report = makeReport([makeScenarioReport({ id: "a", trials: trialsFrom(withRates([0.7])) })]);
    const plan = planTrialsNeeded(report, { effect: 0.1, metric: "first_try_success_rate" });
    expect(plan.suite.trials_per_scenario).toBeNull();
    expect(renderTrialPlan(plan)).toContain("run a few more trials first");
  });

  it("rejects a rate effect given in points, an unknown metric and a bad alpha", () => {
    const report = loadFixture("base");
    expect(() => planTrialsNeeded(report, { effect: 10 })).toThrow(ConfigError);
    expect(() => planTrialsNeeded(report, { effect: 10 })).toThrow(/0\.1 = 10 points/);
    expect(() => planTrialsNeeded(report, { effect: 1, metric: "speed" })).toThrow(/unknown metric "speed"/);
    expect(() => planTrialsNeeded(report, { effect: 0.1, alpha: 2 })).toThrow(/alpha/);
    // Counts take effects in their own unit.
    const counts = planTrialsNeeded(report, { effect: 2, metric: "total_commands" });
    expect(renderTrialPlan(counts)).toContain("a change of 2 in total_commands");
  });
});
