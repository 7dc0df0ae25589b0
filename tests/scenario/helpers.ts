import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach } from "vitest";
import { isConfigError } from "../../src/errors.js";

const created: string[] = [];

afterEach(async () => {
  await Promise.all(created.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A fresh temporary directory holding `files` (path -> content; a trailing `/` makes a directory). */
export async function makeTree(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), "llm-tool-test-scenario-"));
  created.push(dir);
  for (const [name, content] of Object.entries(files)) {
    const full = path.join(dir, name);
    if (name.endsWith("/")) {
      await mkdir(full, { recursive: true });
      continue;
    }
    await mkdir(path.dirname(full), { recursive: true });
    await writeFile(full, content);
  }
  return dir;
}

/** The ConfigError message `run` rejects with; fails the test on success or on any other error. */
export async function configErrorOf(run: () => Promise<unknown>): Promise<string> {
  try {
    await run();
  } catch (error) {
    if (isConfigError(error)) return error.message;
    throw error;
  }
  throw new Error("expected a ConfigError, but the call succeeded");
}
