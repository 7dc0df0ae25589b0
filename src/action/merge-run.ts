/**
 * The run stage of `mode: merge`: the shards' artifacts merged into one report (merge-shards.ts),
 * and the baseline settled for it. Merged replayed shards are compared with the run they replayed,
 * as a replay run is.
 */
import path from "node:path";
import type { ActionFolders, ActionRun, ProducedRun } from "./action-run.js";
import { labelBaseline, replayBaseline, settleActionBaseline } from "./baseline.js";
import { findReplaySource } from "./fork-replay.js";
import { formatShardArtifactName, mergeShardArtifacts } from "./merge-shards.js";
import type { BaselineResolution } from "./resolve-baseline.js";

export async function mergeShards(
  run: ActionRun,
  { workDir, downloadDir, outDir }: ActionFolders,
  found: BaselineResolution,
): Promise<ProducedRun> {
  const { settings, deps, log } = run;
  const merged = await mergeShardArtifacts(
    deps.artifacts,
    settings.artifactName,
    path.join(downloadDir, "shards"),
    outDir,
    log.info,
  );
  if (merged.missing.length > 0) {
    const count = merged.found.length + merged.missing.length;
    const names = merged.missing.map((index) =>
      formatShardArtifactName(settings.artifactName, { index, count }),
    );
    log.warn(`The shard artifacts ${names.join(", ")} are missing: the merged report is incomplete.`);
  }
  const replayed = merged.report.run.agent === "replay" ? await findReplaySource(found, workDir) : null;
  const baseline = replayed?.status === "found" ? replayBaseline(replayed, false) : found;
  const settled = settleActionBaseline(baseline, merged.report, run);
  log.info(
    `Merged ${merged.found.length} shard(s): ${merged.report.summary.trials} trial(s) over ${merged.report.summary.scenarios} scenario(s).`,
  );
  return {
    report: merged.report,
    // A sharded run gets no extra trials.
    designExtraTrials: 0,
    baseline,
    settled,
    // The shards' files were redacted when written; the merge redacts what it writes itself.
    redact: run.redact,
    ...(replayed?.status === "found" ? { replayedLabel: labelBaseline(replayed.candidate.source) } : {}),
  };
}
