/**
 * Fail closed (issue #25, break 6): in CI a run whose sandbox is `auto` must not fall back to the
 * local sandbox because bwrap does not work on the runner. The CLI with `CI=true` (as GitHub sets
 * it) refuses with a configuration error (exit 2) saying why bwrap failed and the two ways out;
 * with `--sandbox local` chosen explicitly it runs. Outside CI `auto` still falls back, warned.
 * bwrap is made to fail by a PATH whose `bwrap` fails the way AppArmor makes it fail.
 */
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { Report } from "../../src/results/types.js";
import { isCiEnvironment } from "../../src/sandbox/sandbox-selection.js";
import { runMain } from "../cli/run-main.js";
import { makeTempDir } from "../support/temp-dirs.js";

const APPARMOR_DENIAL = "bwrap: setting up uid map: Permission denied";

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

/** A suite folder, and a PATH whose bwrap fails before the real PATH. */
function setUp(): { suite: string; searchPath: string; out: string } {
  const root = makeTempDir("ltt-fail-closed-");
  const bin = path.join(root, "bin");
  const suite = path.join(root, "suite");
  for (const dir of [bin, suite]) mkdirSync(dir);
  writeFileSync(path.join(bin, "bwrap"), `#!/bin/sh\necho '${APPARMOR_DENIAL}' >&2\nexit 1\n`);
  chmodSync(path.join(bin, "bwrap"), 0o755);
  writeFileSync(path.join(suite, "fail-closed.yaml"), SCENARIO);
  return { suite, searchPath: `${bin}:${process.env.PATH}`, out: path.join(root, "out") };
}

function run(setup: ReturnType<typeof setUp>, sandbox: string[], env: Record<string, string>) {
  return runMain(["run", setup.suite, "--agent", "oracle", "--trials", "1", "--out", setup.out, ...sandbox], {
    env: { PATH: setup.searchPath, ...env },
    cwd: path.dirname(setup.suite),
  });
}

describe("a CI run where bwrap does not work", () => {
  it("refuses sandbox auto with a configuration error naming the cause and both ways out", async () => {
    const setup = setUp();
    const result = await run(setup, [], { CI: "true" });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain(APPARMOR_DENIAL);
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
