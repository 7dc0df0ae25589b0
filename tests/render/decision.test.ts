import { describe, expect, it } from "vitest";
import {
  pooledPassRates,
  renderDecisionHeadline,
  renderDecisionHeadlineHtml,
  renderDecisionReason,
  renderDesignLine,
} from "../../src/render/decision.js";
import { markdownCode } from "../../src/render/escape.js";
import { makeReport } from "../support/report-factory.js";
import { decideAndCompare, repeat, scenarioWith, suiteOf } from "./decision-fixtures.js";

const POOLED = { pooling: { runs: ["#41", "#40", "#39", "#38"], excluded: [] }, extraTrials: 6 };

/** Ten scenarios at 12/12 in the pooled baseline; the head's are 3/3 except those given. */
function regressionIn(collapsed: Record<number, [number, number]>, options = {}) {
  const head = repeat(10, 3, 3);
  for (const [i, counts] of Object.entries(collapsed)) head[Number(i)] = counts;
  return decideAndCompare(suiteOf(head), suiteOf(repeat(10, 12, 12)), options).decision;
}

describe("renderDecisionHeadline", () => {
  it("names one regressed scenario with its counts and adjusted p", () => {
    const decision = regressionIn({ 4: [0, 9] }, POOLED);
    expect(decision.regressed).toEqual(["s4"]);
    const headline = renderDecisionHeadline(decision);
    expect(headline).toMatch(/^🔴 Regression in `s4`: 12\/12 → 0\/9 \(adjusted p [<=] [\d.]+\)/);
    expect(renderDecisionReason(decision)).toMatch(/^Regression in s4: 12\/12 → 0\/9 \(adjusted p/);
    expect(renderDecisionReason(decision)).not.toMatch(/[`🔴✅]/u);
  });

  it("names several regressed scenarios, each with its counts, and many by name alone", () => {
    const two = regressionIn({ 4: [0, 9], 6: [0, 9] });
    expect(two.regressed).toEqual(["s4", "s6"]);
    expect(renderDecisionHeadline(two)).toMatch(
      /^🔴 Regression in 2 scenarios: `s4` 12\/12 → 0\/9 \(adjusted p [^)]+\), `s6` 12\/12 → 0\/9 \(adjusted p [^)]+\)/,
    );
    const five = regressionIn({ 0: [0, 9], 1: [0, 9], 2: [0, 9], 3: [0, 9], 4: [0, 9] });
    expect(five.regressed).toHaveLength(5);
    expect(renderDecisionHeadline(five)).toMatch(
      /^🔴 Regression in 5 scenarios: `s0`, `s1`, `s2`, `s3`, `s4`/,
    );
  });

  it("says when only the suite test rejected, with the pooled pass rates", () => {
    const { decision } = decideAndCompare(
      suiteOf(Array.from({ length: 30 }, (_, i) => (i % 2 === 0 ? [2, 3] : [3, 3]))),
      suiteOf(repeat(30, 11, 12)),
    );
    expect(decision.regressed).toEqual([]);
    expect(decision.suite_regressed).toBe(true);
    expect(pooledPassRates(decision)).toEqual({ base: 330 / 360, head: 75 / 90 });
    expect(renderDecisionHeadline(decision)).toMatch(
      /^🔴 Regression across the suite: pass rate 92% → 83% \(suite test, adjusted p = 0\.0\d\d\)$/,
    );
  });

  it("names a gate metric's regression with its values", () => {
    const base = makeReport([
      scenarioWith("noisy", 12, 12, { total_commands: 10, error_count: 0 }),
      scenarioWith("quiet", 12, 12),
    ]);
    const head = makeReport([
      scenarioWith("noisy", 9, 9, { total_commands: 10, error_count: 8 }),
      scenarioWith("quiet", 3, 3),
    ]);
    const { decision } = decideAndCompare(head, base, { gateMetrics: ["error_rate"] });
    expect(decision.regressed_metrics).toEqual([{ metric: "error_rate", scenarios: ["noisy"] }]);
    expect(renderDecisionHeadline(decision)).toMatch(
      /^🔴 Regression in `error_rate` of `noisy`: 0% → 80% \(adjusted p [<=] [\d.]+\)$/,
    );
  });

  it("says plainly when nothing regressed, and when there is no baseline (not gating)", () => {
    const same = decideAndCompare(suiteOf(repeat(10, 3, 3)), suiteOf(repeat(10, 3, 3))).decision;
    expect(renderDecisionHeadline(same)).toBe("✅ No regression detected");
    expect(renderDecisionReason(same)).toBe("No regression detected.");
    const none = decideAndCompare(suiteOf(repeat(3, 3, 3)), null).decision;
    expect(renderDecisionHeadline(none, { noBaselineReason: "no successful run on `main` yet" })).toBe(
      "⚪ No baseline yet: no successful run on `main` yet — this check does not gate until there is one",
    );
    expect(renderDecisionHeadline(none)).toBe(
      "⚪ No baseline yet — this check does not gate until there is one",
    );
  });

  it("words the head-only forms: outcome, pass-rate<X and never", () => {
    const run = suiteOf([
      [1, 3],
      [3, 3],
      [3, 3],
      [3, 3],
    ]);
    const of = (failOnText: string) => decideAndCompare(run, run, { failOnText }).decision;
    const summary = run.summary;
    expect(renderDecisionHeadline(of("outcome"), { summary })).toBe(
      "❌ Failed: 2/12 trials failed (fail-on: outcome)",
    );
    expect(renderDecisionHeadline(of("outcome"))).toBe(
      "❌ Failed: the run's outcome is fail (fail-on: outcome)",
    );
    const passing = suiteOf(repeat(2, 3, 3));
    expect(
      renderDecisionHeadline(decideAndCompare(passing, null, { failOnText: "outcome" }).decision, {
        summary: passing.summary,
      }),
    ).toBe("✅ Passed: 6/6 trials passed (fail-on: outcome)");
    expect(renderDecisionHeadline(of("pass-rate<0.9"))).toBe(
      "❌ Pass rate 83% is below 90% (fail-on: pass-rate<0.9)",
    );
    expect(renderDecisionHeadline(of("pass-rate<0.8"))).toBe(
      "✅ Pass rate 83% meets 80% (fail-on: pass-rate<0.8)",
    );
    expect(renderDecisionHeadline(of("never"), { summary })).toBe(
      "ℹ️ Not gating: 10/12 trials passed (fail-on: never)",
    );
    expect(renderDecisionReason(of("pass-rate<0.9"))).toBe(
      "Pass rate 83% is below 90% (fail-on: pass-rate<0.9).",
    );
  });

  it("says INCOMPLETE for an incomplete run, and never shows it as a plain pass", () => {
    const incomplete = suiteOf(repeat(4, 3, 3), undefined, { incomplete: true });
    const passing = decideAndCompare(incomplete, suiteOf(repeat(4, 3, 3))).decision;
    expect(passing.failed).toBe(false);
    const headline = renderDecisionHeadline(passing);
    expect(headline).toBe("⚠️ INCOMPLETE — No regression detected; only the trials that ran were judged");
    expect(headline).not.toMatch(/^✅/u);
    expect(renderDecisionReason(passing)).toMatch(/^INCOMPLETE: No regression detected/);
    const outcome = decideAndCompare(incomplete, null, { failOnText: "outcome" }).decision;
    expect(renderDecisionHeadline(outcome)).toMatch(/^⚠️ INCOMPLETE — Passed/u);

    const head = repeat(10, 3, 3);
    head[2] = [0, 9];
    const failing = decideAndCompare(
      suiteOf(head, undefined, { incomplete: true }),
      suiteOf(repeat(10, 12, 12)),
    ).decision;
    expect(renderDecisionHeadline(failing)).toMatch(/^⚠️ INCOMPLETE — 🔴 Regression in `s2`/u);
  });

  it("keeps agent-controlled scenario names inert", () => {
    const names = ["a`b", "</details><!-- x", "@octocat ping", "``x``"];
    const head = makeReport(names.map((id) => scenarioWith(id, 0, 9)));
    const base = makeReport(names.map((id) => scenarioWith(id, 12, 12)));
    const { decision } = decideAndCompare(head, base);
    expect(decision.regressed).toEqual(names);
    const headline = renderDecisionHeadline(decision);
    for (const name of names) expect(headline).toContain(markdownCode(name));
    // Outside the code spans nothing but our own words remains (a "<" only in "p < 0.001").
    let rest = headline;
    for (const name of names) rest = rest.replace(markdownCode(name), "NAME");
    expect(rest).toMatch(/^🔴 Regression in 4 scenarios: NAME, NAME, NAME, NAME; across the suite/u);
    expect(rest).not.toMatch(/[`@]|<\S/);
    const html = renderDecisionHeadlineHtml(decision);
    expect(html).toContain("<code>&lt;/details&gt;&lt;!-- x</code>");
    expect(html).not.toContain("</details>");
  });
});

describe("markdownCode", () => {
  it("fences text so that backticks inside cannot close it", () => {
    expect(markdownCode("plain")).toBe("`plain`");
    expect(markdownCode("a`b")).toBe("`` a`b ``");
    expect(markdownCode("``x``")).toBe("``` ``x`` ```");
    expect(markdownCode("two\nlines")).toBe("`two lines`");
  });
});

describe("renderDesignLine", () => {
  it("says what the design could detect, with the extra trials and the pooled baseline", () => {
    const decision = regressionIn({}, POOLED);
    expect(renderDesignLine(decision)).toMatch(
      /^10 scenarios × 3 \(\+6\) trials against 4 baseline runs \(12 trials a scenario\): catches a 90% → 10% collapse in one scenario with ~\d+% power; a 90% → 50% drop with ~\d+(\.\d)?%\.$/,
    );
  });

  it("says that only the suite test decides with one trial per scenario", () => {
    const { decision } = decideAndCompare(suiteOf(repeat(10, 1, 1)), suiteOf(repeat(10, 4, 4)));
    expect(renderDesignLine(decision)).toBe(
      "10 scenarios, 1 trial per scenario against 1 baseline run (4 trials a scenario): only the suite test can decide (no per-scenario verdicts).",
    );
  });

  it("is empty when nothing was compared", () => {
    expect(renderDesignLine(decideAndCompare(suiteOf(repeat(2, 3, 3)), null).decision)).toBe("");
  });
});
