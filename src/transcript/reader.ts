import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";
import { ConfigError } from "../errors.js";
import { describeExcessNesting, findExcessNesting } from "../json-nesting.js";
import type { TrialEvent } from "./events.js";

type Fields = Record<string, unknown>;
const isString = (value: unknown) => typeof value === "string";
const isNumber = (value: unknown) => typeof value === "number" && Number.isFinite(value);
const orNull = (check: (value: unknown) => boolean) => (value: unknown) => value === null || check(value);
const orAbsent = (check: (value: unknown) => boolean) => (value: unknown) =>
  value === undefined || check(value);
const isCount = (value: unknown) => typeof value === "number" && Number.isSafeInteger(value) && value >= 0;
const isAmount = (value: unknown) => isNumber(value) && (value as number) >= 0;
const END_REASONS = new Set([
  "natural_stop",
  "turn_limit",
  "timeout",
  "agent_crash",
  "infra_error",
  "cancelled",
]);
const isEndReason = (value: unknown) => typeof value === "string" && END_REASONS.has(value);
const isUsage = (value: unknown) =>
  typeof value === "object" &&
  value !== null &&
  ["input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens"].every((field) =>
    isCount((value as Fields)[field]),
  );

/**
 * The fields the readers of events (replay's recordings above all: each `command` is run again)
 * rely on, by event type. An events.jsonl may come from an artifact, so it is data to check.
 */
const EVENT_FIELDS: Readonly<Record<string, Readonly<Record<string, (value: unknown) => boolean>>>> = {
  trial_start: { model: orNull(isString), work_dir: orAbsent(orNull(isString)) },
  prompt: { work_dir: orAbsent(isString) },
  tool_call: { call_id: isString, turn: isNumber, command: isString },
  // A replay carries these figures into its report as the recorded run's (results/read-recordings.ts).
  model_response: { turn: isNumber, usage: isUsage, cost_usd: orAbsent(isAmount) },
  recorded_execution: {
    model: orNull(isString),
    turns: isCount,
    input_tokens: isCount,
    output_tokens: isCount,
    cache_read_tokens: isCount,
    cache_write_tokens: isCount,
    tool_calls: isCount,
    end_reason: isEndReason,
    cost_usd: orNull(isAmount),
  },
  // Rendered into ATIF as the recorded model's turns (render/atif.ts).
  recorded_transcript: {
    system_prompt: orNull(isString),
    turns: (value: unknown) =>
      Array.isArray(value) &&
      value.every(
        (turn) =>
          typeof turn === "object" &&
          turn !== null &&
          isCount((turn as Fields).turn) &&
          isString((turn as Fields).text) &&
          orNull(isString)((turn as Fields).ts) &&
          orNull(isUsage)((turn as Fields).usage),
      ),
  },
  trial_end: { reason: isEndReason, turns: isCount },
  tool_result: {
    call_id: isString,
    stdout: isString,
    stderr: isString,
    exit_code: orNull(isNumber),
  },
};

/** What is wrong with a parsed line as an event, or null. */
function findEventProblem(event: unknown): string | null {
  if (typeof event !== "object" || event === null || Array.isArray(event))
    return "not an event (a JSON object with a `type`)";
  const fields = EVENT_FIELDS[String((event as Fields).type)];
  if (!fields) return null;
  for (const [name, check] of Object.entries(fields)) {
    const value = (event as Fields)[name];
    if (!check(value)) {
      const kind = Array.isArray(value) ? "array" : typeof value;
      const found =
        value === undefined
          ? "missing"
          : value === null
            ? "null"
            : `${/^[aeiou]/.test(kind) ? "an" : "a"} ${kind}`;
      return `a ${(event as Fields).type} event whose "${name}" is ${found}: not an event llm-tool-test wrote`;
    }
  }
  return null;
}

/**
 * Reads an `events.jsonl` file line by line (a torn last line from a killed run is skipped). A line
 * nesting deeper than any event does, or an event whose fields are not what the readers rely on
 * (a `command` that is not a string), is a ConfigError naming the file and line, not a stack
 * overflow or a crash later in whatever walks the events.
 */
export async function readEvents(file: string): Promise<TrialEvent[]> {
  const events: TrialEvent[] = [];
  const lines = createInterface({
    input: createReadStream(file, "utf8"),
    crlfDelay: Number.POSITIVE_INFINITY,
  });
  let lineNumber = 0;
  for await (const line of lines) {
    lineNumber += 1;
    if (!line.trim()) continue;
    if (findExcessNesting(line) !== null) {
      lines.close();
      throw new ConfigError(describeExcessNesting(), `${file}:${lineNumber}`);
    }
    let event: unknown;
    try {
      event = JSON.parse(line);
    } catch {
      // A partial line is what an interrupted write leaves; everything before it is intact.
      continue;
    }
    const problem = findEventProblem(event);
    if (problem !== null) {
      lines.close();
      throw new ConfigError(problem, `${file}:${lineNumber}`);
    }
    events.push(event as TrialEvent);
  }
  return events;
}
