/**
 * The cross-model view of a matrix run, in the shape of bashkit-eval's baseline table (one column
 * per entry — a model, or an agent with one of its models in an agent matrix: tasks passed, rates, tool calls, turns, tokens, duration, cost, per-category
 * rates), then the per-scenario matrix with its diagnosis. Pure.
 */
import {
  describeRow,
  type MatrixClass,
  type ModelCell,
  type ModelMatrix,
  matrixClassLabels,
} from "../results/model-matrix.js";
import type { RunSummary } from "../results/types.js";
import { escapeHtml, escapeMarkdownCell, escapePlainText, markdownCode } from "./escape.js";
import { describeRecordedFigures } from "./eval-summary.js";
import {
  formatCostCell,
  formatDuration,
  formatNumber,
  formatRate,
  formatRunCost,
  formatTokens,
} from "./format.js";

type Row = [label: string, value: (s: RunSummary) => string];

const BASELINE_ROWS: Row[] = [
  ["Tasks passed", (s) => `${s.total_passed}/${s.total_tasks}`],
  ["Pass rate", (s) => formatRate(s.pass_rate)],
  ["Overall rate (score)", (s) => formatRate(s.overall_rate)],
  ["Tool calls (ok / error)", (s) => `${s.total_tool_calls} (${s.tool_calls_ok} / ${s.tool_calls_error})`],
  ["Tool-call success", (s) => formatRate(s.tool_call_success_rate)],
  ["Turns per task", (s) => formatNumber(s.avg_turns_per_task)],
  ["Tool calls per task", (s) => formatNumber(s.avg_tool_calls_per_task)],
  [
    "Tokens (in / out)",
    (s) => `${formatTokens(s.total_input_tokens)} / ${formatTokens(s.total_output_tokens)}`,
  ],
  ["Duration per task", (s) => formatDuration(s.avg_duration_ms)],
  // Never "$0" for a model missing from the price table: its cost is unknown.
  ["Cost", (s) => formatCostCell(s.total_cost_usd, s.trials_cost_unknown, s.trials)],
];

const CELL_MARK: Record<ModelCell["state"], string> = { pass: "✅", fail: "❌", incomplete: "⚠️" };

function describeCell(cell: ModelCell | undefined): string {
  if (!cell) return "–";
  return `${CELL_MARK[cell.state]} ${cell.passed}/${cell.evaluated}`;
}

function categoryNames(matrix: ModelMatrix): string[] {
  const names = new Set<string>();
  for (const { summary } of matrix.summaries)
    for (const name of Object.keys(summary.by_category)) names.add(name);
  return [...names].sort();
}

/** Failures first: they are what the matrix is for. */
const CLASS_ORDER: readonly MatrixClass[] = [
  "all_fail",
  "all_unreliable",
  "some_fail",
  "incomplete",
  "all_pass",
];

/**
 * A category's rate as the seed defines it (bashkit-eval's CategorySummary.rate: score ÷ max
 * score, the checks passed by weight), with the pass rate (tasks whose every check passed) beside
 * it: "85% (pass 0%, 0/4)". The two differ whenever tasks pass most but not all of their checks.
 */
function describeCategory(c: RunSummary["by_category"][string] | undefined): string {
  if (!c) return "–";
  return `${formatRate(c.rate)} (pass ${formatRate(c.pass_rate)}, ${c.passed}/${c.tasks})`;
}

/** One row per category, labelled so the rate's definition is on the page. */
function categoryRows(matrix: ModelMatrix): [label: string, values: string[]][] {
  return categoryNames(matrix).map((category) => [
    category,
    matrix.summaries.map((m) => describeCategory(m.summary.by_category[category])),
  ]);
}

const CATEGORY_NOTE =
  "Category rows: score ÷ max score (checks passed, by weight: bashkit-eval's per-category rate), then the pass rate (trials whose every check passed).";

/** "1 all models fail · 1 some models fail · 2 all pass" (classes with rows only). */
function describeCounts(matrix: ModelMatrix): string {
  return CLASS_ORDER.filter((c) => matrix.counts[c] > 0)
    .map((c) => `${matrix.counts[c]} ${matrixClassLabels(matrix)[c]}`)
    .join(" · ");
}

/** The matrix's replayed trials' figures are their recordings' (summed over the models), or null. */
function recordedNote(matrix: ModelMatrix): string | null {
  const sum = (count: (s: (typeof matrix.summaries)[number]["summary"]) => number | undefined) =>
    matrix.summaries.reduce((n, m) => n + (count(m.summary) ?? 0), 0);
  return describeRecordedFigures({
    trials_recorded: sum((s) => s.trials_recorded),
    trials_cost_priced: sum((s) => s.trials_cost_priced),
  });
}

/** What the matrix's entries are: models, or agents with their models. */
function entriesNoun(matrix: ModelMatrix): string {
  return matrix.entries ? "Agents · models" : "Models";
}

/** The cells' legend, in the matrix's own words. */
function cellsNote(matrix: ModelMatrix): string {
  const [every, some, them] = matrix.entries
    ? ["every agent · model", "only some", "the agents or models"]
    : ["every model", "only some", "the models"];
  return (
    "Cells: scenario passed (every evaluated trial) ✅, failed ❌, or no verdict ⚠️, with passed/evaluated trials. " +
    `A scenario ${every} fails in every trial points at the tool or its guidance; one ${some} fail, at ${them}; one ${every} fails only sometimes, at something unreliable.`
  );
}

/** report.md's and the comment's section: the baseline table, per-category rates, the scenario matrix. */
export function renderModelMatrixMarkdown(matrix: ModelMatrix, options: { maxRows?: number } = {}): string[] {
  const header = `| | ${matrix.models.map((m) => escapeMarkdownCell(markdownCode(m))).join(" | ")} |`;
  const rule = `|---|${matrix.models.map(() => "---").join("|")}|`;
  const lines = ["", `## ${entriesNoun(matrix)} side by side`, "", header, rule];
  for (const [label, value] of BASELINE_ROWS) {
    lines.push(`| ${label} | ${matrix.summaries.map((m) => value(m.summary)).join(" | ")} |`);
  }
  const categories = categoryRows(matrix);
  for (const [category, values] of categories) {
    lines.push(`| ${escapeMarkdownCell(markdownCode(category))} | ${values.join(" | ")} |`);
  }
  if (categories.length > 0) lines.push("", CATEGORY_NOTE);
  const recorded = recordedNote(matrix);
  if (recorded) lines.push("", `**Recorded, not measured:** ${recorded}.`);
  lines.push("", `**By scenario:** ${describeCounts(matrix)}.`, "");
  lines.push(
    `| Scenario | ${matrix.models.map((m) => escapeMarkdownCell(markdownCode(m))).join(" | ")} | Diagnosis |`,
  );
  lines.push(`|---|${matrix.models.map(() => "---").join("|")}|---|`);
  const rows = [...matrix.rows].sort(
    (a, b) => CLASS_ORDER.indexOf(a.classification) - CLASS_ORDER.indexOf(b.classification),
  );
  const shown = rows.slice(0, options.maxRows ?? rows.length);
  for (const row of shown) {
    const cells = matrix.models.map((m) => describeCell(row.cells[m]));
    lines.push(
      `| ${escapeMarkdownCell(markdownCode(row.scenario))} | ${cells.join(" | ")} | ${describeRow(row, matrix)} |`,
    );
  }
  if (shown.length < rows.length)
    lines.push("", `…and ${rows.length - shown.length} more (all in report.md).`);
  lines.push("", cellsNote(matrix));
  return lines;
}

/**
 * The terminal's lines: one per entry (passed, tool calls, turns, tokens, cost — unknown stays
 * unknown), its categories' rates beneath, then the scenarios that some or all entries fail.
 */
export function renderModelMatrixLines(matrix: ModelMatrix): string[] {
  const width = Math.max(...matrix.models.map((m) => escapePlainText(m).length));
  const lines = ["", `${entriesNoun(matrix)} (${matrix.models.length}):`];
  for (const { model, summary: s } of matrix.summaries) {
    lines.push(
      `  ${escapePlainText(model).padEnd(width)}  ${s.total_passed}/${s.total_tasks} passed (${formatRate(s.pass_rate)})  ` +
        `tool calls ${s.total_tool_calls} (${s.tool_calls_ok} ok / ${s.tool_calls_error} error)  ${formatNumber(s.avg_turns_per_task)} turns/task  ` +
        `tokens ${formatTokens(s.total_input_tokens)} in / ${formatTokens(s.total_output_tokens)} out  ${formatRunCost(s)}`,
    );
    const categories = Object.keys(s.by_category).sort();
    if (categories.length > 0) {
      const rates = categories.map(
        (name) => `${escapePlainText(name)} ${describeCategory(s.by_category[name])}`,
      );
      lines.push(`  ${" ".repeat(width)}  rate (score ÷ max): ${rates.join(" · ")}`);
    }
  }
  const recorded = recordedNote(matrix);
  if (recorded) lines.push(`  (${recorded})`);
  lines.push(`  By scenario: ${describeCounts(matrix)}`);
  for (const row of matrix.rows) {
    if (row.classification === "all_pass") continue;
    const failing = matrix.models.filter((m) => row.cells[m]?.state !== "pass").map(escapePlainText);
    const words =
      row.classification === "all_fail" || row.classification === "all_unreliable"
        ? describeRow(row, matrix)
        : `not passed by ${failing.join(", ")} (${failing.length} of ${matrix.models.length})`;
    lines.push(`    ${escapePlainText(row.scenario)}: ${words}`);
  }
  return lines;
}

/** report.html's section (a table like report.md's). */
export function renderModelMatrixHtml(matrix: ModelMatrix): string {
  const head = matrix.models.map((m) => `<th>${escapeHtml(m)}</th>`).join("");
  const summaryRows =
    BASELINE_ROWS.map(
      ([label, value]) =>
        `<tr><th scope="row">${escapeHtml(label)}</th>${matrix.summaries.map((m) => `<td>${escapeHtml(value(m.summary))}</td>`).join("")}</tr>`,
    ).join("") +
    categoryRows(matrix)
      .map(
        ([category, values]) =>
          `<tr><th scope="row"><code>${escapeHtml(category)}</code></th>${values.map((v) => `<td>${escapeHtml(v)}</td>`).join("")}</tr>`,
      )
      .join("");
  const recorded = recordedNote(matrix);
  const scenarioRows = matrix.rows
    .map(
      (row) =>
        `<tr class="${row.classification}"><th scope="row">${escapeHtml(row.scenario)}</th>${matrix.models
          .map((m) => `<td>${escapeHtml(describeCell(row.cells[m]))}</td>`)
          .join("")}<td>${escapeHtml(describeRow(row, matrix))}</td></tr>`,
    )
    .join("");
  return (
    `<section id="models"><h2>${escapeHtml(entriesNoun(matrix))} side by side</h2>` +
    `<table><thead><tr><th></th>${head}</tr></thead><tbody>${summaryRows}</tbody></table>` +
    (categoryNames(matrix).length > 0 ? `<p>${escapeHtml(CATEGORY_NOTE)}</p>` : "") +
    (recorded ? `<p>Recorded, not measured: ${escapeHtml(recorded)}.</p>` : "") +
    `<p>By scenario: ${escapeHtml(describeCounts(matrix))}.</p>` +
    `<table><thead><tr><th>Scenario</th>${head}<th>Diagnosis</th></tr></thead><tbody>${scenarioRows}</tbody></table></section>`
  );
}
