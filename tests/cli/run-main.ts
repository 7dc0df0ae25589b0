/** Runs the CLI in process through `main(argv, io)`, capturing what it writes. */
import { readFileSync } from "node:fs";
import path from "node:path";
import { main } from "../../src/cli/main.js";
import type { Report } from "../../src/results/types.js";

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

/**
 * `run` with the oracle agent (each scenario's own solution) on `scenarios`, into `<cwd>/out`:
 * what the hostile tests use to make the agent do exactly their attack.
 */
export async function runOracle(
  scenarios: string,
  options: { cwd: string; sandbox: string; trials?: number; concurrency?: number },
): Promise<{ result: MainResult; out: string; report: Report }> {
  const out = path.join(options.cwd, "out");
  const argv = ["run", scenarios, "--agent", "oracle", "--sandbox", options.sandbox, "--out", out];
  argv.push("--trials", String(options.trials ?? 1));
  if (options.concurrency !== undefined) argv.push("--concurrency", String(options.concurrency));
  const result = await runMain(argv, { cwd: options.cwd });
  // No report: the result says why (the test's first assertion on it shows the message).
  let report = {} as Report;
  try {
    report = JSON.parse(readFileSync(path.join(out, "report.json"), "utf8")) as Report;
  } catch {}
  return { result, out, report };
}
