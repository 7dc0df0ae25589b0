import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";

/** True once `pid` is gone or a zombie (a dead child waiting for init to reap it). */
export function isProcessGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Field 3 (after the parenthesised command name) is the state.
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    return state === "Z" || state === "X";
  } catch {
    return true;
  }
}

/** Poll until `pid` is gone; false if it is still alive after `withinMs`. */
export async function waitForProcessGone(pid: number, withinMs: number): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  while (Date.now() < deadline) {
    if (isProcessGone(pid)) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return isProcessGone(pid);
}

/** Every process `ps` lists: pid, parent pid, state and command line. */
function listProcesses(): { pid: number; ppid: number; state: string; args: string }[] {
  const output = execFileSync("ps", ["-eo", "pid=,ppid=,stat=,args="], { encoding: "utf8" });
  return output
    .split("\n")
    .map((line) => line.trim().match(/^(\d+)\s+(\d+)\s+(\S+)\s+(.*)$/))
    .filter((match): match is RegExpMatchArray => match !== null)
    .map((match) => ({ pid: Number(match[1]), ppid: Number(match[2]), state: match[3]!, args: match[4]! }));
}

/** Pids of live (non-zombie) processes whose command line contains `needle`, as `ps` lists them. */
export function findLiveProcesses(needle: string): number[] {
  return listProcesses()
    .filter((entry) => !entry.state.startsWith("Z") && entry.args.includes(needle))
    .map((entry) => entry.pid);
}

/** Waits (up to `withinMs`) until no live process's command line contains `needle`; the pids still there. */
export async function waitForNoProcess(needle: string, withinMs = 5_000): Promise<number[]> {
  const deadline = Date.now() + withinMs;
  while (Date.now() < deadline) {
    if (findLiveProcesses(needle).length === 0) return [];
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return findLiveProcesses(needle);
}

/** Why bwrap cannot run on this machine, or null when it can: bwrap tests skip only then. */
export function findBwrapProblem(): string | null {
  try {
    execFileSync("bwrap", ["--ro-bind", "/", "/", "true"], { stdio: "pipe" });
    return null;
  } catch (error) {
    return `bwrap cannot run here (${(error as Error).message.split("\n")[0]})`;
  }
}

/** The process runners (src/sandbox/process-runner.js) that `parent` started, by their argument. */
export function findRunnerPids(parent: number): number[] {
  return listProcesses()
    .filter((entry) => entry.ppid === parent && entry.args.includes("--llm-tool-test-process-runner"))
    .map((entry) => entry.pid);
}

/** Peak resident memory of a process so far, in bytes (Linux: VmHWM). */
export function peakResidentBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kilobytes = status.match(/^VmHWM:\s+(\d+) kB$/m)?.[1];
  if (!kilobytes) throw new Error(`no VmHWM in /proc/${pid}/status`);
  return Number(kilobytes) * 1024;
}
