/**
 * `sandbox: auto` where bwrap does not work (a bwrap that fails as AppArmor makes it fail on
 * Ubuntu 24.04, given to the selector): the trials run in the local sandbox, and the warning that the agent was not
 * isolated reaches the log, report.json, report.md, report.html, the terminal summary and the comment.
 */
import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createAgent } from "../../src/agents/registry.js";
import { decideRun } from "../../src/compare/decide-run.js";
import { ConfigError } from "../../src/errors.js";
import { renderComment } from "../../src/render/pr-comment.js";
import { renderTerminalSummary } from "../../src/render/terminal.js";
import type { Report } from "../../src/results/types.js";
import { defaultRunOptions } from "../../src/run/options.js";
import { checkSandbox } from "../../src/run/preflight.js";
import { createRunRedactor, runSuite } from "../../src/run/suite.js";
import { writeRunOutputs } from "../../src/run/write-outputs.js";
import { findSameUserReason, sameUserWarning } from "../../src/sandbox/agent-account.js";
import { createSandboxSelector } from "../../src/sandbox/sandbox-selection.js";
import { findBwrapProblem } from "../support/processes.js";
import { makeScenario } from "../support/scenario-factory.js";

const APPARMOR_DENIAL = "bwrap: setting up uid map: Permission denied";
/** Why the local sandbox runs the agent as the harness's own user here (not root), or null. */
const sameUserReason = await findSameUserReason(process.env.PATH ?? "");
const folders: string[] = [];

afterEach(async () => {
  await Promise.all(folders.splice(0).map((folder) => rm(folder, { recursive: true, force: true })));
});

async function tempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), prefix));
  folders.push(dir);
  return dir;
}

/** A bwrap that fails the way AppArmor makes it fail, and the PATH. */
async function blockedBwrap(): Promise<{ searchPath: string; bwrapPath: string }> {
  const bin = await tempDir("llm-tool-test-blocked-bwrap-");
  await writeFile(path.join(bin, "bwrap"), `#!/bin/sh\necho '${APPARMOR_DENIAL}' >&2\nexit 1\n`);
  await chmod(path.join(bin, "bwrap"), 0o755);
  return { searchPath: process.env.PATH ?? "", bwrapPath: path.join(bin, "bwrap") };
}

const scenario = makeScenario({
  id: "auto-falls-back",
  solution: ["echo done > out.txt"],
  evaluation: { gates: [{ type: "file_exists", path: "out.txt", weight: 1 }] },
});

describe("sandbox auto where bwrap does not work", () => {
  it("runs the trials locally and warns in report.json, report.md, report.html, the terminal and the comment", async () => {
    const { searchPath, bwrapPath } = await blockedBwrap();
    const outDir = await tempDir("llm-tool-test-auto-");
    const selector = createSandboxSelector({ searchPath, bwrapPath });
    const logged = await checkSandbox([scenario], null, selector);
    // Besides the fallback's warning, the one that the agent runs as the harness's own user, where it does.
    expect(logged).toEqual(
      sameUserReason === null ? [logged[0]] : [logged[0], sameUserWarning(sameUserReason)],
    );
    expect(logged[0]).toContain("the agent was NOT isolated");
    expect(logged[0]).toContain(APPARMOR_DENIAL);

    const env = { PATH: searchPath, LANG: "C.UTF-8" };
    const { report } = await runSuite([scenario], defaultRunOptions({ agent: "oracle", outDir, trials: 2 }), {
      agent: createAgent("oracle", {}),
      env,
      sandboxes: selector,
    });
    const decided = decideRun({ report, baseline: null, policy: { failOn: null, gateMetrics: [] } });
    await writeRunOutputs(report, decided, { outDir, redact: createRunRedactor([scenario], env) });
    const { decision } = decided;
    expect(report.scenarios[0]!.trials.map((t) => [t.outcome, t.sandbox])).toEqual([
      ["pass", "local"],
      ["pass", "local"],
    ]);
    expect(report.run.warnings).toEqual(logged);

    const saved = JSON.parse(await readFile(path.join(outDir, "report.json"), "utf8")) as Report;
    expect(saved.run.warnings).toEqual(logged);
    expect(saved.scenarios[0]!.trials[0]!.sandbox).toBe("local");
    // The sandbox really used is part of what the run measured (never pooled with bwrap runs).
    expect(saved.run.sandbox_used).toEqual(["local"]);
    const markdown = await readFile(path.join(outDir, "report.md"), "utf8");
    expect(markdown).toContain("> ⚠️ the agent was NOT isolated");
    const html = await readFile(path.join(outDir, "report.html"), "utf8");
    expect(html).toContain('<p class="banner">the agent was NOT isolated');
    expect(renderTerminalSummary(report, { color: false })).toContain("warning: the agent was NOT isolated");
    const comment = renderComment({
      key: "k",
      report,
      decision,
      comparison: null,
      baseline: { status: "disabled" },
      runUrl: null,
      artifactUrl: null,
      headSha: null,
      now: Date.now(),
    });
    expect(comment).toContain("> [!WARNING]\n> the agent was NOT isolated");
  });

  it("an explicit bwrap that cannot work stays a clear error, before any trial", async () => {
    const { searchPath, bwrapPath } = await blockedBwrap();
    const selector = createSandboxSelector({ searchPath, bwrapPath });
    const check = checkSandbox([{ ...scenario, sandbox: "bwrap" }], null, selector);
    await expect(check).rejects.toThrow(ConfigError);
    await expect(check).rejects.toThrow(
      /sandbox "bwrap" cannot run here: .*setting up uid map: Permission denied/,
    );
  });

  it("explicit local neither probes bwrap nor warns of a fallback", async () => {
    const { searchPath, bwrapPath } = await blockedBwrap();
    const selector = createSandboxSelector({ searchPath, bwrapPath });
    expect(await checkSandbox([scenario], "local", selector)).toEqual(
      sameUserReason === null ? [] : [sameUserWarning(sameUserReason)],
    );
    expect(await selector.select("local")).toEqual({ mode: "local", warning: null });
  });

  it.skipIf(findBwrapProblem() !== null)("auto picks bwrap where it works, without a warning", async () => {
    const selector = createSandboxSelector({ searchPath: process.env.PATH ?? "" });
    expect(await selector.select("auto")).toEqual({ mode: "bwrap", warning: null });
    expect(selector.warnings()).toEqual([]);
  });
});
