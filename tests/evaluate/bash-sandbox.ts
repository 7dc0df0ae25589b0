/**
 * A tiny TrialSandbox stand-in for gate tests: real `bash -c` in a real temp dir, with a timeout
 * that kills the process group. Only what gates use: runGateCommand and gateFiles.
 */
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { ExecResult, TrialSandbox } from "../../src/sandbox/types.js";

export type BashSandbox = Pick<TrialSandbox, "runGateCommand" | "gateFiles"> & {
  root: string;
  workDir: string;
  commands: string[];
  dispose(): Promise<void>;
};

export async function createBashSandbox(): Promise<BashSandbox> {
  const root = await mkdtemp(path.join(tmpdir(), "ltt-gates-"));
  const commands: string[] = [];
  return {
    root,
    workDir: root,
    commands,
    // Local mode: the work dir is the root, and absolute paths resolve inside it.
    gateFiles: { root, workDir: root, absoluteLinks: "host" },
    runGateCommand: (command, options) => {
      commands.push(command);
      return runBash(command, root, { ...options.env }, options.timeoutMs);
    },
    dispose: () => rm(root, { recursive: true, force: true }),
  };
}

function runBash(
  command: string,
  cwd: string,
  env: Record<string, string>,
  timeoutMs: number,
): Promise<ExecResult> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn("bash", ["-c", command], {
      cwd,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: cwd, ...env },
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    const timer = setTimeout(() => {
      timedOut = true;
      if (child.pid) process.kill(-child.pid, "SIGKILL");
    }, timeoutMs);
    child.on("error", reject);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({
        stdout,
        stderr,
        exit_code: timedOut ? 124 : (code ?? (signal ? 128 + 9 : 1)),
        duration_ms: Date.now() - started,
        timed_out: timedOut,
        truncated: false,
      });
    });
  });
}
