/**
 * Running commands: the only module that imports `execa`.
 *
 * Every process is spawned detached (leader of its own process group). A timeout or an abort
 * kills the whole group (SIGTERM, then SIGKILL after a short grace): killing only bash would leave
 * a `sleep` child holding the output pipe open. Output is capped while it streams (head and tail
 * kept, the middle dropped), so 50 MB of output never sits in memory. Once the process exits we
 * wait only a short grace for its pipes to close: a background child (`sleep 100 &`) may hold
 * them open forever; it stays alive (tracked) until the trial ends.
 */
import { constants as osConstants } from "node:os";
import { StringDecoder } from "node:string_decoder";
import { execa } from "execa";
import { InfraError } from "../errors.js";
import type { ExecOptions, ExecResult, ProcessGroupRegistry, ProcessOptions } from "./types.js";

/** Between SIGTERM and SIGKILL when a group is killed. */
const KILL_GRACE_MS = 500;
/** How long to keep reading a process's pipes after it exited. */
const PIPE_CLOSE_GRACE_MS = 200;
export const TIMEOUT_EXIT_CODE = 124;
const MAX_TIMER_MS = 2 ** 31 - 1;

export function createProcessGroupRegistry(): ProcessGroupRegistry {
  const groups = new Set<number>();
  return {
    track: (pgid) => void groups.add(pgid),
    untrack: (pgid) => void groups.delete(pgid),
    list: () => [...groups],
  };
}

/** Every group spawned by this process; killed on process exit as a last resort. */
const processWideGroups = createProcessGroupRegistry();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once("exit", () => {
    for (const pgid of processWideGroups.list()) signalGroup(pgid, "SIGKILL");
  });
}

/** Run `bash -c command` (see runProcess). */
export function runShell(options: ExecOptions): Promise<ExecResult> {
  return runProcess({
    file: options.shell ?? "bash",
    args: ["-c", options.command],
    cwd: options.cwd,
    env: options.env,
    timeoutMs: options.timeoutMs,
    outputCapBytes: options.outputCapBytes,
    ...(options.stdin !== undefined ? { stdin: options.stdin } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.processGroups ? { processGroups: options.processGroups } : {}),
  });
}

/**
 * Run a process with exactly `env`, in its own process group. Exit code: the process's; 124 on
 * timeout; 128+n when killed by signal n. Throws InfraError only when the process cannot start
 * (missing binary or cwd).
 */
export async function runProcess(options: ProcessOptions): Promise<ExecResult> {
  const started = performance.now();
  const stdout = createOutputCollector(options.outputCapBytes);
  const stderr = createOutputCollector(options.outputCapBytes);
  const lines = options.onStdoutLine ? createLineSplitter(options.onStdoutLine) : null;

  const subprocess = execa(options.file, options.args, {
    cwd: options.cwd,
    env: options.env,
    extendEnv: false,
    detached: true,
    cleanup: false,
    buffer: false,
    reject: false,
    stripFinalNewline: false,
    windowsHide: true,
    ...(options.stdin !== undefined ? { input: options.stdin } : { stdin: "ignore" as const }),
    stdout: "pipe",
    stderr: "pipe",
  });
  // Settles (never rejects, reject: false) once execa is done; used only to detect spawn failures.
  const settled = subprocess.then(
    (result) => result,
    (error: unknown) => error,
  );

  const pid = subprocess.pid;
  if (pid === undefined) {
    const result = await settled;
    const reason = result instanceof Error ? result.message : describeSpawnFailure(result);
    throw new InfraError(`could not start "${options.file}" in ${options.cwd}: ${reason}`);
  }
  installExitHook();
  pruneEmptyGroups(processWideGroups);
  processWideGroups.track(pid);
  options.processGroups?.track(pid);

  const stdoutEnded = streamInto(subprocess.stdout, (chunk) => {
    stdout.push(chunk);
    lines?.push(chunk);
  });
  const stderrEnded = streamInto(subprocess.stderr, (chunk) => stderr.push(chunk));

  let timedOut = false;
  let killTimer: NodeJS.Timeout | undefined;
  const killTree = () => {
    if (killTimer) return;
    signalGroup(pid, "SIGTERM");
    killTimer = setTimeout(() => signalGroup(pid, "SIGKILL"), KILL_GRACE_MS);
  };
  // setTimeout fires at once for delays beyond 2^31-1 ms; treat those (and Infinity) as no limit.
  const timeout =
    options.timeoutMs > 0 && options.timeoutMs <= MAX_TIMER_MS
      ? setTimeout(() => {
          timedOut = true;
          killTree();
        }, options.timeoutMs)
      : undefined;
  const onAbort = () => killTree();
  if (options.signal?.aborted) killTree();
  options.signal?.addEventListener("abort", onAbort, { once: true });

  const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    subprocess.once("exit", (code, signal) => resolve({ code, signal }));
  });
  clearTimeout(timeout);
  options.signal?.removeEventListener("abort", onAbort);

  // Read what is left in the pipes, but do not wait for a background child to close them.
  const pipesClosed = Promise.all([stdoutEnded, stderrEnded]);
  const grace = new Promise<void>((resolve) => setTimeout(resolve, PIPE_CLOSE_GRACE_MS).unref());
  await Promise.race([pipesClosed, grace]);
  subprocess.stdout?.destroy();
  subprocess.stderr?.destroy();
  void settled;

  // A kill in flight must still finish off stubborn members; otherwise forget an empty group.
  if (!killTimer && !isGroupAlive(pid)) {
    processWideGroups.untrack(pid);
    options.processGroups?.untrack(pid);
  }
  lines?.end();

  const out = stdout.finish();
  const err = stderr.finish();
  const exitCode = timedOut
    ? TIMEOUT_EXIT_CODE
    : exit.code !== null
      ? exit.code
      : 128 + (exit.signal ? (osConstants.signals[exit.signal] ?? 0) : 0);
  const lineError = lines?.error();
  if (lineError !== undefined) throw lineError;
  return {
    stdout: out.text,
    stderr: err.text,
    exit_code: exitCode,
    duration_ms: Math.round(performance.now() - started),
    timed_out: timedOut,
    truncated: out.truncated || err.truncated,
  };
}

/**
 * End every tracked process group (SIGTERM, then SIGKILL after a short grace) and forget them.
 * Without a registry: every group this process spawned.
 */
export async function killAllProcessGroups(
  registry: ProcessGroupRegistry = processWideGroups,
): Promise<void> {
  const groups = registry.list().filter((pgid) => isGroupAlive(pgid));
  for (const pgid of groups) signalGroup(pgid, "SIGTERM");
  if (groups.some((pgid) => isGroupAlive(pgid))) {
    await new Promise((resolve) => setTimeout(resolve, KILL_GRACE_MS));
    for (const pgid of groups) signalGroup(pgid, "SIGKILL");
  }
  for (const pgid of registry.list()) {
    registry.untrack(pgid);
    if (registry !== processWideGroups) processWideGroups.untrack(pgid);
  }
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
}

function isGroupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Forget groups with no members left, so a recycled id is never signalled later. */
function pruneEmptyGroups(registry: ProcessGroupRegistry): void {
  for (const pgid of registry.list()) if (!isGroupAlive(pgid)) registry.untrack(pgid);
}

function streamInto(
  stream: NodeJS.ReadableStream | null | undefined,
  onChunk: (chunk: Buffer) => void,
): Promise<void> {
  if (!stream) return Promise.resolve();
  return new Promise((resolve) => {
    stream.on("data", (chunk: Buffer | string) =>
      onChunk(typeof chunk === "string" ? Buffer.from(chunk) : chunk),
    );
    stream.once("end", () => resolve());
    stream.once("close", () => resolve());
    stream.once("error", () => resolve());
  });
}

function describeSpawnFailure(result: unknown): string {
  if (result && typeof result === "object") {
    const record = result as { message?: unknown; code?: unknown };
    if (typeof record.message === "string") return record.message;
    if (typeof record.code === "string") return record.code;
  }
  return "unknown error";
}

export interface CappedOutput {
  text: string;
  truncated: boolean;
  /** Bytes dropped from the middle. */
  droppedBytes: number;
}

/**
 * Keeps the first half and the last half of `capBytes` of a byte stream, counting what falls in
 * between; memory stays within capBytes plus one chunk.
 */
export function createOutputCollector(capBytes: number): {
  push(chunk: Buffer): void;
  finish(): CappedOutput;
} {
  const headCap = Math.max(0, Math.floor(capBytes / 2));
  const tailCap = Math.max(0, capBytes - headCap);
  const head: Buffer[] = [];
  let headBytes = 0;
  const tail: Buffer[] = [];
  let tailBytes = 0;
  let dropped = 0;

  return {
    push(chunk) {
      let rest = chunk;
      if (headBytes < headCap) {
        const take = Math.min(headCap - headBytes, rest.length);
        head.push(rest.subarray(0, take));
        headBytes += take;
        rest = rest.subarray(take);
      }
      if (rest.length === 0) return;
      // Copy: a subarray would keep the whole (possibly large) chunk alive.
      tail.push(Buffer.from(rest));
      tailBytes += rest.length;
      while (tail.length > 1 && tailBytes - tail[0]!.length >= tailCap) {
        const first = tail.shift()!;
        tailBytes -= first.length;
        dropped += first.length;
      }
    },
    finish() {
      const headBuffer = Buffer.concat(head);
      let tailBuffer = Buffer.concat(tail);
      if (tailBuffer.length > tailCap) {
        dropped += tailBuffer.length - tailCap;
        tailBuffer = tailBuffer.subarray(tailBuffer.length - tailCap);
      }
      if (dropped === 0) {
        return {
          text: decodeUtf8(Buffer.concat([headBuffer, tailBuffer])),
          truncated: false,
          droppedBytes: 0,
        };
      }
      // Cut on character boundaries so no multi-byte character is split.
      const headEnd = findUtf8BoundaryBefore(headBuffer, headBuffer.length);
      const tailStart = findUtf8BoundaryAfter(tailBuffer, 0);
      const totalDropped = dropped + (headBuffer.length - headEnd) + tailStart;
      const text =
        decodeUtf8(headBuffer.subarray(0, headEnd)) +
        `\n[... ${formatBytes(totalDropped)} cut by llm-tool-test ...]\n` +
        decodeUtf8(tailBuffer.subarray(tailStart));
      return { text, truncated: true, droppedBytes: totalDropped };
    },
  };
}

function decodeUtf8(buffer: Buffer): string {
  return new TextDecoder("utf-8", { fatal: false }).decode(buffer);
}

function isContinuationByte(byte: number | undefined): boolean {
  return byte !== undefined && (byte & 0xc0) === 0x80;
}

/** Largest index <= end that does not split a UTF-8 sequence. */
function findUtf8BoundaryBefore(buffer: Buffer, end: number): number {
  let index = end;
  // Step back over at most 3 continuation bytes to the lead byte.
  let back = 0;
  while (back < 3 && index - back - 1 >= 0 && isContinuationByte(buffer[index - back - 1])) back += 1;
  const leadIndex = index - back - 1;
  if (leadIndex < 0) return index;
  const lead = buffer[leadIndex]!;
  const length = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  if (length > back + 1) index = leadIndex;
  return index;
}

/** Smallest index >= start at a character start (skips at most 3 continuation bytes). */
function findUtf8BoundaryAfter(buffer: Buffer, start: number): number {
  let index = start;
  while (index < start + 3 && index < buffer.length && isContinuationByte(buffer[index])) index += 1;
  return index;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  if (bytes < 1024 * 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
  return `${(bytes / (1024 * 1024 * 1024)).toFixed(1)} GB`;
}

function createLineSplitter(onLine: (line: string) => void): {
  push(chunk: Buffer): void;
  end(): void;
  error(): unknown;
} {
  const decoder = new StringDecoder("utf8");
  let pending = "";
  let failure: unknown;
  let failed = false;
  const emit = (line: string) => {
    if (failed) return;
    try {
      onLine(line.endsWith("\r") ? line.slice(0, -1) : line);
    } catch (error) {
      failed = true;
      failure = error;
    }
  };
  const split = (text: string) => {
    pending += text;
    let start = 0;
    let newline = pending.indexOf("\n");
    while (newline !== -1) {
      emit(pending.slice(start, newline));
      start = newline + 1;
      newline = pending.indexOf("\n", start);
    }
    pending = pending.slice(start);
  };
  return {
    push: (chunk) => split(decoder.write(chunk)),
    end() {
      split(decoder.end());
      if (pending.length > 0) emit(pending);
      pending = "";
    },
    error: () => (failed ? failure : undefined),
  };
}
