/**
 * Ending a trial's whole process tree. Agent CLIs start their tools in new sessions (Claude Code
 * runs each Bash call under setsid), and an agent's commands can `setsid` or double-fork a daemon,
 * out of reach of a process-group kill; orphans lose their parent chain. Every process inherits
 * its parent's environment, so every command of a trial gets a unique marker variable and the
 * survivors are found by it in /proc (the way CI servers end a build's leftovers). A process that
 * clears its own environment escapes it: the trial's cgroup (trial-cgroup.ts) holds it where one
 * can be made. Linux only; elsewhere nothing is found.
 */
import { randomUUID } from "node:crypto";
import { readFile } from "node:fs";
import { readdir } from "node:fs/promises";

export const PROCESS_MARKER_ENV = "LLM_TOOL_TEST_PROCESS_MARK";
const SWEEP_ROUNDS = 5;
/** /proc files read at once by a sweep (as cheap as reading all at once; bounded descriptors). */
const CONCURRENT_READS = 16;

export function createProcessMarker(): string {
  return randomUUID();
}

/**
 * Live processes (of this user) whose environment holds PROCESS_MARKER_ENV=marker. Every trial
 * sweeps once at its end, on the event loop all trials share: the environ files are read a few at
 * a time through fs's callback API, about a fifth of the CPU of awaiting fs/promises' readFile one
 * file at a time (a FileHandle and several promises per file, for a few hundred files). A few, not
 * all at once: each read holds a descriptor, and a busy host has thousands of processes.
 */
export async function findMarkedProcesses(marker: string): Promise<number[]> {
  const entry = Buffer.from(`${PROCESS_MARKER_ENV}=${marker}\0`);
  return findProcesses("environ", (environ) => holdsEntry(environ, entry));
}

/**
 * Every process but this one whose /proc/<pid>/<file> satisfies `matches` (a process gone meanwhile,
 * or unreadable, is not). The files are read CONCURRENT_READS at a time through fs's callback API.
 */
export async function findProcesses(file: string, matches: (content: Buffer) => boolean): Promise<number[]> {
  const names = await readdir("/proc").catch(() => [] as string[]);
  const pids = names.filter((name) => /^\d+$/.test(name) && Number(name) !== process.pid);
  const found: number[] = [];
  let next = 0;
  const reader = async () => {
    while (next < pids.length) {
      const pid = pids[next++] as string;
      const content = await readProcFile(pid, file);
      if (content && matches(content)) found.push(Number(pid));
    }
  };
  await Promise.all(Array.from({ length: CONCURRENT_READS }, reader));
  return found;
}

/** A whole entry: at the start, or right after the previous entry's NUL (not inside another value). */
function holdsEntry(environ: Buffer, entry: Buffer): boolean {
  for (let at = environ.indexOf(entry); at !== -1; at = environ.indexOf(entry, at + 1)) {
    if (at === 0 || environ[at - 1] === 0) return true;
  }
  return false;
}

/** A process's environment block; null when it is gone or not readable. */
function readProcFile(pid: string, file: string): Promise<Buffer | null> {
  return new Promise((resolve) => {
    readFile(`/proc/${pid}/${file}`, (error, data) => resolve(error ? null : data));
  });
}

/** SIGKILL every marked process, again until none is left (a dying shell may still fork). */
export async function killMarkedProcesses(marker: string): Promise<void> {
  for (let round = 0; round < SWEEP_ROUNDS; round += 1) {
    const pids = await findMarkedProcesses(marker);
    if (pids.length === 0) return;
    for (const pid of pids) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // Already gone.
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
