import { existsSync, readdirSync } from "node:fs";
import { mkdir, readFile, rmdir, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { InfraError } from "../../src/errors.js";
import { runProcess } from "../../src/sandbox/exec.js";
import {
  createTrialCgroup,
  findCgroupParent,
  sweepStaleCgroups,
  type TrialCgroup,
} from "../../src/sandbox/trial-cgroup.js";
import type { DedicatedProcessRunner } from "../../src/sandbox/types.js";
import { findLiveProcesses } from "../support/processes.js";

const parent = await findCgroupParent();

function runIn(cgroup: TrialCgroup, script: string) {
  return runProcess({
    file: "/bin/bash",
    args: ["-c", script],
    cwd: "/",
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
    timeoutMs: 10_000,
    outputCapBytes: 4096,
    place: cgroup.place,
  });
}

/** The trial's own runner (null: its processes join the cgroup one by one instead). */
async function runnerOf(cgroup: TrialCgroup): Promise<DedicatedProcessRunner | null> {
  return (await cgroup.place("/bin/true", [])).runner ?? null;
}

/** The cgroup v2 path of a process, as /proc shows it. */
async function cgroupOf(pid: number | string): Promise<string> {
  const text = await readFile(`/proc/${pid}/cgroup`, "utf8");
  return text.match(/^0::(.*)$/m)?.[1] ?? "";
}

function uniqueSleep(): string {
  return `sleep 301.${process.pid}${Math.floor(Math.random() * 1e6)}`;
}

describe.skipIf(parent === null)("a trial's cgroup", () => {
  it("holds what a command leaves behind, environment cleared or not, and ends it on dispose", async () => {
    const cgroup = await createTrialCgroup();
    expect(cgroup).not.toBeNull();
    const sleep = uniqueSleep();
    const result = await runIn(cgroup!, `env -i setsid ${sleep} >/dev/null 2>&1 & echo started`);
    expect(result.stdout.trim()).toBe("started");
    expect(findLiveProcesses(sleep)).toHaveLength(1);
    expect(await cgroup!.dispose()).toBe(true);
    expect(findLiveProcesses(sleep)).toEqual([]);
  });

  it("has its processes born in it (from the trial's own runner), not moved there", async () => {
    const cgroup = await createTrialCgroup();
    const runner = await runnerOf(cgroup!);
    expect(runner).not.toBeNull();
    const result = await runIn(cgroup!, "echo $$; echo $PPID; cat /proc/self/cgroup");
    const [shell, shellParent] = result.stdout.trim().split("\n");
    // The shell is the runner's child: spawned there, in the runner's cgroup, under the parent.
    expect(Number(shellParent)).toBe(runner!.pid);
    const runnerCgroup = await cgroupOf(runner!.pid);
    expect(result.stdout).toContain(`0::${runnerCgroup}\n`);
    expect(runnerCgroup).toMatch(new RegExp(`/llm-tool-test/${process.pid}-[0-9a-f-]+$`));
    expect(shell).not.toBe("");
    await cgroup!.dispose();
  });

  it("hands its runner to the next trial in a fresh cgroup, the old one removed", async () => {
    const first = await createTrialCgroup();
    const runner = await runnerOf(first!);
    await runIn(first!, "true");
    const firstCgroup = await cgroupOf(runner!.pid);
    await first!.dispose();
    expect(existsSync(path.join(parent!, path.basename(firstCgroup)))).toBe(false);

    const second = await createTrialCgroup();
    const reused = await runnerOf(second!);
    expect(reused!.pid).toBe(runner!.pid);
    const secondCgroup = await cgroupOf(reused!.pid);
    expect(secondCgroup).not.toBe(firstCgroup);
    await second!.dispose();
  });

  it("fails the trial's runs when its runner is killed, and starts the next trial a new one", async () => {
    const cgroup = await createTrialCgroup();
    const runner = await runnerOf(cgroup!);
    // The runner is the shell's parent: a hostile command can kill it (it runs as the same user).
    await expect(runIn(cgroup!, "kill -9 $PPID; sleep 5")).rejects.toThrow(InfraError);
    expect(runner!.alive).toBe(false);
    await expect(runIn(cgroup!, "echo again")).rejects.toThrow(/process runner/);
    expect(await cgroup!.dispose()).toBe(true);

    const next = await createTrialCgroup();
    const fresh = await runnerOf(next!);
    expect(fresh!.pid).not.toBe(runner!.pid);
    expect((await runIn(next!, "echo ok")).stdout).toBe("ok\n");
    await next!.dispose();
  });

  it("beyond its runners, has each command of a trial join the trial's cgroup, and ends it all the same", async () => {
    // Trials holding every runner there may be (MAX_TRIAL_RUNNERS: 4 per core, 4 at least).
    const holding: TrialCgroup[] = [];
    for (;;) {
      const cgroup = (await createTrialCgroup())!;
      holding.push(cgroup);
      if ((await runnerOf(cgroup)) === null) break;
      expect(holding.length).toBeLessThanOrEqual(Math.max(4, 4 * os.availableParallelism()));
    }
    const joining = holding.at(-1)!;
    const sleep = uniqueSleep();
    const result = await runIn(
      joining,
      `setsid ${sleep} >/dev/null 2>&1 & grep '^0::' /proc/self/cgroup; echo $PPID`,
    );
    const [where, parentPid] = result.stdout.trim().split("\n");
    // Moved into a cgroup of the trial's own, not a runner's child there.
    expect(where).toMatch(new RegExp(`/llm-tool-test/${process.pid}-[0-9a-f-]+$`));
    const runners = await Promise.all(holding.slice(0, -1).map((cgroup) => runnerOf(cgroup)));
    expect(runners.map((runner) => runner!.pid)).not.toContain(Number(parentPid));
    for (const runner of runners) expect(await cgroupOf(runner!.pid)).not.toBe(where!.slice(3));
    expect(findLiveProcesses(sleep)).toHaveLength(1);
    expect(await joining.dispose()).toBe(true);
    expect(findLiveProcesses(sleep)).toEqual([]);
    await Promise.all(holding.map((cgroup) => cgroup.dispose()));
  });

  it("needs no runner for a trial that starts no process", async () => {
    // A runner taken and given back would wait in a fresh cgroup: the harness's cgroups would change.
    const ours = () =>
      readdirSync(parent!)
        .filter((name) => name.startsWith(`${process.pid}-`))
        .sort();
    const before = ours();
    const cgroup = await createTrialCgroup();
    expect(await cgroup!.dispose()).toBe(true);
    expect(ours()).toEqual(before);
  });

  it("removes what a harness that died left, killing what is in it", async () => {
    const pidMax = Number((await readFile("/proc/sys/kernel/pid_max", "utf8")).trim());
    const stale = path.join(parent!, `${pidMax + 1}-left-by-a-crash`);
    await mkdir(stale);
    const sleep = uniqueSleep();
    // A process moved there by hand, as a trial's would have been born there.
    await runProcess({
      file: "/bin/sh",
      args: [
        "-c",
        `echo $$ > "$0"; exec setsid ${sleep} >/dev/null 2>&1 &`,
        path.join(stale, "cgroup.procs"),
      ],
      cwd: "/",
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
      timeoutMs: 10_000,
      outputCapBytes: 4096,
    });
    await waitFor(() => findLiveProcesses(sleep).length === 1);
    const own = path.join(parent!, `${process.pid}-not-stale`);
    await mkdir(own);
    await sweepStaleCgroups(parent!);
    expect(findLiveProcesses(sleep)).toEqual([]);
    expect(existsSync(stale)).toBe(false);
    // A live harness's cgroups are its own.
    expect(readdirSync(parent!)).toContain(path.basename(own));
    await writeFile(path.join(own, "cgroup.kill"), "1");
    await rmdir(own);
  });
});

async function waitFor(condition: () => boolean): Promise<void> {
  for (let attempt = 0; attempt < 100 && !condition(); attempt += 1) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  expect(condition()).toBe(true);
}
