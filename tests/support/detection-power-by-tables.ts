/**
 * The design's power as detection-power.ts computed it before the rejection region was found once per
 * design (src/stats/rejection-region.ts): the test asked table by table along the region's boundary,
 * one exact p-value per baseline total. Kept as the reference the new computation is proven equal to
 * (tests/stats/rejection-region.test.ts) and timed against (bench/design-power.bench-run.ts).
 */
import type { PowerDesign } from "../../src/stats/detection-power.js";
import { scenarioPValue } from "../../src/stats/regression-decision.js";
import { betaBinomialPmf } from "../../src/stats/run-clusters.js";
import { logChoose } from "../../src/stats/stats.js";

/**
 * What this design could detect: the exact chance that one scenario whose pass rate falls from
 * `baseRate` to `headRate` is flagged, with every run (base runs and the head) drawing its own rate
 * from a beta law with the design's ICC, the adaptive screen, and Holm's first step over the family.
 * Enumerates the base runs' pooled passes, the head's first and extra passes (one run: its total is
 * beta-binomial, split between first and extra trials hypergeometrically); the test's p is monotone
 * in the head's passes, so only the boundary of the rejection region is searched.
 */
export function detectionPowerByTables(design: PowerDesign, baseRate: number, headRate: number): number {
  const { runTrials, headTrials, extraTrials, icc, level } = design;
  const baseTrials = runTrials.reduce((s, n) => s + n, 0);
  let basePmf = new Float64Array([1]);
  for (const n of runTrials) {
    const run = betaBinomialPmf(n, baseRate, icc);
    const next = new Float64Array(basePmf.length + n);
    basePmf.forEach((p, i) => {
      for (let j = 0; j <= n; j++) next[i + j]! += p * run[j]!;
    });
    basePmf = next;
  }
  const allTrials = headTrials + extraTrials;
  const headPmf = betaBinomialPmf(allTrials, headRate, icc);
  const baseRuns = runTrials.map((trials) => ({ passed: 0, trials }));
  // The most head passes (of `trials`) still flagged against `basePassed`, or −1. It does not fall as
  // the baseline passes more, so each search starts from the last boundary.
  let lastBoundary = -1;
  const boundary = (basePassed: number, trials: number): number => {
    let h = Math.max(-1, lastBoundary - 1);
    while (h < trials) {
      const counts = { basePassed, baseTrials, headPassed: h + 1, headTrials: trials, baseRuns };
      if (scenarioPValue(counts, icc) > level) break;
      h++;
    }
    lastBoundary = h;
    return h;
  };
  let power = 0;
  basePmf.forEach((pb, basePassed) => {
    // Base totals this unlikely change the power by less than 1e-9 in all.
    if (pb < 1e-12) return;
    const withExtra = boundary(basePassed, allTrials);
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
