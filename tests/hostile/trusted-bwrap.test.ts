/**
 * The program that builds every sandbox is not whichever `bwrap` comes first on PATH (issue #25,
 * point 9): a `bwrap` planted in a folder on the harness's PATH (a step earlier in the CI job,
 * `node_modules/.bin`, `~/.local/bin`) would run with the trial's environment, API key included,
 * and could build no sandbox at all. Only /usr/bin/bwrap runs, or LLM_TOOL_TEST_BWRAP when only
 * root can change the file it names.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createAgent } from "../../src/agents/registry.js";
import { ConfigError } from "../../src/errors.js";
import { defaultRunOptions } from "../../src/run/options.js";
import { locateTrustedBwrap, SYSTEM_BWRAP } from "../../src/sandbox/trusted-bwrap.js";
import { findBwrapProblem } from "../support/processes.js";
import { makeScenario } from "../support/scenario-factory.js";
import { runSingleTrial } from "../support/single-trial.js";
import { makeTempDir } from "../support/temp-dirs.js";

const CANARY_KEY = "sk-ant-canary-planted-bwrap-7c1d";
const isRoot = process.geteuid?.() === 0;

/** A `bwrap` that notes its environment, then runs the real one (so the trial itself still works). */
function plantBwrap(dir: string): { bin: string; marker: string } {
  const bin = path.join(dir, "bin");
  mkdirSync(bin);
  const marker = path.join(dir, "planted-bwrap-ran");
  writeFileSync(path.join(bin, "bwrap"), `#!/bin/sh\nenv >> '${marker}'\nexec ${SYSTEM_BWRAP} "$@"\n`);
  chmodSync(path.join(bin, "bwrap"), 0o755);
  return { bin, marker };
}

const bwrapProblem = findBwrapProblem();

describe.skipIf(bwrapProblem !== null)("a bwrap planted first on PATH", () => {
  it("is never run: the trial runs in /usr/bin/bwrap", async () => {
    const dir = makeTempDir("ltt-hostile-planted-bwrap-");
    const { bin, marker } = plantBwrap(dir);
    const scenario = makeScenario({
      id: "planted-bwrap",
      solution: ["echo done > out.txt"],
      evaluation: { gates: [{ type: "file_contains", path: "out.txt", substring: "done", weight: 1 }] },
    });
    const options = defaultRunOptions({ outDir: path.join(dir, "out"), agent: "oracle", sandbox: "bwrap" });
    const { output } = await runSingleTrial(scenario, options, createAgent("oracle", {}), {
      canaryKey: CANARY_KEY,
      env: { PATH: `${bin}:${process.env.PATH}` },
    });
    expect(output.report.sandbox).toBe("bwrap");
    expect(output.report.outcome).toBe("pass");
    expect(existsSync(marker) ? readFileSync(marker, "utf8") : "").toBe("");
  });
});

describe("LLM_TOOL_TEST_BWRAP", () => {
  it("is refused when its folder can be written by others", async () => {
    const dir = makeTempDir("ltt-hostile-bwrap-override-");
    const open = path.join(dir, "open");
    mkdirSync(open);
    chmodSync(open, 0o777);
    const planted = path.join(open, "bwrap");
    writeFileSync(planted, "#!/bin/sh\nexit 0\n", { mode: 0o755 });
    const attempt = locateTrustedBwrap({ LLM_TOOL_TEST_BWRAP: planted });
    await expect(attempt).rejects.toBeInstanceOf(ConfigError);
    await expect(attempt).rejects.toThrow(`${open} is writable by every user`);
  });

  it("is refused when the file itself is writable by its group", async () => {
    const dir = makeTempDir("ltt-hostile-bwrap-override-");
    const planted = path.join(dir, "bwrap");
    writeFileSync(planted, "#!/bin/sh\nexit 0\n");
    chmodSync(planted, 0o775);
    await expect(locateTrustedBwrap({ LLM_TOOL_TEST_BWRAP: planted })).rejects.toThrow(
      isRoot ? `${planted} is writable by its group` : "not root",
    );
  });

  it("is refused when not owned by root", async () => {
    const dir = makeTempDir("ltt-hostile-bwrap-override-");
    const planted = path.join(dir, "bwrap");
    writeFileSync(planted, "#!/bin/sh\nexit 0\n", { mode: 0o755 });
    // As root, hand it to nobody; otherwise it is already this user's.
    if (isRoot) {
      const { chownSync } = await import("node:fs");
      chownSync(planted, 65534, 65534);
    }
    await expect(locateTrustedBwrap({ LLM_TOOL_TEST_BWRAP: planted })).rejects.toThrow(
      /is owned by uid \d+, not root/,
    );
  });

  it("is taken by its real path when it leads to a bwrap only root can change", async () => {
    const dir = makeTempDir("ltt-hostile-bwrap-override-");
    const link = path.join(dir, "bwrap");
    symlinkSync(SYSTEM_BWRAP, link);
    if (!existsSync(SYSTEM_BWRAP)) return;
    expect(await locateTrustedBwrap({ LLM_TOOL_TEST_BWRAP: link })).toBe(SYSTEM_BWRAP);
    expect(await locateTrustedBwrap({})).toBe(SYSTEM_BWRAP);
  });

  it("must be an absolute path", async () => {
    await expect(locateTrustedBwrap({ LLM_TOOL_TEST_BWRAP: "bwrap" })).rejects.toThrow(
      "is not an absolute path",
    );
  });
});
