import { describe, expect, it } from "vitest";
import { compareReports } from "../../src/compare/compare.js";
import { findRegressions } from "../../src/compare/gate.js";
import { ConfigError } from "../../src/errors.js";
import { decideRegressionFailure } from "../../src/render/regression-reasons.js";
import { makeReport, makeScenarioReport, type TrialSpec, trialsFrom } from "../support/report-factory.js";
import { loadFixture } from "../support/report-fixtures.js";

const repeat = (n: number, spec: TrialSpec): TrialSpec[] => Array.from({ length: n }, () => ({ ...spec }));

describe("decideRegressionFailure", () => {
  const comparison = compareReports(loadFixture("base"), loadFixture("head"));

  it("fails on the significant pass-rate regression and on scenarios that went from all-pass to all-fail", () => {
    const decision = decideRegressionFailure(comparison);
    expect(decision.failed).toBe(true);
    const text = decision.reasons.join("\n");
    expect(text).toMatch(
      /`create-note`: pass_rate regressed 100% → 0% \(−100 pts, 95% CI \[−100, −61\] pts\)/,
    );
    expect(text).toMatch(/Holm over \d+ tests/);
    expect(text).toContain(
      "`create-note`: newly failing: passed 10/10 baseline trials, failed 10/10 head trials",
    );
    expect(text).toContain("`single-shot`: newly failing");
    expect(text).toContain("one trial each, which may be noise");
    // Only pass_rate counts by default: no reason about commands or cost.
    expect(text).not.toContain("total_commands");
    expect(text).not.toContain("cost_usd");
  });

  it("finds the same regressions as data, for renderers to word", () => {
    const findings = findRegressions(comparison);
    expect(findings.failed).toBe(true);
    expect(findings.correction).toBe("holm");
    expect(findings.alpha).toBe(comparison.settings.alpha);
    expect(findings.regressions).toHaveLength(decideRegressionFailure(comparison).reasons.length);
    const metric = findings.regressions.find((r) => r.kind === "metric" && r.scenario === "create-note");
    expect(metric?.kind === "metric" && metric.test.metric).toBe("pass_rate");
    expect(metric?.kind === "metric" && metric.p_adjusted).toBeLessThanOrEqual(findings.alpha);
    const keys = findings.regressions.flatMap((r) => (r.kind === "newly_failing" ? [r.scenario.key] : []));
    expect(keys).toContain("single-shot");
  });

  it("counts other metrics only when asked, correcting over the chosen metrics' tests", () => {
    const decision = decideRegressionFailure(comparison, { metrics: ["total_commands"] });
    expect(decision.reasons.some((r) => r.startsWith("`create-note`: total_commands regressed"))).toBe(true);
    expect(decision.reasons.some((r) => r.includes("pass_rate regressed"))).toBe(false);
  });

  it("passes when nothing changed, and never fails on an improvement or on noise", () => {
    const same = compareReports(loadFixture("base"), loadFixture("base"));
    expect(decideRegressionFailure(same)).toEqual({ failed: false, reasons: [] });
    // Head against base the other way round: create-note is newly passing, a big improvement.
    const reversed = compareReports(loadFixture("head"), loadFixture("base"));
    const decision = decideRegressionFailure(reversed, { metrics: ["pass_rate", "total_commands"] });
    // link-notes went 5/5 → 3/5 here: a drop, but inconclusive, so it does not fail the check.
    expect(decision.reasons.join("\n")).not.toContain("link-notes");
    expect(decision.failed).toBe(false);
  });

  it("does not fail on a drop that is not significant at the chosen alpha", () => {
    const base = makeReport([
      makeScenarioReport({ id: "s", trials: trialsFrom(repeat(6, { outcome: "pass" })) }),
    ]);
    const head = makeReport([
      makeScenarioReport({
        id: "s",
        trials: trialsFrom([...repeat(3, { outcome: "pass" }), ...repeat(3, { outcome: "fail" })]),
      }),
    ]);
    const c = compareReports(base, head, { metrics: [] });
    // 6/6 → 3/6: Fisher p = 0.1818; significant at 0.2, not at 0.05.
    expect(c.scenarios[0]!.metrics[0]!.p_value).toBeCloseTo(0.1818, 4);
    expect(decideRegressionFailure(c).failed).toBe(false);
    expect(decideRegressionFailure(c, { alpha: 0.2 }).failed).toBe(true);
  });

  it("rejects metrics the comparison did not test, and a meaningless alpha", () => {
    expect(() => decideRegressionFailure(comparison, { metrics: ["judge_score"] })).toThrow(ConfigError);
    expect(() => decideRegressionFailure(comparison, { metrics: ["judge_score"] })).toThrow(
      /was not compared/,
    );
    expect(() => decideRegressionFailure(comparison, { alpha: 0 })).toThrow(/alpha/);
  });
});
