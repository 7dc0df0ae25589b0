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

/** Pids of live (non-zombie) processes whose command line contains `needle`, as `ps` lists them. */
export function findLiveProcesses(needle: string): number[] {
  const output = execFileSync("ps", ["-eo", "pid=,stat=,args="], { encoding: "utf8" });
  return output
    .split("\n")
    .map((line) => line.trim().match(/^(\d+)\s+(\S+)\s+(.*)$/))
    .filter((match): match is RegExpMatchArray => match !== null)
    .filter((match) => !match[2]!.startsWith("Z") && match[3]!.includes(needle))
    .map((match) => Number(match[1]));
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
