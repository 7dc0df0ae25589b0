import { describe, expect, it } from "vitest";
import { checkGateMetrics, type Decision, decide, parseFailOn } from "../../src/compare/decision.js";
import { describePooling, poolBaselines } from "../../src/compare/pool-baselines.js";
import { ConfigError } from "../../src/errors.js";
import { renderDecisionHeadline, renderDesignLine } from "../../src/render/decision.js";
import type { Report, ScenarioReport } from "../../src/results/types.js";
import { broadDropPower, runDecisionSimulation } from "../../src/stats/decision-simulation.js";
import { CONCLUSIVE_POWER, inconclusiveGrounds } from "../../src/stats/detection-power.js";
import {
  DEFAULT_SUITE_ALPHA,
  decideRegression,
  screenForExtraTrials,
} from "../../src/stats/regression-decision.js";
import { assumeRunVariation, type RunCount } from "../../src/stats/run-clusters.js";
import { pooledBaseline } from "../render/decision-fixtures.js";
import { powerOf } from "../support/design-power.js";
import {
  makeReport,
  makeScenarioReport,
  suiteWithFailures,
  type TrialSpec,
  trialsFrom,
} from "../support/report-factory.js";

/** A scenario with `passed` passes of `trials`, the passes first. */
function scenario(id: string, passed: number, trials: number, extra: Partial<ScenarioReport> = {}) {
  const specs: TrialSpec[] = Array.from({ length: trials }, (_, i) => ({
    outcome: i < passed ? "pass" : "fail",
  }));
  return makeScenarioReport({ id, trials: trialsFrom(specs), ...extra });
}

function suite(
  counts: Array<[passed: number, trials: number]>,
  extra: Partial<ScenarioReport>[] = [],
): Report {
  return makeReport(counts.map(([p, n], i) => scenario(`s${i}`, p, n, extra[i] ?? {})));
}

const tenOf = (passed: number, trials: number): Array<[number, number]> =>
  Array.from({ length: 10 }, () => [passed, trials]);

describe("parseFailOn", () => {
  it("reads the four forms", () => {
    expect(parseFailOn("regression", "fail-on")).toEqual({ kind: "regression" });
    expect(parseFailOn(" Outcome ", "fail-on")).toEqual({ kind: "outcome" });
    expect(parseFailOn("never", "fail-on")).toEqual({ kind: "never" });
    expect(parseFailOn("pass-rate<0.8", "fail-on")).toEqual({ kind: "pass_rate_below", threshold: 0.8 });
    expect(parseFailOn("pass_rate < .75", "fail-on")).toEqual({ kind: "pass_rate_below", threshold: 0.75 });
  });

  it("refuses anything else, naming the input", () => {
    for (const bad of ["regresion", "pass-rate<0", "pass-rate<1.5", "pass-rate>0.8", ""]) {
      expect(() => parseFailOn(bad, "fail-on")).toThrow(ConfigError);
    }
    expect(() => parseFailOn("always", "--fail-on")).toThrow(/^--fail-on: must be regression/);
  });
});

describe("checkGateMetrics", () => {
  it("accepts layer-1 metrics, once each", () => {
    expect(checkGateMetrics(["error_rate", " help_invocations", "error_rate"], "gate-metrics")).toEqual([
      "error_rate",
      "help_invocations",
    ]);
  });

  it("refuses pass_rate, descriptive figures and unknown names", () => {
    expect(() => checkGateMetrics(["pass_rate"], "gate-metrics")).toThrow(/always decided/);
    for (const name of ["cost_usd", "input_tokens", "duration_ms", "turns"]) {
      expect(() => checkGateMetrics([name], "gate-metrics")).toThrow(/is descriptive/);
    }
    expect(() => checkGateMetrics(["eror_rate"], "gate-metrics")).toThrow(/unknown metric "eror_rate"/);
  });
});

describe("decide: a base branch that drifts", () => {
  // 20 scenarios × 3 trials; the base branch loses 2 passes more each week: 3 failures in its oldest
  // run, 17 in its newest, and the head, one week on, 19 — the drift continued, nothing this PR did.
  const failuresInRun = (r: number) => 3 + 2 * r;
  // As the action lists them: the base commit's run (the newest) first, then newest first.
  const candidates = Array.from({ length: 8 }, (_, i) => {
    const r = 7 - i;
    return {
      label: `run #${40 + r}`,
      report: suiteWithFailures(failuresInRun(r), {
        started_at: `2026-03-${String(1 + 7 * r).padStart(2, "0")}T09:00:00Z`,
      }),
    };
  });

  it("reads the pooled runs in the order they ran, so the drift is the trend's, not this PR's regression", () => {
    const head = suiteWithFailures(19, { id: "head", started_at: "2026-05-01T09:00:00Z" });
    const pooled = poolBaselines(candidates, head);
    const decision = decide({ head, baseline: pooled.report!, pooling: describePooling(pooled) });
    expect(decision.variation).toMatchObject({ runs: 8, suite_method: "trend" });
    expect(decision.variation!.trend).toBeLessThan(0);
    expect(decision.failed).toBe(false);
    expect(renderDesignLine(decision)).toMatch(
      /the base runs' suite pass rate drifts −\d+(\.\d+)? pts a run, which the suite test and each scenario's test allow for/,
    );
  });

  it("says on the ✅ what the drift branch could see of a broad drop, not what a flat base could", () => {
    // The suite test compared the head with the trend's prediction: a broad drop's power there is the
    // drift branch's, lower than the design's over flat bases (where half the draws take it). A milder
    // drift than above over 12 runs (2 failures in the oldest, 7 in the newest), the head at 7.
    const slow = Array.from({ length: 12 }, (_, r) => ({
      label: `run #${60 + r}`,
      report: suiteWithFailures(2 + Math.floor(r / 2), {
        started_at: `2026-01-${String(1 + 2 * r).padStart(2, "0")}T09:00:00Z`,
      }),
    })).reverse();
    const head = suiteWithFailures(7, { id: "head", started_at: "2026-05-01T09:00:00Z" });
    const pooled = poolBaselines(slow, head);
    const decision = decide({
      head,
      baseline: pooled.report!,
      pooling: describePooling(pooled),
      extraTrials: 8,
    });
    expect(decision.inconclusive).toBeNull();
    expect(decision.basis).toBe("no_regression");
    const power = decision.design!.power!;
    expect(power.broad_drop_in_drift_branch).toBe(true);
    const flat = broadDropPower({
      scenarios: 20,
      runTrials: Array.from({ length: 12 }, () => 3),
      headTrials: 3,
      extraTrials: decision.design!.extra_trials,
      icc: decision.variation!.icc_used,
      suiteAlpha: DEFAULT_SUITE_ALPHA,
    });
    expect(power.broad_drop).toBeLessThan(flat);
    expect(renderDecisionHeadline(decision)).toBe(
      `✅ No regression detected — could see a 90% → 10% collapse in one scenario (~${Math.floor(power.collapse * 100)}%), ` +
        `not a 10-point drop across the suite (~${Math.floor(power.broad_drop! * 100)}% with the base runs trending down, as here)`,
    );
  });

  it("decides from reports as the simulation decides from counts, for runs that came newest first", () => {
    // The bench's figures hold for the product only if its path (reports → pool → decide) hands the
    // tests what the simulation hands them. Seeded draws with a drift, an adaptive head, 8 base runs.
    let state = 11;
    const random = () => {
      state = (state * 1103515245 + 12345) % 2 ** 31;
      return state / 2 ** 31;
    };
    const passes = (n: number, rate: number) => Array.from({ length: n }, () => random() < rate);
    const trialsOf = (outcomes: boolean[]) =>
      trialsFrom(outcomes.map((ok) => ({ outcome: ok ? "pass" : "fail" })));
    const count = (outcomes: boolean[]) => outcomes.filter(Boolean).length;
    for (let pr = 0; pr < 12; pr++) {
      const rates = Array.from({ length: 20 }, () => 0.6 + 0.35 * random());
      const runs = Array.from({ length: 8 }, (_, r) => rates.map((p) => passes(3, p + 0.01 * (7 - r))));
      const first = rates.map((p) => passes(3, p - 0.05));
      const extras = rates.map((p) => passes(8, p - 0.05));
      const runCounts: RunCount[][] = rates.map((_, s) =>
        runs.map((run) => ({ passed: count(run[s]!), trials: 3 })),
      );
      const firstCounts = rates.map((_, s) => ({
        basePassed: runCounts[s]!.reduce((sum, c) => sum + c.passed, 0),
        baseTrials: 24,
        headPassed: count(first[s]!),
        headTrials: 3,
      }));
      const screened = screenForExtraTrials(firstCounts);
      const direct = decideRegression(
        firstCounts.map((c, s) => ({
          ...c,
          headPassed: c.headPassed + (screened[s] ? count(extras[s]!) : 0),
          headTrials: 3 + (screened[s] ? 8 : 0),
          initialHeadPassed: c.headPassed,
          initialHeadTrials: 3,
          baseRuns: runCounts[s]!,
          extended: screened[s]!,
        })),
        { icc: assumeRunVariation(runCounts).iccUsed },
      );

      const head = makeReport(
        rates.map((_, s) =>
          makeScenarioReport({
            id: `s${s}`,
            trials: trialsOf([...first[s]!, ...(screened[s] ? extras[s]! : [])]),
            first_trials: 3,
            extended: screened[s]!,
          }),
        ),
        { id: "head", evaluation_hash: "e1" },
      );
      const candidates = runs
        .map((run, r) => ({
          label: `run #${r}`,
          report: makeReport(
            run.map((outcomes, s) => makeScenarioReport({ id: `s${s}`, trials: trialsOf(outcomes) })),
            { evaluation_hash: "e1", started_at: new Date(Date.UTC(2026, 2, 1 + 7 * r)).toISOString() },
          ),
        }))
        .reverse();
      const pooled = poolBaselines(candidates, head);
      const decision = decide({
        head,
        baseline: pooled.report!,
        pooling: describePooling(pooled),
        extraTrials: 8,
      });

      expect(decision.variation!.suite_method).toBe(direct.suite.method);
      expect(decision.suite?.p_value).toBeCloseTo(direct.suite.pValue, 12);
      expect(decision.scenarios.map((s) => s.p_value)).toEqual(direct.scenarios.map((s) => s.pValue));
      expect(decision.failed).toBe(direct.failed);
    }
  });
});

describe("decide: fail-on regression", () => {
  it("passes an unchanged suite against eight pooled base runs", () => {
    const eight = pooledBaseline(10, 8);
    const decision = decide({
      head: suite(tenOf(3, 3)),
      baseline: eight.report,
      pooling: eight.pooling,
      extraTrials: 8,
    });
    expect(decision).toMatchObject({
      failed: false,
      basis: "no_regression",
      regressed: [],
      inconclusive: null,
    });
    expect(decision.variation).toMatchObject({ runs: 8, icc: 0, icc_used: 0 });
    expect(decision.design?.power?.collapse).toBeGreaterThanOrEqual(0.8);
    expect(decision.scenarios.every((s) => s.status === "still_passing")).toBe(true);
  });

  it("calls an unchanged suite against one base run inconclusive, never a pass, and says what would conclude it", () => {
    const decision = decide({ head: suite(tenOf(3, 3)), baseline: suite(tenOf(3, 3)), extraTrials: 8 });
    expect(decision).toMatchObject({ failed: false, basis: "inconclusive", regressed: [] });
    expect(decision.variation).toMatchObject({ runs: 1, icc: null, icc_used: 0.1, suite_method: "prior" });
    expect(decision.inconclusive?.reasons[0]).toBe(
      "only 1 base-branch run: run-to-run variation cannot be estimated (3 needed)",
    );
    expect(decision.inconclusive?.needs[0]).toMatch(
      /^\d+ more base-branch runs \(it pools the last `baseline-runs`, if they vary no more than independent trials\)$/,
    );
  });

  it("asks for more trials, not more base runs, where 8 runs fall short", () => {
    // Eight runs with some day-to-day variation (ICC about 0.12): the per-scenario tests pool no more
    // than the newest 8, so more runs would not raise the collapse's power.
    const table = [
      [3, 3, 3, 3, 3, 3, 2, 3],
      [3, 3, 3, 3, 3, 3, 3, 3],
      [3, 3, 3, 3, 2, 3, 3, 3],
      [3, 3, 3, 3, 3, 2, 3, 3],
      [1, 2, 3, 3, 3, 3, 3, 3],
      [3, 2, 2, 2, 3, 3, 3, 3],
      [3, 2, 3, 1, 3, 3, 3, 3],
      [3, 3, 3, 3, 3, 3, 3, 3],
      [3, 3, 3, 3, 3, 3, 3, 3],
      [3, 3, 3, 3, 3, 3, 3, 3],
    ];
    const varying = pooledBaseline(10, 8, 3, (s, run) => table[s]![run]!);
    const decision = decide({
      head: suite(tenOf(3, 3)),
      baseline: varying.report,
      pooling: varying.pooling,
      extraTrials: 8,
    });
    expect(decision.basis).toBe("inconclusive");
    expect(decision.variation).toMatchObject({ runs: 8 });
    expect(decision.design?.power?.collapse).toBeLessThan(CONCLUSIVE_POWER);
    expect(decision.inconclusive?.needs).toEqual([
      "1 more trials per scenario (`trials: 4`), on the base branch too",
    ]);
  });

  it("is inconclusive when the base runs vary so much that the design cannot see a collapse", () => {
    // Eight runs that swing between 0/3 and 3/3 in every scenario: a large ICC.
    const swinging = pooledBaseline(10, 8, 3, (_, run) => (run % 2 === 0 ? 3 : 0));
    const decision = decide({
      head: suite(tenOf(2, 3)),
      baseline: swinging.report,
      pooling: swinging.pooling,
    });
    expect(decision.basis).toBe("inconclusive");
    expect(decision.variation!.icc).toBeGreaterThan(0.5);
    expect(decision.inconclusive?.reasons.join(" ")).toMatch(
      /would catch one scenario collapsing 0.9 → 0.1 only \d+% of the time/,
    );
  });

  it("flags a collapsed scenario, with an adjusted p on alpha's scale", () => {
    const head = tenOf(3, 3);
    head[4] = [0, 9];
    const decision = decide({ head: suite(head), baseline: suite(tenOf(12, 12)) });
    expect(decision.failed).toBe(true);
    expect(decision.regressed).toEqual(["s4"]);
    const s4 = decision.scenarios[4]!;
    expect(s4).toMatchObject({ status: "newly_failing", regressed: true, tested: true });
    expect(s4.adjusted_p).toBeLessThanOrEqual(decision.alpha);
    for (const s of decision.scenarios) expect(s.regressed).toBe((s.adjusted_p ?? 1) <= decision.alpha);
  });

  it("labels a scenario newly failing without failing the check when the data cannot tell", () => {
    // 3/3 → 0/3 in one of ten: Boschloo's one-sided p is far above Holm's first step.
    const head = tenOf(3, 3);
    head[2] = [0, 3];
    const decision = decide({ head: suite(head), baseline: suite(tenOf(3, 3)) });
    expect(decision.scenarios[2]!.status).toBe("newly_failing");
    expect(decision.scenarios[2]!.regressed).toBe(false);
    expect(decision.failed).toBe(false);
  });

  it("catches a broad small drop through the suite test when no scenario alone shows it", () => {
    const decision = decide({
      // 30 scenarios, 92% → 83%: every scenario at 2/3 or 3/3, none significant alone.
      head: suite(Array.from({ length: 30 }, (_, i) => (i % 2 === 0 ? [2, 3] : [3, 3]))),
      baseline: suite(Array.from({ length: 30 }, () => [11, 12])),
      icc: 0,
    });
    expect(decision.regressed).toEqual([]);
    expect(decision.suite_regressed).toBe(true);
    expect(decision.failed).toBe(true);
    expect(decision.suite?.adjusted_p).toBeLessThanOrEqual(decision.alpha);
  });

  it("with one trial per scenario, lets only the suite test decide", () => {
    const decision = decide({ head: suite(tenOf(1, 1)), baseline: suite(tenOf(4, 4)) });
    expect(decision.suite_only).toBe(true);
    expect(decision.primary_alpha).toBe(0);
    expect(decision.scenarios.every((s) => !s.tested)).toBe(true);
    expect(decision.design?.power).toBeNull();
  });

  it("tests only extended scenarios of an adaptive run, and uses every trial of those", () => {
    const head = suite(
      [
        [0, 9],
        [3, 3],
      ],
      [
        { first_trials: 3, extended: true },
        { first_trials: 3, extended: false },
      ],
    );
    const decision = decide({
      head,
      baseline: suite([
        [12, 12],
        [12, 12],
      ]),
      extraTrials: 6,
    });
    expect(decision.scenarios.map((s) => [s.tested, s.extended, s.head.trials, s.head_first.trials])).toEqual(
      [
        [true, true, 9, 3],
        [false, false, 3, 3],
      ],
    );
    expect(decision.regressed).toEqual(["s0"]);
    expect(decision.design).toMatchObject({ head_trials: 3, extra_trials: 6, head_trials_spent: 12 });
    // One base run: the suite test assumes the design's largest day effect, and takes no extras there.
    expect(decision.suite?.extras_stage).toBeNull();
  });

  it("uses the extended scenarios' extra trials as the suite test's second stage against eight base runs", () => {
    const eight = pooledBaseline(10, 8, 3, (s, r) => ((r + s) % 4 === 0 ? 2 : 3));
    // Three scenarios extended; their trials pass first, so the extras hold the failures (2 of 8).
    const counts = tenOf(3, 3).map((c, i): [number, number] => (i < 3 ? [5, 11] : c));
    const extra = counts.map(([, n]) => ({ first_trials: 3, extended: n > 3 }));
    const decision = decide({ head: suite(counts, extra), baseline: eight.report, pooling: eight.pooling });
    expect(decision.suite?.extras_stage).toMatchObject({ scenarios: 3 });
    expect(decision.suite!.p_value).toBeLessThan(decision.suite!.extras_stage!.first_stage_p);
  });

  it("gives the suite test half of any alpha, as at the default 0.025 of 0.05", () => {
    const head = tenOf(3, 3);
    head[4] = [0, 3];
    for (const alpha of [0.1, 0.025, 0.01]) {
      const decision = decide({ head: suite(head), baseline: suite(tenOf(12, 12)), alpha });
      expect(decision.primary_alpha).toBeCloseTo(alpha / 2, 15);
      expect(decision.suite_alpha).toBeCloseTo(alpha / 2, 15);
    }
    expect(
      decide({ head: suite(head), baseline: suite(tenOf(12, 12)), alpha: 0.1, suiteAlpha: 0.02 }),
    ).toMatchObject({
      suite_alpha: 0.02,
    });
  });

  it("tests on what ran a scenario the screen would have extended but did not see (a run without a baseline)", () => {
    // `run` without a baseline records first_trials and extended: false on every scenario; compared
    // later, a collapse among them is the fixed design's to test, not "screened out".
    const head = suite(
      [...tenOf(3, 3).slice(1), [0, 3]],
      Array.from({ length: 10 }, () => ({ first_trials: 3, extended: false })),
    );
    const decision = decide({ head, baseline: suite(tenOf(12, 12)), icc: 0 });
    expect(decision.scenarios[9]).toMatchObject({ tested: true, extended: false, regressed: true });
    expect(decision.scenarios.slice(0, 9).every((s) => !s.tested)).toBe(true);
    expect(decision.regressed).toEqual(["s9"]);
    // No extra trials ran: the suite test is the first trials' alone.
    expect(decision.suite?.extras_stage).toBeNull();
  });

  it("gates on a named metric, one-sided in its bad direction, and splits alpha with it", () => {
    const errorsIn = (rate: number, n: number) =>
      makeScenarioReport({
        id: "s0",
        trials: trialsFrom(Array.from({ length: n }, () => ({ total_commands: 10, error_count: rate * 10 }))),
      });
    const baseline = makeReport([errorsIn(0, 12), scenario("s1", 12, 12)]);
    const worse = makeReport([errorsIn(0.8, 9), scenario("s1", 3, 3)]);
    const decision = decide({ head: worse, baseline, gateMetrics: ["error_rate"] });
    expect(decision.regressed).toEqual([]);
    expect(decision.regressed_metrics).toEqual([{ metric: "error_rate", scenarios: ["s0"] }]);
    expect(decision.scenarios[0]!.regressed_metrics).toEqual(["error_rate"]);
    expect(decision.failed).toBe(true);
    expect(decision.secondary[0]!.alpha).toBe(0.025);
    // Fewer errors is not a regression.
    const better = decide({ head: baseline, baseline: worse, gateMetrics: ["error_rate"] });
    expect(better.regressed_metrics).toEqual([]);
  });
});

describe("decide: tolerance gates on tokens, cost and turns", () => {
  /** Every trial passes; input tokens vary ±5% around `mean`, as real runs' do. */
  const tokensAround = (id: string, mean: number, n: number, gates?: Record<string, number>) =>
    makeScenarioReport({
      id,
      ...(gates ? { tolerance_gates: gates } : {}),
      trials: trialsFrom(
        Array.from({ length: n }, (_, i) => ({ input_tokens: mean * (1 + ((i % 3) - 1) * 0.05) })),
      ),
    });
  const baseline = makeReport([tokensAround("s0", 10_000, 24), tokensAround("s1", 10_000, 24)]);

  it("fails a scenario whose tokens clearly exceed +20%, passes one within it, and splits alpha with it", () => {
    const head = makeReport([tokensAround("s0", 20_000, 3), tokensAround("s1", 11_000, 3)]);
    const decision = decide({ head, baseline, toleranceGates: { input_tokens: 0.2 } });
    expect(decision.regressed).toEqual([]);
    expect(decision.regressed_metrics).toEqual([{ metric: "input_tokens", scenarios: ["s0"] }]);
    expect(decision.failed).toBe(true);
    expect(decision.scenarios.map((s) => s.verdict)).toEqual(["regressed", "no_clear_change"]);
    const family = decision.secondary[0]!;
    expect(family).toMatchObject({ metric: "input_tokens", tolerance_gate: true, alpha: 0.025 });
    expect(family.scenarios[0]).toMatchObject({ tolerance: 0.2, regressed: true });
    expect(family.scenarios[1]).toMatchObject({ tolerance: 0.2, regressed: false, p_value: 1 });
    // Within the tolerance everywhere: nothing fails.
    const within = decide({
      head: makeReport([tokensAround("s0", 11_000, 3), tokensAround("s1", 9_000, 3)]),
      baseline,
      toleranceGates: { input_tokens: 0.2 },
    });
    expect(within.failed).toBe(false);
  });

  it("takes a scenario's own gate over the suite's, and gates only the scenarios that set one", () => {
    const head = makeReport([
      tokensAround("s0", 20_000, 3, { input_tokens: 1.5 }),
      tokensAround("s1", 20_000, 3, { input_tokens: 0.2 }),
    ]);
    const own = decide({ head, baseline });
    expect(own.regressed_metrics).toEqual([{ metric: "input_tokens", scenarios: ["s1"] }]);
    expect(own.secondary[0]!.scenarios[0]!.tolerance).toBe(1.5);
    const suite = decide({ head, baseline, toleranceGates: { input_tokens: 0.1 } });
    expect(suite.secondary[0]!.scenarios.map((f) => f.tolerance)).toEqual([1.5, 0.2]);
  });

  it("refuses a gate on a metric it cannot gate, or a negative tolerance, naming where", () => {
    const head = makeReport([tokensAround("s0", 10_000, 3)]);
    expect(() => decide({ head, baseline, toleranceGates: { error_rate: 0.2 } })).toThrow(
      /tolerance-gates\.error_rate: "error_rate" cannot have a tolerance gate/,
    );
    expect(() =>
      decide({ head: makeReport([tokensAround("s0", 10_000, 3, { turns: -1 })]), baseline }),
    ).toThrow(/scenario "s0" tolerance_gates\.turns: must be a fraction >= 0/);
  });
});

describe("decide: a saved report's design", () => {
  it("states the power of the extra trials the run was configured with (run.extra_trials), not a guess", () => {
    const eight = pooledBaseline(10, 8);
    // No scenario needed extra trials, so the trials alone cannot say how many the design had.
    const scenarios = Array.from({ length: 10 }, (_, i) =>
      scenario(`s${i}`, 3, 3, { first_trials: 3, extended: false }),
    );
    const decideWith = (extra: number | undefined) =>
      decide({
        head: makeReport(scenarios, extra === undefined ? {} : { extra_trials: extra }),
        baseline: eight.report,
        pooling: eight.pooling,
      }).design!;
    expect(decideWith(4).extra_trials).toBe(4);
    expect(decideWith(0).extra_trials).toBe(0);
    expect(decideWith(4).power!.collapse).toBeLessThan(decideWith(8).power!.collapse);
    // A report of an earlier version, without the field: the default design.
    expect(decideWith(undefined).extra_trials).toBe(8);
  });
});

describe("decide: one verdict per scenario and for the suite, improvements included", () => {
  it("marks a clear improvement 🟢 by the mirrored test, and never gates on it", () => {
    const head = tenOf(3, 3);
    head[0] = [11, 11];
    const base = tenOf(11, 12);
    base[0] = [0, 11];
    const decision = decide({ head: suite(head), baseline: suite(base) });
    expect(decision.improved).toEqual(["s0"]);
    expect(decision.scenarios[0]).toMatchObject({ verdict: "improved", improved: true, regressed: false });
    expect(decision.scenarios[0]!.improvement_adjusted_p).toBeLessThanOrEqual(decision.alpha);
    expect(decision.scenarios.slice(1).map((s) => s.verdict)).toEqual(Array(9).fill("no_clear_change"));
    // Without the improvement the decision is the same: it reads nothing of it.
    const without = decide({
      head: suite(head.map((c, i) => (i === 0 ? [0, 11] : c))),
      baseline: suite(base),
    });
    expect(decision.failed).toBe(without.failed);
    expect(decision.basis).toBe(without.basis);
    expect(decision.improvement).toMatchObject({ alpha: 0.05, primary_alpha: 0.025, suite_alpha: 0.025 });
  });

  it("keeps the gate's verdict where a scenario regressed and another improved, and names each once", () => {
    const head = tenOf(3, 3);
    head[0] = [11, 11];
    head[1] = [0, 9];
    const base = tenOf(12, 12);
    base[0] = [0, 11];
    const decision = decide({ head: suite([...head, [2, 3]]), baseline: suite(base) });
    expect(decision.failed).toBe(true);
    expect(decision.regressed).toEqual(["s1"]);
    expect(decision.improved).toEqual(["s0"]);
    expect(decision.scenarios.map((s) => s.verdict)).toEqual([
      "improved",
      "regressed",
      ...Array(8).fill("no_clear_change"),
      "not_compared",
    ]);
  });

  it("calls a shrug no clear change: 22/24 → 3/3 is not an improvement", () => {
    const decision = decide({ head: suite(tenOf(3, 3)), baseline: suite(tenOf(22, 24)) });
    expect(decision.improved).toEqual([]);
    expect(decision.suite_improved).toBe(false);
    expect(decision.suite_verdict).toBe("no_clear_change");
  });

  it("marks the suite improved when it got better as a whole, and never fails on it", () => {
    const decision = decide({
      head: suite(Array.from({ length: 30 }, () => [3, 3])),
      baseline: suite(Array.from({ length: 30 }, () => [9, 12])),
      icc: 0,
    });
    expect(decision).toMatchObject({ failed: false, suite_improved: true, suite_verdict: "improved" });
    expect(decision.improvement?.suite?.adjusted_p).toBeLessThanOrEqual(decision.alpha);
  });

  it("says not tested where no test could decide: one trial per scenario", () => {
    const decision = decide({ head: suite(tenOf(1, 1)), baseline: suite(tenOf(4, 4)) });
    expect(decision.scenarios.every((s) => s.verdict === "not_tested")).toBe(true);
    expect(decision.suite_verdict).toBe("no_clear_change");
  });
});

describe("decide: the other fail-on forms and no baseline", () => {
  const failing = suite([
    [1, 3],
    [3, 3],
  ]);

  it("never fails without a baseline under fail-on regression, and says so", () => {
    expect(decide({ head: failing, baseline: null })).toMatchObject({ failed: false, basis: "no_baseline" });
  });

  it("decides on the head run alone for outcome, pass-rate<X and never", () => {
    const of = (text: string) => decide({ head: failing, baseline: failing, failOn: parseFailOn(text, "x") });
    expect(of("outcome")).toMatchObject({ failed: true, basis: "outcome" });
    // 4 of 6 passed.
    expect(of("pass-rate<0.8")).toMatchObject({ failed: true, basis: "pass_rate", fail_on: "pass-rate<0.8" });
    expect(of("pass-rate<0.6")).toMatchObject({ failed: false, basis: "pass_rate" });
    expect(of("never")).toMatchObject({ failed: false, basis: "never" });
  });

  it("records an incomplete head run", () => {
    const head = makeReport(failing.scenarios, { incomplete: true });
    const decision: Decision = decide({ head, baseline: failing });
    expect(decision.incomplete).toBe(true);
  });
});

describe("what makes a run conclusive: one rule for decide() and the simulation", () => {
  it("needs three base runs, a per-scenario test, 80% power for the planned collapse and nothing left uncompared", () => {
    expect(inconclusiveGrounds({ baseRuns: 3, collapsePower: CONCLUSIVE_POWER, notCompared: 0 })).toEqual([]);
    expect(inconclusiveGrounds({ baseRuns: 2, collapsePower: null, notCompared: 1 })).toEqual([
      { kind: "few_runs", runs: 2 },
      { kind: "one_trial" },
      { kind: "not_compared", scenarios: 1 },
    ]);
    expect(inconclusiveGrounds({ baseRuns: 8, collapsePower: 0.79, notCompared: 0 })).toEqual([
      { kind: "low_power", power: 0.79 },
    ]);
  });

  // 20 scenarios, 8 base runs of 3, head 3 + 8: the collapse is caught 77% of the time at ICC 0.1
  // and 89% at 0.05, so the two sides of the rule are both met.
  it.each([
    { icc: 0.1, conclusive: false },
    { icc: 0.05, conclusive: true },
  ])("decide() and the simulation agree at ICC $icc (conclusive: $conclusive)", ({ icc, conclusive }) => {
    const eight = pooledBaseline(20, 8);
    const decision = decide({
      head: makeReport(Array.from({ length: 20 }, (_, i) => scenario(`s${i}`, 3, 3))),
      baseline: eight.report,
      pooling: eight.pooling,
      extraTrials: 8,
      icc,
    });
    expect(decision.failed).toBe(false);
    expect(decision.basis).toBe(conclusive ? "no_regression" : "inconclusive");
    const simulated = runDecisionSimulation({
      runs: 20,
      assumedIcc: icc,
      scenarioCounts: [20],
      headTrialCounts: [3],
      passRates: [0.9],
      worlds: [],
      powerLabels: [],
    }).falseFailures[0]!;
    expect(simulated.failedRate + simulated.inconclusiveRate).toBeCloseTo(
      conclusive ? simulated.failedRate : 1,
      12,
    );
  });
});

describe("detectionPower", () => {
  it("agrees with the seeded simulation of the same design (12 baseline trials, 3 + 6 head trials, 20 scenarios)", () => {
    const exact = powerOf(12, 3, 6, 0.9, 0.1, 0.025 / 20);
    const simulated = runDecisionSimulation({
      runs: 400,
      baseRuns: 4,
      extraTrials: 6,
      assumedIcc: 0,
      scenarioCounts: [],
      worlds: [],
      powerLabels: ["0.9 → 0.1"],
    });
    const collapse = simulated.power.find(
      (cell) => cell.label.includes("0.9 → 0.1") && cell.world === "i.i.d.",
    );
    expect(collapse?.flaggedRate).toBeDefined();
    // Holm's first step is what a single collapsed scenario meets; the simulation's rate carries
    // Monte Carlo error (about 2 points at 400 runs).
    expect(Math.abs(exact - collapse!.flaggedRate!)).toBeLessThan(0.06);
    expect(exact).toBeGreaterThan(0.8);
    expect(powerOf(12, 3, 6, 0.9, 0.5, 0.025 / 20)).toBeLessThan(0.2);
  });
});
