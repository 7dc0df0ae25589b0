/**
 * The per-trial metrics: where each is read from in a trial, which direction is better, and what
 * kind of number it is. One list for the per-scenario summaries (aggregate.ts) and for the
 * comparison with a baseline (src/compare/).
 */
import { ConfigError } from "../errors.js";
import type { TrialReport } from "./types.js";

export type Direction = "higher_is_better" | "lower_is_better";

/** rate: a share in [0, 1] (tolerance in points); count / amount: tolerance relative to the baseline. */
export type MetricKind = "rate" | "count" | "amount";

export interface MetricDefinition {
  name: string;
  direction: Direction;
  kind: MetricKind;
  /** Value in one trial; null when the trial has none (a rate with nothing to divide by). */
  read: (trial: TrialReport) => number | null;
}

export const PASS_RATE = "pass_rate";

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

/** Every per-trial metric, where it is read from, which way is better and what kind of number it is. */
export const METRIC_DEFINITIONS: readonly MetricDefinition[] = [
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
  {
    name: "score_rate",
    direction: HIGHER,
    kind: "rate",
    read: (t) => (t.max_score > 0 ? t.score / t.max_score : null),
  },
  { name: "judge_score", direction: HIGHER, kind: "rate", read: (t) => toNumber(t.judge_score) },
  { name: "composite_score", direction: HIGHER, kind: "rate", read: (t) => toNumber(t.composite_score) },
];

const BY_NAME = new Map(METRIC_DEFINITIONS.map((d) => [d.name, d]));

const KNOWN_METRICS: readonly string[] = METRIC_DEFINITIONS.map((d) => d.name);

/** The definition of a metric, or a ConfigError naming `where` and the known metrics. */
export function findMetric(name: string, where = "metrics"): MetricDefinition {
  const definition = BY_NAME.get(name);
  if (!definition) {
    throw new ConfigError(`unknown metric "${name}"; known metrics: ${KNOWN_METRICS.join(", ")}`, where);
  }
  return definition;
}

/** A metric's values over the evaluated trials: errors and skips say nothing about the tool. */
export function readTrialValues(trials: readonly TrialReport[], definition: MetricDefinition): number[] {
  const values: number[] = [];
  for (const t of trials) {
    if (t.outcome !== "pass" && t.outcome !== "fail") continue;
    const v = definition.read(t);
    if (v !== null) values.push(v);
  }
  return values;
}
