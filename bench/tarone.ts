/**
 * Research only (not shipped; the decision uses Boschloo with Holm, docs/statistics.md). Multiplicity for discrete tests: Tarone's exclusion of tests that cannot reach significance,
 * combined with Holm's step-down.
 *
 * With few trials many per-scenario tests cannot reject at any outcome: 3/3 → 0/3 against Fisher's
 * one-sided test has p = 0.05 at best. Counting them in a Bonferroni or Holm family only costs the
 * tests that can. Tarone (1990, "A modified Bonferroni method for discrete data", Biometrics
 * 46:515–522): with m(K) = #{i : minimum attainable p_i ≤ α/K}, take the smallest K ≥ 1 with
 * m(K) ≤ K, and test those m(K) hypotheses at α/K. Hommel & Krummenauer (1998, "Improvements and
 * modifications of Tarone's multiple test procedure for discrete data", Biometrics 54:673–681) make it
 * step-down like Holm: after each rejection, recompute K over the hypotheses not yet rejected.
 *
 * Why it holds the family-wise error rate: it is a shortcut of closed testing whose local test of an
 * intersection I is Tarone's (reject if some i ∈ I has p_i ≤ α/K(I)), which is an α-level test
 * because at most K(I) of I's tests can reach α/K(I), each with probability at most α/K(I) under the
 * null (Bonferroni over those). K(I) can only grow with I, so the usual Holm argument carries over:
 * each intersection that contains a rejected hypothesis was tested at a level no stricter than the one
 * the step-down used. The minimum attainable p must not depend on the data in a way that would make
 * the p-value invalid given it: for Fisher's test it is a function of the margins, on which the test
 * conditions.
 */

/** Tarone's K over the hypotheses in `among`: the smallest K ≥ 1 with #{i : minimum_i ≤ α/K} ≤ K. */
export function taroneFamilySize(
  minimumPValues: readonly number[],
  alpha: number,
  among?: readonly number[],
): number {
  const indices = among ?? minimumPValues.map((_, i) => i);
  for (let k = 1; ; k++) {
    let reachable = 0;
    for (const i of indices) if (minimumPValues[i]! <= alpha / k) reachable++;
    if (reachable <= k) return k;
  }
}

export interface TaroneHolmResult {
  /** Whether each hypothesis is rejected at `alpha`. */
  rejected: boolean[];
  /** The level α/K each hypothesis was compared with at the step where the procedure stopped or rejected it. */
  level: number[];
  /** Hypotheses that could reach significance at the first step (Tarone's family). */
  testable: boolean[];
}

/**
 * Step-down Tarone–Holm at level `alpha`. Rejection is not always monotone in alpha for Tarone-type
 * procedures (a larger alpha can admit more tests into the family and lower α/K), so the result is
 * reported as decisions at the given level, not as adjusted p-values.
 */
export function taroneHolm(
  pValues: readonly number[],
  minimumPValues: readonly number[],
  alpha: number,
): TaroneHolmResult {
  if (pValues.length !== minimumPValues.length) {
    throw new RangeError("taroneHolm: need one minimum attainable p-value per p-value");
  }
  if (!(alpha > 0 && alpha < 1)) throw new RangeError(`taroneHolm: alpha must be in (0, 1), got ${alpha}`);
  pValues.forEach((p, i) => {
    const minimum = minimumPValues[i]!;
    if (!(p >= 0 && p <= 1 && minimum >= 0 && minimum <= p + 1e-12)) {
      throw new RangeError(`taroneHolm: need 0 <= minimum attainable p <= p <= 1, got ${minimum} and ${p}`);
    }
  });
  const m = pValues.length;
  const rejected = new Array<boolean>(m).fill(false);
  const level = new Array<number>(m).fill(0);
  const firstK = taroneFamilySize(minimumPValues, alpha);
  const testable = minimumPValues.map((minimum) => minimum <= alpha / firstK);
  let remaining = pValues.map((_, i) => i);
  while (remaining.length > 0) {
    const k = taroneFamilySize(minimumPValues, alpha, remaining);
    const threshold = alpha / k;
    for (const i of remaining) level[i] = threshold;
    let best = -1;
    for (const i of remaining) {
      if (minimumPValues[i]! <= threshold && (best < 0 || pValues[i]! < pValues[best]!)) best = i;
    }
    if (best < 0 || pValues[best]! > threshold) break;
    rejected[best] = true;
    remaining = remaining.filter((i) => i !== best);
  }
  return { rejected, level, testable };
}

/** Holm's step-down at level `alpha` (Holm 1979): decisions only; adjustPValues gives the adjusted p-values. */
export function holmRejections(pValues: readonly number[], alpha: number): boolean[] {
  const order = pValues.map((p, i) => ({ p, i })).sort((a, b) => a.p - b.p || a.i - b.i);
  const rejected = new Array<boolean>(pValues.length).fill(false);
  for (let rank = 0; rank < order.length; rank++) {
    const { p, i } = order[rank]!;
    if (p > alpha / (order.length - rank)) break;
    rejected[i] = true;
  }
  return rejected;
}
