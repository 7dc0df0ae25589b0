/**
 * The decide stage (compare/decide-run.ts): the report, the settled baseline and the policy in, the
 * comparison and the one decision out, as the CLI's run, merge, report and compare and the action call it.
 */
import { describe, expect, it } from "vitest";
import { decideRun } from "../../src/compare/decide-run.js";
import { pooledBaseline, repeat, suiteOf } from "../render/decision-fixtures.js";

const policy = { failOn: null, gateMetrics: [] as string[] };

describe("decideRun", () => {
  it("without a baseline decides on the run's own outcome and compares nothing", () => {
    const failing = decideRun({ report: suiteOf([[0, 3]]), baseline: null, policy });
    expect(failing.comparison).toBeNull();
    expect(failing.comparisonError).toBeNull();
    expect(failing.decision).toMatchObject({ basis: "outcome", failed: true });
    const passing = decideRun({ report: suiteOf([[3, 3]]), baseline: null, policy });
    expect(passing.decision.failed).toBe(false);
  });

  it("against a baseline compares and decides on a regression, with the pool and the design it is given", () => {
    const base = pooledBaseline(1, 8);
    const head = suiteOf([[0, 3]]);
    const decided = decideRun({
      report: head,
      baseline: base,
      policy: { ...policy, compareOptions: { bootstrapResamples: 200, permutationResamples: 500 } },
      designExtraTrials: 5,
    });
    expect(decided.comparison?.scenarios.map((s) => s.id)).toEqual(["s0"]);
    expect(decided.decision).toMatchObject({ basis: "regression", failed: true, regressed: ["s0"] });
    expect(decided.decision.design?.extra_trials).toBe(5);
    expect(decided.decision.design?.baseline_runs).toBe(8);
  });

  it("says why a baseline could not be compared instead of throwing, and decides without it", () => {
    const base = suiteOf(repeat(1, 3, 3));
    // A report of a later format: compareReports refuses it.
    const foreign = { ...base, schema_version: 999 };
    const decided = decideRun({ report: suiteOf([[3, 3]]), baseline: { report: foreign }, policy });
    expect(decided.comparison).toBeNull();
    expect(decided.comparisonError).toMatch(/schema_version 999 is newer/);
    expect(decided.decision.basis).toBe("outcome");
  });

  it("throws the comparison's own error where comparing was all that was asked (report, compare)", () => {
    const foreign = { ...suiteOf(repeat(1, 3, 3)), schema_version: 999 };
    expect(() =>
      decideRun({
        report: suiteOf([[3, 3]]),
        baseline: { report: foreign },
        policy,
        incomparable: "throw",
      }),
    ).toThrow(/schema_version 999 is newer/);
  });

  it("follows an explicit fail-on over the default", () => {
    const decided = decideRun({
      report: suiteOf([[2, 3]]),
      baseline: null,
      policy: { failOn: { kind: "pass_rate_below", threshold: 0.9 }, gateMetrics: [] },
    });
    expect(decided.decision.failed).toBe(true);
  });
});
