/**
 * The local sandbox's agent accounts (src/sandbox/agent-account.ts), where the harness runs as
 * root: a command started through a lease runs as the account, without groups, with no_new_privs;
 * leases are exclusive while held; killing the account's processes ends even those that left the
 * trial's session and cleared their environment, without a cgroup.
 */
import { chmodSync, chownSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  type AccountLease,
  findProcessesOf,
  findSameUserReason,
  leaseAgentIdentity,
} from "../../src/sandbox/agent-account.js";
import { runProcess } from "../../src/sandbox/exec.js";
import { findLiveProcesses } from "../support/processes.js";
import { makeTempDir } from "../support/temp-dirs.js";

const searchPath = process.env.PATH ?? "/usr/bin:/bin";
const sameUserReason = await findSameUserReason(searchPath);
const held: AccountLease[] = [];

afterEach(async () => {
  for (const lease of held.splice(0)) {
    await lease.killProcesses();
    lease.release();
  }
});

async function lease(): Promise<AccountLease> {
  const identity = await leaseAgentIdentity(searchPath, makeTempDir("ltt-agent-account-"));
  if (identity.kind !== "account") throw new Error(`no account: ${identity.reason}`);
  held.push(identity.lease);
  return identity.lease;
}

async function run(account: AccountLease, script: string) {
  const started = await account.start("/bin/sh", ["-c", script], { PATH: searchPath }, "/");
  return runProcess({
    ...started,
    cwd: "/",
    timeoutMs: 20_000,
    outputCapBytes: 65_536,
  });
}

describe.skipIf(sameUserReason !== null)("agent accounts (as root)", () => {
  it("runs a command as the account: its uid and gid, no other group, no_new_privs", async () => {
    const account = await lease();
    const result = await run(account, "id -u; id -g; id -G; grep NoNewPrivs /proc/self/status");
    expect(result.exit_code, result.stderr).toBe(0);
    const [uid, gid, groups, noNewPrivs] = result.stdout.trim().split("\n");
    expect(Number(uid)).toBe(account.account.uid);
    expect(Number(gid)).toBe(account.account.gid);
    expect(groups).toBe(String(account.account.gid));
    expect(noNewPrivs).toMatch(/^NoNewPrivs:\s+1$/);
    expect(account.account.uid).not.toBe(0);
    expect(account.account.name).toMatch(/^llm-tool-test-agent-\d+$/);
  });

  it("gives each lease held at once an account of its own, and leases again once one is released", async () => {
    const first = await lease();
    const second = await lease();
    expect(second.account.uid).not.toBe(first.account.uid);
    first.release();
    held.splice(held.indexOf(first), 1);
    // (Which account comes next depends on what other harnesses on the machine hold meanwhile.)
    const third = await lease();
    expect(third.account.uid).not.toBe(second.account.uid);
  });

  it("kills every process of the account, setsid, double-forked and environment-clearing ones included", async () => {
    const account = await lease();
    const tag = `${process.pid}${Math.floor(Math.random() * 1e6)}`;
    const sleeps = [`301.${tag}1`, `301.${tag}2`, `301.${tag}3`];
    const started = await run(
      account,
      [
        `setsid sleep ${sleeps[0]} >/dev/null 2>&1 &`,
        `( ( sleep ${sleeps[1]} >/dev/null 2>&1 & ) & )`,
        `env -i setsid sleep ${sleeps[2]} >/dev/null 2>&1 &`,
        `until [ "$(pgrep -c -f '^sleep 301\\.${tag}')" = 3 ]; do sleep 0.02; done`,
      ].join("\n"),
    );
    expect(started.exit_code, started.stderr).toBe(0);
    expect((await findProcessesOf(account.account.uid)).length).toBeGreaterThanOrEqual(3);
    await account.killProcesses();
    expect(await findProcessesOf(account.account.uid)).toEqual([]);
    expect(sleeps.flatMap((sleep) => findLiveProcesses(sleep))).toEqual([]);
  });

  it("removes the account's files from the shared temp folders, below others' folders it may enter, but not the kept one", async () => {
    const account = await lease();
    const { uid, gid } = account.account;
    // Files of the account's on the host, as a trial leaves them where no private /tmp could be
    // made, or a harness that died: made here and given to the account (its own commands now
    // write into the trial's private /tmp, which never reaches the host).
    const leave = (file: string, dir = false) => {
      if (dir) mkdirSync(file);
      else writeFileSync(file, "x\n");
      chownSync(file, uid, gid);
    };
    // All three under the test file's TMPDIR, itself in /tmp. `open` is root's but passable, as is /tmp.
    const shared = path.join(makeTempDir("ltt-stray-open-"), "shared");
    const closed = makeTempDir("ltt-stray-closed-");
    const kept = makeTempDir("ltt-stray-kept-");
    mkdirSync(shared);
    for (const dir of [shared, closed, kept]) chmodSync(dir, 0o777);
    leave(`${closed}/file`);
    leave(`${kept}/file`);
    // Its owner (not the account) closes it: the account can make nothing in it since.
    chmodSync(closed, 0o700);
    await account.removeStrayFiles(kept);
    // Not looked into, so nothing was found to sweep (what keeps a busy /tmp fast); its owner reads it anyway.
    expect(existsSync(`${closed}/file`)).toBe(true);
    leave(`${shared}/file`);
    leave(`${shared}/dir`, true);
    leave(`${shared}/dir/inner`);
    await account.removeStrayFiles(kept);
    expect(existsSync(`${shared}/file`)).toBe(false);
    expect(existsSync(`${shared}/dir`)).toBe(false);
    // Found one: the sweep that followed took every file of the account's, in closed folders too.
    expect(existsSync(`${closed}/file`)).toBe(false);
    expect(existsSync(`${kept}/file`)).toBe(true);
  });
});

describe.runIf(sameUserReason !== null)("agent accounts (not root)", () => {
  it("says why there is none, and leases none", async () => {
    expect(sameUserReason).toMatch(/not root|not Linux|not on /);
    expect((await leaseAgentIdentity(searchPath, makeTempDir("ltt-agent-account-"))).kind).toBe("same-user");
  });
});
