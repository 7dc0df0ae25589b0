import { describe, expect, it } from "vitest";
import {
  MAX_PLANNED_BASELINE_RUNS,
  planDesign,
  planTrialsNeeded,
  renderDesignPlan,
  renderTrialPlan,
  screenedShare,
} from "../../src/compare/planning.js";
import { ConfigError } from "../../src/errors.js";
import { DEFAULT_BASELINE_RUNS } from "../../src/stats/run-clusters.js";
import { trialsNeededForMean, trialsNeededForRate } from "../../src/stats/stats.js";
import { powerOf } from "../support/design-power.js";
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

describe("planDesign", () => {
  const defaults = { scenarios: 20, trials: 3, extraTrials: 8, baselineRuns: DEFAULT_BASELINE_RUNS };

  it("computes the screen's share exactly from the binomials", () => {
    // 1 baseline trial, 2 head trials, both at 0.9: extended when head/2 < base/1, i.e. the baseline
    // passed (0.9) and the head passed at most once (1 − 0.81 = 0.19): 0.9 · 0.19 = 0.171.
    expect(screenedShare(1, 2, 0.9)).toBeCloseTo(0.171, 12);
    // Nothing passes less often than a baseline that never passed.
    expect(screenedShare(4, 3, 0)).toBe(0);
    // One head trial: only the suite test decides, so the screen extends nothing.
    expect(screenedShare(8, 1, 0.5)).toBe(0);
  });

  it("at the action's defaults: α split as decide() splits it, Holm's first step, exact powers and the trials a PR spends", () => {
    const plan = planDesign(defaults);
    expect(plan).toMatchObject({
      alpha: 0.05,
      primary_alpha: 0.025,
      suite_alpha: 0.025,
      baseline_trials: 36,
    });
    expect(plan.level).toBeCloseTo(0.025 / 20, 15);
    expect(plan.detection.map((d) => [d.from, d.to])).toEqual([
      [0.9, 0.1],
      [0.9, 0.5],
      [1, 0.7],
    ]);
    // Each scenario's own test pools the newest 8 of the 12 runs: 24 trials.
    for (const d of plan.detection) {
      expect(d.power).toBe(powerOf(24, 3, 8, d.from, d.to, 0.025 / 20));
    }
    // The targets at the defaults: the collapse caught ≥ 90% of the time for ≤ 110 head trials.
    expect(plan.detection[0]!.power).toBeGreaterThanOrEqual(0.9);
    expect(plan.extended_share).toBe(screenedShare(36, 3, 0.9));
    expect(plan.head_trials.first).toBe(60);
    expect(plan.head_trials.extra).toBeCloseTo(20 * plan.extended_share * 8, 12);
    expect(plan.head_trials.total).toBeLessThanOrEqual(110);
    // The fewest baseline runs reaching 90% on the collapse: that many do, one fewer does not.
    const needed = plan.baseline_runs_needed!;
    expect(powerOf(needed * 3, 3, 8, 0.9, 0.1, 0.025 / 20)).toBeGreaterThanOrEqual(0.9);
    expect(powerOf((needed - 1) * 3, 3, 8, 0.9, 0.1, 0.025 / 20)).toBeLessThan(0.9);
    const text = renderDesignPlan(plan);
    expect(text.split("\n")[0]).toBe(
      "Design: 20 scenarios × 3 (+8) trials against 12 baseline runs (36 trials a scenario; its own test pools the newest 8 runs, 24 trials).",
    );
    expect(text).toContain("p ≤ 0.025/20 = 0.00125");
    expect(text).toContain(`  90% → 10%    ${Math.round(plan.detection[0]!.power * 100)}%`);
    expect(text).toContain(
      `Head trials per PR: 60 first + ~${Math.round(plan.head_trials.extra)} extra (the screen extends ${Math.round(plan.extended_share * 100)}% of scenarios at a 90% pass rate`,
    );
    expect(text).toContain(
      `Baseline runs for 90% power on the 90% → 10% collapse: ${needed} (${needed * 3} trials a scenario).`,
    );
  });

  it("grows with the family: more scenarios, a stricter first step, less power", () => {
    const small = planDesign({ ...defaults, scenarios: 5 });
    const large = planDesign({ ...defaults, scenarios: 60 });
    expect(small.level).toBeCloseTo(0.005, 15);
    expect(large.detection[1]!.power).toBeLessThan(small.detection[1]!.power);
    expect(large.head_trials.first).toBe(180);
  });

  it("without extra trials spends only the first trials, and says when no baseline size is enough", () => {
    const plan = planDesign({ scenarios: 30, trials: 2, extraTrials: 0, baselineRuns: 4 });
    expect(plan).toMatchObject({
      extra_trials: 0,
      extended_share: 0,
      head_trials: { first: 60, extra: 0, total: 60 },
    });
    expect(plan.detection[0]!.power).toBe(powerOf(8, 2, 0, 0.9, 0.1, 0.025 / 30));
    // 0/2 can never reach p ≤ 0.025/30 against a 90% baseline, however large.
    expect(plan.baseline_runs_needed).toBeNull();
    expect(renderDesignPlan(plan)).toContain(
      `No number of baseline runs reaches 90% power on the 90% → 10% collapse at 2 trials a run (the per-scenario tests pool the newest ${MAX_PLANNED_BASELINE_RUNS}); add head trials.`,
    );
    expect(renderDesignPlan(plan)).toContain("Head trials per PR: 60 first.");
  });

  it("with one trial per scenario: only the suite test decides, at the full α, and nothing is extended", () => {
    const plan = planDesign({ ...defaults, trials: 1 });
    expect(plan).toMatchObject({
      suite_only: true,
      primary_alpha: 0,
      suite_alpha: 0.05,
      detection: [],
      extra_trials: 0,
      baseline_runs_needed: null,
      head_trials: { first: 20, extra: 0, total: 20 },
    });
    expect(renderDesignPlan(plan)).toContain("only the suite test can decide");
  });

  it("refuses an empty or fractional design and a bad alpha", () => {
    expect(() => planDesign({ ...defaults, scenarios: 0 })).toThrow(
      /^scenarios: must be a whole number >= 1/,
    );
    expect(() => planDesign({ ...defaults, trials: 2.5 })).toThrow(ConfigError);
    expect(() => planDesign({ ...defaults, extraTrials: -1 })).toThrow(/extra-trials/);
    expect(() => planDesign({ ...defaults, alpha: 1 })).toThrow(/alpha/);
    expect(() => planDesign({ ...defaults, alpha: 0.05, suiteAlpha: 0.05 })).toThrow(/suite-alpha/);
    // Any other alpha is split in half, as decide() splits it.
    expect(planDesign({ ...defaults, alpha: 0.01 })).toMatchObject({
      primary_alpha: 0.005,
      suite_alpha: 0.005,
    });
  });
});
