#!/usr/bin/env node
/**
 * Keeps dist/ reproducible byte for byte (CI rebuilds it and runs `git diff --exit-code dist`).
 *
 *   node scripts/fix-dist.mjs clean   before ncc: empty dist/, so no stale chunk survives a rebuild
 *   node scripts/fix-dist.mjs         after ncc: normalise what varies between machines, then check
 *
 * ncc runs twice (package.json's "bundle"): the action into dist/, then the process runner, with
 * execa, into dist/process-runner/ (where src/sandbox/exec.ts looks for it when bundled). In that
 * order: each build deletes the .js files under its output folder first.
 *
 * Normalised: CRLF line endings and trailing whitespace at the end of files. Checked: both entries
 * are there, and no file holds the checkout's absolute path (which would differ on every machine,
 * and break at runtime anyway).
 */
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const dist = path.join(root, "dist");

if (process.argv[2] === "clean") {
  await rm(dist, { recursive: true, force: true });
  await mkdir(dist, { recursive: true });
  process.exit(0);
}

const files = (await readdir(dist, { recursive: true, withFileTypes: true }))
  .filter((entry) => entry.isFile())
  .map((entry) => path.join(entry.parentPath, entry.name))
  .sort();

const problems = [];
for (const entry of ["index.js", "process-runner/index.js"]) {
  if (!files.includes(path.join(dist, entry))) problems.push(`dist/${entry} is missing`);
}
for (const file of files) {
  if (!/\.(js|cjs|mjs|json|txt)$/.test(file)) continue;
  const original = await readFile(file, "utf8");
  const text = `${original.replace(/\r\n/g, "\n").replace(/\s+$/, "")}\n`;
  if (text !== original) await writeFile(file, text);
  if (text.includes(root)) problems.push(`${path.relative(root, file)} contains the checkout's path ${root}`);
}
if (problems.length > 0) {
  console.error(`dist/ is not ready:\n  ${problems.join("\n  ")}`);
  process.exit(1);
}
console.log(`dist/: ${files.length} file(s) checked`);
