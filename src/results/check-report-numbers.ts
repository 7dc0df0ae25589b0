/**
 * Range checks for the numbers of a report read from a file. A report may come from an artifact
 * anyone could have uploaded, and its figures feed the comparison and the comment: `error_rate: 7`
 * would show as 700%, a negative pass count would turn a test's arithmetic upside down, `1e999`
 * parses as Infinity. Checked by field name, which the report contract keeps unambiguous;
 * maps whose keys are the user's own names (a script gate's metrics, a judge's scores) only need
 * finite numbers. Every number also has a ceiling no real run comes near: a finite `1e200` is as
 * absurd as Infinity, and pooled into a baseline it would swamp every sum it joins.
 */

const RATES = new Set([
  "error_rate",
  "retry_rate",
  "first_try_success_rate",
  "tool_call_success_rate",
  "pass_rate",
  "pass_rate_ci_low",
  "pass_rate_ci_high",
  "pass_at_k",
  "pass_hat_k",
  "overall_rate",
  "rate",
  "confidence",
]);

const COUNTS = new Set([
  "schema_version",
  "trial",
  "trials",
  "first_trials",
  "extra_trials",
  "passed",
  "failed",
  "errors",
  "skipped",
  "pass_k",
  "trials_cost_unknown",
  "trials_recorded",
  "trials_cost_priced",
  "n",
  "tasks",
  "scenarios",
  "scenarios_passed",
  "gates_passed",
  "gates_total",
  "total_commands",
  "unique_commands",
  "error_count",
  "retry_count",
  "help_invocations",
  "commands",
  "retries",
  "turns",
  "tool_calls",
  "tool_calls_ok",
  "tool_calls_error",
  "input_tokens",
  "output_tokens",
  "cache_read_tokens",
  "cache_write_tokens",
  "total_tasks",
  "total_passed",
  "total_tool_calls",
  "total_turns",
  "total_input_tokens",
  "total_output_tokens",
  "total_cache_read_tokens",
  "total_cache_write_tokens",
  "index",
  "count",
]);

const NON_NEGATIVE = new Set([
  "duration_ms",
  "rate_limit_wait_ms",
  "total_duration_ms",
  "avg_duration_ms",
  "cost_usd",
  "total_cost_usd",
  "judge_cost_usd",
  "avg_turns_per_task",
  "avg_tool_calls_per_task",
  "weight",
  "max_score",
  "total_max_score",
  // price_table entries, USD per million tokens
  "input",
  "output",
  "cache_read",
  "cache_write",
]);

/** Ceilings, far above any real run: a count (tokens included), a duration, money. */
const MAX_COUNT = 1e12;
/** 10^11 ms is three years. */
const MAX_DURATION_MS = 1e11;
const MAX_USD = 1e7;
/** A user's own metric or score: anything a person would compute, short of the absurd. */
const MAX_FREE = 1e15;
const DURATIONS = new Set(["duration_ms", "rate_limit_wait_ms", "total_duration_ms", "avg_duration_ms"]);
const MONEY = new Set(["cost_usd", "total_cost_usd", "judge_cost_usd"]);

/** Maps keyed by the user's names, whose numbers are only required to be finite. */
const FREE_NUMBER_MAPS = new Set(["metrics", "scores"]);
/** Maps whose every number is a count (end reason -> trials). */
const COUNT_MAPS = new Set(["end_reasons"]);

/** The first number out of its range, as "field: what is wrong", or null when all are in range. */
export function findNumberOutOfRange(report: unknown): string | null {
  return visit(report, "", "", "");
}

function visit(value: unknown, field: string, key: string, parentKey: string): string | null {
  if (typeof value === "number") return checkNumber(value, field, key, parentKey);
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const problem = visit(item, `${field}[${index}]`, key, parentKey);
      if (problem) return problem;
    }
    return null;
  }
  if (value !== null && typeof value === "object") {
    for (const [childKey, child] of Object.entries(value)) {
      const problem = visit(child, field ? `${field}.${childKey}` : childKey, childKey, key);
      if (problem) return problem;
    }
  }
  return null;
}

function checkNumber(value: number, field: string, key: string, parentKey: string): string | null {
  const wrong = (expected: string) => `${field}: expected ${expected}, found ${value}`;
  if (!Number.isFinite(value)) return wrong("a finite number");
  if (FREE_NUMBER_MAPS.has(parentKey))
    return Math.abs(value) <= MAX_FREE ? null : wrong(`a number between -${MAX_FREE} and ${MAX_FREE}`);
  const isCount = COUNTS.has(key) || COUNT_MAPS.has(parentKey);
  if (isCount && !(Number.isInteger(value) && value >= 0)) return wrong("a whole number >= 0");
  if (isCount && value > MAX_COUNT) return wrong(`a count <= ${MAX_COUNT}`);
  if (RATES.has(key) && !(value >= 0 && value <= 1)) return wrong("a rate between 0 and 1 (or null)");
  if (NON_NEGATIVE.has(key) && value < 0) return wrong("a number >= 0");
  if (DURATIONS.has(key) && value > MAX_DURATION_MS) return wrong(`a duration <= ${MAX_DURATION_MS} ms`);
  if (MONEY.has(key) && value > MAX_USD) return wrong(`an amount <= ${MAX_USD} USD`);
  if (Math.abs(value) > MAX_FREE) return wrong(`a number between -${MAX_FREE} and ${MAX_FREE}`);
  return null;
}
