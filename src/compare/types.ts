/**
 * The comparison contract: head report against a baseline report. Serialised into the action's
 * outputs, the PR comment and the HTML report, so field names are snake_case like report.json.
 */
import type { ScenarioSummary } from "../results/types.js";

export const COMPARISON_SCHEMA_VERSION = 1;

/**
 * - improved / regressed: the adjusted p-value is below alpha, in the good / bad direction.
 * - unchanged: not significant, and the 95% interval of the change lies within ±tolerance.
 * - inconclusive: neither; the data cannot tell a change of the tolerance's size from noise.
 * - too_few_samples: fewer than `min_trials` usable values on a side (never a verdict from 1 vs 1).
 */
export type Verdict = "improved" | "regressed" | "unchanged" | "inconclusive" | "too_few_samples";

import type { Direction, MetricKind } from "../results/trial-metrics.js";

export type { Direction, MetricKind };

export type ScenarioStatus =
  /** Passed every baseline trial, fails every head trial. */
  | "newly_failing"
  /** Failed every baseline trial, passes every head trial. */
  | "newly_passing"
  | "still_passing"
  | "still_failing"
  /** Stable (all pass or all fail) in the baseline, mixed in head. */
  | "became_flaky"
  | "still_flaky"
  /** Mixed in the baseline, passes every head trial. */
  | "stabilized_pass"
  /** Mixed in the baseline, fails every head trial. */
  | "stabilized_fail"
  /** A side has no pass/fail trial (only errors or skips). */
  | "no_data";

export type Correction = "holm" | "bh";

export interface CompareOptions {
  /** Significance level after correction; default 0.05. */
  alpha?: number;
  /** Multiple-comparison correction across the family of tests; default "holm". */
  correction?: Correction;
  /** Metrics that get tests; default DEFAULT_COMPARE_METRICS. `pass_rate` is always included. */
  metrics?: string[];
  /** Seed for Monte Carlo permutations and bootstraps; default fixed, so results are reproducible. */
  seed?: number;
  /** Usable values needed per side before any verdict; default 2 (1 vs 1 is never judged). */
  minTrials?: number;
  /** Largest change of a rate (0.1 = 10 points) still called unchanged; default 0.1. */
  rateTolerance?: number;
  /** Largest change of a count or amount, relative to the baseline mean, still called unchanged; default 0.1. */
  relativeTolerance?: number;
  /** Absolute tolerances per metric, overriding the two above. */
  tolerances?: Record<string, number>;
  /** Bootstrap resamples for the suite-level intervals; default 2000. */
  bootstrapResamples?: number;
  /** Monte Carlo permutations when exact enumeration is too large; default 10,000 (smallest p ≈ 1e-4). */
  permutationResamples?: number;
  /** Names for the two reports in error messages (e.g. their file paths); default "base report" / "head report". */
  sources?: { base?: string; head?: string };
}

export interface RunRef {
  run_id: string;
  started_at: string;
  agent: string;
  /** The run's model (a matrix's first). */
  model: string | null;
  /** A model matrix's models, in order; absent for a one-model run. */
  models?: string[];
  /** An agent matrix's entries by name ("codex · openai:gpt-5"), in order; absent otherwise. */
  entries?: string[];
  judge_model: string | null;
  harness_version: string;
  git_sha: string | null;
  git_ref: string | null;
  incomplete: boolean;
}

export interface ComparisonSettings {
  alpha: number;
  correction: Correction;
  metrics: string[];
  seed: number;
  min_trials: number;
  rate_tolerance: number;
  relative_tolerance: number;
  tolerances: Record<string, number>;
  bootstrap_resamples: number;
  permutation_resamples: number;
  /** Number of per-scenario tests the correction ran over. */
  family_size: number;
}

/** One side of a scenario: counts over its trials (errors and skips excluded from the rate). */
export type SideSummary = Pick<
  ScenarioSummary,
  | "trials"
  | "passed"
  | "failed"
  | "errors"
  | "skipped"
  | "pass_rate"
  | "pass_rate_ci_low"
  | "pass_rate_ci_high"
  | "flakiness"
>;

export interface MetricComparison {
  metric: string;
  direction: Direction;
  kind: MetricKind;
  /** fisher_exact on pass/fail counts; permutation on trial values; none when not tested. */
  test: "fisher_exact" | "permutation" | "none";
  base_n: number;
  head_n: number;
  base_mean: number | null;
  head_mean: number | null;
  /** head − base. */
  delta: number | null;
  /** 95% interval of delta: Newcombe hybrid score (pass rate); Welch t for trial means, or MOVER with
   * Wilson / Poisson side intervals when a side shows no spread (see compare.ts). */
  ci_low: number | null;
  ci_high: number | null;
  p_value: number | null;
  p_adjusted: number | null;
  /** The absolute change within which `unchanged` may be claimed. */
  tolerance: number;
  verdict: Verdict;
}

export interface ScenarioComparison {
  /** `id`, or `id@variant` for a variant. */
  key: string;
  id: string;
  variant: string | null;
  category: string;
  /** Base key when matched by content hash under another id. */
  renamed_from: string | null;
  /** Same key, another measurement (measurement_hash, or content_hash in reports of earlier versions): the scenario itself changed. */
  content_changed: boolean;
  status: ScenarioStatus;
  base: SideSummary;
  head: SideSummary;
  /** pass_rate first, then the other metrics in settings order. */
  metrics: MetricComparison[];
  /** Metric names with each verdict, for quick filtering. */
  regressed: string[];
  improved: string[];
}

export interface ScenarioRef {
  key: string;
  id: string;
  variant: string | null;
  category: string;
  content_hash: string;
  summary: SideSummary;
}

export interface RenamedScenario {
  from: string;
  to: string;
  content_hash: string;
}

export interface SuiteMetricComparison {
  metric: string;
  direction: Direction;
  kind: MetricKind;
  /** Paired over scenarios: sign-flip permutation on per-scenario differences (McNemar's exact test
   * when every scenario has one pass/fail trial a side). */
  test: "sign_flip" | "mcnemar_exact" | "none";
  /** Scenarios with data on both sides: the unit of this analysis. */
  scenarios: number;
  /** Mean over scenarios of the per-scenario means (every scenario weighs the same). */
  base_mean: number | null;
  head_mean: number | null;
  delta: number | null;
  /** Cluster (scenario) bootstrap percentile interval of delta. */
  ci_low: number | null;
  ci_high: number | null;
  p_value: number | null;
  /** Corrected across the suite-level metrics. */
  p_adjusted: number | null;
  tolerance: number;
  verdict: Verdict;
}

export interface SuiteComparison {
  scenarios: number;
  /**
   * True when some scenario's adaptive extra trials were left out: suite figures use each
   * scenario's first trials only (extra trials, run where the first did worse, would bias them).
   */
  first_trials_only: boolean;
  /** Fewer scenarios than this give too_few_samples at suite level. */
  min_scenarios: number;
  bootstrap_resamples: number;
  metrics: SuiteMetricComparison[];
}

export type WarningCode =
  | "model_differs"
  | "judge_model_differs"
  | "agent_differs"
  | "harness_version_differs"
  | "price_table_differs"
  | "content_changed"
  | "incomplete_run"
  | "no_matched_scenarios";

export interface ComparisonWarning {
  code: WarningCode;
  message: string;
}

export interface ComparisonCounts {
  matched: number;
  added: number;
  removed: number;
  renamed: number;
  content_changed: number;
  newly_failing: number;
  newly_passing: number;
  /** Scenarios with at least one regressed / improved metric. */
  regressed: number;
  improved: number;
  /** Tests by verdict over the whole per-scenario family. */
  verdicts: Record<Verdict, number>;
}

export interface Comparison {
  schema_version: number;
  base: RunRef;
  head: RunRef;
  settings: ComparisonSettings;
  counts: ComparisonCounts;
  warnings: ComparisonWarning[];
  /** Matched scenarios (renamed ones included), in head order. */
  scenarios: ScenarioComparison[];
  added: ScenarioRef[];
  removed: ScenarioRef[];
  renamed: RenamedScenario[];
  suite: SuiteComparison;
}

/** Where a baseline report came from, for the comment's provenance line. */
export interface BaselineSource {
  kind: "auto" | "path";
  /** Commit the baseline ran on (the run's head sha, else the report's git_sha). */
  sha: string | null;
  /** When the baseline run started (ISO), for "N hours old". */
  createdAt: string | null;
  runId: number | null;
  runNumber: number | null;
  runUrl: string | null;
  artifactId: number | null;
  /** True when the baseline ran on the pull request's base commit itself. */
  matchesBaseSha: boolean;
  /** The report file read. */
  file: string;
}
