import { fork, spawn } from "node:child_process";
import { once } from "node:events";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { InfraError } from "../../src/errors.js";
import { runShell, warmProcessRunners } from "../../src/sandbox/exec.js";
import {
  PROCESS_RUNNER_ARG,
  type RunnerMessage,
  type RunRequest,
} from "../../src/sandbox/process-runner-protocol.js";
import { findRunnerPids, waitForProcessGone } from "../support/processes.js";
import { ROOT } from "../support/run-cli.js";

const dir = mkdtempSync(path.join(os.tmpdir(), "process-runner-test-"));
const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", LANG: "C.UTF-8" };
const base = { cwd: dir, env, timeoutMs: 30_000, outputCapBytes: 64 * 1024 };

afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function waitForFile(file: string, withinMs: number): Promise<string> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    try {
      const text = readFileSync(file, "utf8");
      if (text.endsWith("\n")) return text.trim();
    } catch {
      // Not written yet.
    }
    if (Date.now() > deadline) throw new Error(`${file} was not written within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * A harness in a plain Node process we can signal: the compiled library (tests build lib/ first)
 * running one long command that writes its pid to `pidFile`, then printing the result as JSON.
 */
function writeHarnessScript(name: string, pidFile: string, options: { abortOnSigint: boolean }): string {
  const script = path.join(dir, name);
  writeFileSync(
    script,
    `import { runShell } from ${JSON.stringify(path.join(ROOT, "lib/sandbox/exec.js"))};
const abort = new AbortController();
${options.abortOnSigint ? 'process.on("SIGINT", () => abort.abort());' : ""}
const result = await runShell({ command: ${JSON.stringify(`echo $$ > ${pidFile}; exec sleep 300`)}, cwd: ${JSON.stringify(dir)},
  env: ${JSON.stringify(env)}, timeoutMs: 600000, outputCapBytes: 1024, signal: abort.signal });
process.stdout.write(JSON.stringify(result));
`,
  );
  return script;
}

describe("process runners", () => {
  it("start on warm-up, as children of the harness with none of its environment", () => {
    warmProcessRunners();
    const pids = findRunnerPids(process.pid);
    expect(pids.length).toBeGreaterThanOrEqual(2);
    for (const pid of pids) {
      const names = readFileSync(`/proc/${pid}/environ`, "utf8")
        .split("\0")
        .filter(Boolean)
        .map((entry) => entry.split("=")[0]);
      // Only what Node itself sets up for the IPC channel.
      expect(names.sort()).toEqual(["NODE_CHANNEL_FD", "NODE_CHANNEL_SERIALIZATION_MODE"]);
    }
  });

  it("a runner that dies fails its runs in flight with an infrastructure error; the next run starts anew", async () => {
    const pidFile = path.join(dir, "orphan.pid");
    const running = runShell({ ...base, command: `echo $$ > ${pidFile}; exec sleep 30` });
    const orphan = Number(await waitForFile(pidFile, 5000));
    const killed = findRunnerPids(process.pid);
    try {
      for (const pid of killed) process.kill(pid, "SIGKILL");
      const failure = await running.then(
        () => null,
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(InfraError);
      expect((failure as Error).message).toMatch(
        /^running "bash" failed: the process runner exited \(SIGKILL\)/,
      );
    } finally {
      // Killed with SIGKILL, the runner could not end it: its group is an orphan now.
      process.kill(-orphan, "SIGKILL");
    }
    // Once every killed runner is reaped (its exit seen by the harness), a new run starts a new one.
    while (findRunnerPids(process.pid).some((pid) => killed.includes(pid))) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
    const next = await runShell({ ...base, command: "echo again" });
    expect(next).toMatchObject({ stdout: "again\n", exit_code: 0 });
  });

  it("end what they are running when the harness process is killed outright", async () => {
    const pidFile = path.join(dir, "child.pid");
    const script = writeHarnessScript("harness.mjs", pidFile, { abortOnSigint: false });
    const harness = spawn(process.execPath, [script], { stdio: "ignore" });
    const sleeper = Number(await waitForFile(pidFile, 10_000));
    harness.kill("SIGKILL");
    expect(await waitForProcessGone(sleeper, 5000)).toBe(true);
  });

  it("outlive a Ctrl-C to the harness's process group, so that the harness can end its commands", async () => {
    const pidFile = path.join(dir, "interrupted.pid");
    const script = writeHarnessScript("interrupted.mjs", pidFile, { abortOnSigint: true });
    // Its own process group, as a shell runs a foreground job: the terminal's SIGINT reaches them all.
    const harness = spawn(process.execPath, [script], { detached: true, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    harness.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    const sleeper = Number(await waitForFile(pidFile, 10_000));
    process.kill(-(harness.pid as number), "SIGINT");
    const [code] = (await once(harness, "close")) as [number | null];
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ exit_code: 143, timed_out: false });
    expect(await waitForProcessGone(sleeper, 5000)).toBe(true);
  });

  it("are files Node runs as they are: from src/ and lib/ with execa and Node's own modules", () => {
    for (const folder of ["src/sandbox", "lib/sandbox"]) {
      const runner = path.join(folder, "process-runner.js");
      const packages = importedPackages(runner);
      expect(packages, runner).toContain("execa");
      for (const name of packages) expect(name, runner).toMatch(/^(node:.+|execa)$/);
    }
  });

  it("run from the action's bundle on their own, with no node_modules in reach", async () => {
    // A copy away from the checkout: only what the bundle carries can be loaded.
    const copy = path.join(dir, "bundled-runner");
    cpSync(path.join(ROOT, "dist/process-runner"), copy, { recursive: true });
    const runner = fork(path.join(copy, "index.js"), [PROCESS_RUNNER_ARG], {
      env: {},
      serialization: "advanced",
      stdio: ["ignore", "ignore", "pipe", "ipc"],
    });
    let stderr = "";
    runner.stderr?.on("data", (chunk) => {
      stderr += chunk;
    });
    try {
      const request: RunRequest = {
        type: "run",
        id: 1,
        file: "/bin/sh",
        args: ["-c", "echo bundled; echo oops >&2; exit 3"],
        cwd: dir,
        env: {},
        outputCapBytes: 1024,
        timeoutMs: 10_000,
        streamStdout: false,
        streamCapBytes: 0,
      };
      runner.send(request);
      const [message] = (await Promise.race([
        once(runner, "message"),
        once(runner, "exit").then(() => {
          throw new Error(`the bundled runner exited: ${stderr}`);
        }),
      ])) as [RunnerMessage];
      expect(message).toMatchObject({
        type: "finished",
        id: 1,
        code: 3,
        timedOut: false,
        stdout: { text: "bundled\n", truncated: false },
        stderr: { text: "oops\n", truncated: false },
      });
    } finally {
      runner.disconnect();
    }
  });
});

/** The packages `file` imports, following its relative imports (comments aside). */
function importedPackages(file: string): string[] {
  const packages = new Set<string>();
  const seen = new Set<string>();
  const visit = (relative: string) => {
    if (seen.has(relative)) return;
    seen.add(relative);
    const source = readFileSync(path.join(ROOT, relative), "utf8")
      .replace(/\/\*[\s\S]*?\*\//g, "")
      .replace(/^\s*\/\/.*$/gm, "");
    for (const match of source.matchAll(
      /(?:\bfrom\s+|\bimport\s*\(\s*|\brequire\s*\(\s*)["']([^"']+)["']/g,
    )) {
      const specifier = match[1] as string;
      if (specifier.startsWith(".")) visit(path.join(path.dirname(relative), specifier));
      else packages.add(specifier);
    }
  };
  visit(file);
  return [...packages].sort();
}
