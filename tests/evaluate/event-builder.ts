/** Builds trial event arrays for tests: stamps ts/t_ms and pairs tool calls with their results. */
import type { EndReason, EventInput, TokenUsage, TrialEvent } from "../../src/transcript/events.js";

export function createEventLog() {
  const events: TrialEvent[] = [];
  let tMs = 0;
  let callId = 0;
  const push = (event: EventInput): void => {
    tMs += 10;
    events.push({
      ...event,
      ts: new Date(Date.UTC(2026, 0, 1, 0, 0, 0, tMs)).toISOString(),
      t_ms: tMs,
    } as TrialEvent);
  };
  return {
    events,
    push,
    /** One bash call with its result. */
    call(command: string, exitCode = 0, output: { stdout?: string; stderr?: string; turn?: number } = {}) {
      callId += 1;
      const id = `call_${callId}`;
      push({ type: "tool_call", call_id: id, turn: output.turn ?? 1, command });
      push({
        type: "tool_result",
        call_id: id,
        stdout: output.stdout ?? "",
        stderr: output.stderr ?? "",
        exit_code: exitCode,
        duration_ms: 5,
        truncated: false,
        timed_out: false,
      });
    },
    shim(argv: string[], exitCode = 0, durationMs = 3) {
      push({
        type: "target_invocation",
        argv,
        exit_code: exitCode,
        duration_ms: durationMs,
        cwd: null,
        started_at_ms: 0,
      });
    },
    response(turn: number, usage: Partial<TokenUsage> = {}, extra: { cost_usd?: number } = {}) {
      push({
        type: "model_response",
        turn,
        stop_reason: "end_turn",
        usage: { input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0, ...usage },
        text: "",
        tool_uses: [],
        duration_ms: 100,
        ...extra,
      });
    },
    end(reason: EndReason, durationMs = 1000, turns = 0, error: string | null = null) {
      push({ type: "trial_end", reason, error, turns, duration_ms: durationMs });
    },
  };
}
