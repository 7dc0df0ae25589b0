/**
 * The one decision: computed once from (pooled baseline, head report, options) and rendered by
 * everything — the PR comment, the job summary, report.md/html, the terminal, comparison.json and
 * every exit status — so none of them can disagree. docs/statistics.md is the contract.
 *
 * - fail-on regression: per-scenario pass rates (Boschloo, one-sided, Holm over scenarios) and the
 *   exact stratified CMH suite test, alpha split between them (src/stats/regression-decision.ts);
 *   metrics the user names (gate metrics) add one family each, one-sided in the metric's bad
 *   direction, Holm over scenarios; alpha is split equally (Bonferroni) between the pass-rate
 *   decision and each named metric, so an unchanged PR fails at most alpha of the time.
 * - Tolerance gates (tolerance-gates.ts: "no more than +20% input tokens than the base"): one family
 *   per metric over the scenarios that set one, the one-sided test of stats/difference-interval.ts,
 *   Holm over those scenarios; each family takes its equal share of alpha like a gate metric.
 * - Improvements (src/stats/improvement.ts): the same tests mirrored, their own alpha; reported as
 *   🟢 improved, never read by `failed`, the exit status or fail-on.
 * - Each scenario and the suite carry one verdict word (`verdict`, `suite_verdict`) that every
 *   renderer shows as it is: none derives its own.
 * - Labels such as "newly failing" describe; they never fail the check on their own.
 * - fail-on outcome / pass-rate<X / never decide on the head run alone.
 */
import { ConfigError } from "../errors.js";
import { judgeRun } from "../results/run-outcome.js";
import { scenarioKey } from "../results/scenario-key.js";
import { checkToleranceGates, gatesOfScenario, type ToleranceGates } from "../results/tolerance-gates.js";
import type { Direction } from "../results/trial-metrics.js";
import { findMetric, PASS_RATE, readTrialValues } from "../results/trial-metrics.js";
import type { Report, RunSummary, ScenarioReport, TrialReport } from "../results/types.js";
import { broadDropPower } from "../stats/broad-drop-power.js";
import {
  CONCLUSIVE_POWER,
  collapsePower,
  detectionPower,
  type InconclusiveGround,
  inconclusiveGrounds,
  PLANNED_COLLAPSE,
} from "../stats/detection-power.js";
import { toleranceTest } from "../stats/difference-interval.js";
import { decideImprovement } from "../stats/improvement.js";
import {
  DEFAULT_ALPHA,
  DEFAULT_EXTRA_TRIALS,
  DEFAULT_SUITE_ALPHA,
  decideRegression,
  type ScenarioCounts,
  screenForExtraTrials,
} from "../stats/regression-decision.js";
import {
  type AssumedVariation,
  assumeRunVariation,
  lowerMedian,
  MIN_RUNS_FOR_VARIATION,
  type RunCount,
  SCENARIO_TEST_RUNS,
  type SuiteMethod,
} from "../stats/run-clusters.js";
import {
  adjustPValues,
  classifyFlakiness,
  computeMean,
  createRng,
  deriveSeed,
  permutationTest,
} from "../stats/stats.js";
import type { BehaviourDiff } from "./behaviour-diff.js";
import { classifyStatus } from "./compare.js";
import {
  describeTreatmentChanges,
  listChangedWithoutBaseline,
  type NotComparedScenario,
  type Pairing,
  pairWithBaseline,
  type TreatmentChanges,
} from "./pairing.js";
import type { BaselinePooling, ExcludedBaseline } from "./pool-baselines.js";
import type { ScenarioStatus } from "./types.js";

export type FailOn =
  | { kind: "regression" }
  | { kind: "outcome" }
  | { kind: "never" }
  | { kind: "pass_rate_below"; threshold: number };

/** `regression`, `outcome`, `never`, or a threshold `pass-rate<0.8`. */
export function parseFailOn(text: string, where: string): FailOn {
  const value = text.trim().toLowerCase();
  if (value === "regression" || value === "outcome" || value === "never") return { kind: value };
  const threshold = /^pass[-_]rate\s*<\s*(\d*\.?\d+)$/.exec(value);
  if (threshold) {
    const bar = Number(threshold[1]);
    if (bar > 0 && bar <= 1) return { kind: "pass_rate_below", threshold: bar };
  }
  throw new ConfigError(
    `must be regression, outcome, never or pass-rate<X with X in (0, 1] (e.g. pass-rate<0.8), got "${text}"`,
    where,
  );
}

/** Without an explicit fail-on: the regression test when there is a baseline, else the run's own outcome. */
export function defaultFailOn(hasBaseline: boolean): FailOn {
  return { kind: hasBaseline ? "regression" : "outcome" };
}

export function formatFailOn(failOn: FailOn): string {
  return failOn.kind === "pass_rate_below" ? `pass-rate<${failOn.threshold}` : failOn.kind;
}

/** Figures that describe a run's economy and pace: shown, never gate metrics; cost, tokens and turns may have a tolerance gate. */
const DESCRIPTIVE_METRICS: readonly string[] = [
  "input_tokens",
  "output_tokens",
  "cache_read_tokens",
  "cache_write_tokens",
  "cost_usd",
  "duration_ms",
  "turns",
];

/** Validates `gate-metrics` names: known, not pass_rate (always decided), not descriptive. */
export function checkGateMetrics(names: readonly string[], where: string): string[] {
  const unique = [...new Set(names.map((n) => n.trim()).filter(Boolean))];
  for (const name of unique) {
    findMetric(name, where);
    if (name === PASS_RATE) {
      throw new ConfigError("pass_rate is always decided; name only the other metrics to gate on", where);
    }
    if (DESCRIPTIVE_METRICS.includes(name)) {
      throw new ConfigError(
        `${name} is descriptive (tokens, cost, duration and turns are not tested like layer-1 metrics); name a layer-1 metric such as error_rate, or give cost, tokens or turns a tolerance (tolerance-gates, e.g. ${name}:+20%)`,
        where,
      );
    }
  }
  return unique;
}

export interface PassCount {
  passed: number;
  /** Evaluated trials: passes and failures (errors and skips are counted apart). */
  trials: number;
}

/**
 * A scenario's verdict, decided once here and shown as it is by every renderer: `regressed` (its pass
 * rate or a gate metric, which fails the check), `improved` (the mirrored test; never gates),
 * `no_clear_change` (tested, neither test rejected), `not_tested` (in no family: one trial per
 * scenario, no evaluated trial on a side), `not_compared` (its measurement changed, or not in the base runs).
 */
export type ScenarioVerdict = "regressed" | "improved" | "no_clear_change" | "not_tested" | "not_compared";

/** A scenario's verdict from what its tests found: a regression (pass rate or gate metric) first. */
export function judgeScenario(found: {
  notCompared: boolean;
  regressed: boolean;
  improved: boolean;
  /** In the regression family or the improvement family. */
  tested: boolean;
}): ScenarioVerdict {
  if (found.notCompared) return "not_compared";
  if (found.regressed) return "regressed";
  if (found.improved) return "improved";
  return found.tested ? "no_clear_change" : "not_tested";
}

/** The suite's verdict: its suite tests' (regression first); `not_tested` without a suite test. */
export type SuiteVerdict = "regressed" | "improved" | "no_clear_change" | "not_tested";

export interface DecisionScenario {
  key: string;
  /** The one verdict every renderer shows for this scenario. */
  verdict: ScenarioVerdict;
  /** A description ("newly failing", "became flaky"); never gates by itself. */
  status: ScenarioStatus;
  /** The pooled baseline's counts; null when the baseline did not run this scenario. */
  base: PassCount | null;
  head: PassCount;
  /** The head's first trials, before any adaptive extra ones. */
  head_first: PassCount;
  /** Whether the head got adaptive extra trials. */
  extended: boolean;
  /** One-sided p of the scenario's own pass counts; null when a side has no evaluated trial. */
  p_value: number | null;
  /** On alpha's scale: regressed exactly when adjusted_p ≤ alpha. null when not in the family. */
  adjusted_p: number | null;
  tested: boolean;
  regressed: boolean;
  /**
   * The base counts the scenario's own test compared with, when not `base`: the newest 8 pooled runs',
   * moved along the base branch's drift when the suite test found one. Absent otherwise.
   */
  tested_base?: PassCount;
  /** Gate metrics that regressed in this scenario. */
  regressed_metrics: string[];
  /** The improvement test (mirrored, first trials): its one-sided p; null when a side has no evaluated trial. */
  improvement_p_value: number | null;
  /** On alpha's scale: improved exactly when ≤ alpha; null when not in the improvement family. */
  improvement_adjusted_p: number | null;
  /** The head passes clearly more often (src/stats/improvement.ts). Never gates. */
  improved: boolean;
}

/** The improvement decision's own levels and suite test; it never gates. */
interface ImprovementDecision {
  alpha: number;
  primary_alpha: number;
  suite_alpha: number;
  /** The mirrored suite test; null when it is off. */
  suite: { p_value: number; adjusted_p: number | null } | null;
}

export interface MetricFinding {
  key: string;
  base_mean: number | null;
  head_mean: number | null;
  /** head − base. */
  delta: number | null;
  /** One-sided in the metric's bad direction. */
  p_value: number | null;
  adjusted_p: number | null;
  regressed: boolean;
  /**
   * A tolerance gate's: the largest increase over the base's mean allowed (0.2: +20%); p_value is then
   * that the head exceeds it. Absent in a gate metric's family and where the scenario has no gate.
   */
  tolerance?: number;
}

export interface MetricFamily {
  metric: string;
  /** True for a tolerance gate's family (tolerance-gates.ts); absent for a gate metric's. */
  tolerance_gate?: true;
  direction: Direction;
  /** The level each scenario's adjusted p is compared with, after the split (see the module comment). */
  alpha: number;
  scenarios: MetricFinding[];
}

interface DesignPower {
  /** Power to flag one scenario whose pass rate collapses 0.9 → 0.1, at this design. */
  collapse: number;
  /** … whose pass rate drops 0.9 → 0.5. */
  half: number;
  /**
   * The suite test's power for every scenario dropping 0.9 → 0.8 (seeded simulation at this design,
   * stats/decision-simulation.ts `broadDropPower`). Set only on a "no regression" decision, whose ✅
   * line says whether it could have seen such a drop.
   */
  broad_drop?: number;
  /**
   * Set when this PR's base runs trended down and the suite test compared the head with the trend's
   * prediction (its drift branch): broad_drop is then the power in that branch, which sees less than
   * the comparison with the runs' mean (docs/statistics.md, "The drift pretest").
   */
  broad_drop_in_drift_branch?: boolean;
}

/**
 * What the base runs showed of run-to-run variation (runs are clusters; docs/statistics.md), and what
 * the tests assumed.
 */
interface RunVariation {
  /** Base runs pooled. */
  runs: number;
  /** The intra-run correlation the base runs show (method of moments); null below two runs. */
  icc: number | null;
  /** The ICC the tests assumed: the estimate rounded up to 0.01, or the design's prior (0.1) below three runs. */
  icc_used: number;
  /** The suite-level pass rate's spread across base runs against binomial sampling; null below three runs. */
  dispersion: number | null;
  /** The base runs' suite-level pass rate change per run (negative: drifting down); null below four runs. */
  trend: number | null;
  /** Which form of the suite test decided. */
  suite_method: SuiteMethod;
}

/** Why a run that did not regress is not called a pass, and what would make it conclusive. */
interface Inconclusive {
  /** Plain sentences, e.g. "only 2 base-branch runs: run-to-run variation cannot be estimated (3 needed)". */
  reasons: string[];
  /** Plain sentences, e.g. "3 more base-branch runs". */
  needs: string[];
}

export interface Design {
  scenarios: number;
  /** Head trials per scenario before extra ones (the median over scenarios). */
  head_trials: number;
  /** Extra trials a screened scenario gets (0 when adaptive trials were off). */
  extra_trials: number;
  /** Baseline runs pooled (1 for a single report). */
  baseline_runs: number;
  /** Pooled baseline trials per scenario (the median over scenarios). */
  baseline_trials: number;
  /** Head trials actually run in this PR (extra ones included). */
  head_trials_spent: number;
  /**
   * What this PR's run cost: the head report's known costs (agent and judge, from its tokens and the
   * price table) and the trials whose cost is unknown (a model with no price), never counted as $0.
   */
  cost: { total_cost_usd: number; trials_cost_unknown: number };
  /** Null when only the suite test decides (one trial per scenario); at `variation.icc_used`. */
  power: DesignPower | null;
}

type DecisionBasis =
  | "regression"
  | "no_regression"
  | "inconclusive"
  | "no_baseline"
  | "outcome"
  | "pass_rate"
  | "never";

export interface Decision {
  failed: boolean;
  fail_on: string;
  /** What decided: the regression test, or the head run alone. */
  basis: DecisionBasis;
  /** Scenario keys whose pass rate regressed. */
  regressed: string[];
  /** Gate metrics that regressed, with the scenarios where they did. */
  regressed_metrics: Array<{ metric: string; scenarios: string[] }>;
  /** Whether the suite test rejected ("the suite as a whole got worse"). */
  suite_regressed: boolean;
  /** Scenario keys whose pass rate clearly improved (never gates). */
  improved: string[];
  /** Whether the mirrored suite test rejected ("the suite as a whole got better"; never gates). */
  suite_improved: boolean;
  /** The one verdict every renderer shows for the suite. */
  suite_verdict: SuiteVerdict;
  /** The improvement tests' levels; null without a regression test. */
  improvement: ImprovementDecision | null;
  alpha: number;
  primary_alpha: number;
  suite_alpha: number;
  /** With one trial per scenario only the suite test can decide. */
  suite_only: boolean;
  suite: {
    p_value: number;
    adjusted_p: number | null;
    strata: number;
    /**
     * Set when the extended scenarios' extra trials entered the suite test as a second stage (p_value
     * is then both stages combined): how many scenarios, and the first stage's own p. null: first
     * trials only.
     */
    extras_stage: { scenarios: number; first_stage_p: number } | null;
  } | null;
  scenarios: DecisionScenario[];
  secondary: MetricFamily[];
  design: Design | null;
  /** Run-to-run variation the base runs showed; null without a regression test. */
  variation: RunVariation | null;
  /** Set exactly when basis is "inconclusive". */
  inconclusive: Inconclusive | null;
  baseline: { runs: string[]; excluded: ExcludedBaseline[] } | null;
  run: { outcome: RunSummary["outcome"]; pass_rate: number | null; incomplete: boolean };
  /**
   * Incomplete head run (results/run-outcome.ts: interrupted or cut, or trials errored and none
   * failed): the decision covers only what was evaluated.
   */
  incomplete: boolean;
  /**
   * Head scenarios the decision did not compare, with their head results: their measurement changed
   * since the base runs, or the baseline has none (pairing.ts). Empty when nothing was compared
   * for another reason (fail-on outcome, no baseline at all).
   */
  not_compared: NotComparedScenario[];
  /** What the PR changed in the compared scenarios' treatment (guidance, the tool's build); null when not compared. */
  treatment_changes: TreatmentChanges | null;
  /**
   * What the agent did differently in each regressed scenario, base vs head (compare/behaviour-diff.ts):
   * descriptive, never a verdict. Set by decideRun; absent when nothing regressed or without a baseline.
   */
  behaviour?: BehaviourDiff[];
}

export interface DecisionInput {
  head: Report;
  /** The pooled baseline report; null when there is none. */
  baseline: Report | null;
  /**
   * Provenance of the pooled baseline (labels of the runs used, what was left out, and each run's
   * counts per scenario). Without it the baseline is one run.
   */
  pooling?: BaselinePooling;
  failOn?: FailOn;
  gateMetrics?: readonly string[];
  /** The suite's tolerance gates; a head scenario's own (`tolerance_gates`) override them per metric. */
  toleranceGates?: ToleranceGates;
  alpha?: number;
  /** The suite test's part of alpha; default half of it (0.025 of 0.05). */
  suiteAlpha?: number;
  /**
   * Extra trials a screened scenario gets in this design (the run's `extra-trials`), for the design
   * line and whether the run is conclusive. Default: as many as the head's extended scenarios ran, or
   * the default (8) when the head ran the adaptive design and no scenario needed them.
   */
  extraTrials?: number;
  /**
   * The intra-run correlation to assume instead of estimating it from the base runs (0: every trial
   * an independent draw, as a deterministic tool's tests may be). Fewer than three base runs still
   * make a run without a regression inconclusive.
   */
  icc?: number;
  /** Seed for the permutation tests of gate metrics. */
  seed?: number;
}

function countPasses(trials: readonly TrialReport[]): PassCount {
  const passed = trials.filter((t) => t.outcome === "pass").length;
  return { passed, trials: passed + trials.filter((t) => t.outcome === "fail").length };
}

/** The first trials of a scenario, before adaptive extra ones (all trials in reports without them). */
function firstTrials(scenario: ScenarioReport): TrialReport[] {
  const first = scenario.first_trials;
  return first === undefined ? scenario.trials : scenario.trials.filter((t) => t.trial <= first);
}

/** The comparison's label, from pass counts (errors and skips are not in them). */
function classifyCounts(base: PassCount | null, head: PassCount): ScenarioStatus {
  const flakiness = (c: PassCount | null) =>
    classifyFlakiness(c?.passed ?? 0, (c?.trials ?? 0) - (c?.passed ?? 0));
  return classifyStatus(flakiness(base), flakiness(head));
}

export function decide(input: DecisionInput): Decision {
  const failOn = input.failOn ?? { kind: "regression" };
  const alpha = input.alpha ?? DEFAULT_ALPHA;
  const gateMetrics = checkGateMetrics(input.gateMetrics ?? [], "gate-metrics");
  checkToleranceGates(input.toleranceGates ?? {}, "tolerance-gates");
  const head = input.head;
  const run = {
    outcome: head.summary.outcome,
    pass_rate: head.summary.pass_rate,
    // The run's own judgement (results/run-outcome.ts): interrupted, or errors and no failure.
    incomplete: judgeRun(head).incomplete,
  };
  const headOnly = (basis: DecisionBasis, failed: boolean): Decision => ({
    failed,
    fail_on: formatFailOn(failOn),
    basis,
    regressed: [],
    regressed_metrics: [],
    suite_regressed: false,
    improved: [],
    suite_improved: false,
    suite_verdict: "not_tested",
    improvement: null,
    alpha,
    primary_alpha: 0,
    suite_alpha: 0,
    suite_only: false,
    suite: null,
    scenarios: [],
    secondary: [],
    design: null,
    variation: null,
    inconclusive: null,
    baseline: null,
    run,
    incomplete: run.incomplete,
    not_compared: basis === "no_baseline" ? listChangedWithoutBaseline(head, input.pooling?.excluded) : [],
    treatment_changes: null,
  });

  if (failOn.kind === "never") return headOnly("never", false);
  if (failOn.kind === "outcome") return headOnly("outcome", head.summary.outcome !== "pass");
  if (failOn.kind === "pass_rate_below") {
    const rate = head.summary.pass_rate;
    return headOnly("pass_rate", rate === null || rate < failOn.threshold);
  }
  if (!input.baseline) return headOnly("no_baseline", false);
  // Only scenarios that measured the same thing are compared; the others are listed (pairing.ts).
  const pairing = pairWithBaseline(input.baseline, head, input.pooling?.excluded);
  if (pairing.paired.every((p) => p.base === null)) {
    // Nothing to compare: no baseline to regress from, and every scenario is listed.
    return { ...headOnly("no_baseline", false), not_compared: pairing.notCompared };
  }
  return decideRegressionAgainst(input.baseline, input, { alpha, gateMetrics, run, failOn }, pairing);
}

function decideRegressionAgainst(
  baseline: Report,
  input: DecisionInput,
  context: { alpha: number; gateMetrics: string[]; run: Decision["run"]; failOn: FailOn },
  { paired, notCompared }: Pairing,
): Decision {
  const { alpha, gateMetrics } = context;
  const suiteTolerances = input.toleranceGates ?? {};
  const tolerancesOf = new Map(
    paired.map(({ head }) => [
      scenarioKey(head),
      gatesOfScenario(suiteTolerances, head.tolerance_gates, scenarioKey(head)),
    ]),
  );
  const toleranceMetrics = [...new Set([...tolerancesOf.values()].flatMap((g) => Object.keys(g)))];
  // Bonferroni between the pass-rate decision and each gate's family (gate metrics, tolerance gates).
  const parts = 1 + gateMetrics.length + toleranceMetrics.length;
  const passAlpha = alpha / parts;
  // Half of alpha to the suite test by default, whatever alpha is (docs/statistics.md, "The α split").
  const suiteShare =
    input.suiteAlpha !== undefined ? input.suiteAlpha / alpha : DEFAULT_SUITE_ALPHA / DEFAULT_ALPHA;

  const rows = paired.map(({ head, base }) => {
    const baseCount = base ? countPasses(base.trials) : null;
    return {
      key: scenarioKey(head),
      base: baseCount,
      head: countPasses(head.trials),
      head_first: countPasses(firstTrials(head)),
      extended: head.extended === true,
    };
  });
  const adaptive = input.head.scenarios.some((s) => s.extended !== undefined);
  // A scenario the screen would extend against this baseline but that got no extra trials never met
  // the screen (the run had no baseline, was sharded, or ran out of budget): it is tested on the
  // trials it ran, as in the fixed design, rather than counted as screened out.
  const wouldExtend = screenForExtraTrials(
    rows.map((r) => ({
      basePassed: r.base?.passed ?? 0,
      baseTrials: r.base?.trials ?? 0,
      headPassed: r.head_first.passed,
      headTrials: r.head_first.trials,
    })),
  );
  const baseRuns = rows.map((r) => runCountsOf(r.key, r.base, input.pooling));
  const variation = assumeRunVariation(
    baseRuns.filter((_, i) => rows[i]!.base !== null),
    input.icc,
  );
  const counts: ScenarioCounts[] = rows.map((r, i) => ({
    basePassed: r.base?.passed ?? 0,
    baseTrials: r.base?.trials ?? 0,
    headPassed: r.head.passed,
    headTrials: r.head.trials,
    initialHeadPassed: r.head_first.passed,
    initialHeadTrials: r.head_first.trials,
    baseRuns: baseRuns[i]!,
    ...(adaptive ? { extended: r.extended || wouldExtend[i] === true } : {}),
  }));
  const result = decideRegression(counts, {
    alpha: passAlpha,
    suiteAlpha: passAlpha * suiteShare,
    icc: variation.iccUsed,
  });
  const scale = alpha / passAlpha;
  // Its own family at the full alpha, split as the regression side's; never part of `failed`.
  const improvement = decideImprovement(counts, {
    alpha,
    suiteAlpha: alpha * suiteShare,
    icc: variation.iccUsed,
    suiteOnly: result.suiteOnly,
  });
  const notComparedKeys = new Set(notCompared.map((s) => s.key));

  const secondary = [
    ...gateMetrics.map((metric) =>
      testMetricFamily(metric, paired, { alpha: alpha / parts, scale, seed: input.seed ?? 20240501 }),
    ),
    ...toleranceMetrics.map((metric) =>
      testToleranceFamily(metric, paired, tolerancesOf, { alpha: alpha / parts, scale }),
    ),
  ];
  const scenarios: DecisionScenario[] = rows.map((r, i) => {
    const d = result.scenarios[i]!;
    const up = improvement.scenarios[i]!;
    const regressedMetrics = secondary.filter((f) => f.scenarios[i]?.regressed).map((f) => f.metric);
    return {
      ...r,
      verdict: judgeScenario({
        notCompared: notComparedKeys.has(r.key),
        regressed: d.regressed || regressedMetrics.length > 0,
        improved: up.improved,
        tested: d.tested || up.adjustedP !== null,
      }),
      status: classifyCounts(r.base, r.head),
      p_value: d.pValue,
      adjusted_p: d.adjustedP === null ? null : Math.min(1, d.adjustedP * scale),
      tested: d.tested,
      regressed: d.regressed,
      ...(d.testedBase ? { tested_base: d.testedBase } : {}),
      regressed_metrics: regressedMetrics,
      improvement_p_value: up.pValue,
      improvement_adjusted_p: up.adjustedP,
      // A scenario that regressed in a gate metric is not called improved: the gate's verdict wins.
      improved: up.improved && !d.regressed && regressedMetrics.length === 0,
    };
  });
  const regressed = scenarios.filter((s) => s.regressed).map((s) => s.key);
  const regressedMetrics = secondary
    .map((f) => ({ metric: f.metric, scenarios: f.scenarios.filter((s) => s.regressed).map((s) => s.key) }))
    .filter((f) => f.scenarios.length > 0);
  const suiteRegressed = result.suite.rejected;
  const suiteImproved = improvement.suite.improved && !suiteRegressed;
  const failed = regressed.length > 0 || suiteRegressed || regressedMetrics.length > 0;
  const extraTrials = input.extraTrials ?? configuredExtraTrials(input.head);
  const design = describeDesign(rows, baseRuns, input, result.primaryAlpha, extraTrials, variation.iccUsed);
  const inconclusive = failed
    ? null
    : describeInconclusive(design, variation, result.primaryAlpha, notCompared.length);
  // A ✅ speaks of the collapse it was judged by; it must also say whether a broad drop could be seen.
  if (!failed && !inconclusive && design.power) {
    const inDriftBranch = result.suite.method === "trend";
    design.power.broad_drop = broadDropPower({
      scenarios: design.scenarios,
      runTrials: splitIntoRuns(design.baseline_trials, variation.runs),
      headTrials: design.head_trials,
      extraTrials: design.extra_trials,
      icc: variation.iccUsed,
      suiteAlpha: result.suite.alpha,
      ...(inDriftBranch ? { trendBranch: true } : {}),
    });
    if (inDriftBranch) design.power.broad_drop_in_drift_branch = true;
  }
  return {
    failed,
    fail_on: formatFailOn(context.failOn),
    basis: failed ? "regression" : inconclusive ? "inconclusive" : "no_regression",
    regressed,
    regressed_metrics: regressedMetrics,
    suite_regressed: suiteRegressed,
    improved: scenarios.filter((s) => s.improved).map((s) => s.key),
    suite_improved: suiteImproved,
    suite_verdict: suiteRegressed
      ? "regressed"
      : suiteImproved
        ? "improved"
        : result.suite.alpha > 0
          ? "no_clear_change"
          : "not_tested",
    improvement: {
      alpha: improvement.alpha,
      primary_alpha: improvement.primaryAlpha,
      suite_alpha: improvement.suiteAlpha,
      suite:
        improvement.suiteAlpha > 0
          ? { p_value: improvement.suite.pValue, adjusted_p: improvement.suite.adjustedP }
          : null,
    },
    alpha,
    primary_alpha: result.primaryAlpha,
    suite_alpha: result.suite.alpha,
    suite_only: result.suiteOnly,
    suite:
      result.suite.alpha > 0
        ? {
            p_value: result.suite.pValue,
            adjusted_p: result.suite.adjustedP === null ? null : Math.min(1, result.suite.adjustedP * scale),
            strata: result.suite.informativeStrata,
            extras_stage: result.suite.extrasStage
              ? {
                  scenarios: result.suite.extrasStage.scenarios,
                  first_stage_p: result.suite.extrasStage.firstStageP,
                }
              : null,
          }
        : null,
    scenarios,
    secondary,
    design,
    variation: {
      runs: variation.runs,
      icc: variation.icc,
      icc_used: variation.iccUsed,
      dispersion: result.suite.dispersion,
      trend: result.suite.trend,
      suite_method: result.suite.method,
    },
    inconclusive,
    baseline: input.pooling
      ? { runs: input.pooling.runs, excluded: input.pooling.excluded }
      : { runs: [baseline.run.id], excluded: [] },
    run: context.run,
    incomplete: context.run.incomplete,
    not_compared: notCompared,
    treatment_changes: describeTreatmentChanges(paired),
  };
}

function testMetricFamily(
  metric: string,
  paired: ReadonlyArray<{ head: ScenarioReport; base: ScenarioReport | null }>,
  settings: { alpha: number; scale: number; seed: number },
): MetricFamily {
  const definition = findMetric(metric, "gate-metrics");
  const findings: MetricFinding[] = paired.map(({ head, base }) => {
    const headValues = readTrialValues(head.trials, definition);
    const baseValues = base ? readTrialValues(base.trials, definition) : [];
    const baseMean = computeMean(baseValues);
    const headMean = computeMean(headValues);
    const testable = baseValues.length > 0 && headValues.length > 0;
    // One-sided in the bad direction: "greater" of (worse side − better side).
    const [worse, better] =
      definition.direction === "lower_is_better" ? [headValues, baseValues] : [baseValues, headValues];
    const p = testable
      ? permutationTest(
          worse,
          better,
          { rng: createRng(deriveSeed(settings.seed, `${metric}:${scenarioKey(head)}`)) },
          "greater",
        ).p_value
      : null;
    return {
      key: scenarioKey(head),
      base_mean: baseMean,
      head_mean: headMean,
      delta: testable ? headMean! - baseMean! : null,
      p_value: p,
      adjusted_p: null,
      regressed: false,
    };
  });
  holmWithinFamily(findings, settings);
  return { metric, direction: definition.direction, alpha: settings.alpha, scenarios: findings };
}

/**
 * A tolerance gate's family: per scenario with a gate on the metric, the one-sided test that the
 * head's mean exceeds (1 + tolerance) × the base's (stats/difference-interval.ts, the interval the
 * metrics table shows), Holm over those scenarios, at the family's share of alpha.
 */
function testToleranceFamily(
  metric: string,
  paired: ReadonlyArray<{ head: ScenarioReport; base: ScenarioReport | null }>,
  tolerancesOf: ReadonlyMap<string, ToleranceGates>,
  settings: { alpha: number; scale: number },
): MetricFamily {
  const definition = findMetric(metric, "tolerance-gates");
  const findings: MetricFinding[] = paired.map(({ head, base }) => {
    const key = scenarioKey(head);
    const headValues = readTrialValues(head.trials, definition);
    const baseValues = base ? readTrialValues(base.trials, definition) : [];
    const baseMean = computeMean(baseValues);
    const headMean = computeMean(headValues);
    const tolerance = tolerancesOf.get(key)?.[metric];
    const test =
      tolerance === undefined ? null : toleranceTest(headValues, baseValues, definition.kind, tolerance);
    return {
      key,
      base_mean: baseMean,
      head_mean: headMean,
      delta: baseMean !== null && headMean !== null ? headMean - baseMean : null,
      p_value: test?.p_value ?? null,
      adjusted_p: null,
      regressed: false,
      ...(tolerance === undefined ? {} : { tolerance }),
    };
  });
  holmWithinFamily(findings, settings);
  return {
    metric,
    tolerance_gate: true,
    direction: definition.direction,
    alpha: settings.alpha,
    scenarios: findings,
  };
}

/** Holm over a family's tested findings; adjusted_p on alpha's scale, regressed at the family's level. */
function holmWithinFamily(findings: MetricFinding[], settings: { alpha: number; scale: number }): void {
  const tested = findings.flatMap((f, i) => (f.p_value === null ? [] : [i]));
  const adjusted = adjustPValues(
    tested.map((i) => findings[i]!.p_value!),
    "holm",
  );
  tested.forEach((i, j) => {
    const finding = findings[i]!;
    finding.adjusted_p = Math.min(1, adjusted[j]! * settings.scale);
    finding.regressed = adjusted[j]! <= settings.alpha;
  });
}

/** Each base run's counts for a scenario: the pooled runs', or the baseline as one run. */
function runCountsOf(key: string, base: PassCount | null, pooling: BaselinePooling | undefined): RunCount[] {
  if (!base) return [];
  const runs = pooling?.runCounts?.[key];
  // Pooled counts that do not add up to the baseline's (another pooling) are not this baseline's.
  if (runs && runs.reduce((s, r) => s + r.passed, 0) === base.passed) {
    if (runs.reduce((s, r) => s + r.trials, 0) === base.trials) return [...runs];
  }
  return [{ passed: base.passed, trials: base.trials }];
}

/**
 * The run's configured extra trials, as far as the head report tells: the most an extended scenario
 * ran; the default when the adaptive design ran but no scenario needed them; 0 without the design.
 */
function configuredExtraTrials(head: Report): number {
  if (head.run.extra_trials !== undefined) return head.run.extra_trials;
  // A report of an earlier version: the extra trials its extended scenarios ran, else the default.
  const observed = Math.max(0, ...head.scenarios.map((s) => s.trials.length - firstTrials(s).length));
  if (observed > 0) return observed;
  return head.scenarios.some((s) => s.extended !== undefined) ? DEFAULT_EXTRA_TRIALS : 0;
}

function describeDesign(
  rows: ReadonlyArray<{ base: PassCount | null; head: PassCount; head_first: PassCount; extended: boolean }>,
  baseRuns: ReadonlyArray<readonly RunCount[]>,
  input: DecisionInput,
  primaryAlpha: number,
  extra: number,
  icc: number,
): Design {
  const compared = rows.flatMap((r, i) => (r.base && r.base.trials > 0 && r.head.trials > 0 ? [i] : []));
  const headTrials = lowerMedian(compared.map((i) => rows[i]!.head_first.trials));
  const baselineTrials = lowerMedian(compared.map((i) => rows[i]!.base!.trials));
  const runs = Math.max(1, ...compared.map((i) => baseRuns[i]!.filter((r) => r.trials > 0).length));
  const family = compared.length;
  const level = family > 0 ? primaryAlpha / family : 0;
  const powerDesign = {
    runTrials: splitIntoRuns(baselineTrials, runs),
    headTrials,
    extraTrials: extra,
    icc,
    level,
  };
  const collapse = primaryAlpha > 0 && family > 0 ? collapsePower(powerDesign) : null;
  const power = collapse === null ? null : { collapse, half: detectionPower(powerDesign, 0.9, 0.5) };
  return {
    scenarios: rows.length,
    head_trials: headTrials,
    extra_trials: extra,
    baseline_runs: input.pooling?.runs.length ?? 1,
    baseline_trials: baselineTrials,
    head_trials_spent: rows.reduce((sum, r) => sum + r.head.trials, 0),
    cost: {
      total_cost_usd: input.head.summary.total_cost_usd,
      trials_cost_unknown: input.head.summary.trials_cost_unknown ?? 0,
    },
    power,
  };
}

/** `total` trials over `runs` runs, as evenly as whole trials allow. */
function splitIntoRuns(total: number, runs: number): number[] {
  return Array.from({ length: runs }, (_, r) => Math.floor(total / runs) + (r < total % runs ? 1 : 0)).filter(
    (n) => n > 0,
  );
}

function describeInconclusive(
  design: Design,
  variation: AssumedVariation,
  primaryAlpha: number,
  notCompared: number,
): Inconclusive | null {
  // The rule is stats/detection-power.ts's (the simulation applies the same); here are its words.
  const grounds = inconclusiveGrounds({
    baseRuns: variation.runs,
    collapsePower: design.power?.collapse ?? null,
    notCompared,
  });
  if (grounds.length === 0) return null;
  const reasons = grounds.map(describeGround);
  const needs: string[] = [];
  if (grounds.some((g) => g.kind === "one_trial")) {
    needs.push("at least 2 trials per scenario (`trials: 3` is the default)");
  } else if (grounds.some((g) => g.kind === "few_runs" || g.kind === "low_power")) {
    needs.push(...describeWhatWouldConclude(design, variation, primaryAlpha));
  }
  // A scenario whose measurement changed, or a new one, has nothing to be compared with yet.
  if (grounds.some((g) => g.kind === "not_compared")) {
    needs.push("base-branch runs of the changed scenarios (the runs after this change is merged)");
  }
  return { reasons, needs };
}

function describeGround(ground: InconclusiveGround): string {
  switch (ground.kind) {
    case "few_runs":
      return `only ${ground.runs} base-branch run${ground.runs === 1 ? "" : "s"}: run-to-run variation cannot be estimated (${MIN_RUNS_FOR_VARIATION} needed)`;
    case "one_trial":
      return "one trial per scenario: no scenario can be tested on its own";
    case "low_power":
      return `this design would catch one scenario collapsing 0.9 → 0.1 only ${Math.floor(ground.power * 100)}% of the time (${CONCLUSIVE_POWER * 100}% needed)`;
    case "not_compared":
      return `${ground.scenarios} scenario${ground.scenarios === 1 ? " was" : "s were"} not compared (new, or measuring something else than the base runs did)`;
  }
}

/**
 * The fewest more base runs, else the fewest more trials per scenario, that reach the power needed.
 * More runs only up to the newest SCENARIO_TEST_RUNS the per-scenario tests pool: past them the
 * collapse's power does not grow, so beyond it the advice is more trials.
 */
function describeWhatWouldConclude(
  design: Design,
  variation: AssumedVariation,
  primaryAlpha: number,
): string[] {
  const runs = variation.runs;
  // Projected at the variation the base runs show. Below three runs they show none (the design line
  // says so; two runs' estimate is not one), so the advice is for runs as independent as trials, and
  // says so; at least three runs are asked for.
  const measured = variation.runs >= MIN_RUNS_FOR_VARIATION;
  const projectedIcc = measured ? variation.iccUsed : 0;
  const assuming = measured ? "" : ", if they vary no more than independent trials";
  const level = primaryAlpha / Math.max(1, design.scenarios);
  const perRun = Math.max(1, Math.round(design.baseline_trials / Math.max(1, runs)));
  const powerAt = (k: number, trials: number) =>
    detectionPower(
      {
        runTrials: Array.from({ length: k }, () => perRun),
        headTrials: trials,
        extraTrials: design.extra_trials,
        icc: projectedIcc,
        level,
      },
      PLANNED_COLLAPSE.baseRate,
      PLANNED_COLLAPSE.headRate,
    );
  // Power grows with the base runs (up to the exact tests' small steps): bisect on [atLeast, pool].
  let low = Math.max(runs + 1, MIN_RUNS_FOR_VARIATION) - 1;
  let high = Math.max(SCENARIO_TEST_RUNS, runs);
  if (high > low && powerAt(high, design.head_trials) >= CONCLUSIVE_POWER) {
    while (high - low > 1) {
      const middle = Math.floor((low + high) / 2);
      if (powerAt(middle, design.head_trials) >= CONCLUSIVE_POWER) high = middle;
      else low = middle;
    }
    const more = high - runs;
    return [
      `${more} more base-branch run${more === 1 ? "" : "s"} (it pools the last \`baseline-runs\`${assuming})`,
    ];
  }
  const k = Math.max(runs, MIN_RUNS_FOR_VARIATION);
  for (let trials = design.head_trials + 1; trials <= 10; trials++) {
    if (powerAt(k, trials) >= CONCLUSIVE_POWER) {
      return [
        `${trials - design.head_trials} more trials per scenario (\`trials: ${trials}\`), on the base branch too${assuming}`,
      ];
    }
  }
  return ["more base-branch runs and more trials per scenario than this design can plan for"];
}
