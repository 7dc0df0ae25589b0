/**
 * What installing the CLI costs a user: the packed package installed into an empty project (its
 * dependencies from the registry), `du -s --apparent-size` of node_modules. Needs registry access.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { expect, it } from "vitest";
import {
  createEmptyProject,
  formatMegabytes,
  installTarball,
  measureFootprint,
  packTarball,
} from "../tests/support/installed-package.js";
import { writeBenchmarkSection } from "./benchmarks-file.js";

const LIMIT_BYTES = 50e6;

it("install footprint of the packed package", async () => {
  const temp = await mkdtemp(path.join(os.tmpdir(), "ltt-footprint-"));
  try {
    const tarball = await packTarball(temp, { build: true });
    const project = path.join(temp, "project");
    await createEmptyProject(project);
    await installTarball(project, tarball);
    const footprint = await measureFootprint(project);
    const met = footprint.bytes < LIMIT_BYTES;
    const rows = footprint.largest.map((p) => `| ${p.name} | ${formatMegabytes(p.bytes)} |`);
    const text = [
      "## Install footprint",
      "",
      `bench/footprint.bench-run.ts, Node ${process.version}, ${new Date().toISOString().slice(0, 10)}: \`npm pack\`, then`,
      "`npm install --save-dev <tarball>` in an empty project (`npm init -y`), then",
      "`du -s --apparent-size --block-size=1 node_modules`. The action's libraries (@actions/*) are",
      "bundled into dist/ and not installed for CLI users (with them as dependencies, before issue 17, the",
      "same install weighed about 235 MB); tests/e2e/installed-package.test.ts checks the limit.",
      "",
      "| Measure | Result | Target | Met |",
      "|---|---|---|---|",
      `| node_modules, every model SDK included | ${formatMegabytes(footprint.bytes)} (${footprint.bytes} bytes) | < ${formatMegabytes(LIMIT_BYTES)} | ${met ? "yes" : "no"} |`,
      "",
      "| Largest packages | Size |",
      "|---|---|",
      ...rows,
    ].join("\n");
    process.stdout.write(`\n${text}\n`);
    await writeBenchmarkSection("footprint", text);
    expect(met).toBe(true);
    // The README's figure is this measurement's, within 10% (tests/docs-figures.test.ts holds the two documents to each other).
    const readme = await readFile(path.join(import.meta.dirname, "../README.md"), "utf8");
    const stated = Number(/about (\d+) MB of `node_modules`/.exec(readme)?.[1]);
    expect(Math.abs(stated * 1e6 - footprint.bytes) / footprint.bytes).toBeLessThan(0.1);
  } finally {
    await rm(temp, { recursive: true, force: true });
  }
});
