/**
 * Shape checks for a report read from a file. A baseline report comes from an artifact that any
 * base-branch run (or anyone who could push there) uploaded, and the comparison, the pooling, the
 * decision and the comment read its fields without further checks: a trial that is a string, an
 * outcome the code does not know or a scenario without trials would crash the run or quietly change
 * what is compared. Only the fields those readers rely on are checked; the numbers' ranges are
 * check-report-numbers.ts's.
 */
import type { Outcome } from "./types.js";

const OUTCOMES: ReadonlySet<Outcome> = new Set(["pass", "fail", "error", "skipped"]);

/** Longer strings are not a report's: ids, hashes and versions are short, reasons are cut when written. */
const MAX_STRING = 1_000_000;

type Problem = string | null;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (value === undefined) return "nothing";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") return value.length > 40 ? "a long string" : JSON.stringify(value);
  return `a ${typeof value}`;
}

function wrongKind(field: string, expected: string, value: unknown): string {
  return `${field}: expected ${expected}, found ${kindOf(value)}`;
}

function checkString(record: Record<string, unknown>, key: string, at: string, nullable = false): Problem {
  const value = record[key];
  if (nullable && value === null) return null;
  if (typeof value !== "string")
    return wrongKind(`${at}${key}`, nullable ? "a string or null" : "a string", value);
  if (value.length > MAX_STRING) return `${at}${key}: longer than ${MAX_STRING} characters`;
  return null;
}

function checkOptionalString(record: Record<string, unknown>, key: string, at: string): Problem {
  return record[key] === undefined ? null : checkString(record, key, at, true);
}

function checkNumber(record: Record<string, unknown>, key: string, at: string, nullable = false): Problem {
  const value = record[key];
  if (nullable && value === null) return null;
  return typeof value === "number"
    ? null
    : wrongKind(`${at}${key}`, nullable ? "a number or null" : "a number", value);
}

function checkObject(record: Record<string, unknown>, key: string, at: string): Problem {
  return isObject(record[key]) ? null : wrongKind(`${at}${key}`, "an object", record[key]);
}

/** An optional list the renderers go through (`shim_disagreements`, `command_pattern_misses`). */
function checkOptionalStrings(record: Record<string, unknown>, key: string, at: string): Problem {
  const value = record[key];
  if (value === undefined) return null;
  if (!Array.isArray(value)) return wrongKind(`${at}${key}`, "a list of strings", value);
  for (const [index, item] of value.entries()) {
    const problem = checkString({ item }, "item", `${at}${key}[${index}].`);
    if (problem) return problem.replace(".item:", ":");
  }
  return null;
}

/** An agent matrix's `entries`: a list of `{agent, model}` (model null for an agent without one). */
function checkOptionalEntries(record: Record<string, unknown>, key: string, at: string): Problem {
  const value = record[key];
  if (value === undefined) return null;
  if (!Array.isArray(value)) return wrongKind(`${at}${key}`, "a list of {agent, model}", value);
  for (const [index, item] of value.entries()) {
    const where = `${at}${key}[${index}]`;
    if (!isObject(item)) return wrongKind(where, "an {agent, model} object", item);
    const problem = checkString(item, "agent", `${where}.`) ?? checkString(item, "model", `${where}.`, true);
    if (problem) return problem;
  }
  return null;
}

/** `possible_global_options`: a list of `{option, command}`. */
function checkOptionalHints(record: Record<string, unknown>, key: string, at: string): Problem {
  const value = record[key];
  if (value === undefined) return null;
  if (!Array.isArray(value)) return wrongKind(`${at}${key}`, "a list of {option, command}", value);
  for (const [index, item] of value.entries()) {
    const where = `${at}${key}[${index}]`;
    if (!isObject(item)) return wrongKind(where, "an object with option and command", item);
    const problem = first(
      () => checkString(item, "option", `${where}.`),
      () => checkString(item, "command", `${where}.`),
    );
    if (problem) return problem;
  }
  return null;
}

/** `behaviour`: counts by name, and the first failed call or null (the base-vs-head diff reads them). */
function checkOptionalBehaviour(record: Record<string, unknown>, key: string, at: string): Problem {
  const value = record[key];
  if (value === undefined) return null;
  const where = `${at}${key}`;
  if (!isObject(value)) return wrongKind(where, "an object with options, shapes and first_failure", value);
  for (const counts of ["options", "shapes"]) {
    const entries = value[counts];
    if (!isObject(entries)) return wrongKind(`${where}.${counts}`, "an object of counts", entries);
    for (const [name, count] of Object.entries(entries)) {
      if (typeof count !== "number" || !Number.isSafeInteger(count) || count < 0)
        return wrongKind(`${where}.${counts}[${JSON.stringify(name)}]`, "a count", count);
    }
  }
  const failure = value.first_failure;
  if (failure === null) return null;
  if (!isObject(failure)) return wrongKind(`${where}.first_failure`, "a failed call or null", failure);
  return first(
    () => checkString(failure, "command", `${where}.first_failure.`),
    () => checkNumber(failure, "exit_code", `${where}.first_failure.`),
    () => checkString(failure, "stderr", `${where}.first_failure.`, true),
  );
}

function first(...problems: (() => Problem)[]): Problem {
  for (const problem of problems) {
    const found = problem();
    if (found) return found;
  }
  return null;
}

function checkTrial(trial: unknown, at: string): Problem {
  if (!isObject(trial)) return wrongKind(at, "a trial (an object)", trial);
  const prefix = `${at}.`;
  return first(
    () => checkNumber(trial, "trial", prefix),
    () =>
      OUTCOMES.has(trial.outcome as Outcome)
        ? null
        : wrongKind(`${prefix}outcome`, `one of ${[...OUTCOMES].join(", ")}`, trial.outcome),
    () => checkString(trial, "reason", prefix, true),
    () => checkObject(trial, "interaction", prefix),
    () => checkObject(trial, "execution", prefix),
    () => checkNumber(trial.execution as Record<string, unknown>, "duration_ms", `${prefix}execution.`),
    () => checkNumber(trial.execution as Record<string, unknown>, "cost_usd", `${prefix}execution.`, true),
    () => (Array.isArray(trial.gates) ? null : wrongKind(`${prefix}gates`, "an array", trial.gates)),
    () => checkNumber(trial, "gates_passed", prefix),
    () => checkNumber(trial, "gates_total", prefix),
    () => checkNumber(trial, "score", prefix),
    () => checkNumber(trial, "max_score", prefix),
    () => checkOptionalStrings(trial, "shim_disagreements", prefix),
    () => checkOptionalStrings(trial, "command_pattern_misses", prefix),
    () => checkOptionalHints(trial, "possible_global_options", prefix),
    () => checkOptionalBehaviour(trial, "behaviour", prefix),
  );
}

function checkScenario(scenario: unknown, at: string): Problem {
  if (!isObject(scenario)) return wrongKind(at, "a scenario (an object)", scenario);
  const prefix = `${at}.`;
  const problem = first(
    () => checkString(scenario, "id", prefix),
    () => checkString(scenario, "variant", prefix, true),
    () => checkOptionalString(scenario, "agent", prefix),
    () => checkOptionalString(scenario, "model", prefix),
    () => checkString(scenario, "content_hash", prefix),
    () => (Array.isArray(scenario.trials) ? null : wrongKind(`${prefix}trials`, "an array", scenario.trials)),
    () => checkObject(scenario, "summary", prefix),
  );
  if (problem) return problem;
  for (const [index, trial] of (scenario.trials as unknown[]).entries()) {
    const found = checkTrial(trial, `${prefix}trials[${index}]`);
    if (found) return found;
  }
  return null;
}

/** The first field that is not what a report holds there, as "field: what is wrong", or null. */
export function findReportShapeProblem(report: Record<string, unknown>): string | null {
  const run = report.run;
  if (!isObject(run)) return wrongKind("run", "an object", run);
  const problem = first(
    () => checkString(run, "id", "run."),
    () => checkString(run, "agent", "run."),
    () => checkString(run, "harness_version", "run."),
    () => checkString(run, "model", "run.", true),
    () => checkString(run, "judge_model", "run.", true),
    () => checkOptionalStrings(run, "models", "run."),
    () => checkOptionalStrings(run, "agents", "run."),
    () => checkOptionalEntries(run, "entries", "run."),
    () => checkOptionalString(run, "evaluation_hash", "run."),
    () => (Array.isArray(report.scenarios) ? null : wrongKind("scenarios", "an array", report.scenarios)),
    () => checkObject(report, "summary", ""),
  );
  if (problem) return problem;
  for (const [index, scenario] of (report.scenarios as unknown[]).entries()) {
    const found = checkScenario(scenario, `scenarios[${index}]`);
    if (found) return found;
  }
  return null;
}
