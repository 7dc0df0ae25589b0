/**
 * Planning help: from the spread a report observed, how many trials per scenario a comparison needs
 * to detect a chosen change with the chosen power.
 */
import { ConfigError } from "../errors.js";
import { scenarioKey } from "../results/scenario-key.js";
import type { Report } from "../results/types.js";
import {
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

export interface ScenarioPlan {
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
