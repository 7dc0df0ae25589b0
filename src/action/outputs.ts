/** The action's outputs, computed from what the run produced. Pure. */
import type { Decision } from "../compare/decision.js";
import type { Comparison } from "../compare/types.js";
import { renderDecisionReason } from "../render/decision.js";
import type { BaselineNote } from "../render/pr-comment.js";
import type { Report } from "../results/types.js";

export interface PublishFacts {
  report: Report;
  reportPath: string;
  comparison: Comparison | null;
  decision: Decision;
  baseline: BaselineNote;
  artifactId: number | null;
  artifactUrl: string | null;
  commentUrl: string | null;
  /** A pull request without secrets that replayed a baseline run's recorded calls (`fork-mode: replay`). */
  replay?: { replayed: string } | null;
}

export type ActionOutputs = Record<
  | "decision"
  | "outcome"
  | "pass-rate"
  | "report-path"
  | "artifact-id"
  | "comment-url"
  | "cost-usd"
  | "summary",
  string
>;

/** Rounded so that floating-point noise does not reach the outputs. */
function roundTo(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

export function buildOutputs(facts: PublishFacts): ActionOutputs {
  const s = facts.report.summary;
  const passRate = s.pass_rate === null ? null : roundTo(s.pass_rate, 4);
  const cost = roundTo(s.total_cost_usd, 6);
  const summary = {
    outcome: s.outcome,
    pass_rate: passRate,
    scenarios: s.scenarios,
    scenarios_passed: s.scenarios_passed,
    trials: s.trials,
    passed: s.passed,
    failed: s.failed,
    errors: s.errors,
    skipped: s.skipped,
    cost_usd: cost,
    incomplete: facts.report.run.incomplete,
    report_path: facts.reportPath,
    artifact_id: facts.artifactId,
    artifact_url: facts.artifactUrl,
    comment_url: facts.commentUrl,
    baseline: describeBaseline(facts.baseline),
    comparison: facts.comparison ? describeComparison(facts.comparison) : null,
    // A replay re-issues the baseline's recorded calls: it shows the tool's changed behaviour, not a model's.
    replay: facts.replay ? { replayed: facts.replay.replayed, agent: "replay" } : null,
  };
  const d = facts.decision;
  const decision = {
    failed: d.failed,
    fail_on: d.fail_on,
    basis: d.basis,
    regressed: d.regressed,
    regressed_metrics: d.regressed_metrics,
    suite_regressed: d.suite_regressed,
    // Improvements never gate; each compared scenario's verdict, as every rendering shows it.
    improved: d.improved,
    suite_improved: d.suite_improved,
    suite_verdict: d.suite_verdict,
    verdicts: Object.fromEntries(d.scenarios.map((s) => [s.key, s.verdict])),
    // Scenarios in no test (their measurement changed, or new), and what the PR changed in the treatment.
    not_compared: d.not_compared.map((s) => s.key),
    treatment_changed: (d.treatment_changes?.files ?? []).map(({ kind, path, change }) => ({
      kind,
      path,
      change,
    })),
    reason: renderDecisionReason(d, {
      summary: s,
      ...(facts.baseline.status === "missing" ? { noBaselineReason: facts.baseline.reason } : {}),
    }),
  };
  return {
    decision: JSON.stringify(decision),
    outcome: s.outcome,
    "pass-rate": passRate === null ? "" : String(passRate),
    "report-path": facts.reportPath,
    "artifact-id": facts.artifactId === null ? "" : String(facts.artifactId),
    "comment-url": facts.commentUrl ?? "",
    "cost-usd": String(cost),
    summary: JSON.stringify(summary),
  };
}

/** The outputs of a run that did not happen (a fork's pull request without the key). */
export function buildSkippedOutputs(reason: string): ActionOutputs {
  return {
    decision: "",
    outcome: "skipped",
    "pass-rate": "",
    "report-path": "",
    "artifact-id": "",
    "comment-url": "",
    "cost-usd": "0",
    summary: JSON.stringify({ outcome: "skipped", reason }),
  };
}

function describeBaseline(baseline: BaselineNote) {
  if (baseline.status === "disabled") return { status: "disabled" };
  if (baseline.status === "missing") return { status: "missing", reason: baseline.reason };
  const { source } = baseline;
  return {
    status: "found",
    kind: source.kind,
    sha: source.sha,
    run_id: source.runId,
    run_url: source.runUrl,
    artifact_id: source.artifactId,
    created_at: source.createdAt,
    matches_base_sha: source.matchesBaseSha,
  };
}

function describeComparison(comparison: Comparison) {
  return {
    newly_failing: comparison.scenarios.filter((s) => s.status === "newly_failing").map((s) => s.key),
    newly_passing: comparison.scenarios.filter((s) => s.status === "newly_passing").map((s) => s.key),
    regressed: comparison.scenarios.filter((s) => s.regressed.length > 0).map((s) => s.key),
    improved: comparison.scenarios.filter((s) => s.improved.length > 0).map((s) => s.key),
    added: comparison.added.map((s) => s.key),
    removed: comparison.removed.map((s) => s.key),
  };
}
