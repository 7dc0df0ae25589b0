/**
 * Takes this process's environment out of reach of the agents it runs.
 *
 * On Linux any process of the same user can read `/proc/<pid>/environ`: the block of
 * "NAME=value" strings the process was started with, which neither `delete process.env.X` nor
 * setenv ever changes. An agent in local mode could read every secret the harness was given
 * there. Node 20 has no `process.execve` to start afresh with a clean block, and a launcher that
 * spawns the real harness and waits keeps its own block readable; so the process overwrites its
 * own block with zeros instead (through `/proc/self/mem`, at the addresses `/proc/self/stat` gives
 * as env_start and env_end). The full environment lives on only in memory, handed to the code that
 * needs it, and `process.env` is cut down to a minimal environment (named below, not a copy
 * filtered by name) so that no child started without an explicit environment inherits a secret.
 *
 * What this cannot reach: the processes that started this one (npx, the shell, the CI step) keep
 * their own blocks. In bwrap mode the agent cannot see them; in local mode it can.
 */
import { closeSync, openSync, readFileSync, writeSync } from "node:fs";

export type Environment = Record<string, string | undefined>;

export interface WithdrawnEnvironment {
  /** The environment the process was started with: kept in memory only. */
  env: Environment;
  /**
   * Null when /proc/self/environ now reads as zeros; else why not, as the warning the CLI and the
   * action give before agents run.
   */
  warning: string | null;
}

/** What `process.env` keeps: what Node, locale-aware code and TLS need; nothing that names a service. */
const MINIMAL_NAMES = new Set([
  "PATH",
  "HOME",
  "LANG",
  "LANGUAGE",
  "TMPDIR",
  "TZ",
  "TERM",
  "NO_COLOR",
  "FORCE_COLOR",
  "NODE_OPTIONS",
  "NODE_EXTRA_CA_CERTS",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
]);

function isMinimal(name: string): boolean {
  return MINIMAL_NAMES.has(name) || name.startsWith("LC_");
}

/** Said wherever an agent runs in local mode (log, report, comment). */
export const PARENTS_OUT_OF_REACH =
  "processes this tool does not control (npx, the shell that started it, the CI step) keep their own environment, which an agent in local mode can read: keep secrets out of it, or run in bwrap";

/** The warning when the block could not be cleared. */
function describeUnscrubbedEnvironment(reason: string): string {
  return `could not clear this process's environment block (${reason}): an agent in local mode can read every variable the tool was started with, secrets included, from /proc`;
}

let withdrawn: WithdrawnEnvironment | undefined;

/**
 * Copies the environment into memory, zeroes the process's environment block, and reduces
 * `process.env` to the minimal environment plus `keep`. Called once, first thing, by the CLI and the
 * action; later calls return the first call's result. Never throws: a block that cannot be
 * cleared (not Linux, /proc/self/mem refused) is reported in `warning`, and the run goes on.
 */
export function withdrawEnvironment(options: { keep?: readonly string[] } = {}): WithdrawnEnvironment {
  if (withdrawn) return withdrawn;
  const env: Environment = { ...process.env };
  const failure = scrubEnvironmentBlock();
  const kept = new Set(options.keep ?? []);
  // Set again, not just left: the zeroed block held the strings libc's environ pointed to.
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && (isMinimal(name) || kept.has(name))) process.env[name] = value;
    else delete process.env[name];
  }
  withdrawn = { env, warning: failure === null ? null : describeUnscrubbedEnvironment(failure) };
  return withdrawn;
}

/** Zeroes [env_start, env_end) of this process; null when done and verified, else why not. */
function scrubEnvironmentBlock(): string | null {
  if (process.platform !== "linux") return `not Linux (${process.platform})`;
  try {
    const stat = readFileSync("/proc/self/stat", "utf8");
    // The command name (field 2) may hold spaces and parentheses: count fields after the last ")".
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // Fields 50 and 51 of proc(5); the slice starts at field 3.
    const start = Number(fields[47]);
    const end = Number(fields[48]);
    if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || end < start) {
      return "/proc/self/stat has no environment addresses";
    }
    if (end === start) return null;
    const fd = openSync("/proc/self/mem", "r+");
    try {
      writeSync(fd, Buffer.alloc(end - start), 0, end - start, start);
    } finally {
      closeSync(fd);
    }
    const left = readFileSync("/proc/self/environ");
    if (left.some((byte) => byte !== 0)) return "/proc/self/environ still shows variables after the write";
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}
