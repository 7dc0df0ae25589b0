/**
 * Tolerance gates (opt-in): "no more than +20% input tokens than the base". Set for the suite (the
 * action's `tolerance-gates`, the CLI's `--tolerance-gates`) or per scenario (`tolerance_gates` in
 * its YAML, over the suite's); decided in compare/decision.ts with the other gates (docs/statistics.md,
 * "Tolerance gates"). This module reads and writes the setting; the test is stats/difference-interval.ts's.
 */
import { ConfigError } from "../errors.js";

/** Metric → the largest increase over the base's mean still allowed, as a fraction (0.2: +20%). */
export type ToleranceGates = Record<string, number>;

/** What a tolerance gate may watch: what a change costs (descriptive everywhere else). */
export const TOLERANCE_METRICS: readonly string[] = [
  "cost_usd",
  "input_tokens",
  "output_tokens",
  "cache_read_tokens",
  "cache_write_tokens",
  "turns",
];

/** "+20%" (the + may be left out); the schema's pattern for a scenario's value. */
export const TOLERANCE_PATTERN = /^\s*\+?(\d+(?:\.\d+)?)\s*%\s*$/;

/** A tolerance as written ("+20%") to its fraction (0.2); a ConfigError naming `where` otherwise. */
export function parseTolerance(text: string, where: string): number {
  const match = TOLERANCE_PATTERN.exec(text);
  if (!match) {
    throw new ConfigError(`expected an increase in percent such as "+20%", got "${text}"`, where);
  }
  return Number(match[1]) / 100;
}

function checkToleranceMetric(metric: string, where: string): void {
  if (!TOLERANCE_METRICS.includes(metric)) {
    throw new ConfigError(
      `"${metric}" cannot have a tolerance gate; one of ${TOLERANCE_METRICS.join(", ")} (pass rate and layer-1 metrics are gated by fail-on and gate-metrics)`,
      where,
    );
  }
}

/** The suite's setting: entries `METRIC:+N%` (e.g. `input_tokens:+20%`), each metric once. */
export function parseToleranceGates(entries: readonly string[], where: string): ToleranceGates {
  const gates: ToleranceGates = {};
  for (const entry of entries) {
    const colon = entry.indexOf(":");
    if (colon < 0) {
      throw new ConfigError(`expected METRIC:+N% (e.g. input_tokens:+20%), got "${entry}"`, where);
    }
    const metric = entry.slice(0, colon).trim();
    checkToleranceMetric(metric, where);
    if (metric in gates) throw new ConfigError(`${metric} is given twice`, where);
    gates[metric] = parseTolerance(entry.slice(colon + 1), `${where} (${metric})`);
  }
  return gates;
}

/** "+20%": as the user wrote it. */
export function formatTolerance(tolerance: number): string {
  return `+${Number((tolerance * 100).toFixed(2))}%`;
}

/** Checks gates given as data (a library caller's, a report's): known metrics, fractions >= 0. */
export function checkToleranceGates(gates: ToleranceGates, where: string): ToleranceGates {
  for (const [metric, tolerance] of Object.entries(gates)) {
    checkToleranceMetric(metric, `${where}.${metric}`);
    if (!(typeof tolerance === "number" && tolerance >= 0 && Number.isFinite(tolerance))) {
      throw new ConfigError(
        `must be a fraction >= 0 (0.2 for +20%), got ${String(tolerance)}`,
        `${where}.${metric}`,
      );
    }
  }
  return gates;
}

/**
 * A scenario's gates over the suite's: each metric's tolerance from the scenario when it sets one.
 * A report's values are checked too (a report may be edited by hand): the error names the scenario.
 */
export function gatesOfScenario(
  suite: ToleranceGates,
  scenario: ToleranceGates | undefined,
  key: string,
): ToleranceGates {
  return { ...suite, ...checkToleranceGates(scenario ?? {}, `scenario "${key}" tolerance_gates`) };
}
