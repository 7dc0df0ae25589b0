/**
 * `history.html` (`report --format history`): the base-branch runs and the head run as one
 * self-contained page, per scenario and for the suite, in the order they ran. Each run's pass rate
 * is a dot with its 95% Wilson interval; the shaded band is where a base run's own rate falls under
 * the decision's model of runs (its ICC); dashed lines mark where the tool's build or the guidance
 * changed. Inline SVG, CSS and a small filter script under a CSP that forbids every load. Pure.
 */
import {
  HISTORY_METRICS,
  type HistoryMetric,
  type HistoryPoint,
  type RunHistory,
  type TreatmentMarker,
} from "../compare/run-history.js";
import { escapeHtml } from "./escape.js";
import { formatNumber, formatRate, formatRateRange, formatUsd } from "./format.js";
import { PAGE_STYLE } from "./html/page-style.js";
import { renderPageHead } from "./html.js";

const HISTORY_STYLE = `${PAGE_STYLE}
svg.history { display: block; max-width: 100%; height: auto; }
svg.history text { font-size: 11px; fill: var(--muted); }
svg.history .grid { stroke: var(--line); stroke-width: 1; }
svg.history .whiskers { stroke: var(--whisker); stroke-width: 1.5; fill: none; }
svg.history .dots { stroke: var(--accent); stroke-width: 7; stroke-linecap: round; fill: none; }
svg.history .dots.other { stroke: var(--skip); }
svg.history .head-dot { fill: var(--fail); stroke: var(--bg); stroke-width: 1.5; }
svg.history .spread { fill: var(--accent); opacity: .14; }
svg.history .pooled { stroke: var(--accent); stroke-dasharray: 2 3; opacity: .7; }
svg.history .marker { stroke-width: 1.5; stroke-dasharray: 5 3; }
svg.history .marker.tool { stroke: var(--fail); }
svg.history .marker.guidance { stroke: var(--error); }
svg.history .marker.tool.guidance { stroke: var(--fail); stroke-dasharray: 2 2; }
svg.history .marker-label { font-weight: 600; fill: var(--fg); }
svg.history .trend { stroke: var(--accent); stroke-width: 1.5; fill: none; }
.trends { display: grid; grid-template-columns: repeat(auto-fill, minmax(300px, 1fr)); gap: 10px; }
.trends figure { margin: 0; border: 1px solid var(--line); border-radius: 8px; padding: 6px 8px; }
.trends figcaption { font-size: 12px; color: var(--muted); }
.legend { color: var(--muted); font-size: 12.5px; }
td.chart { min-width: 0; max-width: none; padding: 2px 4px; }
.filter { margin: 8px 0; }
`;

/** Hides the scenario rows whose key does not contain the filter's text. */
const HISTORY_SCRIPT = `(function () {
  var input = document.getElementById("history-filter");
  if (!input) return;
  input.addEventListener("input", function () {
    var text = input.value.toLowerCase();
    var rows = document.querySelectorAll("#history-scenarios tbody tr");
    for (var i = 0; i < rows.length; i++) {
      var key = rows[i].getAttribute("data-key") || "";
      rows[i].hidden = text !== "" && key.toLowerCase().indexOf(text) === -1;
    }
  });
})();`;

export interface HistoryHtmlInput {
  history: RunHistory;
}

/** An SVG plot: `runs` runs across, a value range up the side. */
interface Plot {
  width: number;
  height: number;
  left: number;
  right: number;
  top: number;
  bottom: number;
  runs: number;
}

const px = (value: number) => String(Math.round(value * 10) / 10);

function xOf(plot: Plot, run: number): number {
  const span = plot.width - plot.left - plot.right;
  return plot.left + (plot.runs <= 1 ? span / 2 : (run * span) / (plot.runs - 1));
}

function yOf(plot: Plot, value: number, max: number): number {
  const span = plot.height - plot.top - plot.bottom;
  return plot.top + (1 - (max > 0 ? value / max : 0)) * span;
}

function describeMarker(marker: TreatmentMarker): string {
  return marker.files.map((f) => `${f.kind} ${f.path} ${f.change}`).join("; ");
}

const markerLetters = (marker: TreatmentMarker) =>
  marker.kinds.map((k) => (k === "tool" ? "T" : "G")).join("+");

/** Dashed vertical lines halfway before each run whose treatment changed, lettered T (tool) or G (guidance). */
function renderMarkers(plot: Plot, markers: readonly TreatmentMarker[], labelled: boolean): string {
  return markers
    .map((marker) => {
      const x = (xOf(plot, marker.run - 1) + xOf(plot, marker.run)) / 2;
      const title = `before run ${marker.run + 1}: ${describeMarker(marker)}`;
      const label = labelled
        ? `<text class="marker-label" x="${px(x + 3)}" y="${px(plot.top - 4)}">${markerLetters(marker)}</text>`
        : "";
      return (
        `<g><title>${escapeHtml(title)}</title>` +
        `<line class="marker ${marker.kinds.join(" ")}" x1="${px(x)}" x2="${px(x)}" y1="${px(plot.top - 2)}" y2="${px(plot.height - plot.bottom)}"/>` +
        `${label}</g>`
      );
    })
    .join("");
}

/**
 * Pass rate per run: base runs' dots (grey where the scenario measured something else) with their
 * Wilson whiskers in one path each (light at 100 runs), the head as a red dot, the markers.
 */
function renderRateChart(
  plot: Plot,
  points: ReadonlyArray<HistoryPoint | null>,
  markers: readonly TreatmentMarker[],
  spread: { rate: number; low: number; high: number } | null,
  options: { labelled: boolean; axis: boolean },
): string {
  const y = (v: number) => yOf(plot, v, 1);
  const whiskers: string[] = [];
  const dots: string[] = [];
  const other: string[] = [];
  let head = "";
  points.forEach((point, run) => {
    if (!point || point.rate === null) return;
    const x = px(xOf(plot, run));
    if (point.low !== null && point.high !== null)
      whiskers.push(`M${x} ${px(y(point.low))}V${px(y(point.high))}`);
    if (run === points.length - 1) {
      head = `<circle class="head-dot" cx="${x}" cy="${px(y(point.rate))}" r="5"><title>head: ${escapeHtml(describePoint(point))}</title></circle>`;
    } else (point.same_measurement ? dots : other).push(`M${x} ${px(y(point.rate))}h0`);
  });
  const baseEnd = xOf(plot, Math.max(0, points.length - 2));
  const band = spread
    ? `<rect class="spread" x="${px(xOf(plot, 0) - 4)}" y="${px(y(spread.high))}" width="${px(baseEnd - xOf(plot, 0) + 8)}" height="${px(Math.max(1, y(spread.low) - y(spread.high)))}"/>` +
      `<line class="pooled" x1="${px(xOf(plot, 0) - 4)}" x2="${px(baseEnd + 4)}" y1="${px(y(spread.rate))}" y2="${px(y(spread.rate))}"/>`
    : "";
  const axis = options.axis
    ? [0, 0.5, 1]
        .map(
          (v) =>
            `<line class="grid" x1="${plot.left}" x2="${plot.width - plot.right}" y1="${px(y(v))}" y2="${px(y(v))}"/>` +
            `<text x="${plot.left - 4}" y="${px(y(v) + 4)}" text-anchor="end">${formatRate(v)}</text>`,
        )
        .join("")
    : "";
  return (
    `<svg class="history rate-chart" viewBox="0 0 ${plot.width} ${plot.height}" width="${plot.width}" height="${plot.height}" role="img">` +
    axis +
    band +
    renderMarkers(plot, markers, options.labelled) +
    (whiskers.length ? `<path class="whiskers" d="${whiskers.join("")}"/>` : "") +
    (dots.length ? `<path class="dots" d="${dots.join("")}"/>` : "") +
    (other.length ? `<path class="dots other" d="${other.join("")}"/>` : "") +
    head +
    "</svg>"
  );
}

function describePoint(point: HistoryPoint | null): string {
  if (!point || point.rate === null) return "–";
  return `${formatRate(point.rate)} [${formatRateRange(point.low, point.high)}] · ${point.passed}/${point.trials}`;
}

const formatMetric = (metric: HistoryMetric, value: number | null) =>
  metric === "cost" ? formatUsd(value) : formatNumber(value);

/** One metric's mean per trial across the runs, as a line with the head's dot and the markers. */
function renderTrend(
  metric: (typeof HISTORY_METRICS)[number],
  points: ReadonlyArray<HistoryPoint | null>,
  markers: readonly TreatmentMarker[],
): string {
  const plot: Plot = { width: 300, height: 90, left: 46, right: 10, top: 14, bottom: 8, runs: points.length };
  const values = points.map((p) => p?.metrics[metric.key] ?? null);
  const max = Math.max(0, ...values.filter((v): v is number => v !== null));
  const line = values
    .map((v, run) => (v === null ? "" : `${px(xOf(plot, run))} ${px(yOf(plot, v, max))}`))
    .filter((p) => p !== "")
    .join("L");
  const headValue = values.at(-1) ?? null;
  const head =
    headValue === null
      ? ""
      : `<circle class="head-dot" cx="${px(xOf(plot, points.length - 1))}" cy="${px(yOf(plot, headValue, max))}" r="4"/>`;
  const svg =
    `<svg class="history trend-chart" data-metric="${metric.key}" viewBox="0 0 ${plot.width} ${plot.height}" width="${plot.width}" height="${plot.height}" role="img">` +
    `<text x="${plot.left - 4}" y="${plot.top + 4}" text-anchor="end">${escapeHtml(formatMetric(metric.key, max))}</text>` +
    `<text x="${plot.left - 4}" y="${plot.height - plot.bottom}" text-anchor="end">0</text>` +
    renderMarkers(plot, markers, false) +
    (line ? `<path class="trend" d="M${line}"/>` : "") +
    head +
    "</svg>";
  const caption = `${metric.label} per trial · head ${formatMetric(metric.key, headValue)}`;
  return `<figure>${svg}<figcaption>${escapeHtml(caption)}</figcaption></figure>`;
}

function renderRunTable(history: RunHistory): string {
  const markerAt = new Map(history.suite.markers.map((m) => [m.run, m]));
  const rows = history.runs.map((run, i) => {
    const point = history.suite.points[i] ?? null;
    const marker = markerAt.get(i);
    const cells = [
      `<td class="num">${i + 1}</td>`,
      `<td>${escapeHtml(run.label)}${run.head ? " <strong>(head)</strong>" : ""}</td>`,
      `<td>${escapeHtml(run.started_at)}</td>`,
      `<td class="num">${escapeHtml(describePoint(point))}</td>`,
      ...HISTORY_METRICS.map(
        (m) => `<td class="num">${escapeHtml(formatMetric(m.key, point?.metrics[m.key] ?? null))}</td>`,
      ),
      `<td class="change">${marker ? escapeHtml(describeMarker(marker)) : ""}</td>`,
    ];
    return `<tr${run.head ? ' class="head-run"' : ""}>${cells.join("")}</tr>`;
  });
  const headers = [
    '<th class="num">#</th>',
    "<th>Run</th>",
    "<th>Started</th>",
    '<th class="num">Pass rate [95% CI] · passed/trials</th>',
    ...HISTORY_METRICS.map((m) => `<th class="num">${escapeHtml(m.label)}</th>`),
    "<th>Treatment changed</th>",
  ];
  return `<div class="table-wrap"><table id="history-runs"><thead><tr>${headers.join("")}</tr></thead><tbody>${rows.join("")}</tbody></table></div>`;
}

function renderScenarioTable(history: RunHistory): string {
  const plot: Plot = {
    width: 420,
    height: 46,
    left: 6,
    right: 8,
    top: 10,
    bottom: 4,
    runs: history.runs.length,
  };
  const rows = history.scenarios.map((s) => {
    const head = s.points.at(-1) ?? null;
    const spread = s.spread
      ? `${formatRate(s.spread.rate)} [${formatRateRange(s.spread.low, s.spread.high)}]`
      : "–";
    const changes = s.markers.map((m) => `run ${m.run + 1}: ${describeMarker(m)}`).join("; ");
    return (
      `<tr data-key="${escapeHtml(s.key)}"><td class="scenario-id">${escapeHtml(s.key)}</td>` +
      `<td class="chart">${renderRateChart(plot, s.points, s.markers, s.spread, { labelled: true, axis: false })}</td>` +
      `<td class="num">${escapeHtml(spread)}</td><td class="num">${escapeHtml(describePoint(head))}</td>` +
      `<td class="change">${escapeHtml(changes)}</td></tr>`
    );
  });
  return (
    `<div class="table-wrap"><table id="history-scenarios"><thead><tr><th>Scenario</th><th>Pass rate per run</th>` +
    `<th class="num">Base pooled [run-level 95%]</th><th class="num">Head [95% CI]</th><th>Treatment changed</th></tr></thead>` +
    `<tbody>${rows.join("")}</tbody></table></div>`
  );
}

/** The whole history as one HTML document. Pure. */
export function renderHistoryHtml({ history }: HistoryHtmlInput): string {
  const base = history.runs.length - 1;
  const head = history.runs.at(-1);
  const title = `llm-tool-test history · ${base} base run(s) and the head · ${head?.started_at ?? ""}`;
  const suitePlot: Plot = {
    width: 900,
    height: 200,
    left: 44,
    right: 16,
    top: 22,
    bottom: 10,
    runs: history.runs.length,
  };
  const variation =
    history.icc === null
      ? "No decision compared these runs: the run-level band is not drawn."
      : `The band is where a base run's own rate falls (95%) under the decision's model of runs: ICC ${formatNumber(history.icc)}${history.dispersion === null ? "" : `; the suite's spread across base runs is ${formatNumber(history.dispersion)}× binomial sampling`}.`;
  const leftOut =
    history.left_out.length === 0
      ? ""
      : `<p class="banner">Not shown (measured something else than the head): ${history.left_out.map((e) => escapeHtml(`${e.label}: ${e.reason}`)).join("; ")}</p>`;
  return [
    "<!DOCTYPE html>",
    renderPageHead(title, HISTORY_STYLE, HISTORY_SCRIPT),
    "<body><main>",
    `<h1>llm-tool-test history</h1>`,
    `<p class="meta">${base} base-branch run(s), oldest first, then the head (red). Dots: each run's pass rate with its 95% Wilson interval; grey where the scenario measured something else than the head's. Dashed lines: the tool's build (T) or the guidance (G) changed before that run. ${escapeHtml(variation)}</p>`,
    leftOut,
    `<h2>Suite</h2>`,
    renderRateChart(suitePlot, history.suite.points, history.suite.markers, null, {
      labelled: true,
      axis: true,
    }),
    `<h3>Per-trial metrics</h3>`,
    `<div class="trends">${HISTORY_METRICS.map((m) => renderTrend(m, history.suite.points, history.suite.markers)).join("")}</div>`,
    `<h3>Runs</h3>`,
    renderRunTable(history),
    `<h2>Scenarios</h2>`,
    `<p class="filter"><label>Filter <input id="history-filter" type="search" placeholder="scenario"></label></p>`,
    renderScenarioTable(history),
    "</main>",
    `<script>${HISTORY_SCRIPT}</script>`,
    "</body></html>",
    "",
  ].join("\n");
}
