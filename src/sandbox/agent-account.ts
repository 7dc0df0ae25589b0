/**
 * The account an agent runs as in the local sandbox: another user than the harness's, without
 * sudo, so that it cannot read the harness's memory (`/proc/<pid>/mem` and `environ` are open to
 * the same user wherever Yama's ptrace scope is 0, as on GitHub's runners and most containers),
 * signal the harness, or write what the harness writes (the output folder, the shim's records).
 *
 * Where the harness runs as root it makes such users itself: `llm-tool-test-agent-1`, `-2`, …
 * (system accounts without a home or a login shell, made once per machine with `useradd`), one
 * per trial in flight, so that the end of a trial kills every process of its account and nothing
 * of another trial's. A trial leases its account by binding an abstract unix socket named after it:
 * the kernel keeps the name exclusive across every harness on the machine and frees it when the
 * harness exits, however it exits. Commands start through `setpriv` (util-linux) with the account's
 * uid and gid, no supplementary groups and `no_new_privs` (no setuid program, sudo included, gives
 * anything back).
 *
 * Where the harness is not root but has passwordless sudo (GitHub's runners), it does the same
 * through `sudo -n` (/usr/bin/sudo and system programs only, never one found on PATH): the
 * accounts are made, commands started, their processes killed and their files removed by root.
 * The command's environment does not pass through sudo (which would reset it) or any argv (which
 * every user can read): it is written to a file only the harness's user can read, which a root
 * `bash` reads, removes, and makes the whole environment of setpriv and the command.
 *
 * The accounts stay on the machine, a pool as large as the most trials ever in flight at once
 * (MAX_ACCOUNTS at most), reused by every later run: removing them would free their uids for the
 * next system account a package makes, which would then own whatever files an agent left in the
 * folders every user may write (/tmp, /var/tmp, /dev/shm). `userdel` removes them by hand.
 *
 * Elsewhere (not Linux, neither root nor passwordless sudo, no setpriv or useradd) there is no
 * other user to be had: the agent runs as the harness's user, and the run says so (sameUserWarning).
 */
import { randomUUID } from "node:crypto";
import { realpathSync, statSync } from "node:fs";
import { lchown, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { describeError, InfraError } from "../errors.js";
import { runProcess } from "./exec.js";
import { findProcesses } from "./marked-processes.js";
import { type NamespaceTools, openPrivateTemp, type PrivateTemp } from "./private-temp.js";
import { resolveRealBinary } from "./shim.js";
import type { HostFile } from "./types.js";

export interface AgentAccount {
  name: string;
  uid: number;
  gid: number;
}

/** A process as it must be spawned to run as the account. */
interface AccountCommand {
  file: string;
  args: string[];
  env: Record<string, string>;
}

/** An account held by one trial until released. */
export interface AccountLease {
  account: AgentAccount;
  /**
   * How `file args` starts as the account with exactly `env`, in `cwd` (in the trial's private
   * /tmp, /var/tmp and /dev/shm where it has them).
   */
  start(file: string, args: string[], env: Record<string, string>, cwd: string): Promise<AccountCommand>;
  /** Makes `dir` and everything in it the account's (symbolic links themselves, never followed). */
  handOver(dir: string): Promise<void>;
  /**
   * Removes `dir`, which holds the account's files, where the harness's own user cannot (through
   * sudo); as root, the harness's own removal does.
   */
  removeFiles(dir: string): Promise<void>;
  /** Makes `dir` and everything in it the harness's user's again (a kept work dir: no later trial of the account reaches it). */
  takeBack(dir: string): Promise<void>;
  /**
   * Removes every file of the account's in the folders every user may write (/tmp, /var/tmp,
   * /dev/shm) but those under `keep` (the trial's own folder): nothing of a trial stays there for
   * the account's next trial, or another account's, to read.
   */
  removeStrayFiles(keep: string): Promise<void>;
  /**
   * The trial ended: a lease taken from now on is given only once this one is released (its files
   * in the shared temp folders swept), so no later trial meets them.
   */
  ending(): void;
  /** SIGKILLs every process of the account, again until none is left. */
  killProcesses(): Promise<void>;
  /**
   * Lets the trial's private /tmp, /var/tmp and /dev/shm go (once its processes are killed): what
   * it left there is gone with them.
   */
  closePrivateTemp(): Promise<void>;
  /**
   * Frees the account for another trial, once the trial ended its processes (the next lease kills
   * what a holder that died left).
   */
  release(): void;
}

export type AgentIdentity = { kind: "account"; lease: AccountLease } | { kind: "same-user"; reason: string };

const ACCOUNT_PREFIX = "llm-tool-test-agent-";
/** Accounts at most (trials in flight on one machine); a lease beyond them is an infrastructure error. */
const MAX_ACCOUNTS = 256;
const KILL_ROUNDS = 50;
const KILL_PAUSE_MS = 10;
const NOLOGIN_SHELLS = ["/usr/sbin/nologin", "/sbin/nologin", "/bin/false"];
/** Leases whose trial ended, until they are released: a new lease waits for them (AccountLease.ending). */
const endedLeases = new Set<Promise<void>>();
/** The folders every user may write, where a trial's files would outlive it and meet the next trial. */
const SHARED_TEMP_FOLDERS = ["/tmp", "/var/tmp", "/dev/shm"];

interface Tools {
  setpriv: string;
  useradd: string;
  /** Sweeps the shared temp folders (removeStrayFiles). */
  find: string;
  /** The bash root runs (the sudo route's environment loader, private-temp.ts's holder): the system's. */
  bash: string;
  /** The harness is not root: every privileged step goes through this sudo. */
  sudo: SudoTools | null;
  /** Private temp folders per trial (private-temp.ts), or why the machine cannot give them. */
  privateTemp: NamespaceTools | { reason: string };
}

/** What the sudo route runs as root: system programs by full path only. */
interface SudoTools {
  sudo: string;
  chown: string;
  rm: string;
}

/** The only sudo trusted: a sudo found on PATH could be anyone's program. */
const SYSTEM_SUDO = "/usr/bin/sudo";
/** Where the sudo route finds what root runs: system folders, never the harness's PATH. */
const SYSTEM_FOLDERS = "/usr/sbin:/usr/bin:/sbin:/bin";
/**
 * Run by root's bash: `$1` is rm, `$2` the environment file (NUL-separated NAME=value). Reads it,
 * removes it, drops sudo's environment, exports the file's, then execs the rest (setpriv …).
 */
const ENVIRONMENT_LOADER = [
  "rm=$1; file=$2; shift 2; pairs=()",
  'while IFS= read -r -d "" pair; do pairs+=("$pair"); done < "$file"',
  '"$rm" -f -- "$file"',
  'for name in $(compgen -e); do unset -v "$name" 2>/dev/null; done',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell array expansion.
  'for pair in "${pairs[@]}"; do export -- "$pair" 2>/dev/null; done',
  'exec "$@"',
].join("\n");

let tools: Promise<Tools | { reason: string }> | undefined;
const verifiedAccounts = new Map<string, Promise<AgentAccount>>();

/**
 * Why the agent cannot run as another user here, or null when it can (the tools it takes found).
 * Settled once per process.
 */
export async function findSameUserReason(searchPath: string): Promise<string | null> {
  const found = await findTools(searchPath);
  return "reason" in found ? found.reason : null;
}

function findTools(searchPath: string): Promise<Tools | { reason: string }> {
  tools ??= (async () => {
    if (process.platform !== "linux") return { reason: `this is ${process.platform}, not Linux` };
    const euid = process.geteuid?.() ?? -1;
    const sudo = euid === 0 ? null : await findSudo();
    if (sudo && "reason" in sudo) return sudo;
    // Through sudo, root runs them: from the system folders only.
    const lookIn = sudo ? SYSTEM_FOLDERS : searchPath;
    const setpriv = await resolveRealBinary("setpriv", lookIn).catch(() => null);
    const useradd = await resolveRealBinary("useradd", lookIn).catch(() => null);
    if (!setpriv || !useradd) {
      return {
        reason: `${setpriv ? "useradd" : "setpriv"} is not on ${sudo ? SYSTEM_FOLDERS : "PATH"} (install util-linux and passwd)`,
      };
    }
    // Root runs it over folders every user writes: the system's, never one found on PATH.
    const find = await resolveRealBinary("find", SYSTEM_FOLDERS).catch(() => null);
    if (!find) return { reason: `find is not on ${SYSTEM_FOLDERS} (install findutils)` };
    // The root-run bash of the sudo route and of the private temp folders' holder.
    const bash = await resolveRealBinary("bash", SYSTEM_FOLDERS).catch(() => null);
    if (!bash) return { reason: `bash is not on ${SYSTEM_FOLDERS}` };
    const found: Tools = { setpriv, useradd, find, bash, sudo, privateTemp: { reason: "not probed" } };
    // The first account made and tried: a read-only /etc or a root without CAP_SETUID (some
    // containers) shows here, once, instead of failing every trial.
    try {
      await verifyAccount(`${ACCOUNT_PREFIX}1`, found);
    } catch (error) {
      return { reason: describeError(error) };
    }
    found.privateTemp = await probePrivateTemp(found);
    return found;
  })();
  return tools;
}

/** The sudo route's programs, or why there is none (sudo missing or asking for a password). */
async function findSudo(): Promise<SudoTools | { reason: string }> {
  const notRoot = `the harness runs as ${describeUser()}, not root`;
  if (!isExecutableSync(SYSTEM_SUDO)) {
    return { reason: `${notRoot}, and without ${SYSTEM_SUDO} it cannot make or become another user` };
  }
  const find = (name: string) => resolveRealBinary(name, SYSTEM_FOLDERS).catch(() => null);
  const [chown, rm] = await Promise.all([find("chown"), find("rm")]);
  if (!chown || !rm) return { reason: `${notRoot}, and chown or rm is missing from ${SYSTEM_FOLDERS}` };
  const probe = await runProcess({
    file: SYSTEM_SUDO,
    args: ["-n", "true"],
    cwd: "/",
    env: { PATH: SYSTEM_FOLDERS },
    timeoutMs: 20_000,
    outputCapBytes: 4096,
  }).catch((error: unknown) => ({ exit_code: -1, stderr: describeError(error) }));
  if (probe.exit_code !== 0) {
    return {
      reason: `${notRoot}, and \`sudo -n true\` failed (exit ${probe.exit_code}: ${probe.stderr.trim().split("\n")[0] ?? ""}), so it cannot make or become another user`,
    };
  }
  return { sudo: SYSTEM_SUDO, chown, rm };
}

/** `file args` as root: itself as root, else through sudo. */
function asRoot(found: Tools, file: string, args: string[]): { file: string; args: string[] } {
  return found.sudo ? { file: found.sudo.sudo, args: ["-n", "--", file, ...args] } : { file, args };
}

/** Runs `file args` as root (a short administrative command); its result. */
function runAsRoot(found: Tools, file: string, args: string[], timeoutMs = 60_000) {
  return runProcess({
    ...asRoot(found, file, args),
    cwd: "/",
    env: { PATH: SYSTEM_FOLDERS },
    timeoutMs,
    outputCapBytes: 16 * 1024,
  });
}

function describeUser(): string {
  try {
    return `${os.userInfo().username} (uid ${process.geteuid?.()})`;
  } catch {
    return `uid ${process.geteuid?.()}`;
  }
}

/** The warning of a local sandbox whose agent runs as the harness's own user (log, report, comment). */
export function sameUserWarning(reason: string): string {
  return (
    `local sandbox: the agent runs as the harness's own user (${reason}): it can read the harness's memory, where the API keys are, ` +
    "signal the harness's processes and write wherever the harness writes, the output folder included. Use bwrap, or run the harness as root so that the local sandbox runs each agent as a user of its own"
  );
}

/**
 * An agent account as every one of them is, for checks before any trial (every account is a system
 * user of its own group, owning nothing on the host until a trial hands it its work dir); null
 * where the agent runs as the harness's own user.
 */
export async function sampleAgentAccount(searchPath: string): Promise<AgentAccount | null> {
  const found = await findTools(searchPath);
  if ("reason" in found) return null;
  return verifyAccount(`${ACCOUNT_PREFIX}1`, found);
}

/** Where `account` is stopped on the way to a host file, and what it lacks there. */
export interface ClosedPath {
  path: string;
  /** "search" (a folder it may not pass through), "read", "execute", or "missing". */
  lacks: "search" | "read" | "execute" | "missing";
  mode: number;
}

/**
 * The first path from `/` down to `file` that is closed to `account` (a folder it may not pass
 * through, or the file it may not read or run), or null when it can use the file. Mode bits: the
 * account is in no group but its own (setpriv --clear-groups).
 */
export async function findClosedPath(
  file: string,
  account: AgentAccount,
  use: HostFile["use"],
): Promise<ClosedPath | null> {
  const target = path.resolve(file);
  const chain: string[] = [];
  for (let current = target; ; current = path.dirname(current)) {
    chain.unshift(current);
    if (path.dirname(current) === current) break;
  }
  for (const current of chain) {
    const info = await stat(current).catch(() => null);
    if (!info) return { path: current, lacks: "missing", mode: 0 };
    const isTarget = current === target;
    const needs = !isTarget || info.isDirectory() ? 0o1 : use === "read" ? 0o4 : 0o1;
    if (!grantsTo(info, account, needs)) {
      return {
        path: current,
        lacks: !isTarget || info.isDirectory() ? "search" : use,
        mode: info.mode & 0o7777,
      };
    }
  }
  return null;
}

/** Whether the bits `wanted` (of 0o7: r=4, w=2, x=1) apply to `account`: the owner's, the group's or everyone's. */
function grantsTo(
  info: { uid: number; gid: number; mode: number },
  account: AgentAccount,
  wanted: number,
): boolean {
  const shift = info.uid === account.uid ? 6 : info.gid === account.gid ? 3 : 0;
  return ((info.mode >> shift) & wanted) === wanted;
}

/** What the log says of a local sandbox whose agents run as accounts of their own. */
export const OWN_ACCOUNT_NOTE =
  "each agent runs as a user of its own without sudo (llm-tool-test-agent-N, made with useradd, through sudo where this tool is not root): it cannot read this tool's memory or environment, signal it, or write its output, " +
  "but it reads whatever every user may read on this machine, uses its network and sees its processes; use bwrap to take those away too";

/**
 * An account for one trial, or why the agent must run as the harness's user. `scratchDir`, a
 * folder of the trial's that only the harness's user may list and write, holds the sudo route's
 * environment files.
 */
export async function leaseAgentIdentity(searchPath: string, scratchDir: string): Promise<AgentIdentity> {
  const found = await findTools(searchPath);
  if ("reason" in found) return { kind: "same-user", reason: found.reason };
  for (let index = 1; index <= MAX_ACCOUNTS; index += 1) {
    const name = `${ACCOUNT_PREFIX}${index}`;
    const claim = await claimName(name);
    if (!claim) continue;
    try {
      const account = await verifyAccount(name, found);
      // What a harness that died while holding it may have left running, and its files.
      const leftovers = createLease(account, found, claim, scratchDir, null);
      await leftovers.killProcesses();
      await leftovers.removeStrayFiles(scratchDir);
      await Promise.all(endedLeases);
      const privateTemp =
        "reason" in found.privateTemp
          ? null
          : await openPrivateTemp({
              tools: found.privateTemp,
              keep: scratchDir,
              folders: sharedTempFolders(),
              asRoot: (file, args) => asRoot(found, file, args),
              bash: found.bash,
              env: { PATH: SYSTEM_FOLDERS },
            });
      return { kind: "account", lease: createLease(account, found, claim, scratchDir, privateTemp) };
    } catch (error) {
      claim.close();
      throw error;
    }
  }
  throw new InfraError(`no agent account is free: ${MAX_ACCOUNTS} trials hold one on this machine`);
}

function createLease(
  account: AgentAccount,
  found: Tools,
  claim: net.Server,
  scratchDir: string,
  privateTemp: PrivateTemp | null,
): AccountLease {
  let released = false;
  let settleEnded: (() => void) | undefined;
  const { sudo } = found;
  const closePrivateTemp = () => privateTemp?.close() ?? Promise.resolve();
  return {
    account,
    async start(file, args, env, cwd) {
      const command = [
        ...(privateTemp ? privateTemp.enter(cwd) : []),
        found.setpriv,
        ...becomeAccount(account),
        file,
        ...args,
      ];
      if (!sudo) return { file: command[0] as string, args: command.slice(1), env };
      const envFile = path.join(scratchDir, `account-env-${randomUUID()}`);
      const pairs = Object.entries(env).map(([name, value]) => `${name}=${value}\0`);
      await writeFile(envFile, pairs.join(""), { mode: 0o600, flag: "wx" });
      return {
        file: sudo.sudo,
        args: [
          "-n",
          "--",
          found.bash,
          "-c",
          ENVIRONMENT_LOADER,
          "llm-tool-test-env",
          sudo.rm,
          envFile,
          ...command,
        ],
        // sudo itself needs nothing of the command's environment.
        env: { PATH: SYSTEM_FOLDERS },
      };
    },
    async handOver(dir) {
      if (!sudo) return chownTree(dir, account.uid, account.gid);
      const result = await runAsRoot(found, sudo.chown, ["-hR", `${account.uid}:${account.gid}`, "--", dir]);
      if (result.exit_code !== 0) {
        throw new InfraError(
          `could not hand ${dir} to ${account.name} (chown through sudo, exit ${result.exit_code}: ${result.stderr.trim()})`,
        );
      }
    },
    async removeFiles(dir) {
      if (!sudo || !path.isAbsolute(dir) || path.dirname(dir) === dir) return;
      await runAsRoot(found, sudo.rm, ["-rf", "--one-file-system", "--", dir]).catch(() => undefined);
    },
    async takeBack(dir) {
      const uid = process.getuid?.() ?? 0;
      const gid = process.getgid?.() ?? 0;
      if (!sudo) return chownTree(dir, uid, gid);
      const result = await runAsRoot(found, sudo.chown, ["-hR", `${uid}:${gid}`, "--", dir]);
      if (result.exit_code !== 0) {
        throw new InfraError(
          `could not take ${dir} back from ${account.name} (chown through sudo, exit ${result.exit_code}: ${result.stderr.trim()})`,
        );
      }
    },
    async removeStrayFiles(keep) {
      const folders = sharedTempFolders();
      if (folders.length === 0) return;
      const kept = escapeFindPattern(path.resolve(keep));
      const uid = String(account.uid);
      if (!(await mayHoldStrayFiles(found, folders, kept, uid))) return;
      // -delete works depth first and never follows a link; -xdev keeps to each folder's own file system.
      const args = [...folders, "-xdev", "-mindepth", "1", "-user", uid];
      args.push("!", "-path", kept, "!", "-path", `${kept}/*`, "-delete");
      // A file that went meanwhile, or one of another user's in the account's folder, fails find: what it could remove is gone.
      await runAsRoot(found, found.find, args).catch(() => undefined);
    },
    killProcesses: () => (sudo ? killProcessesThroughSudo(account, found) : killProcessesOf(account.uid)),
    closePrivateTemp,
    ending() {
      if (released || settleEnded) return;
      const ended = new Promise<void>((resolve) => {
        settleEnded = resolve;
      });
      endedLeases.add(ended);
      void ended.then(() => endedLeases.delete(ended));
    },
    release() {
      if (released) return;
      released = true;
      // Already closed where the trial ended normally; a failed start lets it go here.
      void closePrivateTemp();
      claim.close();
      settleEnded?.();
    },
  };
}

/**
 * Whether the shared temp folders may hold a file of the account's (outside `kept`). The full sweep
 * stats every file there (a busy /tmp holds hundreds of thousands: seconds a trial, twice); this look
 * skips the folders the account cannot enter (other users' private temp dirs, most of them), where
 * it could not have made anything: it never owns them, and only their owner gives or takes their x
 * bits (an ACL that lets it in shows as the group x bit). It stops at the first file found. The
 * sweep cannot skip them itself: -delete works depth first, where -prune does nothing.
 */
async function mayHoldStrayFiles(
  found: Tools,
  folders: string[],
  kept: string,
  uid: string,
): Promise<boolean> {
  const closedToAccount = ["-type", "d", "!", "-user", uid, "!", "-perm", "-g=x", "!", "-perm", "-o=x"];
  const args = [
    ...folders,
    "-xdev",
    "-mindepth",
    "1",
    "(",
    "-path",
    kept,
    "-o",
    ...closedToAccount,
    ")",
    "-prune",
  ];
  args.push("-o", "-user", uid, "-print", "-quit");
  const look = await runAsRoot(found, found.find, args).catch(() => null);
  // find's exit 1 is a file that went while it looked (nothing of it left to remove); anything else, sweep.
  if (!look || look.timed_out || (look.exit_code !== 0 && look.exit_code !== 1)) return true;
  return look.stdout.trim() !== "";
}

/** setpriv's arguments before the command: the account's uid and gid, no other group, no_new_privs. */
function becomeAccount(account: AgentAccount): string[] {
  return [`--reuid=${account.uid}`, `--regid=${account.gid}`, "--clear-groups", "--no-new-privs", "--"];
}

/**
 * Holds `name` by binding an abstract unix socket after it (exclusive machine-wide, freed by the
 * kernel when this process exits); null when another holds it.
 */
function claimName(name: string): Promise<net.Server | null> {
  return new Promise((resolve) => {
    // Nobody is meant to connect: whoever does is hung up on.
    const server = net.createServer((socket) => socket.destroy());
    server.once("error", () => resolve(null));
    server.listen({ path: `\0llm-tool-test-lease-${name}`, exclusive: true }, () => {
      // Held, but never what keeps the harness running.
      server.unref();
      resolve(server);
    });
  });
}

/** The account `name`, made when missing; checked to be an unprivileged user setpriv can become. */
function verifyAccount(name: string, found: Tools): Promise<AgentAccount> {
  let verified = verifiedAccounts.get(name);
  if (!verified) {
    verified = (async () => {
      const account = (await lookUpAccount(name)) ?? (await makeAccount(name, found));
      if (account.uid === 0 || account.gid === 0) {
        throw new InfraError(`the agent account ${name} has uid or gid 0: remove it (userdel ${name})`);
      }
      const probe = await runAsRoot(found, found.setpriv, [...becomeAccount(account), "true"], 20_000);
      if (probe.exit_code !== 0) {
        throw new InfraError(
          `cannot start commands as the agent account ${name} with setpriv${found.sudo ? " through sudo" : ""} (exit ${probe.exit_code}: ${probe.stderr.trim()})`,
        );
      }
      return account;
    })();
    verifiedAccounts.set(name, verified);
    // A failure is tried afresh by the next lease.
    verified.catch(() => verifiedAccounts.delete(name));
  }
  return verified;
}

async function makeAccount(name: string, found: Tools): Promise<AgentAccount> {
  const shell = NOLOGIN_SHELLS.find((candidate) => isExecutableSync(candidate)) ?? "/bin/false";
  const made = await runAsRoot(found, found.useradd, [
    "--system",
    "--no-create-home",
    "--home-dir",
    "/nonexistent",
    "--shell",
    shell,
    "--user-group",
    "--comment",
    "llm-tool-test agent (local sandbox)",
    name,
  ]);
  // Exit 9: made meanwhile by another harness.
  const account = await lookUpAccount(name);
  if (account) return account;
  throw new InfraError(
    `could not make the agent account ${name} (useradd exit ${made.exit_code}: ${made.stderr.trim()})`,
  );
}

/** lchown on `dir` and everything in it (symbolic links themselves, never followed). */
async function chownTree(dir: string, uid: number, gid: number): Promise<void> {
  await lchown(dir, uid, gid);
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const entryPath = path.join(dir, entry.name);
    if (entry.isDirectory()) await chownTree(entryPath, uid, gid);
    else await lchown(entryPath, uid, gid);
  }
}

/** The shared temp folders this machine has, each once (a /var/tmp that is a link to /tmp is /tmp). */
function sharedTempFolders(): string[] {
  const folders = SHARED_TEMP_FOLDERS.filter((folder) => isFolderSync(folder)).map((folder) =>
    realpathSync(folder),
  );
  return [...new Set(folders)];
}

/**
 * Whether this machine gives each trial private temp folders (a namespace made and let go once,
 * over a throwaway folder), else why not.
 */
async function probePrivateTemp(found: Tools): Promise<NamespaceTools | { reason: string }> {
  const unshare = await resolveRealBinary("unshare", SYSTEM_FOLDERS).catch(() => null);
  const nsenter = await resolveRealBinary("nsenter", SYSTEM_FOLDERS).catch(() => null);
  const env = await resolveRealBinary("env", SYSTEM_FOLDERS).catch(() => null);
  if (!unshare || !nsenter || !env) {
    return {
      reason: `unshare, nsenter or env is not on ${SYSTEM_FOLDERS} (install util-linux and coreutils)`,
    };
  }
  const tools = { unshare, nsenter, env };
  const keep = await mkdtemp(path.join(os.tmpdir(), "llm-tool-test-probe-"));
  try {
    const held = await openPrivateTemp({
      tools,
      keep,
      folders: sharedTempFolders(),
      asRoot: (file, args) => asRoot(found, file, args),
      bash: found.bash,
      env: { PATH: SYSTEM_FOLDERS },
    });
    await held.close();
    return tools;
  } catch (error) {
    return { reason: describeError(error) };
  } finally {
    await rm(keep, { recursive: true, force: true }).catch(() => undefined);
  }
}

/**
 * Why trials of the local sandbox's agent accounts share the host's temp folders, or null where
 * each has its own (or where the agent runs as the harness's user, sameUserWarning's case).
 */
export async function findSharedTempReason(searchPath: string): Promise<string | null> {
  const found = await findTools(searchPath);
  if ("reason" in found) return null;
  return "reason" in found.privateTemp ? found.privateTemp.reason : null;
}

/** The warning of a local sandbox whose trials share /tmp, /var/tmp and /dev/shm (log, report, comment). */
export function sharedTempWarning(reason: string): string {
  return (
    `local sandbox: trials share this machine's /tmp, /var/tmp and /dev/shm (no private mount namespace here: ${reason}). ` +
    "Each trial's own TMPDIR is closed to the others and what its agent leaves in those folders is removed when it ends, " +
    "but while two trials run at once, a file one of them makes readable by all there is readable by the other. Use bwrap, run one trial at a time (--concurrency 1), or run the harness where it may make mount namespaces (root with CAP_SYS_ADMIN)"
  );
}

function isFolderSync(dir: string): boolean {
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

/** `text` matched literally by find's -path (its wildcards escaped). */
function escapeFindPattern(text: string): string {
  return text.replace(/[\\*?[\]]/g, (char) => `\\${char}`);
}

function isExecutableSync(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/** `name`'s uid and gid from /etc/passwd; null when it has no entry. */
async function lookUpAccount(name: string): Promise<AgentAccount | null> {
  const passwd = await readFile("/etc/passwd", "utf8").catch(() => "");
  for (const line of passwd.split("\n")) {
    const [user, , uid, gid] = line.split(":");
    if (user === name && uid !== undefined && gid !== undefined) {
      return { name, uid: Number(uid), gid: Number(gid) };
    }
  }
  return null;
}

/**
 * SIGKILLs every process whose real, effective or saved uid is `uid` (read from /proc/<pid>/status:
 * a process that made itself non-dumpable still shows its uids there), again until none is left,
 * so that a fork racing the kill is caught by the next round.
 */
async function killProcessesOf(uid: number): Promise<void> {
  for (let round = 0; round < KILL_ROUNDS; round += 1) {
    const pids = await findProcessesOf(uid);
    if (pids.length === 0) return;
    for (const pid of pids) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // Already gone.
      }
    }
    await new Promise((resolve) => setTimeout(resolve, KILL_PAUSE_MS));
  }
}

/**
 * killProcessesOf where the harness may not signal the account's processes: each round, a process
 * of the account's own (through sudo and setpriv) signals every process it may, `kill -KILL -1`,
 * which is every process of the account but itself.
 */
async function killProcessesThroughSudo(account: AgentAccount, found: Tools): Promise<void> {
  for (let round = 0; round < KILL_ROUNDS; round += 1) {
    if ((await findProcessesOf(account.uid)).length === 0) return;
    await runAsRoot(
      found,
      found.setpriv,
      [...becomeAccount(account), found.bash, "-c", "kill -KILL -1"],
      20_000,
    ).catch(() => undefined);
  }
}

/** Live processes (zombies left out: they are dead) with `uid` among their real, effective and saved uids. */
export function findProcessesOf(uid: number): Promise<number[]> {
  return findProcesses("status", (status) => isLiveProcessOf(status.toString("utf8"), uid));
}

function isLiveProcessOf(status: string, uid: number): boolean {
  const state = /^State:\s+(\S)/m.exec(status)?.[1];
  if (state === "Z" || state === "X") return false;
  const uids = /^Uid:\s+(\d+)\s+(\d+)\s+(\d+)/m.exec(status);
  return uids?.slice(1, 4).some((value) => Number(value) === uid) ?? false;
}
