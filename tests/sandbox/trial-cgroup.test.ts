import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { runProcess } from "../../src/sandbox/exec.js";
import { createTrialCgroup, findCgroupParent } from "../../src/sandbox/trial-cgroup.js";
import { findLiveProcesses } from "../support/processes.js";

const cgroupAvailable = (await findCgroupParent()) !== null;

describe.skipIf(!cgroupAvailable)("a trial's cgroup", () => {
  it("holds what a command leaves behind, environment cleared or not, and is gone after dispose", async () => {
    const cgroup = await createTrialCgroup();
    expect(cgroup).not.toBeNull();
    const sleep = `sleep 301.${process.pid}${Math.floor(Math.random() * 1e6)}`;
    const result = await runProcess({
      ...cgroup!.wrap("/bin/bash", ["-c", `env -i setsid ${sleep} >/dev/null 2>&1 & echo started`]),
      cwd: "/",
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
      timeoutMs: 10_000,
      outputCapBytes: 4096,
    });
    expect(result.stdout.trim()).toBe("started");
    expect(findLiveProcesses(sleep)).toHaveLength(1);
    await cgroup!.dispose();
    expect(findLiveProcesses(sleep)).toEqual([]);
    expect(existsSync(cgroup!.dir)).toBe(false);
  }, 30_000);
});
