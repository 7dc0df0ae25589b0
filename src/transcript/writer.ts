import { close, open as openFile, write, writeSync } from "node:fs";
import type { EventInput, EventSink, TrialEvent } from "./events.js";

export interface EventWriter extends EventSink {
  /** Every event emitted so far, as written (after redaction). */
  readonly events: TrialEvent[];
  /** Resolves when every event emitted so far is in the file; rejects with a failed write. */
  flush(): Promise<void>;
  /** Flushes, then closes the file. */
  close(): Promise<void>;
}

export interface EventWriterOptions {
  /** Epoch ms of the trial's start; `t_ms` counts from it. */
  startedAtMs: number;
  now?: () => number;
  /** Applied to every serialised line, so no secret value reaches the file or the in-memory copy. */
  redact?: (text: string) => string;
}

interface PendingWrites {
  fd: number;
  /** Bytes at their offsets in the file: the write in flight, then the lines not yet handed to one. */
  unwritten(): Array<{ text: string; position: number }>;
}

/**
 * Writers with events not yet in their file. If the process exits before their writes end (an
 * uncaught error, process.exit), the exit hook writes them synchronously at their own offsets, so
 * the file still holds every event up to the exit, in order. One listener for all writers.
 */
const open = new Set<PendingWrites>();
let exitHookInstalled = false;
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once("exit", () => {
    for (const writer of open) {
      for (const { text, position } of writer.unwritten()) {
        try {
          writeSync(writer.fd, text, position, "utf8");
        } catch {
          // Exiting: nothing else can be done with the file.
        }
      }
    }
  });
}

/**
 * Appends each event to `events.jsonl` as it happens, off the event loop: one write in flight at a
 * time, the lines emitted meanwhile batched into the next, each at its own offset (so the order in
 * the file is the order of emission whatever the thread pool does). Keeps the parsed copy for
 * evaluation. The file exists once this resolves (script gates are given its path).
 */
export async function createEventWriter(file: string, options: EventWriterOptions): Promise<EventWriter> {
  const now = options.now ?? Date.now;
  const redact = options.redact ?? ((text: string) => text);
  const fd = await new Promise<number>((resolve, reject) =>
    openFile(file, "w", (error, opened) => (error ? reject(error) : resolve(opened))),
  );
  const events: TrialEvent[] = [];
  let closed = false;
  let position = 0;
  let queued: string[] = [];
  let queuedAt = 0;
  let inFlight: { text: string; position: number } | null = null;
  let failure: Error | null = null;
  let idle: Array<{ resolve: () => void; reject: (error: Error) => void }> = [];

  const pending: PendingWrites = {
    fd,
    unwritten: () => [
      ...(inFlight ? [inFlight] : []),
      ...(queued.length > 0 ? [{ text: queued.join(""), position: queuedAt }] : []),
    ],
  };

  const settle = (): void => {
    if (inFlight || queued.length > 0) return;
    open.delete(pending);
    const waiting = idle;
    idle = [];
    for (const waiter of waiting) failure ? waiter.reject(failure) : waiter.resolve();
  };

  const writeNext = (): void => {
    if (inFlight || queued.length === 0) return;
    const text = queued.join("");
    inFlight = { text, position: queuedAt };
    queued = [];
    write(fd, text, inFlight.position, "utf8", (error) => {
      inFlight = null;
      if (error) {
        // The events stay in memory (and in the report); the failure surfaces at flush/close.
        failure ??= new Error(`could not write the trial's events to ${file}: ${error.message}`);
        queued = [];
      }
      writeNext();
      settle();
    });
  };

  const writer: EventWriter = {
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
      if (closed || failure) return;
      const text = `${line}\n`;
      if (queued.length === 0) queuedAt = position;
      queued.push(text);
      position += Buffer.byteLength(text);
      installExitHook();
      open.add(pending);
      writeNext();
    },
    flush() {
      return new Promise<void>((resolve, reject) => {
        idle.push({ resolve, reject });
        settle();
      });
    },
    async close() {
      if (closed) return;
      closed = true;
      try {
        await writer.flush();
      } finally {
        open.delete(pending);
        await new Promise<void>((resolve) => close(fd, () => resolve()));
      }
    },
  };
  return writer;
}
