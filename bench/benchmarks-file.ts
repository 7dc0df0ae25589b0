/**
 * BENCHMARKS.md is written by the benchmarks themselves, one section per bench file between
 * markers, so each file can be run alone without erasing the others' figures.
 */
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";

const FILE = path.resolve(import.meta.dirname, "../BENCHMARKS.md");
const HEADER = [
  "# Benchmarks",
  "",
  "Produced by `npm run bench` (bench/*.bench-run.ts) on the project's reference machine (2 cores).",
  "Each section is rewritten by its own bench file; ratios are measured side by side in one run, and",
  "absolute times on these shared machines are noisy.",
  "",
].join("\n");

export async function writeBenchmarkSection(name: string, markdown: string): Promise<void> {
  const start = `<!-- bench:${name} -->`;
  const end = `<!-- /bench:${name} -->`;
  const current = await readFile(FILE, "utf8").catch(() => "");
  const body = `${start}\n${markdown.trim()}\n${end}`;
  const from = current.indexOf(start);
  const to = current.indexOf(end);
  let next: string;
  if (from >= 0 && to > from) next = current.slice(0, from) + body + current.slice(to + end.length);
  else if (current.startsWith("# Benchmarks") && current.includes("<!-- bench:"))
    next = `${current.trimEnd()}\n\n${body}\n`;
  else next = `${HEADER}\n${body}\n`;
  await writeFile(FILE, next.endsWith("\n") ? next : `${next}\n`);
}
