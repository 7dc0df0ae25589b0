/**
 * The metrics a comparison can test: where each is read from in a trial, which direction is
 * better, and what kind of number it is (which decides the tolerance and the formatting).
 */
import { ConfigError } from "../errors.js";
import type { ScenarioReport, TrialReport } from "../report/types.js";
import type { Direction, MetricKind } from "./types.js";

export interface MetricDefinition {
  name: string;
  direction: Direction;
  kind: MetricKind;
  /** Value in one trial; null when the trial has none (a rate with nothing to divide by). */
  read: (trial: TrialReport) => number | null;
}

export const PASS_RATE = "pass_rate";

/** pass_rate plus the layer-1 metrics and the execution figures a user watches. */
export const DEFAULT_COMPARE_METRICS: readonly string[] = [
  PASS_RATE,
  "error_rate",
  "retry_rate",
  "help_invocations",
  "first_try_success_rate",
  "iteration_ratio",
  "total_commands",
  "turns",
  "tool_calls",
  "input_tokens",
  "output_tokens",
  "cost_usd",
  "duration_ms",
];

type InteractionKey = keyof TrialReport["interaction"];
type ExecutionKey = keyof TrialReport["execution"];

function fromInteraction(name: InteractionKey, direction: Direction, kind: MetricKind): MetricDefinition {
  return { name, direction, kind, read: (t) => toNumber(t.interaction?.[name]) };
}

function fromExecution(name: ExecutionKey, direction: Direction, kind: MetricKind): MetricDefinition {
  return { name, direction, kind, read: (t) => toNumber(t.execution?.[name]) };
}

function toNumber(value: unknown): number | null {
  if (typeof value === "boolean") return value ? 1 : 0;
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}

const HIGHER: Direction = "higher_is_better";
const LOWER: Direction = "lower_is_better";

const DEFINITIONS: MetricDefinition[] = [
  // pass_rate is tested on pass/fail counts; `read` serves the per-scenario rate at suite level.
  { name: PASS_RATE, direction: HIGHER, kind: "rate", read: (t) => (t.outcome === "pass" ? 1 : 0) },
  fromInteraction("total_commands", LOWER, "count"),
  fromInteraction("unique_commands", LOWER, "count"),
  fromInteraction("error_count", LOWER, "count"),
  fromInteraction("error_rate", LOWER, "rate"),
  fromInteraction("retry_count", LOWER, "count"),
  fromInteraction("retry_rate", LOWER, "rate"),
  fromInteraction("help_invocations", LOWER, "count"),
  fromInteraction("first_try_success_rate", HIGHER, "rate"),
  fromInteraction("iteration_ratio", HIGHER, "rate"),
  fromInteraction("completed", HIGHER, "rate"),
  fromExecution("turns", LOWER, "count"),
  fromExecution("tool_calls", LOWER, "count"),
  fromExecution("tool_calls_error", LOWER, "count"),
  fromExecution("tool_call_success_rate", HIGHER, "rate"),
  fromExecution("natural_stop", HIGHER, "rate"),
  fromExecution("input_tokens", LOWER, "amount"),
  fromExecution("output_tokens", LOWER, "amount"),
  fromExecution("cache_read_tokens", LOWER, "amount"),
  fromExecution("cache_write_tokens", LOWER, "amount"),
  fromExecution("duration_ms", LOWER, "amount"),
  fromExecution("cost_usd", LOWER, "amount"),
  { name: "score", direction: HIGHER, kind: "amount", read: (t) => toNumber(t.score) },
  { name: "judge_score", direction: HIGHER, kind: "rate", read: (t) => toNumber(t.judge_score) },
  { name: "composite_score", direction: HIGHER, kind: "rate", read: (t) => toNumber(t.composite_score) },
];

const BY_NAME = new Map(DEFINITIONS.map((d) => [d.name, d]));

export const KNOWN_METRICS: readonly string[] = DEFINITIONS.map((d) => d.name);

/** The definition of a metric, or a ConfigError naming `where` and the known metrics. */
export function findMetric(name: string, where = "metrics"): MetricDefinition {
  const definition = BY_NAME.get(name);
  if (!definition) {
    throw new ConfigError(`unknown metric "${name}"; known metrics: ${KNOWN_METRICS.join(", ")}`, where);
  }
  return definition;
}

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

/** A metric's values over a scenario's evaluated trials: errors and skips say nothing about the tool. */
export function readMetricValues(scenario: ScenarioReport, definition: MetricDefinition): number[] {
  const values: number[] = [];
  for (const t of scenario.trials) {
    if (t.outcome !== "pass" && t.outcome !== "fail") continue;
    const v = definition.read(t);
    if (v !== null) values.push(v);
  }
  return values;
}
