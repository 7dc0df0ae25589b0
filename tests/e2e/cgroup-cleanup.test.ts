/**
 * Local mode as root: each trial's processes are born in a cgroup of the trial's own, spawned by a
 * process runner that waits there between trials. When the CLI exits, those runners and their
 * cgroups go too: nothing of the run is left in the cgroup tree.
 */
import { existsSync } from "node:fs";
import { readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { findCgroupParent } from "../../src/sandbox/trial-cgroup.js";
import { runCli } from "../support/run-cli.js";
import { makeTempDir } from "../support/temp-dirs.js";

const parent = await findCgroupParent();

describe.skipIf(parent === null)("the CLI's trial cgroups (local mode, cgroup v2 writable)", () => {
  it("has each trial's commands in a cgroup of its own, and leaves none behind when it exits", async () => {
    const dir = makeTempDir("ltt-cgroups-");
    await writeFile(
      path.join(dir, "where.yaml"),
      [
        "name: where",
        "task: say where you run",
        "solution:",
        "  - grep '^0::' /proc/self/cgroup",
        "  - grep '^0::' /proc/self/cgroup",
        "evaluation: {gates: []}",
      ].join("\n"),
    );
    const out = path.join(dir, "out");
    const options = ["--agent", "oracle", "--sandbox", "local", "--trials", "3", "-j", "2"];
    const result = await runCli(["run", dir, ...options, "--out", out]);
    expect(result.code, result.stderr).toBe(0);

    const seen = new Map<string, Set<string>>();
    const trialsDir = path.join(out, "trials", "where");
    for (const trial of await readdir(trialsDir)) {
      const events = await readFile(path.join(trialsDir, trial, "events.jsonl"), "utf8");
      const cgroups = [...events.matchAll(/0::(\/(?:[^\\"]*\/)?llm-tool-test\/(\d+)-[0-9a-f-]+)/g)];
      seen.set(trial, new Set(cgroups.map((match) => match[1] as string)));
    }
    expect(seen.size).toBe(3);
    const all = [...seen.values()].flatMap((set) => [...set]);
    // Both commands of a trial in the same cgroup; no two trials in one.
    for (const set of seen.values()) expect(set.size).toBe(1);
    expect(new Set(all).size).toBe(3);

    const cliPid = Number(/\/llm-tool-test\/(\d+)-/.exec(all[0] as string)?.[1]);
    expect(cliPid).toBeGreaterThan(0);
    expect(cliPid).not.toBe(process.pid);
    const left = (await readdir(parent as string)).filter((name) => name.startsWith(`${cliPid}-`));
    expect(left).toEqual([]);
    for (const cgroup of all)
      expect(existsSync(path.join(parent as string, path.basename(cgroup)))).toBe(false);
  });
});
