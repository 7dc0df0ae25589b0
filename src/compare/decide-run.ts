/**
 * The decide stage of a run, between running it and writing its outputs: the finished report, the
 * baseline settled before the run, and the policy in; the comparison and the one decision out.
 * Pure, and the only place a run is decided: the CLI's `run`, `merge`, `report` and `compare` (a
 * saved report decided again), the action (a run, a merge of shards, a fork's follow-up comment) and a
 * library caller all call it, so they cannot decide differently (tests/architecture.test.ts checks
 * that nothing else calls decide()).
 */
import { describeError } from "../errors.js";
import type { ToleranceGates } from "../results/tolerance-gates.js";
import type { Report } from "../results/types.js";
import { diffRegressedBehaviour } from "./behaviour-diff.js";
import { compareReports } from "./compare.js";
import { type Decision, decide, defaultFailOn, type FailOn } from "./decision.js";
import type { BaselinePooling } from "./pool-baselines.js";
import type { CompareOptions, Comparison } from "./types.js";

/** How a run is decided: the user's `fail-on` and `gate-metrics`, and how the reports are compared. */
export interface DecisionPolicy {
  /** Null: `regression` when a baseline was compared, else `outcome`. */
  failOn: FailOn | null;
  gateMetrics: readonly string[];
  /** The suite's tolerance gates (`tolerance-gates`); a scenario's own override them. None by default. */
  toleranceGates?: ToleranceGates;
  /** Alpha, the names of the two sides, tolerances; default as compareReports. */
  compareOptions?: CompareOptions;
}

/** The baseline as settled before the run (run/baseline.ts), as the decision sees it. */
export interface DecisionBaseline {
  /** The (pooled) report to compare with; null when no report measured what the run measures. */
  report: Report | null;
  /** The runs the pooled report is made of, what was left out of it, and each run's counts. */
  pooling?: BaselinePooling | undefined;
}

export interface DecideRunInput {
  report: Report;
  /** Null without a baseline. */
  baseline: DecisionBaseline | null;
  policy: DecisionPolicy;
  /**
   * The extra trials the run's design gave a screened scenario (0 without an adaptive design: no
   * baseline, one trial per scenario, a shard), for the design line and its power. Unset: read from
   * the report (a saved report whose run is not at hand).
   */
  designExtraTrials?: number | undefined;
  /**
   * A baseline that cannot be compared: said in `comparisonError`, beside the run's own results,
   * which must still be written (the default); or thrown, where comparing was all that was asked
   * (`report --baseline`, `compare` on saved reports).
   */
  incomparable?: "record" | "throw";
}

export interface DecidedRun {
  /** Against the baseline; null without one, or when it could not be compared. */
  comparison: Comparison | null;
  /** Why the baseline could not be compared (a report of another format, say). */
  comparisonError: string | null;
  /** The one decision every output renders and every exit status follows. */
  decision: Decision;
}

/**
 * Compares the report with the baseline (when there is one) and decides. A baseline that cannot be
 * compared is said in `comparisonError`, not thrown, so a run's own results still get written (unless
 * `incomparable` is "throw").
 */
export function decideRun({
  report,
  baseline,
  policy,
  designExtraTrials,
  incomparable = "record",
}: DecideRunInput): DecidedRun {
  const compareOptions = policy.compareOptions ?? {};
  let comparison: Comparison | null = null;
  let comparisonError: string | null = null;
  if (baseline?.report) {
    try {
      comparison = compareReports(baseline.report, report, compareOptions);
    } catch (error) {
      if (incomparable === "throw") throw error;
      comparisonError = describeError(error);
    }
  }
  const decided = decide({
    head: report,
    baseline: comparison ? (baseline?.report ?? null) : null,
    failOn: policy.failOn ?? defaultFailOn(comparison !== null),
    gateMetrics: policy.gateMetrics,
    ...(policy.toleranceGates ? { toleranceGates: policy.toleranceGates } : {}),
    // Also without a usable report: the scenarios left out because they changed are then listed.
    ...(baseline?.pooling ? { pooling: baseline.pooling } : {}),
    ...(designExtraTrials !== undefined ? { extraTrials: designExtraTrials } : {}),
    ...(compareOptions.alpha !== undefined ? { alpha: compareOptions.alpha } : {}),
  });
  const regressed = decided.regressed;
  const behaviour =
    comparison && baseline?.report && regressed.length > 0
      ? diffRegressedBehaviour(baseline.report, report, regressed)
      : [];
  const decision = behaviour.length > 0 ? { ...decided, behaviour } : decided;
  return { comparison, comparisonError, decision };
}
