/**
 * bashkit-eval's baseline table from its committed runs, in one command: its three recorded runs
 * of the 58 tasks (Claude Haiku 4.5, Claude Opus 4.7, GPT-5.5; tests/fixtures/bashkit-eval/results/,
 * unmodified) are replayed together (`--replay-from A --replay-from B --replay-from C`) as one model
 * matrix, in the bwrap sandbox. A replay calls no model, so each trial's turns, tokens and natural
 * stop must be the recorded ones (marked as recorded), and its tool calls the recorded calls, per
 * task and in each model's totals, as bashkit-eval's results file states them.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { Report } from "../../src/results/types.js";
import { runMain } from "../cli/run-main.js";
import { findBwrapProblem } from "../support/processes.js";
import { makeTempDir } from "../support/temp-dirs.js";

const FIXTURES = path.resolve(import.meta.dirname, "../fixtures/bashkit-eval");
const RUNS = {
  "claude-haiku-4-5-20251001": "eval-anthropic-claude-haiku-4-5-20251001-2026-05-26-012523.json",
  "claude-opus-4-7": "eval-anthropic-claude-opus-4-7-2026-05-26-020742.json",
  "openai:gpt-5.5": "eval-openai-gpt-5.5-2026-05-26-021853.json",
} as const;

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
  summary: {
    total_tasks: number;
    total_turns: number;
    total_tool_calls: number;
    total_input_tokens: number;
    total_output_tokens: number;
  };
}

describe.skipIf(findBwrapProblem() !== null)(
  "replaying bashkit-eval's committed runs as one model matrix",
  () => {
    let report: Report;
    let stdout: string;
    let markdown: string;
    const recorded = new Map<string, BashkitResultsFile>();

    beforeAll(async () => {
      for (const [model, file] of Object.entries(RUNS)) {
        recorded.set(model, JSON.parse(await readFile(path.join(FIXTURES, "results", file), "utf8")));
      }
      const out = path.join(makeTempDir("ltt-bashkit-figures-"), "out");
      const sources = Object.values(RUNS).flatMap((file) => [
        "--replay-from",
        path.join(FIXTURES, "results", file),
      ]);
      const result = await runMain([
        "run",
        path.join(FIXTURES, "replay/haiku-4-5.tasks.jsonl"),
        ...sources,
        "--sandbox",
        "bwrap",
        // No --trials: a replay runs as many trials as were recorded (one a task), not the default three.
        "--concurrency",
        "4",
        "--out",
        out,
      ]);
      // Some recorded tasks fail their checks: exit 1, never a configuration or infrastructure error.
      expect([0, 1], result.stderr).toContain(result.code);
      stdout = result.stdout;
      report = JSON.parse(await readFile(path.join(out, "report.json"), "utf8")) as Report;
      markdown = await readFile(path.join(out, "report.md"), "utf8");
    }, 600_000);

    it("runs every task with each recorded model, the models named in the run", () => {
      expect(report.run.agent).toBe("replay");
      expect(report.run.models).toEqual(Object.keys(RUNS));
      expect(report.scenarios).toHaveLength(58 * 3);
      for (const scenario of report.scenarios) expect(scenario.trials, scenario.id).toHaveLength(1);
      expect(report.summary.errors).toBe(0);
      expect(report.model_matrix?.models).toEqual(Object.keys(RUNS));
    });

    it("every task starts where the bashkit of 2026-05-26 started it: /home/user, HOME /home/eval absent", () => {
      const layouts = new Set(report.scenarios.map((scenario) => scenario.trials[0]?.home_layout));
      expect([...layouts]).toEqual(["bashkit-home-missing"]);
    });

    it("each trial's turns, tool calls, tokens and stop are the recorded task's, marked as recorded", () => {
      for (const [model, file] of recorded) {
        for (const task of file.results) {
          const scenario = report.scenarios.find((s) => s.id === task.task.id && s.model === model);
          const trial = scenario?.trials[0];
          expect(trial?.execution, `${model} ${task.task.id}`).toMatchObject({
            turns: task.trace.turns,
            tool_calls: task.trace.tool_call_count,
            input_tokens: task.trace.total_input_tokens,
            output_tokens: task.trace.total_output_tokens,
            natural_stop: task.trace.natural_stop,
            recorded: true,
          });
          expect(trial?.end_reason, `${model} ${task.task.id}`).toBe(
            task.trace.natural_stop ? "natural_stop" : "turn_limit",
          );
        }
      }
    });

    it("each model's totals are its results file's", () => {
      for (const { model, summary } of report.model_matrix?.summaries ?? []) {
        const expected = recorded.get(model)?.summary;
        expect(summary, model).toMatchObject({
          total_tasks: expected?.total_tasks,
          total_turns: expected?.total_turns,
          total_tool_calls: expected?.total_tool_calls,
          total_input_tokens: expected?.total_input_tokens,
          total_output_tokens: expected?.total_output_tokens,
          trials_recorded: 58,
        });
      }
    });

    it("says the figures are recorded, and that GPT-5.5's cost is unknown, not $0", () => {
      expect(markdown).toContain("are recorded values, carried from the recording, not measured by this run");
      expect(stdout).toContain("recorded values");
      // GPT-5.5 is not in the price table; the Claude models are.
      const gpt = report.model_matrix?.summaries.find((s) => s.model === "openai:gpt-5.5")?.summary;
      expect(gpt?.trials_cost_unknown).toBe(58);
      const haiku = report.model_matrix?.summaries.find(
        (s) => s.model === "claude-haiku-4-5-20251001",
      )?.summary;
      expect(haiku?.total_cost_usd).toBeGreaterThan(0);
      const costRow = markdown.split("\n").find((line) => line.startsWith("| Cost"));
      expect(costRow).toMatch(/\| unknown \|$/);
    });
  },
);
