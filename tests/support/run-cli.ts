import { spawn } from "node:child_process";
import os from "node:os";
import path from "node:path";

export const ROOT = path.resolve(import.meta.dirname, "../..");
export const CLI = path.join(ROOT, "bin/llm-tool-test.js");

export interface CommandResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export type CliResult = CommandResult;

/** Runs a command with exactly `env` and returns its output (never throws on a non-zero exit). */
export function runCommand(
  file: string,
  args: string[],
  options: { cwd: string; env: Record<string, string | undefined> },
): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, {
      cwd: options.cwd,
      env: options.env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * Runs the real CLI as a user would (`node bin/llm-tool-test.js ...`), with exactly the given env
 * (PATH, HOME and TMPDIR unless given: the test file's temp dir, checked for leftovers when it ends).
 */
export function runCli(
  args: string[],
  options: { env?: Record<string, string>; cwd?: string } = {},
): Promise<CliResult> {
  return runCommand(process.execPath, [CLI, ...args], {
    cwd: options.cwd ?? ROOT,
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: process.env.HOME ?? "/tmp",
      TMPDIR: os.tmpdir(),
      ...options.env,
    },
  });
}
