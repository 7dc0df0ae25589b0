/**
 * The comparison for people: Markdown for the PR comment (compact, within a character budget) and
 * plain text for the terminal. Pure: a Comparison in, a string out.
 */

import { PASS_RATE } from "../compare/metrics.js";
import type {
  Comparison,
  MetricComparison,
  ScenarioComparison,
  SideSummary,
  SuiteMetricComparison,
  Verdict,
} from "../compare/types.js";
import { escapeHtml } from "./escape.js";
import {
  formatMetricDelta,
  formatMetricInterval,
  formatMetricValue,
  formatNumber,
  formatP,
} from "./format.js";
import { describeCorrection, STATUS_LABEL, VERDICT_LABEL, VERDICT_MARK } from "./labels.js";

/** Room left under GitHub's 65,536-character comment limit for the rest of the comment. */
export const DEFAULT_MAX_CHARS = 60_000;
/** Besides pass_rate, the table shows the first of these that were compared. */
const KEY_METRICS = ["first_try_success_rate", "error_rate", "total_commands", "cost_usd"];
const MAX_KEY_METRICS = 3;
const MAX_LISTED = 25;

export interface MarkdownOptions {
  /** Upper bound on the output's length; detail is dropped to fit, never the headline. */
  maxChars?: number;
  /** Render the per-scenario `<details>` expanded. */
  detailsOpen?: boolean;
}

export function renderComparisonMarkdown(comparison: Comparison, options: MarkdownOptions = {}): string {
  const maxChars = options.maxChars ?? DEFAULT_MAX_CHARS;
  const open = options.detailsOpen ? " open" : "";
  const ordered = orderScenarios(comparison.scenarios);
  const keyMetrics = KEY_METRICS.filter((m) => comparison.settings.metrics.includes(m)).slice(
    0,
    MAX_KEY_METRICS,
  );

  const headline = renderHeadline(comparison);
  const legend = renderLegend(comparison);
  const lists = renderLists(comparison);
  const warnings = renderWarnings(comparison);
  const tableHeader = renderTableHeader(keyMetrics);
  const rows = ordered.map((s) => renderRow(s, keyMetrics));
  const suite = renderSuiteDetails(comparison, open);
  const details = ordered.map((s) => renderScenarioDetails(s, open));

  if (headline.length > maxChars) return `${headline.slice(0, Math.max(0, maxChars - 1))}…`;
  let room = maxChars - headline.length;
  const take = (block: string): boolean => {
    if (block.length === 0 || block.length + 2 > room) return false;
    room -= block.length + 2;
    return true;
  };
  // Budget in priority order; output in reading order.
  const keepLegend = take(legend);
  const keepLists = take(lists);
  const keepWarnings = take(warnings);
  let table = "";
  if (rows.length > 0) {
    const omission = (n: number) =>
      `\n\n_… and ${n} more scenario${n === 1 ? "" : "s"}; the full comparison is in the report artifact._`;
    const reserve = omission(rows.length).length;
    let body = tableHeader;
    let shown = 0;
    for (const row of rows) {
      const rest = rows.length - shown - 1;
      if (body.length + 1 + row.length + 2 + (rest > 0 ? reserve : 0) > room) break;
      body += `\n${row}`;
      shown++;
    }
    if (shown > 0) {
      table = shown < rows.length ? body + omission(rows.length - shown) : body;
      if (!take(table)) table = "";
    }
  }
  const keepSuite = take(suite);
  const keptDetails: string[] = [];
  for (const d of details) {
    if (!take(d)) break;
    keptDetails.push(d);
  }
  return [
    headline,
    keepLists ? lists : "",
    keepWarnings ? warnings : "",
    table,
    keepSuite ? suite : "",
    ...keptDetails,
    keepLegend ? legend : "",
  ]
    .filter((b) => b.length > 0)
    .join("\n\n");
}

function orderScenarios(scenarios: readonly ScenarioComparison[]): ScenarioComparison[] {
  const rank = (s: ScenarioComparison) => {
    if (s.status === "newly_failing" || s.regressed.length > 0) return 0;
    if (s.status === "newly_passing" || s.improved.length > 0) return 1;
    if (s.content_changed || s.renamed_from) return 2;
    return 3;
  };
  return [...scenarios].sort((a, b) => rank(a) - rank(b));
}

function headlineTitle(c: Comparison): string {
  const { regressed, newly_failing, improved, newly_passing, matched } = c.counts;
  if (matched === 0) return "⚠️ Nothing to compare with the baseline";
  const parts: string[] = [];
  if (regressed > 0) parts.push(`${regressed} scenario${regressed === 1 ? "" : "s"} regressed`);
  if (newly_failing > 0) parts.push(`${newly_failing} newly failing`);
  if (parts.length > 0) return `🔴 ${parts.join(", ")}`;
  const good: string[] = [];
  if (improved > 0) good.push(`${improved} scenario${improved === 1 ? "" : "s"} improved`);
  if (newly_passing > 0) good.push(`${newly_passing} newly passing`);
  if (good.length > 0) return `🟢 No regressions; ${good.join(", ")}`;
  return "⚪ No significant changes";
}

function renderHeadline(c: Comparison): string {
  const v = c.counts.verdicts;
  const scope = [`${c.counts.matched} scenario${c.counts.matched === 1 ? "" : "s"} compared`];
  if (c.counts.added) scope.push(`${c.counts.added} added`);
  if (c.counts.removed) scope.push(`${c.counts.removed} removed`);
  if (c.counts.renamed) scope.push(`${c.counts.renamed} renamed`);
  const verdicts = (["regressed", "improved", "unchanged", "inconclusive", "too_few_samples"] as const)
    .map((k) => `${VERDICT_MARK[k]} ${v[k]} ${VERDICT_LABEL[k]}`)
    .join(" · ");
  const method = `α = ${c.settings.alpha}, ${describeCorrection(c.settings.correction, c.settings.family_size)}`;
  const lines = [`### ${headlineTitle(c)}`, `${scope.join(", ")}. Metric verdicts: ${verdicts} (${method}).`];
  const suitePass = c.suite.metrics.find((m) => m.metric === PASS_RATE);
  if (suitePass && suitePass.scenarios > 0) lines.push(renderSuiteLine(suitePass, c));
  return lines.join("\n");
}

function renderSuiteLine(m: SuiteMetricComparison, c: Comparison): string {
  const ci = m.ci_low === null ? "" : `, 95% CI ${formatMetricInterval(m, m.ci_low, m.ci_high)}`;
  const why = m.verdict === "too_few_samples" ? ` (needs ${c.suite.min_scenarios} scenarios)` : "";
  return (
    `Suite pass rate (mean over ${m.scenarios} scenario${m.scenarios === 1 ? "" : "s"}): ${formatMetricValue(m, m.base_mean)} → ` +
    `${formatMetricValue(m, m.head_mean)} (${formatMetricDelta(m, m.delta)}${ci}) ${VERDICT_MARK[m.verdict]} ${VERDICT_LABEL[m.verdict]}${why}.`
  );
}

function renderLegend(c: Comparison): string {
  const alpha = c.settings.alpha;
  const method = c.settings.correction === "holm" ? "Holm" : "BH";
  return (
    `<sub>🔴 regressed / 🟢 improved: change significant at adjusted p ≤ ${alpha} (${method}; Fisher exact for pass rate, ` +
    `permutation test for other metrics) · ⚪ unchanged: not significant and the 95% CI of the change lies within the ` +
    `tolerance (±${formatNumber(c.settings.rate_tolerance * 100)} pts for rates, ±${formatNumber(c.settings.relative_tolerance * 100)}% of the baseline for counts, at least 0.5, and for tokens, cost, time) · ` +
    `❔ inconclusive: neither, more trials needed · ➖ too few samples: fewer than ${c.settings.min_trials} trials on a side. ` +
    `Intervals are 95% CIs of head − base.</sub>`
  );
}

function listNames(names: readonly string[]): string {
  return listItems(names.map((n) => `\`${n}\``));
}

function listItems(names: readonly string[]): string {
  const shown = names.slice(0, MAX_LISTED);
  const more = names.length > MAX_LISTED ? ` and ${names.length - MAX_LISTED} more` : "";
  return shown.join(", ") + more;
}

function renderLists(c: Comparison): string {
  const lines: string[] = [];
  const failing = c.scenarios.filter((s) => s.status === "newly_failing");
  const passing = c.scenarios.filter((s) => s.status === "newly_passing");
  if (failing.length) {
    lines.push(`**🔴 Newly failing (${failing.length}):** ${listItems(failing.map(describeTrials))}`);
  }
  if (passing.length) {
    lines.push(`**🟢 Newly passing (${passing.length}):** ${listItems(passing.map(describeTrials))}`);
  }
  if (c.added.length) lines.push(`**Added (${c.added.length}):** ${listNames(c.added.map((s) => s.key))}`);
  if (c.removed.length)
    lines.push(`**Removed (${c.removed.length}):** ${listNames(c.removed.map((s) => s.key))}`);
  if (c.renamed.length) {
    lines.push(
      `**Renamed (${c.renamed.length}):** ${listNames(c.renamed.map((r) => `${r.from} → ${r.to}`))}`,
    );
  }
  return lines.join("  \n");
}

function describeTrials(s: ScenarioComparison): string {
  // One pass then one fail is weak evidence: say so next to the name.
  const single = s.base.passed + s.base.failed === 1 && s.head.passed + s.head.failed === 1;
  return `\`${s.key}\`${single ? " (1 trial each: may be noise)" : ""}`;
}

function renderWarnings(c: Comparison): string {
  if (c.warnings.length === 0) return "";
  return ["> [!WARNING]", ...c.warnings.map((w) => `> - ${w.message}`)].join("\n");
}

function renderTableHeader(keyMetrics: readonly string[]): string {
  const columns = ["Scenario", "Pass rate", ...keyMetrics.map((m) => m.replaceAll("_", " "))];
  return [`| ${columns.join(" | ")} |`, `|${columns.map(() => "---").join("|")}|`].join("\n");
}

function renderRow(s: ScenarioComparison, keyMetrics: readonly string[]): string {
  const name = [`\`${s.key}\``];
  if (s.status !== "still_passing") name.push(`<br>${STATUS_LABEL[s.status]}`);
  if (s.renamed_from) name.push(`<br>renamed from \`${s.renamed_from}\``);
  if (s.content_changed) name.push("<br>⚠️ content changed");
  const cells = [name.join(""), renderPassCell(s)];
  for (const metric of keyMetrics) {
    const m = s.metrics.find((x) => x.metric === metric);
    cells.push(m ? renderMetricCell(m) : "–");
  }
  return `| ${cells.join(" | ")} |`;
}

function counts(side: SideSummary): string {
  return `${side.passed}/${side.passed + side.failed}`;
}

function renderPassCell(s: ScenarioComparison): string {
  const m = s.metrics.find((x) => x.metric === PASS_RATE)!;
  return `${counts(s.base)} → ${counts(s.head)}<br>${renderMark(m)}`;
}

function renderMetricCell(m: MetricComparison): string {
  return `${formatMetricValue(m, m.base_mean)} → ${formatMetricValue(m, m.head_mean)}<br>${renderMark(m)}`;
}

function renderMark(m: MetricComparison | SuiteMetricComparison): string {
  if (m.delta === null) return VERDICT_MARK[m.verdict];
  const ci = m.ci_low === null ? "" : ` ${formatMetricInterval(m, m.ci_low, m.ci_high)}`;
  return `${VERDICT_MARK[m.verdict]} ${formatMetricDelta(m, m.delta)}${ci}`;
}

function renderScenarioDetails(s: ScenarioComparison, open: string): string {
  const marks = summarizeMarks(s.metrics.map((m) => m.verdict));
  const side = (label: string, x: SideSummary) =>
    `${label}: ${x.trials} trial${x.trials === 1 ? "" : "s"} (${x.passed} passed, ${x.failed} failed` +
    `${x.errors ? `, ${x.errors} errors` : ""}${x.skipped ? `, ${x.skipped} skipped` : ""})`;
  const rows = s.metrics.map(
    (m) =>
      `| ${m.metric} | ${formatMetricValue(m, m.base_mean)} | ${formatMetricValue(m, m.head_mean)} | ${formatMetricDelta(m, m.delta)} | ` +
      `${formatMetricInterval(m, m.ci_low, m.ci_high)} | ${formatP(m.p_value)} | ${formatP(m.p_adjusted)} | ` +
      `${VERDICT_MARK[m.verdict]} ${VERDICT_LABEL[m.verdict]} |`,
  );
  return [
    `<details${open}><summary><code>${escapeHtml(s.key)}</code> ${STATUS_LABEL[s.status]} · ${marks}</summary>`,
    "",
    `${side("Baseline", s.base)}; ${side("head", s.head)}.`,
    "",
    "| Metric | Base | Head | Δ | 95% CI | p | p adj. | Verdict |",
    "|---|---|---|---|---|---|---|---|",
    ...rows,
    "",
    "</details>",
  ].join("\n");
}

function summarizeMarks(verdicts: readonly Verdict[]): string {
  const order: Verdict[] = ["regressed", "improved", "unchanged", "inconclusive", "too_few_samples"];
  return order
    .map((v) => [v, verdicts.filter((x) => x === v).length] as const)
    .filter(([, n]) => n > 0)
    .map(([v, n]) => `${VERDICT_MARK[v]} ${n}`)
    .join(" ");
}

function renderSuiteDetails(c: Comparison, open: string): string {
  const metrics = c.suite.metrics.filter((m) => m.scenarios > 0);
  if (metrics.length === 0) return "";
  const rows = metrics.map(
    (m) =>
      `| ${m.metric} | ${m.scenarios} | ${formatMetricValue(m, m.base_mean)} | ${formatMetricValue(m, m.head_mean)} | ` +
      `${formatMetricDelta(m, m.delta)} | ${formatMetricInterval(m, m.ci_low, m.ci_high)} | ${formatP(m.p_adjusted)} | ` +
      `${VERDICT_MARK[m.verdict]} ${VERDICT_LABEL[m.verdict]} |`,
  );
  return [
    `<details${open}><summary>Suite level: each scenario counts once (cluster bootstrap over scenarios)</summary>`,
    "",
    "| Metric | Scenarios | Base | Head | Δ | 95% CI | p adj. | Verdict |",
    "|---|---|---|---|---|---|---|---|",
    ...rows,
    "",
    "</details>",
  ].join("\n");
}

// ---------------------------------------------------------------------------------------------
// Terminal
// ---------------------------------------------------------------------------------------------

export interface TerminalOptions {
  /** ANSI colours for verdicts; default off. */
  color?: boolean;
}

const ANSI: Partial<Record<Verdict, string>> = { regressed: "\u001b[31m", improved: "\u001b[32m" };
const RESET = "\u001b[0m";

export function renderComparisonTerminal(comparison: Comparison, options: TerminalOptions = {}): string {
  const c = comparison;
  const paint = (v: Verdict, text: string) => (options.color && ANSI[v] ? `${ANSI[v]}${text}${RESET}` : text);
  const lines: string[] = [];
  lines.push(`Comparison: ${stripMarks(headlineTitle(c))}`);
  lines.push(
    `  baseline ${describeSide(c.base)}\n  head     ${describeSide(c.head)}\n` +
      `  α = ${c.settings.alpha}, ${describeCorrection(c.settings.correction, c.settings.family_size)}; ` +
      `${c.counts.matched} matched, ${c.counts.added} added, ${c.counts.removed} removed, ${c.counts.renamed} renamed`,
  );
  for (const w of c.warnings) lines.push(`  ! ${w.message}`);
  const failing = c.scenarios.filter((s) => s.status === "newly_failing").map((s) => s.key);
  const passing = c.scenarios.filter((s) => s.status === "newly_passing").map((s) => s.key);
  if (failing.length) lines.push(`  newly failing: ${failing.join(", ")}`);
  if (passing.length) lines.push(`  newly passing: ${passing.join(", ")}`);
  if (c.added.length) lines.push(`  added: ${c.added.map((s) => s.key).join(", ")}`);
  if (c.removed.length) lines.push(`  removed: ${c.removed.map((s) => s.key).join(", ")}`);
  for (const r of c.renamed) lines.push(`  renamed: ${r.from} -> ${r.to}`);

  const table = (title: string, metrics: ReadonlyArray<MetricComparison | SuiteMetricComparison>) => {
    lines.push("", title);
    const rows = metrics.map((m) => [
      m.metric,
      `${formatMetricValue(m, m.base_mean)} -> ${formatMetricValue(m, m.head_mean)}`,
      formatMetricDelta(m, m.delta),
      formatMetricInterval(m, m.ci_low, m.ci_high),
      `p=${formatP(m.p_value)} adj=${formatP(m.p_adjusted)}`,
      VERDICT_LABEL[m.verdict],
    ]);
    const widths = [0, 1, 2, 3, 4].map((i) => Math.max(...rows.map((r) => r[i]!.length)));
    for (const [i, r] of rows.entries()) {
      const text = r.map((cell, j) => (j < 5 ? cell.padEnd(widths[j]!) : cell)).join("  ");
      lines.push(`  ${paint(metrics[i]!.verdict, text)}`);
    }
  };
  const suite = c.suite.metrics.filter((m) => m.scenarios > 0);
  if (suite.length) table(`Suite (${c.suite.scenarios} scenarios, each counts once)`, suite);
  for (const s of orderScenarios(c.scenarios)) {
    const extra = [
      STATUS_LABEL[s.status],
      `${counts(s.base)} -> ${counts(s.head)} passed`,
      s.renamed_from ? `renamed from ${s.renamed_from}` : "",
      s.content_changed ? "content changed" : "",
    ].filter(Boolean);
    table(`${s.key} (${extra.join(", ")})`, s.metrics);
  }
  lines.push(
    "",
    `regressed/improved: adjusted p <= ${c.settings.alpha}; unchanged: 95% CI within the tolerance; ` +
      `inconclusive: neither; too few samples: < ${c.settings.min_trials} trials a side. Intervals: 95% CI of head - base.`,
  );
  return lines.join("\n").replaceAll("−", "-");
}

function describeSide(r: Comparison["base"]): string {
  const parts = [r.run_id, r.agent, r.model ?? "no model", `llm-tool-test ${r.harness_version}`];
  if (r.git_sha) parts.push(r.git_sha.slice(0, 7));
  return parts.join(", ");
}

function stripMarks(text: string): string {
  return text.replace(/^[^\p{L}\p{N}]+/u, "");
}
