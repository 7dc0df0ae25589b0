import { existsSync } from "node:fs";
import { cp } from "node:fs/promises";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { formatShardArtifactName, mergeShardArtifacts } from "../../src/action/merge-shards.js";
import type { ArtifactClient } from "../../src/github/types.js";
import { loadTrialEvents } from "../../src/results/read-trial-events.js";
import { runMain, SUITE } from "../cli/run-main.js";
import { makeTempDir } from "../support/temp-dirs.js";

/** The workflow run's artifacts: each shard's `run --out` folder, "downloaded" by copying it. */
function localArtifacts(folders: Map<number, string>): ArtifactClient {
  const names = [...folders.keys()].map((index) => ({
    id: index,
    name: formatShardArtifactName("llm-tool-test-report", { index, count: folders.size }),
    size: 1,
  }));
  return {
    uploadArtifact: async () => ({}),
    listArtifacts: async () => ({ artifacts: names }),
    downloadArtifact: async (id, options) => {
      await cp(folders.get(id) as string, options?.path as string, { recursive: true });
      return { downloadPath: options?.path };
    },
  };
}

describe("the action's merge mode", () => {
  let dir: string;
  const shards = new Map<number, string>();
  beforeAll(async () => {
    dir = makeTempDir("ltt-merge-shards-");
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
      shards.set(index, out);
    }
  });

  it("copies every shard's trial folders next to the merged report", async () => {
    const out = path.join(dir, "merged");
    const merged = await mergeShardArtifacts(
      localArtifacts(shards),
      "llm-tool-test-report",
      path.join(dir, "downloads"),
      out,
      () => {},
    );
    expect(merged.found).toEqual([1, 2]);
    const trials = merged.report.scenarios.flatMap((s) => s.trials);
    expect(trials).toHaveLength(4);
    const events = await loadTrialEvents(merged.report, out);
    for (const trial of trials) {
      expect(events[trial.events_path as string]?.length, trial.events_path as string).toBeGreaterThan(0);
      expect(existsSync(path.join(out, trial.transcript_path as string))).toBe(true);
    }
  });
});
