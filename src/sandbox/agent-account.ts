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
 * Elsewhere (not root, not Linux, no setpriv or useradd) there is no other user to be had: the
 * agent runs as the harness's user, and the run says so (sameUserWarning).
 */
import { statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import { describeError, InfraError } from "../errors.js";
import { runProcess } from "./exec.js";
import { findProcesses } from "./marked-processes.js";
import { resolveRealBinary } from "./shim.js";

export interface AgentAccount {
  name: string;
  uid: number;
  gid: number;
}

/** An account held by one trial until released. */
export interface AccountLease {
  account: AgentAccount;
  /** The argv that starts `file args` as the account. */
  wrap(file: string, args: string[]): { file: string; args: string[] };
  /** SIGKILLs every process of the account, again until none is left. */
  killProcesses(): Promise<void>;
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

interface Tools {
  setpriv: string;
  useradd: string;
}

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
    if (euid !== 0) {
      return {
        reason: `the harness runs as ${describeUser()}, not root, so it cannot make or become another user`,
      };
    }
    const setpriv = await resolveRealBinary("setpriv", searchPath).catch(() => null);
    const useradd = await resolveRealBinary("useradd", searchPath).catch(() => null);
    if (!setpriv || !useradd) {
      return {
        reason: `${setpriv ? "useradd" : "setpriv"} is not on PATH (install util-linux and passwd)`,
      };
    }
    const found = { setpriv, useradd };
    // The first account made and tried: a read-only /etc or a root without CAP_SETUID (some
    // containers) shows here, once, instead of failing every trial.
    try {
      await verifyAccount(`${ACCOUNT_PREFIX}1`, found, searchPath);
    } catch (error) {
      return { reason: describeError(error) };
    }
    return found;
  })();
  return tools;
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

/** What the log says of a local sandbox whose agents run as accounts of their own. */
export const OWN_ACCOUNT_NOTE =
  "each agent runs as a user of its own without sudo (llm-tool-test-agent-N, made with useradd): it cannot read this tool's memory or environment, signal it, or write its output, " +
  "but it reads whatever every user may read on this machine, uses its network and sees its processes; use bwrap to take those away too";

/** An account for one trial, or why the agent must run as the harness's user. */
export async function leaseAgentIdentity(searchPath: string): Promise<AgentIdentity> {
  const found = await findTools(searchPath);
  if ("reason" in found) return { kind: "same-user", reason: found.reason };
  for (let index = 1; index <= MAX_ACCOUNTS; index += 1) {
    const name = `${ACCOUNT_PREFIX}${index}`;
    const claim = await claimName(name);
    if (!claim) continue;
    try {
      const account = await verifyAccount(name, found, searchPath);
      const lease = createLease(account, found.setpriv, claim);
      // What a harness that died while holding it may have left running.
      await lease.killProcesses();
      return { kind: "account", lease };
    } catch (error) {
      claim.close();
      throw error;
    }
  }
  throw new InfraError(`no agent account is free: ${MAX_ACCOUNTS} trials hold one on this machine`);
}

function createLease(account: AgentAccount, setpriv: string, claim: net.Server): AccountLease {
  let released = false;
  return {
    account,
    wrap: (file, args) => ({ file: setpriv, args: [...becomeAccount(account), file, ...args] }),
    killProcesses: () => killProcessesOf(account.uid),
    release() {
      if (released) return;
      released = true;
      claim.close();
    },
  };
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
function verifyAccount(name: string, found: Tools, searchPath: string): Promise<AgentAccount> {
  let verified = verifiedAccounts.get(name);
  if (!verified) {
    verified = (async () => {
      const account = (await lookUpAccount(name)) ?? (await makeAccount(name, found, searchPath));
      if (account.uid === 0 || account.gid === 0) {
        throw new InfraError(`the agent account ${name} has uid or gid 0: remove it (userdel ${name})`);
      }
      const probe = await runProcess({
        file: found.setpriv,
        args: [...becomeAccount(account), "true"],
        cwd: "/",
        env: { PATH: searchPath },
        timeoutMs: 10_000,
        outputCapBytes: 4096,
      });
      if (probe.exit_code !== 0) {
        throw new InfraError(
          `cannot start commands as the agent account ${name} with setpriv (exit ${probe.exit_code}: ${probe.stderr.trim()})`,
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

async function makeAccount(name: string, found: Tools, searchPath: string): Promise<AgentAccount> {
  const shell = NOLOGIN_SHELLS.find((candidate) => isExecutableSync(candidate)) ?? "/bin/false";
  const made = await runProcess({
    file: found.useradd,
    args: [
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
    ],
    cwd: "/",
    env: { PATH: searchPath },
    timeoutMs: 60_000,
    outputCapBytes: 16 * 1024,
  });
  // Exit 9: made meanwhile by another harness.
  const account = await lookUpAccount(name);
  if (account) return account;
  throw new InfraError(
    `could not make the agent account ${name} (useradd exit ${made.exit_code}: ${made.stderr.trim()})`,
  );
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
export async function killProcessesOf(uid: number): Promise<void> {
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
