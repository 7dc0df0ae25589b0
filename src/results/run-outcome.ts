/**
 * The run's own outcome, judged once: the exit status without a decision, the decision's INCOMPLETE
 * mark, and every rendering of the run's result (terminal, report.md, report.html) read it here,
 * so a run whose trials only errored cannot read INCOMPLETE in one place and "failed" in another.
 */
import type { Report } from "./types.js";

type RunOutcome = "pass" | "fail" | "incomplete";

export interface JudgedRun {
  /** `fail` when a trial failed; else `incomplete` when the run has no verdict of its own; else `pass`. */
  outcome: RunOutcome;
  /**
   * Interrupted or cut by its budget, or no trial failed while some errored or none was evaluated:
   * errors are not failures, so such a run is incomplete, never a pass nor a failure of the tool.
   */
  incomplete: boolean;
}

export function judgeRun(report: Pick<Report, "summary" | "run">): JudgedRun {
  const s = report.summary;
  const incomplete = report.run.incomplete || (s.failed === 0 && s.outcome !== "pass");
  return { outcome: s.failed > 0 ? "fail" : incomplete ? "incomplete" : "pass", incomplete };
}
