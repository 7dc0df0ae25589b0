/** Number formatting shared by the comparison renderers and the gate's reasons. */
import type { Correction, MetricKind, ScenarioStatus, Verdict } from "./types.js";

export const VERDICT_MARK: Record<Verdict, string> = {
  regressed: "🔴",
  improved: "🟢",
  unchanged: "⚪",
  inconclusive: "❔",
  too_few_samples: "➖",
};

export const VERDICT_LABEL: Record<Verdict, string> = {
  regressed: "regressed",
  improved: "improved",
  unchanged: "unchanged",
  inconclusive: "inconclusive",
  too_few_samples: "too few samples",
};

export const STATUS_LABEL: Record<ScenarioStatus, string> = {
  newly_failing: "newly failing",
  newly_passing: "newly passing",
  still_passing: "passing",
  still_failing: "still failing",
  became_flaky: "became flaky",
  still_flaky: "flaky",
  stabilized_pass: "now passing",
  stabilized_fail: "now failing",
  no_data: "no data",
};

const MINUS = "−";

interface Measured {
  metric: string;
  kind: MetricKind;
}

function trim(text: string): string {
  return text.includes(".") ? text.replace(/\.?0+$/, "") : text;
}

function withSign(text: string, negative: boolean, zero: boolean): string {
  if (zero) return text;
  return negative ? `${MINUS}${text}` : `+${text}`;
}

/** A metric's value for people: rates as percentages, cost in dollars, durations in seconds. */
export function formatValue(m: Measured, value: number | null): string {
  if (value === null) return "–";
  const negative = value < 0;
  const text = formatMagnitude(m, Math.abs(value));
  return negative ? `${MINUS}${text}` : text;
}

function formatMagnitude(m: Measured, v: number): string {
  if (m.kind === "rate") return `${trim((v * 100).toFixed(v * 100 >= 10 ? 0 : 1))}%`;
  if (m.metric === "cost_usd") return `$${v >= 1 ? v.toFixed(2) : trim(v.toFixed(v >= 0.01 ? 3 : 4))}`;
  if (m.metric === "duration_ms" || m.metric === "rate_limit_wait_ms") {
    return v >= 1000 ? `${trim((v / 1000).toFixed(1))} s` : `${Math.round(v)} ms`;
  }
  if (v >= 10_000) return `${trim((v / 1000).toFixed(1))}k`;
  if (v >= 100) return String(Math.round(v));
  return trim(v.toFixed(v >= 10 ? 1 : 2));
}

/** head − base: rates in percentage points ("−12 pts"), others in the metric's unit. */
export function formatDelta(m: Measured, delta: number | null): string {
  if (delta === null) return "–";
  const zero = Math.abs(delta) < 1e-12;
  if (m.kind === "rate") {
    const points = Math.abs(delta) * 100;
    return `${withSign(trim(points.toFixed(points >= 10 ? 0 : 1)), delta < 0, zero)} pts`;
  }
  return withSign(formatMagnitude(m, Math.abs(delta)), delta < 0, zero);
}

/** "[−27, +3]" in the delta's unit. */
export function formatInterval(m: Measured, low: number | null, high: number | null): string {
  if (low === null || high === null) return "–";
  const unit = (d: number) =>
    m.kind === "rate" ? formatDelta(m, d).replace(/ pts$/, "") : formatDelta(m, d);
  return `[${unit(low)}, ${unit(high)}]${m.kind === "rate" ? " pts" : ""}`;
}

/** "100% → 20% (−80 pts, 95% CI [−97, −27] pts)". */
export function formatChange(
  t: Measured & {
    base_mean: number | null;
    head_mean: number | null;
    delta: number | null;
    ci_low: number | null;
    ci_high: number | null;
  },
): string {
  const ci = t.ci_low === null ? "no interval" : `95% CI ${formatInterval(t, t.ci_low, t.ci_high)}`;
  return `${formatValue(t, t.base_mean)} → ${formatValue(t, t.head_mean)} (${formatDelta(t, t.delta)}, ${ci})`;
}

export function formatP(p: number | null): string {
  if (p === null) return "–";
  if (p < 0.001) return "<0.001";
  return p.toFixed(3);
}

export function describeCorrection(method: Correction, tests: number): string {
  const name = method === "holm" ? "Holm" : "Benjamini–Hochberg";
  return `${name} over ${tests} test${tests === 1 ? "" : "s"}`;
}
