/**
 * `report --format atif` of a replayed bashkit-eval run: each trajectory is the recorded model's
 * (its text each turn, its final answer, a turn without calls, no system prompt it never saw, its
 * model's own id), the observations marked as the replay's, and every trajectory valid against
 * the schema written from Harbor's ATIF-v1.4 models. Real CLI, real bwrap sandbox, bashkit-eval's
 * own recorded results (tests/fixtures/bashkit-eval/SOURCE.md).
 */
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { AtifTrajectory } from "../../src/render/atif.js";
import { runMain } from "../cli/run-main.js";
import { atifErrors } from "../support/atif-schema.js";
import { findBwrapProblem } from "../support/processes.js";
import { makeTempDir } from "../support/temp-dirs.js";

const RESULTS = path.resolve(
  import.meta.dirname,
  "../fixtures/bashkit-eval/results/eval-openai-gpt-5.5-2026-05-26-021853.json",
);
// One task the model answered without a tool call, one with calls then a final answer.
const TASKS = ["sysinfo_date_calc", "file_ops_project_scaffold"];

interface RecordedResult {
  task: { id: string; system: string | null };
  trace: { messages: { role: string; content: { type: string; text?: string }[] }[] };
}

const recordedTexts = (result: RecordedResult) =>
  result.trace.messages
    .filter((m) => m.role === "assistant")
    .map((m) =>
      m.content
        .filter((b) => b.type === "text")
        .map((b) => b.text)
        .join("\n\n"),
    );

describe.skipIf(findBwrapProblem() !== null)("ATIF of a replayed bashkit-eval run", () => {
  let trajectories: AtifTrajectory[];
  let recorded: RecordedResult[];

  beforeAll(async () => {
    const dir = makeTempDir("ltt-atif-replay-");
    const file = JSON.parse(await readFile(RESULTS, "utf8")) as { results: RecordedResult[] };
    recorded = TASKS.map((id) => file.results.find((r) => r.task.id === id) as RecordedResult);
    // The tasks as that run had them (embedded in its results), so the checks are its own.
    const dataset = path.join(dir, "tasks.jsonl");
    await writeFile(dataset, `${recorded.map((r) => JSON.stringify(r.task)).join("\n")}\n`);
    const out = path.join(dir, "out");
    const run = await runMain(
      ["run", dataset, "--replay-from", RESULTS, "--sandbox", "bwrap", "--trials", "1", "--out", out],
      { cwd: dir },
    );
    expect([0, 1], run.stderr).toContain(run.code);
    const atif = await runMain(["report", path.join(out, "report.json"), "--format", "atif"], { cwd: dir });
    expect(atif.code, atif.stderr).toBe(0);
    trajectories = atif.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as AtifTrajectory);
  }, 120_000);

  const trajectoryOf = (id: string) => {
    const found = trajectories.find((t) => t.extra.scenario === id);
    if (!found) throw new Error(`no trajectory of ${id}`);
    return found;
  };

  it("are valid ATIF-v1.4 by Harbor's models", () => {
    expect(trajectories).toHaveLength(TASKS.length);
    for (const trajectory of trajectories) expect(atifErrors(trajectory), trajectory.session_id).toEqual([]);
  });

  it("keep every recorded turn's text as an agent step, the final answer last, and a task without calls", () => {
    for (const result of recorded) {
      const trajectory = trajectoryOf(result.task.id);
      const agentSteps = trajectory.steps.filter((s) => s.source === "agent");
      expect(agentSteps.map((s) => s.message)).toEqual(recordedTexts(result));
      const last = agentSteps.at(-1);
      expect(last?.message.length).toBeGreaterThan(0);
      expect(last?.tool_calls).toBeUndefined();
    }
    const withoutCalls = trajectoryOf("sysinfo_date_calc").steps.filter((s) => s.source === "agent");
    expect(withoutCalls).toHaveLength(1);
  });

  it("show no system prompt the recorded model never saw, and say so", () => {
    for (const result of recorded) {
      expect(result.task.system).toBeNull();
      const trajectory = trajectoryOf(result.task.id);
      expect(trajectory.steps.map((s) => s.source).filter((s) => s !== "agent")).toEqual(["user"]);
      expect(trajectory.notes).toContain("the recording has no system prompt, so there is no system step");
    }
  });

  it("name the model by its provider's id, and keep no replay time as the recorded model's", () => {
    for (const trajectory of trajectories) {
      expect(trajectory.agent.model_name).toBe("gpt-5.5");
      for (const step of trajectory.steps) {
        if (step.source === "agent") expect(step.model_name).toBe("gpt-5.5");
        // bashkit-eval keeps no time per message: no step claims one.
        expect(step.timestamp).toBeUndefined();
      }
    }
  });

  it("mark each observation as the replay's, the same as or different from what the model saw", () => {
    const scaffold = trajectoryOf("file_ops_project_scaffold");
    const results = scaffold.steps.flatMap(
      (s) => (s.extra?.tool_results ?? []) as { recorded_output: string; differences?: string[] }[],
    );
    expect(results.length).toBeGreaterThan(0);
    for (const result of results) expect(["same", "differs"]).toContain(result.recorded_output);
    const differing = results.filter((r) => r.recorded_output === "differs").length;
    expect(scaffold.notes).toContain(
      `${differing} of ${results.length} observation(s) differ from what the recorded model saw`,
    );
    expect(scaffold.notes).toContain("the observations are the replay's outputs");
  });
});
