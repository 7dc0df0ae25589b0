/**
 * The exit status of a run, as the CLI ends with it and a library caller can: from the decision
 * when one governs (a baseline, or an explicit fail-on), else from the report's own result.
 */
import { judgeRun } from "../results/run-outcome.js";
import type { Report } from "../results/types.js";
import type { Decision } from "./decision.js";

/** 0 all passed, 1 a scenario failed (or the decision fails), 3 infrastructure errors left the result incomplete. */
export const EXIT_CODES = { ok: 0, failed: 1, incomplete: 3 } as const;

export type ExitCode = (typeof EXIT_CODES)[keyof typeof EXIT_CODES];

/** Without a decision: 1 when a trial failed, 3 when errors or an interruption left the result incomplete, else 0. */
export function exitCodeForReport(report: Report): ExitCode {
  const { outcome, incomplete } = judgeRun(report);
  if (outcome === "fail") return EXIT_CODES.failed;
  return incomplete ? EXIT_CODES.incomplete : EXIT_CODES.ok;
}

/** Under a decision (a baseline, or an explicit fail-on): 1 exactly when it fails, 3 when the run was incomplete. */
export function exitCodeForDecision(decision: Decision): ExitCode {
  if (decision.failed) return EXIT_CODES.failed;
  if (decision.incomplete) return EXIT_CODES.incomplete;
  return EXIT_CODES.ok;
}
