import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { Report } from "../../src/results/types.js";
import { CLI, ROOT, runCli } from "../support/run-cli.js";
import { makeTempDir } from "../support/temp-dirs.js";

const SUITE = path.join(ROOT, "tests/fixtures/e2e/slow");

function resultFile(out: string, trial: number): string {
  return path.join(out, "trials/slow_task", `trial-${trial}`, "result.json");
}

async function waitFor(check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("SIGTERM mid-run, then --resume", () => {
  it("writes an incomplete report, exits 3, and resuming finishes exactly the missing trials", async () => {
    const out = makeTempDir("ltt-resume-");
    const args = ["run", SUITE, "--agent", "oracle", "--out", out, "-j", "1"];
    const child = spawn(process.execPath, [CLI, ...args], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
    await waitFor(() => existsSync(resultFile(out, 2)), 20_000);
    child.kill("SIGTERM");
    expect(await exited).toBe(3);
    expect(stderr).toContain("Stopping: the run was cancelled");

    const interrupted = JSON.parse(await readFile(path.join(out, "report.json"), "utf8")) as Report;
    expect(interrupted.run.incomplete).toBe(true);
    const trials = interrupted.scenarios[0]?.trials ?? [];
    expect(trials).toHaveLength(6);
    const finished = trials.filter((t) => t.outcome === "pass").map((t) => t.trial);
    expect(finished.length).toBeGreaterThanOrEqual(2);
    expect(trials.filter((t) => t.outcome === "skipped").length).toBe(6 - finished.length);
    const keptResult = await readFile(resultFile(out, 1), "utf8");

    // A changed setting is refused.
    const changed = await runCli([...args.slice(0, 4), "--resume", out, "--max-turns", "3"]);
    expect(changed.code).toBe(2);
    expect(changed.stderr).toContain("cannot resume: the scenarios, model or settings changed");

    const resumed = await runCli(["run", SUITE, "--agent", "oracle", "--resume", out, "-j", "2"]);
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).toContain(`(${finished.length} already finished, resuming)`);
    const final = JSON.parse(await readFile(path.join(out, "report.json"), "utf8")) as Report;
    expect(final.run.incomplete).toBe(false);
    expect(final.run.id).toBe(interrupted.run.id);
    expect(final.scenarios[0]?.trials.map((t) => [t.trial, t.outcome])).toEqual(
      [1, 2, 3, 4, 5, 6].map((n) => [n, "pass"]),
    );
    // Finished trials were kept, not run again.
    expect(await readFile(resultFile(out, 1), "utf8")).toBe(keptResult);
  });
});
