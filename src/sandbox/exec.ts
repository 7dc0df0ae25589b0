/**
 * Running commands. The processes themselves are spawned by process runners, small helper
 * processes (process-runner.js, which spawns with execa): a spawn from the harness's own large process stalls its event
 * loop, and with it every other trial. This module keeps the rest: timeouts, aborts, killing and
 * the process-group bookkeeping.
 *
 * Every process is spawned detached (leader of its own process group). A timeout or an abort
 * kills the whole group (SIGTERM, then SIGKILL after a short grace): killing only bash would leave
 * a `sleep` child holding the output pipe open. Output is capped while it streams (head and tail
 * kept, the middle dropped), so 50 MB of output never sits in memory; stdout streamed to a line
 * callback is capped the same way (its first streamCapBytes streamed, then a cut, then its tail).
 * Once the process exits the runner waits only a short grace for its pipes to close: a background
 * child (`sleep 100 &`) may hold them open forever; it stays alive (tracked) until the trial ends.
 */
import { type ChildProcess, type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { availableParallelism, constants as osConstants } from "node:os";
import path from "node:path";
import { StringDecoder } from "node:string_decoder";
import { fileURLToPath } from "node:url";
import { InfraError } from "../errors.js";
import {
  KILL_GRACE_MS,
  type KillRequest,
  PROCESS_RUNNER_ARG,
  type RunnerMessage,
  type RunRequest,
  signalGroup,
} from "./process-runner-protocol.js";
import type {
  DedicatedProcessRunner,
  ExecOptions,
  ExecResult,
  ProcessGroupRegistry,
  ProcessOptions,
} from "./types.js";

export const TIMEOUT_EXIT_CODE = 124;

export function createProcessGroupRegistry(): ProcessGroupRegistry {
  const groups = new Set<number>();
  return {
    track: (pgid) => void groups.add(pgid),
    untrack: (pgid) => void groups.delete(pgid),
    list: () => [...groups],
  };
}

/** Groups left behind by finished runs (background children); killed on process exit as a last resort. */
const processWideGroups = createProcessGroupRegistry();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once("exit", () => {
    for (const pgid of processWideGroups.list()) signalGroup(pgid, "SIGKILL");
  });
}

interface RunHandlers {
  onMessage(message: RunnerMessage): void;
  onRunnerLost(reason: string): void;
}

/** Runners at most: spawns are spread over them (two at least, so one slow spawn never holds up
 * every other; beyond the cores more would only contend). */
const MAX_RUNNERS = Math.max(2, Math.min(4, availableParallelism()));

/**
 * Where the runner is, relative to this module: built with execa into a folder of its own next to
 * lib/sandbox/exec.js and the action's dist/index.js (scripts/bundle-runner.mjs); from src/ Node
 * runs the file next to this one as it is. (Joined at run time: the bundler would otherwise copy
 * or rewrite the file it can see.)
 */
const RUNNER_LOCATIONS = ["process-runner/index.js", "process-runner.js"];

function runnerScriptPath(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const candidates = RUNNER_LOCATIONS.map((location) => path.join(here, location));
  return candidates.find((candidate) => existsSync(candidate)) ?? (candidates.at(-1) as string);
}

/**
 * The process runners, started on first use, each kept busy by the runs in flight on it (and
 * holding the harness open only while it has some). A runner that dies fails its runs with an
 * infrastructure error; the next run starts a new one. Runners get an empty environment: every
 * run brings its own, and no secret of the harness's needs to be in theirs.
 */
interface Runner {
  child: ChildProcess;
  inFlight: Map<number, RunHandlers>;
  /** Why it is gone, once it is: its runs fail, and a dedicated runner's later runs too. */
  lostReason: string | null;
}

/** The shared runners; dedicated ones are their owners' (startDedicatedProcessRunner). */
const sharedRunners: Runner[] = [];
/** The runner behind each dedicated handle. */
const dedicatedRunners = new WeakMap<DedicatedProcessRunner, Runner>();
let nextRunId = 1;

function holdHarness(runner: Runner, held: boolean): void {
  const channel = runner.child.channel as { ref(): void; unref(): void } | undefined;
  if (held) {
    runner.child.ref();
    channel?.ref();
  } else {
    runner.child.unref();
    channel?.unref();
  }
}

function loseRunner(runner: Runner, reason: string): void {
  if (runner.lostReason !== null) return;
  runner.lostReason = reason;
  const index = sharedRunners.indexOf(runner);
  if (index !== -1) sharedRunners.splice(index, 1);
  const handlers = [...runner.inFlight.values()];
  runner.inFlight.clear();
  for (const handler of handlers) handler.onRunnerLost(reason);
}

function startRunner(): Runner {
  const child = spawn(process.execPath, [runnerScriptPath(), PROCESS_RUNNER_ARG], {
    env: {},
    stdio: ["ignore", "ignore", "inherit", "ipc"],
    serialization: "advanced",
    windowsHide: true,
  });
  const runner: Runner = { child, inFlight: new Map(), lostReason: null };
  holdHarness(runner, false);
  child.on("message", (message: RunnerMessage) => {
    const handlers = runner.inFlight.get(message.id);
    if (!handlers) return;
    if (message.type === "finished" || message.type === "spawn_failed") {
      runner.inFlight.delete(message.id);
      if (runner.inFlight.size === 0) holdHarness(runner, false);
    }
    handlers.onMessage(message);
  });
  child.on("error", (error) => loseRunner(runner, `the process runner failed: ${error.message}`));
  child.on("exit", (code, signal) =>
    loseRunner(runner, `the process runner exited (${signal ?? `code ${code}`})`),
  );
  return runner;
}

function startSharedRunner(): Runner {
  const runner = startRunner();
  sharedRunners.push(runner);
  return runner;
}

/** The least busy shared runner; a new one while there is room and every runner is busy. */
function pickSharedRunner(): Runner {
  // A runner can be dead before its exit is reported (killed along with others, say).
  for (const runner of [...sharedRunners]) {
    if (!runner.child.connected) loseRunner(runner, "the process runner lost its channel");
  }
  let best: Runner | undefined;
  for (const runner of sharedRunners) if (!best || runner.inFlight.size < best.inFlight.size) best = runner;
  if (!best || (best.inFlight.size > 0 && sharedRunners.length < MAX_RUNNERS)) return startSharedRunner();
  return best;
}

/** Starts a run on `runner`; the returned function asks the runner to kill it. */
function startRun(
  runner: Runner,
  request: Omit<RunRequest, "id" | "type">,
  handlers: RunHandlers,
): () => void {
  if (runner.lostReason !== null) {
    handlers.onRunnerLost(runner.lostReason);
    return () => undefined;
  }
  const id = nextRunId++;
  runner.inFlight.set(id, handlers);
  holdHarness(runner, true);
  const unreachable = (error: Error) =>
    loseRunner(runner, `the process runner cannot be reached: ${error.message}`);
  const send = (message: RunRequest | KillRequest) => {
    try {
      runner.child.send(message, (error) => error && unreachable(error));
    } catch (error) {
      // The channel is already closed (the runner never started, or just died).
      unreachable(error as Error);
    }
  };
  send({ ...request, type: "run", id });
  return () => {
    if (runner.inFlight.has(id)) send({ type: "kill", id });
  };
}

/** A new dedicated runner (a Node start-up: kept and reused by its owner). */
export function startDedicatedProcessRunner(): DedicatedProcessRunner {
  const runner = startRunner();
  const { pid } = runner.child;
  if (pid === undefined) throw new InfraError("could not start a process runner");
  const handle: DedicatedProcessRunner = {
    pid,
    get alive() {
      return runner.lostReason === null && runner.child.connected;
    },
    close() {
      runner.child.kill("SIGKILL");
      loseRunner(runner, "its process runner was closed");
    },
  };
  dedicatedRunners.set(handle, runner);
  return handle;
}

/**
 * Start the process runners now, so that a run's first commands do not wait for them (a Node
 * start-up each). Idle runners do not keep the process alive.
 */
export function warmProcessRunners(): void {
  while (sharedRunners.length < MAX_RUNNERS) startSharedRunner();
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
  if (!options.place) return startProcess(options, undefined);
  const { file, args, runner } = await options.place(options.file, options.args);
  return startProcess({ ...options, file, args }, runner);
}

function startProcess(
  options: ProcessOptions,
  runner: DedicatedProcessRunner | undefined,
): Promise<ExecResult> {
  const started = performance.now();
  const lines = options.onStdoutLine
    ? createLineSplitter(options.onStdoutLine, options.onStdoutCut ?? describeCutAsLine(options.onStdoutLine))
    : null;
  return new Promise<ExecResult>((resolve, reject) => {
    const onAbort = () => kill();
    const kill = startRun(
      (runner && dedicatedRunners.get(runner)) ?? pickSharedRunner(),
      {
        file: options.file,
        args: options.args,
        cwd: options.cwd,
        env: options.env,
        ...(options.stdin !== undefined ? { stdin: options.stdin } : {}),
        outputCapBytes: options.outputCapBytes,
        timeoutMs: options.timeoutMs,
        streamStdout: lines !== null,
        streamCapBytes: options.streamCapBytes ?? options.outputCapBytes,
      },
      {
        onMessage(message) {
          switch (message.type) {
            case "stdout":
              lines?.push(message.chunk);
              return;
            case "spawn_failed":
              options.signal?.removeEventListener("abort", onAbort);
              reject(
                new InfraError(`could not start "${options.file}" in ${options.cwd}: ${message.reason}`),
              );
              return;
            case "finished": {
              options.signal?.removeEventListener("abort", onAbort);
              if (message.leftover) {
                installExitHook();
                pruneEmptyGroups(processWideGroups);
                processWideGroups.track(message.pid);
                options.processGroups?.track(message.pid);
              }
              if (message.streamRest) lines?.finishAfterCut(message.streamRest);
              lines?.end();
              const lineError = lines?.error();
              if (lineError !== undefined) reject(lineError);
              else resolve(toExecResult(message, performance.now() - started));
              return;
            }
          }
        },
        onRunnerLost(reason) {
          options.signal?.removeEventListener("abort", onAbort);
          reject(new InfraError(`running "${options.file}" failed: ${reason}`));
        },
      },
    );
    if (options.signal?.aborted) kill();
    else options.signal?.addEventListener("abort", onAbort, { once: true });
  });
}

function toExecResult(finished: Extract<RunnerMessage, { type: "finished" }>, elapsedMs: number): ExecResult {
  const exitCode = finished.timedOut
    ? TIMEOUT_EXIT_CODE
    : finished.code !== null
      ? finished.code
      : 128 + (finished.signal ? (osConstants.signals[finished.signal] ?? 0) : 0);
  return {
    stdout: finished.stdout.text,
    stderr: finished.stderr.text,
    exit_code: exitCode,
    duration_ms: Math.round(elapsedMs),
    timed_out: finished.timedOut,
    truncated:
      finished.stdout.truncated ||
      finished.stderr.truncated ||
      (finished.streamRest !== undefined && finished.streamRest.droppedBytes > 0),
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

function isGroupAlive(pgid: number): boolean {
  return signalGroup(pgid, 0);
}

/** Forget groups with no members left, so a recycled id is never signalled later. */
function pruneEmptyGroups(registry: ProcessGroupRegistry): void {
  for (const pgid of registry.list()) if (!isGroupAlive(pgid)) registry.untrack(pgid);
}

/** Without a cut callback: the cut shows as a line of its own. */
function describeCutAsLine(onLine: (line: string) => void): (droppedBytes: number) => void {
  return (droppedBytes) => onLine(describeStreamCut(droppedBytes));
}

/**
 * A long-lived helper whose stdin, stdout and stderr the caller drives, started in `/` (the
 * private temp folders' namespace holder: it answers on stdout and lives until stdin closes).
 */
export function startHeldProcess(
  file: string,
  args: string[],
  env: Record<string, string>,
): ChildProcessWithoutNullStreams {
  return spawn(file, args, { cwd: "/", env, stdio: ["pipe", "pipe", "pipe"] });
}

export function describeStreamCut(droppedBytes: number): string {
  return `[... ${(droppedBytes / (1024 * 1024)).toFixed(1)} MB of output cut by llm-tool-test: head and tail kept ...]`;
}

/**
 * Splits streamed bytes into lines. Linear in the output: a long line is kept as parts and joined
 * once (appending to one string and searching it from the start on every chunk is quadratic).
 */
function createLineSplitter(
  onLine: (line: string) => void,
  onCut: (droppedBytes: number) => void,
): {
  push(chunk: Uint8Array): void;
  finishAfterCut(rest: { droppedBytes: number; tail: Uint8Array }): void;
  end(): void;
  error(): unknown;
} {
  let decoder = new StringDecoder("utf8");
  let pending: string[] = [];
  let failure: unknown;
  let failed = false;
  const guard = (call: () => void) => {
    if (failed) return;
    try {
      call();
    } catch (error) {
      failed = true;
      failure = error;
    }
  };
  const emit = (line: string) => guard(() => onLine(line.endsWith("\r") ? line.slice(0, -1) : line));
  const split = (text: string) => {
    let start = 0;
    let newline = text.indexOf("\n");
    while (newline !== -1) {
      const piece = text.slice(start, newline);
      // Most lines end in the chunk they started in: no parts to join.
      if (pending.length === 0) emit(piece);
      else {
        pending.push(piece);
        emit(pending.join(""));
        pending = [];
      }
      start = newline + 1;
      newline = text.indexOf("\n", start);
    }
    if (start < text.length) pending.push(text.slice(start));
  };
  const flush = () => {
    split(decoder.end());
    if (pending.length > 0) emit(pending.join(""));
    pending = [];
  };
  return {
    push: (chunk) => split(decoder.write(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength))),
    finishAfterCut(rest) {
      if (rest.droppedBytes > 0) {
        // The head's last line ends at the cut; the tail starts afresh.
        flush();
        decoder = new StringDecoder("utf8");
        guard(() => onCut(rest.droppedBytes));
      }
      split(decoder.write(Buffer.from(rest.tail.buffer, rest.tail.byteOffset, rest.tail.byteLength)));
    },
    end: flush,
    error: () => (failed ? failure : undefined),
  };
}
