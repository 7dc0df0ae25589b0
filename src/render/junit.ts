/**
 * JUnit XML for CI dashboards and the usual test-report actions: one <testsuite> per scenario
 * (variant), one <testcase> per trial. Follows the common Jenkins/Ant schema (properties first,
 * then testcases, then system-out) so strict readers accept it.
 */

import type { Decision } from "../compare/decision.js";
import { entriesOfRun, modelsOfRun } from "../results/model-matrix.js";
import { scenarioKey } from "../results/scenario-key.js";
import type { Report, ScenarioReport, TrialReport } from "../results/types.js";
import { findVerdict, formatVerdict } from "./decision.js";
import { escapeXmlAttribute, escapeXmlText } from "./escape.js";
import { formatNumber } from "./format.js";

const MAX_MESSAGE_CHARS = 1000;

function seconds(ms: number): string {
  return (Math.max(0, ms) / 1000).toFixed(3);
}

/** The Ant schema's timestamp: ISO 8601 without zone or fraction (read as UTC). */
function junitTimestamp(iso: string): string | null {
  const match = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})/.exec(iso);
  return match ? (match[1] as string) : null;
}

function suiteName(scenario: ScenarioReport): string {
  return scenarioKey(scenario);
}

function attributes(values: Record<string, string | number | null>): string {
  return Object.entries(values)
    .filter(([, v]) => v !== null)
    .map(([k, v]) => ` ${k}="${escapeXmlAttribute(String(v))}"`)
    .join("");
}

function clipMessage(text: string): string {
  return text.length <= MAX_MESSAGE_CHARS ? text : `${text.slice(0, MAX_MESSAGE_CHARS - 1)}…`;
}

function gateLabel(gate: TrialReport["gates"][number]): string {
  return gate.description ? `${gate.gate_type} (${gate.description})` : gate.gate_type;
}

/** One line for the message attribute; the element's text has every detail. */
function describeFailure(trial: TrialReport): { message: string; body: string } {
  const failed = trial.gates.filter((g) => !g.passed);
  const reason = trial.reason ?? "failed";
  const summary = failed.length > 0 ? `${reason}; failed gates: ${failed.map(gateLabel).join(", ")}` : reason;
  const lines = [`Reason: ${reason}`];
  if (failed.length > 0) {
    lines.push("", `Failed gates (${failed.length} of ${trial.gates_total}):`);
    for (const gate of failed) lines.push(`- ${gateLabel(gate)}: ${gate.message}`);
  }
  const judge = trial.judge_response;
  if (judge) {
    lines.push(
      "",
      `Judge score ${trial.judge_score === null ? "n/a" : formatNumber(trial.judge_score)} (confidence ${formatNumber(judge.confidence)})`,
    );
    for (const issue of judge.issues) lines.push(`- ${issue}`);
  }
  lines.push(
    "",
    `Ended by ${trial.end_reason ?? "unknown"} after ${trial.execution.turns} turn(s), ${trial.execution.tool_calls} tool call(s), ${trial.interaction.total_commands} target command(s).`,
  );
  return { message: clipMessage(summary), body: lines.join("\n") };
}

function renderResult(trial: TrialReport): string {
  switch (trial.outcome) {
    case "pass":
      return "";
    case "fail": {
      const { message, body } = describeFailure(trial);
      return `<failure${attributes({ message, type: "fail" })}>${escapeXmlText(body)}</failure>`;
    }
    case "error": {
      const reason = trial.reason ?? "the trial could not be evaluated";
      const type = trial.end_reason ?? "error";
      return `<error${attributes({ message: clipMessage(reason), type })}>${escapeXmlText(reason)}</error>`;
    }
    case "skipped":
      return `<skipped${attributes({ message: trial.reason === null ? null : clipMessage(trial.reason) })}/>`;
  }
}

/** How the junit format names scenario files. */
export interface JunitOptions {
  /**
   * The repository root (the git root, or the working directory outside git): `file` attributes
   * are relative to it, as annotating actions expect. Absent: the paths as the report has them.
   */
  root?: string;
  /** The decision: each compared scenario's verdict against the baseline becomes its `verdict` property. */
  decision?: Decision;
}

/** A path relative to `root` with forward slashes, when it lies inside it; else as it is. */
function relativeToRoot(file: string, root: string | undefined): string {
  if (!root) return file;
  const normalizedRoot = root.replace(/\\/g, "/").replace(/\/+$/, "");
  const normalizedFile = file.replace(/\\/g, "/");
  return normalizedFile.startsWith(`${normalizedRoot}/`)
    ? normalizedFile.slice(normalizedRoot.length + 1)
    : file;
}

function renderTestcase(scenario: ScenarioReport, trial: TrialReport, options: JunitOptions): string {
  const open = `<testcase${attributes({
    classname: scenario.category,
    name: `${suiteName(scenario)} #${trial.trial}`,
    time: seconds(trial.execution.duration_ms),
    // Not in the Ant schema, but what pytest and Surefire write and what annotating actions read.
    file: relativeToRoot(scenario.source.file, options.root),
    line: scenario.source.line,
  })}>`;
  const out = [
    trial.transcript_path ? `transcript: ${trial.transcript_path}` : "",
    trial.events_path ? `events: ${trial.events_path}` : "",
  ].filter(Boolean);
  const parts = [
    renderResult(trial),
    out.length ? `<system-out>${escapeXmlText(out.join("\n"))}</system-out>` : "",
  ];
  return `    ${open}${parts.join("")}</testcase>`;
}

function countOutcome(trials: TrialReport[], outcome: TrialReport["outcome"]): number {
  return trials.filter((t) => t.outcome === outcome).length;
}

function sumSeconds(trials: TrialReport[]): number {
  return trials.reduce((total, t) => total + Math.max(0, t.execution.duration_ms), 0);
}

/** The decision's verdict in its plain words (render/decision.ts); null when it did not judge the scenario. */
function verdictOf(decision: Decision | undefined, scenario: ScenarioReport): string | null {
  const verdict = findVerdict(decision, suiteName(scenario));
  return verdict === null ? null : formatVerdict(verdict, { icon: false });
}

function renderTestsuite(
  report: Report,
  scenario: ScenarioReport,
  index: number,
  options: JunitOptions,
): string {
  const trials = scenario.trials;
  const properties: [string, string | null][] = [
    ["category", scenario.category],
    ["variant", scenario.variant],
    ["description", scenario.description],
    ["tags", scenario.tags.length ? scenario.tags.join(",") : null],
    ["source", `${relativeToRoot(scenario.source.file, options.root)}:${scenario.source.line}`],
    ["pass_rate", scenario.summary.pass_rate === null ? null : String(scenario.summary.pass_rate)],
    ["flakiness", scenario.summary.flakiness],
    ["verdict", verdictOf(options.decision, scenario)],
  ];
  const propertyXml = properties
    .filter((p): p is [string, string] => p[1] !== null)
    .map(([name, value]) => `      <property${attributes({ name, value })}/>`);
  return [
    `  <testsuite${attributes({
      name: suiteName(scenario),
      id: index,
      package: scenario.category,
      tests: trials.length,
      failures: countOutcome(trials, "fail"),
      errors: countOutcome(trials, "error"),
      skipped: countOutcome(trials, "skipped"),
      time: seconds(sumSeconds(trials)),
      timestamp: junitTimestamp(report.run.started_at),
      hostname: "localhost",
    })}>`,
    `    <properties>`,
    ...propertyXml,
    `    </properties>`,
    ...trials.map((t) => renderTestcase(scenario, t, options)),
    `  </testsuite>`,
  ].join("\n");
}

/** "llm-tool-test (m1, m2)", or by entry for an agent matrix: "llm-tool-test (codex · gpt-5, …)". */
function suiteNameOf(report: Report): string {
  const entries = entriesOfRun(report.run);
  const names = entries.length > 0 ? entries : modelsOfRun(report.run);
  return `llm-tool-test${names.length > 0 ? ` (${names.join(", ")})` : ""}`;
}

/** The report as JUnit XML. Pure. */
export function renderJunitXml(report: Report, options: JunitOptions = {}): string {
  const all = report.scenarios.flatMap((s) => s.trials);
  const head = `<testsuites${attributes({
    name: suiteNameOf(report),
    tests: all.length,
    failures: countOutcome(all, "fail"),
    errors: countOutcome(all, "error"),
    skipped: countOutcome(all, "skipped"),
    time: seconds(sumSeconds(all)),
    timestamp: junitTimestamp(report.run.started_at),
  })}>`;
  return [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    head,
    ...report.scenarios.map((s, i) => renderTestsuite(report, s, i, options)),
    `</testsuites>`,
    "",
  ].join("\n");
}
