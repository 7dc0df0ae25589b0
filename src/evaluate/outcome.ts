/**
 * The trial outcome (docs/scenarios.md "Outcome") and the optional composite score.
 * - error: the trial could not be evaluated (infrastructure error, cancelled run, judge call failed
 *   or judge enabled without a verdict). Errors are reported apart and excluded from pass rates.
 * - fail: a gate failed or the judge scored below its threshold; the reason lists each cause.
 * - pass: everything else. Interaction metrics never change the outcome.
 * Gates and judge decide, as the seed's outcome rule says: an agent that crashed, hit the turn limit
 * or ran out of time is still judged by what it left. Completion is a metric (`completed: false`);
 * a failing trial's reason names the crash or the limit, and a crashed agent that passes keeps the
 * crash in its reason so it is seen beside the pass.
 */
import type { GateResult, InteractionMetrics, Outcome } from "../results/types.js";
import type { CompositeWeights } from "../scenario/types.js";
import type { EndReason } from "../transcript/events.js";
import type { JudgeVerdict } from "./judge.js";

export interface OutcomeInput {
  endReason: EndReason | null;
  /** The infrastructure error (setup, sandbox, API), when there was one. */
  infraError?: string | null;
  /** The trial_end error for other end reasons (e.g. what crashed the agent). */
  endError?: string | null;
  gates: readonly GateResult[];
  judge: JudgeVerdict | null;
  judgeEnabled: boolean;
}

const LISTED_GATES = 3;
const MESSAGE_CHARS = 160;

export function decideOutcome(input: OutcomeInput): { outcome: Outcome; reason: string | null } {
  if (input.endReason === "infra_error" || input.infraError) {
    return {
      outcome: "error",
      reason: `infrastructure error: ${input.infraError || input.endError || "unknown"}`,
    };
  }
  if (input.endReason === "cancelled") {
    return {
      outcome: "error",
      reason: `cancelled before the trial finished${input.endError ? `: ${input.endError}` : ""}`,
    };
  }
  if (input.judgeEnabled) {
    if (input.judge === null) return { outcome: "error", reason: "the judge is enabled but gave no verdict" };
    if (!input.judge.ok) return { outcome: "error", reason: input.judge.error };
  }

  const causes: string[] = [];
  const failed = input.gates.filter((gate) => !gate.passed);
  if (failed.length > 0) {
    const listed = failed
      .slice(0, LISTED_GATES)
      .map((gate) => `${labelGate(gate)} (${truncate(gate.message, MESSAGE_CHARS)})`)
      .join("; ");
    const more = failed.length > LISTED_GATES ? `; and ${failed.length - LISTED_GATES} more` : "";
    causes.push(`${failed.length} of ${input.gates.length} gates failed: ${listed}${more}`);
  }
  if (input.judgeEnabled && input.judge?.ok && !input.judge.passed) {
    causes.push(
      `judge score ${formatScore(input.judge.response.weighted_score)} is below the threshold ${formatScore(input.judge.threshold)}`,
    );
  }
  const crash =
    input.endReason === "agent_crash"
      ? `crashed${input.endError ? `: ${truncate(input.endError, MESSAGE_CHARS)}` : ""}`
      : null;
  if (causes.length === 0) {
    return { outcome: "pass", reason: crash ? `passed, but the agent did not complete: it ${crash}` : null };
  }
  if (crash) causes.push(`the agent ${crash}`);
  else if (input.endReason === "turn_limit") causes.push("the agent stopped at the turn limit");
  else if (input.endReason === "timeout") causes.push("the trial timed out");
  return { outcome: "fail", reason: causes.join("; ") };
}

/**
 * The composite score, only when the scenario defines weights. Components, each in 0..1:
 * - gates: score / max_score (absent when there are no gate weights);
 * - judge: the judge's weighted score (absent without a verdict);
 * - interaction: the mean of the available of 1 − error_rate, 1 − retry_rate,
 *   first_try_success_rate and iteration_ratio (absent when the agent never ran the target).
 * Weights are renormalised over the components present; null when none is present.
 */
export function computeComposite(
  weights: CompositeWeights | undefined,
  parts: { gateScore: number; gateMax: number; judgeScore: number | null; interaction: InteractionMetrics },
): number | null {
  if (!weights) return null;
  const components: [number, number | null][] = [
    [weights.gateWeight, parts.gateMax > 0 ? parts.gateScore / parts.gateMax : null],
    [weights.judgeWeight, parts.judgeScore],
    [weights.interactionWeight, computeInteractionScore(parts.interaction)],
  ];
  let weighted = 0;
  let total = 0;
  for (const [weight, value] of components) {
    if (value === null || weight <= 0) continue;
    weighted += weight * value;
    total += weight;
  }
  return total > 0 ? Math.round((weighted / total) * 1e9) / 1e9 : null;
}

/** The interaction component of the composite (see computeComposite); null when nothing to rate. */
export function computeInteractionScore(metrics: InteractionMetrics): number | null {
  const values = [
    metrics.error_rate === null ? null : 1 - metrics.error_rate,
    metrics.retry_rate === null ? null : 1 - metrics.retry_rate,
    metrics.first_try_success_rate,
    metrics.iteration_ratio,
  ].filter((value): value is number => value !== null);
  if (values.length === 0) return null;
  return values.reduce((sum, value) => sum + value, 0) / values.length;
}

function labelGate(gate: GateResult): string {
  return gate.description ? `${gate.gate_type} "${truncate(gate.description, 80)}"` : gate.gate_type;
}

function formatScore(value: number): string {
  return String(Math.round(value * 1000) / 1000);
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}
