/**
 * The suite test: is the head's pass rate lower than the baseline's across scenarios taken together?
 * A one-sided Cochran–Mantel–Haenszel test stratified by scenario, so that scenarios with different
 * pass rates are never pooled into one table (Simpson's paradox) and a broad small drop that no single
 * scenario shows still adds up.
 */
import type { PassCounts } from "./exact-2x2.js";
import { logChoose, normalCdf } from "./stats.js";

export interface SuiteTestResult {
  /** One-sided p-value for "the head passes less often"; 1 when no scenario is informative. */
  pValue: number;
  /** Observed minus expected head passes, summed over informative scenarios (negative: head worse). */
  observedMinusExpected: number;
  /** The null variance of that sum (sum of hypergeometric variances). */
  variance: number;
  /** Scenarios that carry information: both sides ran, and not every trial passed or every one failed. */
  informativeStrata: number;
}

interface Stratum {
  headTrials: number;
  baseTrials: number;
  totalPassed: number;
  headPassed: number;
}

/**
 * Strata that can move the statistic. A scenario where every trial (baseline and head) passed, or
 * every one failed, has a single possible table given its margins: it adds nothing to either the
 * numerator or the variance, so it is dropped rather than allowed to dilute anything.
 */
function informativeStrata(strata: readonly PassCounts[]): Stratum[] {
  const kept: Stratum[] = [];
  for (const s of strata) {
    for (const [passed, trials] of [
      [s.basePassed, s.baseTrials],
      [s.headPassed, s.headTrials],
    ] as const) {
      if (
        !(
          Number.isInteger(trials) &&
          trials >= 0 &&
          Number.isInteger(passed) &&
          passed >= 0 &&
          passed <= trials
        )
      ) {
        throw new RangeError(`suite test: need integers 0 <= passed <= trials, got ${passed}/${trials}`);
      }
    }
    const totalPassed = s.basePassed + s.headPassed;
    const total = s.baseTrials + s.headTrials;
    if (s.baseTrials === 0 || s.headTrials === 0 || totalPassed === 0 || totalPassed === total) continue;
    kept.push({ headTrials: s.headTrials, baseTrials: s.baseTrials, totalPassed, headPassed: s.headPassed });
  }
  return kept;
}

export interface CmhOptions {
  /** Yates-style correction of 0.5 towards the null, as R's mantelhaen.test(correct = TRUE). Default false. */
  continuityCorrection?: boolean;
}

/**
 * The null variance of the CMH score (the head's passes minus their expectation given every stratum's
 * margins): the sum of the informative strata's hypergeometric variances.
 */
function scoreVariance(kept: readonly Stratum[]): number {
  let variance = 0;
  for (const { headTrials, baseTrials, totalPassed } of kept) {
    const n = headTrials + baseTrials;
    variance += (headTrials * baseTrials * totalPassed * (n - totalPassed)) / (n * n * (n - 1));
  }
  return variance;
}

/**
 * One-sided Cochran–Mantel–Haenszel test, normal approximation (Mantel & Haenszel 1959, J. Natl.
 * Cancer Inst. 22:719–748; Agresti 2013, Categorical Data Analysis, §6.4.2). With head passes a_k in
 * stratum k, n_k head and m_k baseline trials, t_k passes among N_k = n_k + m_k trials:
 *   E_k = n_k t_k / N_k,  V_k = n_k m_k t_k (N_k − t_k) / (N_k² (N_k − 1)),
 *   z = (Σ a_k − Σ E_k) / √(Σ V_k),  p = Φ(z).
 * With the correction, |Σ a_k − Σ E_k| is reduced by 0.5 when it is at least 0.5 (R's convention).
 */
export function cmhOneSided(strata: readonly PassCounts[], options: CmhOptions = {}): SuiteTestResult {
  const kept = informativeStrata(strata);
  const variance = scoreVariance(kept);
  let delta = 0;
  for (const { headTrials, baseTrials, totalPassed, headPassed } of kept) {
    const n = headTrials + baseTrials;
    delta += headPassed - (headTrials * totalPassed) / n;
  }
  if (variance === 0) return { pValue: 1, observedMinusExpected: 0, variance: 0, informativeStrata: 0 };
  const correction = options.continuityCorrection && Math.abs(delta) >= 0.5 ? 0.5 : 0;
  const z = (Math.sign(delta) * (Math.abs(delta) - correction)) / Math.sqrt(variance);
  return { pValue: normalCdf(z), observedMinusExpected: delta, variance, informativeStrata: kept.length };
}

export interface ExactSuiteOptions {
  /** Mid-p: count the observed sum's own probability half. Not guaranteed to stay within alpha. Default false. */
  midP?: boolean;
}

/**
 * The exact conditional version of the same test (Mantel 1963; R's mantelhaen.test(exact = TRUE),
 * one-sided): given every stratum's margins, the head passes of each scenario are independent
 * hypergeometric variables under the null, so the law of their sum is the convolution of those
 * laws, and p = P(Σ A_k ≤ Σ a_k). Exact, hence never above its level whatever the sizes; the
 * convolution has at most Σ n_k + 1 points, so it is cheap.
 */
export function cmhExactOneSided(
  strata: readonly PassCounts[],
  options: ExactSuiteOptions = {},
): SuiteTestResult {
  const kept = informativeStrata(strata);
  let law = [1];
  let observed = 0;
  let delta = 0;
  const variance = scoreVariance(kept);
  for (const { headTrials, baseTrials, totalPassed, headPassed } of kept) {
    const n = headTrials + baseTrials;
    delta += headPassed - (headTrials * totalPassed) / n;
    const low = Math.max(0, totalPassed - baseTrials);
    const high = Math.min(headTrials, totalPassed);
    const logDenominator = logChoose(n, totalPassed);
    const stratumLaw: number[] = [];
    for (let a = low; a <= high; a++) {
      stratumLaw.push(
        Math.exp(logChoose(headTrials, a) + logChoose(baseTrials, totalPassed - a) - logDenominator),
      );
    }
    // Offsets: index i of `law` is the sum minus the running minimum.
    const next = new Array<number>(law.length + stratumLaw.length - 1).fill(0);
    law.forEach((p, i) => {
      stratumLaw.forEach((q, j) => {
        next[i + j]! += p * q;
      });
    });
    law = next;
    observed += headPassed - low;
  }
  if (kept.length === 0) return { pValue: 1, observedMinusExpected: 0, variance: 0, informativeStrata: 0 };
  let below = 0;
  for (let i = 0; i < observed; i++) below += law[i]!;
  const at = law[observed]!;
  const pValue = Math.min(1, options.midP ? below + at / 2 : below + at);
  return { pValue, observedMinusExpected: delta, variance, informativeStrata: kept.length };
}
