/**
 * Events for tests: createEventLog builds a trial's event array as the writer would stamp it
 * (ts, t_ms) and pairs tool calls with their results; createEventRecorder is an EventSink that
 * keeps what it is given.
 */
import type {
  EndReason,
  EventInput,
  EventSink,
  TokenUsage,
  TrialEvent,
} from "../../src/transcript/events.js";

export interface EventClock {
  /** The wall time of t_ms 0. */
  startedAtMs?: number;
  /** The first event's t_ms. */
  firstMs?: number;
  /** The time between two events. */
  stepMs?: number;
}

export function createEventLog({
  startedAtMs = Date.UTC(2026, 0, 1),
  firstMs = 10,
  stepMs = 10,
}: EventClock = {}) {
  const events: TrialEvent[] = [];
  let callId = 0;
  /** When the last tool call started: a shim record made after it ran during it, as a real one would. */
  let lastCallAtMs: number | null = null;
  const push = (event: EventInput): void => {
    const tMs = firstMs + events.length * stepMs;
    events.push({ ...event, ts: new Date(startedAtMs + tMs).toISOString(), t_ms: tMs } as TrialEvent);
  };
  return {
    events,
    push,
    /** One bash call with its result. */
    call(command: string, exitCode = 0, output: { stdout?: string; stderr?: string; turn?: number } = {}) {
      callId += 1;
      const id = `call_${callId}`;
      lastCallAtMs = startedAtMs + firstMs + events.length * stepMs;
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
    /** A shim record; it started during the last tool call (1 ms in), or at 0 before any call. */
    shim(argv: string[], exitCode = 0, durationMs = 3) {
      push({
        type: "target_invocation",
        argv,
        exit_code: exitCode,
        duration_ms: durationMs,
        cwd: null,
        started_at_ms: lastCallAtMs === null ? 0 : lastCallAtMs + 1,
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

/** An EventSink that keeps what it is given. */
export function createEventRecorder(): EventSink & { events: EventInput[] } {
  const events: EventInput[] = [];
  return { events, emit: (event) => void events.push(event) };
}
