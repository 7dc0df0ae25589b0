/**
 * A trial's own cgroup (cgroup v2), where the harness may make one: under its own cgroup, when that
 * is writable (root, or a delegated subtree) and the kernel has `cgroup.kill` (5.14+). Membership
 * is inherited by every descendant whatever it does to its session, parent or environment, so
 * writing `cgroup.kill` at the end ends all that the trial left. Where no cgroup can be made, the
 * environment-marker sweep (marked-processes.ts) is what remains.
 *
 * Every process of the trial is born inside the cgroup rather than moved there: the trial's
 * processes are spawned by a process runner of its own that waits in the cgroup. Moving a process
 * between cgroups takes the kernel's cgroup lock, which waits for an RCU grace period when moves
 * are sparse: about 12 ms measured inside the harness, once per command when each command moved
 * itself (BENCHMARKS.md). Now one move per trial remains, off the trial's path: when a trial ends,
 * its runner moves into a fresh, empty cgroup, where it waits for the next trial, and the old one
 * is killed. A runner is a Node process (a start-up, some 50 MB), so there are at most
 * MAX_TRIAL_RUNNERS; a trial that finds none free has each of its commands join its cgroup as it
 * starts (a `/bin/sh` writes its pid to `cgroup.procs`, then execs the command).
 */
import { randomUUID } from "node:crypto";
import { constants, existsSync, rmdirSync, writeFileSync } from "node:fs";
import { access, mkdir, readdir, readFile, rmdir, writeFile } from "node:fs/promises";
import { availableParallelism } from "node:os";
import path from "node:path";
import { startDedicatedProcessRunner } from "./exec.js";
import { isProcessAlive } from "./process-runner-protocol.js";
import type { DedicatedProcessRunner, ProcessPlacement } from "./types.js";

export interface TrialCgroup {
  /**
   * How a process of the trial starts inside the cgroup: from the trial's own runner, waiting in
   * the cgroup (chosen when the trial's first process starts), else through a shell that joins
   * the cgroup and execs it. As given (no containment) where neither could be arranged.
   */
  place(file: string, args: string[]): Promise<ProcessPlacement>;
  /**
   * Kills every process in it (SIGKILL) and removes it, its runner kept for another trial; never
   * throws. True when every process the trial started was in the cgroup (nothing else to sweep).
   * A process the trial starts afterwards (a gate's) goes into a fresh cgroup.
   */
  endProcesses(): Promise<boolean>;
  /** endProcesses, once and for all. */
  dispose(): Promise<boolean>;
}

/** How the trial's processes are contained, settled when its first one starts. */
type Containment =
  | { kind: "runner"; placed: WaitingRunner }
  | { kind: "join"; dir: string }
  | { kind: "none" };

/** A dedicated runner in a cgroup of its own that no process of a trial has entered yet. */
interface WaitingRunner {
  runner: DedicatedProcessRunner;
  dir: string;
}

/** Trial runners at most: start-ups and memory bounded whatever the concurrency. */
const MAX_TRIAL_RUNNERS = Math.max(4, 4 * availableParallelism());
/** The shell that joins a cgroup; /bin/sh is on every Linux host, whatever the agent's PATH. */
const JOIN_SHELL = "/bin/sh";
/** `$0` is the cgroup.procs file. A failed join still runs the command (the sweep remains). */
const JOIN_SCRIPT = 'echo $$ > "$0" 2>/dev/null; exec "$@"';
const REMOVE_ATTEMPTS = 50;
const REMOVE_INTERVAL_MS = 20;

let parentDir: Promise<string | null> | undefined;
const waiting: WaitingRunner[] = [];
/** Every trial runner started (dead ones are pruned when counted). */
const trialRunners = new Set<DedicatedProcessRunner>();
/** Runners being started ahead (warmTrialRunners), taken by a trial that finds none waiting. */
const coming: Promise<WaitingRunner | null>[] = [];

/**
 * The folder trial cgroups are made in (a child of this process's own cgroup, made once), or null
 * where none can be made. Checked once per process.
 */
export function findCgroupParent(): Promise<string | null> {
  parentDir ??= locateWritableParent().catch(() => null);
  return parentDir;
}

/** A new cgroup for one trial; null where cgroups cannot be used (the caller falls back on the sweep). */
export async function createTrialCgroup(): Promise<TrialCgroup | null> {
  const parent = await findCgroupParent();
  if (!parent) return null;
  let containment: Promise<Containment> | undefined;
  let disposed: Promise<boolean> | undefined;
  const endProcesses = async (): Promise<boolean> => {
    const current = containment;
    // The trial's next process (a gate's) settles a fresh containment.
    containment = undefined;
    // No process started: none to end.
    if (!current) return true;
    const settled = await current;
    if (settled.kind === "runner") await recycle(settled.placed, parent);
    if (settled.kind === "join") await killCgroup(settled.dir);
    return settled.kind !== "none";
  };
  return {
    async place(file, args) {
      containment ??= settleContainment(parent);
      const settled = await containment;
      if (settled.kind === "runner") return { file, args, runner: settled.placed.runner };
      if (settled.kind === "join") {
        return {
          file: JOIN_SHELL,
          args: ["-c", JOIN_SCRIPT, path.join(settled.dir, "cgroup.procs"), file, ...args],
        };
      }
      return { file, args };
    },
    endProcesses,
    dispose() {
      disposed ??= endProcesses();
      return disposed;
    },
  };
}

async function settleContainment(parent: string): Promise<Containment> {
  const placed = await takeWaitingRunner(parent);
  if (placed) return { kind: "runner", placed };
  const dir = await makeCgroup(parent);
  return dir ? { kind: "join", dir } : { kind: "none" };
}

/**
 * Starts runners ahead for `trials` trials at once (a Node start-up each, better spent before the
 * trials need them). False where no cgroup can be made (the trials will use the shared runners).
 */
export async function warmTrialRunners(trials: number): Promise<boolean> {
  const parent = await findCgroupParent();
  if (!parent) return false;
  const idle = waiting.length + coming.length;
  const room = MAX_TRIAL_RUNNERS - countTrialRunners();
  for (let missing = Math.min(trials - idle, room); missing > 0; missing -= 1) {
    const started = startPlacedRunner(parent);
    coming.push(started);
    void started.then((placed) => {
      const index = coming.indexOf(started);
      // Not taken by a trial while it started: it waits for one.
      if (index === -1) return;
      coming.splice(index, 1);
      if (placed) waiting.push(placed);
    });
  }
  return true;
}

/**
 * A waiting runner (else one being started ahead, else a new one while there are fewer than
 * MAX_TRIAL_RUNNERS); null where none can be had.
 */
async function takeWaitingRunner(parent: string): Promise<WaitingRunner | null> {
  for (let next = waiting.pop(); next; next = waiting.pop()) {
    if (next.runner.alive) return next;
    void killCgroup(next.dir);
  }
  const started = coming.shift();
  const placed = started ? await started : null;
  if (placed?.runner.alive) return placed;
  if (placed) void killCgroup(placed.dir);
  return countTrialRunners() < MAX_TRIAL_RUNNERS ? startPlacedRunner(parent) : null;
}

function countTrialRunners(): number {
  for (const runner of trialRunners) if (!runner.alive) trialRunners.delete(runner);
  return trialRunners.size;
}

/** A new dedicated runner in a new cgroup; null (nothing left behind) where it cannot be placed. */
async function startPlacedRunner(parent: string): Promise<WaitingRunner | null> {
  installExitCleanup();
  const runner = startDedicatedProcessRunner();
  trialRunners.add(runner);
  const dir = await placeInNewCgroup(runner, parent);
  if (dir) return { runner, dir };
  runner.close();
  return null;
}

/**
 * The trial is over: its runner leaves for a fresh cgroup (to wait there for the next trial),
 * then whatever is left in the trial's cgroup is killed.
 */
async function recycle(placed: WaitingRunner, parent: string): Promise<void> {
  const fresh = placed.runner.alive ? await placeInNewCgroup(placed.runner, parent) : null;
  if (fresh) waiting.push({ runner: placed.runner, dir: fresh });
  // Not moved out (it died, or the move failed): it goes with the trial's processes.
  else placed.runner.close();
  await killCgroup(placed.dir);
}

/** A new cgroup with `runner` in it; null (nothing left behind) where either step fails. */
async function placeInNewCgroup(runner: DedicatedProcessRunner, parent: string): Promise<string | null> {
  const dir = await makeCgroup(parent);
  if (!dir) return null;
  try {
    await writeFile(path.join(dir, "cgroup.procs"), String(runner.pid));
    return dir;
  } catch {
    await rmdir(dir).catch(() => undefined);
    return null;
  }
}

/** A new, empty cgroup under `parent`; null where it cannot be made. */
async function makeCgroup(parent: string): Promise<string | null> {
  // The harness's pid in the name: a later run removes what a harness that died left (sweepStaleCgroups).
  const dir = path.join(parent, `${process.pid}-${randomUUID()}`);
  try {
    await mkdir(dir);
    return dir;
  } catch {
    return null;
  }
}

/** Writes `cgroup.kill`, waits until the cgroup is empty, removes it. Best effort. */
async function killCgroup(dir: string): Promise<void> {
  await writeFile(path.join(dir, "cgroup.kill"), "1").catch(() => undefined);
  for (let attempt = 0; attempt < REMOVE_ATTEMPTS; attempt += 1) {
    try {
      await rmdir(dir);
      return;
    } catch (error) {
      // Gone already (ENOENT), or not ours to remove: nothing to wait for.
      if ((error as NodeJS.ErrnoException).code !== "EBUSY") return;
    }
    // A fork racing the kill lands in the cgroup and is killed by a second write.
    if (attempt % 10 === 9) await writeFile(path.join(dir, "cgroup.kill"), "1").catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, REMOVE_INTERVAL_MS));
  }
}

let exitCleanupInstalled = false;

/** When the harness exits, the waiting runners and their cgroups go with it (synchronously: it is exiting). */
function installExitCleanup(): void {
  if (exitCleanupInstalled) return;
  exitCleanupInstalled = true;
  process.once("exit", () => {
    for (const { dir } of waiting.splice(0)) removeCgroupNow(dir);
  });
}

/** killCgroup for an exiting process: a short synchronous wait for the killed runner to leave. */
function removeCgroupNow(dir: string): void {
  try {
    writeFileSync(path.join(dir, "cgroup.kill"), "1");
  } catch {
    return;
  }
  const deadline = Date.now() + REMOVE_ATTEMPTS * REMOVE_INTERVAL_MS;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  while (Date.now() < deadline) {
    try {
      rmdirSync(dir);
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EBUSY") return;
    }
    Atomics.wait(pause, 0, 0, 2);
  }
}

/**
 * `llm-tool-test/` in this process's cgroup v2 folder (made once, shared by every run there; it
 * holds no process itself), checked usable.
 */
async function locateWritableParent(): Promise<string | null> {
  if (process.platform !== "linux") return null;
  const mount = await findCgroup2Mount();
  if (!mount) return null;
  const own = (await readFile("/proc/self/cgroup", "utf8")).match(/^0::(\/.*)$/m)?.[1];
  if (own === undefined) return null;
  const ownDir = path.join(mount, own);
  const dir = path.join(ownDir, "llm-tool-test");
  await mkdir(dir, { recursive: true });
  if (!existsSync(path.join(dir, "cgroup.kill"))) return null;
  // A process moves only where it may write cgroup.procs of the destination and of the common
  // ancestor (the harness's own cgroup, where the process runners start).
  await access(path.join(ownDir, "cgroup.procs"), constants.W_OK);
  const probe = path.join(dir, `probe-${randomUUID()}`);
  await mkdir(probe);
  await access(path.join(probe, "cgroup.procs"), constants.W_OK).finally(() => rmdir(probe));
  void sweepStaleCgroups(dir);
  return dir;
}

/** Cgroups left by harnesses that died (a crash, SIGKILL): what is in them is killed, they are removed. */
export async function sweepStaleCgroups(parent: string): Promise<void> {
  const entries = await readdir(parent, { withFileTypes: true }).catch(() => []);
  const stale = entries.filter((entry) => {
    const owner = /^(\d+)-/.exec(entry.name)?.[1];
    return entry.isDirectory() && owner !== undefined && !isProcessAlive(Number(owner));
  });
  await Promise.all(stale.map((entry) => killCgroup(path.join(parent, entry.name))));
}

/** Where cgroup v2 is mounted (`/sys/fs/cgroup`, or `/sys/fs/cgroup/unified` on hybrid hosts). */
async function findCgroup2Mount(): Promise<string | null> {
  const mountInfo = await readFile("/proc/self/mountinfo", "utf8").catch(() => "");
  for (const line of mountInfo.split("\n")) {
    // ... mount-point ... - fstype source options
    const [before, after] = line.split(" - ");
    if (!before || !after?.startsWith("cgroup2 ")) continue;
    const mountPoint = before.split(" ")[4];
    if (mountPoint) return mountPoint.replace(/\\040/g, " ");
  }
  return null;
}
