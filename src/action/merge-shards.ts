/**
 * `mode: merge`: the shard jobs of a matrix each upload `<artifact-name>-shard-i-of-n`; the merge job
 * downloads them from this workflow run, combines their reports into one, and copies the trials'
 * files next to it so the merged report's links (events, transcripts) resolve.
 */
import { mkdir, readdir, rm } from "node:fs/promises";
import path from "node:path";
import { ConfigError } from "../errors.js";
import type { ArtifactClient } from "../github/types.js";
import { copyTrees, type TreeCopy } from "../results/copy-trees.js";
import { mergeShardReports, type ShardInput } from "../results/merge.js";
import { readReportFile } from "../results/read-report.js";
import type { Report } from "../results/types.js";

/** `<name>-shard-<i>-of-<n>`, as a shard job names its artifact. */
export function formatShardArtifactName(name: string, shard: { index: number; count: number }): string {
  return `${name}-shard-${shard.index}-of-${shard.count}`;
}

function parseShardArtifactName(name: string, artifactName: string): { index: number; count: number } | null {
  if (!name.startsWith(`${artifactName}-shard-`)) return null;
  const match = /^(\d+)-of-(\d+)$/.exec(name.slice(artifactName.length + "-shard-".length));
  return match ? { index: Number(match[1]), count: Number(match[2]) } : null;
}

/** Report files the merge rewrites; everything else in a shard's folder is copied as it is. */
const REPORT_FILES = new Set([
  "report.json",
  "report.md",
  "report.html",
  "junit.xml",
  "comparison.json",
  "run.json",
]);

export interface MergedShards {
  report: Report;
  /** Shard numbers found, and those of 1..n that were not. */
  found: number[];
  missing: number[];
}

export async function mergeShardArtifacts(
  artifacts: ArtifactClient,
  artifactName: string,
  downloadDir: string,
  outDir: string,
  info: (message: string) => void,
): Promise<MergedShards> {
  const listed = await artifacts.listArtifacts({ latest: true });
  const shards = listed.artifacts
    .map((artifact) => ({ artifact, shard: parseShardArtifactName(artifact.name, artifactName) }))
    .filter(
      (entry): entry is { artifact: (typeof entry)["artifact"]; shard: { index: number; count: number } } =>
        entry.shard !== null,
    )
    .sort((a, b) => a.shard.index - b.shard.index);
  if (shards.length === 0) {
    throw new ConfigError(
      `input "mode": "merge" found no artifact named "${artifactName}-shard-<i>-of-<n>" in this workflow run: ` +
        'run the shards first (a matrix job with the input "shard: <i>/<n>") and make the merge job wait for them ("needs:")',
    );
  }
  const inputs: ShardInput[] = [];
  for (const { artifact } of shards) {
    const dir = path.join(downloadDir, artifact.name);
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir, { recursive: true });
    await artifacts.downloadArtifact(artifact.id, { path: dir });
    const file = path.join(dir, "report.json");
    inputs.push({ file: `artifact ${artifact.name}`, report: await readReportFile(file) });
    info(`Downloaded the shard artifact "${artifact.name}".`);
  }
  const report = mergeShardReports(inputs);
  await mkdir(outDir, { recursive: true });
  const trees: TreeCopy[] = [];
  for (const { artifact } of shards) {
    const dir = path.join(downloadDir, artifact.name);
    for (const entry of await readdir(dir)) {
      if (!REPORT_FILES.has(entry)) trees.push({ from: path.join(dir, entry), to: path.join(outDir, entry) });
    }
  }
  await copyTrees(trees);
  const count = shards[0]?.shard.count ?? 1;
  const found = shards.map((s) => s.shard.index);
  const missing = Array.from({ length: count }, (_, i) => i + 1).filter((i) => !found.includes(i));
  return { report, found, missing };
}
