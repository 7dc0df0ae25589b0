import { closeSync, openSync, writeSync } from "node:fs";
import type { EventInput, EventSink, TrialEvent } from "./events.js";

export interface EventWriter extends EventSink {
  /** Every event emitted so far, as written (after redaction). */
  readonly events: TrialEvent[];
  close(): void;
}

export interface EventWriterOptions {
  /** Epoch ms of the trial's start; `t_ms` counts from it. */
  startedAtMs: number;
  now?: () => number;
  /** Applied to every serialised line, so no secret value reaches the file or the in-memory copy. */
  redact?: (text: string) => string;
}

/**
 * Appends each event to `events.jsonl` as it happens (synchronously, so a killed run still leaves
 * every event up to the kill) and keeps the parsed copy for evaluation.
 */
export function createEventWriter(file: string, options: EventWriterOptions): EventWriter {
  const now = options.now ?? Date.now;
  const redact = options.redact ?? ((text: string) => text);
  const fd = openSync(file, "w");
  const events: TrialEvent[] = [];
  let closed = false;
  return {
    events,
    emit(input: EventInput, happenedAt?: number) {
      const current = now();
      const at =
        happenedAt !== undefined && Number.isFinite(happenedAt) ? Math.min(current, happenedAt) : current;
      // type first, then the stamps, so every line reads the same way.
      const { type, ...rest } = input;
      const stamped = { type, ts: new Date(at).toISOString(), t_ms: at - options.startedAtMs, ...rest };
      const serialized = JSON.stringify(stamped);
      const line = redact(serialized);
      // Parse back only when redaction changed something: the kept copy must match the file.
      events.push(line === serialized ? (stamped as TrialEvent) : (JSON.parse(line) as TrialEvent));
      if (!closed) writeSync(fd, `${line}\n`);
    },
    close() {
      if (closed) return;
      closed = true;
      closeSync(fd);
    },
  };
}
