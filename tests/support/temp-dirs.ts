/**
 * Temporary folders for tests. Each is removed when its test file ends (by tests/support/temp-dir-check.ts,
 * which then fails the file if anything else is left in its temp dir).
 */
import { chmodSync, mkdtempSync } from "node:fs";
import { rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";

const made: string[] = [];

/** A fresh folder `<os.tmpdir()>/<prefix>XXXXXX`, removed after the test file. */
export function makeTempDir(prefix: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  // Passable (not listable) by other users: the local sandbox's agent accounts (see temp-dir-check.ts).
  chmodSync(dir, 0o711);
  made.push(dir);
  return dir;
}

/** Removes every folder makeTempDir made so far. */
export async function removeTempDirs(): Promise<void> {
  await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
}
