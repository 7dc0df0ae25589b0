/**
 * The replay agent end to end through the CLI (in process, real bash): a recorded oracle run is
 * replayed against a build of the tool whose `list` subcommand was renamed, and the report says
 * where the recorded sequence now diverges; a real bashkit-eval results file loads and replays.
 */
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compareWithRecording } from "../../src/agents/replay.js";
import { readRecordings } from "../../src/results/read-recordings.js";
import type { Report } from "../../src/results/types.js";
import { runMain } from "../cli/run-main.js";
import { findBwrapProblem } from "../support/processes.js";

interface BashkitResultsFile {
  results: {
    task: { id: string };
    trace: {
      turns: number;
      tool_call_count: number;
      natural_stop: boolean;
      total_input_tokens: number;
      total_output_tokens: number;
    };
  }[];
}

const TOOL_V1 = `#!/bin/sh
case "$1" in
  add) echo "added $2" >> tasks.txt; echo "added: $2" ;;
  list) cat tasks.txt ;;
  *) echo "unknown command: $1" >&2; exit 2 ;;
esac
`;
// v2 renamed `list` to `ls`.
const TOOL_V2 = TOOL_V1.replace("  list)", "  ls)");

const SCENARIO = `name: add-and-list
task: Add a task "buy milk" with tool, then list the tasks.
target:
  binary: tool
solution:
  - tool add milk
  - tool list
  - echo done
evaluation:
  gates:
    - type: command_succeeds
      command: tool list
`;

let dir: string;
let binDir: string;
let scenarioFile: string;

async function installTool(source: string): Promise<void> {
  await writeFile(path.join(binDir, "tool"), source);
  await chmod(path.join(binDir, "tool"), 0o755);
}

function run(args: string[]) {
  return runMain(["run", scenarioFile, "--sandbox", "local", "--trials", "2", ...args], {
    cwd: dir,
    env: { PATH: `${binDir}:${process.env.PATH}` },
  });
}

async function readReport(out: string): Promise<Report> {
  return JSON.parse(await readFile(path.join(out, "report.json"), "utf8")) as Report;
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "replay-test-"));
  // The local sandbox's agent account (where the tests run as root) runs the tool from here.
  await chmod(dir, 0o711);
  binDir = path.join(dir, "bin");
  await mkdir(binDir);
  scenarioFile = path.join(dir, "scenario.yaml");
  await writeFile(scenarioFile, SCENARIO);
  await installTool(TOOL_V1);
  const recorded = await run(["--agent", "oracle", "--out", path.join(dir, "recorded")]);
  expect(recorded.code, recorded.stderr).toBe(0);
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("replay of a recorded run", () => {
  it("behaves as recorded against the same build", async () => {
    await installTool(TOOL_V1);
    const out = path.join(dir, "same");
    const result = await run(["--replay-from", path.join(dir, "recorded"), "--out", out]);
    expect(result.code, result.stderr).toBe(0);
    const report = await readReport(out);
    expect(report.run.agent).toBe("replay");
    const trials = report.scenarios[0]?.trials ?? [];
    expect(trials).toHaveLength(2);
    for (const trial of trials) {
      expect(trial.outcome).toBe("pass");
      expect(trial.replay).toEqual({
        recorded_calls: 3,
        replayed_calls: 3,
        diverged_calls: 0,
        status_flipped_calls: 0,
        first_divergence: null,
      });
    }
    const markdown = await readFile(path.join(out, "report.md"), "utf8");
    expect(markdown).toContain("all 3 recorded call(s) behaved as recorded");
  });

  it("shows where the sequence diverges against a build with a renamed subcommand", async () => {
    await installTool(TOOL_V2);
    const out = path.join(dir, "renamed");
    const result = await run([
      "--agent",
      "replay",
      "--replay-from",
      path.join(dir, "recorded"),
      "--out",
      out,
    ]);
    // The gate (`tool list` exits 0) now fails: the replay is judged like any trial.
    expect(result.code).toBe(1);
    const trial = (await readReport(out)).scenarios[0]?.trials[0];
    expect(trial?.outcome).toBe("fail");
    expect(trial?.replay).toEqual({
      recorded_calls: 3,
      replayed_calls: 3,
      diverged_calls: 1,
      // Recorded 0, now 2: the call moves from ok to error.
      status_flipped_calls: 1,
      first_divergence: {
        index: 2,
        command: "tool list",
        recorded_exit_code: 0,
        exit_code: 2,
        differences: ["exit_code", "stdout", "stderr"],
      },
    });
    const markdown = await readFile(path.join(out, "report.md"), "utf8");
    expect(markdown).toContain("call 2 of 3: `tool list` exit 0 → 2, stdout differs, stderr differs");
    expect(result.stdout + result.stderr).toContain("replay: call 2 of 3: `tool list` exit 0 → 2");
    // The new transcript shows the replayed calls with today's answers.
    const events = await readFile(path.join(out, trial?.events_path ?? ""), "utf8");
    expect(events).toContain("unknown command: list");
  });

  it("refuses --replay-from with another agent, and a path that is not a recording", async () => {
    const other = await run(["--agent", "oracle", "--replay-from", path.join(dir, "recorded")]);
    expect(other.code).toBe(2);
    expect(other.stderr).toContain(
      "--replay-from is for the replay agent alone, not oracle: drop --agent or pass --agent replay",
    );
    const missing = await run(["--replay-from", path.join(dir, "nowhere")]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("not found");
    const notRecording = await run(["--replay-from", scenarioFile]);
    expect(notRecording.code).toBe(2);
    expect(notRecording.stderr).toContain("not valid JSON");
    const noAgentFlag = await run(["--agent", "replay"]);
    expect(noAgentFlag.code).toBe(2);
    expect(noAgentFlag.stderr).toContain("pass --replay-from PATH");
  });
});

describe("compareWithRecording", () => {
  const call = { turn: 1, command: "ls", exit_code: 0, stdout: "/tmp/old/work/a\n", stderr: "" };
  it("compares outputs with the recorded work dir replaced and trailing whitespace dropped", () => {
    expect(
      compareWithRecording(call, { exit_code: 0, stdout: "/w/new/a", stderr: "" }, "/tmp/old/work", "/w/new"),
    ).toEqual([]);
    expect(
      compareWithRecording(
        call,
        { exit_code: 1, stdout: "/w/new/b", stderr: "x" },
        "/tmp/old/work",
        "/w/new",
      ),
    ).toEqual(["exit_code", "stdout", "stderr"]);
  });
  it("does not count an exit code the recording did not keep", () => {
    expect(
      compareWithRecording(
        { ...call, exit_code: null },
        { exit_code: 9, stdout: "/tmp/old/work/a", stderr: "" },
        null,
        "/w",
      ),
    ).toEqual([]);
  });
});

describe("a bashkit-eval results file", () => {
  const TASKS_DIR = path.resolve(import.meta.dirname, "../fixtures/bashkit-eval/replay");
  // bashkit-eval's own results file of that run, cut to its first eight tasks (fixtures/bashkit-eval/SOURCE.md).
  const RESULTS = path.resolve(
    import.meta.dirname,
    "../fixtures/bashkit-eval/results/haiku-4-5-first-8.results.json",
  );
  // The whole results file, every task's figures (fixtures/bashkit-eval/SOURCE.md).
  const FULL_RESULTS = path.resolve(
    import.meta.dirname,
    "../fixtures/bashkit-eval/results/eval-anthropic-claude-haiku-4-5-20251001-2026-05-26-012523.json",
  );
  it("loads one recording per task with its calls, turns and exit codes", async () => {
    const set = await readRecordings(RESULTS);
    expect(set.format).toBe("bashkit-eval");
    expect(set.byScenario.size).toBe(8);
    const scaffold = set.byScenario.get("file_ops_project_scaffold")?.[0];
    expect(scaffold?.model).toBe("claude-haiku-4-5-20251001");
    expect(scaffold?.calls[0]?.command).toContain("mkdir -p /home/eval/myproject/src");
    expect(scaffold?.calls[0]?.exit_code).toBe(0);
    expect(scaffold?.calls[0]?.turn).toBe(1);
  });

  it("keeps each task's recorded turns, tokens, tool calls and stop, and when the run was recorded", async () => {
    const set = await readRecordings(FULL_RESULTS);
    const recorded = JSON.parse(await readFile(FULL_RESULTS, "utf8")) as BashkitResultsFile;
    expect(set.model).toBe("claude-haiku-4-5-20251001");
    expect(set.recorded_at).toBe("2026-05-26T01:25:23Z");
    for (const result of recorded.results) {
      expect(set.byScenario.get(result.task.id)?.[0]?.figures, result.task.id).toEqual({
        turns: result.trace.turns,
        input_tokens: result.trace.total_input_tokens,
        output_tokens: result.trace.total_output_tokens,
        cache_read_tokens: 0,
        cache_write_tokens: 0,
        tool_calls: result.trace.tool_call_count,
        end_reason: result.trace.natural_stop ? "natural_stop" : "turn_limit",
        cost_usd: null,
      });
    }
    // Haiku ran into bashkit-eval's 10-turn limit on some tasks: those are not natural stops.
    expect(recorded.results.some((r) => !r.trace.natural_stop)).toBe(true);
  });

  it("names an OpenAI run's model as --model does (openai:…)", async () => {
    const set = await readRecordings(
      path.join(path.dirname(RESULTS), "eval-openai-gpt-5.5-2026-05-26-021853.json"),
    );
    expect(set.model).toBe("openai:gpt-5.5");
  });

  // Needs /home/eval, so bwrap; the first eight tasks, each passed by Haiku in bashkit-eval's own scoring.
  it.skipIf(findBwrapProblem() !== null)(
    "replays the recorded calls of its tasks through the real sandbox, matched by task id",
    async () => {
      const tasks = (await readFile(path.join(TASKS_DIR, "haiku-4-5.tasks.jsonl"), "utf8"))
        .split("\n")
        .slice(0, 8);
      const dataset = path.join(dir, "bashkit-tasks.jsonl");
      await writeFile(dataset, `${tasks.join("\n")}\n`);
      const out = path.join(dir, "bashkit-replay");
      const result = await runMain(
        ["run", dataset, "--replay-from", RESULTS, "--sandbox", "bwrap", "--trials", "1", "--out", out],
        { cwd: dir },
      );
      expect(result.code, result.stderr).toBe(0);
      const report = await readReport(out);
      const recorded = JSON.parse(await readFile(RESULTS, "utf8")) as {
        results: { task: { id: string }; trace: { tool_call_count: number } }[];
      };
      expect(report.scenarios.map((s) => s.id).sort()).toEqual(
        recorded.results
          .slice(0, 8)
          .map((r) => r.task.id)
          .sort(),
      );
      for (const scenario of report.scenarios) {
        const trial = scenario.trials[0];
        const calls = recorded.results.find((r) => r.task.id === scenario.id)?.trace.tool_call_count;
        expect(trial?.outcome, `${scenario.id}: ${trial?.reason}`).toBe("pass");
        expect(trial?.replay?.recorded_calls).toBe(calls);
        expect(trial?.replay?.replayed_calls).toBe(calls);
      }
    },
    120_000,
  );
});
