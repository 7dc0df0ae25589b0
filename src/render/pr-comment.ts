/**
 * The PR comment (and the job summary, which shares its layout), computed apart from posting it.
 * Pure: a report, the decision, a comparison and some facts in, Markdown out. It reads in ten
 * seconds: line one is the decision, line two what the design can detect and the run-to-run
 * variation it was judged at, then why each regressed scenario failed, then the suite's
 * interaction metrics, the scenarios that moved (the rest in one line) and the run's own outcome in
 * one short line. Below, collapsed: per-scenario metric diffs, then the full report, cut to what
 * room is left. The footer (links) always stays.
 */

import type { Decision } from "../compare/decision.js";
import type { BaselineSource, Comparison } from "../compare/types.js";
import type { Report } from "../results/types.js";
import { buildComparisonBlocks, fitScenarioTable } from "./comparison-markdown.js";
import {
  renderDecisionHeadline,
  renderDesignLine,
  renderRegressionCauses,
  renderScopeLines,
} from "./decision.js";
import { markdownCode, markdownText, stripControls } from "./escape.js";
import { formatRate, formatRunCost } from "./format.js";
import { describeRunAgents } from "./labels.js";
import { renderModelMatrixMarkdown } from "./model-matrix.js";
import { renderReportMarkdown } from "./report-markdown.js";

/** Below GitHub's 65,536-character limit for a comment body, with room to spare. */
export const COMMENT_MAX_CHARS = 65_000;

export type BaselineNote =
  | {
      status: "found";
      /** The newest run in the baseline. */
      source: BaselineSource;
      baseRef: string | null;
      baseSha: string | null;
      /** Further runs pooled with it (0 or absent: a single report). */
      moreRuns?: number;
    }
  | { status: "missing"; reason: string }
  | { status: "disabled" };

export interface CommentInput {
  /** The comment key (the hidden marker's id). */
  key: string;
  report: Report;
  /** The one decision (compare/decision.ts): the comment's pass/fail is this and nothing else. */
  decision: Decision;
  comparison: Comparison | null;
  baseline: BaselineNote;
  runUrl: string | null;
  artifactUrl: string | null;
  /**
   * The history page the artifact holds (written only when there were base runs): its file name and
   * how many base-branch runs it shows beside this one. Said in the footer, below the fold.
   */
  history?: ArtifactHistory | null;
  /** The commit this run measured. */
  headSha: string | null;
  /** For the baseline's age (epoch ms). */
  now: number;
  /**
   * The repository of a fork whose own run made the report (the fork follow-up): its figures are
   * that run's claims, which this repository could not check, and every one is shown as such.
   */
  unverifiedFork?: string;
  maxChars?: number;
}

export interface ArtifactHistory {
  file: string;
  baseRuns: number;
}

export interface LayoutOptions {
  /** First line (the comment's hidden marker); none for the job summary. */
  marker: string | null;
  maxChars: number;
  /** Show the full report expanded (the job summary) rather than collapsed. */
  reportOpen: boolean;
}

export function renderComment(input: CommentInput): string {
  return renderLayout(input, {
    marker: formatCommentMarker(input.key),
    maxChars: input.maxChars ?? COMMENT_MAX_CHARS,
    reportOpen: false,
  });
}

type LayoutInput = Omit<CommentInput, "key" | "maxChars">;

/**
 * The shared layout of the comment and the job summary, never longer than `options.maxChars`.
 * Every piece of untrusted text was escaped where it was placed; the last pass drops any control
 * character whatever its source (our own text has none).
 */
export function renderLayout(input: LayoutInput, options: LayoutOptions): string {
  return stripControls(composeLayout(input, options));
}

function composeLayout(input: LayoutInput, options: LayoutOptions): string {
  const causes = renderRegressionCauses(input.decision, input.report);
  const head =
    [options.marker, ...renderHeadline(input)].filter((part): part is string => part !== null).join("\n") +
    (causes.length > 0 ? `\n\n${causes.join("\n")}` : "");
  const footer = renderFooter(input);
  const blocks = input.comparison ? buildComparisonBlocks(input.comparison, input.decision) : null;
  // What always shows, above every collapsed block: warnings, the suite's metrics, the run's line.
  const status = renderStatus(input, blocks?.scenarioSummary ?? "");
  // A model matrix: right after the decision across models, the models side by side.
  const matrix = input.report.model_matrix
    ? renderModelMatrixMarkdown(input.report.model_matrix, { maxRows: COMMENT_MATRIX_ROWS }).join("\n").trim()
    : "";
  let suiteTable = blocks?.suiteTable ?? "";
  const joinFixed = () =>
    [head, matrix, blocks?.warnings ?? "", suiteTable, status, footer]
      .filter((b) => b.length > 0)
      .join("\n\n");
  let fixed = joinFixed();
  // Under a tight limit the suite's metrics go before anything is cut.
  if (fixed.length >= options.maxChars && suiteTable) {
    suiteTable = "";
    fixed = joinFixed();
  }
  if (fixed.length >= options.maxChars) return cutText(fixed, options.maxChars);

  // Separators around the middle blocks.
  let room = options.maxChars - fixed.length - 4;
  const scenarioTable = blocks ? fitScenarioTable(blocks, Math.max(0, room - 2)) : "";
  if (scenarioTable) room -= scenarioTable.length + 2;

  const reportBody = demoteHeadings(stripFirstHeading(renderReportMarkdown(input.report))).trim();
  const reportBlock = (body: string) =>
    options.reportOpen
      ? `## Full report\n\n${body}`
      : `<details><summary>Full report of this run</summary>\n\n${body}\n\n</details>`;
  const wrapperLength = reportBlock("").length;

  // Per-scenario details, in one collapsed block, come first; they yield to the report only down
  // to 60% of the room.
  let details = "";
  if (blocks && blocks.details.length > 0) {
    const wrap = (inner: readonly string[]) =>
      `<details><summary>Metrics of each scenario (${inner.length === blocks.details.length ? "" : `${inner.length} of `}${blocks.details.length})</summary>\n\n${inner.join("\n\n")}\n\n</details>`;
    const reportWanted = reportBody.length + wrapperLength;
    const wanted = wrap(blocks.details).length + 2;
    const share =
      wanted + reportWanted <= room ? room : Math.max(room - reportWanted, Math.floor(room * 0.6));
    const kept: string[] = [];
    for (const d of blocks.details) {
      if (wrap([...kept, d]).length + 2 > share) break;
      kept.push(d);
    }
    if (kept.length > 0) {
      details = wrap(kept);
      room -= details.length + 2;
    }
  }

  let reportText = "";
  const full = reportBlock(reportBody);
  if (full.length <= room) {
    reportText = full;
  } else if (room - wrapperLength > MIN_USEFUL_REPORT) {
    reportText = reportBlock(cutLines(reportBody, room - wrapperLength, TRUNCATED_NOTE));
  } else if (room >= OMITTED_NOTE.length) {
    reportText = OMITTED_NOTE;
  }

  const ordered = [
    head,
    matrix,
    blocks?.warnings ?? "",
    suiteTable,
    scenarioTable,
    status,
    details,
    reportText,
    footer,
  ];
  return ordered.filter((block) => block.length > 0).join("\n\n");
}

const MIN_USEFUL_REPORT = 400;
/** The comment shows the scenarios that fail first; report.md has every row. */
const COMMENT_MATRIX_ROWS = 25;
/** Room kept for closing a fence and a few `<details>` after a cut. */
const CLOSING_RESERVE = 64;
const TRUNCATED_NOTE = "_… cut to fit; the full report is `report.md` in the report artifact._";
const OMITTED_NOTE = "_The full report did not fit here; it is `report.md` in the report artifact._";

/** Line one, the decision; line two, what the run could detect. */
function renderHeadline(input: LayoutInput): string[] {
  const { decision, baseline } = input;
  const headline = renderDecisionHeadline(decision, {
    summary: input.report.summary,
    ...(baseline.status === "missing" ? { noBaselineReason: baseline.reason } : {}),
  });
  const design = renderDesignLine(decision);
  // What the PR changed in the treatment and what was not compared: visible, never collapsed.
  const scope = renderScopeLines(decision).map((line) => `\n${line}`);
  if (input.unverifiedFork !== undefined) {
    return [
      `## Unverified: ${headline}`,
      renderUnverifiedNote(input.unverifiedFork),
      ...(design ? [design] : []),
      ...scope,
    ];
  }
  return [`## ${headline}`, ...(design ? [design] : []), ...scope];
}

/** Said above every figure of a fork's run: whose claims they are, and what would make them facts. */
function renderUnverifiedNote(fork: string): string {
  return (
    `\n> [!CAUTION]\n> **Unverified.** Every figure below is the report of a run in the fork ${markdownCode(fork)}, ` +
    "which the fork's workflow made and could have edited; this repository checked its shape, not its numbers. " +
    "Run the scenarios on this repository's runner (after reviewing the pull request) for figures it can vouch for."
  );
}

/**
 * One paragraph under the tables: the scenarios left out of them, the run's own outcome (secondary
 * when there is a baseline), where the baseline came from; and a warning for an incomplete run.
 */
function renderStatus(input: LayoutInput, scenarioSummary: string): string {
  const { report, baseline, decision } = input;
  const s = report.summary;
  const evaluated = s.passed + s.failed;
  const facts = [
    `${s.passed}/${evaluated} trials passed (${formatRate(s.pass_rate)})`,
    ...(s.errors > 0
      ? [
          `**${s.errors} trial${s.errors === 1 ? "" : "s"} errored** (infrastructure, not counted in the pass rate)`,
        ]
      : []),
    ...(s.skipped > 0 ? [`${s.skipped} skipped`] : []),
    `${s.scenarios_passed}/${s.scenarios} scenario${s.scenarios === 1 ? "" : "s"} passed every trial`,
    formatRunCost(s),
    describeRunAgents(report.run, markdownCode),
  ];
  // The headline already says why there is no baseline.
  const baselineLine =
    baseline.status === "missing" && decision.basis === "no_baseline"
      ? ""
      : renderBaselineLine(baseline, input.now);
  const paragraph = [scenarioSummary, `This run: ${facts.join(" · ")}.`, baselineLine]
    .filter(Boolean)
    .join(" ");
  const incomplete = report.run.incomplete
    ? "\n\n> [!WARNING]\n> This run is **incomplete**: it was interrupted or cut by its budget."
    : "";
  const warnings = (report.run.warnings ?? [])
    .map((warning) => `\n\n> [!WARNING]\n> ${markdownText(warning)}`)
    .join("");
  return paragraph + incomplete + renderShimWarning(report) + warnings;
}

/** Trials where a call ran around the shim, or records and tool calls disagree: said above the fold. */
function renderShimWarning(report: LayoutInput["report"]): string {
  const trials = report.scenarios.flatMap((scenario) => scenario.trials);
  const flagged = trials.filter((trial) => (trial.shim_disagreements?.length ?? 0) > 0);
  if (flagged.length === 0) return "";
  const around = flagged.filter((trial) =>
    (trial.shim_disagreements ?? []).some((message) => message.includes("around the shim")),
  ).length;
  const what =
    around > 0
      ? `${around} of them ran the target around the shim, where \`no_transcript_errors\` fails closed`
      : "a lost or forged record";
  return `\n\n> [!WARNING]\n> **${flagged.length} trial${flagged.length === 1 ? "" : "s"}: the shim's records disagree with the tool calls** (${what}); layer 1 counted the worse of the two. Details in the full report.`;
}

function renderBaselineLine(baseline: BaselineNote, now: number): string {
  if (baseline.status === "disabled") return "Baseline comparison is off (`baseline: none`).";
  if (baseline.status === "missing") {
    return `**No baseline to compare with:** ${baseline.reason}. This is neutral: the run is shown on its own.`;
  }
  const { source, baseRef, baseSha } = baseline;
  const commit = source.sha ? markdownCode(source.sha.slice(0, 7)) : "an unknown commit";
  if (source.kind === "path") {
    return `Compared with the report ${markdownCode(source.file)}${source.sha ? ` (commit ${commit}${ageSuffix(source.createdAt, now)})` : ageSuffix(source.createdAt, now)}.`;
  }
  const run =
    source.runUrl && source.runNumber !== null ? `[run #${source.runNumber}](${source.runUrl})` : "a run";
  const where = baseRef ? ` on ${markdownCode(baseRef)}` : "";
  const note =
    !source.matchesBaseSha && baseSha
      ? ` It is the newest usable baseline: the PR's base commit ${markdownCode(baseSha.slice(0, 7))} has no report of its own.`
      : "";
  const more = baseline.moreRuns
    ? ` and ${baseline.moreRuns} more run${baseline.moreRuns === 1 ? "" : "s"}, pooled`
    : "";
  return `Compared with ${commit}${where} (${run}${ageSuffix(source.createdAt, now)})${more}.${note}`;
}

function ageSuffix(createdAt: string | null, now: number): string {
  if (!createdAt) return "";
  const at = Date.parse(createdAt);
  if (Number.isNaN(at)) return "";
  return `, ${formatAge(now - at)}`;
}

/** "just now", "5 minutes old", "3 hours old", "2 days old". */
export function formatAge(ms: number): string {
  const minutes = Math.floor(Math.max(0, ms) / 60_000);
  if (minutes < 1) return "just now";
  const plural = (n: number, unit: string) => `${n} ${unit}${n === 1 ? "" : "s"} old`;
  if (minutes < 60) return plural(minutes, "minute");
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return plural(hours, "hour");
  return plural(Math.floor(hours / 24), "day");
}

function renderFooter(input: Omit<CommentInput, "key" | "maxChars">): string {
  const links = [
    input.runUrl ? `[Workflow run](${input.runUrl})` : null,
    input.artifactUrl
      ? `[Report artifact](${input.artifactUrl})${renderHistoryNote(input.history)}`
      : "Report artifact: not uploaded",
  ].filter((link): link is string => link !== null);
  const measured = input.headSha ? ` · measured on ${markdownCode(input.headSha.slice(0, 7))}` : "";
  return `${links.join(" · ")}\n\n<sub>llm-tool-test ${markdownText(input.report.run.harness_version)}${measured}</sub>`;
}

/** Where the artifact's history page is and what it shows, after the artifact's link. */
function renderHistoryNote(history: ArtifactHistory | null | undefined): string {
  if (!history) return "";
  const runs = `${history.baseRuns} base-branch run${history.baseRuns === 1 ? "" : "s"}`;
  return ` (with ${markdownCode(history.file)}: this run beside the ${runs}, one by one)`;
}

/** The report's own H1 repeats the headline. */
function stripFirstHeading(markdown: string): string {
  return markdown.replace(/^# [^\n]*\n/, "");
}

/** Report headings one level down, so they sit under the comment's headline. */
function demoteHeadings(markdown: string): string {
  return markdown.replace(/^(#{1,5}) /gm, "#$1 ");
}

/**
 * Whole lines up to `max` characters, then `note`; closes a code fence or `<details>` left open.
 * A fence closes only on a line of its own character at least as long (as CommonMark reads it), so
 * a shorter run of backticks inside an excerpt does not confuse the count.
 */
export function cutLines(text: string, max: number, note: string): string {
  if (text.length <= max) return text;
  const budget = max - note.length - CLOSING_RESERVE;
  const kept: string[] = [];
  let length = 0;
  let openFence: { indent: string; fence: string } | null = null;
  let detailsOpen = 0;
  for (const line of text.split("\n")) {
    if (length + line.length + 1 > budget) break;
    kept.push(line);
    length += line.length + 1;
    const fence = /^( {0,3})(`{3,}|~{3,})/.exec(line);
    if (openFence) {
      const closes =
        fence !== null &&
        fence[2]![0] === openFence.fence[0] &&
        fence[2]!.length >= openFence.fence.length &&
        line.slice(fence[0].length).trim() === "";
      if (closes) openFence = null;
      continue;
    }
    if (fence) {
      openFence = { indent: fence[1]!, fence: fence[2]! };
      continue;
    }
    detailsOpen += (line.match(/<details[\s>]/g) ?? []).length;
    detailsOpen -= (line.match(/<\/details>/g) ?? []).length;
  }
  // The escapers keep fences to 16 backticks: the reserve holds one and three `</details>`.
  if (openFence) kept.push(`${openFence.indent}${openFence.fence}`);
  // Close at most a few nested blocks (the reserve above holds them).
  for (let i = 0; i < Math.min(detailsOpen, 3); i += 1) kept.push("", "</details>");
  return `${kept.join("\n")}\n\n${note}`;
}

function cutText(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, Math.max(0, max - 1))}…`;
}

/** The hidden first line that identifies this key's comment. */
export function formatCommentMarker(key: string): string {
  return `<!-- llm-tool-test:${key} -->`;
}
