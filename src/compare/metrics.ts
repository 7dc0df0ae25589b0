/** Which metrics a comparison tests by default, and how a scenario's values are read. */

import { findMetric, type MetricDefinition, PASS_RATE, readTrialValues } from "../results/trial-metrics.js";
import type { ScenarioReport } from "../results/types.js";

export {
  findMetric,
  type MetricDefinition,
  PASS_RATE,
} from "../results/trial-metrics.js";

/** The interaction metrics the product promises (layer 1), in the order tables show them. */
export const LAYER_ONE_METRICS: readonly string[] = [
  "error_rate",
  "retry_rate",
  "help_invocations",
  "first_try_success_rate",
  "iteration_ratio",
  "total_commands",
  "completed",
];

/** pass_rate plus the layer-1 metrics and the execution figures a user watches. */
export const DEFAULT_COMPARE_METRICS: readonly string[] = [
  PASS_RATE,
  ...LAYER_ONE_METRICS,
  "turns",
  "tool_calls",
  "input_tokens",
  "output_tokens",
  "cost_usd",
  "duration_ms",
];

/** Metric names for a comparison: deduplicated, validated, pass_rate first. */
export function resolveMetricNames(names: readonly string[] | undefined, where = "metrics"): string[] {
  const requested = names ?? DEFAULT_COMPARE_METRICS;
  const out = [PASS_RATE];
  for (const name of requested) {
    findMetric(name, where);
    if (!out.includes(name)) out.push(name);
  }
  return out;
}

/** A metric's values over a scenario's evaluated trials. */
export function readMetricValues(scenario: ScenarioReport, definition: MetricDefinition): number[] {
  return readTrialValues(scenario.trials, definition);
}
