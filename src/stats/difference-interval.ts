/**
 * The interval of a change in a per-trial metric, head − base, that the comparison shows (compare.ts)
 * and the tolerance gates test (compare/tolerance-gates.ts): one method for both, so a gate never
 * fails on a bound the metrics table does not show.
 */
import type { MetricKind } from "../results/trial-metrics.js";
import {
  computeMean,
  type Interval,
  meanInterval,
  moverInterval,
  poissonMeanInterval,
  welchInterval,
  wilsonIntervalForRate,
} from "./stats.js";

/**
 * Interval of mean(head) − scale·mean(base) (scale 1: the plain change). Welch's t interval when both
 * sides vary. A side whose values all came out equal proves less than its zero-width t interval
 * claims (five trials without a help call do not show the rate is zero), so such a side gets a
 * boundary-aware interval instead: Wilson for rates (values in [0, 1]), Poisson score for counts,
 * and the two sides are combined with MOVER. Amounts (tokens, cost, time) keep the t interval.
 * null when a side has fewer than 2 values.
 */
export function differenceInterval(
  head: readonly number[],
  base: readonly number[],
  kind: MetricKind,
  options: { confidence?: number; scale?: number } = {},
): Interval | null {
  const confidence = options.confidence ?? 0.95;
  const scale = options.scale ?? 1;
  if (head.length < 2 || base.length < 2) return null;
  if (hasSpread(head) && hasSpread(base)) {
    return welchInterval(head, scale === 1 ? base : base.map((v) => v * scale), confidence);
  }
  const baseSide = sideInterval(base, kind, confidence);
  return moverInterval(computeMean(head)!, sideInterval(head, kind, confidence), scale * computeMean(base)!, {
    low: scale * baseSide.low,
    high: scale * baseSide.high,
  });
}

function hasSpread(values: readonly number[]): boolean {
  return values.some((v) => v !== values[0]);
}

function sideInterval(values: readonly number[], kind: MetricKind, confidence: number): Interval {
  const mean = computeMean(values)!;
  if (!hasSpread(values)) {
    if (kind === "rate" && mean >= 0 && mean <= 1)
      return wilsonIntervalForRate(mean, values.length, confidence);
    if (kind === "count" && mean >= 0)
      return poissonMeanInterval(mean * values.length, values.length, confidence);
  }
  return meanInterval(values, confidence) ?? { low: mean, high: mean };
}

/** Smallest one-sided level the bisection resolves: p-values below it are written as this. */
const SMALLEST_LEVEL = 1e-12;

/**
 * One-sided test that mean(head) exceeds (1 + tolerance)·mean(base), by the interval above:
 * H0: mean(head) ≤ (1 + tolerance)·mean(base). The p-value is the smallest one-sided level a at which
 * the lower end of the (1 − 2a) interval of mean(head) − (1 + tolerance)·mean(base) is above 0 (for
 * Welch's interval, exactly Welch's one-sided t test). 1 when the head's mean is within the tolerance
 * (no level below ½ could reject); null when a side has fewer than 2 values.
 */
export function toleranceTest(
  head: readonly number[],
  base: readonly number[],
  kind: MetricKind,
  tolerance: number,
): { p_value: number; excess: number } | null {
  if (head.length < 2 || base.length < 2) return null;
  const scale = 1 + tolerance;
  const excess = computeMean(head)! - scale * computeMean(base)!;
  if (!(excess > 0)) return { p_value: 1, excess };
  const lowerBound = (level: number) =>
    differenceInterval(head, base, kind, { confidence: 1 - 2 * level, scale })!.low;
  if (lowerBound(SMALLEST_LEVEL) > 0) return { p_value: SMALLEST_LEVEL, excess };
  // The bound rises with the level: bisect on log(level) between the smallest level and ½.
  let low = Math.log(SMALLEST_LEVEL);
  let high = Math.log(0.5);
  for (let i = 0; i < 60; i++) {
    const middle = (low + high) / 2;
    if (lowerBound(Math.exp(middle)) > 0) high = middle;
    else low = middle;
  }
  return { p_value: Math.exp(high), excess };
}
