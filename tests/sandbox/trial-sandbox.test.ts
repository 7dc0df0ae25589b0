import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { ConfigError, InfraError } from "../../src/errors.js";
import { findSameUserReason } from "../../src/sandbox/agent-account.js";
import { createTrialSandbox, type TrialSandboxOptions } from "../../src/sandbox/trial-sandbox.js";
import type { TrialSandbox } from "../../src/sandbox/types.js";
import { createEventRecorder } from "../support/event-builder.js";
import { waitForProcessGone } from "../support/processes.js";
import { makeScenario } from "../support/scenario-factory.js";
import { FAKE_TOOL } from "./fake-tool.js";

const dir = mkdtempSync(path.join(os.tmpdir(), "trial-sandbox-test-"));
// The local sandbox's agent account (where the tests run as root) runs the tools from here.
chmodSync(dir, 0o711);
const tmpRoot = path.join(dir, "tmp-root");
const toolDir = path.join(dir, "tools");
mkdirSync(toolDir, { recursive: true });
writeFileSync(path.join(toolDir, "fake-tool"), FAKE_TOOL, { mode: 0o755 });

/** Whether the local sandbox runs agents as accounts of their own here (the harness is root). */
const ownAccounts = (await findSameUserReason(process.env.PATH ?? "")) === null;
const CANARY = "sk-ant-CANARY-5f3a9c1e";
const parentEnv = {
  PATH: `${toolDir}:${process.env.PATH ?? "/usr/bin:/bin"}`,
  HOME: "/root",
  LANG: "C.UTF-8",
  ANTHROPIC_API_KEY: CANARY,
  GITHUB_TOKEN: `ghp_${CANARY}`,
  ACTIONS_RUNTIME_TOKEN: `rt_${CANARY}`,
  SOME_OTHER_VAR: "not-for-the-agent",
};

const open: TrialSandbox[] = [];
let trialCounter = 0;

async function createSandbox(options: Partial<TrialSandboxOptions> = {}) {
  trialCounter += 1;
  const events = createEventRecorder();
  const sandbox = await createTrialSandbox({
    scenario: makeScenario(),
    mode: "local",
    trialDir: path.join(dir, "out", `trial-${trialCounter}`),
    parentEnv,
    events,
    tmpRoot,
    ...options,
  });
  open.push(sandbox);
  return { sandbox, events, trialDir: path.join(dir, "out", `trial-${trialCounter}`) };
}

afterEach(async () => {
  for (const sandbox of open.splice(0)) await sandbox.dispose();
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

function listFilesRecursively(root: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(root, { withFileTypes: true })) {
    const full = path.join(root, entry.name);
    if (entry.isDirectory()) files.push(...listFilesRecursively(full));
    else if (entry.isFile()) files.push(full);
  }
  return files;
}

describe("createTrialSandbox (local)", () => {
  it("copies the fixture with modes and symlinks, writes inline files, and places guidance", async () => {
    const fixture = path.join(dir, "fixture");
    mkdirSync(path.join(fixture, "bin"), { recursive: true });
    writeFileSync(path.join(fixture, "bin", "run.sh"), "#!/bin/sh\necho run\n", { mode: 0o755 });
    writeFileSync(path.join(fixture, "data.txt"), "data\n", { mode: 0o600 });
    symlinkSync("data.txt", path.join(fixture, "link.txt"));
    const guidanceFile = path.join(dir, "GUIDE.md");
    writeFileSync(guidanceFile, "# Use fake-tool\n");
    const { sandbox } = await createSandbox({
      scenario: makeScenario({
        fixture,
        files: { "notes/seed.md": "hello", "/data/abs.txt": "absolute" },
        guidance: { file: guidanceFile, mode: "workdir" },
      }),
    });
    const work = sandbox.workDir;
    expect(sandbox.mode).toBe("local");
    expect(sandbox.root).toBe(work);
    expect(sandbox.visibleWorkDir).toBe(work);
    expect(statSync(path.join(work, "bin", "run.sh")).mode & 0o777).toBe(0o755);
    expect(statSync(path.join(work, "data.txt")).mode & 0o777).toBe(0o600);
    expect(lstatSync(path.join(work, "link.txt")).isSymbolicLink()).toBe(true);
    expect(readlinkSync(path.join(work, "link.txt"))).toBe("data.txt");
    expect(readFileSync(path.join(work, "notes", "seed.md"), "utf8")).toBe("hello");
    expect(readFileSync(path.join(work, "data", "abs.txt"), "utf8")).toBe("absolute");
    expect(readFileSync(path.join(work, "AGENTS.md"), "utf8")).toBe("# Use fake-tool\n");
    const result = await sandbox.runAgentCommand("./bin/run.sh && cat link.txt && pwd", {
      timeoutMs: 10_000,
    });
    expect(result.stdout).toBe(`run\ndata\n${work}\n`);
  });

  it("places guidance only for workdir/both modes, the variant's guidance overriding", async () => {
    const scenarioGuide = path.join(dir, "scenario-guide.md");
    const variantGuide = path.join(dir, "variant-guide.md");
    writeFileSync(scenarioGuide, "scenario guidance");
    writeFileSync(variantGuide, "variant guidance");
    const systemOnly = await createSandbox({
      scenario: makeScenario({ guidance: { file: scenarioGuide, mode: "system" } }),
    });
    expect(existsSync(path.join(systemOnly.sandbox.workDir, "AGENTS.md"))).toBe(false);
    const withVariant = await createSandbox({
      scenario: makeScenario({ guidance: { file: scenarioGuide, mode: "workdir" } }),
      variant: { name: "v2", guidance: { file: variantGuide, mode: "both" } },
    });
    expect(readFileSync(path.join(withVariant.sandbox.workDir, "AGENTS.md"), "utf8")).toBe(
      "variant guidance",
    );
  });

  it("refuses inline files that leave the sandbox", async () => {
    const attempt = createSandbox({ scenario: makeScenario({ files: { "../escape.txt": "x" } }) });
    await expect(attempt).rejects.toBeInstanceOf(ConfigError);
    await expect(
      createSandbox({ scenario: makeScenario({ files: { "/../../etc/x": "x" } }) }),
    ).rejects.toThrow(/files: "\/\.\.\/\.\.\/etc\/x" leaves the sandbox/);
    expect(existsSync(path.join(tmpRoot, "escape.txt"))).toBe(false);
  });

  it("runs setup commands in the work dir with events, without the shim", async () => {
    const { sandbox, events } = await createSandbox({
      scenario: makeScenario({
        setup: ["echo prepared > state.txt", "fake-tool echo during-setup"],
        target: { binary: "fake-tool", env: {} },
      }),
    });
    expect(readFileSync(path.join(sandbox.workDir, "state.txt"), "utf8")).toBe("prepared\n");
    expect(events.events).toEqual([
      expect.objectContaining({ type: "setup", command: "echo prepared > state.txt", exit_code: 0 }),
      expect.objectContaining({
        type: "setup",
        command: "fake-tool echo during-setup",
        exit_code: 0,
        stdout: "during-setup\n",
      }),
    ]);
    expect(await sandbox.readTargetInvocations()).toEqual([]);
  });

  it("turns a failing setup command into an InfraError and cleans up", async () => {
    const before = existsSync(tmpRoot) ? readdirSync(tmpRoot) : [];
    const attempt = createSandbox({
      scenario: makeScenario({ setup: ["true", "echo 'cannot init store' >&2; exit 3", "echo never"] }),
    });
    await expect(attempt).rejects.toBeInstanceOf(InfraError);
    await expect(
      createSandbox({ scenario: makeScenario({ setup: ["echo 'cannot init store' >&2; exit 3"] }) }),
    ).rejects.toThrow(
      "setup command `echo 'cannot init store' >&2; exit 3` failed with exit code 3: cannot init store",
    );
    expect(readdirSync(tmpRoot)).toEqual(before);
  });

  it("gives the agent a scrubbed environment; no secret reaches its output or any written file", async () => {
    const { sandbox, events, trialDir } = await createSandbox({
      scenario: makeScenario({
        target: { binary: "fake-tool", env: { MY_TOOL_HOME: ".my-tool" } },
        setup: ["env > setup-env.txt"],
      }),
      variant: { name: "alt", env: { MY_TOOL_FLAVOUR: "alt" } },
      keepWorkDir: true,
    });
    const result = await sandbox.runAgentCommand("env; env > agent-env.txt; fake-tool echo hi", {
      timeoutMs: 10_000,
    });
    expect(result.stdout).not.toContain("CANARY");
    expect(result.stdout).not.toContain("SOME_OTHER_VAR");
    expect(result.stdout).toContain(`HOME=${sandbox.workDir}\n`);
    expect(result.stdout).toContain("MY_TOOL_HOME=.my-tool\n");
    expect(result.stdout).toContain("MY_TOOL_FLAVOUR=alt\n");
    expect(sandbox.agentEnv.PATH!.split(":")[0]).toMatch(/shim$/);
    expect(sandbox.agentEnv.TMPDIR).not.toContain(sandbox.workDir);
    expect(JSON.stringify(sandbox.agentEnv)).not.toContain("CANARY");
    expect(JSON.stringify(events.events)).not.toContain("CANARY");
    const base = path.dirname(sandbox.workDir);
    const written = [
      ...listFilesRecursively(base),
      ...(existsSync(trialDir) ? listFilesRecursively(trialDir) : []),
    ];
    // The shim script, the work dir's files (the shim's records go through a FIFO, not a file).
    expect(written.length).toBeGreaterThanOrEqual(3);
    for (const file of written) expect(readFileSync(file, "utf8"), file).not.toContain("CANARY");
    await sandbox.dispose();
    rmSync(base, { recursive: true, force: true });
  });

  it("records the agent's target invocations but never a gate's", async () => {
    const { sandbox, trialDir } = await createSandbox({
      scenario: makeScenario({ target: { binary: "fake-tool", env: {} } }),
    });
    const agent = await sandbox.runAgentCommand(
      "fake-tool echo one && fake-tool fail 2; printf 'x\\n' | fake-tool upper",
      {
        timeoutMs: 10_000,
      },
    );
    expect(agent.stdout).toBe("one\nX\n");
    const gate = await sandbox.runGateCommand("fake-tool echo gate-check; echo $PATH", { timeoutMs: 10_000 });
    expect(gate.stdout.startsWith("gate-check\n")).toBe(true);
    const shimDir = sandbox.agentEnv.PATH!.split(":")[0]!;
    expect(gate.stdout).not.toContain(shimDir);
    const invocations = await sandbox.readTargetInvocations();
    expect(invocations.map((record) => [record.argv, record.exit_code, record.cwd])).toEqual([
      [["fake-tool", "echo", "one"], 0, sandbox.workDir],
      [["fake-tool", "fail", "2"], 2, sandbox.workDir],
      [["fake-tool", "upper"], 0, sandbox.workDir],
    ]);
    // The records went through a FIFO outside the work dir, not into a file the agent could edit.
    expect(existsSync(path.join(trialDir, "target-shim"))).toBe(false);
    const shimScript = readFileSync(path.join(shimDir, "fake-tool"), "utf8");
    const channel = /__ltt_log='([^']+)'/.exec(shimScript)?.[1] ?? "";
    expect(statSync(channel).isFIFO()).toBe(true);
    expect(channel.startsWith(sandbox.workDir)).toBe(false);
  });

  it("passes extra env to a gate command (script gates)", async () => {
    const { sandbox } = await createSandbox();
    const gate = await sandbox.runGateCommand('echo "$LLM_TOOL_TEST_SCENARIO"', {
      timeoutMs: 10_000,
      env: { LLM_TOOL_TEST_SCENARIO: "sandbox-test" },
    });
    expect(gate.stdout).toBe("sandbox-test\n");
  });

  it("fails with a clear InfraError when the target binary is missing", async () => {
    await expect(
      createSandbox({ scenario: makeScenario({ target: { binary: "no-such-tool-xyz", env: {} } }) }),
    ).rejects.toThrow(
      /target binary "no-such-tool-xyz" was not found on PATH \(.*\): install it or fix target\.binary/,
    );
  });

  it("accepts a target binary built by setup inside the work dir", async () => {
    const { sandbox } = await createSandbox({
      scenario: makeScenario({
        setup: [`mkdir -p bin && cp ${path.join(toolDir, "fake-tool")} bin/built-tool`],
        target: { binary: "./bin/built-tool", env: {} },
      }),
    });
    await sandbox.runAgentCommand("built-tool echo via-path", { timeoutMs: 10_000 });
    const invocations = await sandbox.readTargetInvocations();
    expect(invocations.map((record) => record.argv)).toEqual([["built-tool", "echo", "via-path"]]);
  });

  it.runIf(ownAccounts)(
    "refuses, clearly, a target the agent's own account could not run (a folder closed to other users)",
    async () => {
      const closed = path.join(dir, "closed-tools");
      mkdirSync(closed, { mode: 0o700 });
      writeFileSync(path.join(closed, "closed-tool"), FAKE_TOOL, { mode: 0o755 });
      await expect(
        createSandbox({
          scenario: makeScenario({ target: { binary: path.join(closed, "closed-tool"), env: {} } }),
        }),
      ).rejects.toThrow(
        /cannot be run by the agent's account llm-tool-test-agent-\d+: .*closed to that user/,
      );
    },
  );

  it("resolves file gate paths inside the sandbox and refuses escapes", async () => {
    const { sandbox } = await createSandbox();
    expect(sandbox.resolvePath("out/result.txt")).toBe(path.join(sandbox.workDir, "out", "result.txt"));
    expect(sandbox.resolvePath("/tmp/x.txt")).toBe(path.join(sandbox.root, "tmp", "x.txt"));
    expect(sandbox.resolvePath("a/../b.txt")).toBe(path.join(sandbox.workDir, "b.txt"));
    expect(() => sandbox.resolvePath("../outside.txt")).toThrow(ConfigError);
    expect(() => sandbox.resolvePath("/../../etc/passwd")).toThrow(/leaves the sandbox/);
    expect(() => sandbox.resolvePath("a/../../../x")).toThrow(ConfigError);
  });

  it("dispose ends leftover background processes and removes the work dir unless kept", async () => {
    const { sandbox } = await createSandbox();
    const started = Date.now();
    const result = await sandbox.runAgentCommand("sleep 100.0505 & echo $!", { timeoutMs: 10_000 });
    expect(Date.now() - started).toBeLessThan(3_000);
    const pid = Number(result.stdout.trim());
    expect(await waitForProcessGone(pid, 100)).toBe(false);
    await sandbox.dispose();
    expect(await waitForProcessGone(pid, 3_000)).toBe(true);
    expect(existsSync(sandbox.workDir)).toBe(false);

    const kept = await createSandbox({ keepWorkDir: true });
    await kept.sandbox.runAgentCommand("echo keep > kept.txt", { timeoutMs: 10_000 });
    await kept.sandbox.dispose();
    expect(readFileSync(path.join(kept.sandbox.workDir, "kept.txt"), "utf8")).toBe("keep\n");
    rmSync(path.dirname(kept.sandbox.workDir), { recursive: true, force: true });
  });

  it("removes a work dir whose directories the agent made unwritable", async () => {
    const { sandbox } = await createSandbox();
    await sandbox.runAgentCommand(
      "mkdir -p locked/inner && touch locked/inner/f && chmod 000 locked/inner locked",
      {
        timeoutMs: 10_000,
      },
    );
    await sandbox.dispose();
    expect(existsSync(sandbox.workDir)).toBe(false);
  });

  it("times out an agent command and kills its tree", async () => {
    const { sandbox } = await createSandbox();
    const result = await sandbox.runAgentCommand("sleep 100.0606 & echo $!; wait", { timeoutMs: 400 });
    expect(result.timed_out).toBe(true);
    expect(result.exit_code).toBe(124);
    expect(await waitForProcessGone(Number(result.stdout.trim()), 3_000)).toBe(true);
  });
});
