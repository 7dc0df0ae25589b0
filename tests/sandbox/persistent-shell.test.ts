/**
 * The agent's persistent shell (src/sandbox/persistent-shell.ts) in both sandbox modes, through a
 * real trial sandbox: state that lasts between calls, exact exit codes and output per call,
 * timeouts and restarts, background processes, and a hostile command forging the framing.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { quoteForBash } from "../../src/sandbox/persistent-shell.js";
import { createTrialSandbox } from "../../src/sandbox/trial-sandbox.js";
import type { TrialSandbox } from "../../src/sandbox/types.js";
import type { SandboxMode } from "../../src/scenario/types.js";
import { createEventRecorder } from "../support/event-builder.js";
import { findBwrapProblem } from "../support/processes.js";
import { makeScenario } from "../support/scenario-factory.js";
import { makeTempDir } from "../support/temp-dirs.js";
import { FAKE_TOOL } from "./fake-tool.js";

const bwrapProblem = findBwrapProblem();
if (bwrapProblem) console.warn(`skipping the persistent shell's bwrap tests: ${bwrapProblem}`);

const dir = makeTempDir("persistent-shell-test-");
const toolDir = path.join(dir, "tools");
mkdirSync(toolDir, { recursive: true });
writeFileSync(path.join(toolDir, "fake-tool"), FAKE_TOOL, { mode: 0o755 });
const CANARY = "sk-ant-SHELL-CANARY-3b9d";
const parentEnv = {
  PATH: `${toolDir}:${process.env.PATH ?? "/usr/bin:/bin"}`,
  LANG: "C.UTF-8",
  ANTHROPIC_API_KEY: CANARY,
};

const open: TrialSandbox[] = [];
let counter = 0;
afterEach(async () => {
  for (const sandbox of open.splice(0)) await sandbox.dispose();
});

async function createSandbox(mode: SandboxMode, binary?: string): Promise<TrialSandbox> {
  counter += 1;
  const sandbox = await createTrialSandbox({
    scenario: makeScenario(binary ? { target: { binary, env: {} } } : {}),
    mode,
    trialDir: path.join(dir, "out", `trial-${counter}`),
    parentEnv,
    events: createEventRecorder(),
    tmpRoot: path.join(dir, "tmp-root"),
  });
  open.push(sandbox);
  return sandbox;
}

const call = (sandbox: TrialSandbox, command: string, timeoutMs = 20_000) =>
  sandbox.runAgentCommand(command, { timeoutMs });

const modes: { mode: SandboxMode; skip: boolean }[] = [
  { mode: "local", skip: false },
  { mode: "bwrap", skip: bwrapProblem !== null },
];

for (const { mode, skip } of modes) {
  describe.skipIf(skip)(`the agent's persistent shell (${mode})`, () => {
    it("keeps cwd, variables (exported or not), functions and aliases between calls", async () => {
      const sandbox = await createSandbox(mode);
      expect((await call(sandbox, "mkdir -p sub/deeper && cd sub && pwd")).exit_code).toBe(0);
      const where = await call(sandbox, 'pwd; basename "$PWD" > marker.txt');
      expect(where.stdout).toBe(`${sandbox.visibleWorkDir}/sub\n`);
      await call(
        sandbox,
        "plain=one; export EXPORTED=two; greet() { echo \"hello $1\"; }; alias ll='echo aliased'",
      );
      const used = await call(
        sandbox,
        // biome-ignore lint/suspicious/noTemplateCurlyInString: a bash ${...}, on purpose
        'echo "$plain $EXPORTED"; bash -c \'echo "child sees ${plain:-nothing} $EXPORTED"\'; greet you; ll',
      );
      expect(used).toMatchObject({ exit_code: 0, stderr: "" });
      expect(used.stdout).toBe("one two\nchild sees nothing two\nhello you\naliased\n");
      expect(used.shell_exited).toBeUndefined();
    });

    it("gives $BASH as the system's bash, not the runner's sealed copy, with functions in the state or not", async () => {
      const sandbox = await createSandbox(mode);
      const plain = await call(sandbox, '"$BASH" -c "echo runs"; echo "$BASH"');
      expect(plain.stdout).toMatch(/^runs\n\/(usr\/)?bin\/bash\n$/);
      const withFunction = await call(sandbox, 'helper() { :; }; "$BASH" -c "echo runs"; echo "$BASH"');
      expect(withFunction.stdout).toBe(plain.stdout);
      expect((await call(sandbox, 'echo "$BASH"')).stdout).toBe(plain.stdout.replace("runs\n", ""));
    });

    it("reports each call's exact exit status and its own stdout and stderr", async () => {
      const sandbox = await createSandbox(mode);
      const results = [];
      for (const command of [
        "true",
        "false",
        "exit_with() { return $1; }; exit_with 42",
        "echo out; echo err >&2; (exit 7)",
        "nosuch-command-x",
        "echo 'unclosed",
      ]) {
        results.push(await call(sandbox, command));
      }
      expect(results.map((result) => result.exit_code)).toEqual([0, 1, 42, 7, 127, 2]);
      expect(results[3]).toMatchObject({ stdout: "out\n", stderr: "err\n", timed_out: false });
      expect(results[4]?.stderr).toContain("nosuch-command-x: command not found");
      expect(results[5]?.stderr).toContain("unexpected EOF");
      // Nothing of an earlier call leaks into a later one, and the shell lived through them all.
      expect(results.slice(0, 3).every((result) => result.stdout === "" && result.stderr === "")).toBe(true);
      expect(results.every((result) => result.shell_exited === undefined)).toBe(true);
    });

    it("keeps text with every kind of byte intact, quotes and backslashes included", async () => {
      const sandbox = await createSandbox(mode);
      const text = 'it\'s a "test" \\n $HOME `date` ! tab\there é 😀';
      const result = await call(sandbox, `printf '%s' ${quoteForBash(text)}`);
      expect(result.stdout).toBe(text);
      // The same text kept in a variable, a function and a folder's name, as bytes, from call to call.
      const kept = await call(
        sandbox,
        `v=${quoteForBash(text)}; f() { printf '%s' "é 😀"; }; mkdir -p é && cd é`,
      );
      expect(kept.exit_code).toBe(0);
      // biome-ignore lint/suspicious/noTemplateCurlyInString: bash ${...}, on purpose
      const back = await call(sandbox, 'printf \'%s|\' "$v" "$(f)" "${PWD##*/}"');
      expect(back.stdout).toBe(`${text}|é 😀|é|`);
      const nul = await call(sandbox, "echo a\0b");
      expect(nul.exit_code).toBe(2);
      expect(nul.stderr).toContain("NUL byte");
    });

    it("runs calls made at once one after another, each with its own result", async () => {
      const sandbox = await createSandbox(mode);
      const results = await Promise.all(
        [1, 2, 3, 4].map((n) => call(sandbox, `echo ${n} >> order.txt; echo ${n}; (exit ${n})`)),
      );
      expect(results.map((result) => [result.stdout, result.exit_code])).toEqual([
        ["1\n", 1],
        ["2\n", 2],
        ["3\n", 3],
        ["4\n", 4],
      ]);
      expect((await call(sandbox, "cat order.txt")).stdout).toBe("1\n2\n3\n4\n");
    });

    it("times out a call, kills the shell and starts a fresh one for the next call", async () => {
      const sandbox = await createSandbox(mode);
      await call(sandbox, "cd /tmp; KEPT=yes");
      const slow = await call(sandbox, "echo before; sleep 30", 2000);
      expect(slow).toMatchObject({ exit_code: 124, timed_out: true, shell_exited: true, stdout: "before\n" });
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a bash ${...}, on purpose
      const after = await call(sandbox, 'pwd; echo "kept=${KEPT:-no}"');
      expect(after).toMatchObject({ exit_code: 0, stdout: `${sandbox.visibleWorkDir}\nkept=no\n` });
    });

    it("exit and set -e end the call with its status; the shell's state stays for the next call", async () => {
      const sandbox = await createSandbox(mode);
      await call(sandbox, "cd /tmp");
      const exited = await call(sandbox, "echo bye; exit 3");
      expect(exited).toMatchObject({ exit_code: 3, stdout: "bye\n", timed_out: false });
      expect(exited.shell_exited).toBeUndefined();
      expect((await call(sandbox, "pwd")).stdout).toBe("/tmp\n");
      await call(sandbox, "set -e");
      const failed = await call(sandbox, "echo one; false; echo never");
      expect(failed).toMatchObject({ exit_code: 1, stdout: "one\n" });
      expect((await call(sandbox, "echo fine; [[ $- == *e* ]] && echo still-e")).stdout).toBe(
        "fine\nstill-e\n",
      );
    });

    it("restart ends the shell: state is gone, files stay", async () => {
      const sandbox = await createSandbox(mode);
      await call(sandbox, "STATE=set; echo kept > file.txt");
      await sandbox.restartAgentShell();
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a bash ${...}, on purpose
      const after = await call(sandbox, 'echo "${STATE:-unset}"; cat file.txt');
      expect(after.stdout).toBe("unset\nkept\n");
    });

    it("a background process neither holds the call nor its pipes; later output goes to a later call", async () => {
      const sandbox = await createSandbox(mode);
      const started = await call(
        sandbox,
        "(until [ -e go ]; do sleep 0.01; done; echo late; touch written) & sleep 60 & echo started",
        15_000,
      );
      expect(started).toMatchObject({ exit_code: 0, stdout: "started\n", timed_out: false });
      // Written by the background process after the first call ended: the next call shows it.
      const waited = await call(
        sandbox,
        "touch go; until [ -e written ]; do sleep 0.01; done; echo now",
        15_000,
      );
      expect(waited.stdout).toBe("late\nnow\n");
      // `exec` redirections last only for their call: the shell's own output stays the harness's.
      await call(sandbox, "exec >/dev/null 2>&1");
      expect((await call(sandbox, "echo visible")).stdout).toBe("visible\n");
    });

    it("reads nothing between calls: a background flood waits for the next call, then is capped", async () => {
      const sandbox = await createSandbox(mode);
      // 64 MiB from the background, then a mark: with nothing read between calls it cannot finish.
      await call(sandbox, "(head -c 67108864 /dev/zero; touch flooded) & echo started");
      const flooded = path.join(sandbox.workDir, "flooded");
      // Waiting for something not to happen: never a false failure, however slow the machine.
      for (let i = 0; i < 40 && !existsSync(flooded); i++)
        await new Promise((resolve) => setTimeout(resolve, 50));
      expect(existsSync(flooded)).toBe(false);
      // The next call reads again: the flood ends, capped, within the call.
      const next = await call(sandbox, "until [ -e flooded ]; do sleep 0.01; done; echo done-waiting");
      expect(next).toMatchObject({ exit_code: 0, truncated: true });
      expect(next.stdout.endsWith("done-waiting\n")).toBe(true);
      expect(next.stdout.length).toBeLessThan(140 * 1024);
    });

    it("caps each call's output like any command's, head and tail kept", async () => {
      const sandbox = await createSandbox(mode);
      const result = await call(sandbox, "head -c 1000000 /dev/zero | tr '\\0' x; echo; echo END");
      expect(result.truncated).toBe(true);
      expect(result.stdout.length).toBeLessThan(140 * 1024);
      expect(result.stdout.endsWith("END\n")).toBe(true);
      expect((await call(sandbox, "echo small")).truncated).toBe(false);
    });

    it("gives commands the environment a command run alone gets", async () => {
      const sandbox = await createSandbox(mode, "fake-tool");
      // `_` is the last command's argument: it differs by how the command was started.
      const listEnv = "env | grep -v '^_=' | sort";
      const inShell = await call(sandbox, listEnv);
      const alone = await sandbox.runAgentCommandAlone(listEnv, { timeoutMs: 20_000 });
      expect(inShell.exit_code).toBe(0);
      expect(inShell.stdout).toBe(alone.stdout);
      expect(inShell.stdout).toContain("PATH=");
    });

    it("the shim records the target's invocations from the shell, and no secret is in its environment", async () => {
      const sandbox = await createSandbox(mode, "fake-tool");
      await call(sandbox, "cd /tmp");
      const result = await call(sandbox, "fake-tool echo hi; fake-tool fail 5; env");
      expect(result.stdout).toContain("hi");
      expect(result.stdout).not.toContain(CANARY);
      const invocations = await sandbox.readTargetInvocations();
      expect(invocations.map((record) => [record.argv.slice(1), record.exit_code, record.cwd])).toEqual([
        [["echo", "hi"], 0, "/tmp"],
        [["fail", "5"], 5, "/tmp"],
      ]);
    });
  });
}
