/**
 * A trial's own cgroup (cgroup v2), where the harness may make one: under its own cgroup, when that
 * is writable (root, or a delegated subtree) and the kernel has `cgroup.kill` (5.14+). Every
 * command of the trial is started inside it (the spawned `sh` writes its pid to `cgroup.procs`,
 * then execs the command), and membership is inherited by every descendant whatever it does to its
 * session, parent or environment, so writing `cgroup.kill` at the end ends them all. Where no cgroup
 * can be made, the environment-marker sweep (marked-processes.ts) is what remains.
 */
import { randomUUID } from "node:crypto";
import { constants, existsSync } from "node:fs";
import { access, mkdir, readFile, rmdir, writeFile } from "node:fs/promises";
import path from "node:path";

export interface TrialCgroup {
  /** The cgroup's directory. */
  dir: string;
  /** The command, started inside the cgroup (its pid joins before the exec). */
  wrap(file: string, args: string[]): { file: string; args: string[] };
  /** Kills every process in it (SIGKILL) and removes it; never throws. */
  dispose(): Promise<void>;
}

/** The shell that joins the cgroup; /bin/sh is on every Linux host, whatever the agent's PATH. */
const JOIN_SHELL = "/bin/sh";
/** `$0` is the cgroup.procs file. A failed join still runs the command: the marker sweep remains. */
const JOIN_SCRIPT = 'echo $$ > "$0" 2>/dev/null; exec "$@"';
const REMOVE_ATTEMPTS = 50;
const REMOVE_INTERVAL_MS = 20;

let parentDir: Promise<string | null> | undefined;

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
  const dir = path.join(parent, `trial-${randomUUID()}`);
  try {
    await mkdir(dir);
  } catch {
    return null;
  }
  const procs = path.join(dir, "cgroup.procs");
  let disposed = false;
  return {
    dir,
    wrap: (file, args) => ({ file: JOIN_SHELL, args: ["-c", JOIN_SCRIPT, procs, file, ...args] }),
    async dispose() {
      if (disposed) return;
      disposed = true;
      await killCgroup(dir);
    },
  };
}

/** Writes `cgroup.kill`, waits until the cgroup is empty, removes it. Best effort. */
export async function killCgroup(dir: string): Promise<void> {
  await writeFile(path.join(dir, "cgroup.kill"), "1").catch(() => undefined);
  for (let attempt = 0; attempt < REMOVE_ATTEMPTS; attempt += 1) {
    try {
      await rmdir(dir);
      return;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT") return;
      if (code !== "EBUSY") return;
    }
    // A fork racing the kill lands in the cgroup and is killed by a second write.
    if (attempt % 10 === 9) await writeFile(path.join(dir, "cgroup.kill"), "1").catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, REMOVE_INTERVAL_MS));
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
  // A process joins only where it may write cgroup.procs of the destination and of the common
  // ancestor (the harness's own cgroup, where the process runners are).
  await access(path.join(ownDir, "cgroup.procs"), constants.W_OK);
  const probe = path.join(dir, `probe-${randomUUID()}`);
  await mkdir(probe);
  await access(path.join(probe, "cgroup.procs"), constants.W_OK).finally(() => rmdir(probe));
  return dir;
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
