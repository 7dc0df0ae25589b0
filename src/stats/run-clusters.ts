/**
 * Runs are clusters. The trials of one run share a day (the model API, the runner image, load), so
 * pass rates vary from run to run and drift over weeks; the trials of a run are not independent draws
 * of one unchanging rate. This module estimates that variation from the pooled base-branch runs and
 * gives the tests that stay valid under it. docs/statistics.md ("Runs are clusters") is the contract.
 *
 * - `estimateRunVariation`: the intra-run correlation (ICC) of pass/fail, by the one-way ANOVA
 *   estimator with sums of squares pooled over scenarios (Fleiss, Levin & Paik 2003 §15.5; Ridout,
 *   Demétrio & Firth 1999, estimator "A"), and the spread of the suite-level rate across runs.
 * - `clusteredUnconditionalP`: Boschloo's exact unconditional test with each run's pass count
 *   beta-binomial instead of binomial (the run's rate drawn from a beta law with the estimated ICC):
 *   the p-value is the largest probability, over the mean pass rate, of a table at least as extreme
 *   (by Fisher's one-sided p, as Boschloo orders tables). With ICC 0 it is Boschloo's test exactly.
 * - `runLevelSuiteTest`: the suite test that takes each base run as one observation of the day's
 *   suite-level pass rate (a prediction t-test, K − 1 degrees of freedom), used when the base runs vary
 *   more than binomial sampling explains; otherwise the exact stratified CMH test keeps its power.
 */
import { cmhExactOneSided } from "./cmh.js";
import { fisherOneSidedP, maximizeOnUnitInterval, type PassCounts } from "./exact-2x2.js";
import { normalCdf, normalQuantile, studentTCdf } from "./stats.js";

/**
 * The ICC assumed when the base runs cannot show it (fewer than three): the largest run-to-run
 * variation the decision is designed for (docs/statistics.md). Such a run is never called conclusive.
 */
export const PRIOR_ICC = 0.1;
/**
 * The suite-wide run effect (standard deviation on the logit scale) the suite test assumes when fewer
 * than three base runs cannot show it: the largest day effect the design is built for.
 */
const PRIOR_RUN_EFFECT_SD = 0.5;
/** Base runs needed to estimate run-to-run variation at all (and for a conclusive "no regression"). */
export const MIN_RUNS_FOR_VARIATION = 3;
/**
 * Base runs below which the suite test does not rely on the runs' day-to-day spread looking small:
 * the spread of K suite levels is known to K − 1 degrees of freedom, and with fewer than 8 a day
 * effect of sd 0.5 hides in it too often (docs/statistics.md). Below this, unless the
 * runs show a larger spread, the design's largest day effect (PRIOR_RUN_EFFECT_SD) is assumed.
 */
const MIN_RUNS_FOR_DAY_EFFECT = 8;
/**
 * Base runs the per-scenario tests pool: the newest 8. They model no drift, so every run further back
 * compares the head with an older base branch — with 12 or 16 runs a drift of −5 points every 8 runs
 * failed unchanged PRs 6.6% / 7.7% of the time (docs/statistics.md). The suite test fits the drift
 * over every pooled run.
 */
export const SCENARIO_TEST_RUNS = 8;

/** The runs (oldest first) the per-scenario tests pool: the newest SCENARIO_TEST_RUNS. */
export function scenarioTestRuns<T>(runs: readonly T[]): T[] {
  return runs.slice(-SCENARIO_TEST_RUNS);
}

/**
 * Base-branch runs the action pools by default: 12. The per-scenario tests take the newest 8 of them
 * (24 baseline trials a scenario at 3 trials: a collapse in one of 20 scenarios caught ~95%); the suite
 * test fits the trend of all 12, known well enough to catch a drop of 10 points in every scenario about
 * half the time (docs/statistics.md, "Defaults, and the targets they meet").
 */
export const DEFAULT_BASELINE_RUNS = 12;

/** One run's pass count for one scenario. */
export interface RunCount {
  passed: number;
  trials: number;
}

/**
 * The ICC from K runs of each scenario (each scenario's runs in the same order: index r is run r).
 * Method of moments: MSB (between runs, within scenario) and MSW (within run) pooled over scenarios,
 * ρ = (MSB − MSW) / (MSB + (n₀ − 1) MSW), with n₀ the usual adjusted mean run size.
 */
export function estimateIntraRunCorrelation(scenarios: ReadonlyArray<readonly RunCount[]>): number | null {
  let ssb = 0;
  let ssw = 0;
  let dfb = 0;
  let dfw = 0;
  let n0Weighted = 0;
  for (const runs of scenarios) {
    const present = runs.filter((r) => r.trials > 0);
    if (present.length < 2) continue;
    const total = present.reduce((s, r) => s + r.trials, 0);
    const passed = present.reduce((s, r) => s + r.passed, 0);
    const mean = passed / total;
    for (const r of present) {
      const rate = r.passed / r.trials;
      ssb += r.trials * (rate - mean) ** 2;
      ssw += r.passed * (1 - rate);
    }
    const k = present.length;
    dfb += k - 1;
    dfw += total - k;
    n0Weighted += total - present.reduce((s, r) => s + r.trials * r.trials, 0) / total;
  }
  if (dfb === 0 || dfw === 0) return null;
  const msb = ssb / dfb;
  const msw = ssw / dfw;
  const n0 = n0Weighted / dfb;
  const denominator = msb + (n0 - 1) * msw;
  if (denominator <= 0) return 0;
  return Math.min(0.99, Math.max(0, (msb - msw) / denominator));
}

/**
 * The spread of the suite-level pass rate across runs against binomial sampling: the variance over
 * runs of each run's mean pass rate over the scenarios every run measured, divided by its expected
 * value if every trial were an independent draw at the scenario's pooled rate.
 */
export function estimateSuiteDispersion(scenarios: ReadonlyArray<readonly RunCount[]>): number | null {
  const shared = scenarios.filter((runs) => runs.length > 0 && runs.every((r) => r.trials > 0));
  const k = shared[0]?.length ?? 0;
  if (k < 3 || shared.length === 0) return null;
  const levels = suiteLevels(shared);
  const mean = levels.reduce((s, v) => s + v, 0) / k;
  const observed = levels.reduce((s, v) => s + (v - mean) ** 2, 0) / (k - 1);
  // Binomial variance of a run's level: (1/S²) Σ_s p_s(1−p_s)/n_rs, averaged over runs.
  let expected = 0;
  for (const runs of shared) {
    const total = runs.reduce((s, r) => s + r.trials, 0);
    const rate = runs.reduce((s, r) => s + r.passed, 0) / total;
    const meanInverse = runs.reduce((s, r) => s + 1 / r.trials, 0) / k;
    // The run's own trials are in the pooled rate: its sampling variance is scaled by (1 − 1/K) in the
    // deviation from the mean; the sample variance over runs already corrects for that, so use it as is.
    expected += (rate * (1 - rate) * meanInverse * total) / (total - 1 / meanInverse);
  }
  expected /= shared.length * shared.length;
  // Every scenario always passed or always failed: no sampling variance, and no spread to judge.
  if (expected <= 0) return observed > 0 ? Number.POSITIVE_INFINITY : null;
  return observed / expected;
}

/** Each run's mean pass rate over the scenarios (every scenario measured by every run). */
function suiteLevels(shared: ReadonlyArray<readonly RunCount[]>): number[] {
  const k = shared[0]!.length;
  return Array.from(
    { length: k },
    (_, r) => shared.reduce((s, runs) => s + runs[r]!.passed / runs[r]!.trials, 0) / shared.length,
  );
}

export interface AssumedVariation {
  /** Base runs that carried trials. */
  runs: number;
  /** The base runs' ICC estimate; null below two runs. */
  icc: number | null;
  /** The ICC the tests assume. */
  iccUsed: number;
}

/**
 * The ICC the tests assume: the base runs' estimate rounded up to 0.01 (the tests' law changes in
 * steps, and rounding up errs towards not failing), or, below three runs, at least the prior (0.1):
 * the largest run-to-run variation the design is built for. `assumed` overrides the estimate (0 for a
 * tool whose trials are known to be independent).
 */
export function assumeRunVariation(
  baseRuns: ReadonlyArray<readonly RunCount[]>,
  assumed?: number,
): AssumedVariation {
  const runs = Math.max(0, ...baseRuns.map((r) => r.filter((c) => c.trials > 0).length));
  const icc = runs >= 2 ? estimateIntraRunCorrelation(baseRuns) : null;
  if (assumed !== undefined) {
    if (!(assumed >= 0 && assumed < 1)) throw new RangeError(`icc must be in [0, 1), got ${assumed}`);
    return { runs, icc, iccUsed: assumed };
  }
  return { runs, icc, iccUsed: iccForRuns(runs, roundIccUp(icc ?? 0)) };
}

/** An ICC estimate as the tests take it: rounded up to 0.01 (their law changes in steps; up errs towards not failing). */
export function roundIccUp(icc: number): number {
  return Math.max(0, Math.ceil(icc * 100 - 1e-9) / 100);
}

/** The ICC the tests assume with `runs` base runs: below three, at least the prior nothing else can show. */
export function iccForRuns(runs: number, icc: number): number {
  return runs >= MIN_RUNS_FOR_VARIATION ? icc : Math.max(icc, PRIOR_ICC);
}

// ---------------------------------------------------------------------------------------------
// Beta-binomial laws
// ---------------------------------------------------------------------------------------------

/**
 * P(X = k), k = 0..n, for X beta-binomial with mean `mean` and intra-run correlation `icc`
 * (the run's rate ~ Beta(a, b), a = mean(1 − icc)/icc, b = (1 − mean)(1 − icc)/icc). icc 0 is the
 * binomial law. By the ratio recurrence, which needs no gamma functions.
 */
export function betaBinomialPmf(n: number, mean: number, icc: number): Float64Array {
  const pmf = new Float64Array(n + 1);
  if (mean <= 0) {
    pmf[0] = 1;
    return pmf;
  }
  if (mean >= 1) {
    pmf[n] = 1;
    return pmf;
  }
  if (icc <= 0) {
    let p0 = 1;
    for (let j = 0; j < n; j++) p0 *= 1 - mean;
    // A subnormal P(X = 0) has lost its digits (it stops shrinking): the ratios would scale it up.
    if (p0 < SMALLEST_NORMAL) return binomialPmfByLogs(n, mean);
    pmf[0] = p0;
    for (let k = 0; k < n; k++) pmf[k + 1] = (pmf[k]! * (n - k) * mean) / ((k + 1) * (1 - mean));
    return pmf;
  }
  const scale = (1 - icc) / icc;
  const a = mean * scale;
  const b = (1 - mean) * scale;
  let p0 = 1;
  for (let j = 0; j < n; j++) p0 *= (b + j) / (a + b + j);
  if (p0 < SMALLEST_NORMAL) return betaBinomialPmfByLogs(n, a, b);
  pmf[0] = p0;
  for (let k = 0; k < n; k++) pmf[k + 1] = (pmf[k]! * (n - k) * (a + k)) / ((k + 1) * (b + n - k - 1));
  if (!Number.isFinite(pmf[n]!)) return normalise(pmf);
  return pmf;
}

/** The smallest normal double: below it a product of ratios keeps too few digits to be scaled back up. */
const SMALLEST_NORMAL = 2.2250738585072014e-308;

/** The beta-binomial law by the same ratio recurrence in logs, for the large n whose P(X = 0) underflows. */
function betaBinomialPmfByLogs(n: number, a: number, b: number): Float64Array {
  const logs = new Float64Array(n + 1);
  for (let j = 0; j < n; j++) logs[0]! += Math.log((b + j) / (a + b + j));
  for (let k = 0; k < n; k++) {
    logs[k + 1] = logs[k]! + Math.log(((n - k) * (a + k)) / ((k + 1) * (b + n - k - 1)));
  }
  const top = Math.max(...logs);
  return normalise(logs.map((l) => Math.exp(l - top)));
}

function binomialPmfByLogs(n: number, p: number): Float64Array {
  const pmf = new Float64Array(n + 1);
  let logC = 0;
  for (let k = 0; k <= n; k++) {
    if (k > 0) logC += Math.log((n - k + 1) / k);
    pmf[k] = Math.exp(logC + k * Math.log(p) + (n - k) * Math.log1p(-p));
  }
  return pmf;
}

function normalise(pmf: Float64Array): Float64Array {
  let sum = 0;
  for (let i = 0; i < pmf.length; i++) sum += Number.isFinite(pmf[i]!) ? pmf[i]! : 0;
  for (let i = 0; i < pmf.length; i++) pmf[i] = Number.isFinite(pmf[i]!) && sum > 0 ? pmf[i]! / sum : 0;
  return pmf;
}

/** The law of a sum of independent runs' pass counts, each beta-binomial with the same mean and ICC. */
function pooledRunsPmf(runTrials: readonly number[], mean: number, icc: number): Float64Array {
  let law = new Float64Array([1]);
  for (const n of runTrials) {
    const run = betaBinomialPmf(n, mean, icc);
    const next = new Float64Array(law.length + n);
    for (let i = 0; i < law.length; i++) {
      const p = law[i]!;
      if (p === 0) continue;
      for (let j = 0; j <= n; j++) next[i + j]! += p * run[j]!;
    }
    law = next;
  }
  return law;
}

// ---------------------------------------------------------------------------------------------
// The per-scenario test
// ---------------------------------------------------------------------------------------------

export interface ClusteredCounts {
  /** Trials of each base run that measured this scenario (errors and skips left out). */
  baseRunTrials: readonly number[];
  basePassed: number;
  /** The head is one run: its trials (first and extra ones alike) share its day. */
  headTrials: number;
  headPassed: number;
  /** The intra-run correlation assumed (0: independent trials, Boschloo's test). */
  icc: number;
}

// The probability is smooth in μ once ρ > 0 (ρ = 0 goes to Boschloo's own finer grid); local maxima are refined.
const GRID_STEPS = 100;
const TIE_MARGIN = 1 + 1e-10;
const CACHE = new Map<string, number>();

/**
 * One-sided "the head passes less often", under the clustered null: every base run and the head run
 * draw their own rate from one beta law (mean μ, ICC ρ) and their trials are binomial at that rate.
 * p = sup_μ P_μ,ρ(Fisher's one-sided p of the pooled table ≤ the observed one). Exact under that model
 * at the given ρ (the sup covers the unknown μ); with ρ = 0 and one base run it is Boschloo's test.
 */
export function clusteredUnconditionalP(counts: ClusteredCounts): number {
  const { baseRunTrials, basePassed, headTrials, headPassed, icc } = counts;
  const baseTrials = baseRunTrials.reduce((s, n) => s + n, 0);
  if (baseTrials === 0 || headTrials === 0) return 1;
  const key = `${icc}:${baseRunTrials.join(",")}:${headTrials}:${basePassed}:${headPassed}`;
  const cached = CACHE.get(key);
  if (cached !== undefined) return cached;
  const observed = fisherOneSidedP({ basePassed, baseTrials, headPassed, headTrials });
  // The region: tables (head x, base y) at least as extreme as the observed one.
  const region: Array<[number, number]> = [];
  for (let x = 0; x <= headTrials; x++) {
    for (let y = 0; y <= baseTrials; y++) {
      const statistic = fisherOneSidedP({ basePassed: y, baseTrials, headPassed: x, headTrials });
      if (statistic <= observed * TIE_MARGIN) region.push([x, y]);
    }
  }
  const sumOver = (head: Float64Array, base: Float64Array) => {
    let sum = 0;
    for (const [x, y] of region) sum += head[x]! * base[y]!;
    return sum;
  };
  const probability = (mean: number) =>
    sumOver(betaBinomialPmf(headTrials, mean, icc), pooledRunsPmf(baseRunTrials, mean, icc));
  // The grid's laws are the same for every table of these sizes: a decision or a power computation
  // asks for many tables, so they are kept.
  const best = maximizeOnUnitInterval(probability, GRID_STEPS, (i) => {
    const laws = gridLaws(headTrials, baseRunTrials, icc, i);
    return sumOver(laws.head, laws.base);
  });
  const p = Math.min(1, best);
  if (CACHE.size > 200_000) CACHE.clear();
  CACHE.set(key, p);
  return p;
}

const GRID_LAWS = new Map<string, { head: Float64Array; base: Float64Array }>();

function gridLaws(headTrials: number, baseRunTrials: readonly number[], icc: number, step: number) {
  const key = `${icc}:${headTrials}:${baseRunTrials.join(",")}:${step}`;
  let laws = GRID_LAWS.get(key);
  if (!laws) {
    const mean = step / GRID_STEPS;
    laws = { head: betaBinomialPmf(headTrials, mean, icc), base: pooledRunsPmf(baseRunTrials, mean, icc) };
    if (GRID_LAWS.size > 50_000) GRID_LAWS.clear();
    GRID_LAWS.set(key, laws);
  }
  return laws;
}

// ---------------------------------------------------------------------------------------------
// The suite test over runs
// ---------------------------------------------------------------------------------------------

/**
 * Pretest levels: the suite test leaves the exact stratified test whenever the base runs' own estimate
 * points to a day effect (their spread above its median under binomial sampling) or to a downward
 * trend (a negative slope). At 0.5 the robust form is chosen on the evidence's side, not only when it
 * is significant: with 8 runs a day effect of sd 0.2, or a drift of −5 points, is rarely significant
 * and still fails unchanged PRs if ignored (docs/statistics.md, "The frontier").
 */
const DISPERSION_PRETEST = 0.5;
const TREND_PRETEST = 0.5;
/** The measured variant follows an upward trend only when the spread about it is below this upper point. */
const UPWARD_TREND_SPREAD_PRETEST = 0.1;

export type SuiteMethod = "exact" | "design-effect" | "prior" | "runs" | "trend";

export interface ClusteredSuiteInput extends PassCounts {
  /** The base runs' counts for this scenario, index r = run r in every scenario (0 trials: not run). */
  baseRuns: readonly RunCount[];
  /**
   * The head's extra trials after the screen and their passes (headPassed/headTrials are the first
   * trials only); absent or 0 when the scenario was not extended. They form the second stage.
   */
  extraTrials?: number;
  extraPassed?: number;
}

/** The second stage's part in a suite test that used the head's extra trials (see extrasStage). */
export interface ExtrasStageResult {
  /** Extended scenarios whose extra trials entered. */
  scenarios: number;
  /** The first stage's p-value (today's suite test on first trials only). */
  firstStageP: number;
  /** The second stage's z: extra passes against their null prediction given the first trials. */
  z2: number;
  /** The two stages' correlation through the shared base arm (and shared slope and day). */
  correlation: number;
}

export interface ClusteredSuiteResult {
  pValue: number;
  method: SuiteMethod;
  /** Base runs whose suite-level rate entered (every scenario measured by every run). */
  runs: number;
  /** The base runs' suite-level rate per run, oldest first (empty below three runs). */
  levels: number[];
  /** Least-squares slope of those levels per run (negative: getting worse); null below four runs. */
  trend: number | null;
  /** Dispersion of the levels against binomial sampling (see estimateSuiteDispersion). */
  dispersion: number | null;
  informativeStrata: number;
  observedMinusExpected: number;
  /** Set when the head's extra trials entered as a second stage (pValue is then the combined one). */
  extrasStage: ExtrasStageResult | null;
}

/**
 * The suite test under run-to-run variation. Start from the exact stratified CMH test (head first
 * trials against the pooled base runs): exact where trials are independent. Then:
 * - the head's trials share a day: its z is divided by √(1 + (n − 1)ρ), the design effect of n first
 *   trials per scenario at the estimated ICC ρ (Kish 1965) — exactly the CMH p when ρ = 0;
 * - when the base runs' suite-level rates spread more than that explains (a suite-wide day effect:
 *   their dispersion above its median under binomial sampling), each base run becomes one observation
 *   of the day's level and the head is tested as one more day: a prediction t-test with K − 1 degrees
 *   of freedom, valid whatever the day-to-day variance;
 * - below MIN_RUNS_FOR_DAY_EFFECT base runs, where a spread that looks small proves little, the
 *   design's largest day effect (PRIOR_RUN_EFFECT_SD) is assumed instead (below three, always);
 * - when the levels trend downward (a negative least-squares slope, four runs or more), the head is
 *   compared with the trend's prediction for the next run (t with K − 2 degrees of freedom), so a slow
 *   drift across weeks of pushes is not this PR's regression.
 * The pretests cost power only when the base runs show what they test for; docs/statistics.md gives
 * the simulated false-failure rates and power with and without them.
 * That is the first stage, on the head's first trials. When the screen extended scenarios, their extra
 * trials are a second stage combined with it (`extrasStage`); without extras the p-value is the first
 * stage's, exactly.
 */
/**
 * Which corrections the suite test may make: all of them (the default), or fewer, which the
 * simulation uses to show what each costs and buys (docs/statistics.md, "The frontier"); or
 * "upward-trend-arcsine", measured and not the default: the default, also following an upward trend
 * when the spread about it shows no day effect, with the trend's t on the arcsine scale
 * (docs/statistics.md, "Past the grid").
 */
export type SuiteForm = "clustered" | "no-trend" | "design-effect" | "exact" | "upward-trend-arcsine";

export function clusteredSuiteTest(
  strata: readonly ClusteredSuiteInput[],
  icc: number,
  form: SuiteForm = "clustered",
): ClusteredSuiteResult {
  for (const s of strata) {
    const trials = s.extraTrials ?? 0;
    const passed = s.extraPassed ?? 0;
    if (!(Number.isInteger(trials) && Number.isInteger(passed) && passed >= 0 && passed <= trials)) {
      throw new RangeError(
        `suite test: extra trials need integers 0 <= passed <= trials, got ${passed}/${trials}`,
      );
    }
  }
  const first = firstStageSuiteTest(strata, icc, form);
  const second = extrasStage(first, strata, icc);
  if (!second) return first.result;
  const z1 = normalQuantile(clampProbability(first.result.pValue));
  const z = combineStages(z1, second.z2, second.correlation, EXTRAS_STAGE_WEIGHT);
  return {
    ...first.result,
    pValue: normalCdf(z),
    extrasStage: { ...second, firstStageP: first.result.pValue },
  };
}

/** The first stage's result, and what the second stage shares with it (computed once, here). */
interface FirstStage {
  result: ClusteredSuiteResult;
  /** The CMH score's null variance (the exact test's). */
  scoreVariance: number;
  /** The ICC's design effect on the head's first trials. */
  designEffect: number;
  /** The base levels' trend, when the drift branch decided. */
  trend: Trend | null;
  /** The scenarios every base run measured. */
  shared: readonly ClusteredSuiteInput[];
}

function firstStageSuiteTest(
  strata: readonly ClusteredSuiteInput[],
  icc: number,
  form: SuiteForm,
): FirstStage {
  const exact = cmhExactOneSided(strata);
  const headTrials = lowerMedian(strata.filter((s) => s.headTrials > 0).map((s) => s.headTrials));
  const designEffect = 1 + Math.max(0, headTrials - 1) * icc;
  const shared = strata.filter(
    (s) => s.headTrials > 0 && s.baseRuns.length > 0 && s.baseRuns.every((r) => r.trials > 0),
  );
  let trend: Trend | null = null;
  const result = (
    pValue: number,
    method: SuiteMethod,
    extra: Partial<ClusteredSuiteResult> = {},
  ): FirstStage => ({
    result: {
      pValue,
      method,
      runs: 0,
      levels: [],
      trend: null,
      dispersion: null,
      informativeStrata: exact.informativeStrata,
      observedMinusExpected: exact.observedMinusExpected,
      extrasStage: null,
      ...extra,
    },
    scoreVariance: exact.variance,
    designEffect,
    trend: method === "trend" ? trend : null,
    shared,
  });
  if (form === "exact") return result(exact.pValue, "exact");
  const deflated =
    designEffect > 1 && exact.informativeStrata > 0
      ? normalCdf(normalQuantile(clampProbability(exact.pValue)) / Math.sqrt(designEffect))
      : exact.pValue;
  const baseMethod: SuiteMethod = designEffect > 1 ? "design-effect" : "exact";

  const k = shared[0]?.baseRuns.length ?? 0;
  if (k < MIN_RUNS_FOR_VARIATION || shared.some((s) => s.baseRuns.length !== k)) {
    if (form === "design-effect") return result(deflated, baseMethod);
    return result(withPriorRunEffect(strata, exact, designEffect), "prior");
  }
  if (form === "design-effect") return result(deflated, baseMethod);
  const runs = shared.map((s) => s.baseRuns);
  const levels = suiteLevels(runs);
  const headLevel = shared.reduce((sum, s) => sum + s.headPassed / s.headTrials, 0) / shared.length;
  const dispersion = estimateSuiteDispersion(runs);
  const context = { runs: k, levels, dispersion };

  // The residual spread of K levels can come out at (or, in floating point, near) zero when the runs
  // happen to agree, e.g. every run 14/15: a trend "known exactly" would fail any head a pass below it
  // (p = 1e-30). No run's level is known better than its binomial sampling, so that is the floor.
  const samplingVariance = runLevelSamplingVariance(shared, icc);
  trend = k >= 4 ? fitTrend(levels, samplingVariance, shared, icc, LEVEL_SCALE) : null;
  const upward = form === "upward-trend-arcsine";
  if (
    (form === "clustered" || upward) &&
    trend &&
    trend.standardError > 0 &&
    followsTrend(trend, samplingVariance, k, upward)
  ) {
    // The measured variant takes the t-test on the arcsine scale, where the levels' skew near the
    // ceiling is smaller (docs/statistics.md, "Past the grid"); its second stage stays on the level scale.
    const scale = upward ? ARCSINE_SCALE : LEVEL_SCALE;
    const fitted = upward ? fitTrend(levels, samplingVariance, shared, icc, ARCSINE_SCALE) : trend;
    const next = k - (k - 1) / 2; // the head's position relative to the runs' mean position
    const predicted = fitted.mean + fitted.slope * next;
    const t = (scale.transform(headLevel) - predicted) / Math.sqrt(trendPredictionVariance(fitted, k));
    return result(studentTCdf(t, k - 2), "trend", { ...context, trend: trend.slope });
  }
  const context2 = { ...context, trend: trend?.slope ?? null };
  if (dispersion !== null && dispersion > designEffect * chiSquareUpperRatio(k - 1, DISPERSION_PRETEST)) {
    const mean = levels.reduce((s, v) => s + v, 0) / k;
    const variance = levels.reduce((s, v) => s + (v - mean) ** 2, 0) / (k - 1);
    const t = (headLevel - mean) / Math.sqrt(variance * (1 + 1 / k));
    return result(studentTCdf(t, k - 1), "runs", context2);
  }
  if (k < MIN_RUNS_FOR_DAY_EFFECT) {
    return result(withPriorRunEffect(strata, exact, designEffect), "prior", context2);
  }
  return result(deflated, baseMethod, context2);
}

/**
 * Below three base runs nothing shows the day effect, so the design's largest one is assumed: every
 * scenario of a run shifted together by a normal effect of PRIOR_RUN_EFFECT_SD on the logit scale.
 * By the delta method it adds (Σ_s n_s p_s(1 − p_s))² σ² (1 + 1/K) to the variance of the head's
 * observed minus expected passes (the head's day, and the mean of the K base days it is compared
 * with); the exact CMH z is scaled down accordingly, on top of the ICC's design effect.
 */
function withPriorRunEffect(
  strata: readonly ClusteredSuiteInput[],
  exact: { pValue: number; variance: number; informativeStrata: number },
  designEffect: number,
): number {
  if (exact.informativeStrata === 0 || exact.variance <= 0) return exact.pValue;
  const runs = Math.max(1, ...strata.map((s) => s.baseRuns.filter((r) => r.trials > 0).length));
  let slope = 0;
  for (const s of strata) {
    const trials = s.baseTrials + s.headTrials;
    if (s.baseTrials === 0 || s.headTrials === 0) continue;
    const rate = (s.basePassed + s.headPassed) / trials;
    slope += s.headTrials * rate * (1 - rate);
  }
  const sampling = exact.variance * designEffect;
  const dayEffect = slope * slope * PRIOR_RUN_EFFECT_SD ** 2 * (1 + 1 / runs);
  const z =
    normalQuantile(clampProbability(exact.pValue)) * Math.sqrt(exact.variance / (sampling + dayEffect));
  return normalCdf(z);
}

interface Trend {
  mean: number;
  slope: number;
  standardError: number;
  /** The base runs' residual variance about the line (at least one run's sampling variance). */
  residualVariance: number;
  /** The same before the floor: the spread the runs show about the line. */
  spread: number;
  sxx: number;
  /**
   * The head run's own variance of its level, at the rates the trend predicts for it: the residual
   * variance scaled by how much more (or less) a run varies there than the base runs did on average.
   */
  headVariance: number;
  /** Of headVariance, the day effect's part (the rest is the head's binomial sampling). */
  headDayVariance: number;
  /** Of residualVariance, the day effect's part (over the base runs, on average). */
  baseDayVariance: number;
}

/**
 * Least squares of the levels on their run index 0..K−1, the residual variance taken at least
 * `varianceFloor` (one run's sampling variance of its level).
 *
 * A run's level does not vary as much at every pass rate: its binomial sampling goes as p(1 − p), and
 * a day effect on the logit scale moves it by about τ·p(1 − p), so its variance goes as (p(1 − p))².
 * Along a downward trend from near the ceiling the head, extrapolated past the newest run, is where the
 * runs vary most, and the residual variance (their average) understated its own: under a day effect of
 * sd 0.3 with a drift of −3 points every 8 runs at 0.9 the trend branch failed 3.7% of unchanged PRs
 * at its 2.5% (docs/statistics.md, "The trend's variance at the head"). So the day effect's variance τ²
 * is estimated from the residual spread beyond sampling (method of moments over the runs' fitted rates),
 * and the head's variance is the residual variance times the ratio of the two components at the
 * head's predicted rates to their mean over the base runs (1 on a flat base).
 */
function fitTrend(
  levels: readonly number[],
  varianceFloor: number,
  shared: readonly ClusteredSuiteInput[],
  icc: number,
  scale: LevelScale,
): Trend {
  const k = levels.length;
  const center = (k - 1) / 2;
  const line = leastSquares(levels);
  const { mean, slope, spread, sxx } =
    scale === LEVEL_SCALE ? line : leastSquares(levels.map(scale.transform));
  // A variance on the level scale, at level L, is g'(L)² times it on the transformed one (delta method).
  const squaredDerivative = (level: number) => scale.derivative(level) ** 2;
  const residualVariance = Math.max(varianceFloor * squaredDerivative(line.mean), spread);
  // Each run's sampling variance (g) and day-effect factor (h) at the rates the trend fits for it,
  // moved along the level-scale line, and taken to the test's scale at the level the line fits there.
  const at = (position: number) => {
    const shift = line.slope * (position - center);
    const factors = levelVarianceFactors(shared, icc, shift);
    const derivative = squaredDerivative(line.mean + shift);
    return { sampling: factors.sampling * derivative, day: factors.day * derivative };
  };
  const runs = levels.map((_, r) => at(r));
  const meanSampling = runs.reduce((s, f) => s + f.sampling, 0) / k;
  const meanDay = runs.reduce((s, f) => s + f.day, 0) / k;
  const tau2 = meanDay > 0 ? Math.max(0, (residualVariance - meanSampling) / meanDay) : 0;
  const head = at(k);
  const baseVariance = meanSampling + tau2 * meanDay;
  const ratio = baseVariance > 0 ? residualVariance / baseVariance : 1;
  return {
    mean,
    slope,
    standardError: Math.sqrt(residualVariance / sxx),
    residualVariance,
    spread,
    sxx,
    headVariance: baseVariance > 0 ? ratio * (head.sampling + tau2 * head.day) : residualVariance,
    headDayVariance: ratio * tau2 * head.day,
    baseDayVariance: ratio * tau2 * meanDay,
  };
}

/** Least squares of values on their run index 0..K−1: the mean, the slope, the residual variance (K − 2 df). */
function leastSquares(values: readonly number[]): {
  mean: number;
  slope: number;
  spread: number;
  sxx: number;
} {
  const k = values.length;
  const center = (k - 1) / 2;
  const mean = values.reduce((s, v) => s + v, 0) / k;
  const sxx = values.reduce((s, _, r) => s + (r - center) ** 2, 0);
  const slope = values.reduce((s, v, r) => s + (r - center) * (v - mean), 0) / sxx;
  const spread =
    values.reduce((s, v, r) => s + (v - mean - slope * (r - center)) ** 2, 0) / Math.max(1, k - 2);
  return { mean, slope, spread, sxx };
}

/** The scale a trend is fitted on: a transform of the level and its derivative. */
interface LevelScale {
  transform: (level: number) => number;
  derivative: (level: number) => number;
}

const LEVEL_SCALE: LevelScale = { transform: (level) => level, derivative: () => 1 };

/**
 * arcsin √L, the variance-stabilising scale of a proportion (Bartlett 1936, Anscombe 1948): its derivative is
 * 1 / (2√(L(1 − L))), taken at L at least half a trial's step from 0 and 1 so that a level at the
 * ceiling keeps a finite variance.
 */
const ARCSINE_SCALE: LevelScale = {
  transform: (level) => Math.asin(Math.sqrt(clamp01(level))),
  derivative: (level) => {
    const p = Math.min(1 - ARCSINE_EDGE, Math.max(ARCSINE_EDGE, level));
    return 1 / (2 * Math.sqrt(p * (1 - p)));
  },
};
const ARCSINE_EDGE = 1e-3;

/**
 * Whether the suite test follows the base runs' trend to the head's run. Downward: on any negative
 * slope (the drift pretest at 0.5). Upward, in the measured variant only (`upward`): when the residual
 * spread about the line is within what sampling gives (below the 90% point of χ²_{K−2}/(K − 2) times
 * one run's sampling variance), so no day effect shows. On an improving base branch the runs' mean lags
 * the branch as it is now and a broad drop hides behind it; but on a flat base a chance upward slope is
 * followed too, and unchanged PRs fail more (docs/statistics.md, "Past the grid": not the default).
 */
function followsTrend(trend: Trend, samplingVariance: number, k: number, upward: boolean): boolean {
  if (trend.slope / trend.standardError < -normalQuantile(1 - TREND_PRETEST)) return true;
  return (
    upward &&
    trend.slope > 0 &&
    trend.spread <= samplingVariance * chiSquareUpperRatio(k - 2, UPWARD_TREND_SPREAD_PRETEST)
  );
}

/** The variance of the head's level about the trend's prediction for it: its own, and the line's error. */
function trendPredictionVariance(trend: Trend, k: number): number {
  const next = k - (k - 1) / 2; // the head's position relative to the runs' mean position
  return trend.headVariance + trend.residualVariance * (1 / k + (next * next) / trend.sxx);
}

/**
 * A run's level variance at each scenario's pooled base rate moved by `shift`: its binomial sampling
 * (trials binomial within the run's ICC) and the factor a logit-scale day effect's variance takes,
 * (mean p(1 − p))² (delta method).
 */
function levelVarianceFactors(
  shared: readonly ClusteredSuiteInput[],
  icc: number,
  shift: number,
): { sampling: number; day: number } {
  let sampling = 0;
  let slope = 0;
  for (const s of shared) {
    const rate = clamp01(s.basePassed / s.baseTrials + shift);
    const perRun = s.baseTrials / s.baseRuns.length;
    sampling += (rate * (1 - rate) * (1 + (perRun - 1) * icc)) / perRun;
    slope += rate * (1 - rate);
  }
  const n = Math.max(1, shared.length);
  return { sampling: sampling / n ** 2, day: (slope / n) ** 2 };
}

/** The upper-γ quantile of χ²_ν / ν (Wilson–Hilferty 1931; within 1% at ν ≥ 2 for these γ). */
function chiSquareUpperRatio(df: number, gamma: number): number {
  const z = normalQuantile(1 - gamma);
  return (1 - 2 / (9 * df) + z * Math.sqrt(2 / (9 * df))) ** 3;
}

function clampProbability(p: number): number {
  return Math.min(1 - 1e-15, Math.max(1e-300, p));
}

/** The lower median of whole counts (a trial count that occurs), 0 for none. */
export function lowerMedian(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
}

// ---------------------------------------------------------------------------------------------
// The head's extra trials as a second stage
// ---------------------------------------------------------------------------------------------

/**
 * The second stage's share of the combined test's weight, w₂² (w₁² = 1 − w₂²). Fixed before any data,
 * as the inverse-normal combination requires to keep its level. Measured: 0.35 / 0.5 / 0.65 caught a
 * broad drop about equally often (docs/statistics.md, "The frontier"), so half to each stage.
 */
export const EXTRAS_STAGE_WEIGHT = 0.5;

/**
 * The first-stage branches the extras extend. Not the others: in the runs branch the head's day
 * variance, known to K − 1 degrees of freedom, taken as known failed unchanged PRs (5.5% under a day
 * effect of sd 0.5) and its upper bound bought nothing; in the prior branch the day effect is assumed,
 * not shown by the runs, and no stage 2 was measured there.
 */
const EXTRAS_STAGE_METHODS: ReadonlySet<SuiteMethod> = new Set(["exact", "design-effect", "trend"]);

/**
 * The trend branch takes the extras only with this many base runs: there the head's own day variance
 * comes from the levels' residual spread (K − 2 degrees of freedom), and below 8 runs the first stage
 * itself does not trust a spread that looks small.
 */
const EXTRAS_TREND_MIN_RUNS = MIN_RUNS_FOR_DAY_EFFECT;

/**
 * Inverse-normal combination of two stages' z (negative: head worse) with pre-set weights
 * w₁ = √(1 − share), w₂ = √share (Bauer & Köhne 1994; Lehmacher & Wassmer 1999), for stages that are
 * correlated r through a shared part (here the base arm): z = (w₁z₁ + w₂z₂) / √(w₁² + w₂² + 2w₁w₂r),
 * standard normal under the null when each stage's z is.
 */
export function combineStages(z1: number, z2: number, correlation: number, share: number): number {
  const w1 = Math.sqrt(1 - share);
  const w2 = Math.sqrt(share);
  return (w1 * z1 + w2 * z2) / Math.sqrt(w1 * w1 + w2 * w2 + 2 * w1 * w2 * correlation);
}

export interface ExtrasPrediction {
  /** Expected extra passes given the first trials: m(cμ + x)/(c + n), c = (1 − ρ)/ρ; m μ at ρ = 0. */
  mean: number;
  /** d mean / d μ per extra trial, c/(c + n): how much of the base rate's error the prediction carries. */
  gain: number;
  /** The beta-binomial variance's factor over the binomial's, (c + n + m)/(c + n + 1); 1 at ρ = 0. */
  inflation: number;
}

/**
 * What the null predicts for a scenario's extra passes given its first trials: its head run's rate is
 * one draw from the beta law of mean μ and ICC ρ that every run draws from, so given x passes in n
 * first trials it is Beta(cμ + x, c(1 − μ) + n − x) and the m extra passes are beta-binomial under it
 * (Skellam 1948). The extras of a scenario that did badly are expected to do badly too: that is what
 * makes them a valid stage after a screen that picked them for doing badly.
 */
export function predictExtraPasses(
  counts: { firstPassed: number; firstTrials: number; extraTrials: number },
  mean: number,
  icc: number,
): ExtrasPrediction {
  const m = counts.extraTrials;
  if (icc <= 0) return { mean: m * mean, gain: 1, inflation: 1 };
  const c = (1 - icc) / icc;
  const n = counts.firstTrials;
  return {
    mean: (m * (c * mean + counts.firstPassed)) / (c + n),
    gain: c / (c + n),
    inflation: (c + n + m) / (c + n + 1),
  };
}

/**
 * The second stage: over the extended scenarios, the extra passes minus their null prediction given
 * the first trials (predictExtraPasses at the base's pooled rate, in the trend branch shifted to the
 * trend's prediction for the head), over its standard deviation — the predictive variance, the base
 * estimate's variance it carries, and in the trend branch the slope's error and the head's own day
 * variance (the levels' residual spread beyond one run's sampling variance), which the extras share
 * with the first trials. Its correlation with the first stage is through what both share. Null when the
 * first stage's branch is not one it extends or no scenario has extras.
 */
function extrasStage(
  first: FirstStage,
  strata: readonly ClusteredSuiteInput[],
  icc: number,
): Omit<ExtrasStageResult, "firstStageP"> | null {
  const { method, levels } = first.result;
  if (!EXTRAS_STAGE_METHODS.has(method)) return null;
  const k = levels.length;
  const { trend, shared } = first;
  if (trend && k < EXTRAS_TREND_MIN_RUNS) return null;
  const extended = strata.filter((s) => (s.extraTrials ?? 0) > 0 && s.baseTrials > 0 && s.headTrials > 0);
  if (extended.length === 0) return null;

  const next = k - (k - 1) / 2; // the head's position relative to the runs' mean position
  const slopeVariance = trend ? trend.residualVariance / trend.sxx : 0;
  let deviation = 0;
  let variance = 0;
  let covariance = 0;
  let totalGain = 0;
  for (const s of extended) {
    const m = s.extraTrials!;
    const baseRate = s.basePassed / s.baseTrials;
    const prediction = predictExtraPasses(
      { firstPassed: s.headPassed, firstTrials: s.headTrials, extraTrials: m },
      clamp01(baseRate + (trend ? trend.slope * next : 0)),
      icc,
    );
    // The null's rate estimated from everything this scenario ran, as a score test does; in the trend
    // branch moved to the head's run, whose trials vary as its own rate does.
    const pooled = (s.basePassed + s.headPassed + s.extraPassed!) / (s.baseTrials + s.headTrials + m);
    const headRate = trend ? clamp01(pooled + trend.slope * next) : pooled;
    const rateVariance = headRate * (1 - headRate);
    // The base's pooled rate: each run beta-binomial at the ICC.
    const baseVariance =
      (rateVariance * s.baseRuns.reduce((sum, r) => sum + r.trials * (1 + (r.trials - 1) * icc), 0)) /
      s.baseTrials ** 2;
    const carried = m * prediction.gain;
    deviation += s.extraPassed! - prediction.mean;
    variance += m * rateVariance * prediction.inflation + carried ** 2 * baseVariance;
    // Stage 1 moves with the base rate by −n N/(n + N) (the CMH score), or by −1/S through the mean
    // level (the trend branch's t, over S shared scenarios).
    covariance += trend
      ? (carried * baseVariance) / Math.max(1, shared.length)
      : ((s.baseTrials * s.headTrials) / (s.baseTrials + s.headTrials)) * carried * baseVariance;
    totalGain += carried;
  }

  let firstStageSd: number;
  if (trend) {
    variance += totalGain ** 2 * next ** 2 * slopeVariance;
    covariance += totalGain * next ** 2 * slopeVariance;
    // The head's day and the base mean's share of the K base days, in both stages.
    const day = trend.headDayVariance + trend.baseDayVariance / k;
    variance += totalGain ** 2 * day;
    covariance += totalGain * day;
    firstStageSd = Math.sqrt(trendPredictionVariance(trend, k));
  } else {
    firstStageSd = Math.sqrt(first.scoreVariance * (method === "design-effect" ? first.designEffect : 1));
  }
  if (!(variance > 0 && firstStageSd > 0)) return null;
  const sd = Math.sqrt(variance);
  return {
    scenarios: extended.length,
    z2: deviation / sd,
    correlation: covariance / (firstStageSd * sd),
  };
}

/** One base run's sampling variance of its suite level (trials binomial within the run's ICC). */
function runLevelSamplingVariance(shared: readonly ClusteredSuiteInput[], icc: number): number {
  let variance = 0;
  for (const s of shared) {
    const rate = s.basePassed / s.baseTrials;
    const perRun = s.baseTrials / s.baseRuns.length;
    variance += (rate * (1 - rate) * (1 + (perRun - 1) * icc)) / perRun;
  }
  return variance / shared.length ** 2;
}

function clamp01(x: number): number {
  return Math.min(1, Math.max(0, x));
}
