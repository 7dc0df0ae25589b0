/**
 * The statistical core of the regression decision: given each scenario's pass counts on the pooled
 * baseline and on the head, did the head regress? Pure; docs/statistics.md is the contract.
 *
 * - Primary family: per scenario, a one-sided exact test of "the head passes less often" (Boschloo by
 *   default), Holm over the scenarios, at alpha − suiteAlpha.
 * - Co-primary suite test: one-sided exact Cochran–Mantel–Haenszel over scenarios, at suiteAlpha, on
 *   the head's first trials, with the extended scenarios' extra trials as a second stage (see below).
 * - failed = some scenario regressed, or the suite test rejected. Bonferroni across the two parts
 *   keeps the chance of failing an unchanged PR at most alpha.
 * - Runs are clusters (src/stats/run-clusters.ts): given the base runs' own counts and the intra-run
 *   correlation they show, each scenario's test takes every run (the head included) as a beta-binomial
 *   draw — over the newest SCENARIO_TEST_RUNS base runs only, as it does not model drift — and the
 *   suite test accounts for day-to-day variation and drift over all of them; with ICC 0 and no spread
 *   between runs both are the exact tests above.
 * - Adaptive extra trials: scenarios that were not given extra trials enter the family with p = 1.
 *   Every rejection is then also a rejection of the fixed design that ran the extra trials on every
 *   scenario (Holm can only reject more when other p-values are smaller), whose error rate is at most
 *   its level. The suite test's first stage sees only first trials, a fixed design; the extended
 *   scenarios' extra trials are a second stage, tested given the first trials and combined with pre-set
 *   weights (run-clusters.ts, extrasStage): its level does not depend on what the screen picked (stage 2
 *   is a normal approximation given the first trials; the simulation measures its level).
 */
import { boschlooOneSidedP, type PassCounts } from "./exact-2x2.js";
import {
  clusteredSuiteTest,
  clusteredUnconditionalP,
  type ExtrasStageResult,
  type RunCount,
  type SuiteForm,
  type SuiteMethod,
  scenarioTestRuns,
} from "./run-clusters.js";
import { adjustPValues } from "./stats.js";

export const DEFAULT_ALPHA = 0.05;
/**
 * The suite test's share of alpha; the per-scenario family gets the rest (0.025). Chosen by simulation
 * (docs/statistics.md): with a pooled baseline of 24 trials per scenario both power targets
 * hold at this split; 0.04/0.01 favours single collapses at the cost of broad drops.
 */
export const DEFAULT_SUITE_ALPHA = 0.025;

export interface ScenarioCounts extends PassCounts {
  /**
   * Adaptive designs only: whether the screen gave this scenario extra trials. A scenario that was
   * screened out is not tested (p = 1 in the family) whatever its counts say.
   */
  extended?: boolean;
  /** The head's passes among its first trials (before any extra ones); default headPassed. */
  initialHeadPassed?: number;
  /** The head's first trials; default headTrials. */
  initialHeadTrials?: number;
  /**
   * The base runs' own counts for this scenario, oldest first (index r = run r, the same in every
   * scenario; 0 trials where a run did not measure it). Without them the baseline is taken as one run.
   * The scenario's own test pools the newest SCENARIO_TEST_RUNS of them; the suite test takes all.
   */
  baseRuns?: readonly RunCount[];
}

export interface RegressionDecisionOptions {
  /** Overall level: the chance of failing when nothing changed is at most this. Default 0.05. */
  alpha?: number;
  /** The suite test's share of alpha. Default 0.025; 0 turns the suite test off. */
  suiteAlpha?: number;
  /**
   * Only the suite test decides, at the full alpha. Default: when no scenario's head ran more than
   * one first trial, where a single trial per scenario cannot carry a per-scenario verdict.
   */
  suiteOnly?: boolean;
  /** The intra-run correlation the tests assume (estimated from the base runs by the caller). Default 0. */
  icc?: number;
  /** The suite test's corrections (run-clusters.ts); only the simulation asks for fewer. Default all. */
  suiteForm?: SuiteForm;
  /** The extended scenarios' extra trials as the suite test's second stage; only the simulation turns it off. Default on. */
  extrasStage?: boolean;
}

interface ScenarioDecision {
  /** The one-sided p-value of the scenario's own data; null when a side has no trials. */
  pValue: number | null;
  /**
   * Comparable with the overall alpha: the family-adjusted p-value scaled by alpha / primary alpha,
   * so that `regressed` is exactly `adjustedP <= alpha`. null when not tested.
   */
  adjustedP: number | null;
  /** In the family: both sides ran, the primary family is on, and (adaptive) the scenario was extended. */
  tested: boolean;
  regressed: boolean;
  /**
   * The base counts the scenario's own test compared with, when they are not the pooled ones given:
   * the newest SCENARIO_TEST_RUNS runs', moved along the suite's drift when it found one. Absent otherwise.
   */
  testedBase?: { passed: number; trials: number };
}

interface SuiteDecision {
  /** One-sided p-value for "the head passes less often"; 1 when no scenario is informative. */
  pValue: number;
  /** Observed minus expected head passes over informative scenarios (negative: head worse). */
  observedMinusExpected: number;
  informativeStrata: number;
  /** Which form of the suite test decided (run-clusters.ts, clusteredSuiteTest). */
  method: SuiteMethod;
  /**
   * Set when the extended scenarios' extra trials entered as a second stage: pValue is then the two
   * stages combined, and this holds the first stage's p and the second's z. null: first trials only.
   */
  extrasStage: ExtrasStageResult | null;
  /** The base runs' suite-level rates (oldest first) and their trend per run, when three runs or more. */
  levels: number[];
  trend: number | null;
  dispersion: number | null;
  /** The level the suite test was run at (0 when it is off). */
  alpha: number;
  /** pValue scaled by alpha / suite alpha, comparable with the overall alpha; null when off. */
  adjustedP: number | null;
  rejected: boolean;
}

export interface RegressionDecisionResult {
  alpha: number;
  /** The primary family's level (0 when only the suite test decides). */
  primaryAlpha: number;
  suiteOnly: boolean;
  /** One entry per input scenario, in order. */
  scenarios: ScenarioDecision[];
  suite: SuiteDecision;
  failed: boolean;
}

export function decideRegression(
  counts: readonly ScenarioCounts[],
  options: RegressionDecisionOptions = {},
): RegressionDecisionResult {
  const alpha = options.alpha ?? DEFAULT_ALPHA;
  if (!(alpha > 0 && alpha < 1)) throw new RangeError(`alpha must be in (0, 1), got ${alpha}`);
  const suiteOnly = options.suiteOnly ?? counts.every((c) => initialTrials(c) <= 1);
  const suiteAlpha = suiteOnly ? alpha : (options.suiteAlpha ?? DEFAULT_SUITE_ALPHA);
  if (!(suiteAlpha >= 0 && suiteAlpha <= alpha)) {
    throw new RangeError(`suiteAlpha must be in [0, alpha], got ${suiteAlpha}`);
  }
  const primaryAlpha = alpha - suiteAlpha;
  const adaptive = counts.some((c) => c.extended !== undefined);
  const icc = options.icc ?? 0;
  if (!(icc >= 0 && icc < 1)) throw new RangeError(`icc must be in [0, 1), got ${icc}`);

  const strata = counts.map((c) => ({
    basePassed: c.basePassed,
    baseTrials: c.baseTrials,
    headPassed: c.initialHeadPassed ?? c.headPassed,
    headTrials: initialTrials(c),
    baseRuns: c.baseRuns ?? [{ passed: c.basePassed, trials: c.baseTrials }],
    ...(options.extrasStage === false ? {} : extraTrialsOf(c)),
  }));
  // Independent trials against one base run: the exact test, with nothing to correct for.
  const clustered = icc > 0 || counts.some((c) => (c.baseRuns?.length ?? 0) > 1);
  const { runs: _runs, ...suiteResult } = clusteredSuiteTest(
    strata,
    icc,
    clustered ? options.suiteForm : "exact",
  );
  // Under a drift the suite test fitted, each scenario is compared with its base rate moved along it.
  const drift = suiteResult.method === "trend" && suiteResult.trend !== null ? suiteResult.trend : 0;
  const tested = counts.map((c) => alongTheTrend(withScenarioTestRuns(c), drift));
  const scenarios = decidePrimary(tested, {
    alpha,
    primaryAlpha: suiteOnly ? 0 : primaryAlpha,
    adaptive,
    icc,
  });
  tested.forEach((t, i) => {
    const given = counts[i]!;
    if (t.basePassed !== given.basePassed || t.baseTrials !== given.baseTrials)
      scenarios[i]!.testedBase = { passed: t.basePassed, trials: t.baseTrials };
  });
  const suite: SuiteDecision = {
    ...suiteResult,
    ...(suiteAlpha > 0
      ? {
          alpha: suiteAlpha,
          adjustedP: Math.min(1, (suiteResult.pValue * alpha) / suiteAlpha),
          rejected: suiteResult.pValue <= suiteAlpha,
        }
      : { alpha: 0, adjustedP: null, rejected: false }),
  };

  return {
    alpha,
    primaryAlpha: suiteOnly ? 0 : primaryAlpha,
    suiteOnly,
    scenarios,
    suite,
    failed: suite.rejected || scenarios.some((s) => s.regressed),
  };
}

/** A scenario's counts as its own test sees them: the base side pools only the newest runs. */
function withScenarioTestRuns(c: ScenarioCounts): ScenarioCounts {
  if (!c.baseRuns) return c;
  const newest = scenarioTestRuns(c.baseRuns);
  if (newest.length === c.baseRuns.length) return c;
  return {
    ...c,
    baseRuns: newest,
    basePassed: newest.reduce((sum, r) => sum + r.passed, 0),
    baseTrials: newest.reduce((sum, r) => sum + r.trials, 0),
  };
}

/**
 * A scenario's base passes moved along the suite's drift (a negative slope per run) to the head's run,
 * the next after the newest: by the slope times the distance from the runs' trial-weighted mean position,
 * in whole passes (the exact tests take counts). The per-scenario tests model no drift of their own; when
 * the suite test finds the base branch getting worse run after run, comparing with the runs' plain rate
 * would call the drift this PR's regression.
 */
function alongTheTrend(c: ScenarioCounts, slope: number): ScenarioCounts {
  if (!(slope < 0) || !c.baseRuns || c.baseTrials === 0) return c;
  const runs = c.baseRuns;
  const meanPosition = runs.reduce((sum, r, i) => sum + i * r.trials, 0) / c.baseTrials;
  const shift = slope * (runs.length - meanPosition) * c.baseTrials;
  return { ...c, basePassed: Math.max(0, Math.round(c.basePassed + shift)) };
}

function initialTrials(c: ScenarioCounts): number {
  return c.initialHeadTrials ?? c.headTrials;
}

/**
 * The head's extra trials, for the suite test's second stage: only of a scenario the screen extended
 * (`extended === true`), so a design without the screen keeps its first-trials suite test exactly.
 * Counts that cannot be extras of these first trials are refused by the suite test (RangeError).
 */
function extraTrialsOf(c: ScenarioCounts): { extraTrials?: number; extraPassed?: number } {
  const extraTrials = c.headTrials - initialTrials(c);
  if (c.extended !== true || extraTrials === 0) return {};
  return { extraTrials, extraPassed: c.headPassed - (c.initialHeadPassed ?? c.headPassed) };
}

interface PrimarySettings {
  alpha: number;
  primaryAlpha: number;
  adaptive: boolean;
  icc: number;
}

/** One scenario's p: Boschloo's test where trials are independent, its clustered form otherwise. */
export function scenarioPValue(c: ScenarioCounts, icc: number): number {
  if (icc <= 0) return boschlooOneSidedP(c);
  return clusteredUnconditionalP({
    baseRunTrials: (c.baseRuns ?? [{ passed: c.basePassed, trials: c.baseTrials }])
      .map((r) => r.trials)
      .filter((n) => n > 0),
    basePassed: c.basePassed,
    headTrials: c.headTrials,
    headPassed: c.headPassed,
    icc,
  });
}

function decidePrimary(counts: readonly ScenarioCounts[], settings: PrimarySettings): ScenarioDecision[] {
  const { alpha, primaryAlpha, adaptive, icc } = settings;
  const decisions: ScenarioDecision[] = counts.map((c) => ({
    pValue: c.baseTrials > 0 && c.headTrials > 0 ? scenarioPValue(c, icc) : null,
    adjustedP: null,
    tested: false,
    regressed: false,
  }));
  if (primaryAlpha <= 0) return decisions;
  // The family: every scenario both sides ran. Screened-out scenarios stay in it with p = 1 (and, for
  // Tarone, as reachable), so the family is the one of the fixed design that extended everything.
  const family = decisions.flatMap((d, i) => (d.pValue === null ? [] : [i]));
  const screenedOut = (i: number) => adaptive && counts[i]!.extended !== true;
  const familyP = family.map((i) => (screenedOut(i) ? 1 : decisions[i]!.pValue!));
  const adjusted = adjustPValues(familyP, "holm");
  family.forEach((i, j) => {
    decisions[i]!.tested = !screenedOut(i);
    decisions[i]!.adjustedP = Math.min(1, (adjusted[j]! * alpha) / primaryAlpha);
    decisions[i]!.regressed = adjusted[j]! <= primaryAlpha;
  });
  return decisions;
}

// ---------------------------------------------------------------------------------------------
// Adaptive screen
// ---------------------------------------------------------------------------------------------

export const DEFAULT_EXTRA_TRIALS = 8;

/**
 * Which scenarios get extra head trials after the first ones: those whose head passed a smaller share
 * of its first trials than the pooled baseline did. Chosen by simulation (docs/statistics.md):
 * it sends a collapsed scenario to extra trials almost always, and at a 0.9 pass rate about a quarter
 * of unchanged ones, which keeps 20 scenarios × 3 (+8) trials near 103 head trials per PR (109 with one collapsed). Scenarios
 * with no baseline or no first trials are never extended (they are not tested). With one first trial
 * per scenario only the suite test decides and nothing is extended: the extra trials serve the
 * per-scenario tests first, and the suite test's second stage was measured only beside them.
 */
export function screenForExtraTrials(counts: readonly PassCounts[]): boolean[] {
  if (counts.every((c) => c.headTrials <= 1)) return counts.map(() => false);
  return counts.map(
    (c) => c.baseTrials > 0 && c.headTrials > 0 && c.headPassed * c.baseTrials < c.basePassed * c.headTrials,
  );
}
