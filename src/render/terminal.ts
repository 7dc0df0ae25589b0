import type { Decision } from "../compare/decision.js";
import { judgeRun } from "../results/run-outcome.js";
import { scenarioKey } from "../results/scenario-key.js";
import type { Report, ScenarioReport } from "../results/types.js";
import {
  findVerdict,
  formatVerdict,
  renderDecisionReason,
  renderDesignLine,
  renderScopeLinesPlain,
} from "./decision.js";
import { escapePlainText } from "./escape.js";
import { renderEvalSummaryLines } from "./eval-summary.js";
import { formatDuration, formatNumber, formatRate, formatRateRange, formatRunCost } from "./format.js";
import { renderModelMatrixLines } from "./model-matrix.js";
import { describeReplay } from "./replay.js";

export interface TerminalOptions {
  color?: boolean;
  /** The decision: when given, the summary leads with it and the run's own line carries no verdict. */
  decision?: Decision;
}

function paint(enabled: boolean, code: number, text: string): string {
  return enabled ? `\u001b[${code}m${text}\u001b[0m` : text;
}

function padEnd(text: string, width: number): string {
  return text.length >= width ? text : text + " ".repeat(width - text.length);
}

function label(scenario: ScenarioReport): string {
  return escapePlainText(scenarioKey(scenario));
}

/**
 * A scenario whose `target.command_pattern` missed recorded calls: they are counted (the binary's
 * name found them), but the pattern may need widening, so it is said where the user looks.
 */
function describePatternMisses(scenario: ScenarioReport): string | null {
  const trials = scenario.trials.filter((trial) => (trial.command_pattern_misses?.length ?? 0) > 0);
  const first = trials[0]?.command_pattern_misses?.[0];
  if (first === undefined) return null;
  // Cut by code points, never inside a surrogate pair.
  const points = Array.from(first);
  const example = points.length > 60 ? `${points.slice(0, 60).join("")}…` : first;
  return `target.command_pattern missed calls in ${trials.length} trial(s), e.g. \`${escapePlainText(example)}\` (counted all the same; report.md lists them)`;
}

/** The summary printed at the end of `run`. Pure. */
export function renderTerminalSummary(report: Report, options: TerminalOptions = {}): string {
  const color = options.color ?? false;
  const green = (t: string) => paint(color, 32, t);
  const red = (t: string) => paint(color, 31, t);
  const yellow = (t: string) => paint(color, 33, t);
  const dim = (t: string) => paint(color, 2, t);
  const width = Math.min(48, Math.max(12, ...report.scenarios.map((s) => label(s).length)));
  const lines: string[] = [];
  const decision = options.decision;
  if (decision) {
    // Inconclusive is not a pass: yellow, never green.
    const paintDecision =
      decision.incomplete || decision.basis === "inconclusive" ? yellow : decision.failed ? red : green;
    lines.push(paintDecision(renderDecisionReason(decision, { summary: report.summary })));
    const design = renderDesignLine(decision);
    if (design) lines.push(dim(design));
    lines.push(...renderScopeLinesPlain(decision));
    lines.push("");
  }
  for (const scenario of report.scenarios) {
    const s = scenario.summary;
    const evaluated = s.passed + s.failed;
    const status =
      evaluated === 0
        ? s.errors > 0
          ? yellow("ERROR")
          : dim("SKIP ")
        : s.failed === 0 && s.errors === 0
          ? green("PASS ")
          : red("FAIL ");
    const rate =
      evaluated > 1
        ? `${s.passed}/${evaluated} ${formatRate(s.pass_rate)} [${formatRateRange(s.pass_rate_ci_low, s.pass_rate_ci_high)}]`
        : `${s.passed}/${evaluated}`;
    const m = s.metrics;
    const detail = [
      `cmds ${formatNumber(m.total_commands?.mean ?? null)}`,
      `err ${formatRate(m.error_rate?.mean ?? null)}`,
      `help ${formatNumber(m.help_invocations?.mean ?? null)}`,
      `1st-try ${formatRate(m.first_try_success_rate?.mean ?? null)}`,
      s.errors > 0 ? yellow(`${s.errors} error(s)`) : "",
    ]
      .filter(Boolean)
      .join("  ");
    // The decision's verdict against the baseline, in its words (render/decision.ts).
    const verdict = findVerdict(decision, scenarioKey(scenario));
    const verdictText = verdict ? `vs base: ${formatVerdict(verdict, { icon: false })}` : "";
    const against =
      verdict === "regressed" ? red(verdictText) : verdict === "improved" ? green(verdictText) : verdictText;
    lines.push(
      `${status} ${padEnd(label(scenario), width)}  ${padEnd(rate, 22)} ${against ? `${against}  ` : ""}${dim(detail)}`,
    );
    const missLine = describePatternMisses(scenario);
    if (missLine) lines.push(yellow(`        ${missLine}`));
    const options = [
      ...new Set(
        scenario.trials.flatMap((trial) => (trial.possible_global_options ?? []).map((o) => o.option)),
      ),
    ];
    if (options.length > 0) {
      const named = options.map((option) => `\`${escapePlainText(option)}\``).join(", ");
      lines.push(
        yellow(
          `        subcommands taken from the argument after ${named}: if it takes a value, list it in target.global_options`,
        ),
      );
    }
    for (const trial of scenario.trials) {
      if (trial.outcome === "fail" || trial.outcome === "error") {
        lines.push(
          dim(
            `        trial ${trial.trial}: ${escapePlainText((trial.reason ?? trial.outcome).split("\n")[0] ?? "")}`,
          ),
        );
      }
      if (trial.replay?.first_divergence) {
        lines.push(
          dim(
            `        trial ${trial.trial} replay: ${escapePlainText(describeReplay(trial.replay, (c) => `\`${c}\``))}`,
          ),
        );
      }
    }
  }
  lines.push("", ...renderEvalSummaryLines(report.summary, escapePlainText).map(dim));
  if (report.model_matrix) lines.push(...renderModelMatrixLines(report.model_matrix));
  const s = report.summary;
  // With a decision the run's line only counts: the verdict is the decision's, at the top.
  const judged = judgeRun(report);
  const headline = decision
    ? "Run:"
    : judged.outcome === "fail"
      ? judged.incomplete
        ? yellow("INCOMPLETE (failures)")
        : red("FAILED")
      : judged.outcome === "incomplete"
        ? yellow(report.run.incomplete ? "INCOMPLETE" : "INCOMPLETE (errors)")
        : green("PASSED");
  for (const warning of report.run.warnings ?? [])
    lines.push("", yellow(`warning: ${escapePlainText(warning)}`));
  lines.push(
    "",
    `${headline}  ${s.passed}/${s.passed + s.failed} trials passed (${formatRate(s.pass_rate)}), ` +
      `${s.scenarios_passed}/${s.scenarios} scenarios` +
      (s.errors ? `, ${s.errors} errored` : "") +
      (s.skipped ? `, ${s.skipped} skipped` : "") +
      // The trials' durations added up: with concurrency, more than the run's wall time.
      ` · ${formatRunCost(s)} · ${formatDuration(s.total_duration_ms)} of trial time`,
  );
  return lines.join("\n");
}
