/**
 * One-sided exact tests for a regression in a pass rate: baseline `basePassed` of `baseTrials`
 * against head `headPassed` of `headTrials`, alternative "the head's pass rate is lower".
 *
 * In scipy's layout the table is [[headPassed, basePassed], [headFailed, baseFailed]] (columns are
 * the two samples) with alternative="less"; the unit tests cite scipy's values in that form.
 */
import { logChoose } from "./stats.js";

/** Pass counts of one scenario on the baseline and on the head. */
export interface PassCounts {
  basePassed: number;
  baseTrials: number;
  headPassed: number;
  headTrials: number;
}

function checkTable({ basePassed, baseTrials, headPassed, headTrials }: PassCounts, what: string): void {
  const ok = (passed: number, trials: number) =>
    Number.isInteger(trials) && trials >= 0 && Number.isInteger(passed) && passed >= 0 && passed <= trials;
  if (!ok(basePassed, baseTrials) || !ok(headPassed, headTrials)) {
    throw new RangeError(
      `${what}: need integers 0 <= passed <= trials, got ${basePassed}/${baseTrials} and ${headPassed}/${headTrials}`,
    );
  }
}

/**
 * P(H ≤ headPassed) for the head's passes H under the hypergeometric law with the table's margins:
 * the one-sided Fisher p-value (scipy's fisher_exact(..., alternative="less")).
 */
function hypergeometricLowerTail(headPassed: number, headTrials: number, baseTrials: number, total: number) {
  const n = headTrials + baseTrials;
  const low = Math.max(0, total - baseTrials);
  const logDenominator = logChoose(n, total);
  let p = 0;
  for (let h = low; h <= headPassed; h++) {
    p += Math.exp(logChoose(headTrials, h) + logChoose(baseTrials, total - h) - logDenominator);
  }
  return Math.min(1, p);
}

/**
 * Fisher's exact test, one-sided (Fisher 1935; the conditional test given both margins): the chance,
 * with the total number of passes fixed, that the head gets as few passes as it did or fewer.
 * 1 when either side has no trials.
 */
export function fisherOneSidedP(counts: PassCounts): number {
  checkTable(counts, "fisherOneSidedP");
  const { basePassed, baseTrials, headPassed, headTrials } = counts;
  if (baseTrials === 0 || headTrials === 0) return 1;
  return hypergeometricLowerTail(headPassed, headTrials, baseTrials, basePassed + headPassed);
}

/**
 * The smallest one-sided Fisher p-value any table with these margins can give (Tarone 1990): the
 * head at its fewest possible passes. A table whose minimum exceeds the level it is tested at cannot
 * be rejected whatever happened, so Tarone's procedure leaves it out of the family.
 */
export function fisherMinimumP(baseTrials: number, headTrials: number, totalPassed: number): number {
  if (!(Number.isInteger(totalPassed) && totalPassed >= 0 && totalPassed <= baseTrials + headTrials)) {
    throw new RangeError(`fisherMinimumP: total passes ${totalPassed} out of range`);
  }
  if (baseTrials === 0 || headTrials === 0) return 1;
  const fewest = Math.max(0, totalPassed - baseTrials);
  return hypergeometricLowerTail(fewest, headTrials, baseTrials, totalPassed);
}

/**
 * The smallest one-sided Fisher p-value attainable with these sample sizes over every possible
 * outcome: the minimum of fisherMinimumP over the total number of passes.
 */
export function fisherMinimumPForSizes(baseTrials: number, headTrials: number): number {
  let minimum = 1;
  for (let total = 0; total <= baseTrials + headTrials; total++) {
    minimum = Math.min(minimum, fisherMinimumP(baseTrials, headTrials, total));
  }
  return minimum;
}

// ---------------------------------------------------------------------------------------------
// Boschloo's exact unconditional test
// ---------------------------------------------------------------------------------------------

/**
 * Grid of the nuisance parameter π (the common pass rate under the null): this many equal steps on
 * [0, 1], then a golden-section search between the neighbours of every local maximum found on it.
 */
const NUISANCE_GRID_STEPS = 1000;
const GOLDEN_TOLERANCE = 1e-12;
// Two tables whose Fisher p-values agree to this relative margin are ties (they are equal rationals
// computed along different floating-point paths); scipy uses 1e-13 on its own arithmetic.
const TIE_MARGIN = 1 + 1e-10;

const BOSCHLOO_CACHE = new Map<string, number>();

/**
 * Boschloo's exact unconditional test, one-sided (Boschloo 1970, "Raised conditional level of
 * significance for the 2 × 2-table when testing the equality of two probabilities", Statistica
 * Neerlandica 24:1–35), as scipy.stats.boschloo_exact(alternative="less").
 *
 * The statistic is the one-sided Fisher p-value; the p-value is the largest probability, over the
 * common pass rate π, of a table whose Fisher p-value is at most the observed one, each side
 * binomial: sup_π Σ_{(x, y) in the region} C(nh, x) C(nb, y) π^(x+y) (1 − π)^(N−x−y). It is never
 * larger than Fisher's one-sided p (uniformly more powerful), and it is exact: the sup makes it valid
 * whatever the true rate. The sup is found on a grid of 1,000 equal steps of π refined by golden
 * section around each local maximum (the function is a polynomial of degree N in π; at N ≤ 60 its
 * local maxima are several grid steps apart), which agrees with scipy to ~1e-9.
 * Results are cached per table: a decision or a simulation asks for the same few tables many times.
 */
export function boschlooOneSidedP(counts: PassCounts): number {
  checkTable(counts, "boschlooOneSidedP");
  const { basePassed, baseTrials, headPassed, headTrials } = counts;
  if (baseTrials === 0 || headTrials === 0) return 1;
  const key = `${baseTrials}:${headTrials}:${basePassed}:${headPassed}`;
  const cached = BOSCHLOO_CACHE.get(key);
  if (cached !== undefined) return cached;
  const p = computeBoschloo(basePassed, baseTrials, headPassed, headTrials);
  if (BOSCHLOO_CACHE.size > 100_000) BOSCHLOO_CACHE.clear();
  BOSCHLOO_CACHE.set(key, p);
  return p;
}

/**
 * The smallest Boschloo p-value attainable with these sample sizes: that of the most extreme table
 * (every baseline trial passed, every head trial failed), which has the smallest Fisher statistic.
 */
export function boschlooMinimumP(baseTrials: number, headTrials: number): number {
  return boschlooOneSidedP({ basePassed: baseTrials, baseTrials, headPassed: 0, headTrials });
}

function computeBoschloo(basePassed: number, baseTrials: number, headPassed: number, headTrials: number) {
  const n = baseTrials + headTrials;
  const observed = hypergeometricLowerTail(headPassed, headTrials, baseTrials, basePassed + headPassed);
  // The rejection region, collapsed by total passes s: coefficient[s] = Σ C(nh, x) C(nb, y), x + y = s.
  // Beyond about 1,000 trials in all C(nh, x) C(nb, y) overflows a double (the p-value came out NaN):
  // then each coefficient is divided by C(N, s), a hypergeometric probability, and C(N, s) goes back
  // in with the powers, in logs. Below, the sums are as they always were.
  const scaled = logChoose(n, Math.floor(n / 2)) > LARGEST_LOG_COEFFICIENT;
  const logScale = scaled ? Float64Array.from({ length: n + 1 }, (_, s) => logChoose(n, s)) : null;
  const coefficient = new Float64Array(n + 1);
  for (let x = 0; x <= headTrials; x++) {
    for (let y = 0; y <= baseTrials; y++) {
      const statistic = hypergeometricLowerTail(x, headTrials, baseTrials, x + y);
      if (statistic <= observed * TIE_MARGIN) {
        const scale = logScale ? logScale[x + y]! : 0;
        coefficient[x + y]! += Math.exp(logChoose(headTrials, x) + logChoose(baseTrials, y) - scale);
      }
    }
  }
  const totals: number[] = [];
  for (let s = 0; s <= n; s++) if (coefficient[s]! > 0) totals.push(s);
  if (logScale) {
    return Math.min(1, maximizeOnUnitInterval(scaledProbability(coefficient, logScale), NUISANCE_GRID_STEPS));
  }
  // Powers by repeated multiplication: much faster than Math.pow, and exact enough at these n.
  const powers = new Float64Array(n + 1);
  const complementPowers = new Float64Array(n + 1);
  const probability = (pi: number) => {
    powers[0] = 1;
    complementPowers[0] = 1;
    for (let s = 1; s <= n; s++) {
      powers[s] = powers[s - 1]! * pi;
      complementPowers[s] = complementPowers[s - 1]! * (1 - pi);
    }
    let sum = 0;
    for (const s of totals) sum += coefficient[s]! * powers[s]! * complementPowers[n - s]!;
    return sum;
  };
  return Math.min(1, maximizeOnUnitInterval(probability, NUISANCE_GRID_STEPS));
}

/** The largest log of a coefficient C(nh, x) C(nb, y) kept as a double (e^709 is the largest). */
const LARGEST_LOG_COEFFICIENT = 700;

/**
 * Σ_s coefficient[s] C(N, s) π^s (1 − π)^(N − s), for coefficients divided by C(N, s): the binomial
 * law at π from its mode outwards by the ratio recurrence (terms far in its tails underflow to 0).
 */
function scaledProbability(coefficient: Float64Array, logBinomial: Float64Array) {
  const n = coefficient.length - 1;
  const law = new Float64Array(n + 1);
  return (pi: number): number => {
    if (pi <= 0) return coefficient[0]!;
    if (pi >= 1) return coefficient[n]!;
    const odds = pi / (1 - pi);
    const mode = Math.min(n, Math.floor((n + 1) * pi));
    law[mode] = Math.exp(logBinomial[mode]! + mode * Math.log(pi) + (n - mode) * Math.log1p(-pi));
    for (let s = mode; s < n; s++) law[s + 1] = (law[s]! * (n - s) * odds) / (s + 1);
    for (let s = mode; s > 0; s--) law[s - 1] = (law[s]! * s) / ((n - s + 1) * odds);
    let sum = 0;
    for (let s = 0; s <= n; s++) sum += coefficient[s]! * law[s]!;
    return sum;
  };
}

/**
 * The largest value of f on [0, 1]: on a grid of `steps` equal steps, then a golden-section search
 * between the neighbours of every local maximum found on it. `atGrid(i)` gives f(i / steps), where a
 * caller has a faster way to it.
 */
export function maximizeOnUnitInterval(
  f: (x: number) => number,
  steps: number,
  atGrid: (i: number) => number = (i) => f(i / steps),
): number {
  const values = new Float64Array(steps + 1);
  for (let i = 0; i <= steps; i++) values[i] = atGrid(i);
  let best = 0;
  for (let i = 0; i <= steps; i++) {
    const v = values[i]!;
    best = Math.max(best, v);
    const left = i === 0 ? Number.NEGATIVE_INFINITY : values[i - 1]!;
    const right = i === steps ? Number.NEGATIVE_INFINITY : values[i + 1]!;
    // A local maximum (the right end of a plateau counts once; a flat function needs no refining).
    if (v >= left && v > right && i > 0) {
      best = Math.max(best, goldenSectionMaximum(f, (i - 1) / steps, Math.min(1, (i + 1) / steps)).value);
    }
  }
  return best;
}

const INVERSE_GOLDEN = (Math.sqrt(5) - 1) / 2;

/**
 * The maximum of f on [low, high] by golden-section search, to `tolerance` in x: where and how large.
 * Unimodal f finds its maximum; otherwise a local one.
 */
export function goldenSectionMaximum(
  f: (x: number) => number,
  low: number,
  high: number,
  tolerance = GOLDEN_TOLERANCE,
): { at: number; value: number } {
  let a = low;
  let b = high;
  let c = b - INVERSE_GOLDEN * (b - a);
  let d = a + INVERSE_GOLDEN * (b - a);
  let fc = f(c);
  let fd = f(d);
  while (b - a > tolerance) {
    if (fc > fd) {
      b = d;
      d = c;
      fd = fc;
      c = b - INVERSE_GOLDEN * (b - a);
      fc = f(c);
    } else {
      a = c;
      c = d;
      fc = fd;
      d = a + INVERSE_GOLDEN * (b - a);
      fd = f(d);
    }
  }
  return fc > fd ? { at: c, value: fc } : { at: d, value: fd };
}
