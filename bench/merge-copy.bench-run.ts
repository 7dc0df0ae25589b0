/**
 * `merge` of a large sharded run: copying the shards' trial folders (thousands of small files).
 * The sequential copy `merge` used before (one `fs.cp` of a trial folder after another) and
 * copy-trees.ts's bounded parallel copy, timed side by side on the same synthetic tree.
 */
import { cp, mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { expect, it } from "vitest";
import { COPY_PARALLELISM, copyTrees } from "../src/results/copy-trees.js";
import { writeBenchmarkSection } from "./benchmarks-file.js";

const FOLDERS = 2_700;
const FILES_PER_FOLDER = 3;
const ROUNDS = 3;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

/** A shard's trials/: FOLDERS trial folders of events.jsonl (8 KB), transcript.md (4 KB), result.json (2 KB). */
async function makeShard(root: string): Promise<string[]> {
  const folders = Array.from({ length: FOLDERS }, (_, i) =>
    path.join("trials", `scenario-${i % 90}`, `trial-${i}`),
  );
  for (const folder of folders) {
    const dir = path.join(root, folder);
    await mkdir(dir, { recursive: true });
    await writeFile(
      path.join(dir, "events.jsonl"),
      `${'{"type":"tool_call"}'.padEnd(127, " ")}\n`.repeat(64),
    );
    await writeFile(path.join(dir, "transcript.md"), "x".repeat(4096));
    await writeFile(path.join(dir, "result.json"), "{}".padEnd(2048, " "));
  }
  return folders;
}

async function sequential(source: string, target: string, folders: string[]): Promise<void> {
  for (const folder of folders) {
    await cp(path.join(source, folder), path.join(target, folder), {
      recursive: true,
      force: false,
      errorOnExist: false,
    });
  }
}

async function parallel(source: string, target: string, folders: string[]): Promise<void> {
  await copyTrees(
    folders.map((folder) => ({ from: path.join(source, folder), to: path.join(target, folder) })),
  );
}

async function countFiles(dir: string): Promise<number> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((entry) => entry.isFile()).length;
}

it("merge: sequential vs bounded parallel copy of the trial folders", async () => {
  const temp = await mkdtemp(path.join(os.tmpdir(), "ltt-merge-copy-"));
  try {
    const source = path.join(temp, "shard");
    const folders = await makeShard(source);
    const times: Record<"sequential" | "parallel", number[]> = { sequential: [], parallel: [] };
    // Interleaved rounds, the order swapped each round, so drift on the shared machine hits both.
    for (let round = 0; round < ROUNDS; round++) {
      const order =
        round % 2 === 0 ? (["sequential", "parallel"] as const) : (["parallel", "sequential"] as const);
      for (const kind of order) {
        const target = path.join(temp, `${kind}-${round}`);
        const started = performance.now();
        await (kind === "sequential" ? sequential : parallel)(source, target, folders);
        times[kind].push(performance.now() - started);
        expect(await countFiles(target)).toBe(FOLDERS * FILES_PER_FOLDER);
        await rm(target, { recursive: true, force: true });
      }
    }
    const before = median(times.sequential);
    const after = median(times.parallel);
    const spread = (runs: number[]) => runs.map((ms) => ms.toFixed(0)).join(", ");
    const text = [
      "## merge: copying the trial folders",
      "",
      `bench/merge-copy.bench-run.ts, Node ${process.version}, ${new Date().toISOString().slice(0, 10)}: one synthetic`,
      `shard of ${FOLDERS.toLocaleString("en")} trial folders × ${FILES_PER_FOLDER} files (${(FOLDERS * FILES_PER_FOLDER).toLocaleString("en")} files, 14 KB a folder)`,
      `copied into an empty folder, ${ROUNDS} interleaved rounds, medians. Before: one \`fs.cp\` of a trial`,
      `folder after another; after: src/results/copy-trees.ts, ${COPY_PARALLELISM} files at a time.`,
      "",
      "| Copy | Median | Runs (ms) |",
      "|---|---|---|",
      `| sequential (before) | ${before.toFixed(0)} ms | ${spread(times.sequential)} |`,
      `| bounded parallel (after) | ${after.toFixed(0)} ms | ${spread(times.parallel)} |`,
      `| speed-up | ${(before / after).toFixed(2)}× | |`,
    ].join("\n");
    process.stdout.write(`\n${text}\n`);
    await writeBenchmarkSection("merge-copy", text);
    expect(after).toBeLessThan(before);
  } finally {
    await rm(temp, { recursive: true, force: true });
  }
});
