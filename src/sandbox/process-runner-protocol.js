// @ts-check
/**
 * What src/sandbox/exec.ts and its process runners (process-runner.js) share: the runner's
 * argument, the messages over the IPC channel between them, and how both end a process group.
 *
 * Plain JavaScript with only `node:` imports, so that the harness can load it without loading the
 * runner's spawning library (execa), and Node can run it as it is next to the runner (see there).
 */

/** The runner's argument; importing the runner module anywhere else installs nothing. */
export const PROCESS_RUNNER_ARG = "--llm-tool-test-process-runner";
/** Between SIGTERM and SIGKILL when a group is killed. */
export const KILL_GRACE_MS = 500;

/**
 * @typedef {object} RunRequest
 * @property {"run"} type
 * @property {number} id
 * @property {string} file
 * @property {string[]} args
 * @property {string} cwd
 * @property {Record<string, string>} env
 * @property {string} [stdin]
 * @property {number} outputCapBytes
 * @property {number} timeoutMs  0 or beyond a timer's range: no limit
 * @property {boolean} streamStdout  post stdout chunks as they arrive (for line callbacks)
 * @property {number} streamCapBytes  streamed stdout: bytes posted as they arrive; beyond them only
 *   the last half of outputCapBytes is kept, sent with `finished` as `streamRest`
 */

/**
 * End a run's process group now (an abort): SIGTERM, then SIGKILL after a grace.
 * @typedef {{ type: "kill"; id: number }} KillRequest
 */

/**
 * @typedef {object} CappedOutput
 * @property {string} text
 * @property {boolean} truncated
 * @property {number} droppedBytes  bytes dropped from the middle
 */

/**
 * Streamed stdout after its streamed head: the bytes that followed it (the tail only, from a
 * character start, when `droppedBytes` were cut from the middle).
 * @typedef {object} StreamRest
 * @property {number} droppedBytes
 * @property {Uint8Array} tail
 */

/**
 * Per run: `spawn_failed`, or `stdout` chunks (when asked) and then `finished` once the process
 * exited and its pipes closed (or their grace ran out). `leftover`: the process group still has
 * members (a background child) that no kill of ours is ending; the harness ends them with the trial.
 * @typedef {{ type: "spawn_failed"; id: number; reason: string }
 *   | { type: "stdout"; id: number; chunk: Uint8Array }
 *   | { type: "finished"; id: number; pid: number; code: number | null; signal: NodeJS.Signals | null;
 *       timedOut: boolean; leftover: boolean; stdout: CappedOutput; stderr: CappedOutput;
 *       streamRest?: StreamRest }} RunnerMessage
 */

/**
 * Signal a whole process group (signal 0: only ask whether it still has members).
 * @param {number} pgid
 * @param {NodeJS.Signals | 0} signal
 * @returns {boolean} whether the group was there to signal
 */
export function signalGroup(pgid, signal) {
  return deliver(-pgid, signal);
}

/**
 * Whether a process is still there (signal 0).
 * @param {number} pid
 * @returns {boolean}
 */
export function isProcessAlive(pid) {
  return deliver(pid, 0);
}

/**
 * @param {number} target  a pid, or a negated process group id
 * @param {NodeJS.Signals | 0} signal
 * @returns {boolean} whether there was something to signal
 */
function deliver(target, signal) {
  try {
    process.kill(target, signal);
    return true;
  } catch (error) {
    // ESRCH: it is gone. EPERM: a process we may not signal, so it is still there.
    return /** @type {NodeJS.ErrnoException} */ (error).code === "EPERM";
  }
}
