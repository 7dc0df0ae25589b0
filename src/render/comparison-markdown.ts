/**
 * The comparison for people: Markdown (comparison.md, and the blocks of the PR comment) and plain
 * text for the terminal. Pure: a Comparison and the Decision in, a string out.
 *
 * Pass/fail is the decision's (compare/decision.ts) and nothing else: the first line states it, the
 * only verdict marks are the decision's (regressed scenarios, gate metrics). Everything else the
 * Comparison computed is shown as what it is — an estimate of the change with its interval.
 */

import type {
  Decision,
  DecisionScenario,
  MetricFamily,
  PassCount,
  ScenarioVerdict,
} from "../compare/decision.js";
import { LAYER_ONE_METRICS, PASS_RATE } from "../compare/metrics.js";
import type {
  Comparison,
  MetricComparison,
  ScenarioComparison,
  ScenarioStatus,
  SideSummary,
  SuiteMetricComparison,
} from "../compare/types.js";
import { formatTolerance } from "../results/tolerance-gates.js";
import { SCENARIO_TEST_RUNS } from "../stats/run-clusters.js";
import { fisherExactTest } from "../stats/stats.js";
import {
  formatVerdict,
  renderDecisionHeadline,
  renderDecisionReason,
  renderDesignLine,
  renderScopeLines,
  renderScopeLinesPlain,
} from "./decision.js";
import {
  escapeMarkdownCell,
  escapePlainText,
  markdownCode,
  markdownHtml,
  markdownText,
  stripControls,
} from "./escape.js";
import {
  formatDeltaWithInterval,
  formatMetricDelta,
  formatMetricInterval,
  formatMetricValue,
  formatP,
  formatPStatement,
} from "./format.js";
import { STATUS_LABEL } from "./labels.js";

/** Room left under GitHub's 65,536-character comment limit for the rest of the comment. */
const DEFAULT_MAX_CHARS = 60_000;

const METRIC_LABEL: Record<string, string> = {
  error_rate: "error rate",
  retry_rate: "retry rate",
  help_invocations: "help invocations",
  first_try_success_rate: "first-try success",
  iteration_ratio: "iteration ratio",
  total_commands: "commands",
  completed: "completion",
};

function metricLabel(metric: string): string {
  return METRIC_LABEL[metric] ?? metric.replaceAll("_", " ");
}

/** Labels that only restate "nothing moved". */
const QUIET_STATUSES: ReadonlySet<ScenarioStatus> = new Set([
  "still_passing",
  "still_failing",
  "still_flaky",
]);

export interface MarkdownOptions {
  /** Upper bound on the output's length; detail is dropped to fit, never the decision. */
  maxChars?: number;
  /** Render the per-scenario `<details>` expanded. */
  detailsOpen?: boolean;
}

// ---------------------------------------------------------------------------------------------
// The scenarios, as the decision sees them
// ---------------------------------------------------------------------------------------------

/** A matched scenario: the decision's counts and verdicts when it has them, the comparison's otherwise. */
interface ScenarioLine {
  key: string;
  status: ScenarioStatus;
  base: PassCount;
  head: PassCount;
  /**
   * The adjusted p of the test that decided its verdict (the improvement test's for an improved
   * scenario); null when the decision did not test it (fail-on outcome, one trial each, no data).
   */
  adjustedP: number | null;
  regressed: boolean;
  /** The decision's verdict (render/decision.ts words it); null without a decision on this scenario. */
  verdict: ScenarioVerdict | null;
  regressedMetrics: string[];
  extended: boolean;
  /** The head's first trials (the rest are adaptive extra trials); null when the decision did not say. */
  headFirst: PassCount | null;
  /** The base counts the scenario's own test compared with, when not `base` (decision.ts, tested_base). */
  testedBase: PassCount | null;
  /** The decision moved the tested base along the base branch's drift (its suite test's drift branch). */
  alongDrift: boolean;
  comparison: ScenarioComparison | null;
  /** The pass rate's change passes the bar (clearChange), or the decision flagged the scenario. */
  moved: boolean;
}

/** The level of the bar for "moved". */
const MOVED_LEVEL = 0.05;

/**
 * The bar for "moved": the scenario's own exact test of its pass counts (Fisher, two-sided,
 * unadjusted, all trials) gives p ≤ 0.05. Any difference at all would list most of an unchanged
 * suite (3 trials against 24 differ by chance, and 22/24 → 3/3 reads "now passing"); this lists a
 * scenario in an unchanged suite at most about one time in twenty, and a 24/24 → 2/3 not at all.
 * A description, not a verdict: only the decision fails the check.
 */
function isClearChange(base: PassCount, head: PassCount): boolean {
  if (base.trials === 0 || head.trials === 0) return false;
  const p = fisherExactTest(head.passed, head.trials - head.passed, base.passed, base.trials - base.passed);
  return p <= MOVED_LEVEL;
}

/** The bar above, as the comment states it. */
const MOVED_BAR = "its pass counts differ by Fisher's exact test at p ≤ 0.05, two-sided and unadjusted";

function sideCount(side: SideSummary): PassCount {
  return { passed: side.passed, trials: side.passed + side.failed };
}

/** The change of pass rate, for ordering worst first (0 when a side has no trial). */
function rateChange(line: ScenarioLine): number {
  if (line.base.trials === 0 || line.head.trials === 0) return 0;
  return line.head.passed / line.head.trials - line.base.passed / line.base.trials;
}

function collectScenarioLines(comparison: Comparison, decision: Decision | null): ScenarioLine[] {
  const decided = new Map<string, DecisionScenario>((decision?.scenarios ?? []).map((s) => [s.key, s]));
  // A scenario the decision did not compare (its measurement changed) is listed apart, not as moved.
  const notCompared = new Set((decision?.not_compared ?? []).map((s) => s.key));
  const compared = comparison.scenarios.filter((c) => !notCompared.has(c.key));
  const lines = compared.map((c): ScenarioLine => {
    // A scenario renamed since the baseline is matched here, not by the decision (which keys by name).
    const d = decided.get(c.key);
    const matched = d !== undefined && d.base !== null;
    const base = d?.base ?? sideCount(c.base);
    const head = d?.head ?? sideCount(c.head);
    const regressed = d?.regressed ?? false;
    const regressedMetrics = d?.regressed_metrics ?? [];
    const verdict = d?.verdict ?? null;
    return {
      key: c.key,
      status: matched ? d.status : c.status,
      base,
      head,
      adjustedP: verdict === "improved" ? d!.improvement_adjusted_p : d?.tested ? d.adjusted_p : null,
      regressed,
      verdict,
      regressedMetrics,
      extended: d?.extended ?? false,
      headFirst: d?.head_first ?? null,
      testedBase: d?.tested_base ?? null,
      alongDrift: decision?.variation?.suite_method === "trend",
      comparison: c,
      moved: regressed || regressedMetrics.length > 0 || verdict === "improved" || isClearChange(base, head),
    };
  });
  const rank = (l: ScenarioLine) =>
    l.regressed ? 0 : l.regressedMetrics.length > 0 ? 1 : l.verdict === "improved" ? 2 : 3;
  return lines.sort((a, b) => rank(a) - rank(b) || rateChange(a) - rateChange(b));
}

function describeCounts(line: Pick<ScenarioLine, "base" | "head">): string {
  return `${line.base.passed}/${line.base.trials} → ${line.head.passed}/${line.head.trials}`;
}

/**
 * Plain labels; the one mark is the decision's own verdict. A status ("now passing", "newly
 * failing") only for a change past the bar (isClearChange): otherwise it names noise.
 */
function describeLabels(line: ScenarioLine, code: (text: string) => string): string[] {
  const labels: string[] = [];
  // The decision's verdict, in its words; a regression in a gate metric alone is named below.
  if (line.verdict && !(line.verdict === "regressed" && !line.regressed))
    labels.push(formatVerdict(line.verdict));
  for (const metric of line.regressedMetrics) labels.push(`🔴 ${code(metric)} regressed`);
  const clear = line.regressed || line.verdict === "improved" || isClearChange(line.base, line.head);
  if (clear && !QUIET_STATUSES.has(line.status)) labels.push(STATUS_LABEL[line.status]);
  if (line.extended) labels.push(describeExtraTrials(line));
  if (line.testedBase && line.adjustedP !== null)
    labels.push(describeTestedBase(line.testedBase, line.alongDrift));
  const c = line.comparison;
  if (c?.renamed_from) labels.push(`renamed from ${code(c.renamed_from)}`);
  if (c?.content_changed) labels.push("content changed");
  return labels;
}

/**
 * "tested against 24/24, the newest 8 runs": the row's base is every pooled run, its p the newest
 * runs' (moved along the drift when the decision found one), so the two never seem to disagree.
 */
function describeTestedBase(tested: PassCount, alongDrift: boolean): string {
  return `tested against ${tested.passed}/${tested.trials}, the newest ${SCENARIO_TEST_RUNS} runs${alongDrift ? " moved along the drift" : ""}`;
}

/** "all 11 trials: 3 first + 8 extra": the row's head counts include the adaptive extra trials. */
function describeExtraTrials(line: ScenarioLine): string {
  const first = line.headFirst?.trials;
  if (first === undefined || first >= line.head.trials) return "extra trials";
  return `all ${line.head.trials} trials: ${first} first + ${line.head.trials - first} extra`;
}

/** The regression test ran (whatever its outcome): its p-values are shown. */
function isDecided(decision: Decision | null): decision is Decision {
  // `!= null`: a caller without the decision yet may pass undefined.
  return (
    decision != null &&
    (decision.basis === "regression" ||
      decision.basis === "no_regression" ||
      decision.basis === "inconclusive")
  );
}

function pVerdict(decision: Decision | null, rejected: boolean) {
  return decision ? { alpha: decision.alpha, rejected } : undefined;
}

/** Whether the line's adjusted p was rejected: by the regression test, or (improved) by the improvement test. */
function lineRejected(line: ScenarioLine): boolean {
  return line.regressed || line.verdict === "improved";
}

const cellCode = (text: string) => escapeMarkdownCell(markdownCode(text));

// ---------------------------------------------------------------------------------------------
// Blocks
// ---------------------------------------------------------------------------------------------

/** The comparison's blocks, shared by comparison.md and the PR comment. */
export interface ComparisonBlocks {
  warnings: string;
  /** The layer-1 metrics over the suite: base → head, the change and its interval. */
  suiteTable: string;
  /** The header of the moved scenarios' table and its rows, worst first (empty when none moved). */
  scenarioHeader: string;
  scenarioRows: string[];
  /** "27 scenarios unchanged." and any added, removed or renamed. */
  scenarioSummary: string;
  /** Per-scenario metric diffs, moved scenarios first. */
  details: string[];
  legend: string;
}

export function buildComparisonBlocks(
  comparison: Comparison,
  decision: Decision | null,
  options: { detailsOpen?: boolean } = {},
): ComparisonBlocks {
  const lines = collectScenarioLines(comparison, decision);
  const moved = lines.filter((l) => l.moved);
  const decided = isDecided(decision);
  const open = options.detailsOpen ? " open" : "";
  return {
    warnings: renderWarnings(comparison),
    suiteTable: renderSuiteTable(comparison, decision),
    scenarioHeader: moved.length > 0 ? renderScenarioHeader(decided) : "",
    scenarioRows: moved.map((l) => renderScenarioRow(l, decided ? decision : null)),
    scenarioSummary: renderScenarioSummary(comparison, lines.length - moved.length, moved.length, decision),
    details: lines.map((l) => renderScenarioDetails(l, decision, open)),
    legend: renderLegend(decision),
  };
}

/**
 * The comparison's warnings as a GitHub warning callout, each as plain text: whatever a warning
 * carries (model names, scenario keys, paths) is escaped.
 */
function renderWarnings(c: Comparison): string {
  if (c.warnings.length === 0) return "";
  return ["> [!WARNING]", ...c.warnings.map((w) => `> - ${markdownText(w.message)}`)].join("\n");
}

function gateFamily(decision: Decision | null, metric: string): MetricFamily | undefined {
  return decision?.secondary.find((f) => f.metric === metric);
}

function renderSuiteTable(comparison: Comparison, decision: Decision | null): string {
  const gated = (decision?.secondary ?? []).map((f) => f.metric);
  const wanted = [...LAYER_ONE_METRICS, ...gated.filter((m) => !LAYER_ONE_METRICS.includes(m))];
  const metrics = wanted
    .map((name) => comparison.suite.metrics.find((m) => m.metric === name))
    .filter((m): m is SuiteMetricComparison => m !== undefined && m.scenarios > 0);
  if (metrics.length === 0) return "";
  const withGate = gated.length > 0;
  const columns = [
    `Suite (${comparison.suite.scenarios} scenario${comparison.suite.scenarios === 1 ? "" : "s"})`,
    "Base → head",
    "Change (95% CI)",
    ...(withGate ? ["Gate"] : []),
  ];
  const rows = metrics.map((m) => {
    const cells = [
      markdownText(metricLabel(m.metric)),
      `${formatMetricValue(m, m.base_mean)} → ${formatMetricValue(m, m.head_mean)}`,
      formatDeltaWithInterval(m, m.delta, m.ci_low, m.ci_high),
    ];
    if (withGate) cells.push(describeGate(gateFamily(decision, m.metric)));
    return `| ${cells.join(" | ")} |`;
  });
  const table = [`| ${columns.join(" | ")} |`, `|${columns.map(() => "---").join("|")}|`, ...rows];
  if (comparison.suite.first_trials_only) table.push("", `<sub>${FIRST_TRIALS_NOTE}</sub>`);
  return table.join("\n");
}

/** Under the suite table when some scenario got extra trials. */
const FIRST_TRIALS_NOTE =
  "Suite rows count each scenario's first trials only: extra trials, run only where the head started worse than the baseline, would bias them towards the head. Scenario rows count all trials.";

/** The decision's verdict on a gate metric: where it regressed, or that it did not. */
function describeGate(family: MetricFamily | undefined): string {
  if (!family) return "";
  const regressed = family.scenarios.filter((s) => s.regressed);
  if (regressed.length === 0) return "✅ no regression";
  return `🔴 regressed in ${regressed.map((s) => cellCode(s.key)).join(", ")}`;
}

function renderScenarioHeader(decided: boolean): string {
  const columns = ["Scenario", "Passed (base → head)", ...(decided ? ["Adjusted p"] : []), "Notes"];
  return [`| ${columns.join(" | ")} |`, `|${columns.map(() => "---").join("|")}|`].join("\n");
}

function renderScenarioRow(line: ScenarioLine, decision: Decision | null): string {
  const cells = [cellCode(line.key), describeCounts(line)];
  if (decision) cells.push(formatP(line.adjustedP, pVerdict(decision, lineRejected(line))));
  cells.push(describeLabels(line, cellCode).join(" · "));
  return `| ${cells.join(" | ")} |`;
}

function listNames(names: readonly string[]): string {
  return names.map(markdownCode).join(", ");
}

/** "28 other scenarios without a clear change (…)": the scenarios under the bar, and the bar. */
function describeUnmoved(unmoved: number, moved: number): string {
  const all = moved === 0 && unmoved > 1 ? "All " : "";
  const other = moved > 0 ? "other " : "";
  const scenarios = `${all}${unmoved} ${other}scenario${unmoved === 1 ? "" : "s"}`;
  return `${scenarios} without a clear change (a scenario is listed when ${MOVED_BAR})`;
}

function renderScenarioSummary(
  c: Comparison,
  unchanged: number,
  moved: number,
  decision: Decision | null,
): string {
  const parts: string[] = [];
  // A scenario the pooled baseline left out (its content changed) is not new: say why it is not compared.
  const leftOut = new Set(
    (decision?.baseline?.excluded ?? []).flatMap((e) => (e.scenario === null ? [] : [e.scenario])),
  );
  // The decision's not-compared scenarios are listed under its headline, with their head results.
  const listed = new Set((decision?.not_compared ?? []).map((s) => s.key));
  const added = c.added.filter((s) => !leftOut.has(s.key) && !listed.has(s.key));
  const changed = c.added.filter((s) => leftOut.has(s.key) && !listed.has(s.key));
  if (unchanged > 0) parts.push(`${describeUnmoved(unchanged, moved)}.`);
  if (added.length) parts.push(`Added (${added.length}): ${listNames(added.map((s) => s.key))}.`);
  if (changed.length) {
    parts.push(
      `Not compared, changed since the baseline runs (${changed.length}): ${listNames(changed.map((s) => s.key))}.`,
    );
  }
  if (c.removed.length)
    parts.push(`Removed (${c.removed.length}): ${listNames(c.removed.map((s) => s.key))}.`);
  if (c.renamed.length) {
    const renamed = c.renamed.map((r) => `${markdownCode(r.from)} → ${markdownCode(r.to)}`).join(", ");
    parts.push(`Renamed (${c.renamed.length}): ${renamed}.`);
  }
  return parts.join(" ");
}

function sideText(label: string, x: SideSummary): string {
  return (
    `${label}: ${x.trials} trial${x.trials === 1 ? "" : "s"} (${x.passed} passed, ${x.failed} failed` +
    `${x.errors ? `, ${x.errors} errors` : ""}${x.skipped ? `, ${x.skipped} skipped` : ""})`
  );
}

/** A gate metric's row shows the decision's adjusted p instead of the (unadjusted) interval. */
function renderMetricRow(
  m: MetricComparison,
  family: MetricFamily | undefined,
  key: string,
  alpha: number,
): string {
  const finding = family?.scenarios.find((s) => s.key === key);
  const verdict = { alpha, rejected: finding?.regressed === true };
  // A tolerance gate is read off the interval shown: the interval, then the limit and the gate's p.
  const change = family?.tolerance_gate
    ? `${formatDeltaWithInterval(m, m.delta, m.ci_low, m.ci_high)}${
        finding?.tolerance !== undefined && finding.adjusted_p !== null
          ? ` · limit ${formatTolerance(finding.tolerance)}, ${formatPStatement("adjusted p", finding.adjusted_p, verdict)}${finding.regressed ? " 🔴 regressed" : ""}`
          : ""
      }`
    : family
      ? `${formatMetricDelta(m, m.delta)}${finding?.adjusted_p != null ? `, ${formatPStatement("adjusted p", finding.adjusted_p, { alpha, rejected: finding.regressed })}` : ""}${finding?.regressed ? " 🔴 regressed" : ""}`
      : formatDeltaWithInterval(m, m.delta, m.ci_low, m.ci_high);
  const cells = [
    markdownText(metricLabel(m.metric)),
    formatMetricValue(m, m.base_mean),
    formatMetricValue(m, m.head_mean),
    change,
  ];
  return `| ${cells.join(" | ")} |`;
}

function renderScenarioDetails(line: ScenarioLine, decision: Decision | null, open: string): string {
  const c = line.comparison;
  const labels = describeLabels(line, (t) => `<code>${markdownHtml(t)}</code>`);
  const summary = [`<code>${markdownHtml(line.key)}</code>`, describeCounts(line), ...labels].join(" · ");
  const passRow = `| pass rate | ${line.base.passed}/${line.base.trials} | ${line.head.passed}/${line.head.trials} | ${
    line.adjustedP === null
      ? "not tested"
      : formatPStatement("adjusted p", line.adjustedP, pVerdict(decision, lineRejected(line)))
  } |`;
  const rows = (c?.metrics ?? [])
    .filter((m) => m.metric !== PASS_RATE)
    .map((m) => renderMetricRow(m, gateFamily(decision, m.metric), line.key, decision?.alpha ?? 0.05));
  return [
    `<details${open}><summary>${summary}</summary>`,
    "",
    ...(c ? [`${sideText("Baseline", c.base)}; ${sideText("head", c.head)}.`, ""] : []),
    "| Metric | Base | Head | Change (95% CI) |",
    "|---|---|---|---|",
    passRow,
    ...rows,
    "",
    "</details>",
  ].join("\n");
}

function renderLegend(decision: Decision | null): string {
  if (!isDecided(decision)) {
    return "<sub>Changes are head − base with their 95% intervals: estimates, not tests; no pass/fail decision was made from them.</sub>";
  }
  const names = (families: readonly MetricFamily[]) =>
    families.map((f) => markdownText(f.metric.replaceAll("_", " "))).join(", ");
  const gates = decision.secondary.filter((f) => !f.tolerance_gate);
  const tolerances = decision.secondary.filter((f) => f.tolerance_gate);
  const gateText =
    (gates.length > 0
      ? ` Gate metrics (${names(gates)}): one one-sided family each over the scenarios, Holm, α split equally with the pass rate.`
      : "") +
    (tolerances.length > 0
      ? ` Tolerance gates (${names(tolerances)}): a scenario fails when the one-sided bound shows its mean exceeds the base's by more than the limit; one family each, Holm, α split equally.`
      : "");
  return (
    `<sub>Pass/fail: each scenario's pass counts, one-sided exact test (Boschloo), Holm over the scenarios, ` +
    `and a stratified suite test (CMH); α = ${decision.alpha} in all.${gateText} ` +
    (decision.improved.length > 0 || decision.suite_improved
      ? "🟢 improved: the same tests in the other direction, on the head's first trials, at their own α; never gates. "
      : "") +
    `Other figures are head − base with 95% intervals: estimates, never verdicts.</sub>`
  );
}

// ---------------------------------------------------------------------------------------------
// comparison.md
// ---------------------------------------------------------------------------------------------

function renderTitle(comparison: Comparison, decision: Decision | null): string {
  if (!decision) {
    const n = comparison.counts.matched;
    return `### Compared: ${n} scenario${n === 1 ? "" : "s"} (described; no pass/fail decision)`;
  }
  const design = renderDesignLine(decision);
  return [`### ${renderDecisionHeadline(decision)}`, ...(design ? [design] : [])].join("\n");
}

/** The moved scenarios' table, rows dropped from the end to fit `room` (with a note of how many). */
export function fitScenarioTable(blocks: ComparisonBlocks, room: number): string {
  const { scenarioHeader, scenarioRows } = blocks;
  if (scenarioRows.length === 0) return "";
  const omission = (n: number) =>
    `\n\n_… and ${n} more moved scenario${n === 1 ? "" : "s"}; the full comparison is in the report artifact._`;
  const reserve = omission(scenarioRows.length).length;
  let body = scenarioHeader;
  let shown = 0;
  for (const row of scenarioRows) {
    const rest = scenarioRows.length - shown - 1;
    if (body.length + 1 + row.length + (rest > 0 ? reserve : 0) > room) break;
    body += `\n${row}`;
    shown++;
  }
  if (shown === 0) return "";
  return shown < scenarioRows.length ? body + omission(scenarioRows.length - shown) : body;
}

/**
 * comparison.md: the decision first (it names every regressed scenario, or says no regression was
 * detected), what the run could detect, then the suite's metrics, the scenarios that moved, and
 * per-scenario details. `decision` null: described only (guidance variants side by side).
 */
export function renderComparisonMarkdown(
  comparison: Comparison,
  decision: Decision | null,
  options: MarkdownOptions = {},
): string {
  const maxChars = options.maxChars ?? DEFAULT_MAX_CHARS;
  const title = renderTitle(comparison, decision);
  if (title.length > maxChars) return `${title.slice(0, Math.max(0, maxChars - 1))}…`;
  const blocks = buildComparisonBlocks(comparison, decision, options);
  let room = maxChars - title.length;
  const take = (block: string): boolean => {
    if (block.length === 0 || block.length + 2 > room) return false;
    room -= block.length + 2;
    return true;
  };
  // Budget in priority order; output in reading order. First what the comparison covered: the
  // treatment the PR changed and the scenarios not compared.
  const scopeBlock = decision ? renderScopeLines(decision).join("\n\n") : "";
  const scope = take(scopeBlock) ? scopeBlock : "";
  const summary = take(blocks.scenarioSummary) ? blocks.scenarioSummary : "";
  const warnings = take(blocks.warnings) ? blocks.warnings : "";
  const scenarioTable = fitScenarioTable(blocks, room - 2);
  take(scenarioTable);
  const suiteTable = take(blocks.suiteTable) ? blocks.suiteTable : "";
  const legend = take(blocks.legend) ? blocks.legend : "";
  const details: string[] = [];
  for (const d of blocks.details) {
    if (!take(d)) break;
    details.push(d);
  }
  // Untrusted text was escaped where it was placed; no control character of anyone's passes.
  return stripControls(
    [title, scope, warnings, suiteTable, scenarioTable, summary, ...details, legend]
      .filter((b) => b.length > 0)
      .join("\n\n"),
  );
}

// ---------------------------------------------------------------------------------------------
// Terminal
// ---------------------------------------------------------------------------------------------

export interface TerminalOptions {
  /** ANSI colours for the decision; default off. */
  color?: boolean;
}

const RED = "\u001b[31m";
const GREEN = "\u001b[32m";
const YELLOW = "\u001b[33m";
const RESET = "\u001b[0m";

function describeSide(r: Comparison["base"]): string {
  const models = r.models && r.models.length > 1 ? `models ${r.models.join(", ")}` : (r.model ?? "no model");
  // An agent matrix is named by its entries (agent · model), never by its first agent.
  const who =
    r.entries && r.entries.length > 0 ? [`agents · models ${r.entries.join(", ")}`] : [r.agent, models];
  const parts = [r.run_id, ...who, `llm-tool-test ${r.harness_version}`];
  if (r.git_sha) parts.push(r.git_sha.slice(0, 7));
  return parts.map(escapePlainText).join(", ");
}

function terminalTable(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map(
    (r) => `  ${r.map((cell, j) => (j < r.length - 1 ? cell.padEnd(widths[j]!) : cell)).join("  ")}`,
  );
}

/** The comparison as plain text: the decision's sentence first, then the same blocks as the Markdown. */
export function renderComparisonTerminal(
  comparison: Comparison,
  decision: Decision | null,
  options: TerminalOptions = {},
): string {
  const c = comparison;
  const plain = escapePlainText;
  const first = decision
    ? `Decision: ${renderDecisionReason(decision)}`
    : `Compared: ${c.counts.matched} scenarios (described; no pass/fail decision)`;
  // Inconclusive is not a pass: yellow, never green.
  const colour = decision?.failed ? RED : decision?.basis === "inconclusive" ? YELLOW : GREEN;
  const paint = (text: string) => (options.color && decision ? `${colour}${text}${RESET}` : text);
  const lines: string[] = [paint(first)];
  const design = decision ? renderDesignLine(decision) : "";
  if (design) lines.push(`  ${design}`);
  if (decision) lines.push(...renderScopeLinesPlain(decision).map((line) => `  ${line}`));
  lines.push(`  baseline ${describeSide(c.base)}`, `  head     ${describeSide(c.head)}`);
  for (const w of c.warnings) lines.push(`  ! ${plain(w.message)}`);

  const suite = LAYER_ONE_METRICS.map((name) => c.suite.metrics.find((m) => m.metric === name)).filter(
    (m): m is SuiteMetricComparison => m !== undefined && m.scenarios > 0,
  );
  if (suite.length > 0) {
    const first = c.suite.first_trials_only ? ", first trials only" : "";
    lines.push(
      "",
      `Suite (${c.suite.scenarios} scenarios, each counts once${first}; change with its 95% interval)`,
    );
    lines.push(
      ...terminalTable(
        suite.map((m) => [
          plain(metricLabel(m.metric)),
          `${formatMetricValue(m, m.base_mean)} -> ${formatMetricValue(m, m.head_mean)}`,
          formatMetricDelta(m, m.delta),
          formatMetricInterval(m, m.ci_low, m.ci_high),
        ]),
      ),
    );
  }
  const scenarioLines = collectScenarioLines(c, decision);
  const moved = scenarioLines.filter((l) => l.moved);
  const decided = isDecided(decision);
  if (moved.length > 0) {
    lines.push("", "Scenarios that moved (passed base -> head)");
    lines.push(
      ...terminalTable(
        moved.map((l) => [
          plain(l.key),
          describeCounts(l).replace("→", "->"),
          decided
            ? l.adjustedP === null
              ? "not tested"
              : formatPStatement("adjusted p", l.adjustedP, pVerdict(decision, lineRejected(l)))
            : "",
          describeLabels(l, plain)
            .join(", ")
            .replace(/🔴 |🟢 /gu, ""),
        ]),
      ),
    );
  }
  const unchanged = scenarioLines.length - moved.length;
  const listed = new Set((decision?.not_compared ?? []).map((s) => s.key));
  const added = c.added.filter((s) => !listed.has(s.key));
  const rest = [
    unchanged > 0 ? describeUnmoved(unchanged, moved.length) : "",
    added.length ? `added: ${added.map((s) => plain(s.key)).join(", ")}` : "",
    c.removed.length ? `removed: ${c.removed.map((s) => plain(s.key)).join(", ")}` : "",
    ...c.renamed.map((r) => `renamed: ${plain(r.from)} -> ${plain(r.to)}`),
  ].filter(Boolean);
  if (rest.length > 0) lines.push("", ...rest);
  return lines.join("\n").replaceAll("−", "-");
}
