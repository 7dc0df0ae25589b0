/**
 * The action's side of the decide stage (compare/decide-run.ts): the policy its inputs set, and the
 * check's status from the decision, which the comment and the summary rendered too.
 */
import type { DecisionPolicy } from "../compare/decide-run.js";
import type { Decision } from "../compare/decision.js";
import { renderDecisionReason } from "../render/decision.js";
import type { BaselineNote } from "../render/pr-comment.js";
import type { Report } from "../results/types.js";
import type { ActionRun } from "./action-run.js";
import type { ActionSettings } from "./inputs.js";
import type { ActionOutputs } from "./outputs.js";

/** What happened, for tests and logs; the runner sees the outputs and the exit status. */
export interface ActionResult {
  status: "passed" | "failed" | "skipped" | "config_error" | "crashed";
  outputs: ActionOutputs | null;
  message: string | null;
}

/** `fail-on`, `gate-metrics`, `tolerance-gates` and `alpha`, and how the comparison names the two reports. */
export function decisionPolicyOf(settings: ActionSettings): DecisionPolicy {
  return {
    failOn: settings.failOn,
    gateMetrics: settings.gateMetrics,
    toleranceGates: settings.toleranceGates,
    compareOptions: {
      alpha: settings.alpha,
      sources: { base: "the baseline report", head: "this run's report" },
    },
  };
}

/** The check's status: failed exactly when the decision fails, with its reason in the log either way. */
export function exitFromDecision(
  { deps, log, redact }: ActionRun,
  {
    decision,
    report,
    baseline,
    outputs,
  }: {
    decision: Decision;
    report: Report;
    baseline: BaselineNote;
    outputs: ActionOutputs;
  },
): ActionResult {
  const reason = renderDecisionReason(decision, {
    summary: report.summary,
    ...(baseline.status === "missing" ? { noBaselineReason: baseline.reason } : {}),
  });
  if (decision.failed) {
    const message = redact(`llm-tool-test: ${reason} See the job summary and the report artifact.`);
    deps.core.setFailed(message);
    return { status: "failed", outputs, message };
  }
  log.info(redact(`llm-tool-test: ${reason}`));
  return { status: "passed", outputs, message: null };
}
