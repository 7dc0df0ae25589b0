/**
 * A merged report's links to each trial's events and transcript are relative to its folder, as in
 * every shard's: `merge` brings the shards' trial folders along so report.html shows transcripts.
 */
import { lstat } from "node:fs/promises";
import path from "node:path";
import { COPY_PARALLELISM, copyTrees, forEachBounded, type TreeCopy } from "./copy-trees.js";
import type { Report } from "./types.js";

export interface ShardFolder {
  /** The folder holding the shard's report.json and its trials/. */
  dir: string;
  report: Report;
}

function isInside(folder: string, file: string): boolean {
  const relative = path.relative(folder, file);
  return relative !== "" && !relative.startsWith("..") && !path.isAbsolute(relative);
}

/** The folders a report's trials keep their files in (events_path and transcript_path), relative. */
function trialFolders(report: Report): string[] {
  const folders = new Set<string>();
  for (const scenario of report.scenarios) {
    for (const trial of scenario.trials) {
      for (const file of [trial.events_path, trial.transcript_path]) {
        if (typeof file === "string") folders.add(path.dirname(file));
      }
    }
  }
  return [...folders];
}

/**
 * Copies every trial folder a shard's report names into `outDir`, at the same relative path, and
 * returns how many it copied. Paths outside the shard's folder are ignored (a report is data and
 * must not pull other files of the machine along); a folder already at its place is left as it is.
 * The files are copied several at a time (copy-trees.ts); a failed copy is a ConfigError naming it.
 */
export async function copyShardTrialFolders(shards: ShardFolder[], outDir: string): Promise<number> {
  const target = path.resolve(outDir);
  const candidates: TreeCopy[] = [];
  for (const shard of shards) {
    const source = path.resolve(shard.dir);
    for (const folder of trialFolders(shard.report)) {
      const from = path.resolve(source, folder);
      const to = path.resolve(target, folder);
      if (!isInside(source, from) || !isInside(target, to) || from === to) continue;
      candidates.push({ from, to });
    }
  }
  // A folder the report names but the shard lacks (or a link in its place) is not copied.
  const trees: TreeCopy[] = [];
  await forEachBounded(candidates, COPY_PARALLELISM, async (tree) => {
    const isFolder = await lstat(tree.from).then(
      (info) => info.isDirectory(),
      () => false,
    );
    if (isFolder) trees.push(tree);
  });
  await copyTrees(trees);
  return trees.length;
}
