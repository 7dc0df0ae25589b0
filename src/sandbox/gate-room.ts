/**
 * The clean room a gate's command runs in (docs/sandbox.md). Gates judge the agent, so nothing the agent
 * wrote may shape them but its work dir, which they exist to look at: not its /etc (an
 * `/etc/ld.so.preload` naming a library it built would run in every gate program), not its copies
 * of the system folders, not its HOME (`~/.jq`, `~/.sqliterc`, `~/.gitconfig` change what a gate's
 * tools do). The room is made afresh for every gate command:
 *
 * - bwrap: a new root (`gate-room/` in the trial's temp dir, outside the agent's root) with the
 *   host's system folders and /etc entries bound read-only (never the agent's copy-on-write
 *   changes), its own /etc/passwd whose home is the empty HOME /home/gate (sqlite3 finds
 *   ~/.sqliterc through passwd, not $HOME), an empty /tmp, and the work dir bound read-write at
 *   /home/eval (or its home layout's cwd), where the agent had it; the target's host folders and a script's host paths
 *   read-only. Nothing else of the agent's root is there: a command gate sees the work dir only.
 * - local: the host is all there is. HOME and TMPDIR are fresh empty folders and the environment
 *   is the scenario's; the system folders, /etc and the user's own home (where some tools look
 *   whatever HOME says) are the host's, which an agent running as the harness's user, or with sudo,
 *   could have changed. That is what local mode cannot take back (docs/sandbox.md).
 *
 * Either way the work dir must still be a directory: replaced by a symbolic link, it would take the
 * room (bwrap's bind, local mode's cwd) wherever the link points, so the gate command is refused.
 */
import { chmod, lstat, mkdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import {
  buildBwrapArgs,
  ensureRootLinks,
  type HostSystem,
  renderIdentityFiles,
  SANDBOX_HOME,
} from "./bwrap.js";

/** HOME in the bwrap gate room: a fresh empty folder beside the work dir (/home/eval). */
const GATE_ROOM_HOME = "/home/gate";

/** A gate room's HOME and TMPDIR as its commands see them. */
export interface GateRoomPaths {
  home: string;
  tmpDir: string;
}

/**
 * Refuses (throws) when a folder between the trial's temp dir `base` and the work dir (both
 * included below `base`) is not a directory: the agent replaced it with a link.
 */
async function assertWorkDirIntact(base: string, workDir: string): Promise<void> {
  const relative = path.relative(base, workDir);
  let current = base;
  for (const part of relative.split(path.sep).filter(Boolean)) {
    current = path.join(current, part);
    const info = await lstat(current).catch(() => null);
    if (!info?.isDirectory()) {
      throw new Error(
        `the work dir is gone or was replaced (${path.relative(base, current)} is ${info?.isSymbolicLink() ? "a symbolic link" : "not a directory"}): gate commands run only in the agent's own work dir`,
      );
    }
  }
}

/** Empties `dir` and makes the given folders in it (mode 1777: whichever user gates run as). */
async function renewFolders(dir: string, folders: readonly string[]): Promise<void> {
  await rm(dir, { recursive: true, force: true });
  for (const folder of folders) {
    const made = path.join(dir, folder);
    await mkdir(made, { recursive: true });
    // Sticky and world-writable, like /tmp: local mode may run commands as another user.
    await chmod(made, 0o1777);
  }
}

/** Local mode's room: HOME and TMPDIR made fresh under `gate-room/` in the trial's temp dir. */
export function createLocalGateRoom(layout: { base: string; workDir: string }): {
  paths: GateRoomPaths;
  renew(): Promise<void>;
} {
  const dir = path.join(layout.base, "gate-room");
  return {
    paths: { home: path.join(dir, "home"), tmpDir: path.join(dir, "tmp") },
    async renew() {
      await assertWorkDirIntact(layout.base, layout.workDir);
      await renewFolders(dir, ["home", "tmp"]);
    },
  };
}

export interface BwrapGateRoomOptions {
  /** The trial's temp dir (the room goes in it) and the work dir's host folder. */
  base: string;
  workDir: string;
  /** The work dir as the agent saw it, where the room binds it (default SANDBOX_HOME). */
  visibleWorkDir?: string;
  host: HostSystem;
  mapsUser: boolean;
  hostname: string;
  network: boolean;
  /** Host paths bound read-only (the target's folders). */
  readOnlyPaths: readonly string[];
}

/** bwrap's room: `enter` makes a fresh root and returns bwrap's arguments up to the command. */
export function createBwrapGateRoom(options: BwrapGateRoomOptions): {
  paths: GateRoomPaths;
  enter(hostPaths: readonly string[]): Promise<string[]>;
} {
  const root = path.join(options.base, "gate-room");
  return {
    paths: { home: GATE_ROOM_HOME, tmpDir: "/tmp" },
    async enter(hostPaths) {
      await assertWorkDirIntact(options.base, options.workDir);
      const visibleWorkDir = options.visibleWorkDir ?? SANDBOX_HOME;
      await renewFolders(root, ["etc", "tmp", GATE_ROOM_HOME.slice(1), visibleWorkDir.slice(1)]);
      const identity = renderIdentityFiles(options.mapsUser, GATE_ROOM_HOME);
      await writeFile(path.join(root, "etc", "passwd"), identity.passwd);
      await writeFile(path.join(root, "etc", "group"), identity.group);
      await writeFile(path.join(root, "etc", "hostname"), `${options.hostname}\n`);
      await ensureRootLinks(root, options.host);
      return buildBwrapArgs({
        root,
        hostname: options.hostname,
        network: options.network,
        mapsUser: options.mapsUser,
        host: options.host,
        readOnlyPaths: [...new Set([...options.readOnlyPaths, ...hostPaths])],
        workDir: visibleWorkDir,
        workDirBind: options.workDir,
      });
    },
  };
}
