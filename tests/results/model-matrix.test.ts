import { describe, expect, it } from "vitest";
import { buildModelMatrix, describeRow } from "../../src/results/model-matrix.js";
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
      // b passed one of its two trials, and c did not run it: not "every model fails".
      "all-pass": "incomplete",
      broken: "incomplete",
      "flaky-infra": "incomplete",
      // One model passes, one fails: a model's capability, whatever a third could not say.
      hard: "some_fail",
    });
    expect(matrix.counts).toEqual({
      all_fail: 0,
      some_fail: 1,
      all_unreliable: 0,
      all_pass: 0,
      incomplete: 3,
    });
    const broken = matrix.rows.find((r) => r.scenario === "broken")!;
    expect(broken.cells.b).toEqual({ state: "fail", passed: 1, evaluated: 2, pass_rate: 0.5, diverged: 0 });
    const hard = matrix.rows.find((r) => r.scenario === "hard")!;
    expect(hard.cells.c).toEqual({
      state: "incomplete",
      passed: 0,
      evaluated: 0,
      pass_rate: null,
      diverged: 0,
    });
    expect(matrix.summaries.map((s) => [s.model, s.summary.total_passed, s.summary.total_tasks])).toEqual([
      ["b", 3, 5],
      ["a", 4, 5],
      ["c", 0, 0],
    ]);
  });
});

describe("the matrix's words match its counts", () => {
  const models = { models: ["a", "b", "c", "d"] };

  it("says 'every model fails' only when every model of the matrix failed every trial", () => {
    const report = makeReport(
      [
        ...["a", "b", "c", "d"].map((m) => entry("broken", m, ["fail", "fail"])),
        // Three of four models fail every trial, one passes: model capability, 3 of 4.
        ...["a", "b", "c"].map((m) => entry("three-of-four", m, ["fail", "fail"])),
        entry("three-of-four", "d", ["pass", "pass"]),
        // Every model fails a trial but passes another: not "every model fails".
        ...["a", "b", "c", "d"].map((m) => entry("half", m, ["pass", "fail"])),
        // Two models did not run it: no word about every model.
        entry("pinned", "a", ["fail"]),
        entry("pinned", "b", ["fail"]),
      ],
      models,
    );
    const matrix = buildModelMatrix(report)!;
    const rows = Object.fromEntries(matrix.rows.map((r) => [r.scenario, r]));
    expect(rows.broken?.classification).toBe("all_fail");
    expect(describeRow(rows.broken!, matrix)).toBe(
      "every model fails (4 of 4, no trial passed): likely the tool or its guidance",
    );
    expect(rows["three-of-four"]?.classification).toBe("some_fail");
    expect(describeRow(rows["three-of-four"]!, matrix)).toBe("3 of 4 models fail: model capability");
    expect(rows.half?.classification).toBe("all_unreliable");
    expect(describeRow(rows.half!, matrix)).not.toMatch(/^every model fails \(/);
    expect(rows.pinned?.classification).toBe("incomplete");
    expect(describeRow(rows.pinned!, matrix)).toBe("incomplete: 2 of 4 models without a verdict");
  });
});
