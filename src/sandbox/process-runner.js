// @ts-check
/**
 * The process runner: a small helper process that spawns the harness's child processes for
 * src/sandbox/exec.ts (with execa), collects their capped output and reports their exit over its
 * IPC channel.
 *
 * Why a helper process: Node's spawn forks the whole calling process and waits for the child's
 * exec. From the harness itself (a large heap, many trials on one event loop) each spawn stalls
 * that loop for milliseconds and leaves its memory copy-on-write; from this small process it
 * stalls nobody (see BENCHMARKS.md).
 *
 * Why plain JavaScript: Node runs this file as it is under vitest (resolving execa in
 * node_modules); the builds bundle it, with execa, into lib/sandbox/process-runner/ and
 * dist/process-runner/ (scripts/bundle-runner.mjs). It is type-checked through its JSDoc.
 *
 * What execa does not do is layered on it here: every process leads its own group, and a timeout
 * or a kill request ends the whole group and the process's descendants that left it, taken while
 * it lives (process-tree.js; execa's own timeout and kill reach only the leader). The
 * run is over once the process exited and its pipes closed, or a short grace later: execa's result
 * waits for the pipes, which a background child may hold open forever. The harness learns a pid
 * only when a finished run left members behind, to end them with the trial. When the harness goes
 * away (its IPC channel closes), this process kills every group it is still running or ending
 * (their trees too), then exits.
 */
import { getPriority, setPriority } from "node:os";
import { execa } from "execa";
import { createOutputCollector } from "./output-collector.js";
import { KILL_GRACE_MS, PROCESS_RUNNER_ARG, signalGroup } from "./process-runner-protocol.js";
import { findTree, killTree, signalMember } from "./process-tree.js";

/** @typedef {import("./process-runner-protocol.js").RunRequest} RunRequest */
/** @typedef {import("./process-runner-protocol.js").KillRequest} KillRequest */
/** @typedef {import("./process-runner-protocol.js").RunnerMessage} RunnerMessage */

/**
 * How much nicer than the harness the runner, and so every process it starts, runs. The harness's
 * one event loop carries every trial in flight; when runners and commands take the CPU from it at
 * each wake-up, every trial waits (at concurrency 8 on two cores, a tenth of the wall time; see
 * BENCHMARKS.md). Relative to the harness, so a harness run under `nice` keeps the distance.
 */
const NICER_THAN_HARNESS = 4;
const LOWEST_PRIORITY = 19;

/** How long to keep reading a process's pipes after it exited. */
const PIPE_CLOSE_GRACE_MS = 200;
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Runs in flight: their kill switches, for a kill request and for our own exit. */
/** @type {Map<number, { kill(): void; pid: number }>} */
const running = new Map();
/** Runs being killed whose SIGKILL is still to come (their process may have exited): each one's
 * final SIGKILL, given at once if we exit first. */
/** @type {Map<number, () => void>} */
const ending = new Map();

/**
 * Spawns one process as the leader of its own group, with exactly `request.env`, and reports its
 * end. A timeout or a kill ends the whole group: killing only bash would leave a `sleep` child
 * holding the output pipe open.
 * @param {RunRequest} request
 * @param {(message: RunnerMessage) => void} post
 */
function runRequest(request, post) {
  const { id } = request;
  const subprocess = execa(request.file, request.args, {
    cwd: request.cwd,
    env: request.env,
    extendEnv: false,
    detached: true,
    ...(request.stdin !== undefined ? { input: request.stdin } : { stdin: "ignore" }),
    // Our own collectors keep the output, capped; execa only has to let it through.
    buffer: false,
    stripFinalNewline: false,
    // Failures are reported, not thrown; groups are ended here, not by execa's exit hook.
    reject: false,
    cleanup: false,
  });
  const pid = subprocess.pid;
  if (pid === undefined) {
    // A missing binary or cwd: execa's result says why.
    subprocess.then((result) =>
      post({ type: "spawn_failed", id, reason: result.originalMessage ?? result.message ?? "unknown error" }),
    );
    return;
  }

  /** @type {NodeJS.Timeout | undefined} */
  let killTimer;
  const kill = () => {
    if (killTimer) return;
    // Taken while the leader lives: a member that left the group (bwrap's sandbox init) would be
    // out of reach once the leader is gone (process-tree.js).
    const tree = findTree(pid);
    signalGroup(pid, "SIGTERM");
    for (const member of tree) if (member.group !== pid) signalMember(member, "SIGTERM");
    const finish = () => {
      clearTimeout(killTimer);
      ending.delete(id);
      signalGroup(pid, "SIGKILL");
      killTree(tree);
    };
    killTimer = setTimeout(finish, KILL_GRACE_MS);
    ending.set(id, finish);
  };
  let timedOut = false;
  // setTimeout fires at once for delays beyond 2^31-1 ms; treat those (and Infinity) as no limit.
  const timeout =
    request.timeoutMs > 0 && request.timeoutMs <= MAX_TIMER_MS
      ? setTimeout(() => {
          timedOut = true;
          kill();
        }, request.timeoutMs)
      : undefined;
  running.set(id, { kill, pid });

  const stdout = createOutputCollector(request.outputCapBytes);
  const stderr = createOutputCollector(request.outputCapBytes);
  // Streamed stdout is capped too: its first streamCapBytes go out as they arrive, then only the
  // last half of the output cap is kept, sent with the end (a flood never reaches the harness).
  const streamed = request.streamStdout
    ? createOutputCollector(
        request.streamCapBytes + Math.ceil(request.outputCapBytes / 2),
        request.streamCapBytes,
        true,
      )
    : null;
  subprocess.stdout.on("data", (/** @type {Buffer} */ chunk) => {
    stdout.push(chunk);
    if (!streamed) return;
    const head = streamed.push(chunk);
    // A copy of exactly these bytes: cloning a view would copy its whole backing buffer.
    if (head > 0) post({ type: "stdout", id, chunk: new Uint8Array(chunk.subarray(0, head)) });
  });
  subprocess.stderr.on("data", (/** @type {Buffer} */ chunk) => stderr.push(chunk));

  subprocess.once("exit", async (code, signal) => {
    // Ended within its time: a timeout from here on is not the process's.
    clearTimeout(timeout);
    // Read what is left in the pipes (execa settles once they closed), but do not wait for a
    // background child to close them.
    /** @type {NodeJS.Timeout | undefined} */
    let graceTimer;
    const grace = new Promise((resolve) => {
      graceTimer = setTimeout(resolve, PIPE_CLOSE_GRACE_MS);
    });
    await Promise.race([subprocess, grace]);
    clearTimeout(graceTimer);
    // execa takes a destroyed output pipe for an abort, not a failure.
    subprocess.stdout.destroy();
    subprocess.stderr.destroy();
    running.delete(id);
    // A kill in flight finishes off stubborn members itself (its SIGKILL is still to come).
    const leftover = !killTimer && signalGroup(pid, 0);
    post({
      type: "finished",
      id,
      pid,
      code,
      signal,
      timedOut,
      leftover,
      stdout: stdout.finish(),
      stderr: stderr.finish(),
      ...(streamed ? { streamRest: streamed.finishAfterHead() } : {}),
    });
  });
}

/** @param {RunRequest | KillRequest} request @param {(message: RunnerMessage) => void} post */
function handleRequest(request, post) {
  if (request.type === "kill") running.get(request.id)?.kill();
  else runRequest(request, post);
}

if (process.argv[2] === PROCESS_RUNNER_ARG && process.send) {
  // Before anything is spawned: children inherit it.
  try {
    setPriority(Math.min(LOWEST_PRIORITY, getPriority() + NICER_THAN_HARNESS));
  } catch {
    // Not allowed here (a restricted container, say): the runner runs as the harness does.
  }
  const send = process.send.bind(process);
  process.on("message", (/** @type {RunRequest | KillRequest} */ request) =>
    handleRequest(request, (message) => send(message)),
  );
  // One throwaway run, so the first real commands do not also pay for compiling this path.
  runRequest(
    {
      type: "run",
      id: 0,
      file: "/bin/sh",
      args: ["-c", ":"],
      cwd: "/",
      env: {},
      outputCapBytes: 0,
      timeoutMs: 0,
      streamStdout: false,
      streamCapBytes: 0,
    },
    () => undefined,
  );
  // A Ctrl-C (or a hang-up) reaches the harness's whole process group, this runner included. The
  // harness decides what ends: it sends kill requests, and its exit closes the channel below.
  for (const signal of /** @type {const} */ (["SIGINT", "SIGTERM", "SIGHUP"]))
    process.on(signal, () => undefined);
  // The harness is gone (or let go of us): nothing more will be asked, and nobody will end
  // what still runs unless we do.
  process.on("disconnect", () => {
    for (const [id, { pid }] of running) {
      if (ending.has(id)) continue;
      const tree = findTree(pid);
      signalGroup(pid, "SIGKILL");
      killTree(tree);
    }
    for (const finish of [...ending.values()]) finish();
    process.exit(0);
  });
}
