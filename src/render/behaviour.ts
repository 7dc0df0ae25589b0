/**
 * The why of a regression, base vs head (compare/behaviour-diff.ts), in each format that shows the
 * decision: two short lines under a regressed scenario's bullet in the comment, a table in
 * report.md and report.html. Option names, commands and stderr come from the agent: every piece
 * is escaped where it is placed (code spans, fences, HTML text). Pure.
 */
import { type BehaviourDiff, changeSize, type ShareChange } from "../compare/behaviour-diff.js";
import type { Decision } from "../compare/decision.js";
import { escapeHtml, escapeMarkdownCell, markdownCode, markdownFence } from "./escape.js";
import { formatNumber, formatRate } from "./format.js";

/** Share changes smaller than this (10 points) are not named in the comment. */
const NOTABLE_CHANGE = 0.1;
const BRIEF_SHARES = 3;
const BRIEF_NEW_COMMANDS = 2;
const BRIEF_COMMAND_CHARS = 100;
const BRIEF_STDERR_CHARS = 120;
/** Help lookups per trial that moved less than this are not named in the comment. */
const NOTABLE_HELP_CHANGE = 0.5;

const BASE_NOT_AVAILABLE =
  "not available in the base runs (their reports predate per-call options); the head's calls are in the report";

/**
 * The comment's lines under a regressed scenario's bullet (a nested list, Markdown): the largest
 * share changes, the commands no base run used, help lookups when they moved, and the head's first
 * failed call with the start of its stderr.
 */
export function renderBehaviourBrief(diff: BehaviourDiff): string[] {
  const changed: string[] = [];
  if (!diff.base_available) changed.push(BASE_NOT_AVAILABLE);
  else if (diff.head_calls === 0 || diff.base_calls === 0) {
    // No shares to compare on a side without calls: say what each side did.
    changed.push(
      `${plural(diff.base_calls, "call")} of the target in ${plural(diff.base_trials, "base trial")}, ${diff.head_calls} in ${plural(diff.head_trials, "trial")} of this run`,
    );
  } else {
    const notable = diff.shares.filter((s) => changeSize(s) >= NOTABLE_CHANGE).slice(0, BRIEF_SHARES);
    changed.push(
      ...notable.map(
        (s) => `${markdownCode(s.name)} in ${formatRate(s.base)} → ${formatRate(s.head)} of calls`,
      ),
    );
    const fresh = diff.new_commands.slice(0, BRIEF_NEW_COMMANDS);
    if (fresh.length > 0) {
      const more = diff.new_commands.length - fresh.length;
      changed.push(
        `never in the base runs: ${fresh.map((c) => `${markdownCode(c.shape)} (${plural(c.calls, "call")})`).join(", ")}${more > 0 ? ` and ${more} more` : ""}`,
      );
    }
    const help = diff.help_per_trial;
    if (help.base !== null && Math.abs(help.head - help.base) >= NOTABLE_HELP_CHANGE) {
      changed.push(`help lookups ${formatNumber(help.base)} → ${formatNumber(help.head)} per trial`);
    }
    if (changed.length === 0) changed.push("the same subcommands and options as the base runs");
  }
  const lines = [`  - Calls vs the base runs: ${changed.join("; ")}.`];
  const failure = diff.first_failure;
  if (failure) {
    const stderr = failure.stderr ? `: ${markdownCode(firstLine(failure.stderr, BRIEF_STDERR_CHARS))}` : "";
    lines.push(
      `  - First failed call (trial ${failure.trial}, exit ${failure.exit_code}): ${markdownCode(cut(failure.command, BRIEF_COMMAND_CHARS))}${stderr}`,
    );
  }
  return lines;
}

/** report.md: per regressed scenario, every share change, the new commands and the first failed call. */
export function renderBehaviourMarkdown(decision: Decision | undefined): string[] {
  const diffs = decision?.behaviour ?? [];
  if (diffs.length === 0) return [];
  const lines = ["", "## What the agent did differently (regressed scenarios, base runs vs this run)"];
  for (const diff of diffs) {
    lines.push("", `### ${markdownCode(diff.key)}`, "");
    if (!diff.base_available) lines.push(`Base runs: ${BASE_NOT_AVAILABLE}.`, "");
    lines.push("| | Base runs | This run |", "| --- | ---: | ---: |");
    lines.push(
      `| Calls of the target | ${sideCalls(diff.base_calls, diff.base_trials, diff.base_available)} | ${sideCalls(diff.head_calls, diff.head_trials, true)} |`,
    );
    lines.push(
      `| Help lookups per trial | ${diff.help_per_trial.base === null ? "–" : formatNumber(diff.help_per_trial.base)} | ${formatNumber(diff.help_per_trial.head)} |`,
    );
    for (const share of diff.shares) {
      lines.push(
        `| ${escapeMarkdownCell(markdownCode(share.name))} (${share.kind}), share of calls | ${formatRate(share.base)} | ${formatRate(share.head)} |`,
      );
    }
    if (diff.new_commands.length > 0) {
      lines.push(
        "",
        `Commands never used in the base runs: ${diff.new_commands.map((c) => `${markdownCode(c.shape)} (${plural(c.calls, "call")})`).join(", ")}.`,
      );
    }
    const failure = diff.first_failure;
    if (failure) {
      lines.push(
        "",
        `First failed call (trial ${failure.trial}, exit ${failure.exit_code}): ${markdownCode(failure.command)}`,
      );
      if (failure.stderr) lines.push("", markdownFence(failure.stderr));
    }
  }
  return lines;
}

/** report.html: the same as report.md's, as a section of tables. */
export function renderBehaviourHtml(decision: Decision | undefined): string {
  const diffs = decision?.behaviour ?? [];
  if (diffs.length === 0) return "";
  const blocks = diffs.map((diff) => {
    const row = (label: string, base: string, head: string) =>
      `<tr><td>${label}</td><td class="num">${escapeHtml(base)}</td><td class="num">${escapeHtml(head)}</td></tr>`;
    const rows = [
      row(
        "Calls of the target",
        sideCalls(diff.base_calls, diff.base_trials, diff.base_available),
        sideCalls(diff.head_calls, diff.head_trials, true),
      ),
      row(
        "Help lookups per trial",
        diff.help_per_trial.base === null ? "–" : formatNumber(diff.help_per_trial.base),
        formatNumber(diff.help_per_trial.head),
      ),
      ...diff.shares.map((s: ShareChange) =>
        row(
          `<code>${escapeHtml(s.name)}</code> (${s.kind}), share of calls`,
          formatRate(s.base),
          formatRate(s.head),
        ),
      ),
    ];
    const unavailable = diff.base_available ? "" : `<p>Base runs: ${escapeHtml(BASE_NOT_AVAILABLE)}.</p>`;
    const fresh =
      diff.new_commands.length > 0
        ? `<p>Commands never used in the base runs: ${diff.new_commands.map((c) => `<code>${escapeHtml(c.shape)}</code> (${plural(c.calls, "call")})`).join(", ")}.</p>`
        : "";
    const failure = diff.first_failure;
    const failed = failure
      ? `<p>First failed call (trial ${failure.trial}, exit ${failure.exit_code}): <code>${escapeHtml(failure.command)}</code></p>${failure.stderr ? `<pre>${escapeHtml(failure.stderr)}</pre>` : ""}`
      : "";
    return (
      `<h3><code>${escapeHtml(diff.key)}</code></h3>${unavailable}<div class="table-wrap"><table><thead><tr><th></th><th class="num">Base runs</th><th class="num">This run</th></tr></thead>` +
      `<tbody>${rows.join("")}</tbody></table></div>${fresh}${failed}`
    );
  });
  return `<section id="behaviour"><h2>What the agent did differently (regressed scenarios, base runs vs this run)</h2>${blocks.join("")}</section>`;
}

function sideCalls(calls: number, trials: number, available: boolean): string {
  return available ? `${calls} in ${plural(trials, "trial")}` : "–";
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

function firstLine(text: string, max: number): string {
  return cut(text.split(/\r?\n|\r/).find((line) => line.trim() !== "") ?? "", max);
}

/** By code points, so a cut never splits a surrogate pair. */
function cut(text: string, max: number): string {
  const chars = [...text.trim()];
  return chars.length > max ? `${chars.slice(0, max - 1).join("")}…` : chars.join("");
}
