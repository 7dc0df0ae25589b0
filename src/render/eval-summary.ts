/**
 * bashkit-eval's EvalSummary and the per-subcommand breakdown, as the terminal and report.md show
 * them. The figures come from the report's summary (results/aggregate.ts), in its one scope: spend
 * over every trial that ran, rates and per-task averages over evaluated trials. Pure.
 */

import { scenarioName } from "../results/scenario-key.js";
import type { RunSummary, ScenarioReport, SubcommandSummary } from "../results/types.js";
import { escapeMarkdownCell, markdownCode, markdownHtml } from "./escape.js";
import { formatDuration, formatNumber, formatRate, formatTokens } from "./format.js";

/** "3 natural, 1 turn limit, 1 infra_error": natural and turn-limit stops first, then any others. */
export function describeStops(summary: Pick<RunSummary, "end_reasons">): string {
  // Reports of earlier versions did not count end reasons: unknown, not zero.
  if (!summary.end_reasons) return "–";
  const { natural_stop: natural = 0, turn_limit: turnLimit = 0, ...others } = summary.end_reasons;
  const rest = Object.entries(others)
    .filter(([, n]) => (n ?? 0) > 0)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([reason, n]) => `${n} ${reason}`);
  return [`${natural} natural`, `${turnLimit} turn limit`, ...rest].join(", ");
}

/**
 * Said wherever a replay's figures show (terminal, report.md, the model matrix): the turns,
 * tokens, cost and stops of replayed trials are their recording's, not measured. Null otherwise.
 */
export function describeRecordedFigures(
  summary: Pick<RunSummary, "trials_recorded" | "trials_cost_priced">,
): string | null {
  const n = summary.trials_recorded ?? 0;
  if (n === 0) return null;
  const trials = `${n} replayed trial${n === 1 ? "" : "s"}`;
  const priced = summary.trials_cost_priced ?? 0;
  if (priced === 0) {
    return `turns, tokens, cost and stops of ${trials} are recorded values, carried from the recording, not measured by this run`;
  }
  // A cost the recording lacked was priced now: never called recorded.
  const whose = priced === n ? (n === 1 ? "its cost" : "their cost") : `the cost of ${priced} of them`;
  return `turns, tokens and stops of ${trials} are recorded values, carried from the recording, not measured by this run; ${whose} was not recorded but priced now from the recorded tokens`;
}

/** The EvalSummary as plain lines for the terminal (no names in it but categories, passed through `clean`). */
export function renderEvalSummaryLines(summary: RunSummary, clean: (name: string) => string): string[] {
  const s = summary;
  const lines = [
    `Eval summary: ${s.total_tasks} tasks, ${s.total_passed} passed (pass rate ${formatRate(s.pass_rate)}) · ` +
      `score ${formatNumber(s.total_score)}/${formatNumber(s.total_max_score)} (overall rate ${formatRate(s.overall_rate)})`,
    `  tool calls ${s.total_tool_calls} (${s.tool_calls_ok} ok, ${s.tool_calls_error} error; ${formatRate(s.tool_call_success_rate)} success) · ` +
      `per task: ${formatNumber(s.avg_turns_per_task)} turns, ${formatNumber(s.avg_tool_calls_per_task)} tool calls, ${formatDuration(s.avg_duration_ms)}`,
    `  tokens ${formatTokens(s.total_input_tokens)} in / ${formatTokens(s.total_output_tokens)} out · ` +
      `${formatDuration(s.total_duration_ms)} of trial time · stops: ${describeStops(s)}`,
  ];
  const recorded = describeRecordedFigures(s);
  if (recorded) lines.push(`  (${recorded})`);
  const categories = Object.entries(s.by_category);
  if (categories.length > 0) {
    const width = Math.min(32, Math.max(...categories.map(([name]) => clean(name).length)));
    for (const [name, c] of categories) {
      lines.push(
        `  ${clean(name).padEnd(width)}  ${c.passed}/${c.tasks} passed (${formatRate(c.pass_rate)})  ` +
          `score ${formatNumber(c.score)}/${formatNumber(c.max_score)} (${formatRate(c.rate)})` +
          (c.errors > 0 ? `  ${c.errors} errored` : ""),
      );
    }
  }
  return lines;
}

/** report.md's "Eval summary" section: every EvalSummary figure in one table, with its scope. */
export function renderEvalSummaryMarkdown(summary: RunSummary): string[] {
  const s = summary;
  const rows: [string, string][] = [
    ["Tasks (evaluated trials)", String(s.total_tasks)],
    ["Passed", `${s.total_passed} (pass rate ${formatRate(s.pass_rate)})`],
    [
      "Score",
      `${formatNumber(s.total_score)}/${formatNumber(s.total_max_score)} (overall rate ${formatRate(s.overall_rate)})`,
    ],
    [
      "Tool calls",
      `${s.total_tool_calls}: ${s.tool_calls_ok} ok, ${s.tool_calls_error} error (${formatRate(s.tool_call_success_rate)} success)`,
    ],
    ["Turns per task", formatNumber(s.avg_turns_per_task)],
    ["Tool calls per task", formatNumber(s.avg_tool_calls_per_task)],
    ["Duration per task", formatDuration(s.avg_duration_ms)],
    ["Stops", describeStops(s)],
    [
      "Tokens",
      `${formatTokens(s.total_input_tokens)} in / ${formatTokens(s.total_output_tokens)} out` +
        ` (cache ${formatTokens(s.total_cache_read_tokens)} read / ${formatTokens(s.total_cache_write_tokens)} written)`,
    ],
    ["Trial time", formatDuration(s.total_duration_ms)],
  ];
  return [
    "",
    "## Eval summary",
    "",
    "| Figure | Value |",
    "|---|---|",
    ...rows.map(([name, value]) => `| ${name} | ${value} |`),
    "",
    "Tokens, trial time and stops cover every trial that ran, errors included; the rest covers evaluated trials (pass or fail).",
    ...recordedLines(s),
  ];
}

function recordedLines(s: RunSummary): string[] {
  const recorded = describeRecordedFigures(s);
  return recorded ? ["", `**Recorded, not measured:** ${recorded}.`] : [];
}

function subcommandRow(name: string, s: SubcommandSummary): string {
  return (
    `| ${escapeMarkdownCell(markdownCode(name))} | ${s.trials} | ${s.commands} | ${s.errors} | ` +
    `${formatRate(s.error_rate)} | ${s.retries} | ${s.help_invocations} |`
  );
}

/** report.md's per-subcommand breakdown: one compact table per scenario that invoked any. */
export function renderSubcommandsMarkdown(scenarios: readonly ScenarioReport[]): string[] {
  const withSubcommands = scenarios.filter((s) => Object.keys(s.by_subcommand ?? {}).length > 0);
  if (withSubcommands.length === 0) return [];
  const lines = ["", "## Per subcommand", ""];
  for (const scenario of withSubcommands) {
    lines.push(
      // Inside HTML Markdown is not rendered: the name is escaped as HTML.
      `<details><summary><code>${markdownHtml(scenarioName(scenario))}</code></summary>`,
      "",
      "| Subcommand | Trials | Commands | Errors | Error rate | Retries | Help |",
      "|---|---:|---:|---:|---:|---:|---:|",
      ...Object.entries(scenario.by_subcommand ?? {}).map(([name, s]) => subcommandRow(name, s)),
      "",
      "</details>",
      "",
    );
  }
  lines.push(
    "Pooled over each scenario's evaluated trials; Trials counts those that invoked the subcommand.",
  );
  return lines;
}
