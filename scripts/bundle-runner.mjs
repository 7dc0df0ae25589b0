#!/usr/bin/env node
/**
 * Bundles the process runner (lib/sandbox/process-runner.js) with execa into one file,
 * `<out>/index.js`, where src/sandbox/exec.ts looks for it first: `npm run build` makes
 * lib/sandbox/process-runner/ (the package's CLI and library), `npm run bundle` dist/process-runner/
 * (the action). A runner starts per trial in local mode (trial-cgroup.ts); loaded as one file it
 * takes about half the CPU of resolving execa's modules one by one from node_modules.
 *
 *   node scripts/bundle-runner.mjs <out-dir>
 */
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const out = process.argv[2];
if (!out) {
  process.stderr.write("usage: node scripts/bundle-runner.mjs <out-dir>\n");
  process.exit(2);
}
const ncc = createRequire(import.meta.url).resolve("@vercel/ncc/dist/ncc/cli.js");
const result = spawnSync(
  process.execPath,
  [
    ncc,
    "build",
    "lib/sandbox/process-runner.js",
    "-o",
    out,
    "--license",
    "licenses.txt",
    "--target",
    "es2022",
    "--no-source-map-register",
    "--quiet",
  ],
  { cwd: root, stdio: "inherit" },
);
process.exit(result.status ?? 1);
