/**
 * pass@k and pass^k at a fixed k, so that runs with different trial counts report the same quantity
 * (with k = n they reduce to "any passed" and "all passed" and cannot be compared across runs).
 */
import { passAtK, passHatK } from "./stats.js";

/** The k reported by default: the default number of trials, so a default run has both numbers. */
export const DEFAULT_PASS_K = 3;

export interface PassKEstimates {
  k: number;
  /** Unbiased estimate of the chance that at least one of k fresh trials passes; null when trials < k. */
  passAtK: number | null;
  /** Unbiased estimate of the chance that all k fresh trials pass; null when trials < k. */
  passHatK: number | null;
}

/**
 * Both estimators from `passed` of `trials` (Chen et al. 2021 for pass@k, Yao et al. 2024 for
 * pass^k; see passAtK and passHatK). Unbiased for every trials ≥ k; n/a (null) below k, where no
 * unbiased estimator exists.
 */
export function passKEstimates(passed: number, trials: number, k: number = DEFAULT_PASS_K): PassKEstimates {
  return { k, passAtK: passAtK(trials, passed, k), passHatK: passHatK(trials, passed, k) };
}
