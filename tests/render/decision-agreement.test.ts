/**
 * Gate and comment agree in every simulated case (issue 14): seeded random suites — sizes, trial
 * counts, pooled baselines, true pass rates with collapses and broad drops, adaptive extra trials,
 * every fail-on form, gate metrics — each decided once by decide(), then rendered by every surface
 * that shows pass/fail. Each surface must say what `decision.failed` says.
 */
import { describe, expect, it } from "vitest";
import { buildOutputs } from "../../src/action/outputs.js";
import { compareReports } from "../../src/compare/compare.js";
import { type Decision, decide, parseFailOn } from "../../src/compare/decision.js";
import { exitCodeForDecision } from "../../src/compare/exit-status.js";
import { type BaselinePooling, poolBaselines } from "../../src/compare/pool-baselines.js";
import { renderComparisonMarkdown, renderComparisonTerminal } from "../../src/render/comparison-markdown.js";
import { markdownCode } from "../../src/render/escape.js";
import { buildComparisonJson } from "../../src/render/formats.js";
import { renderReportHtml } from "../../src/render/html.js";
import { renderJobSummary } from "../../src/render/job-summary.js";
import { type BaselineNote, renderComment } from "../../src/render/pr-comment.js";
import { renderReportMarkdown } from "../../src/render/report-markdown.js";
import { renderTerminalSummary } from "../../src/render/terminal.js";
import type { Report, ScenarioReport } from "../../src/results/types.js";
import { createRng, type Rng } from "../../src/stats/stats.js";
import { makeReport, makeScenarioReport, type TrialSpec, trialsFrom } from "../support/report-factory.js";

const CASES = 300;
const SEED = 1414;

const int = (rng: Rng, low: number, high: number) => low + Math.floor(rng() * (high - low + 1));
const pick = <T>(rng: Rng, items: readonly T[]): T => items[Math.floor(rng() * items.length)] as T;

interface TrueScenario {
  id: string;
  variant: string | null;
  baseRate: number;
  headRate: number;
  /** Mean error count per trial on each side (for gate metrics). */
  baseErrors: number;
  headErrors: number;
}

function drawTrial(rng: Rng, rate: number, errors: number, erroredShare: number): TrialSpec {
  const outcome = rng() < erroredShare ? "error" : rng() < rate ? "pass" : "fail";
  const total = int(rng, 3, 8);
  return {
    outcome,
    total_commands: total,
    error_count: Math.min(total, Math.round(errors * 2 * rng())),
    help_invocations: int(rng, 0, 2),
  };
}

function scenarioReport(
  truth: TrueScenario,
  specs: TrialSpec[],
  extra: Partial<ScenarioReport> = {},
): ScenarioReport {
  return makeScenarioReport({
    id: truth.id,
    variant: truth.variant,
    trials: trialsFrom(specs),
    content_hash: `sha256:${truth.id}`,
    ...extra,
  });
}

interface SimulatedCase {
  label: string;
  head: Report;
  baseline: Report | null;
  pooling: BaselinePooling | undefined;
  failOnText: string;
  gateMetrics: string[];
  extraTrials: number;
}

function drawCase(rng: Rng, index: number): SimulatedCase {
  const scenarios = int(rng, 5, 30);
  const headTrials = int(rng, 1, 5);
  const runs = int(rng, 1, 4);
  const trialsPerRun = int(rng, 3, 6); // pooled: 3–24 trials a scenario
  const shape = pick(rng, ["unchanged", "unchanged", "collapse", "broad", "mixed"] as const);
  const truths: TrueScenario[] = Array.from({ length: scenarios }, (_, i) => {
    const baseRate = pick(rng, [0.5, 0.7, 0.8, 0.9, 0.95, 1]);
    return {
      // Some keys with a variant, some with Markdown-looking characters: the names must survive.
      // No key is a part of another (s1-x is not in s11-x), so "named" means named.
      id: i % 7 === 3 ? `t${i}_*x*` : `s${i}-x`,
      variant: i % 5 === 4 ? "terse" : null,
      baseRate,
      headRate: baseRate,
      baseErrors: rng() * 1.5,
      headErrors: 0,
    };
  });
  for (const t of truths) t.headErrors = t.baseErrors;
  if (shape === "collapse" || shape === "mixed") {
    // Mixed suites collapse many scenarios at once: the headline must name more than it details.
    for (let k = shape === "mixed" ? int(rng, 3, 9) : int(rng, 1, 3); k > 0; k--) {
      const t = pick(rng, truths);
      t.headRate = pick(rng, [0, 0.1, 0.3, 0.5]);
      t.headErrors = t.baseErrors + 2;
    }
  }
  if (shape === "broad" || shape === "mixed") {
    const drop = pick(rng, [0.1, 0.2, 0.3]);
    for (const t of truths) t.headRate = Math.max(0, t.headRate - drop);
  }
  const erroredShare = rng() < 0.15 ? 0.1 : 0;

  const hasBaseline = rng() < 0.9;
  const baseReports = hasBaseline
    ? Array.from({ length: runs }, (_, r) =>
        makeReport(
          truths.map((t) =>
            scenarioReport(
              t,
              Array.from({ length: trialsPerRun }, () => drawTrial(rng, t.baseRate, t.baseErrors, 0)),
            ),
          ),
          { id: `base-${index}-${r}` },
        ),
      )
    : [];
  const pooled = hasBaseline
    ? poolBaselines(
        baseReports.map((report, r) => ({ report, label: `run #${r + 1}` })),
        baseReports[0]!,
      )
    : null;
  const baseline = pooled?.report ?? null;

  // Adaptive extra trials: a scenario whose first trials passed less often than the baseline's gets more.
  const extraTrials = hasBaseline && headTrials > 1 && rng() < 0.5 ? pick(rng, [3, 6]) : 0;
  const baseByKey = new Map(baseline?.scenarios.map((s) => [`${s.id}|${s.variant}`, s]) ?? []);
  const headScenarios = truths.map((t) => {
    const first = Array.from({ length: headTrials }, () =>
      drawTrial(rng, t.headRate, t.headErrors, erroredShare),
    );
    if (extraTrials === 0) return scenarioReport(t, first);
    const base = baseByKey.get(`${t.id}|${t.variant}`)!.summary;
    const headPassed = first.filter((s) => s.outcome === "pass").length;
    const headEvaluated = first.filter((s) => s.outcome !== "error").length;
    const baseEvaluated = base.passed + base.failed;
    const extended = headPassed * baseEvaluated < base.passed * headEvaluated;
    const more = extended
      ? Array.from({ length: extraTrials }, () => drawTrial(rng, t.headRate, t.headErrors, erroredShare))
      : [];
    return scenarioReport(t, [...first, ...more], { first_trials: headTrials, extended });
  });
  const head = makeReport(headScenarios, { id: `head-${index}`, incomplete: rng() < 0.05 });
  const failOnText = pick(rng, [
    "regression",
    "regression",
    "regression",
    "outcome",
    "never",
    "pass-rate<0.8",
  ]);
  const gateMetrics = rng() < 0.3 ? pick(rng, [["error_rate"], ["error_rate", "help_invocations"]]) : [];
  return {
    label: `case ${index}: ${scenarios} scenarios × ${headTrials}${extraTrials ? ` (+${extraTrials})` : ""} against ${hasBaseline ? `${runs} × ${trialsPerRun}` : "no baseline"}, ${shape}, fail-on ${failOnText}${gateMetrics.length ? `, gate ${gateMetrics.join(",")}` : ""}`,
    head,
    baseline,
    pooling: pooled ? { runs: pooled.used, excluded: [], runCounts: pooled.runCounts } : undefined,
    failOnText,
    gateMetrics,
    extraTrials,
  };
}

/** Words that say the check failed, and words that say it passed, in any of the renderings. */
const FAIL_WORDS = /🔴|❌|\bRegression\b|\bFailed\b|is below|No trial was evaluated/;
const PASS_WORDS = /✅|No regression detected|\bPassed\b|\bmeets\b/;

function firstLine(text: string): string {
  const lines = text.split("\n").filter((line) => line.trim() !== "" && !line.startsWith("<!--"));
  return lines[0] ?? "";
}

/** The part of a comment above its first collapsed block: what a reader sees without a click. */
function visiblePart(text: string): string {
  const cut = text.indexOf("<details>");
  return cut === -1 ? text : text.slice(0, cut);
}

function checkHeadline(where: string, line: string, decision: Decision, markdown: boolean) {
  const context = `${where}: ${line}`;
  if (decision.basis === "inconclusive") {
    // Never a pass: no ✅, no "No regression detected", and what would make it conclusive.
    expect(line, context).toMatch(/Inconclusive: no regression seen, but .+ — conclusive with /);
    expect(line, context).not.toMatch(PASS_WORDS);
    if (markdown && !decision.incomplete) expect(line, context).toMatch(/🟡/u);
  }
  if (decision.failed) {
    expect(line, context).toMatch(FAIL_WORDS);
    expect(line, context).not.toMatch(PASS_WORDS);
    if (markdown) expect(line, context).toMatch(/🔴|❌/);
    // Every regressed scenario and gate-metric finding is named on line one.
    const named = [...decision.regressed, ...decision.regressed_metrics.flatMap((m) => m.scenarios)];
    for (const key of named) {
      expect(line, `${context} names ${key}`).toContain(markdown ? markdownCode(key) : key);
    }
  } else {
    expect(line, context).not.toMatch(FAIL_WORDS);
    if (markdown) expect(line, context).not.toMatch(/🔴|❌/);
  }
}

function checkBody(where: string, text: string, decision: Decision) {
  if (decision.failed) {
    expect(text, `${where} says no regression while failed`).not.toMatch(/No regression detected/i);
    expect(visiblePart(text), `${where} shows a pass line while failed`).not.toMatch(/^(## |# )?✅/m);
  } else {
    expect(text, `${where} flags a regression while passing`).not.toContain("🔴");
  }
  if (decision.basis === "inconclusive") {
    expect(visiblePart(text), `${where} shows a pass line while inconclusive`).not.toMatch(/^(## |# )?✅/m);
  }
}

function checkCase(c: SimulatedCase) {
  const decision = decide({
    head: c.head,
    baseline: c.baseline,
    ...(c.pooling ? { pooling: c.pooling } : {}),
    failOn: parseFailOn(c.failOnText, "fail-on"),
    gateMetrics: c.gateMetrics,
    ...(c.extraTrials > 0 ? { extraTrials: c.extraTrials } : {}),
  });
  const comparison = c.baseline
    ? compareReports(c.baseline, c.head, { bootstrapResamples: 100, permutationResamples: 100 })
    : null;
  const baselineNote: BaselineNote = c.baseline
    ? {
        status: "found",
        source: {
          kind: "auto",
          sha: null,
          runId: 1,
          runNumber: 1,
          runUrl: null,
          file: "baseline/report.json",
          artifactId: 1,
          createdAt: "2025-01-01T00:00:00.000Z",
          matchesBaseSha: true,
        },
        baseRef: "main",
        baseSha: null,
        moreRuns: (c.pooling?.runs.length ?? 1) - 1,
      }
    : { status: "missing", reason: "no successful run on `main` yet" };
  const layout = {
    report: c.head,
    decision,
    comparison,
    baseline: baselineNote,
    runUrl: null,
    artifactUrl: null,
    headSha: null,
    now: Date.parse("2025-01-02T00:00:00.000Z"),
  };

  const comment = renderComment({ key: "suite", ...layout });
  expect(comment.startsWith("<!--"), "the comment opens with its marker").toBe(true);
  checkHeadline("comment", firstLine(comment), decision, true);
  checkBody("comment", comment, decision);

  const summary = renderJobSummary(layout);
  checkHeadline("job summary", firstLine(summary), decision, true);
  checkBody("job summary", summary, decision);

  const reportMd = renderReportMarkdown(c.head, { decision });
  checkHeadline("report.md", firstLine(reportMd), decision, true);
  checkBody("report.md", reportMd.slice(0, reportMd.indexOf("\n## ")), decision);

  const terminal = renderTerminalSummary(c.head, { decision });
  checkHeadline("terminal summary", firstLine(terminal), decision, false);
  expect(terminal, "the run's line carries no verdict under a decision").not.toMatch(/\bPASSED\b|\bFAILED\b/);

  const html = renderReportHtml({ report: c.head, decision, ...(comparison ? { comparison } : {}) });
  if (decision.failed) expect(html, "report.html").not.toMatch(/No regression detected/);
  else expect(html, "report.html").not.toContain("🔴");
  if (decision.basis === "inconclusive") {
    expect(html, "report.html's card").toContain('<div class="value">inconclusive</div>');
  }

  if (comparison) {
    const comparisonMd = renderComparisonMarkdown(comparison, decision);
    checkHeadline("comparison.md", firstLine(comparisonMd), decision, true);
    checkBody("comparison.md", comparisonMd, decision);
    const comparisonTerminal = renderComparisonTerminal(comparison, decision);
    checkHeadline("comparison terminal", firstLine(comparisonTerminal), decision, false);
    const json = buildComparisonJson(comparison, decision, c.head);
    expect(json.decision?.failed, "comparison.json").toBe(decision.failed);
    expect(json.decision?.regressed, "comparison.json").toEqual(decision.regressed);
  }

  const outputs = buildOutputs({
    report: c.head,
    reportPath: "out/report.json",
    comparison,
    decision,
    baseline: baselineNote,
    artifactId: null,
    artifactUrl: null,
    commentUrl: null,
  });
  const output = JSON.parse(outputs.decision) as { failed: boolean; regressed: string[]; reason: string };
  expect(output.failed, "the action's decision output").toBe(decision.failed);
  expect(output.regressed).toEqual(decision.regressed);
  checkHeadline("the action's reason", output.reason, decision, false);

  const exit = exitCodeForDecision(decision);
  expect(exit === 1, "the CLI exits 1 exactly when the decision fails").toBe(decision.failed);
  if (!decision.failed) expect(exit, "0, or 3 when incomplete").toBe(decision.incomplete ? 3 : 0);
  return decision;
}

describe("gate and comment agree in every simulated case", () => {
  it(`renders ${CASES} seeded random suites as their one decision`, { timeout: 120_000 }, () => {
    const rng = createRng(SEED);
    const tally = {
      failed: 0,
      regressed: 0,
      manyRegressed: 0,
      suite: 0,
      metrics: 0,
      bases: new Set<string>(),
    };
    for (let i = 0; i < CASES; i++) {
      const c = drawCase(rng, i);
      let decision: Decision;
      try {
        decision = checkCase(c);
      } catch (error) {
        (error as Error).message = `${c.label}\n${(error as Error).message}`;
        throw error;
      }
      tally.bases.add(decision.basis);
      if (decision.failed) tally.failed++;
      if (decision.regressed.length > 0) tally.regressed++;
      if (decision.regressed.length > 4) tally.manyRegressed++;
      if (decision.suite_regressed) tally.suite++;
      if (decision.regressed_metrics.length > 0) tally.metrics++;
    }
    // The simulation reaches every kind of decision, or it proves little.
    expect([...tally.bases].sort()).toEqual(
      ["inconclusive", "never", "no_baseline", "no_regression", "outcome", "pass_rate", "regression"].sort(),
    );
    expect(tally.failed).toBeGreaterThan(CASES / 10);
    expect(tally.regressed).toBeGreaterThan(5);
    expect(
      tally.manyRegressed,
      "cases with more regressed scenarios than the headline details",
    ).toBeGreaterThan(0);
    expect(tally.suite).toBeGreaterThan(0);
    expect(tally.metrics).toBeGreaterThan(0);
  });
});
