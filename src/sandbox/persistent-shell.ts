/**
 * The agent's persistent shell: the working directory, variables (exported or not), functions,
 * aliases and options survive from one call to the next, as in Anthropic's bash tool; in bwrap one
 * sandbox for the shell's whole life (not one per command), so background processes keep running.
 *
 * How a call runs. A runner (RUNNER_SCRIPT: bash code of the harness's that never runs the agent's
 * code itself, in a bash of its own: see "The runner's memory" below) is the shell's first process. For each call the harness writes the call (the
 * command, and the state's functions) and the prelude (the state given back, shell-state.ts) to
 * the control folder, and the call's random nonce to the FIFO `in`. The runner starts the call's
 * child (a fork of itself that sources the prelude, or with functions in the state a bash of its
 * own with the prelude as BASH_ENV; then the command; stdin /dev/null, stdout and stderr the FIFOs
 * `out` and `err`), waits for it, and writes the nonce and its exit status (the kernel's) to the
 * FIFO `status`. The child saves its state to the FIFO `state` as it exits (an EXIT trap calling a
 * function the prelude defined, which never changes the status). The harness reads
 * the FIFOs as the output comes (capped like any command's: head and tail kept); the call is over
 * when its status line arrives: everything the command wrote was in the pipes before, and is
 * drained then.
 *
 * Why so (issue #35). The status is not written by shell code in the agent's shell, so nothing the
 * agent defines there (a function named `builtin`, `printf` or `eval`, aliases, a DEBUG trap,
 * PROMPT_COMMAND, BASH_ENV) is on its way: the process that ran the command has exited when its
 * status is read, and the next one starts from the runner with the state as data (a forged state
 * changes only the agent's own variables and functions, never runs anything before the command).
 * The channels: once the runner holds `in` and `status`, their modes become 0000, so no agent
 * process can open them, by their paths or through /proc/<runner>/fd (the same FIFO, modes
 * checked); the call's bash gets neither descriptor. A status line counts only with the call's own
 * nonce, 128 random bits made for it and sent only on `in`. The agent can still end a command with
 * the status it likes, in that command; the target's own exit code comes from the shim, whose
 * record wins (evaluate/invocations.ts). Local mode without an agent account runs the agent as the
 * harness's own user, who owns the FIFOs and could change their modes back (as with the shim's
 * channel, shim-channel.ts); bwrap and agent accounts cannot.
 *
 * The runner's memory. The agent's processes run as the runner's user, and without Yama such a
 * process may read and write another's memory (/proc/<pid>/mem) or trace it (ptrace): rewrite the
 * status line, or read the next call's nonce. So the runner is a bash the kernel marks not
 * dumpable: a copy of bash in the control folder that nobody may read (mode 0111, SEALED_BASH),
 * which the kernel then lets only a tracer with CAP_SYS_PTRACE over it touch (and the agent has no
 * capability). It must be started by a process without capabilities (bwrap still holds some in its
 * namespace when it runs the command, and could read the copy): a readable copy (LAUNCHER_BASH)
 * runs first and execs it. Both are the harness's copies in the control folder, which the agent
 * cannot change (read-only in bwrap, the harness's elsewhere), not the system's bash, which a
 * scenario with writable system folders lets it replace. A call's fork inherits the mark (it holds
 * the runner's memory); in bwrap the runner is the sandbox's pid 1 (bwrap-strategy.ts), so no
 * process of bwrap's own, readable by the agent, waits in the sandbox to report the shell's exit.
 *
 * What differs from one long-lived bash: `exit` and `set -e` end the call, not the shell (the state
 * stays); `$$` is the runner's in a fork (as in a subshell), each call's own in a bash; traps, `$!` and the jobs table are not carried (a background
 * process keeps running, but is not the next call's job). See shell-state.ts for the state kept.
 *
 * Background processes never hold a call: the call ends with its status line, not with the end of
 * its output (a `sleep 100 &` keeps the FIFO open, and its later output goes to a later call, as
 * in a terminal). Between calls nothing is read, so a background process that floods its output
 * blocks on the full pipe rather than keep the harness's event loop (every trial's) busy; during a
 * call a flood is read and capped, as a command's output always was. A call past its timeout kills
 * the whole shell (the runner, the call and what it started); the call says so, and the next one
 * starts afresh, without the state.
 */
import { randomBytes } from "node:crypto";
import { chmodSync, copyFileSync, mkdirSync, readSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import net from "node:net";
import path from "node:path";
import { describeError, InfraError } from "../errors.js";
import { TIMEOUT_EXIT_CODE } from "./exec.js";
import { makeFifos, openFifo } from "./fifos.js";
import { createOutputCollector } from "./output-collector.js";
import {
  functionEnvironment,
  HARNESS_PREFIX,
  MAX_STATE_BYTES,
  parseShellState,
  renderPrelude,
  type ShellState,
} from "./shell-state.js";
import type { ExecResult } from "./types.js";

export { quoteForBash } from "./shell-state.js";

const P = HARNESS_PREFIX;

/** How a sandbox mode starts the shell: `bash` with `launcherArgs`, seeing `controlDir` at `visibleDir`. */
interface ShellStarter {
  /**
   * Starts `shellLauncher(visibleDir, …)` in the work dir with the agent's environment, the
   * control folder (host path `controlDir`) visible at the returned `visibleDir`. The promise
   * settles when the process is gone; `signal` kills its process group (and, bwrap, its sandbox).
   */
  start(controlDir: string, signal: AbortSignal): { visibleDir: string; exited: Promise<ExecResult> };
}

export interface AgentShellOptions {
  starter: ShellStarter;
  /** The host's bash, copied into each shell's control folder to run its runner (see above). */
  bash: string;
  /** Host folder under which each shell's control folder is made (the trial's temp dir). */
  baseDir: string;
  /** Where mkfifo is looked up. */
  searchPath: string;
  /** Cap per stream of each call's output (head and tail kept). */
  outputCapBytes: number;
}

interface AgentShellCall {
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

/** The runner's bash in the control folder: a copy nobody may read, so its process is not dumpable. */
const SEALED_BASH = "bash";
/** The bash that starts it (a readable copy: any process that runs it gives up capabilities). */
const LAUNCHER_BASH = "launch";

/**
 * The runner: a bash of the harness's own that never runs the agent's code itself. It reads each
 * call's nonce from `in`, the call from the control folder's `call` file (written by the harness,
 * read-only to the agent), runs it as a child with stdin /dev/null and stdout and stderr on the
 * FIFOs `out` and `err` (the runner's own `in` and `status` closed in it), waits for it, and writes
 * the nonce and the child's exit status (the kernel's, from `wait`) to `status`.
 *
 * The child is a fork of the runner when the state has no functions (the common case: no new
 * bash, so a call costs one fork): it sources the prelude, which unsets the runner's variables
 * and gives the state back, then runs the command with `eval` (both words parsed here, before the
 * agent had any alias). With functions, it is a bash of its own started by env(1) with nothing but
 * the state's functions in its environment (bash's own import: see shell-state.ts), the prelude as
 * BASH_ENV. What those need is held before any call: env(1) on descriptor 7, bash as the sealed
 * copy in the control folder, so a call still runs after the agent removed /bin or /usr/bin.
 * BASH is the system's bash ($2), as in any shell, not the copy.
 */
const RUNNER_SCRIPT = [
  'exec <"$1/in" 4>"$1/status" 5>"$1/out" 6>"$1/err" >/dev/null 2>&1 || exit 126',
  `${P}dir=$1; ${P}self=$1/${SEALED_BASH}; BASH=$2; hash env && exec 7<"\${BASH_CMDS[env]}" || exit 126`,
  // The harness's first line: the runner is up, with its descriptors open.
  `IFS= read -r ${P}nonce || exit 0; printf "%s 0\\n" "$${P}nonce" >&4`,
  `while IFS= read -r ${P}nonce; do`,
  `  ${P}pairs=(); ${P}count=0; ${P}command=`,
  `  { IFS= read -r -d "" ${P}count; for ((${P}i = 0; ${P}i < ${P}count; ${P}i++)); do IFS= read -r -d "" ${P}pair; ${P}pairs+=("$${P}pair"); done; IFS= read -r -d "" ${P}command; } < "$${P}dir/call"`,
  `  if ((${P}count > 0)); then`,
  `    /proc/self/fd/7 -i "\${${P}pairs[@]}" "${P}bash=$BASH" BASH_ENV="$${P}dir/prelude" "$${P}self" --noprofile --norc -c "$${P}command" bash </dev/null >&5 2>&6 4>&- 5>&- 6>&-`,
  "  else",
  `    ( . "$${P}dir/prelude"; eval "$${P}command" ) </dev/null >&5 2>&6 4>&- 5>&- 6>&- 7<&-`,
  "  fi",
  // In the foreground, not `&`: a background child would ignore SIGINT and SIGQUIT (no job
  // control), and so would every command the agent runs.
  `  printf "%s %s\\n" "$${P}nonce" "$?" >&4`,
  "done",
].join("\n");

/**
 * How a sandbox mode starts the shell: `file` with `args`, given the control folder as seen inside
 * (`visibleDir`) and the system's bash there (`bash`, what the agent's $BASH says).
 */
export function shellLauncher(visibleDir: string, bash: string): { file: string; args: string[] } {
  return {
    file: path.posix.join(visibleDir, LAUNCHER_BASH),
    args: [
      ...["--noprofile", "--norc", "-c", 'exec "$@"', "bash"],
      ...[path.posix.join(visibleDir, SEALED_BASH), "--noprofile", "--norc", "-c", RUNNER_SCRIPT],
      ...["bash", visibleDir, bash],
    ],
  };
}

/** The runner's two copies of the host's `bash` in the control folder `dir` (see above). */
function copyBash(bash: string, dir: string): void {
  for (const [name, mode] of [
    [LAUNCHER_BASH, 0o555],
    [SEALED_BASH, 0o111],
  ] as const) {
    const file = path.join(dir, name);
    try {
      copyFileSync(bash, file);
    } catch (error) {
      throw new InfraError(
        `could not copy ${bash} for the agent's shell to ${file}: ${describeError(error)}`,
      );
    }
    chmodSync(file, mode);
  }
}

/** The FIFOs of a shell's control folder. */
const FIFOS = ["in", "out", "err", "status", "state"] as const;
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
  copyBash(options.bash, dir);
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
  /** What the state FIFO received during the call in flight (capped). */
  let stateText = "";
  /** The shell's state after the last call that saved one; null: the runner's own environment. */
  let state: ShellState | null = null;
  /** The state text of the last call that saved one. */
  let savedText = "";
  const readyNonce = randomBytes(NONCE_BYTES).toString("hex");
  let ready = false;
  let onReady: (() => void) | null = null;
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
      if (!ready && findStatus(text, readyNonce) !== null) {
        ready = true;
        onReady?.();
      }
      const call = awaited;
      const code = call ? findStatus(text, call.nonce) : null;
      if (call && code !== null) call.onStatus(code);
    }),
    openReader(openFifo(files.state), (chunk) => {
      if (stateText.length + chunk.length <= MAX_STATE_BYTES) stateText += chunk.toString("latin1");
    }),
  ];
  // The runner only reads `in` and only writes the rest; nobody else may read them (bwrap: the
  // folder is bound read-only, so the modes cannot be changed back). Local mode's agent account is "other".
  chmodSync(files.in, 0o444);
  for (const name of ["out", "err", "status", "state"] as const) chmodSync(files[name], 0o222);
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
    onReady?.();
  });
  // Once the runner holds `in` and `status`, nobody else may open them: not by their paths, nor
  // through /proc/<runner>/fd (which opens the same FIFO, modes checked). No call is sent before.
  const started = new Promise<void>((resolve) => {
    onReady = () => {
      onReady = null;
      if (ready) {
        chmodSync(files.in, 0o000);
        chmodSync(files.status, 0o000);
      }
      resolve();
    };
  });
  input.write(`${readyNonce}\n`);

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

  /** The call as the runner reads it (see RUNNER_SCRIPT), and the prelude its bash reads first. */
  // The state is bytes read as latin1 (one char a byte): written back the same way. The command
  // is the agent's text, written as UTF-8 like any command's.
  const stateFile = Buffer.from(path.posix.join(visibleDir, "state")).toString("latin1");
  /** The state whose prelude was written last: a call that changed no state needs no new one. */
  let writtenFor: ShellState | null | undefined;
  const writeCall = (command: string) => {
    const pairs = functionEnvironment(state);
    const head = [String(pairs.length), ...pairs, ""].join("\0");
    const call = Buffer.concat([Buffer.from(head, "latin1"), Buffer.from(`${command}\0`)]);
    writeFileSync(path.join(dir, "call"), call, { mode: 0o644 });
    if (writtenFor === state) return;
    const prelude = renderPrelude(state, stateFile, { forked: pairs.length === 0 });
    writeFileSync(path.join(dir, "prelude"), prelude, { mode: 0o644, encoding: "latin1" });
    writtenFor = state;
  };

  return {
    get gone() {
      return gone;
    },
    stop,
    run(command, call) {
      const nonce = randomBytes(NONCE_BYTES).toString("hex");
      const startedAt = performance.now();
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
            duration_ms: Math.round(performance.now() - startedAt),
            timed_out: false,
            truncated: stdout.truncated || stderr.truncated,
            ...extra,
          };
        };
        awaited = {
          nonce,
          onStatus: (code) =>
            finish(() => {
              // The call's bash saved its state as it exited, before the runner saw it exit.
              // Unchanged text, unchanged state (and prelude): nothing to parse.
              if (stateText !== savedText) state = parseShellState(stateText) ?? state;
              savedText = stateText;
              return outputs(code);
            }),
        };
        stateText = "";
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
        // No call goes out before the runner is up and its channels are closed to everyone else.
        void started.then(() => {
          if (settled) return;
          if (gone) {
            onExit?.();
            return;
          }
          writeCall(command);
          input.write(`${nonce}\n`);
        });
      });
    },
  };
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
