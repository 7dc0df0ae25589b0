/**
 * What a design can detect: the exact chance that one scenario whose pass rate drops is flagged by
 * the per-scenario family, with runs as clusters. Used by the decision (its design line and whether a
 * run is conclusive), by `plan`, and by the simulation.
 */

import { pooledRunsLaw, rejectionBoundary } from "./rejection-region.js";
import { betaBinomialPmf } from "./run-clusters.js";
import { logChoose } from "./stats.js";

export interface PowerDesign {
  /** Trials of each base run (the pooled baseline is their sum). */
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
  const { runTrials, headTrials, extraTrials, icc, level } = design;
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
