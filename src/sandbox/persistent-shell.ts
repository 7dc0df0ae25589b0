/**
 * The agent's persistent shell: one `bash` per trial (in bwrap, one sandbox per trial, not per
 * command) in which the working directory, variables (exported or not), functions and aliases
 * survive from one call to the next, as in Anthropic's bash tool.
 *
 * How a call runs. The shell reads its script from a FIFO (`in`) the harness writes. Each call is
 * one line: the command, quoted as data (`$'...'`), is run by `eval` in the shell itself (not in a
 * function or a subshell, so `cd`, `export` and `declare` last) with stdin /dev/null and stdout
 * and stderr opened afresh from the FIFOs `out` and `err`; then the shell writes the call's random
 * nonce and `$?` to the FIFO `status`. The harness reads the three FIFOs as the output comes
 * (capped like any command's: head and tail kept), and the call is over when its status line
 * arrives: everything the command wrote was in the pipes before that line, and is drained then.
 *
 * Framing the agent cannot forge with output: the status never travels in stdout or stderr, so
 * nothing a command prints (a fake status line, a fake nonce) counts; a status line counts only
 * with the call's own nonce, 128 random bits made for it and written to the shell's input after
 * the command's own text, so a line written during the command (by the command, or something it
 * left running) with an earlier or guessed nonce is ignored. What the agent can do is what it can
 * do with any shell: end its commands with the status it likes, and break its own shell (`exit`,
 * `set -e` and a failure, `exec` of something else, a function named `builtin`); the call then
 * reports that the shell exited, or times out, and the next call starts a fresh shell.
 *
 * Background processes never hold a call: the call ends with its status line, not with the end of
 * its output (a `sleep 100 &` keeps the FIFO open, and its later output goes to a later call, as
 * in a terminal). Between calls nothing is read, so a background process that floods its output
 * blocks on the full pipe rather than keep the harness's event loop (every trial's) busy; during a
 * call a flood is read and capped, as a command's output always was. A call past its timeout kills the whole shell (a per-call timeout cannot kill
 * less and leave the shell in a known state); the call says so, and the next one starts afresh.
 * Redirections the command makes with `exec` (`exec >log`) last only for the call: the shell's own
 * descriptors are restored after each one.
 */
import { randomBytes } from "node:crypto";
import { chmodSync, mkdirSync, readSync } from "node:fs";
import { rm } from "node:fs/promises";
import net from "node:net";
import path from "node:path";
import { InfraError } from "../errors.js";
import { TIMEOUT_EXIT_CODE } from "./exec.js";
import { makeFifos, openFifo } from "./fifos.js";
import { createOutputCollector } from "./output-collector.js";
import type { ExecResult } from "./types.js";

/** How a sandbox mode starts the shell: `bash` with `launcherArgs`, seeing `controlDir` at `visibleDir`. */
export interface ShellStarter {
  /**
   * Starts `bash launcherArgs(visibleDir)` in the work dir with the agent's environment, the
   * control folder (host path `controlDir`) visible at the returned `visibleDir`. The promise
   * settles when the process is gone; `signal` kills its process group (and, bwrap, its sandbox).
   */
  start(controlDir: string, signal: AbortSignal): { visibleDir: string; exited: Promise<ExecResult> };
}

export interface AgentShellOptions {
  starter: ShellStarter;
  /** Host folder under which each shell's control folder is made (the trial's temp dir). */
  baseDir: string;
  /** Where mkfifo is looked up. */
  searchPath: string;
  /** Cap per stream of each call's output (head and tail kept). */
  outputCapBytes: number;
}

export interface AgentShellCall {
  timeoutMs: number;
  /** The trial's signal: ends the call (and the shell). */
  signal?: AbortSignal;
}

export interface AgentShell {
  /** One call: the command in the shell; `shell_exited` when the shell is gone after it. */
  run(command: string, call: AgentShellCall): Promise<ExecResult>;
  /** Ends the shell; the next call starts a fresh one. */
  restart(): Promise<void>;
  /** Ends the shell for good. */
  close(): Promise<void>;
}

/** bash's own arguments: reopen stdin from the control folder's `in`, then become `bash -s` reading it. */
export function shellLauncherArgs(visibleDir: string): string[] {
  // `exec -a bash`: messages start "bash: ", as a `bash -c` command's do. The shell's own stdout
  // and stderr go nowhere: every call opens its own (and `set -v` echoes nothing a command can read).
  const script = 'exec <"$1/in" >/dev/null 2>&1 && exec -a bash "$BASH" --noprofile --norc -s';
  return ["--noprofile", "--norc", "-c", script, "bash", visibleDir];
}

/** The FIFOs of a shell's control folder. */
const FIFOS = ["in", "out", "err", "status"] as const;
const NONCE_BYTES = 16;
const MAX_TIMER_MS = 2 ** 31 - 1;
/** Bytes of an unfinished status line kept (a flood of junk on the status FIFO stays small). */
const MAX_STATUS_LINE = 64;
/** What one drain reads at most from a FIFO: more than a pipe holds (1 MiB at most, unprivileged). */
const MAX_DRAIN_BYTES = 4 * 1024 * 1024;
/** The shell's own stdout and stderr (it redirects them to /dev/null at once): a little is enough. */
export const SHELL_OUTPUT_CAP_BYTES = 16 * 1024;

export function createAgentShell(options: AgentShellOptions): AgentShell {
  let session: Session | null = null;
  let sessions = 0;
  let closed = false;

  const end = async () => {
    const ending = session;
    session = null;
    if (ending) await ending.stop();
  };

  const runOne = async (command: string, call: AgentShellCall): Promise<ExecResult> => {
    if (closed) throw new InfraError("the agent's shell was already closed");
    if (command.includes("\0")) return refuseNul();
    if (!session || session.gone) {
      if (session) await end();
      sessions += 1;
      session = await openSession(options, sessions);
    }
    const current = session;
    const result = await current.run(command, call);
    if (current.gone) await end();
    return result;
  };
  // One shell runs one command at a time: calls made at once wait for each other, in order.
  let previous: Promise<unknown> = Promise.resolve();

  return {
    run(command, call) {
      const next = previous.then(() => runOne(command, call));
      previous = next.catch(() => undefined);
      return next;
    },
    restart: end,
    async close() {
      closed = true;
      await end();
    },
  };
}

function refuseNul(): ExecResult {
  return {
    stdout: "",
    stderr: "bash: the command contains a NUL byte, which bash cannot take: nothing was run\n",
    exit_code: 2,
    duration_ms: 0,
    timed_out: false,
    truncated: false,
  };
}

interface Session {
  /** True once the shell exited or was killed: the next call needs a new one. */
  readonly gone: boolean;
  run(command: string, call: AgentShellCall): Promise<ExecResult>;
  stop(): Promise<void>;
}

/** One FIFO the harness reads: as the output comes, and (drain) whatever is waiting in it now. */
interface FifoReader {
  drain(): void;
  pause(): void;
  resume(): void;
  close(): void;
}

/** The exit status in a `<nonce> <status>\n` line of `text`, or null when it has none (yet). */
function findStatus(text: string, nonce: string): number | null {
  const match = new RegExp(`(?:^|\\n)${nonce} ([0-9]{1,3})\\n`).exec(text);
  return match ? Number(match[1]) : null;
}

async function openSession(options: AgentShellOptions, index: number): Promise<Session> {
  const dir = path.join(options.baseDir, `shell-${index}`);
  mkdirSync(dir, { mode: 0o755 });
  chmodSync(dir, 0o755);
  const files = Object.fromEntries(FIFOS.map((name) => [name, path.join(dir, name)])) as Record<
    (typeof FIFOS)[number],
    string
  >;
  await makeFifos(
    FIFOS.map((name) => files[name]),
    { mode: "0600", cwd: dir, searchPath: options.searchPath, what: `the agent shell's FIFOs in ${dir}` },
  );
  const input = new net.Socket({ fd: openFifo(files.in), readable: false, writable: true });
  input.on("error", () => undefined);
  let collectors = newCollectors(options.outputCapBytes);
  let ready = false;
  const readyNonce = randomBytes(NONCE_BYTES).toString("hex");
  /** The nonce of the call in flight and what to do with its status. */
  let awaited: { nonce: string; onStatus: (code: number) => void } | null = null;
  // What came after the last status looked at: a status line split between two reads is whole here.
  let statusTail = "";
  const readers = [
    openReader(openFifo(files.out), (chunk) => collectors.stdout.push(chunk)),
    openReader(openFifo(files.err), (chunk) => collectors.stderr.push(chunk)),
    // Only the nonces awaited are looked for (natively), not every line: a flood of junk written
    // here costs a search per read, and forged lines never carry a nonce the agent has not seen.
    openReader(openFifo(files.status), (chunk) => {
      const text = statusTail + chunk.toString("latin1");
      statusTail = text.slice(-MAX_STATUS_LINE);
      if (!ready && findStatus(text, readyNonce) !== null) ready = true;
      const call = awaited;
      const code = call ? findStatus(text, call.nonce) : null;
      if (call && code !== null) call.onStatus(code);
    }),
  ];
  // The shell only reads its script and only writes the rest; nobody else may read them (bwrap: the
  // folder is bound read-only, so the modes cannot be changed back). Local mode's agent account is "other".
  chmodSync(files.in, 0o444);
  for (const name of ["out", "err", "status"] as const) chmodSync(files[name], 0o222);
  /** Reads what the event loop has not read yet: all a finished command wrote is in the pipes. */
  const drainAll = () => {
    for (const reader of readers) reader.drain();
  };

  const kill = new AbortController();
  let processResult: ExecResult | null = null;
  let gone = false;
  let onExit: (() => void) | null = null;
  const { visibleDir, exited } = options.starter.start(dir, kill.signal);
  const exitedOrFailed = exited.then(
    (result) => {
      processResult = result;
      return result;
    },
    (error: unknown) => {
      const reason = error instanceof Error ? error.message : String(error);
      processResult = {
        stdout: "",
        stderr: reason,
        exit_code: 127,
        duration_ms: 0,
        timed_out: false,
        truncated: false,
      };
      return processResult;
    },
  );
  void exitedOrFailed.then(() => {
    gone = true;
    onExit?.();
  });
  const quotedDir = quoteForBash(visibleDir);
  // Aliases work between calls (a non-interactive shell ignores them otherwise).
  input.write(`shopt -s expand_aliases; \\builtin printf '%s 0\\n' '${readyNonce}' >${quotedDir}/status\n`);

  const closeFifos = () => {
    input.destroy();
    for (const reader of readers) reader.close();
  };

  const stop = async () => {
    kill.abort();
    await exitedOrFailed;
    closeFifos();
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  };

  return {
    get gone() {
      return gone;
    },
    stop,
    run(command, call) {
      const nonce = randomBytes(NONCE_BYTES).toString("hex");
      const started = performance.now();
      return new Promise<ExecResult>((resolve, reject) => {
        let settled = false;
        let timedOut = false;
        const finish = (result: () => ExecResult | Error) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          call.signal?.removeEventListener("abort", onAbort);
          awaited = null;
          onExit = null;
          drainAll();
          // Between calls nothing is read: a background process flooding its output blocks on the
          // full pipe instead of keeping the harness's event loop busy until the next call.
          for (const reader of readers) reader.pause();
          const value = result();
          collectors = newCollectors(options.outputCapBytes);
          if (value instanceof Error) reject(value);
          else resolve(value);
        };
        const outputs = (exitCode: number, extra: Partial<ExecResult> = {}): ExecResult => {
          const stdout = collectors.stdout.finish();
          const stderr = collectors.stderr.finish();
          return {
            stdout: stdout.text,
            stderr: stderr.text,
            exit_code: exitCode,
            duration_ms: Math.round(performance.now() - started),
            timed_out: false,
            truncated: stdout.truncated || stderr.truncated,
            ...extra,
          };
        };
        awaited = { nonce, onStatus: (code) => finish(() => outputs(code)) };
        for (const reader of readers) reader.resume();
        onExit = () =>
          finish(() => {
            const shell = processResult as ExecResult;
            if (!ready && !timedOut && !call.signal?.aborted) {
              const said = `${shell.stderr}${shell.stdout}`.trim();
              return new InfraError(
                `the agent's shell did not start (exit code ${shell.exit_code})${said ? `: ${said}` : ""}`,
              );
            }
            if (timedOut) return outputs(TIMEOUT_EXIT_CODE, { timed_out: true, shell_exited: true });
            return outputs(shell.exit_code, { shell_exited: true });
          });
        const onAbort = () => kill.abort();
        // setTimeout fires at once past 2^31-1 ms: such a limit is no limit.
        const timer =
          call.timeoutMs > 0 && call.timeoutMs <= MAX_TIMER_MS
            ? setTimeout(() => {
                timedOut = true;
                kill.abort();
              }, call.timeoutMs)
            : undefined;
        if (call.signal?.aborted) kill.abort();
        else call.signal?.addEventListener("abort", onAbort, { once: true });
        if (gone) {
          onExit();
          return;
        }
        input.write(callLine(command, nonce, quotedDir));
      });
    },
  };
}

/**
 * One call as the shell reads it: all on one line, so the shell has it whole before the command
 * runs. `LINENO=0`: bash's messages then name no line of the shell's long-running script.
 */
function callLine(command: string, nonce: string, dir: string): string {
  return [
    `LINENO=0; __llm_tool_test_command=${quoteForBash(command)}`,
    `{ \\builtin eval "$__llm_tool_test_command"; } </dev/null >${dir}/out 2>${dir}/err`,
    "__llm_tool_test_status=$?",
    // The command's DEBUG trap would otherwise run before the next lines and see the nonce.
    "\\builtin trap - DEBUG",
    `\\builtin printf '%s %s\\n' '${nonce}' "$__llm_tool_test_status" >${dir}/status`,
    "\\builtin unset __llm_tool_test_command __llm_tool_test_status\n",
  ].join("; ");
}

/** `$'...'`: any text as one bash word, every byte but NUL (refused before) kept. */
export function quoteForBash(text: string): string {
  let quoted = "$'";
  for (const char of text) {
    const code = char.codePointAt(0) as number;
    if (char === "\\" || char === "'") quoted += `\\${char}`;
    else if (code < 0x20 || code === 0x7f) quoted += `\\x${code.toString(16).padStart(2, "0")}`;
    else quoted += char;
  }
  return `${quoted}'`;
}

function openReader(fd: number, push: (chunk: Buffer) => void): FifoReader {
  const socket = new net.Socket({ fd, readable: true, writable: false });
  socket.on("data", push);
  socket.on("error", () => undefined);
  let closed = false;
  return {
    drain() {
      if (closed) return;
      const buffer = Buffer.alloc(64 * 1024);
      // Bounded: a background process may write as fast as this reads.
      for (let read = 0; read < MAX_DRAIN_BYTES; ) {
        let count = 0;
        try {
          count = readSync(fd, buffer);
        } catch {
          return; // EAGAIN: empty
        }
        if (count <= 0) return;
        read += count;
        push(Buffer.from(buffer.subarray(0, count)));
      }
    },
    pause: () => void socket.pause(),
    resume: () => void socket.resume(),
    close() {
      closed = true;
      // The socket owns the descriptor and closes it.
      socket.destroy();
    },
  };
}

function newCollectors(capBytes: number) {
  return { stdout: createOutputCollector(capBytes), stderr: createOutputCollector(capBytes) };
}
