/**
 * The bubblewrap sandbox: a host temp dir becomes `/`, system directories are bound read-only,
 * /proc and /dev are fresh, /tmp and /home/eval live in the root, the network is off unless the
 * scenario allows it, and every namespace (pid included) dies with the bwrap process: a command's
 * background children do not outlive its bash call.
 *
 * A scenario may ask for writable system directories (bashkit datasets do: their tasks write
 * /lib/utils.sh as they could in bashkit's virtual filesystem). Each system directory is then a
 * copy-on-write overlay whose changes land in the root (`root/usr` for /usr), so gates see them and
 * they go with the trial. bwrap before 0.10 (Debian 12 ships 0.8) has no overlay options, so the
 * overlay is the kernel's, mounted in a user and mount namespace of its own (`unshare`) just before
 * bwrap starts inside it; where that is not possible the directories stay read-only.
 */
import { lstatSync } from "node:fs";
import { chmod, lstat, mkdir, mkdtemp, readdir, readlink, realpath, rm, symlink } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { ConfigError, describeError } from "../errors.js";
import { runProcess } from "./exec.js";

export const SANDBOX_HOME = "/home/eval";
export const SANDBOX_USER = "eval";
/** Where the shim's directory and its log are bound inside the sandbox. */
export const SANDBOX_SHIM_DIR = "/run/llm-tool-test/bin";
export const SANDBOX_LOG_DIR = "/run/llm-tool-test/log";
/** Where the agent's persistent shell sees its control folder (its FIFOs: persistent-shell.ts). */
export const SANDBOX_SHELL_DIR = "/run/llm-tool-test/shell";
/** Where the shim broker's server sees its control folder (its FIFOs: shim-broker.ts), in its sandbox only. */
export const SANDBOX_BROKER_DIR = "/run/llm-tool-test/broker";
export const SANDBOX_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
const SANDBOX_UID = 1000;
const SANDBOX_GID = 1000;

/** Host directories bound read-only at the same place (symlinks, as on merged-/usr systems, are
 * recreated as symlinks in the root). */
const SYSTEM_DIRS = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"];
/** What of /etc programs need: the dynamic loader, alternatives (awk, python...), name service,
 * TLS roots, time zone, MIME/magic data, interpreters' config. passwd/group are written fresh. */
const ETC_ENTRIES = [
  "alternatives",
  "ld.so.cache",
  "ld.so.conf",
  "ld.so.conf.d",
  "nsswitch.conf",
  "host.conf",
  "hosts",
  "resolv.conf",
  "gai.conf",
  "services",
  "protocols",
  "ssl",
  "ca-certificates",
  "ca-certificates.conf",
  "pki",
  "crypto-policies",
  "localtime",
  "timezone",
  "mime.types",
  "magic",
  "magic.mime",
  "os-release",
  "lsb-release",
  "debian_version",
  "inputrc",
  "perl",
  "python3",
  "gitconfig",
  "shells",
  "locale.alias",
];

export interface HostSystem {
  /** System directories bound read-only. */
  systemDirs: string[];
  /** System directories that are symlinks on the host (`/bin -> usr/bin`), made in the root. */
  systemLinks: { path: string; target: string }[];
  /** /etc entries that exist on this host. */
  etcEntries: string[];
  /** The shell inside the sandbox. */
  bash: string;
}

let hostSystem: Promise<HostSystem> | undefined;

/** What this host has of the system directories (computed once). */
export function inspectHostSystem(): Promise<HostSystem> {
  hostSystem ??= (async () => {
    const systemDirs: string[] = [];
    const systemLinks: { path: string; target: string }[] = [];
    for (const dir of SYSTEM_DIRS) {
      const info = await lstat(dir).catch(() => null);
      if (!info) continue;
      if (info.isSymbolicLink()) systemLinks.push({ path: dir, target: await readlink(dir) });
      else if (info.isDirectory()) systemDirs.push(dir);
    }
    const etcEntries: string[] = [];
    const etcNames = new Set(await readdir("/etc").catch(() => [] as string[]));
    for (const name of etcNames) {
      // Versioned interpreter config such as /etc/python3.11.
      if (ETC_ENTRIES.includes(name) || /^python3\.\d+$/.test(name)) etcEntries.push(`/etc/${name}`);
    }
    const bashInfo = await lstat("/bin/bash").catch(() => null);
    return {
      systemDirs,
      systemLinks,
      etcEntries: etcEntries.sort(),
      bash: bashInfo ? "/bin/bash" : "/usr/bin/bash",
    };
  })();
  return hostSystem;
}

export interface BwrapProbe {
  /** Whether bwrap can map the sandbox user to uid 1000 (a user namespace). */
  mapsUser: boolean;
}

const probes = new Map<string, Promise<BwrapProbe>>();

/**
 * Check once per bwrap binary that it runs here: first `bwrap --ro-bind / / true`, then with the
 * namespaces the sandbox uses. Missing or blocked bwrap is a ConfigError saying how to fix it.
 */
export function probeBwrap(bwrapPath: string): Promise<BwrapProbe> {
  const key = bwrapPath;
  let probe = probes.get(key);
  if (!probe) {
    probe = runProbe(bwrapPath);
    probes.set(key, probe);
    // A failed probe may be fixed (apt-get install) while a long-lived process runs: retry then.
    probe.catch(() => probes.delete(key));
  }
  return probe;
}

const INSTALL_HINT = "install it (sudo apt-get install -y bubblewrap) or use the local sandbox";
const USERNS_HINT =
  "unprivileged user namespaces are probably blocked: on Ubuntu 24.04 (GitHub-hosted runners, where " +
  "the action does this unless `sandbox-setup: false`) run " +
  "`sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0`; in a container, allow user " +
  "namespaces (e.g. docker run --security-opt seccomp=unconfined --security-opt apparmor=unconfined) " +
  "or use the local sandbox";

async function runProbe(bwrapPath: string): Promise<BwrapProbe> {
  const run = (args: string[]) =>
    runProcess({
      file: bwrapPath,
      args,
      cwd: "/",
      env: { PATH: SANDBOX_PATH },
      timeoutMs: 20_000,
      outputCapBytes: 4096,
    }).catch((error: unknown) => {
      throw new ConfigError(
        `sandbox "bwrap" needs bubblewrap, but ${bwrapPath} could not be started (${describeError(error)}): ${INSTALL_HINT}`,
      );
    });
  const basic = await run(["--ro-bind", "/", "/", "true"]);
  if (basic.exit_code !== 0) {
    throw new ConfigError(
      `sandbox "bwrap" cannot run here: \`bwrap --ro-bind / / true\` failed (exit ${basic.exit_code}: ${firstLine(basic.stderr)}); ${USERNS_HINT}`,
    );
  }
  const mapped = await run([...bwrapProbeArgs(true), "true"]);
  if (mapped.exit_code === 0) return { mapsUser: true };
  const unmapped = await run([...bwrapProbeArgs(false), "true"]);
  if (unmapped.exit_code === 0) return { mapsUser: false };
  throw new ConfigError(
    `sandbox "bwrap" cannot run here: bwrap cannot create its namespaces (exit ${unmapped.exit_code}: ${firstLine(unmapped.stderr)}); ${USERNS_HINT}`,
  );
}

/**
 * bwrap's arguments, up to the command, that create the namespaces the sandbox uses: what a probe
 * runs `true` with (here, and in the action's setup of the runner).
 */
export function bwrapProbeArgs(mapsUser: boolean): string[] {
  const user = mapsUser ? ["--unshare-user", "--uid", String(SANDBOX_UID), "--gid", String(SANDBOX_GID)] : [];
  return [
    ...user,
    "--unshare-all",
    "--die-with-parent",
    "--new-session",
    "--ro-bind",
    "/",
    "/",
    "--proc",
    "/proc",
    "--dev",
    "/dev",
  ];
}

/** The sandbox's hostname unless the scenario names another. */
export const DEFAULT_HOSTNAME = "sandbox";

export interface BwrapLayout {
  /** Host dir that becomes `/`. */
  root: string;
  /** Default DEFAULT_HOSTNAME. */
  hostname?: string;
  /** System directories mounted copy-on-write (host mount points of their overlays), bound
   * writable instead of read-only. */
  overlays?: SystemOverlay[];
  network: boolean;
  mapsUser: boolean;
  host: HostSystem;
  /** Host paths bound read-only at the same place (the target binary and what it needs). */
  readOnlyPaths: string[];
  /** Host dir of the shim scripts, bound read-only at SANDBOX_SHIM_DIR. */
  shimDir?: string;
  /** Host dir of the shim's record channel, bound read-only at SANDBOX_LOG_DIR: the FIFO in it
   * stays writable (a FIFO is not written through its file system), but cannot be replaced, removed,
   * chmodded (so not read) or joined by other files. */
  logDir?: string;
  /** The working directory inside (default SANDBOX_HOME; a scenario's home layout may name another). */
  workDir?: string;
  /** Host dir bound read-write at the working directory over the root's own (a gate's clean room, gate-room.ts). */
  workDirBind?: string;
  /** Host paths bound read-only at another place, after everything else (so they cover it). */
  movedBinds?: { from: string; to: string }[];
}

/** Arguments to bwrap up to (not including) the command. */
export function buildBwrapArgs(layout: BwrapLayout): string[] {
  const args = ["--unshare-all"];
  if (layout.network) args.push("--share-net");
  if (layout.mapsUser)
    args.push("--unshare-user", "--uid", String(SANDBOX_UID), "--gid", String(SANDBOX_GID));
  args.push("--hostname", layout.hostname ?? DEFAULT_HOSTNAME, "--die-with-parent", "--new-session");
  args.push("--bind", layout.root, "/");
  const workDir = layout.workDir ?? SANDBOX_HOME;
  if (layout.workDirBind) args.push("--bind", layout.workDirBind, workDir);
  // Symlinks are made in the root by ensureRootLinks: bwrap's --symlink fails once one exists.
  for (const dir of layout.host.systemDirs) {
    const overlay = layout.overlays?.find((candidate) => candidate.dir === dir);
    if (overlay) args.push("--bind", overlay.merged, dir);
    else args.push("--ro-bind", dir, dir);
  }
  args.push("--proc", "/proc", "--dev", "/dev");
  for (const entry of layout.host.etcEntries) args.push("--ro-bind", entry, entry);
  for (const entry of layout.readOnlyPaths) args.push("--ro-bind", entry, entry);
  if (layout.shimDir) args.push("--ro-bind", layout.shimDir, SANDBOX_SHIM_DIR);
  if (layout.logDir) args.push("--ro-bind", layout.logDir, SANDBOX_LOG_DIR);
  for (const bind of layout.movedBinds ?? []) args.push("--ro-bind", bind.from, bind.to);
  args.push("--chdir", workDir);
  return args;
}

/** One system directory made writable: the host's `dir` below, `upper` (in the root) above. */
export interface SystemOverlay {
  /** The system directory, e.g. /usr. */
  dir: string;
  /** Where changes land: the same path inside the root, so gates find them. */
  upper: string;
  /** The overlay's scratch directory, outside the root. */
  work: string;
  /** Empty mount point, outside the root; the overlay exists only in the namespace of one command. */
  merged: string;
}

/** The programs that mount the overlays before bwrap starts. */
export interface OverlayLauncher {
  unshare: string;
  sh: string;
  mount: string;
}

/** The overlays of a sandbox whose root is `root` and scratch space `scratch` (both made here). */
export async function prepareSystemOverlays(
  host: HostSystem,
  root: string,
  scratch: string,
): Promise<SystemOverlay[] | null> {
  // The overlay's mount options are a comma-separated list: such a path cannot be written in it.
  if (/[,:\\]/.test(root) || /[,:\\]/.test(scratch)) return null;
  const overlays: SystemOverlay[] = [];
  for (const dir of host.systemDirs) {
    const name = dir.slice(1).replaceAll("/", "_");
    const overlay = {
      dir,
      upper: path.join(root, dir),
      work: path.join(scratch, "work", name),
      merged: path.join(scratch, "merged", name),
    };
    for (const made of [overlay.upper, overlay.work, overlay.merged]) await mkdir(made, { recursive: true });
    overlays.push(overlay);
  }
  return overlays;
}

/**
 * The command that runs bwrap with its overlays mounted: `unshare` makes a user namespace (the
 * caller as root) and a mount namespace, a shell mounts each overlay there, then execs bwrap, so
 * the process keeps its pid (and bwrap's --die-with-parent its parent).
 */
export function wrapWithOverlays(
  launcher: OverlayLauncher,
  overlays: readonly SystemOverlay[],
  bwrapPath: string,
  bwrapArgs: string[],
): { file: string; args: string[] } {
  const mounts = overlays.flatMap((overlay) => [overlay.dir, overlay.upper, overlay.work, overlay.merged]);
  return {
    file: launcher.unshare,
    args: [
      "--user",
      "--map-root-user",
      "--mount",
      "--",
      launcher.sh,
      "-c",
      MOUNT_SCRIPT,
      "mount-overlays",
      launcher.mount,
      ...mounts,
      "--",
      bwrapPath,
      ...bwrapArgs,
    ],
  };
}

/** $1 is mount, then groups of (lower, upper, work, merged) up to `--`, then the command. */
const MOUNT_SCRIPT = [
  "mount=$1; shift",
  'while [ "$1" != "--" ]; do',
  '  "$mount" -t overlay overlay -o "lowerdir=$1,upperdir=$2,workdir=$3" "$4" || exit 125',
  "  shift 4",
  "done",
  "shift",
  'exec "$@"',
].join("\n");

const overlayProbes = new Map<string, Promise<boolean>>();

/**
 * Whether overlays can be mounted here the way wrapWithOverlays does (unprivileged user
 * namespaces, overlayfs in them: Linux 5.11+), checked once per bwrap binary with a real overlay
 * over /usr and a write through it.
 */
export function probeSystemOverlays(
  launcher: OverlayLauncher,
  bwrapPath: string,
  mapsUser: boolean,
): Promise<boolean> {
  const key = `${bwrapPath}\0${mapsUser}`;
  let probe = overlayProbes.get(key);
  if (!probe) {
    probe = runOverlayProbe(launcher, bwrapPath, mapsUser).catch(() => false);
    overlayProbes.set(key, probe);
  }
  return probe;
}

async function runOverlayProbe(
  launcher: OverlayLauncher,
  bwrapPath: string,
  mapsUser: boolean,
): Promise<boolean> {
  const scratch = await mkdtemp(path.join(os.tmpdir(), "llm-tool-test-overlay-probe-"));
  try {
    const upper = path.join(scratch, "upper");
    const overlay: SystemOverlay = {
      dir: "/usr",
      upper,
      work: path.join(scratch, "work"),
      merged: path.join(scratch, "merged"),
    };
    for (const made of [overlay.upper, overlay.work, overlay.merged]) await mkdir(made, { recursive: true });
    const user = mapsUser
      ? ["--unshare-user", "--uid", String(SANDBOX_UID), "--gid", String(SANDBOX_GID)]
      : [];
    const args = [
      ...user,
      "--unshare-all",
      "--die-with-parent",
      "--ro-bind",
      "/",
      "/",
      "--bind",
      overlay.merged,
      "/usr",
      "--proc",
      "/proc",
      "--dev",
      "/dev",
      launcher.sh,
      "-c",
      "echo ok > /usr/.llm-tool-test-probe",
    ];
    const command = wrapWithOverlays(launcher, [overlay], bwrapPath, args);
    const run = await runProcess({
      ...command,
      cwd: "/",
      env: { PATH: SANDBOX_PATH },
      timeoutMs: 20_000,
      outputCapBytes: 4096,
    });
    return (
      run.exit_code === 0 &&
      (await lstat(path.join(upper, ".llm-tool-test-probe")).catch(() => null)) !== null
    );
  } finally {
    // The kernel leaves its own scratch folder (work/work) with no permissions.
    await chmod(path.join(scratch, "work", "work"), 0o700).catch(() => undefined);
    await rm(scratch, { recursive: true, force: true }).catch(() => undefined);
  }
}

/** Make (again, if the agent removed them) the system symlinks such as `/bin -> usr/bin` in the root. */
export async function ensureRootLinks(root: string, host: HostSystem): Promise<void> {
  for (const link of host.systemLinks) {
    const where = path.join(root, link.path);
    // Synchronous: microseconds, where each await is a turn of the event loop before every call of
    // the target (shim-broker.ts) on a busy machine.
    if (lstatSync(where, { throwIfNoEntry: false })) continue;
    await symlink(link.target, where).catch(() => undefined);
  }
}

/** /etc/passwd and /etc/group of the sandbox: the agent is `eval`, home /home/eval (or `home`: what `~` names without HOME). */
export function renderIdentityFiles(
  mapsUser: boolean,
  home = SANDBOX_HOME,
): { passwd: string; group: string } {
  const uid = mapsUser ? SANDBOX_UID : (process.getuid?.() ?? SANDBOX_UID);
  const gid = mapsUser ? SANDBOX_GID : (process.getgid?.() ?? SANDBOX_GID);
  const rootLine = uid === 0 ? [] : ["root:x:0:0:root:/root:/bin/bash"];
  const rootGroup = gid === 0 ? [] : ["root:x:0:"];
  return {
    passwd: [
      ...rootLine,
      `${SANDBOX_USER}:x:${uid}:${gid}:eval:${home}:/bin/bash`,
      "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin",
      "",
    ].join("\n"),
    group: [...rootGroup, `${SANDBOX_USER}:x:${gid}:`, "nogroup:x:65534:", ""].join("\n"),
  };
}

/**
 * Host paths to bind read-only so the target binary runs inside: its directory and, through
 * symlinks, the real file's directory (for an npm package, its whole node_modules folder).
 * Directories that contain the sandbox itself are replaced by the single file.
 */
export async function collectTargetBinds(binaryPath: string, sandboxBase: string): Promise<string[]> {
  const real = await realpath(binaryPath).catch(() => binaryPath);
  const wanted = new Set<string>([path.dirname(binaryPath), path.dirname(real)]);
  // node_modules as reached through the given path too (a linked node_modules: .bin's relative links).
  for (const candidate of [real, binaryPath]) {
    const nodeModules = candidate.indexOf(`${path.sep}node_modules${path.sep}`);
    if (nodeModules !== -1) wanted.add(candidate.slice(0, nodeModules + "/node_modules".length));
  }
  const binds: string[] = [];
  for (const dir of wanted) {
    if (isUnderSystemDir(dir)) continue;
    if (isInside(sandboxBase, dir) || dir === "/") {
      for (const file of new Set([binaryPath, real])) if (path.dirname(file) === dir) binds.push(file);
      continue;
    }
    binds.push(dir);
  }
  return [...new Set(binds)];
}

export function isUnderSystemDir(target: string): boolean {
  return SYSTEM_DIRS.some((dir) => target === dir || target.startsWith(`${dir}/`));
}

/** True when `child` is `parent` or inside it. */
function isInside(child: string, parent: string): boolean {
  const relative = path.relative(parent, child);
  return relative === "" || (!relative.startsWith("..") && !path.isAbsolute(relative));
}

function firstLine(text: string): string {
  const line = text.trim().split("\n")[0] ?? "";
  return line.length > 0 ? line : "no error output";
}
