/**
 * The local sandbox: a fresh work dir on the host (`work/`, with `tmp/` next to it); commands run
 * there with the parent's PATH after the shim. A scenario's home layout (a bashkit dataset's) puts
 * the agent's cwd and HOME at its paths under `work/`, where a scenario's absolute paths go: the
 * agent sees host paths, but HOME unset, absent or apart from the cwd as the layout says (`~`
 * without HOME is the account's own passwd home: local mode cannot change that). Where the harness can have another user
 * (agent-account.ts: as root, or through passwordless sudo), every command of the trial (setup, agent, gates) runs as an account
 * of the trial's own: the work dir is handed to it, the trial's temp dir can be passed through but
 * not listed, and what the harness writes (the output folder, the shim's scripts and records) stays
 * out of its reach; its commands see /tmp, /var/tmp and /dev/shm of the trial's own (private-temp.ts, where a
 * mount namespace can be made), and what the account left in the host's is removed when the trial ends. Elsewhere
 * commands run as the harness's user, and the run says so.
 */
import { chmod, mkdir, stat } from "node:fs/promises";
import path from "node:path";
import { InfraError } from "../errors.js";
import {
  type AccountLease,
  findClosedPath,
  findSameUserReason,
  leaseAgentIdentity,
} from "./agent-account.js";
import { runProcess } from "./exec.js";
import { createLocalGateRoom } from "./gate-room.js";
import { shellLauncher } from "./persistent-shell.js";
import type {
  ProcessSettings,
  SandboxStrategy,
  SandboxStrategyOptions,
  TrialLayout,
} from "./sandbox-strategy.js";
import { resolveRealBinary } from "./shim.js";

/** Where trial temp dirs go when the one asked for cannot be passed through by other users. */
const SHARED_TMP_ROOT = "/tmp";

export function createLocalStrategy(options: SandboxStrategyOptions): SandboxStrategy {
  const { parentPath } = options;
  return {
    endsLeftoverProcesses: false,
    async chooseTmpRoot(tmpRoot) {
      // The harness's own user reaches wherever it asked.
      if ((await findSameUserReason(parentPath)) !== null) return tmpRoot;
      await mkdir(tmpRoot, { recursive: true });
      if (await isPassableByOthers(tmpRoot)) return tmpRoot;
      return SHARED_TMP_ROOT;
    },
    layOut(base) {
      const root = path.join(base, "work");
      const workDir = options.home ? path.join(root, options.home.workDir) : root;
      return { root, workDir, tmpDir: path.join(base, "tmp") };
    },
    async open(layout, processes) {
      const shell = await resolveShell(parentPath);
      const home = options.home
        ? options.home.home === null
          ? null
          : path.join(layout.root, options.home.home)
        : layout.workDir;
      if (home !== null && options.home?.homeExists) await mkdir(home, { recursive: true });
      const gateRoom = createLocalGateRoom(layout);
      // The trial's folder is the harness's own (0711 once handed over): the sudo route's scratch.
      const identity = await leaseAgentIdentity(parentPath, layout.base);
      const lease = identity.kind === "account" ? identity.lease : null;
      if (lease) {
        try {
          // The whole root: a home layout's cwd and HOME are folders in it.
          await handOver(layout, lease);
        } catch (error) {
          // No command ran yet: nothing of the account's to end.
          lease.release();
          throw error;
        }
      }
      const run = async (file: string, args: string[], settings: ProcessSettings) => {
        const started = lease
          ? await lease.start(file, args, settings.env, layout.workDir)
          : { file, args, env: settings.env };
        return runProcess({
          cwd: layout.workDir,
          ...settings,
          ...started,
          processGroups: processes.groups,
          ...(processes.place ? { place: processes.place } : {}),
        });
      };
      return {
        workDir: layout.workDir,
        home,
        tmpDir: layout.tmpDir,
        shimDir: layout.shimDir,
        logDir: layout.logDir,
        userName: "agent",
        basePath: parentPath,
        runShell: (command, settings) => run(shell, ["-c", command], settings),
        shellBash: shell,
        startShell: (controlDir, settings) => {
          const launcher = shellLauncher(controlDir, shell);
          return { visibleDir: controlDir, exited: run(launcher.file, launcher.args, settings) };
        },
        gateRoom: gateRoom.paths,
        runGateShell: async (command, settings) => {
          await gateRoom.renew();
          return run(shell, ["-c", command], settings);
        },
        // Programs need no binding here: the host's files are all visible.
        runProcess: (file, args, { programs: _programs, ...settings }) => run(file, args, settings),
        resolveTarget: async (binary) => {
          const real = await resolveRealBinary(binary, parentPath, layout.workDir);
          if (lease && (await findClosedPath(real, lease.account, "execute"))) {
            throw new InfraError(
              `target binary ${real} cannot be run by the agent's account ${lease.account.name}: it, or a folder above it, is closed to that user (install the tool where every user may run it, e.g. /usr/local/bin, or give it and its folders o+rx)`,
            );
          }
          return real;
        },
        ...(lease
          ? {
              // Every command ran as the account: killing its processes ends them all.
              endProcesses: async () => {
                await lease.killProcesses();
                return true;
              },
              ending: () => lease.ending(),
              close: async ({ keepFiles }) => {
                try {
                  // Its processes are gone: its private /tmp, /var/tmp and /dev/shm go with them.
                  await lease.closePrivateTemp();
                  // Kept files become the harness's user's: the account's next trial must not reach them.
                  if (keepFiles) {
                    await lease.takeBack(layout.root);
                    await lease.takeBack(layout.tmpDir);
                  }
                  // Files of the account's that the harness's own user may not remove (sudo route).
                  else await lease.removeFiles(layout.base);
                  // What the trial left in /tmp, /var/tmp and /dev/shm goes with it.
                  await lease.removeStrayFiles(layout.base);
                } finally {
                  lease.release();
                }
              },
            }
          : {}),
      };
    },
  };
}

/**
 * The root (the work dir, the fixture, files and guidance in it) and TMPDIR become the account's;
 * the trial's temp dir can be passed through (to the work dir, TMPDIR, the shim) but not listed or
 * written. TMPDIR is closed to every other user: another trial's account, which can see this
 * trial's paths in its processes' command lines, must not read what it keeps there.
 */
async function handOver(layout: TrialLayout, lease: AccountLease): Promise<void> {
  const { base, root, tmpDir } = layout;
  if (!(await isPassableByOthers(path.dirname(base)))) {
    throw new InfraError(
      `the agent's account ${lease.account.name} cannot reach the trial's folder ${base}: a folder above it is closed to other users (give it o+x, or set TMPDIR to a folder others can pass through)`,
    );
  }
  await chmod(base, 0o711);
  await lease.handOver(root);
  await chmod(tmpDir, 0o700);
  await lease.handOver(tmpDir);
}

/** Whether every folder from `/` down to `dir` lets other users pass through (o+x). */
async function isPassableByOthers(dir: string): Promise<boolean> {
  for (let current = path.resolve(dir); ; current = path.dirname(current)) {
    const info = await stat(current).catch(() => null);
    if (!info || (info.mode & 0o001) === 0) return false;
    if (path.dirname(current) === current) return true;
  }
}

/** bash on each PATH, looked up once per process (kept for its life), not once per trial (a stat per PATH entry). */
const shellLookups = new Map<string, Promise<string>>();

function resolveShell(searchPath: string): Promise<string> {
  let lookup = shellLookups.get(searchPath);
  if (!lookup) {
    lookup = resolveRealBinary("bash", searchPath).catch(() => "/bin/bash");
    shellLookups.set(searchPath, lookup);
  }
  return lookup;
}
