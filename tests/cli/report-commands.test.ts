import { readFile, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { EXIT } from "../../src/cli/main.js";
import { compareReports } from "../../src/compare/compare.js";
import { planCost } from "../../src/compare/cost-plan.js";
import { decideRun } from "../../src/compare/decide-run.js";
import type { Decision } from "../../src/compare/decision.js";
import { decide } from "../../src/compare/decision.js";
import {
  planDesign,
  planTrialsNeeded,
  renderDesignPlan,
  renderTrialPlan,
} from "../../src/compare/planning.js";
import type { Comparison } from "../../src/compare/types.js";
import { renderComparisonTerminal } from "../../src/render/comparison-markdown.js";
import { renderCostPlan } from "../../src/render/cost-plan.js";
import { buildComparisonJson, FORMAT_NAMES } from "../../src/render/formats.js";
import { renderJunitXml } from "../../src/render/junit.js";
import { renderReportMarkdown } from "../../src/render/report-markdown.js";
import { readReportFile } from "../../src/results/read-report.js";
import type { Report } from "../../src/results/types.js";
import { writeReportFiles } from "../../src/run/write-outputs.js";
import { HISTORY_BASE_RUNS, makeExampleHistory } from "../support/history-runs.js";
import {
  makeReport,
  makeScenarioReport,
  suiteWithFailures,
  type TrialSpec,
  trialsFrom,
} from "../support/report-factory.js";
import { makeTempDir } from "../support/temp-dirs.js";
import { BASE_REPORT, HEAD_REPORT, runMain } from "./run-main.js";

/** A report of scenario `a` with the given outcomes; `run` overrides its run facts. */
function reportOf(outcomes: ("pass" | "fail")[], run: Partial<Report["run"]> = {}): Report {
  const specs: TrialSpec[] = outcomes.map((outcome) => ({ outcome }));
  return makeReport([makeScenarioReport({ id: "a", trials: trialsFrom(specs), content_hash: "sha256:a" })], {
    evaluation_hash: "e1",
    ...run,
  });
}

type DecidedComparison = Comparison & { decision: Decision & { reason: string } };

async function writeReports(reports: Record<string, Report>): Promise<Record<string, string>> {
  const dir = makeTempDir("ltt-compare-pool-");
  const files: Record<string, string> = {};
  for (const [name, report] of Object.entries(reports)) {
    files[name] = path.join(dir, `${name}.json`);
    await writeFile(files[name], JSON.stringify(report));
  }
  return files;
}

/** `heavy` reads about three times the base's tokens at the head; `steady` about the same. */
function tokenReports(): { base: Report; head: Report } {
  const tokens = [2000, 2200, 1800, 2100, 1900, 2050];
  const side = (id: string, factor: number) =>
    makeReport(
      ["heavy", "steady"].map((key) =>
        makeScenarioReport({
          id: key,
          content_hash: `sha256:${key}`,
          trials: trialsFrom(
            tokens.map((t) => ({ input_tokens: Math.round(t * (key === "heavy" ? factor : 1.02)) })),
          ),
        }),
      ),
      { id, evaluation_hash: "e1" },
    );
  return { base: side("run-base", 1), head: side("run-pr", 3) };
}

describe("report", () => {
  it("re-renders a saved report in the chosen format, to stdout or a file", async () => {
    const head = await readReportFile(HEAD_REPORT);
    // Without --baseline the report leads with the run's own decision (fail-on outcome), as the run wrote it.
    const decision = decide({ head, baseline: null, failOn: { kind: "outcome" } });
    expect((await runMain(["report", HEAD_REPORT])).stdout).toBe(renderReportMarkdown(head, { decision }));
    expect((await runMain(["report", HEAD_REPORT, "-f", "junit"])).stdout).toBe(renderJunitXml(head));
    expect(JSON.parse((await runMain(["report", HEAD_REPORT, "--format", "json"])).stdout)).toEqual(head);
    const out = path.join(makeTempDir("ltt-report-"), "deep/report.md");
    const written = await runMain(["report", HEAD_REPORT, "--out", out]);
    expect(written).toEqual({ code: EXIT.ok, stdout: "", stderr: "" });
    expect(await readFile(out, "utf8")).toBe(renderReportMarkdown(head, { decision }));
  });

  it("shows a compared run's saved decision without --baseline again, in every format", async () => {
    // A PR run as `run` leaves it: the report and, beside it, the comparison with its decision.
    const base = reportOf(["pass", "pass", "pass", "pass", "pass", "pass", "pass", "pass", "pass", "pass"]);
    const head = reportOf(["fail", "fail", "fail", "fail", "fail", "fail", "fail", "fail", "fail", "fail"], {
      id: "run-pr",
    });
    const decided = decideRun({
      report: head,
      baseline: { report: base },
      policy: { failOn: null, gateMetrics: [] },
    });
    expect(decided.decision.regressed).toEqual(["a"]);
    const dir = makeTempDir("ltt-saved-decision-");
    await writeReportFiles(head, dir, (text) => text, {
      comparison: decided.comparison!,
      decision: decided.decision,
    });
    const file = path.join(dir, "report.json");

    const md = await runMain(["report", file]);
    expect(md.stdout).toBe(renderReportMarkdown(head, { decision: decided.decision }));
    expect(md.stdout.split("\n")[0]).toMatch(/^# 🔴 Regression in `a`: 10\/10 → 0\/10/u);
    // The comparison formats need no --baseline either: the saved comparison is this run's.
    const saved = await runMain(["report", file, "--format", "comparison-json"]);
    expect(saved.code).toBe(EXIT.ok);
    expect(JSON.parse(saved.stdout)).toEqual(
      JSON.parse(await readFile(path.join(dir, "comparison.json"), "utf8")),
    );
    expect((await runMain(["report", file, "--format", "junit"])).stdout).toContain(
      '<property name="verdict" value="regressed"/>',
    );

    // Another run's comparison beside the report is not its decision: decided on the report alone.
    const other = makeTempDir("ltt-saved-decision-other-");
    await writeFile(
      path.join(other, "report.json"),
      JSON.stringify({ ...head, run: { ...head.run, id: "run-other" } }),
    );
    await writeFile(
      path.join(other, "comparison.json"),
      await readFile(path.join(dir, "comparison.json"), "utf8"),
    );
    expect((await runMain(["report", path.join(other, "report.json")])).stdout.split("\n")[0]).toMatch(
      /^# ❌ Failed/u,
    );
  });

  it("refuses an unknown format, naming the formats", async () => {
    const result = await runMain(["report", HEAD_REPORT, "--format", "htm"]);
    expect(result.code).toBe(EXIT.usage);
    expect(result.stderr).toBe(
      `llm-tool-test: --format must be one of ${FORMAT_NAMES.join(", ")}; got "htm" (did you mean html?)\n`,
    );
  });

  it("renders the comparison formats from the same registry, and asks for --baseline when it is missing", async () => {
    const missing = await runMain(["report", HEAD_REPORT, "--format", "comparison-md"]);
    expect(missing.code).toBe(EXIT.usage);
    expect(missing.stderr).toContain(
      "--format: comparison-md compares with a baseline: add --baseline BASE.json",
    );
    const compared = await runMain([
      "report",
      HEAD_REPORT,
      "--format",
      "comparison-json",
      "--baseline",
      HEAD_REPORT,
    ]);
    expect(compared.code).toBe(EXIT.ok);
    expect(JSON.parse(compared.stdout).scenarios.length).toBeGreaterThan(0);
  });

  it("renders the history page from a head report and one --baseline per base run, and asks for them when missing", async () => {
    const missing = await runMain(["report", HEAD_REPORT, "--format", "history"]);
    expect(missing.code).toBe(EXIT.usage);
    expect(missing.stderr).toContain(
      "history shows the base-branch runs: add --baseline BASE.json, once for each run",
    );

    const { base, head } = await makeExampleHistory();
    const files = await writeReports({
      head,
      ...Object.fromEntries(base.map(({ report }, i) => [`base${i}`, report])),
    });
    const baselines = base.flatMap((_, i) => ["--baseline", files[`base${i}`]!]);
    const out = path.join(path.dirname(files.head!), "history.html");
    const result = await runMain(["report", files.head!, "--format", "history", ...baselines, "--out", out]);
    expect(result.code).toBe(EXIT.ok);
    const html = await readFile(out, "utf8");
    // Given newest first, shown oldest first: the run table's dates rise, the head last.
    const started = [...html.matchAll(/<td>(2026-11-\d\dT09:00:00\.000Z)<\/td>/g)].map((m) => m[1]);
    expect(started).toEqual([...started].sort());
    expect(started).toHaveLength(HISTORY_BASE_RUNS + 1);
    // Three changes in the suite chart: the tool (run 7), the terse guidance (run 10), the head's tool.
    const suiteChart = html.slice(html.indexOf("<h2>Suite</h2>"), html.indexOf("<h3>Per-trial metrics</h3>"));
    expect(suiteChart.match(/class="marker [a-z ]+"/g)).toEqual([
      'class="marker tool"',
      'class="marker guidance"',
      'class="marker tool"',
    ]);
    // The pooled decision's ICC gives the run-level band.
    expect(html).toMatch(/under the decision&#39;s model of runs: ICC 0\.\d+/);
  });

  it("decides --baseline with --tolerance-gates, report.html showing each gate's limit and verdict", async () => {
    const files = await writeReports(tokenReports());
    const args = ["report", files.head!, "--baseline", files.base!, "--tolerance-gates", "input_tokens:+20%"];

    const json = await runMain([...args, "--format", "comparison-json"]);
    expect(json.code, json.stderr).toBe(EXIT.ok);
    const { decision } = JSON.parse(json.stdout) as DecidedComparison;
    const family = decision.secondary.find((f) => f.tolerance_gate && f.metric === "input_tokens")!;
    expect(family.scenarios.map((f) => [f.key, f.tolerance, f.regressed])).toEqual([
      ["heavy", 0.2, true],
      ["steady", 0.2, false],
    ]);

    const html = (await runMain([...args, "--format", "html"])).stdout;
    const table = html.slice(html.indexOf('<table id="tolerance-gates">'));
    const rows = table.slice(0, table.indexOf("</table>")).split("<tr>").slice(2);
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatch(
      /heavy<\/span>.*<td class="num">\+20%<\/td>.*adjusted p (?:= |&lt; |≤ )[\d.]+<\/td>.*>regressed<\/td>/,
    );
    expect(rows[1]).toMatch(
      /steady<\/span>.*<td class="num">\+20%<\/td>.*adjusted p (?:= |&gt; |≥ )[\d.]+<\/td>.*>within the limit<\/td>/,
    );
    // Without the gate: no such table.
    const plain = await runMain(["report", files.head!, "--baseline", files.base!, "--format", "html"]);
    expect(plain.stdout).not.toContain('id="tolerance-gates"');

    // A gate needs something to compare with.
    const alone = await runMain(["report", files.head!, "--tolerance-gates", "input_tokens:+20%"]);
    expect(alone.code).toBe(EXIT.usage);
    expect(alone.stderr).toMatch(/--tolerance-gates: .*add --baseline BASE\.json/);
  });
});

describe("compare", () => {
  it("renders the comparison of two saved reports as Markdown, JSON or text", async () => {
    // The fixtures' head collapses create-note 10/10 → 0/10: the decision fails, and so does the exit status.
    const md = await runMain(["compare", BASE_REPORT, HEAD_REPORT, "--format", "md"]);
    expect(md.code).toBe(EXIT.failed);
    expect(md.stdout.split("\n")[0]).toMatch(/^### 🔴 Regression in `create-note`: 10\/10 → 0\/10/);
    const json = await runMain(["compare", BASE_REPORT, HEAD_REPORT, "--format", "json"]);
    const comparison = JSON.parse(json.stdout) as Comparison & {
      decision: { failed: boolean; regressed: string[] };
    };
    expect(comparison.decision).toMatchObject({ failed: true, regressed: ["create-note"] });
    expect(comparison.added.length + comparison.removed.length).toBeGreaterThan(0);
    const lenient = await runMain(["compare", BASE_REPORT, HEAD_REPORT, "--fail-on", "never"]);
    expect(lenient.code).toBe(EXIT.ok);
    expect(comparison.warnings.some((w) => /model/i.test(JSON.stringify(w)))).toBe(true);
    const text = await runMain(["compare", BASE_REPORT, HEAD_REPORT]);
    expect(text.code).toBe(EXIT.failed);
    const [base, head] = await Promise.all([readReportFile(BASE_REPORT), readReportFile(HEAD_REPORT)]);
    const decision = decide({ head, baseline: base });
    expect(text.stdout).toBe(`${renderComparisonTerminal(compareReports(base, head), decision)}\n`);
  });

  it("takes --tolerance-gates: comparison.json's decision has a family for each, and a bad one is a usage error naming the flag", async () => {
    const json = await runMain([
      "compare",
      BASE_REPORT,
      HEAD_REPORT,
      "--format",
      "json",
      "--tolerance-gates",
      "input_tokens:+20%,turns:+50%",
    ]);
    const decided = JSON.parse(json.stdout) as {
      decision: {
        secondary: Array<{ metric: string; tolerance_gate?: true; scenarios: Array<{ tolerance?: number }> }>;
      };
    };
    expect(decided.decision.secondary.map((f) => [f.metric, f.tolerance_gate])).toEqual([
      ["input_tokens", true],
      ["turns", true],
    ]);
    expect(decided.decision.secondary[1]!.scenarios.every((f) => f.tolerance === 0.5)).toBe(true);
    const bad = await runMain(["compare", BASE_REPORT, HEAD_REPORT, "--tolerance-gates", "tokens:+20%"]);
    expect(bad.code).toBe(EXIT.usage);
    expect(bad.stderr).toMatch(/--tolerance-gates: "tokens" cannot have a tolerance gate; one of cost_usd, /);
  });

  it("pools several --baseline reports for HEAD, and lists the ones left out", async () => {
    const files = await writeReports({
      head: reportOf(["fail", "fail", "fail"]),
      a: reportOf(["pass", "pass", "pass"]),
      b: reportOf(["pass", "pass", "fail"]),
      other: reportOf(["pass"], { model: "claude-opus-4-1" }),
    });
    const args = ["compare", files.head!, "--baseline", files.a!, "--baseline", files.b!];
    const pooled = await runMain([...args, "--baseline", files.other!, "--format", "json"]);
    // 5/6 pooled against 0/3 in the only scenario: a regression.
    expect(pooled.code).toBe(EXIT.failed);
    const comparison = JSON.parse(pooled.stdout) as Comparison;
    expect(comparison.scenarios[0]?.base).toMatchObject({ trials: 6, passed: 5 });
    expect(comparison.scenarios[0]?.head).toMatchObject({ trials: 3, passed: 0 });
    expect(pooled.stderr).toContain("note: left out of the baseline:");
    expect(pooled.stderr).toContain("model claude-opus-4-1, not claude-sonnet-4-5");
    expect(pooled.stderr).toContain("the baseline pools 2 of 3 runs");

    // The old form and a single --baseline compare with the one report as given.
    const old = await runMain(["compare", files.a!, files.head!, "--format", "json"]);
    const single = await runMain(["compare", files.head!, "--baseline", files.a!, "--format", "json"]);
    expect(JSON.parse(single.stdout)).toEqual(JSON.parse(old.stdout));
    expect((JSON.parse(old.stdout) as Comparison).scenarios[0]?.base.trials).toBe(3);

    const none = await runMain([
      "compare",
      files.head!,
      "--baseline",
      files.other!,
      "--baseline",
      files.other!,
    ]);
    expect(none.code).toBe(EXIT.usage);
    expect(none.stderr).toContain("no --baseline report measured what");
    const mixed = await runMain(["compare", files.a!, files.head!, "--baseline", files.b!]);
    expect(mixed.code).toBe(EXIT.usage);
    expect(mixed.stdout).toContain("compare HEAD.json --baseline A.json");
  });

  it("reads several --baseline reports in the order they ran, whatever order they are given in", async () => {
    // 8 runs of 20 scenarios × 3 trials on a base branch that loses 2 passes more every week (3
    // failures in the oldest run, 17 in the newest); the head, a week on, fails 19: the drift went on.
    const runs = Object.fromEntries(
      Array.from({ length: 8 }, (_, r) => [
        `week${r}`,
        suiteWithFailures(3 + 2 * r, { started_at: new Date(Date.UTC(2026, 2, 2 + 7 * r)).toISOString() }),
      ]),
    );
    const files = await writeReports({ head: suiteWithFailures(19, { id: "head" }), ...runs });
    const given = (order: number[]) => order.flatMap((r) => ["--baseline", files[`week${r}`]!]);
    const newestFirst = await runMain([
      "compare",
      files.head!,
      ...given([7, 6, 5, 4, 3, 2, 1, 0]),
      "-f",
      "json",
    ]);
    const shuffled = await runMain([
      "compare",
      files.head!,
      ...given([3, 0, 6, 1, 7, 4, 2, 5]),
      "-f",
      "json",
    ]);
    expect(newestFirst.code).toBe(EXIT.ok);
    const decision = (JSON.parse(newestFirst.stdout) as DecidedComparison).decision;
    expect(decision.variation).toMatchObject({ runs: 8, suite_method: "trend" });
    expect(decision.failed).toBe(false);
    // The same decision (only the list of runs is as given).
    const { baseline: _runs, ...decided } = decision;
    const { baseline: _same, ...decidedShuffled } = (JSON.parse(shuffled.stdout) as DecidedComparison)
      .decision;
    expect(decidedShuffled).toEqual(decided);
  });

  it("does not fail an unchanged head against base runs whose suite levels are all equal (14/15 each)", async () => {
    // 5 scenarios × 3 trials; each of 8 weekly base runs fails one trial, in another scenario each week.
    // Their levels differ only by floating-point rounding, which the trend test once read as a trend
    // known exactly: a head with two failures failed with p ≈ 1e-87.
    const fiveScenarios = (failing: readonly number[], run: Partial<Report["run"]>) =>
      makeReport(
        Array.from({ length: 5 }, (_, s) => {
          const fails = failing.filter((f) => f === s).length;
          const specs: TrialSpec[] = [0, 1, 2].map((t) => ({ outcome: t < 3 - fails ? "pass" : "fail" }));
          return makeScenarioReport({ id: `s${s}`, trials: trialsFrom(specs) });
        }),
        { evaluation_hash: "e1", ...run },
      );
    const runs = Object.fromEntries(
      Array.from({ length: 8 }, (_, r) => [
        `week${r}`,
        fiveScenarios([(r + 4) % 5], { started_at: new Date(Date.UTC(2026, 2, 2 + 7 * r)).toISOString() }),
      ]),
    );
    const files = await writeReports({ head: fiveScenarios([0, 1], { id: "head" }), ...runs });
    const baselines = Array.from({ length: 8 }, (_, r) => ["--baseline", files[`week${r}`]!]).flat();
    const result = await runMain(["compare", files.head!, ...baselines, "-f", "json"]);
    const decision = (JSON.parse(result.stdout) as DecidedComparison).decision;
    expect(decision.variation).toMatchObject({ runs: 8, suite_method: "trend" });
    expect(decision.failed).toBe(false);
    expect(result.code).toBe(EXIT.ok);
  });

  it("treats one and several --baseline alike: a changed scenario is listed as not compared, never compared nor refused", async () => {
    const suite = (outcomes: ("pass" | "fail")[], measurements: Record<string, string>, run = {}) =>
      makeReport(
        Object.entries(measurements).map(([id, measurement]) =>
          makeScenarioReport({
            id,
            trials: trialsFrom(outcomes.map((outcome) => ({ outcome }))),
            content_hash: `c-${measurement}`,
            measurement_hash: measurement,
          }),
        ),
        { evaluation_hash: "e1", ...run },
      );
    const files = await writeReports({
      // b's scenario changed and fell to 0/3.
      head: makeReport(
        [
          ...suite(["pass", "pass", "pass"], { a: "ma" }).scenarios,
          ...suite(["fail", "fail", "fail"], { b: "mb-edited" }).scenarios,
        ],
        { evaluation_hash: "e1" },
      ),
      base1: suite(["pass", "pass", "pass"], { a: "ma", b: "mb" }),
      base2: suite(["pass", "pass", "pass"], { a: "ma", b: "mb" }),
      onlyChanged: suite(["pass", "pass", "pass"], { b: "mb" }),
      otherModel: suite(["pass", "pass", "pass"], { a: "ma", b: "mb" }, { model: "claude-opus-4-1" }),
    });
    const compareJson = async (...args: string[]) => {
      const result = await runMain(["compare", files.head!, ...args, "--format", "json"]);
      return { ...result, json: result.stdout ? (JSON.parse(result.stdout) as DecidedComparison) : null };
    };
    const one = await compareJson("--baseline", files.base1!);
    const two = await compareJson("--baseline", files.base1!, "--baseline", files.base2!);
    for (const result of [one, two]) {
      expect(result.code, result.stderr).toBe(EXIT.ok);
      expect(result.stderr).toContain("scenario `b`: the scenario changed since this run");
      expect(result.json?.decision.not_compared).toEqual([
        { key: "b", reason: "measurement_changed", head: { passed: 0, trials: 3 } },
      ]);
      expect(result.json?.decision.regressed).toEqual([]);
      expect(result.json?.decision.reason).toMatch(
        /^Inconclusive: no regression seen, but .*1 scenario was not compared/,
      );
    }
    // Nothing left to compare is an answer, not a refusal, however many reports were given.
    for (const args of [
      ["--baseline", files.onlyChanged!],
      ["--baseline", files.onlyChanged!, "--baseline", files.onlyChanged!],
    ]) {
      const result = await compareJson(...args);
      expect(result.code, result.stderr).toBe(EXIT.ok);
      expect(result.json?.decision.basis).toBe("no_baseline");
      expect(result.json?.decision.not_compared.map((s) => s.key)).toEqual(["b"]);
    }
    // Another model's run is left out alike (a BASE.json given positionally is compared as given).
    for (const args of [
      ["--baseline", files.otherModel!],
      ["--baseline", files.otherModel!, "--baseline", files.otherModel!],
    ]) {
      const result = await compareJson(...args);
      expect(result.code).toBe(EXIT.usage);
      expect(result.stderr).toContain("model claude-opus-4-1, not claude-sonnet-4-5");
    }
    const named = await runMain(["compare", files.otherModel!, files.head!, "--format", "json"]);
    expect(named.code, named.stderr).toBe(EXIT.ok);
    const namedDecision = (JSON.parse(named.stdout) as DecidedComparison).decision;
    expect(namedDecision.not_compared.map((s) => s.key)).toEqual(["b"]);
    expect(namedDecision.scenarios.find((s) => s.key === "a")?.base).toEqual({ passed: 3, trials: 3 });
  });

  it("report and compare decide through the decide stage a run uses, with the same inputs", async () => {
    const [base, head] = await Promise.all([readReportFile(BASE_REPORT), readReportFile(HEAD_REPORT)]);
    const policy = { failOn: null, gateMetrics: [] };
    // What `run --baseline BASE.json` writes to comparison.json for this head.
    const asRun = decideRun({ report: head, baseline: { report: base }, policy });
    const expected = buildComparisonJson(asRun.comparison!, asRun.decision, head);
    const reported = await runMain([
      "report",
      HEAD_REPORT,
      "--format",
      "comparison-json",
      "--baseline",
      BASE_REPORT,
    ]);
    expect(JSON.parse(reported.stdout)).toEqual(JSON.parse(JSON.stringify(expected)));
    // `compare` fails on a regression by default: the same stage with that policy.
    const compared = await runMain(["compare", BASE_REPORT, HEAD_REPORT, "--format", "json"]);
    const regression = decideRun({
      report: head,
      // One report given as BASE.json is one base run (its label aside, as `compare` pools it).
      baseline: { report: base, pooling: { runs: ["BASE.json"], excluded: [] } },
      policy: { ...policy, failOn: { kind: "regression" } },
    });
    const decision = (JSON.parse(compared.stdout) as DecidedComparison).decision;
    expect(decision.failed).toBe(true);
    expect({ ...decision, reason: undefined, baseline: undefined }).toEqual(
      JSON.parse(JSON.stringify({ ...regression.decision, baseline: undefined })),
    );
  });

  it("says why a baseline cannot be compared and exits 2, for report and compare alike", async () => {
    const base = await readReportFile(BASE_REPORT);
    const files = await writeReports({ foreign: { ...base, schema_version: 999 } });
    for (const argv of [
      ["report", HEAD_REPORT, "--format", "comparison-md", "--baseline", files.foreign!],
      ["compare", files.foreign!, HEAD_REPORT],
    ]) {
      const result = await runMain(argv);
      expect(result.code, argv.join(" ")).toBe(EXIT.usage);
      expect(result.stderr).toMatch(/schema_version 999 is newer than this llm-tool-test understands/);
    }
  });

  it("exits 2 when a report cannot be read", async () => {
    const missing = await runMain(["compare", BASE_REPORT, path.join(os.tmpdir(), "no-such-report.json")]);
    expect(missing.code).toBe(EXIT.usage);
    expect(missing.stderr).toContain("cannot read the report file");
  });
});

describe("plan", () => {
  it("says how many trials a given effect needs", async () => {
    const result = await runMain(["plan", HEAD_REPORT, "--effect", "0.2", "--metric", "pass_rate"]);
    expect(result.code).toBe(EXIT.ok);
    const plan = planTrialsNeeded(await readReportFile(HEAD_REPORT), { effect: 0.2, metric: "pass_rate" });
    expect(plan.suite.trials_per_scenario).toBeGreaterThan(1);
    expect(result.stdout).toBe(`${renderTrialPlan(plan)}\n`);
    expect(result.stdout).toContain(`≈ ${plan.suite.trials_per_scenario} trials per scenario`);
  });

  it("plans the design given on the command line, at the action's defaults for what is left out", async () => {
    const given = await runMain([
      "plan",
      "--scenarios",
      "20",
      "--trials",
      "3",
      "--extra-trials",
      "8",
      "--baseline-runs",
      "12",
    ]);
    expect(given.code).toBe(EXIT.ok);
    const plan = planDesign({ scenarios: 20, trials: 3, extraTrials: 8, baselineRuns: 12 });
    expect(given.stdout).toBe(`${renderDesignPlan(plan)}\n`);
    expect(given.stdout).toMatch(/^Design: 20 scenarios × 3 \(\+8\) trials against 12 baseline runs/);
    expect(given.stdout).toContain("Chance to flag one scenario whose pass rate drops (exact):");
    const defaults = await runMain(["plan", "--scenarios", "20"]);
    expect(defaults.stdout).toBe(given.stdout);
    const other = await runMain([
      "plan",
      "--scenarios",
      "12",
      "--extra-trials",
      "0",
      "--baseline-runs",
      "4",
      "--alpha",
      "0.1",
    ]);
    expect(other.stdout).toBe(
      `${renderDesignPlan(planDesign({ scenarios: 12, trials: 3, extraTrials: 0, baselineRuns: 4, alpha: 0.1 }))}\n`,
    );
  });

  it("takes the scenario count and first trials from a report, flags winning", async () => {
    // 7 scenarios of 3 first trials, four of them extended to 9: the design is still 7 × 3.
    const scenarios = Array.from({ length: 7 }, (_, i) =>
      makeScenarioReport({
        id: `s${i}`,
        trials: trialsFrom(Array.from({ length: i < 4 ? 9 : 3 }, () => ({}))),
        first_trials: 3,
        extended: i < 4,
      }),
    );
    const files = await writeReports({ head: makeReport(scenarios) });
    const fromReport = await runMain(["plan", files.head!]);
    expect(fromReport.code).toBe(EXIT.ok);
    const design = planDesign({ scenarios: 7, trials: 3, extraTrials: 8, baselineRuns: 12 });
    // The design, then what it costs from the report's trials.
    expect(fromReport.stdout).toBe(
      `${renderDesignPlan(design)}\n\n${renderCostPlan(planCost(makeReport(scenarios), design), files.head!)}\n`,
    );
    const overridden = await runMain(["plan", files.head!, "--trials", "5", "--scenarios", "30"]);
    expect(overridden.stdout.split("\n")[0]).toBe(
      "Design: 30 scenarios × 5 (+8) trials against 12 baseline runs (60 trials a scenario; its own test pools the newest 8 runs, 40 trials).",
    );
  });

  it("plans for runs that vary from day to day with --icc, and refuses an ICC of 1 or more", async () => {
    const clustered = await runMain(["plan", "--scenarios", "20", "--icc", "0.05"]);
    expect(clustered.code).toBe(EXIT.ok);
    expect(clustered.stdout).toBe(
      `${renderDesignPlan(planDesign({ scenarios: 20, trials: 3, extraTrials: 8, baselineRuns: 12, icc: 0.05 }))}\n`,
    );
    expect(clustered.stdout.split("\n")[0]).toBe(
      "Design: 20 scenarios × 3 (+8) trials against 12 baseline runs (36 trials a scenario; its own test pools the newest 8 runs, 24 trials), runs varying with ICC 0.05.",
    );
    const bad = await runMain(["plan", "--scenarios", "20", "--icc", "1"]);
    expect(bad.code).toBe(EXIT.usage);
    expect(bad.stderr).toContain("--icc: must be in [0, 1), got 1");
  });

  it("needs a report or --scenarios, and keeps the two modes' flags apart", async () => {
    const bare = await runMain(["plan"]);
    expect(bare.code).toBe(EXIT.usage);
    expect(bare.stdout).toMatch(/^Usage: llm-tool-test plan \[REPORT\.json\] \[--scenarios N\]/);
    const mixed = await runMain(["plan", HEAD_REPORT, "--effect", "0.2", "--trials", "3"]);
    expect(mixed.code).toBe(EXIT.usage);
    expect(mixed.stderr).toMatch(/--trials: plans the design; leave out --effect/);
    const noReport = await runMain(["plan", "--scenarios", "5", "--effect", "0.2"]);
    expect(noReport.code).toBe(EXIT.usage);
    const stray = await runMain(["plan", "--scenarios", "5", "--metric", "pass_rate"]);
    expect(stray.code).toBe(EXIT.usage);
    expect(stray.stderr).toContain("--metric: goes with --effect");
    const zero = await runMain(["plan", "--scenarios", "0"]);
    expect(zero.code).toBe(EXIT.usage);
    expect(zero.stderr).toContain("--scenarios must be a whole number >= 1");
  });
});

describe("merge", () => {
  it("refuses a report that is not a shard of the others", async () => {
    const out = makeTempDir("ltt-merge-");
    const result = await runMain(["merge", HEAD_REPORT, HEAD_REPORT, "--out", out]);
    expect(result.code).toBe(EXIT.usage);
    expect(result.stderr).toMatch(/^llm-tool-test: /);
  });

  it("decides the merged run against --baseline with --tolerance-gates, as `run` would", async () => {
    const files = await writeReports(tokenReports());
    const out = makeTempDir("ltt-merge-");
    const args = ["merge", files.head!, "--out", out, "--baseline", files.base!];
    const result = await runMain([...args, "--tolerance-gates", "input_tokens:+20%"]);
    expect(result.code, result.stderr).toBe(EXIT.failed);
    const { decision } = JSON.parse(
      await readFile(path.join(out, "comparison.json"), "utf8"),
    ) as DecidedComparison;
    const family = decision.secondary.find((f) => f.tolerance_gate && f.metric === "input_tokens")!;
    expect(family.scenarios.map((f) => [f.key, f.regressed])).toEqual([
      ["heavy", true],
      ["steady", false],
    ]);
    expect(await readFile(path.join(out, "history.html"), "utf8")).toContain("<html");

    // Without the gate, the same tokens are report-only: nothing regressed.
    const plainOut = makeTempDir("ltt-merge-");
    const plain = await runMain(["merge", files.head!, "--out", plainOut, "--baseline", files.base!]);
    expect(plain.code, plain.stderr).toBe(EXIT.ok);

    // A gate needs something to compare with.
    const alone = await runMain([
      "merge",
      files.head!,
      "--out",
      makeTempDir("ltt-merge-"),
      "--tolerance-gates",
      "input_tokens:+20%",
    ]);
    expect(alone.code).toBe(EXIT.usage);
    expect(alone.stderr).toMatch(/--tolerance-gates: .*add --baseline BASE\.json/);
  });
});
