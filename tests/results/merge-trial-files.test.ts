import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { copyShardTrialFolders } from "../../src/results/merge-trial-files.js";
import { loadTrialEvents } from "../../src/results/read-trial-events.js";
import type { Report } from "../../src/results/types.js";
import { runMain, SUITE } from "../cli/run-main.js";
import { makeTempDir } from "../support/temp-dirs.js";

async function readReport(dir: string): Promise<Report> {
  return JSON.parse(await readFile(path.join(dir, "report.json"), "utf8")) as Report;
}

describe("merge brings the shards' trial folders along", () => {
  let dir: string;
  beforeAll(async () => {
    dir = makeTempDir("ltt-merge-files-");
    for (const index of [1, 2]) {
      const out = path.join(dir, `shard-${index}`);
      await runMain([
        "run",
        SUITE,
        "--agent",
        "oracle",
        "--trials",
        "2",
        "--shard",
        `${index}/2`,
        "--out",
        out,
        "-q",
      ]);
    }
  });

  it("so that the merged report finds every trial's events and transcript", async () => {
    const out = path.join(dir, "merged");
    const shards = [1, 2].map((i) => path.join(dir, `shard-${i}`, "report.json"));
    const result = await runMain(["merge", ...shards, "--out", out]);
    expect(result.stderr).toBe("");
    const merged = await readReport(out);
    const trials = merged.scenarios.flatMap((s) => s.trials);
    expect(trials).toHaveLength(4);
    const events = await loadTrialEvents(merged, out);
    for (const trial of trials) {
      expect(events[trial.events_path as string]?.length, trial.events_path as string).toBeGreaterThan(0);
      expect(existsSync(path.join(out, trial.transcript_path as string))).toBe(true);
    }
  });

  it("copies only folders inside the shard's folder, and leaves a folder already in place", async () => {
    const shard = path.join(dir, "shard-1");
    const report = await readReport(shard);
    const outside = path.join(dir, "secret");
    await mkdir(outside, { recursive: true });
    await writeFile(path.join(outside, "events.jsonl"), "{}\n");
    const [first] = report.scenarios;
    const [trial] = first?.trials ?? [];
    if (!first || !trial) throw new Error("the shard has no trial");
    const forged: Report = {
      ...report,
      scenarios: [
        { ...first, trials: [{ ...trial, events_path: "../secret/events.jsonl", transcript_path: null }] },
      ],
    };
    const out = path.join(dir, "forged");
    expect(await copyShardTrialFolders([{ dir: shard, report: forged }], out)).toBe(0);
    expect(existsSync(path.join(dir, "secret", "events.jsonl"))).toBe(true);
    expect(existsSync(out)).toBe(false);
    // Merging into a shard's own folder copies nothing onto itself.
    expect(await copyShardTrialFolders([{ dir: shard, report }], shard)).toBe(0);
  });

  it("a trial folder that cannot be copied is a clear error naming it, and no report is written", async () => {
    const out = path.join(dir, "blocked");
    await mkdir(out, { recursive: true });
    // A file where the trials' folder must go: the copy cannot create it.
    await writeFile(path.join(out, "trials"), "in the way\n");
    const shards = [1, 2].map((i) => path.join(dir, `shard-${i}`, "report.json"));
    const result = await runMain(["merge", ...shards, "--out", out]);
    expect(result.code).toBe(2);
    expect(result.stderr).not.toContain("unexpected error");
    expect(result.stderr).toContain(path.join(out, "trials"));
    expect(result.stderr).toMatch(/could not create the folder/);
    expect(existsSync(path.join(out, "report.json"))).toBe(false);
  });
});
