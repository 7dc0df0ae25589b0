/**
 * Planning help. The design plan: what the decision (compare/decision.ts) can detect at a given
 * number of scenarios, head trials, extra trials and pooled baseline runs, and what it costs per PR,
 * computed exactly. The effect plan: from the spread a report observed, how many trials per
 * scenario a comparison needs to detect a chosen change with the chosen power.
 */
import { ConfigError } from "../errors.js";
import { scenarioKey } from "../results/scenario-key.js";
import type { Report } from "../results/types.js";
import { detectionPower } from "../stats/detection-power.js";
import { DEFAULT_ALPHA, DEFAULT_SUITE_ALPHA, screenForExtraTrials } from "../stats/regression-decision.js";
import { iccForRuns, SCENARIO_TEST_RUNS } from "../stats/run-clusters.js";
import {
  binomialPmf,
  computeMean,
  computeMedian,
  computeVariance,
  trialsNeededForMean,
  trialsNeededForRate,
} from "../stats/stats.js";
import { findMetric, PASS_RATE, readMetricValues } from "./metrics.js";
import type { MetricKind } from "./types.js";

export interface PlanOptions {
  /** The change to detect: in rate units for rates (0.1 = 10 points), else in the metric's unit. */
  effect: number;
  /** Default pass_rate. */
  metric?: string;
  /** Default 0.05. */
  alpha?: number;
  /** Default 0.8. */
  power?: number;
  /** Tests the comparison will correct over; alpha is divided by it (Bonferroni, a safe bound for Holm). Default 1. */
  tests?: number;
}

interface ScenarioPlan {
  key: string;
  /** Values observed (evaluated trials with a value). */
  n: number;
  mean: number | null;
  sd: number | null;
  /** Trials per side (baseline and head each); null when the report cannot tell. */
  trials_needed: number | null;
  note: string | null;
}

export interface TrialPlan {
  metric: string;
  kind: MetricKind;
  effect: number;
  alpha: number;
  /** alpha / tests: the level each test is planned at. */
  alpha_per_test: number;
  power: number;
  tests: number;
  scenarios: ScenarioPlan[];
  suite: {
    /** Pooled within-scenario standard deviation. */
    pooled_sd: number | null;
    /** The typical need: pooled sd for continuous metrics, median over scenarios for pass_rate. */
    trials_per_scenario: number | null;
    max_trials: number | null;
    scenarios_planned: number;
  };
}

/**
 * Per scenario: pass_rate uses the two-proportion formula at the observed rate (which also works for
 * a rate of 0 or 1, where the observed spread is zero); other metrics the two-sample t formula with
 * the observed standard deviation, which needs at least 2 values and some spread.
 */
export function planTrialsNeeded(report: Report, options: PlanOptions): TrialPlan {
  const metric = options.metric ?? PASS_RATE;
  const definition = findMetric(metric, "metric");
  const alpha = options.alpha ?? 0.05;
  const power = options.power ?? 0.8;
  const tests = options.tests ?? 1;
  if (!Number.isInteger(tests) || tests < 1)
    throw new ConfigError(`tests must be an integer >= 1, got ${tests}`, "tests");
  if (!(alpha > 0 && alpha < 1))
    throw new ConfigError(`alpha must be between 0 and 1, got ${alpha}`, "alpha");
  if (definition.kind === "rate" && !(Math.abs(options.effect) > 0 && Math.abs(options.effect) < 1)) {
    throw new ConfigError(
      `${metric} is a rate: give the effect as a share between 0 and 1 (0.1 = 10 points), got ${options.effect}`,
      "effect",
    );
  }
  const alphaPerTest = alpha / tests;
  const plan = { alpha: alphaPerTest, power };

  const samples = report.scenarios.map((s) => ({
    key: scenarioKey(s),
    values: readMetricValues(s, definition),
  }));
  const scenarios: ScenarioPlan[] = samples.map(({ key, values }) => {
    const n = values.length;
    const mean = computeMean(values);
    if (metric === PASS_RATE) {
      if (n === 0) return { key, n, mean, sd: null, trials_needed: null, note: "no evaluated trials" };
      const sd = Math.sqrt(mean! * (1 - mean!));
      const needed = trialsNeededForRate({ baseline: mean!, effect: options.effect, ...plan });
      return { key, n, mean, sd, trials_needed: needed, note: null };
    }
    const variance = computeVariance(values);
    if (variance === null) {
      return {
        key,
        n,
        mean,
        sd: null,
        trials_needed: null,
        note: "needs at least 2 trials to measure the spread",
      };
    }
    const sd = Math.sqrt(variance);
    if (sd === 0) {
      return {
        key,
        n,
        mean,
        sd,
        trials_needed: null,
        note: `no spread in ${n} trials; run more to measure it`,
      };
    }
    return {
      key,
      n,
      mean,
      sd,
      trials_needed: trialsNeededForMean({ sd, effect: options.effect, ...plan }),
      note: null,
    };
  });

  let df = 0;
  let ss = 0;
  for (const { values } of samples) {
    const v = computeVariance(values);
    if (v === null) continue;
    df += values.length - 1;
    ss += v * (values.length - 1);
  }
  const pooledSd = df > 0 ? Math.sqrt(ss / df) : null;
  const needs = scenarios.map((s) => s.trials_needed).filter((n): n is number => n !== null);
  let typical: number | null;
  if (metric === PASS_RATE) {
    const median = computeMedian(needs);
    typical = median === null ? null : Math.ceil(median);
  } else {
    typical = pooledSd ? trialsNeededForMean({ sd: pooledSd, effect: options.effect, ...plan }) : null;
  }
  return {
    metric,
    kind: definition.kind,
    effect: options.effect,
    alpha,
    alpha_per_test: alphaPerTest,
    power,
    tests,
    scenarios,
    suite: {
      pooled_sd: pooledSd,
      trials_per_scenario: typical,
      max_trials: needs.length ? Math.max(...needs) : null,
      scenarios_planned: needs.length,
    },
  };
}

/** "To detect a 10-point change in first_try_success_rate with 80% power you need ≈ 23 trials per scenario (observed sd 0.24)." */
export function renderTrialPlan(plan: TrialPlan): string {
  const size = Math.abs(plan.effect);
  const change =
    plan.kind === "rate"
      ? `a ${trimNumber(size * 100)}-point change in ${plan.metric}`
      : `a change of ${trimNumber(size)} in ${plan.metric}`;
  const level = plan.tests > 1 ? `α = ${plan.alpha} over ${plan.tests} tests` : `α = ${plan.alpha}`;
  const head = `To detect ${change} with ${trimNumber(plan.power * 100)}% power (${level})`;
  const sd = plan.suite.pooled_sd === null ? "" : `observed sd ${trimNumber(plan.suite.pooled_sd, 2)}`;
  if (plan.suite.trials_per_scenario === null) {
    return `${head} the report has too little spread to plan from (${sd || "no scenario with 2 or more trials"}); run a few more trials first.`;
  }
  const worst =
    plan.suite.max_trials !== null && plan.suite.max_trials > plan.suite.trials_per_scenario
      ? `; the most demanding scenario needs ${plan.suite.max_trials}`
      : "";
  return `${head} you need ≈ ${plan.suite.trials_per_scenario} trials per scenario on each side (${sd || "no spread observed"}${worst}).`;
}

function trimNumber(n: number, digits = 1): string {
  return String(Number(n.toFixed(digits)));
}

// ---------------------------------------------------------------------------------------------
// The design plan
// ---------------------------------------------------------------------------------------------

export interface DesignPlanOptions {
  scenarios: number;
  /** First head trials per scenario (n); each baseline run is assumed to run as many. */
  trials: number;
  /** Extra trials a screened scenario gets (m); 0 turns adaptive trials off. */
  extraTrials: number;
  /** Base-branch runs pooled as the baseline (K). */
  baselineRuns: number;
  /** Default 0.05, split as decide() splits it. */
  alpha?: number;
  /** The suite test's part of alpha; default half of it, as decide() (0.025 of 0.05). */
  suiteAlpha?: number;
  /** The intra-run correlation to plan for (what the base runs show; `decide()` reports it). Default 0. */
  icc?: number;
}

/** The drops the comment's design line and the issue's targets speak of. */
const PLANNED_DROPS: ReadonlyArray<{ from: number; to: number }> = [
  { from: 0.9, to: 0.1 },
  { from: 0.9, to: 0.5 },
  { from: 1, to: 0.7 },
];

/** The power the baseline-runs search aims at, for the first drop (the collapse). */
const TARGET_POWER = 0.9;
/** The search for baseline runs stops here: the per-scenario tests pool no more (SCENARIO_TEST_RUNS). */
export const MAX_PLANNED_BASELINE_RUNS = SCENARIO_TEST_RUNS;
/** The pass rate at which the cost of the screen is estimated. */
const SCREEN_RATE = 0.9;

export interface DesignPlan {
  scenarios: number;
  trials: number;
  extra_trials: number;
  baseline_runs: number;
  /** Pooled baseline trials per scenario: runs × trials. */
  baseline_trials: number;
  /** The intra-run correlation planned for (0: independent trials). */
  icc: number;
  alpha: number;
  /** The per-scenario family's alpha; 0 when only the suite test decides. */
  primary_alpha: number;
  suite_alpha: number;
  /** Holm's first step: primary alpha / scenarios, what one collapsing scenario's p must reach. */
  level: number;
  /** One head trial per scenario: only the suite test decides, nothing is detected per scenario. */
  suite_only: boolean;
  /** Exact chance to flag one scenario that drops so (empty when suite only). */
  detection: Array<{ from: number; to: number; power: number }>;
  /** Share of unchanged scenarios at a 0.9 pass rate that the screen extends (exact). */
  extended_share: number;
  head_trials: { first: number; extra: number; total: number };
  /** Fewest baseline runs that reach TARGET_POWER on the collapse (with these trials); null beyond the search. */
  baseline_runs_needed: number | null;
}

function checkWhole(value: number, name: string, min: number): void {
  if (!Number.isInteger(value) || value < min) {
    throw new ConfigError(`must be a whole number >= ${min}, got ${value}`, name);
  }
}

/** P(the screen extends a scenario) when baseline and head both pass at `rate`: exact over both binomials. */
export function screenedShare(baseTrials: number, headTrials: number, rate: number): number {
  const base = binomialPmf(baseTrials, rate);
  const head = binomialPmf(headTrials, rate);
  let share = 0;
  base.forEach((pb, basePassed) => {
    head.forEach((ph, headPassed) => {
      const [extend] = screenForExtraTrials([{ basePassed, baseTrials, headPassed, headTrials }]);
      if (extend) share += pb * ph;
    });
  });
  return share;
}

/** What decide() could detect at this design and what it spends per PR (docs/statistics.md, "Planning"). */
export function planDesign(options: DesignPlanOptions): DesignPlan {
  const { scenarios, trials, extraTrials, baselineRuns } = options;
  checkWhole(scenarios, "scenarios", 1);
  checkWhole(trials, "trials", 1);
  checkWhole(extraTrials, "extra-trials", 0);
  checkWhole(baselineRuns, "baseline-runs", 1);
  const alpha = options.alpha ?? DEFAULT_ALPHA;
  // Split as decide() splits it: half to the suite test unless told.
  const suiteAlpha = options.suiteAlpha ?? alpha * (DEFAULT_SUITE_ALPHA / DEFAULT_ALPHA);
  if (!(alpha > 0 && alpha < 1)) throw new ConfigError(`must be between 0 and 1, got ${alpha}`, "alpha");
  if (!(suiteAlpha >= 0 && suiteAlpha < alpha)) {
    throw new ConfigError(`must be in [0, alpha), got ${suiteAlpha}`, "suite-alpha");
  }
  // As decide(): with one first trial per scenario only the suite test decides, at the full alpha,
  // and the screen extends nothing.
  const suiteOnly = trials <= 1;
  const primaryAlpha = suiteOnly ? 0 : alpha - suiteAlpha;
  const level = primaryAlpha / scenarios;
  const extra = suiteOnly ? 0 : extraTrials;
  const baselineTrials = baselineRuns * trials;
  // Planned as decide() tests: independent trials assumed at the design's ICC (0 unless told), with
  // fewer than three base runs at the prior the decision then assumes.
  const icc = options.icc ?? 0;
  const powerAt = (runs: number, from: number, to: number) =>
    detectionPower(
      {
        runTrials: Array.from({ length: runs }, () => trials),
        headTrials: trials,
        extraTrials: extra,
        icc: iccForRuns(runs, icc),
        level,
      },
      from,
      to,
    );
  const detection = suiteOnly
    ? []
    : PLANNED_DROPS.map(({ from, to }) => ({ from, to, power: powerAt(baselineRuns, from, to) }));
  const extendedShare = extra > 0 ? screenedShare(baselineTrials, trials, SCREEN_RATE) : 0;
  const first = scenarios * trials;
  const expectedExtra = scenarios * extendedShare * extra;
  return {
    scenarios,
    trials,
    extra_trials: extra,
    baseline_runs: baselineRuns,
    baseline_trials: baselineTrials,
    icc,
    alpha,
    primary_alpha: primaryAlpha,
    suite_alpha: suiteOnly ? alpha : suiteAlpha,
    level,
    suite_only: suiteOnly,
    detection,
    extended_share: extendedShare,
    head_trials: { first, extra: expectedExtra, total: first + expectedExtra },
    baseline_runs_needed: suiteOnly ? null : fewestBaselineRuns((runs) => powerAt(runs, 0.9, 0.1)),
  };
}

/**
 * The fewest runs reaching the target, by doubling then bisection: each exact power costs more with
 * every baseline trial, and power grows with the baseline (up to the exact tests' small steps).
 */
function fewestBaselineRuns(collapsePower: (runs: number) => number): number | null {
  let high = 1;
  while (collapsePower(high) < TARGET_POWER) {
    if (high === MAX_PLANNED_BASELINE_RUNS) return null;
    high = Math.min(high * 2, MAX_PLANNED_BASELINE_RUNS);
  }
  let low = Math.floor(high / 2); // below target (or 0)
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (collapsePower(middle) >= TARGET_POWER) high = middle;
    else low = middle;
  }
  return high;
}

function percent(share: number): string {
  if (share >= 0.995 && share < 1) return ">99%";
  if (share > 0 && share < 0.01) return "<1%";
  return `${trimNumber(share * 100, share >= 0.1 ? 0 : 1)}%`;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/**
 * The plan in words:
 *   20 scenarios × 3 (+6) trials against 8 baseline runs (24 trials a scenario); α = 0.05: …
 *   Chance to flag one scenario whose pass rate drops
 *     90% → 10%   96%
 *   …
 */
export function renderDesignPlan(plan: DesignPlan): string {
  const extra = plan.extra_trials > 0 ? ` (+${plan.extra_trials})` : "";
  const design =
    `${plural(plan.scenarios, "scenario")} × ${plan.trials}${extra} trial${plan.trials === 1 && !extra ? "" : "s"} ` +
    `against ${plural(plan.baseline_runs, "baseline run")} (${plural(plan.baseline_trials, "trial")} a scenario` +
    (plan.baseline_runs > SCENARIO_TEST_RUNS && !plan.suite_only
      ? `; its own test pools the newest ${SCENARIO_TEST_RUNS} runs, ${plural(SCENARIO_TEST_RUNS * plan.trials, "trial")})`
      : ")") +
    (plan.icc > 0 ? `, runs varying with ICC ${plan.icc}` : "");
  const lines = [`Design: ${design}.`];
  if (plan.suite_only) {
    lines.push(
      `α = ${plan.alpha}, all of it on the suite test: with one trial per scenario only the suite test can decide, and no scenario is flagged on its own.`,
    );
  } else {
    lines.push(
      `α = ${plan.alpha}: ${plan.suite_alpha} for the suite test, ${trimNumber(plan.primary_alpha, 4)} for the per-scenario family; ` +
        `one scenario is flagged at Holm's first step when its p ≤ ${trimNumber(plan.primary_alpha, 4)}/${plan.scenarios} = ${plan.level.toPrecision(3)}.`,
      "",
      "Chance to flag one scenario whose pass rate drops (exact):",
      ...plan.detection.map(
        (d) => `  ${`${percent(d.from)} → ${percent(d.to)}`.padEnd(12)} ${percent(d.power)}`,
      ),
    );
  }
  const h = plan.head_trials;
  const screen =
    plan.extra_trials > 0
      ? ` + ~${Math.round(h.extra)} extra (the screen extends ${percent(plan.extended_share)} of scenarios at a 90% pass rate; more when some fail)` +
        ` ≈ ${Math.round(h.total)}`
      : "";
  lines.push("", `Head trials per PR: ${h.first} first${screen}.`);
  if (!plan.suite_only) {
    const needed = plan.baseline_runs_needed;
    lines.push(
      needed === null
        ? `No number of baseline runs reaches ${percent(TARGET_POWER)} power on the 90% → 10% collapse at ${plural(plan.trials, "trial")} a run (the per-scenario tests pool the newest ${MAX_PLANNED_BASELINE_RUNS}); add head trials.`
        : `Baseline runs for ${percent(TARGET_POWER)} power on the 90% → 10% collapse: ${needed} (${plural(needed * plan.trials, "trial")} a scenario).`,
    );
  }
  return lines.join("\n");
}
