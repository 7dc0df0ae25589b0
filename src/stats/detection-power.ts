/**
 * What a design can detect: the exact chance that one scenario whose pass rate drops is flagged by
 * the per-scenario family, with runs as clusters. Used by the decision (its design line and whether a
 * run is conclusive), by `plan`, and by the simulation; the rule that makes a run conclusive is here
 * too, so the decision and the simulation apply the same one.
 */

import { pooledRunsLaw, rejectionBoundary } from "./rejection-region.js";
import { betaBinomialPmf, MIN_RUNS_FOR_VARIATION, scenarioTestRuns } from "./run-clusters.js";
import { logChoose } from "./stats.js";

/** The effect a design is judged by (docs/statistics.md, "Three outcomes"): one scenario collapsing 0.9 → 0.1. */
export const PLANNED_COLLAPSE = { baseRate: 0.9, headRate: 0.1 } as const;

/** A design catches the planned collapse at least this often to be conclusive. */
export const CONCLUSIVE_POWER = 0.8;

export interface PowerDesign {
  /** Trials of each base run, oldest first (the per-scenario test pools the newest SCENARIO_TEST_RUNS). */
  runTrials: readonly number[];
  /** The head's first trials per scenario. */
  headTrials: number;
  /** Extra trials a screened scenario gets (0: no screen, every scenario tested on its first trials). */
  extraTrials: number;
  /** The intra-run correlation the test assumes and the simulated world has. */
  icc: number;
  /** The level the scenario's p is compared with: Holm's first step, primary alpha / family size. */
  level: number;
}

/**
 * What this design could detect: the exact chance that one scenario whose pass rate falls from
 * `baseRate` to `headRate` is flagged, with every run (base runs and the head) drawing its own rate
 * from a beta law with the design's ICC, the adaptive screen, and Holm's first step over the family.
 * Enumerates the base runs' pooled passes, the head's first and extra passes (one run: its total is
 * beta-binomial, split between first and extra trials hypergeometrically), against the test's
 * rejection region, found once per design (rejection-region.ts).
 */
export function detectionPower(design: PowerDesign, baseRate: number, headRate: number): number {
  const { headTrials, extraTrials, icc, level } = design;
  // The per-scenario test pools the newest runs only; the screen is taken on the same ones.
  const runTrials = scenarioTestRuns(design.runTrials);
  const baseTrials = runTrials.reduce((s, n) => s + n, 0);
  const basePmf = pooledRunsLaw(runTrials, baseRate, icc);
  const allTrials = headTrials + extraTrials;
  const headPmf = betaBinomialPmf(allTrials, headRate, icc);
  // The most head passes (of all its trials) the test flags against each baseline total, or −1.
  const boundary = rejectionBoundary({ runTrials, headTrials: allTrials, icc, level });
  let power = 0;
  basePmf.forEach((pb, basePassed) => {
    // Base totals this unlikely change the power by less than 1e-9 in all.
    if (pb < 1e-12) return;
    const withExtra = boundary[basePassed]!;
    const firstOnly = extraTrials > 0 ? -1 : withExtra;
    for (let total = 0; total <= allTrials; total++) {
      const pt = headPmf[total]!;
      if (pt === 0) continue;
      // Given the head's total, its first trials hold x1 of it hypergeometrically.
      for (let x1 = Math.max(0, total - extraTrials); x1 <= Math.min(headTrials, total); x1++) {
        const split = Math.exp(
          logChoose(headTrials, x1) + logChoose(extraTrials, total - x1) - logChoose(allTrials, total),
        );
        if (extraTrials === 0) {
          if (total <= firstOnly) power += pb * pt * split;
          continue;
        }
        // The screen: only a head that did worse than the baseline in its first trials gets extra ones.
        const extended = x1 * baseTrials < basePassed * headTrials;
        if (extended && total <= withExtra) power += pb * pt * split;
      }
    }
  });
  return Math.min(1, power);
}

/**
 * The design's power for the planned collapse; null when no scenario can be tested on its own (one
 * head trial per scenario, or no level left for the per-scenario family).
 */
export function collapsePower(design: PowerDesign): number | null {
  if (design.headTrials <= 1 || !(design.level > 0)) return null;
  return detectionPower(design, PLANNED_COLLAPSE.baseRate, PLANNED_COLLAPSE.headRate);
}

/** What keeps a run that did not regress from being called conclusive. */
export type InconclusiveGround =
  | { kind: "few_runs"; runs: number }
  | { kind: "one_trial" }
  | { kind: "low_power"; power: number }
  | { kind: "not_compared"; scenarios: number };

export interface ConclusiveInput {
  /** Base runs that carried trials. */
  baseRuns: number;
  /** collapsePower of the design. */
  collapsePower: number | null;
  /** Head scenarios with nothing to be compared with (new, or measuring something else). */
  notCompared: number;
}

/**
 * Why a run that did not regress is not conclusive (none: it is): fewer than three base runs (the
 * run-to-run variation cannot be estimated), no scenario testable on its own, less than 80% power for
 * the planned collapse, or scenarios left uncompared. `decide()` and the simulation both ask this.
 */
export function inconclusiveGrounds({
  baseRuns,
  collapsePower,
  notCompared,
}: ConclusiveInput): InconclusiveGround[] {
  const grounds: InconclusiveGround[] = [];
  if (baseRuns < MIN_RUNS_FOR_VARIATION) grounds.push({ kind: "few_runs", runs: baseRuns });
  if (collapsePower === null) grounds.push({ kind: "one_trial" });
  else if (collapsePower < CONCLUSIVE_POWER) grounds.push({ kind: "low_power", power: collapsePower });
  if (notCompared > 0) grounds.push({ kind: "not_compared", scenarios: notCompared });
  return grounds;
}
