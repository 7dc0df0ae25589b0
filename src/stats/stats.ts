/**
 * Statistics for trials and comparisons. Everything here is pure; randomness comes from a seeded
 * PRNG passed in (`createRng`), so every interval and p-value is reproducible.
 *
 * Conventions: rates are in [0, 1]; two-sided tests; intervals are `{ low, high }`; a quantity that
 * cannot be computed from the data (n = 0, n < k, ...) is `null`, never a made-up number.
 * Invalid arguments (negative counts, successes > n) are programming errors and throw RangeError.
 */
import { ConfigError } from "../errors.js";
import type { Flakiness, MetricSummary } from "../results/types.js";

export interface Interval {
  low: number;
  high: number;
}

// ---------------------------------------------------------------------------------------------
// Seeded randomness
// ---------------------------------------------------------------------------------------------

/** A uniform generator on [0, 1). */
export type Rng = () => number;

export const DEFAULT_SEED = 20240501;

/** mulberry32: small, fast, good enough for resampling; same seed, same stream on every platform. */
export function createRng(seed: number = DEFAULT_SEED): Rng {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A seed for one labelled computation, so a test's random stream does not depend on what ran before it. */
export function deriveSeed(seed: number, label: string): number {
  let hash = 0x811c9dc5 ^ (seed >>> 0);
  for (let i = 0; i < label.length; i++) {
    hash ^= label.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** A uniform integer in [0, n). */
export function drawInt(rng: Rng, n: number): number {
  return Math.floor(rng() * n);
}

// ---------------------------------------------------------------------------------------------
// Special functions and distributions
// ---------------------------------------------------------------------------------------------

const LANCZOS = [
  0.9999999999998099, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
  12.507343278686905, -0.13857109526572012, 0.000009984369578019572, 1.5056327351493116e-7,
];

/** ln Γ(x) for x > 0 (Lanczos, g = 7; relative error ~1e-15). */
export function logGamma(x: number): number {
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  const z = x - 1;
  let sum = LANCZOS[0]!;
  for (let i = 1; i < LANCZOS.length; i++) sum += LANCZOS[i]! / (z + i);
  const t = z + 7.5;
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(sum);
}

/** ln C(n, k); -Infinity when k is outside [0, n]. Exact (table of ln n!) for small n. */
export function logChoose(n: number, k: number): number {
  if (k < 0 || k > n) return Number.NEGATIVE_INFINITY;
  if (k === 0 || k === n) return 0;
  return logFactorial(n) - logFactorial(k) - logFactorial(n - k);
}

const LOG_FACTORIALS: number[] = [0];
function logFactorial(n: number): number {
  if (Number.isInteger(n) && n < 1024) {
    for (let i = LOG_FACTORIALS.length; i <= n; i++) LOG_FACTORIALS[i] = LOG_FACTORIALS[i - 1]! + Math.log(i);
    return LOG_FACTORIALS[n]!;
  }
  return logGamma(n + 1);
}

/** Standard normal CDF (Hart 1968 double-precision rational approximation as given by West 2005). */
export function normalCdf(x: number): number {
  const a = Math.abs(x);
  let c: number;
  if (a > 37) c = 0;
  else {
    const e = Math.exp((-a * a) / 2);
    if (a < 7.07106781186547) {
      let num = 3.52624965998911e-2 * a + 0.700383064443688;
      num = num * a + 6.37396220353165;
      num = num * a + 33.912866078383;
      num = num * a + 112.079291497871;
      num = num * a + 221.213596169931;
      num = num * a + 220.206867912376;
      let den = 8.83883476483184e-2 * a + 1.75566716318264;
      den = den * a + 16.064177579207;
      den = den * a + 86.7807322029461;
      den = den * a + 296.564248779674;
      den = den * a + 637.333633378831;
      den = den * a + 793.826512519948;
      den = den * a + 440.413735824752;
      c = (e * num) / den;
    } else {
      let b = a + 0.65;
      b = a + 4 / b;
      b = a + 3 / b;
      b = a + 2 / b;
      b = a + 1 / b;
      c = e / b / 2.506628274631;
    }
  }
  return x > 0 ? 1 - c : c;
}

/** Standard normal quantile (Wichura 1988, AS 241 PPND16; relative error ~1e-16). */
export function normalQuantile(p: number): number {
  if (!(p >= 0 && p <= 1)) throw new RangeError(`normalQuantile: p must be in [0, 1], got ${p}`);
  if (p === 0) return Number.NEGATIVE_INFINITY;
  if (p === 1) return Number.POSITIVE_INFINITY;
  const q = p - 0.5;
  if (Math.abs(q) <= 0.425) {
    const r = 0.180625 - q * q;
    return (
      (q *
        (((((((r * 2509.0809287301227 + 33430.57558358813) * r + 67265.7709270087) * r + 45921.95393154987) *
          r +
          13731.69376550946) *
          r +
          1971.5909503065513) *
          r +
          133.14166789178438) *
          r +
          3.3871328727963665)) /
      (((((((r * 5226.495278852546 + 28729.085735721943) * r + 39307.89580009271) * r + 21213.794301586597) *
        r +
        5394.196021424751) *
        r +
        687.1870074920579) *
        r +
        42.31333070160091) *
        r +
        1)
    );
  }
  let r = q < 0 ? p : 1 - p;
  r = Math.sqrt(-Math.log(r));
  let value: number;
  if (r <= 5) {
    r -= 1.6;
    value =
      (((((((r * 0.0007745450142783414 + 0.022723844989269184) * r + 0.2417807251774506) * r +
        1.2704582524523684) *
        r +
        3.6478483247632045) *
        r +
        5.769497221460691) *
        r +
        4.630337846156546) *
        r +
        1.4234371107496835) /
      (((((((r * 1.0507500716444169e-9 + 0.0005475938084995345) * r + 0.015198666563616457) * r +
        0.14810397642748008) *
        r +
        0.6897673349851) *
        r +
        1.6763848301838038) *
        r +
        2.053191626637759) *
        r +
        1);
  } else {
    r -= 5;
    value =
      (((((((r * 2.0103343992922881e-7 + 0.000027115555687434876) * r + 0.0012426609473880784) * r +
        0.026532189526576124) *
        r +
        0.29656057182850487) *
        r +
        1.7848265399172913) *
        r +
        5.463784911164114) *
        r +
        6.657904643501103) /
      (((((((r * 2.0442631033899397e-15 + 1.421511758316446e-7) * r + 0.000018463183175100548) * r +
        0.0007868691311456133) *
        r +
        0.014875361290850615) *
        r +
        0.1369298809227358) *
        r +
        0.599832206555888) *
        r +
        1);
  }
  return q < 0 ? -value : value;
}

/** Regularized incomplete beta I_x(a, b) (continued fraction, modified Lentz). */
export function incompleteBeta(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const front = Math.exp(logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log1p(-x));
  // The continued fraction converges fast for x < (a + 1) / (a + b + 2); use the symmetry otherwise.
  if (x < (a + 1) / (a + b + 2)) return (front * betaContinuedFraction(x, a, b)) / a;
  return 1 - (front * betaContinuedFraction(1 - x, b, a)) / b;
}

function betaContinuedFraction(x: number, a: number, b: number): number {
  const tiny = 1e-300;
  let c = 1;
  let d = 1 - ((a + b) * x) / (a + 1);
  if (Math.abs(d) < tiny) d = tiny;
  d = 1 / d;
  let h = d;
  for (let m = 1; m <= 10000; m++) {
    const m2 = 2 * m;
    let aa = (m * (b - m) * x) / ((a + m2 - 1) * (a + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    h *= d * c;
    aa = (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + m2 + 1));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const delta = d * c;
    h *= delta;
    if (Math.abs(delta - 1) < 1e-15) break;
  }
  return h;
}

/** Student t CDF with `df` degrees of freedom (df may be fractional, as in Welch's test). */
export function studentTCdf(t: number, df: number): number {
  if (!(df > 0)) throw new RangeError(`studentTCdf: df must be > 0, got ${df}`);
  if (!Number.isFinite(t)) return t > 0 ? 1 : 0;
  const tail = 0.5 * incompleteBeta(df / (df + t * t), df / 2, 0.5);
  return t > 0 ? 1 - tail : tail;
}

const T_QUANTILE_CACHE = new Map<string, number>();

/** Student t quantile, by bisection on the CDF (exact to ~1e-12; cached, intervals reuse a few values). */
export function studentTQuantile(p: number, df: number): number {
  if (!(p > 0 && p < 1)) throw new RangeError(`studentTQuantile: p must be in (0, 1), got ${p}`);
  if (!(df > 0)) throw new RangeError(`studentTQuantile: df must be > 0, got ${df}`);
  if (p === 0.5) return 0;
  const key = `${p}:${df}`;
  const cached = T_QUANTILE_CACHE.get(key);
  if (cached !== undefined) return cached;
  const upper = p > 0.5 ? 1 - p : p; // tail probability we solve for, on the positive side
  let lo = 0;
  let hi = Math.max(1, -normalQuantile(upper));
  while (1 - studentTCdf(hi, df) > upper) hi *= 2;
  for (let i = 0; i < 200 && hi - lo > 1e-13 * hi; i++) {
    const mid = (lo + hi) / 2;
    if (1 - studentTCdf(mid, df) > upper) lo = mid;
    else hi = mid;
  }
  const value = p > 0.5 ? (lo + hi) / 2 : -(lo + hi) / 2;
  if (T_QUANTILE_CACHE.size > 4096) T_QUANTILE_CACHE.clear();
  T_QUANTILE_CACHE.set(key, value);
  return value;
}

function zFor(confidence: number): number {
  checkConfidence(confidence);
  return normalQuantile(1 - (1 - confidence) / 2);
}

function checkConfidence(confidence: number): void {
  if (!(confidence > 0 && confidence < 1)) {
    throw new RangeError(`confidence must be in (0, 1), got ${confidence}`);
  }
}

function checkCounts(successes: number, n: number, what: string): void {
  if (!Number.isInteger(n) || n < 0 || !Number.isInteger(successes) || successes < 0 || successes > n) {
    throw new RangeError(`${what}: need integers 0 <= successes <= n, got ${successes} of ${n}`);
  }
}

// ---------------------------------------------------------------------------------------------
// Pass rates
// ---------------------------------------------------------------------------------------------

/** Wilson score interval for a binomial proportion (Wilson 1927; Newcombe 1998 method 3). */
export function wilsonInterval(successes: number, n: number, confidence = 0.95): Interval | null {
  checkCounts(successes, n, "wilsonInterval");
  if (n === 0) return null;
  return wilsonIntervalForRate(successes / n, n, confidence);
}

/**
 * The Wilson score interval around an observed share `rate` of n. Also a conservative interval for
 * the mean of n values bounded in [0, 1] that all came out equal, where a t interval would have zero
 * width: a variable on [0, 1] with mean p has variance at most p(1 − p), the Bernoulli case.
 */
export function wilsonIntervalForRate(rate: number, n: number, confidence = 0.95): Interval {
  if (!(rate >= 0 && rate <= 1) || !(n > 0)) {
    throw new RangeError(`wilsonIntervalForRate: need 0 <= rate <= 1 and n > 0, got ${rate} of ${n}`);
  }
  const z = zFor(confidence);
  const z2 = z * z;
  const denom = 1 + z2 / n;
  const centre = (rate + z2 / (2 * n)) / denom;
  const half = (z / denom) * Math.sqrt((rate * (1 - rate)) / n + z2 / (4 * n * n));
  return {
    low: rate === 0 ? 0 : Math.max(0, centre - half),
    high: rate === 1 ? 1 : Math.min(1, centre + half),
  };
}

/**
 * Score interval for a Poisson mean per trial, from `total` events over n trials:
 * (total + z²/2 ± z·√(total + z²/4)) / n. With no events it is [0, z²/n], close to the exact
 * 3.69/n: n trials without a single help call still allow a rate of about 3.8/n.
 */
export function poissonMeanInterval(total: number, n: number, confidence = 0.95): Interval {
  if (!(total >= 0) || !(n > 0)) throw new RangeError(`poissonMeanInterval: need total >= 0 and n > 0`);
  const z = zFor(confidence);
  const centre = total + (z * z) / 2;
  const half = z * Math.sqrt(total + (z * z) / 4);
  return { low: Math.max(0, (centre - half) / n), high: (centre + half) / n };
}

/**
 * MOVER (Zou & Donner 2008, "Construction of confidence limits about effect measures: a general
 * approach"): an interval for θ1 − θ2 from separate intervals for θ1 and θ2. With Wilson intervals
 * for two proportions this is exactly Newcombe's method 10.
 */
export function moverInterval(
  estimate1: number,
  interval1: Interval,
  estimate2: number,
  interval2: Interval,
): Interval {
  const d = estimate1 - estimate2;
  return {
    low: d - Math.hypot(estimate1 - interval1.low, interval2.high - estimate2),
    high: d + Math.hypot(interval1.high - estimate1, estimate2 - interval2.low),
  };
}

/**
 * Interval for the difference of two independent proportions p1 − p2: Newcombe's hybrid score
 * interval (Newcombe 1998, "Interval estimation for the difference between independent
 * proportions", method 10), built from the two Wilson intervals. Good coverage at small n, unlike Wald.
 */
export function newcombeInterval(
  successes1: number,
  n1: number,
  successes2: number,
  n2: number,
  confidence = 0.95,
): Interval | null {
  const w1 = wilsonInterval(successes1, n1, confidence);
  const w2 = wilsonInterval(successes2, n2, confidence);
  if (!w1 || !w2) return null;
  const p1 = successes1 / n1;
  const p2 = successes2 / n2;
  const d = p1 - p2;
  return {
    low: Math.max(-1, d - Math.hypot(p1 - w1.low, w2.high - p2)),
    high: Math.min(1, d + Math.hypot(w1.high - p1, p2 - w2.low)),
  };
}

/**
 * Unbiased pass@k (Chen et al. 2021, "Evaluating Large Language Models Trained on Code"):
 * 1 − C(n−c, k)/C(n, k), the chance that at least one of k trials drawn without replacement passes.
 * Computed as 1 − Π_{i=n−c+1..n} (1 − k/i), as in the paper's numpy code, to avoid huge binomials.
 */
export function passAtK(n: number, c: number, k: number): number | null {
  checkCounts(c, n, "passAtK");
  if (!Number.isInteger(k) || k < 1) throw new RangeError(`passAtK: k must be an integer >= 1, got ${k}`);
  if (n === 0 || n < k) return null;
  if (n - c < k) return 1;
  let product = 1;
  for (let i = n - c + 1; i <= n; i++) product *= 1 - k / i;
  return 1 - product;
}

/**
 * Unbiased pass^k (Yao et al. 2024, τ-bench): C(c, k)/C(n, k), the chance that k trials drawn
 * without replacement all pass. Computed as Π_{i=0..k−1} (c−i)/(n−i).
 */
export function passHatK(n: number, c: number, k: number): number | null {
  checkCounts(c, n, "passHatK");
  if (!Number.isInteger(k) || k < 1) throw new RangeError(`passHatK: k must be an integer >= 1, got ${k}`);
  if (n === 0 || n < k) return null;
  if (c < k) return 0;
  let product = 1;
  for (let i = 0; i < k; i++) product *= (c - i) / (n - i);
  return product;
}

export function classifyFlakiness(passed: number, failed: number): Flakiness {
  if (passed + failed === 0) return "no_data";
  if (failed === 0) return "stable_pass";
  if (passed === 0) return "stable_fail";
  return "flaky";
}

// ---------------------------------------------------------------------------------------------
// Continuous metrics
// ---------------------------------------------------------------------------------------------

export function computeMean(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  let sum = 0;
  for (const v of values) sum += v;
  return sum / values.length;
}

/** Sample variance (n − 1 denominator); null when n < 2. */
export function computeVariance(values: readonly number[]): number | null {
  if (values.length < 2) return null;
  const mean = computeMean(values)!;
  let ss = 0;
  for (const v of values) ss += (v - mean) * (v - mean);
  return ss / (values.length - 1);
}

/** Quantile of already-sorted values, linear interpolation (R type 7, numpy's default). */
function quantileSorted(sorted: readonly number[], q: number): number | null {
  if (sorted.length === 0) return null;
  const h = (sorted.length - 1) * q;
  const lo = Math.floor(h);
  const hi = Math.ceil(h);
  return sorted[lo]! + (h - lo) * (sorted[hi]! - sorted[lo]!);
}

export function computeMedian(values: readonly number[]): number | null {
  return quantileSorted(
    [...values].sort((a, b) => a - b),
    0.5,
  );
}

export interface SummarizeOptions {
  /** Confidence of the interval for the mean; default 0.95. */
  confidence?: number;
}

/**
 * n, mean, median and an interval for the mean of one metric over trials. The interval is the
 * Student t interval (mean ± t·s/√n): it needs no resampling, so it is deterministic, and it is the
 * textbook choice at the small n of trials. null and non-finite values (a rate with nothing to divide
 * by) are dropped. Interval null when n < 2; a zero-spread sample gives a zero-width interval.
 */
export function summarizeMetric(
  values: ReadonlyArray<number | null | undefined>,
  options: SummarizeOptions = {},
): MetricSummary {
  const xs = values.filter((v): v is number => typeof v === "number" && Number.isFinite(v));
  const n = xs.length;
  const mean = computeMean(xs);
  const median = computeMedian(xs);
  const interval = meanInterval(xs, options.confidence ?? 0.95);
  return { n, mean, median, ci_low: interval?.low ?? null, ci_high: interval?.high ?? null };
}

/** Student t interval for the mean; null when n < 2. */
export function meanInterval(values: readonly number[], confidence = 0.95): Interval | null {
  checkConfidence(confidence);
  const n = values.length;
  if (n < 2) return null;
  const mean = computeMean(values)!;
  const sd = Math.sqrt(computeVariance(values)!);
  const half = studentTQuantile(1 - (1 - confidence) / 2, n - 1) * (sd / Math.sqrt(n));
  return { low: mean - half, high: mean + half };
}

/**
 * Welch interval for mean(x) − mean(y) (unequal variances, Welch–Satterthwaite df). null when
 * either side has fewer than 2 values. When both sides have zero spread the interval has zero width.
 */
export function welchInterval(
  x: readonly number[],
  y: readonly number[],
  confidence = 0.95,
): Interval | null {
  checkConfidence(confidence);
  if (x.length < 2 || y.length < 2) return null;
  const d = computeMean(x)! - computeMean(y)!;
  const vx = computeVariance(x)! / x.length;
  const vy = computeVariance(y)! / y.length;
  const se = Math.sqrt(vx + vy);
  if (se === 0) return { low: d, high: d };
  const df = ((vx + vy) * (vx + vy)) / ((vx * vx) / (x.length - 1) + (vy * vy) / (y.length - 1));
  const half = studentTQuantile(1 - (1 - confidence) / 2, df) * se;
  return { low: d - half, high: d + half };
}

// ---------------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------------

// R's fisher.test and binom.test treat probabilities within this relative margin as ties.
const RELATIVE_TIE = 1 + 1e-7;

/**
 * Two-sided Fisher exact test on the 2×2 table [[a, b], [c, d]]: the sum of the hypergeometric
 * probabilities of all tables with the observed margins that are no more likely than the observed
 * one (the convention of R's fisher.test).
 */
export function fisherExactTest(a: number, b: number, c: number, d: number): number {
  for (const v of [a, b, c, d]) {
    if (!Number.isInteger(v) || v < 0) throw new RangeError(`fisherExactTest: counts must be integers >= 0`);
  }
  const row1 = a + b;
  const row2 = c + d;
  const col1 = a + c;
  const n = row1 + row2;
  if (row1 === 0 || row2 === 0 || col1 === 0 || col1 === n) return 1;
  const logDenominator = logChoose(n, col1);
  const logP = (x: number) => logChoose(row1, x) + logChoose(row2, col1 - x) - logDenominator;
  const observed = logP(a);
  const threshold = observed + Math.log(RELATIVE_TIE);
  let p = 0;
  for (let x = Math.max(0, col1 - row2); x <= Math.min(row1, col1); x++) {
    const lp = logP(x);
    if (lp <= threshold) p += Math.exp(lp);
  }
  return Math.min(1, p);
}

/**
 * Exact two-sided binomial test of k successes in n against probability 1/2 (the symmetric case,
 * where doubling the smaller tail equals R's binom.test).
 */
export function binomialHalfTest(k: number, n: number): number {
  checkCounts(k, n, "binomialHalfTest");
  if (n === 0) return 1;
  const m = Math.min(k, n - k);
  if (2 * m === n) return 1;
  let tail = 0;
  for (let i = 0; i <= m; i++) tail += Math.exp(logChoose(n, i) - n * Math.LN2);
  return Math.min(1, 2 * tail);
}

/**
 * McNemar's exact test for paired binary outcomes: b = pairs that passed only in the first
 * condition, c = pairs that passed only in the second. The exact binomial test on the discordant pairs.
 */
export function mcnemarExactTest(b: number, c: number): number {
  return binomialHalfTest(b, b + c);
}

export interface ResamplingOptions {
  rng: Rng;
  /** Monte Carlo resamples when exact enumeration is too large; default 10,000. */
  resamples?: number;
  /** Enumerate exactly when the number of arrangements is at most this; default 5,000 (7 vs 7 trials). */
  maxExact?: number;
  /** Monte Carlo stops early after this many resamples at least as extreme as the data (Besag &
   * Clifford 1991): a clearly unremarkable difference needs a few hundred draws, not 10,000. Default 50. */
  stopAfterHits?: number;
}

/**
 * Sequential Monte Carlo p-value (Besag & Clifford 1991, "Sequential Monte Carlo p-values",
 * Biometrika 78:301–304): draw until `h` draws are at least as extreme as the data, p = h/draws; if
 * that never happens within `resamples` draws, p = (1 + hits)/(1 + resamples). Both are valid p-values.
 */
function sequentialMonteCarlo(isExtreme: () => boolean, options: ResamplingOptions): number {
  const resamples = options.resamples ?? 10_000;
  const h = options.stopAfterHits ?? 50;
  let hits = 0;
  for (let r = 1; r <= resamples; r++) {
    if (isExtreme()) hits++;
    if (hits >= h) return hits / r;
  }
  return (1 + hits) / (1 + resamples);
}

export interface PermutationResult {
  p_value: number;
  exact: boolean;
}

/**
 * Two-sample permutation test for a difference in means, two-sided: the share of relabellings of the
 * pooled values whose |mean(x) − mean(y)| is at least the observed one. Exact enumeration of all
 * C(n, nx) splits when that is small, else sequential Monte Carlo (see sequentialMonteCarlo), whose
 * p-values are valid too (Phipson & Smyth 2010 on the +1). Smallest possible p with 5 vs 5 trials: 2/252.
 */
export function permutationTest(
  x: readonly number[],
  y: readonly number[],
  options: ResamplingOptions,
  /** "greater": one-sided, the share of relabellings whose mean(x) − mean(y) is at least the observed one. */
  alternative: "two-sided" | "greater" = "two-sided",
): PermutationResult {
  const nx = x.length;
  const n = nx + y.length;
  if (nx === 0 || y.length === 0) return { p_value: 1, exact: true };
  const pooled = [...x, ...y];
  const total = pooled.reduce((s, v) => s + v, 0);
  const sumX = x.reduce((s, v) => s + v, 0);
  const difference = (sx: number) => sx / nx - (total - sx) / (n - nx);
  const statistic = alternative === "greater" ? difference : (sx: number) => Math.abs(difference(sx));
  const observed = statistic(sumX);
  // Floating sums of the same multiset can differ in the last bits: count near-equal as ties.
  const bar = observed - 1e-9 * Math.max(1, Math.abs(observed));
  if (pooled.every((v) => v === pooled[0])) return { p_value: 1, exact: true };

  const arrangements = Math.round(Math.exp(logChoose(n, nx)));
  if (arrangements <= (options.maxExact ?? 5000)) {
    let hits = 0;
    let count = 0;
    const pick = Array.from({ length: nx }, (_, i) => i);
    for (;;) {
      let s = 0;
      for (const i of pick) s += pooled[i]!;
      if (statistic(s) >= bar) hits++;
      count++;
      // Next combination in lexicographic order.
      let i = nx - 1;
      while (i >= 0 && pick[i] === n - nx + i) i--;
      if (i < 0) break;
      pick[i]!++;
      for (let j = i + 1; j < nx; j++) pick[j] = pick[j - 1]! + 1;
    }
    return { p_value: hits / count, exact: true };
  }
  const work = [...pooled];
  const isExtreme = () => {
    let sum = 0;
    // Partial Fisher–Yates: the first nx slots are a uniform random subset.
    for (let i = 0; i < nx; i++) {
      const j = i + drawInt(options.rng, n - i);
      const tmp = work[i]!;
      work[i] = work[j]!;
      work[j] = tmp;
      sum += work[i]!;
    }
    return statistic(sum) >= bar;
  };
  return { p_value: sequentialMonteCarlo(isExtreme, options), exact: false };
}

/**
 * Paired sign-flip permutation test of mean(d) = 0 for paired differences d, two-sided. Under the
 * null each difference is as likely positive as negative. Exact over all 2^m sign patterns of the
 * m non-zero differences when m ≤ 16, else Monte Carlo. With ±1 differences this is McNemar's exact test.
 */
export function signFlipTest(differences: readonly number[], options: ResamplingOptions): PermutationResult {
  const d = differences.filter((v) => v !== 0);
  const m = d.length;
  if (m === 0) return { p_value: 1, exact: true };
  const observed = Math.abs(d.reduce((s, v) => s + v, 0));
  const bar = observed - 1e-9 * Math.max(1, observed);
  if (m <= 16) {
    let hits = 0;
    const patterns = 2 ** m;
    for (let mask = 0; mask < patterns; mask++) {
      let s = 0;
      for (let i = 0; i < m; i++) s += mask & (1 << i) ? -d[i]! : d[i]!;
      if (Math.abs(s) >= bar) hits++;
    }
    return { p_value: hits / patterns, exact: true };
  }
  const isExtreme = () => {
    let sum = 0;
    for (const v of d) sum += options.rng() < 0.5 ? -v : v;
    return Math.abs(sum) >= bar;
  };
  return { p_value: sequentialMonteCarlo(isExtreme, options), exact: false };
}

export interface BootstrapOptions {
  rng: Rng;
  /** Default 2,000. */
  resamples?: number;
  /** Default 0.95. */
  confidence?: number;
}

/** Percentile bootstrap interval for a mean (resampling the values with replacement). null when n < 2. */
export function bootstrapMeanInterval(values: readonly number[], options: BootstrapOptions): Interval | null {
  const n = values.length;
  if (n < 2) return null;
  const resamples = options.resamples ?? 2000;
  const means = new Float64Array(resamples);
  for (let r = 0; r < resamples; r++) {
    let s = 0;
    for (let i = 0; i < n; i++) s += values[drawInt(options.rng, n)]!;
    means[r] = s / n;
  }
  return percentileInterval(means, options.confidence ?? 0.95);
}

/**
 * Percentile bootstrap interval for mean(x) − mean(y), two independent samples each resampled with
 * replacement. null when either side has fewer than 2 values.
 */
export function bootstrapDifferenceInterval(
  x: readonly number[],
  y: readonly number[],
  options: BootstrapOptions,
): Interval | null {
  if (x.length < 2 || y.length < 2) return null;
  const resamples = options.resamples ?? 2000;
  const diffs = new Float64Array(resamples);
  const resampleMean = (v: readonly number[]) => {
    let s = 0;
    for (let i = 0; i < v.length; i++) s += v[drawInt(options.rng, v.length)]!;
    return s / v.length;
  };
  for (let r = 0; r < resamples; r++) diffs[r] = resampleMean(x) - resampleMean(y);
  return percentileInterval(diffs, options.confidence ?? 0.95);
}

function percentileInterval(draws: Float64Array, confidence: number): Interval {
  checkConfidence(confidence);
  const sorted = Array.from(draws).sort((a, b) => a - b);
  const tail = (1 - confidence) / 2;
  return { low: quantileSorted(sorted, tail)!, high: quantileSorted(sorted, 1 - tail)! };
}

// ---------------------------------------------------------------------------------------------
// Multiple comparisons
// ---------------------------------------------------------------------------------------------

export type PValueAdjustment = "holm" | "bh";

/**
 * Adjusted p-values, in the input order, as R's p.adjust: Holm (1979) step-down, which controls the
 * family-wise error rate; or Benjamini & Hochberg (1995) step-up, which controls the false discovery rate.
 */
export function adjustPValues(pvalues: readonly number[], method: PValueAdjustment): number[] {
  const m = pvalues.length;
  for (const p of pvalues) {
    if (!(p >= 0 && p <= 1)) throw new RangeError(`adjustPValues: p-values must be in [0, 1], got ${p}`);
  }
  const order = pvalues.map((p, i) => ({ p, i })).sort((a, b) => a.p - b.p || a.i - b.i);
  const adjusted = new Array<number>(m);
  if (method === "holm") {
    let running = 0;
    order.forEach(({ p, i }, rank) => {
      running = Math.max(running, Math.min(1, (m - rank) * p));
      adjusted[i] = running;
    });
  } else {
    let running = 1;
    for (let rank = m - 1; rank >= 0; rank--) {
      const { p, i } = order[rank]!;
      running = Math.min(running, (m * p) / (rank + 1));
      adjusted[i] = Math.min(1, running);
    }
  }
  return adjusted;
}

// ---------------------------------------------------------------------------------------------
// Sample-size planning
// ---------------------------------------------------------------------------------------------

export interface RatePlan {
  /** Rate under the baseline, in [0, 1]. */
  baseline: number;
  /** The change to detect, in rate units (0.1 = 10 points); signed or not, the size is what counts. */
  effect: number;
  /** Two-sided significance level; default 0.05. */
  alpha?: number;
  /** Default 0.8. */
  power?: number;
}

/**
 * Trials per side for a two-sided two-proportion test (normal approximation without continuity
 * correction, Fleiss et al. 2003 eq. 4.14; the n that R's power.prop.test solves for), rounded up.
 * When baseline + effect leaves [0, 1] the change is taken in the other direction.
 */
export function trialsNeededForRate(plan: RatePlan): number {
  const { alpha, power } = checkPlan(plan.alpha, plan.power);
  if (!(plan.baseline >= 0 && plan.baseline <= 1)) {
    throw new ConfigError(`baseline rate must be in [0, 1], got ${plan.baseline}`, "baseline");
  }
  const size = Math.abs(plan.effect);
  if (!(size > 0 && size <= 1)) {
    throw new ConfigError(
      `effect must be a change in rate between 0 and 1 (0.1 = 10 points), got ${plan.effect}`,
      "effect",
    );
  }
  const p1 = plan.baseline;
  let p2 = p1 + (plan.effect >= 0 ? size : -size);
  if (p2 > 1 || p2 < 0) p2 = p1 + (plan.effect >= 0 ? -size : size);
  if (p2 > 1 || p2 < 0) {
    throw new ConfigError(`a change of ${size} from a rate of ${p1} leaves [0, 1] both ways`, "effect");
  }
  const za = normalQuantile(1 - alpha / 2);
  const zb = normalQuantile(power);
  const pBar = (p1 + p2) / 2;
  const root = za * Math.sqrt(2 * pBar * (1 - pBar)) + zb * Math.sqrt(p1 * (1 - p1) + p2 * (1 - p2));
  return Math.max(2, Math.ceil((root * root) / (size * size) - 1e-9));
}

export interface MeanPlan {
  /** Standard deviation of the metric across trials. */
  sd: number;
  /** The change in the mean to detect, in the metric's units. */
  effect: number;
  alpha?: number;
  power?: number;
}

/**
 * Trials per side for a two-sided two-sample t test: the normal-approximation n plus Guenther's
 * (1981) correction z²/4 for estimating the variance, rounded up. Within one trial of the exact
 * noncentral-t answer (R's power.t.test) at the usual alpha and power.
 */
export function trialsNeededForMean(plan: MeanPlan): number {
  const { alpha, power } = checkPlan(plan.alpha, plan.power);
  if (!(plan.sd >= 0 && Number.isFinite(plan.sd))) {
    throw new ConfigError(`standard deviation must be a finite number >= 0, got ${plan.sd}`, "sd");
  }
  const size = Math.abs(plan.effect);
  if (!(size > 0 && Number.isFinite(size))) {
    throw new ConfigError(`effect must be a non-zero change in the metric, got ${plan.effect}`, "effect");
  }
  const za = normalQuantile(1 - alpha / 2);
  const zb = normalQuantile(power);
  const n = (2 * (za + zb) ** 2 * plan.sd * plan.sd) / (size * size) + (za * za) / 4;
  return Math.max(2, Math.ceil(n - 1e-9));
}

function checkPlan(alpha = 0.05, power = 0.8): { alpha: number; power: number } {
  if (!(alpha > 0 && alpha < 1)) throw new ConfigError(`alpha must be in (0, 1), got ${alpha}`, "alpha");
  if (!(power > 0 && power < 1)) throw new ConfigError(`power must be in (0, 1), got ${power}`, "power");
  return { alpha, power };
}

/** The binomial distribution's probabilities P(X = k), k = 0..n, for n trials of success probability p. */
export function binomialPmf(n: number, p: number): number[] {
  const pmf: number[] = [];
  let c = 1;
  for (let k = 0; k <= n; k++) {
    pmf.push(c * p ** k * (1 - p) ** (n - k));
    c = (c * (n - k)) / (k + 1);
  }
  return pmf;
}
