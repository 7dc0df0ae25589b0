/**
 * `report.html`: one self-contained page a maintainer opens from the artifact. Inline CSS, JS and
 * SVG; a CSP that forbids every load, so the page works offline and cannot phone home even if a
 * string slipped through. Trial details travel as one JSON blob and are drawn on demand.
 */

import { createHash } from "node:crypto";
import type { Decision } from "../compare/decision.js";
import type { Comparison } from "../compare/types.js";
import { judgeRun } from "../results/run-outcome.js";
import type { Report, TrialReport } from "../results/types.js";
import type { TrialEvent } from "../transcript/events.js";
import { renderBehaviourHtml } from "./behaviour.js";
import { renderDecisionReason } from "./decision.js";
import { embedJson, escapeHtml } from "./escape.js";
import { PAGE_SCRIPT } from "./html/page-script.js";
import { PAGE_STYLE } from "./html/page-style.js";
import {
  renderCategoryTable,
  renderComparisonSection,
  renderFailureList,
  renderHeadline,
  renderPassRateSection,
  renderScenarioTable,
  renderSubcommandSection,
} from "./html/sections.js";
import { buildTrialViews } from "./html/trial-data.js";
import { renderModelMatrixHtml } from "./model-matrix.js";

export interface HtmlReportInput {
  report: Report;
  /** Each trial's events, keyed by its `events_path` (results/read-trial-events.ts loads them); trials without are shown without a transcript. */
  events?: Record<string, TrialEvent[]>;
  /** The comparison against a baseline; null when none was found (said on the page), absent when not asked for. */
  comparison?: Comparison | null;
  /** The decision: when given, the page leads with it. */
  decision?: Decision;
  /** Longest stdout/stderr/text kept per step in the page (head and tail); default 20,000 characters. */
  maxOutputChars?: number;
}

const DEFAULT_HTML_MAX_OUTPUT_CHARS = 20_000;

function hashForCsp(text: string): string {
  return `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`;
}

/**
 * A page's Content-Security-Policy: nothing may load, only its own style and script run (the
 * report's by default; the history page passes its own).
 */
export function buildContentSecurityPolicy(style = PAGE_STYLE, script = PAGE_SCRIPT): string {
  return [
    "default-src 'none'",
    `style-src ${hashForCsp(style)}`,
    `script-src ${hashForCsp(script)}`,
    "img-src data:",
    "base-uri 'none'",
    "form-action 'none'",
  ].join("; ");
}

/**
 * `<html>` and the `<head>` of a page of ours (the report, the history page): its title, its own
 * style inline and a CSP that lets nothing else load or run.
 */
export function renderPageHead(title: string, style: string, script: string): string {
  return [
    `<html lang="en"><head><meta charset="utf-8">`,
    // Our own constant, free of quotes and ampersands; written as is so it reads as a CSP.
    `<meta http-equiv="Content-Security-Policy" content="${buildContentSecurityPolicy(style, script)}">`,
    `<meta name="viewport" content="width=device-width, initial-scale=1">`,
    `<meta name="referrer" content="no-referrer">`,
    `<link rel="icon" href="data:,">`,
    `<title>${escapeHtml(title)}</title>`,
    `<style>${style}</style></head>`,
  ].join("\n");
}

/** The whole report as one HTML document. Pure. */
export function renderReportHtml(input: HtmlReportInput): string {
  const { report, comparison, decision } = input;
  const maxOutputChars = input.maxOutputChars ?? DEFAULT_HTML_MAX_OUTPUT_CHARS;
  const trials = buildTrialViews(report, input.events ?? {}, maxOutputChars);
  const trialIndex = new Map<TrialReport, number>();
  for (const trial of report.scenarios.flatMap((s) => s.trials)) trialIndex.set(trial, trialIndex.size);

  const verdict = decision
    ? renderDecisionReason(decision, { summary: report.summary })
    : judgeRun(report).incomplete
      ? `INCOMPLETE (${report.summary.outcome})`
      : report.summary.outcome;
  const title = `llm-tool-test report · ${verdict} · ${report.run.started_at}`;
  return [
    "<!DOCTYPE html>",
    renderPageHead(title, PAGE_STYLE, PAGE_SCRIPT),
    "<body><main>",
    renderHeadline(report, comparison, decision),
    renderFailureList(report, trialIndex),
    renderBehaviourHtml(decision),
    renderCategoryTable(report),
    report.model_matrix ? renderModelMatrixHtml(report.model_matrix) : "",
    renderPassRateSection(report),
    comparison ? renderComparisonSection(comparison, decision) : "",
    renderScenarioTable(report, trialIndex, comparison, decision),
    renderSubcommandSection(report),
    `<footer>llm-tool-test ${escapeHtml(report.run.harness_version)} · report schema ${report.schema_version} · settings ${escapeHtml(report.run.settings_hash)}</footer>`,
    "</main>",
    `<dialog id="trial-viewer" aria-label="Trial transcript"><div class="viewer-bar"><button type="button" id="viewer-close">Close (Esc)</button></div><div id="viewer-body"></div></dialog>`,
    `<script type="application/json" id="report-data">${embedJson({ trials })}</script>`,
    `<script>${PAGE_SCRIPT}</script>`,
    "</body></html>",
    "",
  ].join("\n");
}
