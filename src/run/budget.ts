import { scenarioKey } from "../results/scenario-key.js";
import { trialCost } from "../results/trial-cost.js";
import type { Report, TrialReport } from "../results/types.js";
import type { PlannedTrial } from "./plan.js";

type Admission = "go" | "wait" | "over";

export interface Budget {
  /** Estimated cost of the given trials, or null when nothing is known to estimate from. */
  estimateTotal(trials: PlannedTrial[]): number | null;
  /** May this trial start now, given what is spent and what is in flight? */
  admit(planned: PlannedTrial, inFlight: number): Admission;
  start(planned: PlannedTrial): void;
  finish(planned: PlannedTrial, report: TrialReport): void;
  /** Wakes the workers waiting for a trial to finish. */
  notify(): void;
  waitForChange(): Promise<void>;
}

function knownCosts(trials: readonly TrialReport[]): number[] {
  return trials.map(trialCost).filter((cost): cost is number => cost !== null);
}

function mean(values: number[]): number | null {
  return values.length ? values.reduce((a, b) => a + b, 0) / values.length : null;
}

/**
 * The cost cap: no new trial starts once the spend so far plus the estimated cost of the trials
 * in flight and of this one would pass it. Estimates come from the baseline report's costs for
 * the same scenario, else from this run's finished trials; with no estimate at all, trials start
 * one at a time until the first one has shown what a trial costs.
 */
export function createBudget(
  maxCostUsd: number | null,
  baseline: Report | null,
  finished: TrialReport[],
): Budget {
  const baselineCost = new Map<string, number>();
  for (const scenario of baseline?.scenarios ?? []) {
    const costs = knownCosts(scenario.trials.filter((t) => t.outcome !== "skipped"));
    const average = mean(costs);
    if (average !== null) baselineCost.set(scenarioKey(scenario), average);
  }
  const finishedCosts = knownCosts(finished);
  let spent = finished.reduce(
    (sum, t) => sum + (t.execution.cost_usd ?? 0) + (t.judge_usage?.cost_usd ?? 0),
    0,
  );
  const inFlight = new Map<string, number | null>();
  let waiters: (() => void)[] = [];

  const estimate = (planned: PlannedTrial): number | null =>
    baselineCost.get(planned.scenarioKey) ?? mean(finishedCosts);

  return {
    estimateTotal(trials) {
      let total = 0;
      for (const trial of trials) {
        const value = estimate(trial);
        if (value === null) return null;
        total += value;
      }
      return total;
    },
    admit(planned, running) {
      if (maxCostUsd === null) return "go";
      if (spent >= maxCostUsd) return "over";
      const own = estimate(planned);
      if (own === null) return running === 0 ? "go" : "wait";
      const flying = [...inFlight.values()].reduce<number>((sum, value) => sum + (value ?? own), 0);
      if (spent + flying + own <= maxCostUsd) return "go";
      return running > 0 ? "wait" : "over";
    },
    start(planned) {
      inFlight.set(planned.key, estimate(planned));
    },
    finish(planned, report) {
      inFlight.delete(planned.key);
      // The known part is spent; a partly unknown cost teaches the estimate nothing.
      spent += (report.execution.cost_usd ?? 0) + (report.judge_usage?.cost_usd ?? 0);
      const cost = trialCost(report);
      if (cost !== null) finishedCosts.push(cost);
    },
    notify() {
      const woken = waiters;
      waiters = [];
      for (const wake of woken) wake();
    },
    waitForChange() {
      return new Promise((resolve) => waiters.push(resolve));
    },
  };
}
