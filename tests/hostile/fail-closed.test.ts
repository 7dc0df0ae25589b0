/**
 * Fail closed (issue #25, break 6): in CI a run whose sandbox is `auto` must not fall back to the
 * local sandbox because bwrap does not work on the runner. The CLI with `CI=true` (as GitHub sets
 * it) refuses with a configuration error (exit 2) saying why bwrap failed and the two ways out;
 * with `--sandbox local` chosen explicitly it runs. Outside CI `auto` still falls back, warned.
 * bwrap is made to fail by naming a trusted program that fails as bwrap (LLM_TOOL_TEST_BWRAP=/bin/false):
 * a `bwrap` on PATH is never run (trusted-bwrap.ts).
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { Report } from "../../src/results/types.js";
import { isCiEnvironment } from "../../src/sandbox/sandbox-selection.js";
import { runMain } from "../cli/run-main.js";
import { makeTempDir } from "../support/temp-dirs.js";

/** Root's own program, so trusted, and it fails as a blocked bwrap does. */
const FAILING_BWRAP = "/bin/false";
const PROBE_FAILURE = "`bwrap --ro-bind / / true` failed (exit 1";

const SCENARIO = `name: fail_closed
description: runs a command
task: Write done into out.txt.
solution:
  - echo done > out.txt
evaluation:
  gates:
    - type: file_contains
      path: out.txt
      substring: done
`;

/** A suite folder. */
function setUp(): { suite: string; out: string } {
  const root = makeTempDir("ltt-fail-closed-");
  const suite = path.join(root, "suite");
  mkdirSync(suite);
  writeFileSync(path.join(suite, "fail-closed.yaml"), SCENARIO);
  return { suite, out: path.join(root, "out") };
}

function run(setup: ReturnType<typeof setUp>, sandbox: string[], env: Record<string, string>) {
  return runMain(["run", setup.suite, "--agent", "oracle", "--trials", "1", "--out", setup.out, ...sandbox], {
    env: { PATH: process.env.PATH ?? "", LLM_TOOL_TEST_BWRAP: FAILING_BWRAP, ...env },
    cwd: path.dirname(setup.suite),
  });
}

describe("a CI run where bwrap does not work", () => {
  it("refuses sandbox auto with a configuration error naming the cause and both ways out", async () => {
    const setup = setUp();
    const result = await run(setup, [], { CI: "true" });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain(PROBE_FAILURE);
    expect(result.stderr).toContain("in CI it does not fall back to the local sandbox");
    expect(result.stderr).toContain("make bwrap work");
    expect(result.stderr).toContain("--sandbox local");
    expect(result.stderr).not.toMatch(/\n\s+at /);
    // Refused before any trial ran: no report, no trial.
    expect(() => readFileSync(path.join(setup.out, "report.json"))).toThrow();
  });

  it("refuses an explicit --sandbox auto the same way", async () => {
    const setup = setUp();
    const result = await run(setup, ["--sandbox", "auto"], { CI: "1" });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain("in CI it does not fall back");
  });

  it("runs with --sandbox local chosen explicitly", async () => {
    const setup = setUp();
    const result = await run(setup, ["--sandbox", "local"], { CI: "true" });
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(readFileSync(path.join(setup.out, "report.json"), "utf8")) as Report;
    expect(report.scenarios[0]!.trials.map((trial) => [trial.outcome, trial.sandbox])).toEqual([
      ["pass", "local"],
    ]);
  });

  it("outside CI, still falls back to local with the warning that the agent was not isolated", async () => {
    const setup = setUp();
    const result = await run(setup, [], { CI: "false" });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain("the agent was NOT isolated");
    const report = JSON.parse(readFileSync(path.join(setup.out, "report.json"), "utf8")) as Report;
    expect(report.scenarios[0]!.trials[0]!.sandbox).toBe("local");
  });
});

describe("what counts as CI", () => {
  it("is CI set to anything but empty, 0 or false", () => {
    expect(["true", "1", "yes", "TRUE", "woodpecker"].map((CI) => isCiEnvironment({ CI }))).toEqual([
      true,
      true,
      true,
      true,
      true,
    ]);
    expect(["", "0", "false", "False", " "].map((CI) => isCiEnvironment({ CI }))).toEqual([
      false,
      false,
      false,
      false,
      false,
    ]);
    expect(isCiEnvironment({})).toBe(false);
  });
});
