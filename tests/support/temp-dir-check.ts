/**
 * Set up before every test file (setupFiles in vitest.config.ts). The file gets a temp dir of its
 * own as TMPDIR, so whatever the file, the code it drives in process or the CLI it starts leaves in
 * os.tmpdir() is found when the file ends, and the file fails. Parallel files cannot disturb each
 * other's check. The folder goes either way: a leak does not pile up in /tmp.
 */
import { chmodSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll } from "vitest";
import { removeTempDirs } from "./temp-dirs.js";

const tmpdirBefore = process.env.TMPDIR;
const fileTmp = mkdtempSync(path.join(os.tmpdir(), "ltt-vitest-"));
// Other users may pass through it (not list it): where the harness runs as root, the local sandbox
// runs agents as accounts of their own, which must reach the trials' folders and the tests' tools.
chmodSync(fileTmp, 0o711);
process.env.TMPDIR = fileTmp;

// Registered first, so it runs after the test file's own afterAll hooks.
afterAll(async () => {
  await removeTempDirs();
  const left = readdirSync(fileTmp);
  rmSync(fileTmp, { recursive: true, force: true });
  if (tmpdirBefore === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = tmpdirBefore;
  if (left.length > 0)
    throw new Error(`the test file left ${left.length} entries in the temp dir: ${left.sort().join(", ")}`);
});
