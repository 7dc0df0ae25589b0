/**
 * Hostile input against the run's end (issue #25, break 2): a gate that hangs must not hold the
 * run. SIGTERM to the real CLI while a gate's command hangs (its timeout far away) ends the run
 * within seconds, with its report written (incomplete, the trial skipped) and the gate's process
 * gone, in either sandbox mode.
 */
import { spawn } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { Report } from "../../src/results/types.js";
import type { SandboxMode } from "../../src/scenario/types.js";
import { findBwrapProblem, findLiveProcesses } from "../support/processes.js";
import { CLI, ROOT } from "../support/run-cli.js";
import { makeTempDir } from "../support/temp-dirs.js";

const modes: SandboxMode[] = findBwrapProblem() ? ["local"] : ["local", "bwrap"];

/** Polls `check` (the CLI gives no signal that its gate started); throws after `withinMs`. */
async function waitUntil(check: () => boolean, withinMs: number, what: string): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe.each(modes)("SIGTERM while a gate hangs (%s)", (mode) => {
  it("ends the run within seconds, with its report", async () => {
    const dir = makeTempDir("ltt-gate-sigterm-");
    // A duration no other process uses: the gate's process is found by it.
    const sleep = `300.${process.pid}${Math.floor(Math.random() * 1e6)}`;
    const scenario = path.join(dir, "hang.yaml");
    await writeFile(
      scenario,
      [
        "name: gate_hangs",
        "task: Write done.txt.",
        "solution:",
        "  - echo done > done.txt",
        "evaluation:",
        "  gates:",
        "    - type: command_succeeds",
        `      command: sleep ${sleep}`,
        "trials: 1",
        "",
      ].join("\n"),
    );
    const out = path.join(dir, "out");
    const child = spawn(
      process.execPath,
      [CLI, "run", scenario, "--agent", "oracle", "--sandbox", mode, "--gate-timeout", "10m", "--out", out],
      {
        cwd: ROOT,
        env: { PATH: process.env.PATH, HOME: dir, TMPDIR: dir, LANG: "C.UTF-8" },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let stderr = "";
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    let ended = false;
    const exited = new Promise<number | null>((resolve) =>
      child.on("close", (code) => {
        ended = true;
        resolve(code);
      }),
    );
    // How long the CLI takes to reach the gate is not what is tested: on a loaded machine it took
    // more than 30 s. A CLI that ends before it gets there fails at once, with its stderr.
    await waitUntil(
      () => {
        if (ended) throw new Error(`the CLI ended before its gate started: ${stderr}`);
        return findLiveProcesses(`sleep ${sleep}`).length > 0;
      },
      80_000,
      "the gate to start",
    );

    const signalledAt = Date.now();
    child.kill("SIGTERM");
    const code = await exited;
    const tookMs = Date.now() - signalledAt;

    expect(code, stderr).toBe(3);
    // The gate's timeout is ten minutes: only the signal ended it.
    expect(tookMs).toBeLessThan(15_000);
    // The gate's processes go with the run: in bwrap the kernel ends them (--die-with-parent) just
    // after the CLI exits, so they are polled for rather than checked at the instant of exit, within
    // the bound the run itself has (a loaded machine took more than 5 s in CI).
    await waitUntil(
      () => findLiveProcesses(`sleep ${sleep}`).length === 0,
      15_000,
      "the gate's processes to end",
    );
    const report = JSON.parse(await readFile(path.join(out, "report.json"), "utf8")) as Report;
    expect(report.run.incomplete).toBe(true);
    const trial = report.scenarios[0]?.trials[0];
    expect(trial?.outcome).toBe("skipped");
    expect(trial?.reason).toBe("the run was cancelled while this trial was being evaluated");
  });
});
