/**
 * A replay grades recorded calls against the task file given: a bashkit-eval results file embeds
 * the tasks its run had, and a task file whose tasks differ from them stops the run before any
 * trial, naming the tasks and what differs (bashkit-eval tightened json_to_csv_export's checks
 * after its 05-26 runs; its 02-09 run had another version still). Real recorded results and
 * datasets (tests/fixtures/bashkit-eval/SOURCE.md), through the loader and the CLI.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { EXIT } from "../../src/cli/command.js";
import { readRecordings } from "../../src/results/read-recordings.js";
import { checkRecordedTasks } from "../../src/run/recorded-tasks.js";
import { loadScenarios } from "../../src/scenario/load.js";
import { runMain } from "../cli/run-main.js";
import { configErrorOf } from "../support/config-error.js";
import { makeTempDir } from "../support/temp-dirs.js";

const FIXTURES = path.resolve(import.meta.dirname, "../fixtures/bashkit-eval");
const HAIKU_0526 = path.join(
  FIXTURES,
  "results/eval-anthropic-claude-haiku-4-5-20251001-2026-05-26-012523.json",
);
const HAIKU_0209 = path.join(FIXTURES, "results/haiku-4-5-2026-02-09-json-to-csv.results.json");
// The tasks as the 05-26 runs had them, and the dataset as it is now (json_to_csv_export tightened).
const TASKS_0526 = path.join(FIXTURES, "replay/haiku-4-5.tasks.jsonl");
const DATASET_NOW = path.join(FIXTURES, "eval-tasks.jsonl");

describe("a replay's recorded tasks against the task file given", () => {
  it("accepts the tasks the run was recorded on", async () => {
    const recordings = [await readRecordings(HAIKU_0526)];
    const scenarios = await loadScenarios([TASKS_0526], { onWarning: () => {} });
    expect(scenarios.length).toBe(58);
    expect(() => checkRecordedTasks(recordings, scenarios, "--replay-from")).not.toThrow();
  });

  it("stops on a task file whose task has other checks, naming it and what differs", async () => {
    const recordings = [await readRecordings(HAIKU_0526)];
    const scenarios = await loadScenarios([DATASET_NOW], { onWarning: () => {} });
    const error = configErrorOf(() => checkRecordedTasks(recordings, scenarios, "--replay-from"));
    expect(error.where).toBe("--replay-from");
    expect(error.message).toContain(
      `${HAIKU_0526} was recorded on other versions of 1 task(s) than the task file gives: json_to_csv_export (checks)`,
    );
    expect(error.message).toContain("jq -c '.results[].task' FILE > tasks.jsonl");
  });

  it("names every recorded run of a matrix whose tasks differ, and only those", async () => {
    const recordings = [await readRecordings(HAIKU_0526), await readRecordings(HAIKU_0209)];
    const scenarios = await loadScenarios([TASKS_0526], { onWarning: () => {} });
    const error = configErrorOf(() => checkRecordedTasks(recordings, scenarios, "--replay-from"));
    expect(error.message).not.toContain(HAIKU_0526);
    expect(error.message).toMatch(
      new RegExp(
        `${HAIKU_0209.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} was recorded on other versions of 1 task\\(s\\) than the task file gives: json_to_csv_export \\(`,
      ),
    );
  });

  it("stops the CLI's run before any trial, with the message and a usage exit", async () => {
    const out = path.join(makeTempDir("ltt-recorded-tasks-"), "never-written");
    const result = await runMain(
      ["run", DATASET_NOW, "--replay-from", HAIKU_0526, "--sandbox", "bwrap", "--out", out],
      {},
    );
    expect(result.code, result.stderr).toBe(EXIT.usage);
    expect(result.stderr).toContain("json_to_csv_export (checks)");
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(existsSync(out), "no trial ran").toBe(false);
  });
});
