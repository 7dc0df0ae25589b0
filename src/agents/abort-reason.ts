import type { EndReason } from "../transcript/events.js";

/** The `signal.reason` with which the harness aborts a trial because the run was cancelled. */
const CANCELLED_REASON = "cancelled";

/**
 * Why an aborted trial ended: the harness aborts with `"cancelled"` when the run is interrupted
 * (SIGINT/SIGTERM, budget); any other reason is the trial's own timeout.
 */
export function classifyAbort(signal: AbortSignal): Extract<EndReason, "timeout" | "cancelled"> {
  return signal.reason === CANCELLED_REASON ? "cancelled" : "timeout";
}
