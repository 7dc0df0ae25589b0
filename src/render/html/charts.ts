/** Inline SVG charts for the HTML report: nothing to load, styled by the page's CSS classes. */
import type { MetricKind, Verdict } from "../../compare/types.js";
import type { ScenarioReport } from "../../results/types.js";
import { escapeHtml } from "../escape.js";
import { formatPercentChange, formatRate, formatRateRange } from "../format.js";
import { labelScenario } from "./trial-data.js";

const ROW = 20;
const TOP = 26;
const WIDTH = 900;
const LABEL_END = 262;
const PLOT_START = 272;
const PLOT_END = 720;
const VALUE_START = 732;

function round(value: number): string {
  return String(Math.round(value * 10) / 10);
}

function shorten(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

function rateClass(rate: number | null): string {
  if (rate === null) return "none";
  if (rate >= 1) return "pass";
  if (rate <= 0) return "fail";
  return "mid";
}

/** Worst first: lowest pass rate, then the lowest upper bound; scenarios without data last. */
function compareForChart(a: ScenarioReport, b: ScenarioReport): number {
  const ra = a.summary.pass_rate;
  const rb = b.summary.pass_rate;
  if (ra === null || rb === null) return ra === null ? (rb === null ? 0 : 1) : -1;
  if (ra !== rb) return ra - rb;
  return (a.summary.pass_rate_ci_high ?? 1) - (b.summary.pass_rate_ci_high ?? 1);
}

function renderAxis(ticks: { x: number; label: string; zero?: boolean }[], height: number): string {
  return ticks
    .map(
      (t) =>
        `<line class="${t.zero ? "zero" : "grid"}" x1="${round(t.x)}" x2="${round(t.x)}" y1="${TOP - 6}" y2="${height - 4}"/>` +
        `<text class="muted-text" x="${round(t.x)}" y="${TOP - 10}" text-anchor="middle">${escapeHtml(t.label)}</text>`,
    )
    .join("");
}

/** Pass rate per scenario as a dot with its 95% Wilson interval as a whisker, worst first. */
export function renderPassRateChart(scenarios: ScenarioReport[]): string {
  const sorted = [...scenarios].sort(compareForChart);
  const height = TOP + sorted.length * ROW + 6;
  const x = (rate: number) => PLOT_START + rate * (PLOT_END - PLOT_START);
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((r) => ({ x: x(r), label: formatRate(r) }));
  const rows = sorted.map((scenario, i) => {
    const s = scenario.summary;
    const y = TOP + i * ROW + ROW / 2;
    const label = labelScenario(scenario);
    const n = s.passed + s.failed;
    const interval =
      s.pass_rate_ci_low !== null && s.pass_rate_ci_high !== null
        ? ` [${formatRateRange(s.pass_rate_ci_low, s.pass_rate_ci_high)}]`
        : "";
    const value = s.pass_rate === null ? "no evaluated trial" : `${formatRate(s.pass_rate)}${interval}`;
    const title = `${label}: ${value} · ${s.passed} of ${n} evaluated trial(s) passed${s.errors ? `, ${s.errors} error(s)` : ""}`;
    const marks =
      s.pass_rate === null
        ? ""
        : (s.pass_rate_ci_low !== null && s.pass_rate_ci_high !== null
            ? `<line class="whisker" x1="${round(x(s.pass_rate_ci_low))}" x2="${round(x(s.pass_rate_ci_high))}" y1="${y}" y2="${y}"/>`
            : "") +
          `<circle class="dot ${rateClass(s.pass_rate)}" cx="${round(x(s.pass_rate))}" cy="${y}" r="5"/>`;
    return (
      `<g class="chart-row"><title>${escapeHtml(title)}</title>` +
      `<text x="${LABEL_END}" y="${y + 4}" text-anchor="end">${escapeHtml(shorten(label, 38))}</text>` +
      marks +
      `<text class="muted-text" x="${VALUE_START}" y="${y + 4}">${escapeHtml(value)}</text></g>`
    );
  });
  return (
    `<svg class="chart pass-rate-chart" viewBox="0 0 ${WIDTH} ${height}" role="img" aria-label="Pass rate per scenario with 95% intervals">` +
    renderAxis(ticks, height) +
    rows.join("") +
    "</svg>"
  );
}

export interface DeltaRow {
  label: string;
  kind: MetricKind;
  delta: number | null;
  ci_low: number | null;
  ci_high: number | null;
  base_mean: number | null;
  verdict: Verdict;
  /** Shown right of the plot, e.g. "+3 pts [−1, +7] · improved". */
  text: string;
}

/** A change on one scale: rates in percentage points, everything else in % of the baseline mean. */
function scaleDelta(kind: MetricKind, value: number | null, baseMean: number | null): number | null {
  if (value === null) return null;
  if (kind === "rate") return value * 100;
  if (baseMean === null || baseMean === 0) return null;
  return (value / Math.abs(baseMean)) * 100;
}

function niceExtent(max: number): number {
  for (const step of [10, 20, 25, 50, 100]) if (max <= step) return step;
  return 100;
}

/** Forest plot of metric changes against the baseline: dot = change, whisker = 95% interval, colour = verdict. */
export function renderDeltaChart(rows: DeltaRow[]): string {
  const scaled = rows.map((r) => ({
    row: r,
    delta: scaleDelta(r.kind, r.delta, r.base_mean),
    low: scaleDelta(r.kind, r.ci_low, r.base_mean),
    high: scaleDelta(r.kind, r.ci_high, r.base_mean),
  }));
  const magnitudes = scaled.flatMap((s) => [s.delta, s.low, s.high]).filter((v): v is number => v !== null);
  const extent = niceExtent(Math.max(0, ...magnitudes.map(Math.abs)));
  const middle = (PLOT_START + PLOT_END) / 2;
  const half = (PLOT_END - PLOT_START) / 2;
  const x = (value: number) => middle + (Math.max(-extent, Math.min(extent, value)) / extent) * half;
  const height = TOP + rows.length * ROW + 6;
  const ticks = [-extent, -extent / 2, 0, extent / 2, extent].map((v) => ({
    x: x(v),
    label: formatPercentChange(v),
    zero: v === 0,
  }));
  const body = scaled.map((s, i) => {
    const y = TOP + i * ROW + ROW / 2;
    const clipped = s.delta !== null && Math.abs(s.delta) > extent ? (s.delta > 0 ? " ›" : " ‹") : "";
    const marks =
      s.delta === null
        ? ""
        : (s.low !== null && s.high !== null
            ? `<line class="whisker ${s.row.verdict}" x1="${round(x(s.low))}" x2="${round(x(s.high))}" y1="${y}" y2="${y}"/>`
            : "") + `<circle class="dot ${s.row.verdict}" cx="${round(x(s.delta))}" cy="${y}" r="5"/>`;
    return (
      `<g class="chart-row"><title>${escapeHtml(`${s.row.label}: ${s.row.text}`)}</title>` +
      `<text x="${LABEL_END}" y="${y + 4}" text-anchor="end">${escapeHtml(shorten(s.row.label, 38))}</text>` +
      marks +
      `<text class="muted-text" x="${VALUE_START}" y="${y + 4}">${escapeHtml(s.row.text + clipped)}</text></g>`
    );
  });
  return (
    `<svg class="chart delta-chart" viewBox="0 0 ${WIDTH + 60} ${height}" role="img" aria-label="Metric changes against the baseline with 95% intervals">` +
    renderAxis(ticks, height) +
    body.join("") +
    "</svg>"
  );
}

/** A table-cell sized whisker for one pass-rate change on [−100, +100] points. */
export function renderMiniDelta(
  delta: number | null,
  low: number | null,
  high: number | null,
  verdict: Verdict,
): string {
  if (delta === null) return "";
  const x = (v: number) => 60 + Math.max(-1, Math.min(1, v)) * 56;
  const whisker =
    low !== null && high !== null
      ? `<line class="whisker ${verdict}" x1="${round(x(low))}" x2="${round(x(high))}" y1="8" y2="8"/>`
      : "";
  return (
    `<svg class="chart mini" viewBox="0 0 120 16" aria-hidden="true">` +
    `<line class="zero" x1="60" x2="60" y1="1" y2="15"/>${whisker}` +
    `<circle class="dot ${verdict}" cx="${round(x(delta))}" cy="8" r="4"/></svg>`
  );
}
