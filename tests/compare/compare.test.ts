import { describe, expect, it } from "vitest";
import { compareReports, decideVerdict, MIN_SUITE_SCENARIOS } from "../../src/compare/compare.js";
import { DEFAULT_COMPARE_METRICS } from "../../src/compare/metrics.js";
import type { Comparison, MetricComparison } from "../../src/compare/types.js";
import { ConfigError } from "../../src/errors.js";
import { scenarioKey } from "../../src/results/scenario-key.js";
import type { Report } from "../../src/results/types.js";
import { adjustPValues, logChoose } from "../../src/stats/stats.js";
import {
  makeReport,
  makeScenarioReport,
  makeTrial,
  type TrialSpec,
  trialsFrom,
} from "../support/report-factory.js";
import { loadFixture } from "../support/report-fixtures.js";
import { reportSchemaErrors } from "../support/report-schema.js";

function metricOf(c: Comparison, key: string, metric: string): MetricComparison {
  const s = c.scenarios.find((x) => x.key === key);
  if (!s) throw new Error(`no scenario ${key}`);
  const m = s.metrics.find((x) => x.metric === metric);
  if (!m) throw new Error(`no metric ${metric} in ${key}`);
  return m;
}

const repeat = (n: number, spec: TrialSpec): TrialSpec[] => Array.from({ length: n }, () => ({ ...spec }));

describe("the saved fixture reports", () => {
  it("are valid reports: the published schema accepts them and trials have every contract field", () => {
    const base = loadFixture("base");
    const head = loadFixture("head");
    expect(reportSchemaErrors(base)).toEqual([]);
    expect(reportSchemaErrors(head)).toEqual([]);
    const fields = Object.keys(makeTrial({ trial: 1, outcome: "pass" })).sort();
    for (const report of [base, head]) {
      for (const s of report.scenarios)
        for (const t of s.trials) expect(Object.keys(t).sort()).toEqual(fields);
    }
  });
});

describe("compareReports on two saved reports", () => {
  const comparison = compareReports(loadFixture("base"), loadFixture("head"));

  it("matches scenarios by id and variant, and reports added, removed, renamed and changed ones", () => {
    expect(comparison.scenarios.map((s) => s.key).sort()).toEqual(
      [
        "create-note",
        "delete-note",
        "link-notes",
        "list-notes",
        "search@agents-v1",
        "search@agents-v2",
        "single-shot",
        "tag-notes-bulk",
      ].sort(),
    );
    expect(comparison.added.map((s) => s.key)).toEqual(["import"]);
    expect(comparison.removed.map((s) => s.key)).toEqual(["export"]);
    expect(comparison.renamed).toEqual([
      { from: "tag-notes", to: "tag-notes-bulk", content_hash: "sha256:tag" },
    ]);
    const renamed = comparison.scenarios.find((s) => s.key === "tag-notes-bulk")!;
    expect(renamed.renamed_from).toBe("tag-notes");
    expect(renamed.content_changed).toBe(false);
    expect(comparison.scenarios.filter((s) => s.content_changed).map((s) => s.key)).toEqual(["list-notes"]);
    expect(comparison.counts).toMatchObject({
      matched: 8,
      added: 1,
      removed: 1,
      renamed: 1,
      content_changed: 1,
    });
  });

  it("warns about the different model and price table, not about what is the same", () => {
    const codes = comparison.warnings.map((w) => w.code).sort();
    expect(codes).toEqual(["content_changed", "model_differs", "price_table_differs"]);
    const model = comparison.warnings.find((w) => w.code === "model_differs")!;
    expect(model.message).toContain("claude-sonnet-4-5");
    expect(model.message).toContain("claude-opus-4-1");
    expect(comparison.warnings.find((w) => w.code === "content_changed")!.message).toContain("list-notes");
  });

  it("flags the real regression with Fisher's exact p and labels the one-trial flip as too few samples", () => {
    const pass = metricOf(comparison, "create-note", "pass_rate");
    // 10/10 against 0/10: only the two extreme tables of C(20, 10) are as unlikely: p = 2/184756.
    expect(pass.test).toBe("fisher_exact");
    expect(pass.p_value).toBeCloseTo(2 / Math.exp(logChoose(20, 10)), 12);
    expect(pass.delta).toBe(-1);
    expect(pass.verdict).toBe("regressed");
    expect(pass.ci_high!).toBeLessThan(0);
    const commands = metricOf(comparison, "create-note", "total_commands");
    expect(commands.test).toBe("permutation");
    expect(commands.verdict).toBe("regressed");
    expect(commands.delta).toBeCloseTo(10.5 - 4.8, 12);

    const single = comparison.scenarios.find((s) => s.key === "single-shot")!;
    expect(single.status).toBe("newly_failing");
    expect(single.metrics.every((m) => m.verdict === "too_few_samples")).toBe(true);
    expect(single.metrics.every((m) => m.p_adjusted === null)).toBe(true);
    expect(comparison.scenarios.find((s) => s.key === "create-note")!.status).toBe("newly_failing");
    expect(comparison.counts.newly_failing).toBe(2);
  });

  it("does not call 3/5 → 5/5 an improvement: too little evidence", () => {
    const link = comparison.scenarios.find((s) => s.key === "link-notes")!;
    expect(link.status).toBe("stabilized_pass");
    expect(metricOf(comparison, "link-notes", "pass_rate").verdict).toBe("inconclusive");
    expect(link.improved).toEqual([]);
  });

  it("excludes errored trials from rates and metrics, and counts them", () => {
    const del = comparison.scenarios.find((s) => s.key === "delete-note")!;
    expect(del.base).toMatchObject({ trials: 5, passed: 4, failed: 0, errors: 1, pass_rate: 1 });
    expect(metricOf(comparison, "delete-note", "pass_rate").base_n).toBe(4);
    expect(metricOf(comparison, "delete-note", "total_commands").base_n).toBe(4);
  });

  it("corrects over the whole family of tests that have enough samples", () => {
    const family = comparison.scenarios.flatMap((s) => s.metrics).filter((m) => m.p_adjusted !== null);
    expect(comparison.settings.family_size).toBe(family.length);
    // single-shot's 13 metrics sit out; the other 7 scenarios × 13 metrics are the family.
    expect(family.length).toBe(7 * DEFAULT_COMPARE_METRICS.length);
    const expected = adjustPValues(
      family.map((m) => m.p_value!),
      "holm",
    );
    for (const [i, m] of family.entries()) expect(m.p_adjusted).toBeCloseTo(expected[i]!, 12);
    for (const m of family) expect(m.p_adjusted!).toBeGreaterThanOrEqual(m.p_value!);
  });

  it("is reproducible: the same seed gives the same comparison", () => {
    const again = compareReports(loadFixture("base"), loadFixture("head"));
    expect(again).toEqual(comparison);
  });

  it("gives the per-metric direction: fewer commands is better, more first-try success is better", () => {
    expect(metricOf(comparison, "create-note", "total_commands").direction).toBe("lower_is_better");
    expect(metricOf(comparison, "create-note", "first_try_success_rate").direction).toBe("higher_is_better");
    expect(metricOf(comparison, "create-note", "cost_usd").direction).toBe("lower_is_better");
  });

  it("compares the suite with the scenario as the unit", () => {
    const suitePass = comparison.suite.metrics.find((m) => m.metric === "pass_rate")!;
    expect(suitePass.scenarios).toBe(8);
    expect(suitePass.test).toBe("sign_flip");
    // Mean over scenarios of per-scenario pass rates: base all 1 except link-notes 3/5.
    expect(suitePass.base_mean).toBeCloseTo((7 + 0.6) / 8, 12);
    expect(suitePass.head_mean).toBeCloseTo(6 / 8, 12);
    expect(suitePass.ci_low!).toBeLessThanOrEqual(suitePass.delta!);
    expect(suitePass.ci_high!).toBeGreaterThanOrEqual(suitePass.delta!);
    // Three scenarios changed (two down by 1, one up by 0.4): 4 of the 8 sign patterns
    // give |sum| ≥ 1.6.
    expect(suitePass.p_value).toBeCloseTo(4 / 8, 12);
  });
});

describe("verdicts", () => {
  const base = {
    baseN: 5,
    headN: 5,
    minTrials: 2,
    alpha: 0.05,
    tolerance: 0.1,
    direction: "higher_is_better" as const,
  };

  it("follows the documented rule", () => {
    expect(
      decideVerdict({ ...base, pAdjusted: 0.01, delta: -0.5, interval: { low: -0.8, high: -0.2 } }),
    ).toBe("regressed");
    expect(decideVerdict({ ...base, pAdjusted: 0.01, delta: 0.5, interval: { low: 0.2, high: 0.8 } })).toBe(
      "improved",
    );
    expect(
      decideVerdict({
        ...base,
        direction: "lower_is_better",
        pAdjusted: 0.01,
        delta: 0.5,
        interval: { low: 0.2, high: 0.8 },
      }),
    ).toBe("regressed");
    expect(
      decideVerdict({ ...base, pAdjusted: 0.6, delta: 0.01, interval: { low: -0.05, high: 0.07 } }),
    ).toBe("unchanged");
    expect(decideVerdict({ ...base, pAdjusted: 0.6, delta: 0.01, interval: { low: -0.3, high: 0.3 } })).toBe(
      "inconclusive",
    );
    expect(decideVerdict({ ...base, pAdjusted: 0.6, delta: 0.01, interval: null })).toBe("inconclusive");
  });

  it("never judges one trial against one trial, even when asked to accept single trials", () => {
    const one = {
      ...base,
      baseN: 1,
      headN: 1,
      pAdjusted: 0.001,
      delta: -1,
      interval: { low: -1, high: -0.9 },
    };
    expect(decideVerdict({ ...one, minTrials: 1 })).toBe("too_few_samples");
    expect(decideVerdict({ ...one, minTrials: 2, headN: 5 })).toBe("too_few_samples");
  });

  it("calls a metric unchanged only when enough trials pin it within the tolerance", () => {
    const many = (n: number) =>
      makeReport([
        makeScenarioReport({
          id: "s",
          trials: trialsFrom(
            repeat(n, { outcome: "pass", total_commands: 4, help_invocations: 0, cost_usd: 0.05 }),
          ),
        }),
      ]);
    const metrics = ["total_commands", "help_invocations", "error_rate"];
    const few = compareReports(many(5), many(5), { metrics });
    // 5/5 vs 5/5 cannot rule out a 10-point drop: the Newcombe interval is ±43 points.
    expect(metricOf(few, "s", "pass_rate").verdict).toBe("inconclusive");
    // Five identical zeros a side do not prove the help rate is zero: Poisson bound 3.84/5 a side.
    const help = metricOf(few, "s", "help_invocations");
    expect(help.ci_high).toBeCloseTo(3.8415 / 5, 3);
    expect(help.verdict).toBe("inconclusive");
    expect(metricOf(few, "s", "error_rate").verdict).toBe("inconclusive");
    const lots = compareReports(many(200), many(200), { metrics });
    expect(metricOf(lots, "s", "pass_rate").ci_high!).toBeLessThan(0.1);
    for (const m of ["pass_rate", ...metrics]) expect(metricOf(lots, "s", m).verdict).toBe("unchanged");
    // Values that vary get Welch's t interval, and with little spread a few trials suffice.
    const varied = (n: number) =>
      makeReport([
        makeScenarioReport({
          id: "s",
          trials: trialsFrom(Array.from({ length: n }, (_, i) => ({ total_commands: 4 + (i % 2) }))),
        }),
      ]);
    expect(metricOf(compareReports(varied(10), varied(10), { metrics }), "s", "total_commands").verdict).toBe(
      "unchanged",
    );
    // A wider tolerance may be set per metric.
    const loose = compareReports(many(5), many(5), { metrics, tolerances: { pass_rate: 0.5 } });
    expect(metricOf(loose, "s", "pass_rate").verdict).toBe("unchanged");
  });

  it("uses Benjamini–Hochberg when asked, which is never stricter than Holm", () => {
    const base = loadFixture("base");
    const head = loadFixture("head");
    const holm = compareReports(base, head);
    const bh = compareReports(base, head, { correction: "bh" });
    expect(bh.settings.correction).toBe("bh");
    const pairs = holm.scenarios.flatMap((s, i) =>
      s.metrics.map((m, j) => [m, bh.scenarios[i]!.metrics[j]!]),
    );
    for (const [h, b] of pairs)
      if (h!.p_adjusted !== null) expect(b!.p_adjusted!).toBeLessThanOrEqual(h!.p_adjusted);
    expect(bh.counts.verdicts.regressed).toBeGreaterThanOrEqual(holm.counts.verdicts.regressed);
  });
});

describe("matching edge cases", () => {
  it("does not guess a rename when the content hash is ambiguous", () => {
    const base = makeReport([
      makeScenarioReport({ id: "a", trials: trialsFrom(repeat(2, {})), content_hash: "h" }),
      makeScenarioReport({ id: "b", trials: trialsFrom(repeat(2, {})), content_hash: "h" }),
    ]);
    const head = makeReport([
      makeScenarioReport({ id: "c", trials: trialsFrom(repeat(2, {})), content_hash: "h" }),
    ]);
    const c = compareReports(base, head);
    expect(c.renamed).toEqual([]);
    expect(c.added.map((s) => s.key)).toEqual(["c"]);
    expect(c.removed.map((s) => s.key).sort()).toEqual(["a", "b"]);
    expect(c.warnings.map((w) => w.code)).toContain("no_matched_scenarios");
  });

  it("keys variants apart and pairs each with its own baseline", () => {
    const report = makeReport([
      makeScenarioReport({ id: "s", trials: trialsFrom(repeat(3, { total_commands: 2 })), variant: "v1" }),
      makeScenarioReport({ id: "s", trials: trialsFrom(repeat(3, { total_commands: 9 })), variant: "v2" }),
    ]);
    const c = compareReports(report, report);
    expect(c.scenarios.map((s) => s.key)).toEqual(["s@v1", "s@v2"]);
    expect(metricOf(c, "s@v2", "total_commands").base_mean).toBe(9);
    expect(scenarioKey({ id: "x", variant: null })).toBe("x");
  });

  it("uses McNemar's exact test at suite level when every scenario ran one trial a side", () => {
    const ids = Array.from({ length: 8 }, (_, i) => `s${i}`);
    const base = makeReport(
      ids.map((id) => makeScenarioReport({ id, trials: trialsFrom([{ outcome: "pass" }]) })),
    );
    const head = makeReport(
      ids.map((id, i) =>
        makeScenarioReport({ id, trials: trialsFrom([{ outcome: i < 7 ? "fail" : "pass" }]) }),
      ),
    );
    // pass_rate alone, so the suite-level family is this one test.
    const suitePass = compareReports(base, head, { metrics: [] }).suite.metrics.find(
      (m) => m.metric === "pass_rate",
    )!;
    expect(suitePass.test).toBe("mcnemar_exact");
    // 7 discordant pairs, all one way: 2 × (1/2)^7.
    expect(suitePass.p_value).toBeCloseTo(2 / 128, 12);
    expect(suitePass.verdict).toBe("regressed");
  });

  it("averages the suite over each scenario's first trials: extra trials would bias it towards the head", () => {
    // The screen extended the two scenarios that started badly (1 of 3); their extra trials did
    // better, as extra trials after a bad start tend to: counting them would lift the head's mean.
    const ids = Array.from({ length: 6 }, (_, i) => `s${i}`);
    const base = makeReport(ids.map((id) => makeScenarioReport({ id, trials: trialsFrom(repeat(10, {})) })));
    const head = makeReport(
      ids.map((id, i) => {
        const first: TrialSpec[] =
          i < 2 ? [{ outcome: "pass" }, { outcome: "fail" }, { outcome: "fail" }] : repeat(3, {});
        const extra: TrialSpec[] = i < 2 ? repeat(8, {}) : [];
        return makeScenarioReport({
          id,
          first_trials: 3,
          extended: i < 2,
          trials: trialsFrom([...first, ...extra]),
        });
      }),
    );
    const c = compareReports(base, head, { metrics: [] });
    const suitePass = c.suite.metrics.find((m) => m.metric === "pass_rate")!;
    expect(c.suite.first_trials_only).toBe(true);
    // First trials: (1/3 + 1/3 + 4) / 6, not (9/11 + 9/11 + 4) / 6.
    expect(suitePass.head_mean).toBeCloseTo((2 / 3 + 4) / 6, 12);
    expect(suitePass.base_mean).toBe(1);
    // Per scenario, all trials still count.
    expect(metricOf(c, "s0", "pass_rate").head_n).toBe(11);
    // Without extra trials nothing is left out.
    expect(compareReports(base, base, { metrics: [] }).suite.first_trials_only).toBe(false);
  });

  it("gives no suite verdict with fewer than the minimum number of scenarios", () => {
    const ids = Array.from({ length: MIN_SUITE_SCENARIOS - 1 }, (_, i) => `s${i}`);
    const r = makeReport(ids.map((id) => makeScenarioReport({ id, trials: trialsFrom(repeat(3, {})) })));
    const suite = compareReports(r, r).suite;
    expect(suite.metrics.every((m) => m.verdict === "too_few_samples")).toBe(true);
    expect(suite.metrics.every((m) => m.ci_low === null && m.p_value === null)).toBe(true);
  });
});

describe("bad input", () => {
  const good = makeReport([makeScenarioReport({ id: "s", trials: trialsFrom(repeat(2, {})) })]);

  it("names the report and field instead of crashing", () => {
    expect(() => compareReports({} as Report, good)).toThrow(ConfigError);
    expect(() => compareReports({} as Report, good)).toThrow(/base report: schema_version/);
    const broken = { ...good, scenarios: [{ id: "s", trials: [{ outcome: "maybe" }] }] } as unknown as Report;
    expect(() => compareReports(good, broken, { sources: { head: "head.json" } })).toThrow(
      /head\.json: scenarios\[0\]\.trials\[0\]\.outcome/,
    );
    expect(() => compareReports({ ...good, schema_version: 99 }, good)).toThrow(/newer/);
  });

  it("rejects duplicate scenario keys, unknown metrics and meaningless options", () => {
    const doubled = makeReport([
      makeScenarioReport({ id: "s", trials: trialsFrom(repeat(2, {})) }),
      makeScenarioReport({ id: "s", trials: trialsFrom(repeat(2, {})) }),
    ]);
    expect(() => compareReports(doubled, good)).toThrow(/"s" appears twice/);
    expect(() => compareReports(good, good, { metrics: ["vibes"] })).toThrow(/unknown metric "vibes"/);
    expect(() => compareReports(good, good, { alpha: 1.5 })).toThrow(ConfigError);
    expect(() => compareReports(good, good, { minTrials: 0 })).toThrow(/minTrials/);
    expect(() => compareReports(good, good, { tolerances: { total_commands: -1 } })).toThrow(
      /tolerances\.total_commands/,
    );
    expect(() => compareReports(good, good, { correction: "bonferroni" as "holm" })).toThrow(/correction/);
  });

  it("always tests pass_rate, first, plus the metrics asked for", () => {
    const c = compareReports(good, good, { metrics: ["cost_usd"] });
    expect(c.settings.metrics).toEqual(["pass_rate", "cost_usd"]);
    expect(c.scenarios[0]!.metrics.map((m) => m.metric)).toEqual(["pass_rate", "cost_usd"]);
  });
});
