/**
 * How much a broad drop ANY suite test could catch: an upper bound on the power of every test of the
 * head's trials against K base runs that keeps unchanged PRs under its level in the null cells the
 * decision must survive — no change, a linear drift across the base runs, and a suite-wide day effect
 * up to a given variance. It says whether a power target is out of reach of any method, not only of
 * the ones tried (docs/statistics.md, "The frontier").
 *
 * The model is the normal one of suite levels (a run's mean pass rate over the scenarios): each base
 * run's level is N(p + β(r − K), σ²_b + τ²) at position r = 0..K−1, the head's N(p + δ, σ²_h + τ²);
 * σ² = p(1 − p)/(scenarios × trials) is binomial sampling, τ² the day effect, β the drift per run. A
 * test that keeps its level whatever the common level p is may be taken to depend on the data through
 * D = head − mean of the base levels, the slope b of the base levels on their order, and the residual
 * spread s² about that line (the statistics invariant under a common shift; Lehmann & Romano 2005,
 * Testing Statistical Hypotheses, ch. 6). Under the model the three are independent: D normal, b
 * normal, s² a scaled χ² with K − 2 degrees of freedom.
 *
 * The bound is the Neyman–Pearson linear program's dual (weak duality): for any multipliers λ_k ≥ 0,
 * every test φ with size_k(φ) ≤ α in every null cell k has
 *   power(φ) ≤ Σ_cells max(0, P_alt(cell) − Σ_k λ_k P_k(cell)) + α Σ_k λ_k,
 * so whatever multipliers the search ends at, the figure is an upper bound — over the tests that depend
 * on (D, b, s²) through the grid's cells (a finer grid moves it by less than 0.2 points at the defaults,
 * tests/stats/suite-power-bound.test.ts). The search (coordinate descent on the convex dual) only makes
 * it tighter.
 */
import { goldenSectionMaximum } from "./exact-2x2.js";
import { logGamma, normalCdf } from "./stats.js";

export interface SuiteBoundDesign {
  scenarios: number;
  /** Trials per scenario in each base run. */
  trials: number;
  /** Trials per scenario of the head entering the test (default `trials`: its first trials). */
  headTrials?: number;
  /** Base runs pooled; at least 3 (a slope and a residual spread). */
  baseRuns: number;
  /** Every scenario's pass rate with nothing changed. */
  baseRate: number;
  /** Every scenario's pass rate after the broad drop the power is for. */
  headRate: number;
  /** The drift null cell: change of the level per run (−0.05 / 8: −5 points every 8 runs); 0 for none. */
  driftPerRun: number;
  /** The largest day-effect variance of the level the null cells include; 0 for none. */
  maxDayVariance: number;
  /** The level every null cell must keep (the suite test's share of α). */
  alpha: number;
}

export interface SuiteBound {
  /** Upper bound on the power of any test keeping every null cell at or below `alpha`. */
  power: number;
  /** The null cells: "no change", "drift", "day effect variance v". */
  cells: string[];
  /** The multipliers the bound was evaluated at. */
  multipliers: number[];
}

export interface BoundGrid {
  /** Bins of D, of the slope and of the residual spread. */
  d: number;
  slope: number;
  spread: number;
  /** Day-effect variances between 0 and the largest (geometric), each a null cell. */
  dayCells: number;
  /** Sweeps of the coordinate descent. */
  sweeps: number;
}

const DEFAULT_BOUND_GRID: BoundGrid = { d: 160, slope: 36, spread: 28, dayCells: 8, sweeps: 6 };

interface Law {
  d: Float64Array;
  slope: Float64Array;
  spread: Float64Array;
}

export function suitePowerBound(design: SuiteBoundDesign, grid: BoundGrid = DEFAULT_BOUND_GRID): SuiteBound {
  const { scenarios, trials, baseRuns: k, baseRate: p, headRate: p1, alpha } = design;
  if (k < 3) throw new Error("suitePowerBound needs at least 3 base runs (a slope and a residual spread)");
  const headTrials = design.headTrials ?? trials;
  const baseVar = (p * (1 - p)) / (scenarios * trials);
  const headVar0 = (p * (1 - p)) / (scenarios * headTrials);
  const headVar1 = (p1 * (1 - p1)) / (scenarios * headTrials);
  const center = (k - 1) / 2;
  let sxx = 0;
  for (let r = 0; r < k; r++) sxx += (r - center) ** 2;
  const df = k - 2;
  const dScale = Math.sqrt(headVar0 + baseVar / k);
  const slopeScale = Math.sqrt(baseVar / sxx);
  const maxTheta = design.maxDayVariance / baseVar;

  // Bin edges: D in units of its null sd, the slope in units of its sd, the spread q = s²/σ²_b.
  const dEdges = edges(-10, 6, grid.d);
  const slopeEdges = edges(-6, 6, grid.slope);
  const spreadEdges = geometricEdges(0.02, (1 + maxTheta) * 6, grid.spread);

  const law = (dMean: number, dVar: number, slopeMean: number, theta: number): Law => ({
    d: normalBins(dEdges, dMean / dScale, Math.sqrt(dVar) / dScale),
    slope: normalBins(slopeEdges, slopeMean / slopeScale, Math.sqrt(1 + theta)),
    spread: chiSquareBins(spreadEdges, df, 1 + theta),
  });
  const dayVar = (theta: number) => theta * baseVar * (1 + 1 / k);
  const nulls: Law[] = [law(0, dScale ** 2, 0, 0)];
  const cells = ["no change"];
  if (design.driftPerRun !== 0) {
    // Base level at r is p + β(r − K); the head's is p: D has mean β(K + 1)/2, the slope β.
    nulls.push(law((design.driftPerRun * (k + 1)) / 2, dScale ** 2, design.driftPerRun, 0));
    cells.push("drift");
  }
  if (maxTheta > 0) {
    for (let j = 1; j <= grid.dayCells; j++) {
      const theta = maxTheta * 2 ** (j - grid.dayCells);
      nulls.push(law(0, dScale ** 2 + dayVar(theta), 0, theta));
      cells.push(`day effect variance ${(theta * baseVar).toExponential(2)}`);
    }
  }
  const alt = law(p1 - p, headVar1 + baseVar / k, 0, 0);

  const dual = (lambda: readonly number[]) => dualValue(alt, nulls, lambda, alpha);
  const lambda = nulls.map(() => 1);
  let best = dual(lambda);
  for (let sweep = 0; sweep < grid.sweeps; sweep++) {
    for (let i = 0; i < lambda.length; i++) {
      const at = (x: number) => {
        const trial = [...lambda];
        trial[i] = x;
        return dual(trial);
      };
      const high = Math.max(4 * lambda[i]!, 40);
      const { at: x, value } = goldenSectionMaximum((y) => -at(y), 0, high, high * 1e-6);
      if (-value < best) {
        best = -value;
        lambda[i] = x;
      }
    }
  }
  return { power: Math.min(1, best), cells, multipliers: lambda };
}

/** The dual function: Σ_cells max(0, alt − Σ λ_k null_k) + α Σ λ_k. Convex in λ. */
function dualValue(alt: Law, nulls: readonly Law[], lambda: readonly number[], alpha: number): number {
  let total = 0;
  const m = nulls.length;
  const weights = new Float64Array(m);
  for (let a = 0; a < alt.slope.length; a++) {
    for (let b = 0; b < alt.spread.length; b++) {
      const altSU = alt.slope[a]! * alt.spread[b]!;
      for (let i = 0; i < m; i++) weights[i] = lambda[i]! * nulls[i]!.slope[a]! * nulls[i]!.spread[b]!;
      for (let c = 0; c < alt.d.length; c++) {
        let value = altSU * alt.d[c]!;
        for (let i = 0; i < m; i++) value -= weights[i]! * nulls[i]!.d[c]!;
        if (value > 0) total += value;
      }
    }
  }
  for (const l of lambda) total += alpha * l;
  return total;
}

/** n equal bins between low and high, plus a tail bin on each side. */
function edges(low: number, high: number, n: number): number[] {
  const out = [Number.NEGATIVE_INFINITY];
  for (let i = 0; i <= n; i++) out.push(low + ((high - low) * i) / n);
  out.push(Number.POSITIVE_INFINITY);
  return out;
}

/** n geometric bins between low and high, with [0, low) and [high, ∞) as tail bins. */
function geometricEdges(low: number, high: number, n: number): number[] {
  const out = [0];
  for (let i = 0; i <= n; i++) out.push(low * (high / low) ** (i / n));
  out.push(Number.POSITIVE_INFINITY);
  return out;
}

function normalBins(binEdges: readonly number[], mean: number, sd: number): Float64Array {
  const out = new Float64Array(binEdges.length - 1);
  for (let i = 0; i < out.length; i++) {
    out[i] = normalCdf((binEdges[i + 1]! - mean) / sd) - normalCdf((binEdges[i]! - mean) / sd);
  }
  return out;
}

/** Bins of q = scale × χ²_df / df. */
function chiSquareBins(binEdges: readonly number[], df: number, scale: number): Float64Array {
  const cdf = (q: number) => (q === Number.POSITIVE_INFINITY ? 1 : chiSquareCdf((q * df) / scale, df));
  const out = new Float64Array(binEdges.length - 1);
  for (let i = 0; i < out.length; i++) out[i] = cdf(binEdges[i + 1]!) - cdf(binEdges[i]!);
  return out;
}

/** P(χ²_df ≤ x): the regularized lower incomplete gamma P(df/2, x/2) (series, else Lentz's continued fraction). */
export function chiSquareCdf(x: number, df: number): number {
  if (x <= 0) return 0;
  const a = df / 2;
  const y = x / 2;
  const logPrefix = a * Math.log(y) - y - logGamma(a);
  if (y < a + 1) {
    let term = 1 / a;
    let sum = term;
    for (let n = 1; n < 500; n++) {
      term *= y / (a + n);
      sum += term;
      if (term < sum * 1e-15) break;
    }
    return Math.min(1, sum * Math.exp(logPrefix));
  }
  const tiny = 1e-300;
  let b = y + 1 - a;
  let c = 1 / tiny;
  let d = 1 / b;
  let h = d;
  for (let n = 1; n < 500; n++) {
    const an = -n * (n - a);
    b += 2;
    d = an * d + b;
    if (Math.abs(d) < tiny) d = tiny;
    c = b + an / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const delta = d * c;
    h *= delta;
    if (Math.abs(delta - 1) < 1e-15) break;
  }
  return Math.max(0, 1 - Math.exp(logPrefix) * h);
}
