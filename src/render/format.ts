/**
 * Every number a renderer shows, written one way: the Markdown report, the terminal, the comparison,
 * the PR comment, the job summary and the HTML page. The page's script embeds the functions in
 * PORTABLE_FORMATTERS by their source, so its transcript viewer prints what the server side prints.
 *
 * Rules: missing values are "–"; negatives carry a true minus sign (−); compact figures drop
 * trailing zeros ("12 s", "12.3k"), money does not ("$0.50", "$1.20").
 */
import type { MetricKind } from "../results/trial-metrics.js";

// The functions down to PORTABLE_FORMATTERS travel into the page's script as source text: each must
// use nothing from outside its own body but the other portable functions, no inner named function
// (test tools would add their own helpers there) and nothing newer than ES2017 (so no numeric
// separators).

/** A share in [0, 1] as a percentage: "67%", under 10% with one decimal ("2.5%"). */
export function formatRate(value: number | null | undefined): string {
  if (value === null || value === undefined) return "–";
  const percent = Math.abs(value) * 100;
  const text = String(Number(percent.toFixed(percent >= 10 ? 0 : 1)));
  return (value < 0 && /[1-9]/.test(text) ? "−" : "") + text + "%";
}

/** Tokens (and other large counts): "950", "12.3k", "1.25M". */
export function formatTokens(value: number | null | undefined): string {
  if (value === null || value === undefined) return "–";
  const v = Math.abs(value);
  let text: string;
  if (v < 999.5) text = String(Math.round(v));
  else if (v < 999950) text = `${String(Number((v / 1000).toFixed(1)))}k`;
  else text = `${String(Number((v / 1000000).toFixed(2)))}M`;
  return (value < 0 && /[1-9]/.test(text) ? "−" : "") + text;
}

/** A count, a mean or a score, to about three significant digits: "3.25", "12.5", "450", "12.3k". */
export function formatNumber(value: number | null | undefined): string {
  if (value === null || value === undefined) return "–";
  const v = Math.abs(value);
  if (v >= 10000) return formatTokens(value);
  const text = String(Number(v.toFixed(v < 10 ? 2 : v < 100 ? 1 : 0)));
  return (value < 0 && /[1-9]/.test(text) ? "−" : "") + text;
}

/**
 * Dollars: cents from $1 up ("$1.23"); below, two significant digits, trailing zeros kept only
 * down to cents ("$0.50", "$0.05", "$0.046", "$0.0012"), so a single trial's cost stays exact.
 */
export function formatUsd(value: number | null | undefined): string {
  if (value === null || value === undefined) return "–";
  const v = Math.abs(value);
  if (v === 0) return "$0";
  let text = v.toPrecision(2);
  if (v >= 0.995) text = v.toFixed(2);
  else if (text.length > 4 && text.indexOf("e") === -1) text = text.replace(/0+$/, "");
  return `${value < 0 ? "−" : ""}$${text}`;
}

/**
 * A run's total cost: the known costs summed, and how many trials had no known cost (a model
 * missing from the price table), never a silent "$0" for them: "cost $0.12", "cost $0.12, and
 * unknown for 2 trials", "cost unknown for 3 trials". `label: false` drops the leading "cost ".
 */
export function formatRunCost(
  summary: { total_cost_usd: number; trials_cost_unknown?: number },
  options: { label?: boolean } = {},
): string {
  const unknown = summary.trials_cost_unknown ?? 0;
  const trials = `${unknown} trial${unknown === 1 ? "" : "s"}`;
  let text: string;
  if (unknown === 0) text = `cost ${formatUsd(summary.total_cost_usd)}`;
  else if (summary.total_cost_usd === 0) text = `cost unknown for ${trials}`;
  else text = `cost ${formatUsd(summary.total_cost_usd)}, and unknown for ${trials}`;
  return options.label === false ? text.replace(/^cost /, "") : text;
}

/** A table cell's cost: "$0.12", "≥ $0.12" when some trials' cost is unknown, "unknown" when all are. */
export function formatCostCell(
  knownUsd: number,
  trialsCostUnknown: number | undefined,
  trials: number,
): string {
  const unknown = trialsCostUnknown ?? 0;
  if (unknown === 0) return formatUsd(knownUsd);
  return unknown >= trials ? "unknown" : `≥ ${formatUsd(knownUsd)}`;
}

/** Milliseconds for people: "350 ms", "12.5 s", "2 min 5 s", "1 h 15 min". */
export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return "–";
  const v = Math.abs(ms);
  const seconds = Math.round(v / 1000);
  const minutes = Math.round(v / 60000);
  let text: string;
  if (v < 999.5) text = `${Math.round(v)} ms`;
  else if (v < 59950) text = `${String(Number((v / 1000).toFixed(1)))} s`;
  else if (seconds < 3600)
    text = `${Math.floor(seconds / 60)} min${seconds % 60 ? ` ${seconds % 60} s` : ""}`;
  else text = `${Math.floor(minutes / 60)} h${minutes % 60 ? ` ${minutes % 60} min` : ""}`;
  return (ms < 0 && /[1-9]/.test(text) ? "−" : "") + text;
}

/**
 * The formatters the HTML page's script embeds (by source) under these names, dependencies
 * included: formatNumber calls formatTokens.
 */
export const PORTABLE_FORMATTERS = {
  formatRate,
  formatTokens,
  formatNumber,
  formatUsd,
  formatDuration,
} as const;

// ---------------------------------------------------------------------------------------------
// Server side only
// ---------------------------------------------------------------------------------------------

const MINUS = "−";
const P_FLOOR = 0.001;

/** What a metric's figures are measured in, read from its name. */
type Unit = "rate" | "usd" | "duration" | "tokens" | "number";

/** A metric as the comparison describes it. */
export interface MeasuredMetric {
  metric: string;
  kind: MetricKind;
}

function unitOf(m: MeasuredMetric): Unit {
  if (m.kind === "rate") return "rate";
  if (m.metric.endsWith("_usd")) return "usd";
  if (m.metric.endsWith("_ms")) return "duration";
  if (m.metric.endsWith("_tokens")) return "tokens";
  return "number";
}

const FORMAT_BY_UNIT: Record<Unit, (value: number) => string> = {
  rate: formatRate,
  usd: formatUsd,
  duration: formatDuration,
  tokens: formatTokens,
  number: formatNumber,
};

/** A metric's value in its unit: "67%", "$0.046", "12.5 s", "12.3k", "3.25". */
export function formatMetricValue(m: MeasuredMetric, value: number | null | undefined): string {
  if (value === null || value === undefined) return "–";
  return FORMAT_BY_UNIT[unitOf(m)](value);
}

/** A magnitude with the delta's sign; none when it shows as zero ("0 pts", "$0"). */
function withSign(delta: number, magnitude: string): string {
  if (!/[1-9]/.test(magnitude)) return magnitude;
  return `${delta < 0 ? MINUS : "+"}${magnitude}`;
}

/** A difference of two shares in percentage points, without the unit: "+12", "−4.5", "0". */
function formatPointsNumber(delta: number): string {
  const points = Math.abs(delta) * 100;
  return withSign(delta, String(Number(points.toFixed(points >= 10 ? 0 : 1))));
}

/** A difference of two shares in percentage points: "+12 pts", "−4.5 pts", "0 pts". */
export function formatPoints(delta: number | null | undefined): string {
  if (delta === null || delta === undefined) return "–";
  return `${formatPointsNumber(delta)} pts`;
}

/** A relative change already in percent: "+25%", "−12.5%", "0%". */
export function formatPercentChange(percent: number): string {
  return withSign(percent, `${formatNumber(Math.abs(percent))}%`);
}

/** head − base in the metric's unit, signed; rates in percentage points ("−12 pts", "+$0.012"). */
export function formatMetricDelta(m: MeasuredMetric, delta: number | null | undefined): string {
  if (delta === null || delta === undefined) return "–";
  if (unitOf(m) === "rate") return formatPoints(delta);
  return withSign(delta, FORMAT_BY_UNIT[unitOf(m)](Math.abs(delta)));
}

/** An interval of the change: "[−27, +3] pts" for rates, "[−$0.01, +$0.02]" otherwise. */
export function formatMetricInterval(
  m: MeasuredMetric,
  low: number | null | undefined,
  high: number | null | undefined,
): string {
  if (low === null || low === undefined || high === null || high === undefined) return "–";
  if (unitOf(m) === "rate") return `[${formatPointsNumber(low)}, ${formatPointsNumber(high)}] pts`;
  return `[${formatMetricDelta(m, low)}, ${formatMetricDelta(m, high)}]`;
}

/** A change with its interval, the unit once: "+8 [+2, +14] pts", "+0.5 [−0.2, +1.2]", "+8 pts" without one. */
export function formatDeltaWithInterval(
  m: MeasuredMetric,
  delta: number | null | undefined,
  low: number | null | undefined,
  high: number | null | undefined,
): string {
  if (delta === null || delta === undefined) return "–";
  const hasInterval = low !== null && low !== undefined && high !== null && high !== undefined;
  if (!hasInterval) return formatMetricDelta(m, delta);
  if (unitOf(m) === "rate") {
    return `${formatPointsNumber(delta)} [${formatPointsNumber(low)}, ${formatPointsNumber(high)}] pts`;
  }
  return `${formatMetricDelta(m, delta)} ${formatMetricInterval(m, low, high)}`;
}

/** "100% → 20% (−80 pts, 95% CI [−97, −27] pts)". */
export function formatMetricChange(
  t: MeasuredMetric & {
    base_mean: number | null;
    head_mean: number | null;
    delta: number | null;
    ci_low: number | null;
    ci_high: number | null;
  },
): string {
  const ci = t.ci_low === null ? "no interval" : `95% CI ${formatMetricInterval(t, t.ci_low, t.ci_high)}`;
  return `${formatMetricValue(t, t.base_mean)} → ${formatMetricValue(t, t.head_mean)} (${formatMetricDelta(t, t.delta)}, ${ci})`;
}

/** Lower and upper bound of a share: "40%–90%". */
export function formatRateRange(low: number | null | undefined, high: number | null | undefined): string {
  return `${formatRate(low)}–${formatRate(high)}`;
}

/** How a test judged its p-value: rejected exactly when p ≤ alpha (the decision's adjusted p-values). */
export interface PVerdict {
  alpha: number;
  rejected: boolean;
}

/** Significant digits tried, fewest first, until the printed p sits on its verdict's side of α. */
const P_DIGITS = [3, 4, 5, 6];

/**
 * A p-value for a table: three significant digits ("0.0120", "0.0504", "1.00"), "<0.001" below
 * that. Given its verdict, never rounded across α: a p of 0.0504 that was not rejected at 0.05
 * never shows as "0.050", and one that was rejected never shows above α; more digits are printed
 * until the number agrees, else "> 0.05" or "≤ 0.05".
 */
export function formatP(p: number | null | undefined, verdict?: PVerdict): string {
  if (p === null || p === undefined) return "–";
  const agrees = (shown: number) =>
    verdict === undefined || (verdict.rejected ? shown <= verdict.alpha : shown > verdict.alpha);
  // "<0.001" says nothing against an α below it.
  if (p < P_FLOOR && (verdict === undefined || (verdict.rejected && P_FLOOR <= verdict.alpha))) {
    return `<${P_FLOOR}`;
  }
  for (const digits of P_DIGITS) {
    const text = p.toPrecision(digits);
    if (!text.includes("e") && agrees(Number(text))) return text;
  }
  return verdict?.rejected ? `≤ ${verdict.alpha}` : `> ${verdict?.alpha ?? P_FLOOR}`;
}

/** A p-value in a sentence: "p = 0.0120", "p < 0.001", "p > 0.05" (the label names the p-value). */
export function formatPStatement(label: string, p: number, verdict?: PVerdict): string {
  const text = formatP(p, verdict);
  if (text.startsWith("<")) return `${label} < ${text.slice(1)}`;
  return /^[≤>]/.test(text) ? `${label} ${text}` : `${label} = ${text}`;
}
