/**
 * Every output format, defined once: the run writes each one that has a file (run/write-outputs.ts,
 * `writeReportFiles`) and `report --format` offers them by name. Adding a format is one entry here
 * plus its renderer.
 */
import type { Decision } from "../compare/decision.js";
import { PASS_RATE } from "../compare/metrics.js";
import type { BaselineCandidate } from "../compare/pool-baselines.js";
import { buildRunHistory } from "../compare/run-history.js";
import type { Comparison } from "../compare/types.js";
import type { Report } from "../results/types.js";
import type { TrialEvent } from "../transcript/events.js";
import { renderAtifJsonLines } from "./atif.js";
import { renderComparisonMarkdown } from "./comparison-markdown.js";
import { renderDecisionReason } from "./decision.js";
import { renderHistoryHtml } from "./history-html.js";
import { renderReportHtml } from "./html.js";
import { renderJunitXml } from "./junit.js";
import { renderOtelJson } from "./otel-json.js";
import { renderReportMarkdown } from "./report-markdown.js";
import { renderTerminalSummary } from "./terminal.js";

export interface FormatInput {
  report: Report;
  /** The comparison with the baseline: null when none was found, absent when none was asked for. */
  comparison?: Comparison | null;
  /** The one decision (compare/decision.ts); the formats that show pass/fail show this. */
  decision?: Decision;
  /** Each trial's events keyed by `events_path`, for a format that `needsEvents` (results/read-trial-events.ts). */
  events?: Record<string, TrialEvent[]>;
  /** ANSI colours, for the terminal. */
  color?: boolean;
  /** The repository root that junit's `file` attributes are relative to (render/junit.ts). */
  repositoryRoot?: string;
  /** The base-branch runs one by one (not pooled), for a format that `needsBaseRuns`. */
  baseRuns?: readonly BaselineCandidate[];
}

export interface OutputFormat {
  /** The file a run writes into its output folder; null for a format that is only printed. */
  file: string | null;
  /** Rendered only when there is a comparison (the renderer may then rely on `input.comparison`). */
  needsComparison: boolean;
  /** Wants the trials' events loaded into `input.events`. */
  needsEvents: boolean;
  /** Rendered only when base-branch runs are given (`input.baseRuns`, at least one). */
  needsBaseRuns?: true;
  render(input: FormatInput): string;
}

function requireComparison(input: FormatInput): Comparison {
  if (!input.comparison) throw new Error("this format needs a comparison with a baseline");
  return input.comparison;
}

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

/** comparison.json: the comparison with the decision as a top-level `decision` object, its reason in words. */
export function buildComparisonJson(
  comparison: Comparison,
  decision: Decision | undefined,
  report?: Report,
): Comparison & { decision?: Decision & { reason: string } } {
  if (!decision) return comparison;
  const reason = renderDecisionReason(decision, report ? { summary: report.summary } : {});
  return { ...withDecidedPassRates(comparison, decision), decision: { ...decision, reason } };
}

/**
 * The pass rate's verdict where the decision's tests rejected (regressed, improved) replaces the
 * comparison's interval word, per scenario and for the suite, so the file never calls a regression
 * "inconclusive" beside the decision that found it.
 */
function withDecidedPassRates(comparison: Comparison, decision: Decision): Comparison {
  const decided = (regressed: boolean, improved: boolean) =>
    regressed ? ("regressed" as const) : improved ? ("improved" as const) : null;
  const byKey = new Map(decision.scenarios.map((s) => [s.key, decided(s.regressed, s.improved)]));
  const suite = decided(decision.suite_regressed, decision.suite_improved);
  return {
    ...comparison,
    suite: {
      ...comparison.suite,
      metrics: comparison.suite.metrics.map((m) =>
        m.metric === PASS_RATE && suite ? { ...m, verdict: suite } : m,
      ),
    },
    scenarios: comparison.scenarios.map((c) => {
      const verdict = byKey.get(c.key);
      if (!verdict) return c;
      return { ...c, metrics: c.metrics.map((m) => (m.metric === PASS_RATE ? { ...m, verdict } : m)) };
    }),
  };
}

export const OUTPUT_FORMATS = {
  json: { file: "report.json", needsComparison: false, needsEvents: false, render: (i) => json(i.report) },
  md: {
    file: "report.md",
    needsComparison: false,
    needsEvents: false,
    render: (i) => renderReportMarkdown(i.report, i.decision ? { decision: i.decision } : {}),
  },
  junit: {
    file: "junit.xml",
    needsComparison: false,
    needsEvents: false,
    render: (i) =>
      renderJunitXml(i.report, {
        ...(i.repositoryRoot ? { root: i.repositoryRoot } : {}),
        ...(i.decision ? { decision: i.decision } : {}),
      }),
  },
  html: {
    file: "report.html",
    needsComparison: false,
    needsEvents: true,
    render: (i) =>
      renderReportHtml({
        report: i.report,
        events: i.events ?? {},
        ...(i.comparison !== undefined ? { comparison: i.comparison } : {}),
        ...(i.decision ? { decision: i.decision } : {}),
      }),
  },
  terminal: {
    file: null,
    needsComparison: false,
    needsEvents: false,
    render: (i) =>
      `${renderTerminalSummary(i.report, { color: i.color ?? false, ...(i.decision ? { decision: i.decision } : {}) })}\n`,
  },
  // Interop, printed by `report --format` (not written by every run): each trial as an ATIF
  // trajectory (JSON Lines), and as OpenTelemetry GenAI spans (OTLP/JSON).
  atif: {
    file: null,
    needsComparison: false,
    needsEvents: true,
    render: (i) => renderAtifJsonLines(i.report, i.events ?? {}),
  },
  "otel-json": {
    file: null,
    needsComparison: false,
    needsEvents: true,
    render: (i) => renderOtelJson(i.report, i.events ?? {}),
  },
  "comparison-json": {
    file: "comparison.json",
    needsComparison: true,
    needsEvents: false,
    render: (i) => json(buildComparisonJson(requireComparison(i), i.decision, i.report)),
  },
  "comparison-md": {
    file: "comparison.md",
    needsComparison: true,
    needsEvents: false,
    render: (i) => renderComparisonMarkdown(requireComparison(i), i.decision ?? null),
  },
  // The base-branch runs one by one beside the head, for the action's artifact and `report --format history`.
  history: {
    file: "history.html",
    needsComparison: false,
    needsEvents: false,
    needsBaseRuns: true,
    render: (i) =>
      renderHistoryHtml({
        history: buildRunHistory({ head: i.report, base: i.baseRuns ?? [], decision: i.decision }),
      }),
  },
} as const satisfies Record<string, OutputFormat>;

export type FormatName = keyof typeof OUTPUT_FORMATS;

/** Every format's name, in the order a run writes them. */
export const FORMAT_NAMES = Object.keys(OUTPUT_FORMATS) as FormatName[];
