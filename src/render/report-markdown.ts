import type { Decision } from "../compare/decision.js";
import { compareVariants } from "../compare/variants.js";
import { judgeRun } from "../results/run-outcome.js";
import { scenarioKey, scenarioName } from "../results/scenario-key.js";
import type { Report, ScenarioReport, TrialReport } from "../results/types.js";
import { renderBehaviourMarkdown } from "./behaviour.js";
import { renderComparisonMarkdown } from "./comparison-markdown.js";
import {
  findVerdict,
  formatVerdict,
  renderDecisionHeadline,
  renderDesignLine,
  renderScopeLines,
} from "./decision.js";
import { escapeMarkdownCell, markdownCode, markdownFence, markdownText, stripControls } from "./escape.js";
import { renderEvalSummaryMarkdown, renderSubcommandsMarkdown } from "./eval-summary.js";
import {
  formatCostCell,
  formatDuration,
  formatNumber,
  formatRate,
  formatRateRange,
  formatRunCost,
  formatTokens,
} from "./format.js";
import { describeRunAgents } from "./labels.js";
import { renderModelMatrixMarkdown } from "./model-matrix.js";
import { describeReplay } from "./replay.js";

const OUTCOME_MARK: Record<string, string> = { pass: "✅", fail: "❌", error: "⚠️", skipped: "⏭️" };

/** The scenario's name as inert Markdown (a code span): it comes from the report, not from us. */
function scenarioLabel(scenario: ScenarioReport): string {
  return markdownCode(scenarioName(scenario));
}

/** scenarioLabel for a table cell (GFM splits cells on `|` even inside code). */
function scenarioCell(scenario: ScenarioReport): string {
  return escapeMarkdownCell(scenarioLabel(scenario));
}

function scenarioOutcome(scenario: ScenarioReport): string {
  const s = scenario.summary;
  if (s.passed + s.failed === 0) return s.errors > 0 ? "⚠️ error" : "⏭️ skipped";
  if (s.failed === 0 && s.errors === 0) return "✅ pass";
  if (s.passed === 0) return "❌ fail";
  return `❌ ${s.passed}/${s.passed + s.failed}`;
}

function metric(scenario: ScenarioReport, name: string, kind: "rate" | "number"): string {
  const m = scenario.summary.metrics[name];
  if (!m || m.mean === null) return "–";
  return kind === "rate" ? formatRate(m.mean) : formatNumber(m.mean);
}

function passRateCell(scenario: ScenarioReport): string {
  const s = scenario.summary;
  if (s.pass_rate === null) return "–";
  if (s.passed + s.failed < 2) return formatRate(s.pass_rate);
  return `${formatRate(s.pass_rate)} [${formatRateRange(s.pass_rate_ci_low, s.pass_rate_ci_high)}]`;
}

export interface ReportMarkdownOptions {
  /** The decision against the baseline (or on the run alone): when given, the report leads with it. */
  decision?: Decision;
}

/** The run's own verdict (results/run-outcome.ts), for a report without a decision: an incomplete run is never a plain PASS. */
function describeOutcome(report: Report): string {
  const { outcome, incomplete } = judgeRun(report);
  if (outcome === "pass") return "✅ PASS";
  return outcome === "fail" ? `${incomplete ? "⚠️ INCOMPLETE · " : ""}❌ FAIL` : "⚠️ INCOMPLETE";
}

function renderTitle(report: Report, decision: Decision | undefined): string[] {
  if (!decision) return [`# llm-tool-test report ${describeOutcome(report)}`];
  const design = renderDesignLine(decision);
  const scope = renderScopeLines(decision);
  return [
    `# ${renderDecisionHeadline(decision, { summary: report.summary })}`,
    ...(design ? ["", design] : []),
    ...scope.flatMap((line) => ["", line]),
  ];
}

function renderHeadline(report: Report, decision: Decision | undefined): string[] {
  const s = report.summary;
  const lines = [
    ...renderTitle(report, decision),
    "",
    `**${s.passed}/${s.passed + s.failed} trials passed** (${formatRate(s.pass_rate)})` +
      ` across ${s.scenarios} scenario(s); ${s.scenarios_passed} scenario(s) passed every trial.` +
      (s.errors > 0 ? ` **${s.errors} trial(s) errored** (infrastructure; excluded from rates).` : "") +
      (s.skipped > 0 ? ` ${s.skipped} skipped.` : ""),
    "",
    `${upperFirst(describeRunAgents(report.run, markdownCode))}` +
      `${report.run.judge_model ? `, judge ${markdownCode(report.run.judge_model)}` : ""}` +
      ` · score ${formatNumber(s.total_score)}/${formatNumber(s.total_max_score)} (${formatRate(s.overall_rate)})` +
      ` · tool calls ${s.total_tool_calls} (${s.tool_calls_ok} ok / ${s.tool_calls_error} error, ${formatRate(s.tool_call_success_rate)})` +
      ` · ${formatNumber(s.avg_turns_per_task)} turns/trial` +
      ` · tokens ${formatTokens(s.total_input_tokens)} in / ${formatTokens(s.total_output_tokens)} out` +
      ` · ${formatRunCost(s)} · ${formatDuration(s.total_duration_ms)} of trial time`,
  ];
  if (report.run.incomplete)
    lines.push("", "> ⚠️ This run is **incomplete**: it was interrupted or cut by its budget.");
  for (const warning of report.run.warnings ?? []) lines.push("", `> ⚠️ ${markdownText(warning)}`);
  return lines;
}

function renderCategories(report: Report): string[] {
  const entries = Object.entries(report.summary.by_category);
  if (entries.length === 0) return [];
  const lines = [
    "",
    "## By category",
    "",
    "| Category | Trials | Passed | Pass rate | Score | Rate | Errors |",
    "|---|---:|---:|---:|---:|---:|---:|",
  ];
  for (const [name, c] of entries) {
    lines.push(
      `| ${markdownText(name)} | ${c.tasks} | ${c.passed} | ${formatRate(c.pass_rate)} | ${formatNumber(c.score)}/${formatNumber(c.max_score)} | ${formatRate(c.rate)} | ${c.errors} |`,
    );
  }
  return lines;
}

function renderScenarioTable(report: Report, decision: Decision | undefined): string[] {
  // The decision's verdict per scenario, when it compared scenarios with a baseline.
  const verdicts = (decision?.scenarios.length ?? 0) > 0;
  const lines = [
    "",
    "## Scenarios",
    "",
    `| Scenario | Outcome |${verdicts ? " Against the baseline |" : ""} Pass rate [95% CI] | Commands | Errors | Retries | Help | First-try | Iteration | Turns | Cost |`,
    `|---|---|${verdicts ? "---|" : ""}---:|---:|---:|---:|---:|---:|---:|---:|---:|`,
  ];
  for (const scenario of report.scenarios) {
    const verdict = verdicts ? findVerdict(decision, scenarioKey(scenario)) : null;
    const verdictCell = verdicts ? ` ${verdict ? formatVerdict(verdict) : "–"} |` : "";
    lines.push(
      `| ${scenarioCell(scenario)} | ${scenarioOutcome(scenario)} |${verdictCell} ${passRateCell(scenario)}` +
        ` | ${metric(scenario, "total_commands", "number")} | ${metric(scenario, "error_rate", "rate")}` +
        ` | ${metric(scenario, "retry_rate", "rate")} | ${metric(scenario, "help_invocations", "number")}` +
        ` | ${metric(scenario, "first_try_success_rate", "rate")} | ${metric(scenario, "iteration_ratio", "rate")}` +
        ` | ${metric(scenario, "turns", "number")} | ${formatCostCell(scenario.summary.cost_usd, scenario.summary.trials_cost_unknown, scenario.summary.trials)} |`,
    );
  }
  lines.push(
    "",
    "Commands, errors, retries, help, first-try and iteration are the target tool's interaction metrics (means over evaluated trials); `–` means there was nothing to measure.",
  );
  return lines;
}

/**
 * Untrusted text after a label of ours: one line inline as prose, several as a fenced block under
 * the label (indented by `indent` to stay in a list item), so nothing in it can end the block.
 */
function describeExcerpt(label: string, text: string, indent = ""): string[] {
  const trimmed = text.replace(/\s+$/, "");
  if (!trimmed.includes("\n")) return [`${label} ${markdownText(trimmed)}`];
  return [label, "", markdownFence(trimmed, indent || "  ")];
}

function renderTrialFailure(scenario: ScenarioReport, trial: TrialReport): string[] {
  const lines = [
    "",
    `### ${OUTCOME_MARK[trial.outcome] ?? ""} ${scenarioLabel(scenario)} — trial ${trial.trial}: ${trial.outcome}`,
    "",
  ];
  if (trial.reason) lines.push(...describeExcerpt("**Why:**", trial.reason), "");
  lines.push(
    `Ended by ${markdownCode(trial.end_reason ?? "unknown")} after ${trial.execution.turns} turn(s), ${trial.execution.tool_calls} tool call(s), ` +
      `${trial.interaction.total_commands} target command(s) (source: ${trial.invocation_source}); gates ${trial.gates_passed}/${trial.gates_total}, score ${formatNumber(trial.score)}/${formatNumber(trial.max_score)}.`,
    "",
  );
  const failed = trial.gates.filter((g) => !g.passed);
  if (failed.length > 0) {
    lines.push("Failed gates:", "");
    for (const gate of failed) {
      const label = gate.description ? `${gate.gate_type} (${gate.description})` : gate.gate_type;
      lines.push(...describeExcerpt(`- **${markdownText(label)}**:`, gate.message, "  "));
    }
    lines.push("");
  }
  if (trial.judge_response) {
    lines.push(
      `Judge score ${formatNumber(trial.judge_score)} (confidence ${formatNumber(trial.judge_response.confidence)}).`,
    );
    for (const issue of trial.judge_response.issues) lines.push(`- ${markdownText(issue)}`);
    lines.push("");
  }
  if (trial.transcript_path) lines.push(`Transcript: ${markdownCode(trial.transcript_path)}`);
  return lines;
}

/** A replayed run: per trial, where its recorded calls now diverge (every trial, passing ones too). */
function renderReplayMarkdown(scenarios: readonly ScenarioReport[]): string[] {
  const rows = scenarios.flatMap((s) =>
    s.trials.flatMap((t) =>
      t.replay
        ? [
            `| ${scenarioCell(s)} | ${t.trial} | ${escapeMarkdownCell(describeReplay(t.replay, markdownCode))} |`,
          ]
        : [],
    ),
  );
  if (rows.length === 0) return [];
  return [
    "",
    "## Replay: recorded calls against this build",
    "",
    "| Scenario | Trial | Where the recorded calls diverge |",
    "|---|---|---|",
    ...rows,
    "",
    "A replay re-issues the recorded calls whatever the tool now answers: it shows where the tool's behaviour changed under the same calls, not how a model would react to the change.",
  ];
}

/** Trials whose shim records disagree with their tool calls (forged or lost records), whatever their outcome. */
function renderShimDisagreements(report: Report): string[] {
  const flagged = report.scenarios.flatMap((s) =>
    s.trials.filter((t) => (t.shim_disagreements?.length ?? 0) > 0).map((t) => [s, t] as const),
  );
  if (flagged.length === 0) return [];
  const lines = [
    "",
    "## Shim records that disagree with the tool calls",
    "",
    "Layer 1 counted the worse of the shim's record and the tool call; an agent may have tampered with either.",
    "",
  ];
  for (const [scenario, trial] of flagged) {
    for (const message of trial.shim_disagreements ?? []) {
      lines.push(`- ${scenarioLabel(scenario)}, trial ${trial.trial}: ${markdownText(message)}`);
    }
  }
  return lines;
}

/** Trials whose recorded calls `command_pattern` missed: counted, but the pattern may need fixing. */
function renderPatternMisses(report: Report): string[] {
  const flagged = report.scenarios.flatMap((s) =>
    s.trials.filter((t) => (t.command_pattern_misses?.length ?? 0) > 0).map((t) => [s, t] as const),
  );
  if (flagged.length === 0) return [];
  const lines = [
    "",
    "## Calls that target.command_pattern does not match",
    "",
    "Counted all the same, their subcommand taken from the arguments; the pattern may need widening.",
    "",
  ];
  for (const [scenario, trial] of flagged) {
    const commands = (trial.command_pattern_misses ?? []).map((command) => markdownText(command)).join("; ");
    lines.push(`- ${scenarioLabel(scenario)}, trial ${trial.trial}: ${commands}`);
  }
  return lines;
}

/** Options whose value seems to have been taken for the subcommand, once per scenario. */
function renderPossibleGlobalOptions(report: Report): string[] {
  const rows: string[] = [];
  for (const scenario of report.scenarios) {
    const seen = new Set<string>();
    for (const { option, command } of scenario.trials.flatMap(
      (trial) => trial.possible_global_options ?? [],
    )) {
      if (seen.has(option)) continue;
      seen.add(option);
      rows.push(`- ${scenarioLabel(scenario)}: ${markdownCode(option)}, e.g. ${markdownCode(command)}`);
    }
  }
  if (rows.length === 0) return [];
  return [
    "",
    "## Subcommands that may be option values",
    "",
    "The argument after these options was taken for the subcommand. If an option takes a value, list it in `target.global_options` (e.g. `[-f, --file]`) so its value is not counted as a subcommand.",
    "",
    ...rows,
  ];
}

/** `report.md`: headline (the decision when given), per-category and per-scenario tables, then each failing trial. Pure. */
export function renderReportMarkdown(report: Report, options: ReportMarkdownOptions = {}): string {
  const lines = [
    ...renderHeadline(report, options.decision),
    ...renderBehaviourMarkdown(options.decision),
    ...renderEvalSummaryMarkdown(report.summary),
    ...(report.model_matrix ? renderModelMatrixMarkdown(report.model_matrix) : []),
    ...renderCategories(report),
    ...renderScenarioTable(report, options.decision),
    ...renderSubcommandsMarkdown(report.scenarios),
    ...renderReplayMarkdown(report.scenarios),
  ];
  const variants = compareVariants(report);
  for (const { base, head, model, comparison } of variants) {
    lines.push(
      "",
      `## Guidance variants: ${markdownCode(head)} against ${markdownCode(base)}${model ? `, model ${markdownCode(model)}` : ""}`,
      "",
      renderComparisonMarkdown(comparison, null, { maxChars: 12_000 }).trim(),
    );
  }
  lines.push(...renderShimDisagreements(report));
  lines.push(...renderPatternMisses(report));
  lines.push(...renderPossibleGlobalOptions(report));
  const failing = report.scenarios.flatMap((s) =>
    s.trials.filter((t) => t.outcome === "fail" || t.outcome === "error").map((t) => [s, t] as const),
  );
  if (failing.length > 0) {
    lines.push("", "## Failures and errors");
    for (const [scenario, trial] of failing) lines.push(...renderTrialFailure(scenario, trial));
  }
  lines.push(
    "",
    `<sub>${markdownText(`llm-tool-test ${report.run.harness_version} · run ${report.run.id} · ${report.run.started_at} → ${report.run.ended_at}${report.run.git_sha ? ` · ${report.run.git_sha.slice(0, 7)}` : ""}`)}</sub>`,
    "",
  );
  // Every piece of report text was escaped where it was placed; no control character of anyone's passes.
  return stripControls(lines.join("\n"));
}

/** "agent …" → "Agent …", at the start of a sentence. */
function upperFirst(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
