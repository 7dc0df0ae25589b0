/** The run's exit codes, shared by the CLI's commands and library callers (docs/library.md). */
import { describe, expect, it } from "vitest";
import { decide } from "../../src/compare/decision.js";
import { EXIT_CODES, exitCodeForDecision, exitCodeForReport } from "../../src/compare/exit-status.js";
import type { Outcome } from "../../src/results/types.js";
import { makeReport, makeScenarioReport, trialsFrom } from "../support/report-factory.js";

const reportOf = (outcomes: Outcome[], incomplete = false) =>
  makeReport(
    [makeScenarioReport({ id: "s", trials: trialsFrom(outcomes.map((outcome) => ({ outcome }))) })],
    {
      incomplete,
    },
  );

describe("exit codes", () => {
  it("are those the CLI documents", () => {
    expect(EXIT_CODES).toEqual({ ok: 0, failed: 1, incomplete: 3 });
  });

  it("follow the report without a decision: a failure before errors, errors before a pass", () => {
    expect(exitCodeForReport(reportOf(["pass", "pass"]))).toBe(0);
    expect(exitCodeForReport(reportOf(["pass", "fail", "error"]))).toBe(1);
    expect(exitCodeForReport(reportOf(["pass", "error"]))).toBe(3);
    expect(exitCodeForReport(reportOf(["pass", "pass"], true))).toBe(3);
  });

  it("follow the decision when one governs", () => {
    const outcome = { kind: "outcome" } as const;
    expect(exitCodeForDecision(decide({ head: reportOf(["pass"]), baseline: null, failOn: outcome }))).toBe(
      0,
    );
    expect(
      exitCodeForDecision(decide({ head: reportOf(["pass", "fail"]), baseline: null, failOn: outcome })),
    ).toBe(1);
    const incomplete = decide({ head: reportOf(["pass"], true), baseline: null, failOn: outcome });
    expect(incomplete.incomplete).toBe(true);
    expect(exitCodeForDecision(incomplete)).toBe(3);
    // A fail-on that never fails still says when the run was incomplete.
    expect(
      exitCodeForDecision(
        decide({ head: reportOf(["fail"], true), baseline: null, failOn: { kind: "never" } }),
      ),
    ).toBe(3);
  });
});
