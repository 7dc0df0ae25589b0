import { describe, expect, it } from "vitest";
import { buildModelMatrix } from "../../src/results/model-matrix.js";
import type { Outcome } from "../../src/results/types.js";
import { makeReport, makeScenarioReport, makeTrial } from "../support/report-factory.js";

function entry(id: string, model: string, outcomes: Outcome[]) {
  return makeScenarioReport({
    id,
    model,
    trials: outcomes.map((outcome, index) => makeTrial({ trial: index + 1, outcome })),
  });
}

describe("buildModelMatrix", () => {
  it("is null for a report whose scenarios carry no model", () => {
    expect(buildModelMatrix(makeReport([makeScenarioReport({ id: "s", trials: [] })]))).toBeNull();
  });

  it("diagnoses each scenario across the models and counts the classes", () => {
    const report = makeReport(
      [
        entry("all-pass", "a", ["pass", "pass"]),
        entry("all-pass", "b", ["pass"]),
        entry("broken", "a", ["fail"]),
        entry("broken", "b", ["pass", "fail"]),
        entry("hard", "a", ["pass"]),
        entry("hard", "b", ["fail"]),
        // An error leaves b without a verdict even though its evaluated trial passed.
        entry("flaky-infra", "a", ["pass"]),
        entry("flaky-infra", "b", ["pass", "error"]),
        // A model the run does not list comes after those it does; its only trial was skipped.
        entry("hard", "c", ["skipped"]),
      ],
      { models: ["b", "a"] },
    );
    const matrix = buildModelMatrix(report)!;
    expect(matrix.models).toEqual(["b", "a", "c"]);
    const classes = Object.fromEntries(matrix.rows.map((r) => [r.scenario, r.classification]));
    expect(classes).toEqual({
      "all-pass": "all_pass",
      broken: "all_fail",
      "flaky-infra": "incomplete",
      // One model passes, one fails: a model's capability, whatever a third could not say.
      hard: "some_fail",
    });
    expect(matrix.counts).toEqual({ all_fail: 1, some_fail: 1, all_pass: 1, incomplete: 1 });
    const broken = matrix.rows.find((r) => r.scenario === "broken")!;
    expect(broken.cells.b).toEqual({ state: "fail", passed: 1, evaluated: 2, pass_rate: 0.5 });
    const hard = matrix.rows.find((r) => r.scenario === "hard")!;
    expect(hard.cells.c).toEqual({ state: "incomplete", passed: 0, evaluated: 0, pass_rate: null });
    expect(matrix.summaries.map((s) => [s.model, s.summary.total_passed, s.summary.total_tasks])).toEqual([
      ["b", 3, 5],
      ["a", 4, 5],
      ["c", 0, 0],
    ]);
  });
});
