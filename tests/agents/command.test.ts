/**
 * The command agent through the real trial harness: a tiny real agent (a bash script) that runs
 * the target tool and prints a transcript, in a real sandbox with the shim.
 */
import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import {
  expandCommandTemplate,
  findCommandProgram,
  quoteForBash,
  resolveCommandProgram,
} from "../../src/agents/command.js";
import { createAgent } from "../../src/agents/registry.js";
import { ConfigError } from "../../src/errors.js";
import { defaultRunOptions } from "../../src/run/options.js";
import type { TrialOutput } from "../../src/run/trial.js";
import type { Scenario } from "../../src/scenario/types.js";
import type { TrialEvent } from "../../src/transcript/events.js";
import { findLiveProcesses } from "../support/processes.js";
import { makeScenario } from "../support/scenario-factory.js";
import { eventsOf, runSingleTrial } from "../support/single-trial.js";

const CANARY_KEY = "sk-ant-canary-command-agent-3c2b1a";

/**
 * A stand-in agent CLI: reads its options, runs jq on the task's file (once wrongly), writes the
 * answer, prints what it did, and dumps its environment to a file for the test to inspect.
 */
const TINY_AGENT = `#!/usr/bin/env bash
set -u
model="" task="" dir=""
while [ $# -gt 0 ]; do
  case "$1" in
    --model) model="$2"; shift 2 ;;
    --task) task="$2"; shift 2 ;;
    --dir) dir="$2"; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 64 ;;
  esac
done
[ -z "$task" ] && task="$(cat)"
echo "tiny-agent model=$model"
echo "task: $task"
echo "cwd: $(pwd) dir: $dir"
env > .agent-env
echo "$ jq -r .[0 data.json"
jq -r '.[0' data.json 2>&1 || echo "(failed with $?)"
echo "$ jq -r '.[].name' data.json"
jq -r '.[].name' data.json > names.txt
cat names.txt
case "$task" in *FAIL*) echo "giving up" >&2; exit 7 ;; esac
echo "done"
`;

let dir: string;
let agentPath: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "command-agent-test-"));
  // The local sandbox's agent account (where the tests run as root) runs the agent from here.
  await chmod(dir, 0o711);
  agentPath = path.join(dir, "tiny-agent");
  await writeFile(agentPath, TINY_AGENT, { mode: 0o755 });
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

interface CommandTrial {
  output: TrialOutput;
  events: TrialEvent[];
  eventsText: string;
}

/** `keepWorkDir`: the sandbox stays for the test to look into, and goes when the test ends. */
async function runCommandTrial(
  scenario: Scenario,
  template: string,
  options: { signal?: AbortSignal; keepWorkDir?: boolean } = {},
): Promise<CommandTrial> {
  const outDir = await mkdtemp(path.join(dir, "out-"));
  const agent = createAgent("command", { agentCommand: template });
  const runOptions = defaultRunOptions({
    outDir,
    agent: "command",
    agentCommand: template,
    model: "some-model-1",
    trialTimeoutMs: 30_000,
    keepWorkDirs: options.keepWorkDir === true,
    sandbox: "local",
  });
  const { output, events, eventsText } = await runSingleTrial(scenario, runOptions, agent, {
    canaryKey: CANARY_KEY,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const workDir = eventsOf(events, "prompt")[0]?.work_dir;
  if (options.keepWorkDir && workDir)
    onTestFinished(() => rm(path.dirname(workDir), { recursive: true, force: true }));
  return { output, events, eventsText };
}

function namesScenario(overrides: Partial<Scenario> = {}): Scenario {
  return makeScenario({
    id: "command-names",
    task: "List the names in data.json into names.txt. It's easy.",
    files: { "data.json": '[{"name":"ada"},{"name":"grace"}]\n' },
    target: { binary: "jq", env: {} },
    evaluation: { gates: [{ type: "file_contains", path: "names.txt", substring: "ada\ngrace", weight: 1 }] },
    ...overrides,
  });
}

describe("command agent with a real agent script", () => {
  it("runs the template with quoted placeholders, keeps stdout as the transcript, and the shim records the tool", async () => {
    const trial = await runCommandTrial(
      namesScenario(),
      `${agentPath} --model {model} --task {prompt} --dir {workdir}`,
      { keepWorkDir: true },
    );
    const { events, output } = trial;
    const report = output.report;

    expect(eventsOf(events, "trial_end")[0]).toMatchObject({ reason: "natural_stop", error: null });
    expect(report.outcome).toBe("pass");

    const transcript = eventsOf(events, "agent_output")
      .map((event) => event.text)
      .join("\n");
    expect(transcript).toContain("tiny-agent model=some-model-1");
    // The template passes {model}: the trial records it.
    expect(eventsOf(events, "trial_start")[0]?.model).toBe("some-model-1");
    // The task arrived whole, apostrophe included, as one argument.
    expect(transcript).toContain("task: List the names in data.json into names.txt. It's easy.");
    expect(transcript).toMatch(/cwd: (\S+) dir: \1\n/);
    expect(transcript).toContain("ada\ngrace\ndone");

    expect(report.invocation_source).toBe("shim");
    expect(eventsOf(events, "target_invocation").map((i) => [i.argv, i.exit_code])).toEqual([
      [["jq", "-r", ".[0", "data.json"], 3],
      [["jq", "-r", ".[].name", "data.json"], 0],
    ]);
    expect(report.interaction).toMatchObject({ total_commands: 2, error_count: 1, completed: true });
    // No model turns or tool events: an opaque agent.
    expect(eventsOf(events, "model_response")).toHaveLength(0);
    expect(eventsOf(events, "tool_call")).toHaveLength(0);

    // Its environment is the sandbox's: shim first on PATH, no key.
    const workDir = /cwd: (\S+)/.exec(transcript)![1]!;
    const agentEnv = await readFile(path.join(workDir, ".agent-env"), "utf8");
    expect(agentEnv).toContain("LLM_TOOL_TEST_MODEL=some-model-1");
    expect(agentEnv).not.toContain(CANARY_KEY);
    expect(agentEnv).not.toMatch(/^ANTHROPIC_API_KEY=/m);
    expect(trial.eventsText).not.toContain(CANARY_KEY);
  });

  it("gives the task on stdin when the template has no {prompt}", async () => {
    const trial = await runCommandTrial(
      namesScenario({ task: "from stdin, with $HOME and `ticks`" }),
      agentPath,
    );
    const transcript = eventsOf(trial.events, "agent_output")
      .map((event) => event.text)
      .join("\n");
    expect(transcript).toContain("task: from stdin, with $HOME and `ticks`");
    expect(eventsOf(trial.events, "trial_end")[0]!.reason).toBe("natural_stop");
    // No {model} in the template: the transcript names no model the agent was not given.
    expect(eventsOf(trial.events, "trial_start")[0]?.model).toBeNull();
  });

  it("is an agent crash, with the exit code and stderr, when the agent exits non-zero", async () => {
    const trial = await runCommandTrial(
      namesScenario({ task: "please FAIL" }),
      `${agentPath} --task {prompt}`,
    );
    const end = eventsOf(trial.events, "trial_end")[0]!;
    expect(end.reason).toBe("agent_crash");
    expect(end.error).toBe("the agent command exited with code 7: giving up");
    expect(trial.output.report.interaction.completed).toBe(false);
  });

  it("falls back to the command_pattern regex over its output when no shim applies", async () => {
    const trial = await runCommandTrial(
      namesScenario({ target: { commandPattern: "jq\\s+(-r)", env: {} } }),
      `${agentPath} --task {prompt}`,
    );
    const report = trial.output.report;
    expect(report.invocation_source).toBe("transcript_regex");
    expect(report.interaction.total_commands).toBe(2);
    expect(Object.keys(report.by_subcommand)).toEqual(["-r"]);
  });

  it("kills the agent's whole tree when the trial times out, even what left its process group", async () => {
    // Unique per test process: the check looks for the marker machine-wide.
    const marker = `sleep 51.${process.pid}`;
    const trial = await runCommandTrial(
      namesScenario({ agent: { timeoutMs: 2_000 }, evaluation: { gates: [] } }),
      `echo started; setsid ${marker} & wait`,
    );
    expect(eventsOf(trial.events, "trial_end")[0]!.reason).toBe("timeout");
    expect(eventsOf(trial.events, "agent_output").map((e) => e.text)).toEqual(["started"]);
    expect(findLiveProcesses(marker)).toEqual([]);
  });
});

describe("command templates", () => {
  it("quotes each placeholder for bash and leaves shell variables in braces alone", () => {
    expect(
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a bash ${VAR}, on purpose
      expandCommandTemplate("agent --task {prompt} --model {model} --cwd {workdir} --home ${HOME}", {
        prompt: "it's $(rm -rf /)",
        model: "m",
        workdir: "/w d",
        system: "",
      }),
    ).toBe(`agent --task 'it'\\''s $(rm -rf /)' --model 'm' --cwd '/w d' --home \${HOME}`);
    expect(quoteForBash("")).toBe("''");
  });

  it("finds the program a command starts: its first plain word, after NAME=value assignments", () => {
    expect(findCommandProgram("/repo/agents/run.sh 'task'")).toBe("/repo/agents/run.sh");
    expect(findCommandProgram("  FOO=1 BAR=x my-agent --task 'x'")).toBe("my-agent");
    expect(findCommandProgram("my-agent|tee log")).toBe("my-agent");
    // A wholly single-quoted word is as plain (a path with a space).
    expect(findCommandProgram("'/quoted path/agent' x")).toBe("/quoted path/agent");
    // Not a plain word: nothing to resolve on the host.
    expect(findCommandProgram("'/quoted'path x")).toBeNull();
    expect(findCommandProgram("$HOME/agent")).toBeNull();
    expect(findCommandProgram("(cd x && agent)")).toBeNull();
  });

  it("makes a relative program absolute from the folder the run starts in, and leaves every other program alone", async () => {
    const project = await mkdtemp(path.join(dir, "project with space-"));
    await writeFile(path.join(project, "agent.sh"), "#!/bin/sh\n", { mode: 0o755 });
    const quoted = quoteForBash(path.join(project, "agent.sh"));
    expect(await resolveCommandProgram("./agent.sh --task {prompt}", project)).toBe(
      `${quoted} --task {prompt}`,
    );
    expect(await resolveCommandProgram("  A=1 ./agent.sh", project)).toBe(`A=1 ${quoted}`);
    expect(findCommandProgram(`${quoted} --task x`)).toBe(path.join(project, "agent.sh"));
    const plain = await mkdtemp(path.join(dir, "plain-"));
    await writeFile(path.join(plain, "agent.sh"), "#!/bin/sh\n", { mode: 0o755 });
    expect(await resolveCommandProgram("'./agent.sh' {prompt}", plain)).toBe(`${plain}/agent.sh {prompt}`);
    for (const template of [
      "my-agent --task {prompt}",
      "/abs/agent {prompt}",
      "~/bin/agent {prompt}",
      "{workdir}/agent.sh {prompt}",
      "$HOME/agent {prompt}",
      "(cd sub && ./agent.sh)",
    ]) {
      expect(await resolveCommandProgram(template, plain), template).toBe(template);
    }
    await expect(resolveCommandProgram("sub/agent.sh", plain)).rejects.toThrow(
      new ConfigError(
        `the agent command's program "sub/agent.sh" does not exist: a relative path is taken from the folder the run starts in (${plain}); give the path from there, an absolute path or a name on PATH (a file of the trial's work dir is {workdir}/NAME)`,
        "--agent-command",
      ),
    );
    await expect(resolveCommandProgram("./ {prompt}", plain)).rejects.toThrow(/is not a file/);
  });

  it("rejects a missing command and unknown placeholders with a clear ConfigError", () => {
    expect(() => createAgent("command", {})).toThrow(ConfigError);
    expect(() => createAgent("command", {})).toThrow(/--agent-command/);
    expect(() => createAgent("command", { agentCommand: "agent --task {promt}" })).toThrow(
      "--agent-command: unknown placeholder {promt} in the agent command; known: {prompt}, {workdir}, {model}, {system}",
    );
    expect(() => createAgent("command", { agentCommand: "   " })).toThrow(ConfigError);
  });
});
