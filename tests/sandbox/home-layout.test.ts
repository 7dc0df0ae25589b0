/**
 * A scenario's home layout (a bashkit dataset's: scenario/bashkit-home.ts) holds in both sandboxes:
 * the agent's commands start in its cwd, HOME is set or not, exists or not, as it says; `~` without
 * HOME is the passwd home (bwrap); setup commands see the same HOME; gate commands run in the same
 * cwd; scenario paths (/home/user/..., relative ones) name what the agent wrote there.
 */
import { readFile } from "node:fs/promises";
import { afterEach, describe, expect, it } from "vitest";
import { createTrialSandbox } from "../../src/sandbox/trial-sandbox.js";
import type { TrialSandbox } from "../../src/sandbox/types.js";
import { BASHKIT_HOME_ERAS, bashkitHomeNamed } from "../../src/scenario/bashkit-home.js";
import type { HomeLayout, SandboxMode } from "../../src/scenario/types.js";
import { createEventRecorder } from "../support/event-builder.js";
import { findBwrapProblem } from "../support/processes.js";
import { makeScenario } from "../support/scenario-factory.js";
import { makeTempDir } from "../support/temp-dirs.js";

const dir = makeTempDir("home-layout-test-");
const parentEnv = { PATH: process.env.PATH ?? "/usr/bin:/bin", LANG: "C.UTF-8" };
const open: TrialSandbox[] = [];
let counter = 0;

afterEach(async () => {
  for (const sandbox of open.splice(0)) await sandbox.dispose();
});

async function createSandbox(mode: SandboxMode, home: HomeLayout | undefined, setup: string[] = []) {
  counter += 1;
  const sandbox = await createTrialSandbox({
    scenario: makeScenario({
      setup,
      files: { "/data/input.txt": "input\n" },
      ...(home ? { machine: { home } } : {}),
    }),
    mode,
    trialDir: `${dir}/out/trial-${counter}`,
    parentEnv,
    events: createEventRecorder(),
    tmpRoot: `${dir}/tmp`,
  });
  open.push(sandbox);
  return sandbox;
}

const PROBE =
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a bash ${...}, on purpose
  'pwd; echo "HOME=${HOME-(unset)}"; if [ -d "${HOME:-/nonexistent-home}" ]; then echo home-exists; else echo home-absent; fi';

async function probe(sandbox: TrialSandbox): Promise<string[]> {
  const result = await sandbox.runAgentCommand(PROBE, { timeoutMs: 20_000 });
  expect(result.exit_code, result.stderr).toBe(0);
  return result.stdout.trim().split("\n");
}

const layout = (name: string) => bashkitHomeNamed(name) as HomeLayout;
const modes: { mode: SandboxMode; skip: string | null }[] = [
  { mode: "bwrap", skip: findBwrapProblem() },
  { mode: "local", skip: null },
];

for (const { mode, skip } of modes) {
  describe.skipIf(skip !== null)(`home layouts in the ${mode} sandbox`, () => {
    // bwrap shows the layout's own paths; local mode the same paths under its work dir (its root).
    const visible = (sandbox: TrialSandbox, inside: string) =>
      mode === "bwrap" ? inside : `${sandbox.gateFiles.root}${inside}`;

    it("without a layout, the work dir is HOME and cwd, as before", async () => {
      const sandbox = await createSandbox(mode, undefined);
      const workDir = sandbox.visibleWorkDir;
      if (mode === "bwrap") expect(workDir).toBe("/home/eval");
      expect(await probe(sandbox)).toEqual([workDir, `HOME=${workDir}`, "home-exists"]);
    });

    it("bashkit-home-created: cwd /home/user, HOME /home/eval made, apart", async () => {
      const sandbox = await createSandbox(mode, layout("bashkit-home-created"));
      expect(sandbox.visibleWorkDir).toBe(visible(sandbox, "/home/user"));
      expect(await probe(sandbox)).toEqual([
        visible(sandbox, "/home/user"),
        `HOME=${visible(sandbox, "/home/eval")}`,
        "home-exists",
      ]);
    });

    it("bashkit-home-missing: HOME /home/eval names no folder, so writing there fails as it did in bashkit", async () => {
      const sandbox = await createSandbox(mode, layout("bashkit-home-missing"));
      expect(await probe(sandbox)).toEqual([
        visible(sandbox, "/home/user"),
        `HOME=${visible(sandbox, "/home/eval")}`,
        "home-absent",
      ]);
      const write = await sandbox.runAgentCommand("echo x > ~/organize.sh", { timeoutMs: 20_000 });
      expect(write.exit_code).not.toBe(0);
      expect(write.stderr).toMatch(/No such file or directory/);
    });

    it("bashkit-home-unset: no HOME at all; setup commands see the same", async () => {
      const sandbox = await createSandbox(mode, layout("bashkit-home-unset"), [
        // biome-ignore lint/suspicious/noTemplateCurlyInString: a bash ${...}, on purpose
        'echo "${HOME-(unset)}" > "$TMPDIR/setup-home"',
      ]);
      expect(await probe(sandbox)).toEqual([visible(sandbox, "/home/user"), "HOME=(unset)", "home-absent"]);
      const setup = await sandbox.runAgentCommand('cat "$TMPDIR/setup-home"', { timeoutMs: 20_000 });
      expect(setup.stdout).toBe("(unset)\n");
      if (mode === "bwrap") {
        // bash's `~` without HOME is the passwd home: bashkit's fallback, /home/user.
        const tilde = await sandbox.runAgentCommand("echo ~; echo x > ~/a.txt && cat a.txt", {
          timeoutMs: 20_000,
        });
        expect(tilde.stdout).toBe("/home/user\nx\n");
      }
    });

    it("the scenario's paths and the gates' cwd are where the agent worked", async () => {
      const sandbox = await createSandbox(mode, layout("bashkit-home-created"));
      const wrote = await sandbox.runAgentCommand(
        `echo done > result.txt; cat ${visible(sandbox, "/data/input.txt")}`,
        { timeoutMs: 20_000 },
      );
      expect(wrote.exit_code, wrote.stderr).toBe(0);
      expect(wrote.stdout).toBe("input\n");
      await sandbox.endAgentProcesses();
      // A file check names it by the absolute path bashkit's tasks use, or relative to the work dir.
      expect(await readFile(sandbox.resolvePath("/home/user/result.txt"), "utf8")).toBe("done\n");
      expect(await readFile(sandbox.resolvePath("result.txt"), "utf8")).toBe("done\n");
      const gate = await sandbox.runGateCommand("pwd; cat result.txt", { timeoutMs: 20_000 });
      expect(gate.stdout).toBe(`${visible(sandbox, "/home/user")}\ndone\n`);
    });
  });
}

it("every bashkit era starts in /home/user; HOME is unset, then /home/eval absent, then made", () => {
  expect(
    BASHKIT_HOME_ERAS.map((era) => [era.layout.workDir, era.layout.home, era.layout.homeExists]),
  ).toEqual([
    ["/home/user", null, false],
    ["/home/user", "/home/eval", false],
    ["/home/user", "/home/eval", true],
  ]);
});
