/**
 * What an external agent's trial says about the requests its credential proxy refused: each one a
 * model error in the events, and the request cap's message in how the trial ended.
 */
import type { ProxyRefusal } from "./credential-proxy.js";
import type { AgentOutcome } from "./types.js";

/** A refused API request as the trial's events show it: a model error that will not be retried. */
export function refusalEvent(refusal: ProxyRefusal, turns: number) {
  return {
    type: "model_error" as const,
    turn: turns + 1,
    attempt: 1,
    status: 403,
    message: refusal.message,
    will_retry: false,
    retry_after_ms: null,
  };
}

/** A trial that ran into the request cap ends saying so, whatever the CLI made of the 403. */
export function withCapNote(outcome: AgentOutcome, refusals: readonly ProxyRefusal[]): AgentOutcome {
  const cap = refusals.find((refusal) => refusal.reason === "request_cap");
  if (!cap) return outcome;
  return { ...outcome, error: outcome.error ? `${cap.message}; ${outcome.error}` : cap.message };
}
