import { describe, expect, it } from "vitest";
import { renderComparisonMarkdown } from "../../src/render/comparison-markdown.js";
import {
  pooledPassRates,
  renderDecisionHeadline,
  renderDecisionHeadlineHtml,
  renderDecisionReason,
  renderDesignLine,
  renderRegressionCauses,
} from "../../src/render/decision.js";
import { markdownCode } from "../../src/render/escape.js";
import type { TrialReport } from "../../src/results/types.js";
import { makeReport, makeScenarioReport, makeTrial } from "../support/report-factory.js";
import {
  adaptiveHead,
  decideAndCompare,
  pooledBaseline,
  repeat,
  scenarioWith,
  suiteOf,
} from "./decision-fixtures.js";

/**
 * A broad small drop: 30 scenarios, eight base runs where each scenario missed one trial once (690
 * of 720), and a head where every other scenario passes 2 of 3.
 */
function suiteOnlyDrop() {
  const base = pooledBaseline(30, 8, 3, (i, r) => ((i + r) % 8 === 0 ? 2 : 3));
  const head = suiteOf(Array.from({ length: 30 }, (_, i) => (i % 2 === 0 ? [2, 3] : [3, 3])));
  return decideAndCompare(head, base.report, { pooling: base.pooling });
}

/** Eight base-branch runs of 3 trials, every scenario passing all: a design that can conclude. */
const EIGHT_RUNS = pooledBaseline(10, 8);

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
    const { decision } = suiteOnlyDrop();
    expect(decision.regressed).toEqual([]);
    expect(decision.suite_regressed).toBe(true);
    expect(pooledPassRates(decision)).toEqual({ base: 690 / 720, head: 75 / 90 });
    expect(renderDecisionHeadline(decision)).toBe(
      "🔴 Regression across the suite: pass rate 96% → 83% (suite test, adjusted p = 0.00478)",
    );
  });

  it("says when the suite test took the extended scenarios' extra trials as a second stage", () => {
    const { decision } = suiteOnlyDrop();
    const withExtras = {
      ...decision,
      suite: { ...decision.suite!, extras_stage: { scenarios: 9, first_stage_p: 0.03 } },
    };
    expect(renderDecisionHeadline(withExtras)).toBe(
      "🔴 Regression across the suite: pass rate 96% → 83% (suite test with the extra trials of 9 scenarios, adjusted p = 0.00478)",
    );
  });

  it("states the suite's pass rates over the head's first trials, as the suite test saw them", () => {
    // s0's first 3 trials failed; its 8 extra trials passed: all 11 would read 73%, not 0%.
    const head = makeReport([
      makeScenarioReport({
        id: "s0",
        first_trials: 3,
        extended: true,
        trials: [
          ...scenarioWith("x", 0, 3).trials,
          ...scenarioWith("x", 8, 8).trials.map((t, i) => ({ ...t, trial: 4 + i })),
        ],
      }),
      ...Array.from({ length: 9 }, (_, i) =>
        scenarioWith(`s${i + 1}`, 3, 3, {}, { first_trials: 3, extended: false }),
      ),
    ]);
    const { decision } = decideAndCompare(head, EIGHT_RUNS.report, {
      pooling: EIGHT_RUNS.pooling,
      extraTrials: 8,
    });
    expect(pooledPassRates(decision)).toEqual({ base: 1, head: 27 / 30 });
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
    const same = decideAndCompare(adaptiveHead(repeat(10, 3, 3)), EIGHT_RUNS.report, {
      pooling: EIGHT_RUNS.pooling,
      extraTrials: 8,
    }).decision;
    expect(same.basis).toBe("no_regression");
    // The ✅ says which change it could see: the collapse it is judged by, and not a broad drop
    // (the suite test's power for every scenario 0.9 → 0.8 at this design, seeded simulation).
    expect(same.design?.power?.broad_drop).toBeLessThan(0.8);
    expect(renderDecisionHeadline(same)).toBe(
      "✅ No regression detected — could see a 90% → 10% collapse in one scenario (~98%), not a 10-point drop across the suite (~22%)",
    );
    expect(renderDecisionReason(same)).toBe(
      "No regression detected — could see a 90% → 10% collapse in one scenario (~98%), not a 10-point drop across the suite (~22%).",
    );
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

  it("says inconclusive, never ✅, with every reason and what would make it conclusive", () => {
    // One base run of 3 trials: run-to-run variation unknown, and 3 against 3 catches nothing.
    const one = decideAndCompare(suiteOf(repeat(10, 3, 3)), suiteOf(repeat(10, 3, 3))).decision;
    expect(one.basis).toBe("inconclusive");
    const reasons = one.inconclusive!.reasons.join("; ");
    const needs = one.inconclusive!.needs.join(" and ");
    expect(renderDecisionHeadline(one)).toBe(
      `🟡 Inconclusive: no regression seen, but ${reasons} — conclusive with ${needs}`,
    );
    expect(renderDecisionHeadline(one)).toContain(
      "only 1 base-branch run: run-to-run variation cannot be estimated (3 needed)",
    );
    expect(renderDecisionReason(one)).toBe(
      `Inconclusive: no regression seen, but ${reasons} — conclusive with ${needs}.`,
    );
    expect(renderDecisionHeadlineHtml(one)).toMatch(
      /^🟡 Inconclusive: no regression seen, but only 1 base-branch run/u,
    );
    // Two base runs of a design that would otherwise conclude: the one thing missing is a third run.
    const two = pooledBaseline(10, 2, 12);
    const twoRuns = decideAndCompare(adaptiveHead(repeat(10, 3, 3)), two.report, {
      pooling: two.pooling,
      extraTrials: 8,
    }).decision;
    expect(twoRuns.basis).toBe("inconclusive");
    expect(renderDecisionHeadline(twoRuns)).toMatch(
      /^🟡 Inconclusive: no regression seen, but only 2 base-branch runs: run-to-run variation cannot be estimated \(3 needed\)(; this design [^—]+)? — conclusive with \d+ more base-branch runs? \(it pools the last `baseline-runs`, if they vary no more than independent trials\)$/u,
    );
    for (const d of [one, twoRuns]) {
      expect(renderDecisionHeadline(d)).not.toContain("✅");
      expect(renderDecisionHeadline({ ...d, incomplete: true })).toMatch(/^⚠️ INCOMPLETE — Inconclusive/u);
    }
  });

  it("says INCOMPLETE for an incomplete run, and never shows it as a plain pass", () => {
    const incomplete = adaptiveHead(repeat(10, 3, 3));
    incomplete.run.incomplete = true;
    const passing = decideAndCompare(incomplete, EIGHT_RUNS.report, {
      pooling: EIGHT_RUNS.pooling,
      extraTrials: 8,
    }).decision;
    expect(passing.failed).toBe(false);
    const headline = renderDecisionHeadline(passing);
    expect(headline).toBe(
      "⚠️ INCOMPLETE — No regression detected — could see a 90% → 10% collapse in one scenario (~98%), not a 10-point drop across the suite (~22%); only the trials that ran were judged",
    );
    expect(headline).not.toMatch(/^✅/u);
    expect(renderDecisionReason(passing)).toMatch(/^INCOMPLETE: No regression detected/);
    const outcome = decideAndCompare(incomplete, null, { failOnText: "outcome" }).decision;
    // Never "Passed" for a run whose planned trials did not all run (a cancelled run, issue 27).
    const cancelled = { passed: 3, failed: 0, errors: 0, skipped: 7 };
    expect(renderDecisionHeadline(outcome, { summary: cancelled })).toBe(
      "⚠️ INCOMPLETE — No trial that ran failed: 3/3 trials passed, 7 not run (fail-on: outcome); only the trials that ran were judged",
    );
    expect(renderDecisionReason(outcome, { summary: cancelled })).not.toMatch(/Passed/);

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
  it("says how the base runs' suite levels spread, and never prints a ratio that is not a number", () => {
    const decision = decideAndCompare(adaptiveHead(repeat(10, 3, 3)), EIGHT_RUNS.report, {
      pooling: EIGHT_RUNS.pooling,
      extraTrials: 8,
    }).decision;
    const spread = (dispersion: number) =>
      renderDesignLine({
        ...decision,
        variation: { ...decision.variation!, suite_method: "runs", dispersion },
      });
    expect(spread(2.34)).toContain(
      "varies between base runs 2.3× as much as trials explain, so the suite test compares runs",
    );
    expect(spread(Number.POSITIVE_INFINITY)).toContain(
      "varies between base runs where trials explain no variation, so the suite test compares runs",
    );
    expect(spread(Number.POSITIVE_INFINITY)).not.toContain("Infinity");
  });

  it("states the configured design's power, not the extra trials this run happened to spend", () => {
    // No scenario needed extra trials: the design still has +8 for a scenario that would.
    const head = adaptiveHead(repeat(10, 3, 3));
    const configured = decideAndCompare(head, EIGHT_RUNS.report, {
      pooling: EIGHT_RUNS.pooling,
      extraTrials: 8,
    }).decision;
    expect(configured.design?.head_trials_spent).toBe(30);
    const line = renderDesignLine(configured);
    expect(line).toBe(
      `10 scenarios × 3 (+8) trials against 8 baseline runs (24 trials a scenario): catches a 90% → 10% collapse in one scenario with ${powerText(configured.design!.power!.collapse)} power; a 90% → 50% drop with ${powerText(configured.design!.power!.half)}. Run-to-run variation: 8 base runs, ICC 0.00. Run cost $1.50.`,
    );
    expect(configured.design!.power!.collapse).toBeGreaterThanOrEqual(0.8);
    // Another configured design states its own extra trials.
    const four = decideAndCompare(head, EIGHT_RUNS.report, {
      pooling: EIGHT_RUNS.pooling,
      extraTrials: 4,
    }).decision;
    expect(renderDesignLine(four)).toMatch(/^10 scenarios × 3 \(\+4\) trials against 8 baseline runs/);
  });

  it("says that each scenario's own test pools the newest 8 of more base runs, and states its power", () => {
    const twelve = pooledBaseline(10, 12);
    const decision = decideAndCompare(adaptiveHead(repeat(10, 3, 3)), twelve.report, {
      pooling: twelve.pooling,
      extraTrials: 8,
    }).decision;
    const eight = decideAndCompare(adaptiveHead(repeat(10, 3, 3)), EIGHT_RUNS.report, {
      pooling: EIGHT_RUNS.pooling,
      extraTrials: 8,
    }).decision;
    expect(renderDesignLine(decision)).toMatch(
      /^10 scenarios × 3 \(\+8\) trials against 12 baseline runs \(36 trials a scenario; each scenario's own test pools the newest 8 runs\): catches/,
    );
    // The collapse's power is the newest 8 runs' (the suite test's broad-drop power grows with all 12).
    const { broad_drop: _twelve, ...perScenario } = decision.design!.power!;
    const { broad_drop: _eight, ...perScenarioAtEight } = eight.design!.power!;
    expect(perScenario).toEqual(perScenarioAtEight);
  });

  it("says what a regressed scenario's own test compared with when it is not the row's pooled base", () => {
    // s0 collapsed: 0/3 first, 0/8 extra, against 12 perfect base runs; its own test pools the newest 8.
    const twelve = pooledBaseline(10, 12);
    const head = adaptiveHead([[0, 11], ...repeat(9, 3, 3)]);
    const { decision, comparison } = decideAndCompare(head, twelve.report, {
      pooling: twelve.pooling,
      extraTrials: 8,
    });
    const s0 = decision.scenarios.find((s) => s.key === "s0")!;
    expect(s0).toMatchObject({
      regressed: true,
      base: { passed: 36, trials: 36 },
      tested_base: { passed: 24, trials: 24 },
    });
    // (Every scenario here was tested against its newest 8 runs; the rows listed say so.)
    const row = renderComparisonMarkdown(comparison!, decision)
      .split("\n")
      .find((line) => line.startsWith("| `s0`"))!;
    expect(row).toContain("36/36 → 0/11");
    expect(row).toContain("tested against 24/24, the newest 8 runs");
    // With 8 runs the pooled base is what the test compared with: nothing to say.
    const eight = decideAndCompare(head, EIGHT_RUNS.report, { pooling: EIGHT_RUNS.pooling, extraTrials: 8 });
    expect(eight.decision.scenarios.find((s) => s.key === "s0")!.tested_base).toBeUndefined();
    expect(renderComparisonMarkdown(eight.comparison!, eight.decision)).not.toContain("tested against");
  });

  it("states the run-to-run variation the base runs showed, and what the tests assumed", () => {
    // Odd runs fail two of three trials in even scenarios: a strong run effect.
    const varied = pooledBaseline(10, 8, 3, (i, r) => (r % 2 === 1 && i % 2 === 0 ? 1 : 3));
    const d = decideAndCompare(adaptiveHead(repeat(10, 3, 3)), varied.report, {
      pooling: varied.pooling,
      extraTrials: 8,
    }).decision;
    const icc = Math.ceil(d.variation!.icc! * 100 - 1e-9) / 100;
    expect(d.variation?.icc_used).toBe(icc);
    expect(renderDesignLine(d)).toContain(`. Run-to-run variation: 8 base runs, ICC ${icc.toFixed(2)}`);
    // Below three runs the tests assume the prior, and the line says so.
    const one = decideAndCompare(suiteOf(repeat(10, 3, 3)), suiteOf(repeat(10, 3, 3))).decision;
    expect(renderDesignLine(one)).toMatch(
      /\. Run-to-run variation: 1 base run, too few to measure it; tests and power assume ICC 0\.10\. Run cost \$[\d.]+\.$/,
    );
    const two = pooledBaseline(10, 2);
    const twoRuns = decideAndCompare(adaptiveHead(repeat(10, 3, 3)), two.report, {
      pooling: two.pooling,
    }).decision;
    expect(renderDesignLine(twoRuns)).toMatch(
      /\. Run-to-run variation: 2 base runs, too few to measure it; tests and power assume ICC 0\.10\. Run cost \$[\d.]+\.$/,
    );
  });

  it("gives one power for the collapse in the headline and the design line, and advises at no ICC the line calls unestimable", () => {
    // Two base runs: the tests assume the prior ICC 0.1, the headline says why it is inconclusive.
    for (const scenarios of [10, 20, 30]) {
      const two = pooledBaseline(scenarios, 2);
      const d = decideAndCompare(adaptiveHead(repeat(scenarios, 3, 3)), two.report, {
        pooling: two.pooling,
        extraTrials: 8,
      }).decision;
      const headline = renderDecisionHeadline(d);
      const inHeadline = /would catch one scenario collapsing 0\.9 → 0\.1 only (\d+)% of the time/.exec(
        headline,
      );
      const inLine = /catches a 90% → 10% collapse in one scenario with ~(\d+)% power/.exec(
        renderDesignLine(d),
      );
      expect(inHeadline, headline).not.toBeNull();
      expect(inHeadline![1]).toBe(inLine![1]);
      // The line says two runs cannot show the ICC; the advice says what it assumed instead.
      expect(renderDesignLine(d)).toContain("2 base runs, too few to measure it");
      expect(headline).toMatch(/if they vary no more than independent trials\)$/);
    }
  });

  it("says that only the suite test decides with one trial per scenario", () => {
    const { decision } = decideAndCompare(suiteOf(repeat(10, 1, 1)), suiteOf(repeat(10, 4, 4)));
    expect(renderDesignLine(decision)).toBe(
      "10 scenarios, 1 trial per scenario against 1 baseline run (4 trials a scenario): only the suite test can decide (no per-scenario verdicts). Run-to-run variation: 1 base run, too few to measure it; tests and power assume ICC 0.10. Run cost $0.50.",
    );
  });

  it("states the PR's cost, and says which trials' cost is unknown rather than counting them as $0", () => {
    const head = suiteOf(repeat(10, 1, 1));
    const unpriced = makeReport(
      head.scenarios.map((sc, i) =>
        i < 2
          ? makeScenarioReport({
              ...sc,
              trials: sc.trials.map((t) => ({ ...t, execution: { ...t.execution, cost_usd: null } })),
            })
          : sc,
      ),
    );
    const { decision } = decideAndCompare(unpriced, suiteOf(repeat(10, 4, 4)));
    expect(decision.design!.cost.trials_cost_unknown).toBe(2);
    expect(decision.design!.cost.total_cost_usd).toBeCloseTo(0.4, 9);
    expect(renderDesignLine(decision)).toMatch(
      / Run cost \$0\.40, and unknown for 2 trials \(no price for their model\)\.$/,
    );
  });

  it("is empty when nothing was compared", () => {
    expect(renderDesignLine(decideAndCompare(suiteOf(repeat(2, 3, 3)), null).decision)).toBe("");
  });
});

function powerText(power: number): string {
  return power >= 0.995 ? ">99%" : `~${Math.floor(power * 100)}%`;
}

/** A failed trial whose first failed gate carries `message` (the agent's work decides what it says). */
function failedTrial(trial: number, message: string): TrialReport {
  return makeTrial({
    trial,
    outcome: "fail",
    reason: "gate failed",
    gates: [
      { gate_type: "command_exit_code", passed: true, message: "exit 0", weight: 1 },
      { gate_type: "file_contains", passed: false, message, weight: 1, description: "report written" },
    ],
  });
}

describe("renderRegressionCauses", () => {
  it("gives each regressed scenario one visible line: its first failed gate's message, inert and bounded", () => {
    const hostile = `@octocat </details><!-- x --> **bold** [link](http://x) ${"y".repeat(300)}\nsecond line`;
    const head = makeReport([
      makeScenarioReport({
        id: "s0",
        trials: Array.from({ length: 9 }, (_, i) => failedTrial(i + 1, i === 0 ? hostile : "other")),
      }),
      ...Array.from({ length: 9 }, (_, i) => scenarioWith(`s${i + 1}`, 3, 3)),
    ]);
    const { decision } = decideAndCompare(head, suiteOf(repeat(10, 24, 24)));
    expect(decision.regressed).toEqual(["s0"]);
    const [line, ...rest] = renderRegressionCauses(decision, head);
    expect(rest).toEqual([]);
    expect(line).toMatch(
      /^- `s0`: 9 of 9 head trials failed; trial 1 failed gate `file_contains` \(report written\): @\u200Boctocat &lt;\/details&gt;&lt;!-- x --&gt; \\\*\\\*bold\\\*\\\* \\\[link\\\]\(http:\/\/\u200Bx\) y+…\.$/u,
    );
    expect(line).not.toContain("second line");
    expect(line!.length).toBeLessThan(300);
  });

  it("names no scenario when only the suite test saw a drop", () => {
    const { decision } = suiteOnlyDrop();
    expect(decision.regressed).toEqual([]);
    expect(decision.suite_regressed).toBe(true);
    expect(renderRegressionCauses(decision, suiteOf(repeat(30, 3, 3)))).toEqual([
      "No scenario regressed by its own test: the suite test saw a drop spread over the suite, not one scenario breaking.",
    ]);
    expect(renderDecisionHeadline(decision)).not.toContain("`s");
  });

  it("says nothing when nothing regressed", () => {
    const { decision } = decideAndCompare(suiteOf(repeat(3, 3, 3)), suiteOf(repeat(3, 3, 3)));
    expect(renderRegressionCauses(decision, suiteOf(repeat(3, 3, 3)))).toEqual([]);
  });
});
