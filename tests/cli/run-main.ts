/** Runs the CLI in process through `main(argv, io)`, capturing what it writes. */
import path from "node:path";
import { main } from "../../src/cli/main.js";

export const ROOT = path.resolve(import.meta.dirname, "../..");
export const SUITE = path.join(ROOT, "tests/fixtures/e2e/suite");
export const BASE_REPORT = path.join(ROOT, "tests/fixtures/reports/base.json");
export const HEAD_REPORT = path.join(ROOT, "tests/fixtures/reports/head.json");

export interface MainResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** `env` is the whole environment the CLI sees (PATH and HOME unless given). */
export async function runMain(
  argv: string[],
  options: { env?: Record<string, string>; cwd?: string } = {},
): Promise<MainResult> {
  let stdout = "";
  let stderr = "";
  const code = await main(argv, {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp", ...options.env },
    cwd: options.cwd ?? ROOT,
  });
  return { code, stdout, stderr };
}
