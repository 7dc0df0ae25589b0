/**
 * What a design costs in dollars, from a past run's trials: a pull request (its first trials, and the
 * extra trials the screen gives scenarios that did worse than the baseline) and a base-branch push run
 * (first trials only: a push run has no baseline, so nothing is screened). Each scenario's trials are
 * priced at that scenario's mean cost in the report (the run's mean for one it lacks); the range adds
 * the trials' spread and the uncertainty of the means, and for a PR runs from no scenario extended to
 * every scenario extended. Pure; src/render/cost-plan.ts writes it out.
 */
import { scenarioKey } from "../results/scenario-key.js";
import { trialCost } from "../results/trial-cost.js";
import type { Report } from "../results/types.js";
import type { DesignPlan } from "./planning.js";

/** Two-sided 95% normal quantile: the range is the total's 95% prediction interval. */
const Z95 = 1.959964;

export interface CostRange {
  expected: number;
  low: number;
  high: number;
}

export interface CostPlan {
  /** Trials of the report whose cost (agent and judge) is known, and those left out (no price). */
  trials_priced: number;
  trials_unknown: number;
  /** Per trial over the priced ones. */
  per_trial: { mean: number; sd: number };
  /** A PR: first trials and the screen's expected extras; `high` if the screen extended every scenario. */
  pull_request: CostRange & { first_trials: number; extra_trials_expected: number; extra_trials_max: number };
  /** A base-branch push run at the same settings: first trials only. */
  base_run: CostRange & { trials: number };
}

/** Null when no trial of the report has a known cost. */
export function planCost(report: Pick<Report, "scenarios">, plan: DesignPlan): CostPlan | null {
  const byScenario = new Map<string, number[]>();
  let unknown = 0;
  for (const scenario of report.scenarios) {
    const key = scenarioKey(scenario);
    for (const trial of scenario.trials) {
      if (trial.outcome === "skipped") continue;
      const cost = trialCost(trial);
      if (cost === null) {
        unknown += 1;
        continue;
      }
      byScenario.set(key, [...(byScenario.get(key) ?? []), cost]);
    }
  }
  const costs = [...byScenario.values()].flat();
  if (costs.length === 0) return null;
  const mean = costs.reduce((a, b) => a + b, 0) / costs.length;
  const sd = Math.sqrt(costs.reduce((sum, c) => sum + (c - mean) ** 2, 0) / Math.max(1, costs.length - 1));

  // The report's scenarios when the plan has as many; else the planned count at the run's mean.
  const scenarioMeans =
    plan.scenarios === report.scenarios.length
      ? report.scenarios.map((scenario) => {
          const own = byScenario.get(scenarioKey(scenario)) ?? [];
          return own.length > 0 ? own.reduce((a, b) => a + b, 0) / own.length : mean;
        })
      : Array.from({ length: plan.scenarios }, () => mean);
  const firstTrials = plan.head_trials.first;
  const firstCost = scenarioMeans.reduce((sum, m) => sum + m * plan.trials, 0);
  const extraExpected = plan.head_trials.extra;
  const extraMax = plan.scenarios * plan.extra_trials;

  // Var of a total of N trials predicted from n: N·sd² (the trials) + N²·sd²/n (the means).
  const spread = (trials: number) => Z95 * Math.sqrt(trials * sd ** 2 + (trials * sd) ** 2 / costs.length);
  const range = (trials: number, expected: number, highTrials: number, high: number): CostRange => ({
    expected,
    low: Math.max(0, firstCost - spread(trials)),
    high: high + spread(highTrials),
  });
  return {
    trials_priced: costs.length,
    trials_unknown: unknown,
    per_trial: { mean, sd },
    pull_request: {
      ...range(
        firstTrials,
        firstCost + extraExpected * mean,
        firstTrials + extraMax,
        firstCost + extraMax * mean,
      ),
      first_trials: firstTrials,
      extra_trials_expected: extraExpected,
      extra_trials_max: extraMax,
    },
    base_run: { ...range(firstTrials, firstCost, firstTrials, firstCost), trials: firstTrials },
  };
}
