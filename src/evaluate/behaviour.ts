/**
 * How the agent called the target in one trial, compactly (`TrialBehaviour` in report.json): the
 * calls using each option, the command shapes, the first failed call. A base-vs-head diff
 * (compare/behaviour-diff.ts) reads it, so the report says what behaviour changed (`--icsv` in
 * 100% → 0% of calls) without the base runs' transcripts.
 */
import type { FailedCall, TrialBehaviour } from "../results/types.js";
import type { TrialEvent } from "../transcript/events.js";
import { type Invocation, isFailedExit } from "./invocations.js";
import { NO_SUBCOMMAND } from "./metrics.js";

/** Names and shapes are cut to this many characters: an agent may type anything. */
const MAX_NAME_CHARS = 80;
/** Option names and shapes kept per trial (the most used). */
const MAX_ENTRIES = 40;
const MAX_COMMAND_CHARS = 200;
const MAX_STDERR_CHARS = 400;

export function computeTrialBehaviour(
  invocations: readonly Invocation[],
  events: readonly TrialEvent[],
): TrialBehaviour {
  const options = new Map<string, number>();
  const shapes = new Map<string, number>();
  for (const invocation of invocations) {
    const distinct = [...new Set(invocation.options.map((option) => cut(option, MAX_NAME_CHARS)))];
    for (const option of distinct) options.set(option, (options.get(option) ?? 0) + 1);
    const shape = commandShape(invocation.subcommand, distinct);
    shapes.set(shape, (shapes.get(shape) ?? 0) + 1);
  }
  const failed = invocations.find((invocation) => isFailedExit(invocation.exit_code));
  return {
    options: keepMostUsed(options),
    shapes: keepMostUsed(shapes),
    first_failure: failed ? describeFailedCall(failed, events) : null,
  };
}

/** "cat --icsv --ojson": the subcommand, then the call's distinct option names sorted. */
export function commandShape(subcommand: string | null, options: readonly string[]): string {
  const words = [cut(subcommand ?? NO_SUBCOMMAND, MAX_NAME_CHARS), ...[...new Set(options)].sort()];
  return cut(words.join(" "), MAX_COMMAND_CHARS);
}

function describeFailedCall(invocation: Invocation, events: readonly TrialEvent[]): FailedCall {
  const result = events.find(
    (event): event is Extract<TrialEvent, { type: "tool_result" }> =>
      event.type === "tool_result" &&
      invocation.call_id !== undefined &&
      event.call_id === invocation.call_id,
  );
  // Codex reports stderr inside stdout (docs/events.md).
  const output = result ? (result.stderr.trim() !== "" ? result.stderr : result.stdout).trim() : "";
  return {
    command: cut(invocation.command, MAX_COMMAND_CHARS),
    exit_code: invocation.exit_code as number,
    stderr: output === "" ? null : cut(output, MAX_STDERR_CHARS),
  };
}

function keepMostUsed(counts: Map<string, number>): Record<string, number> {
  const sorted = [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  return Object.fromEntries(sorted.slice(0, MAX_ENTRIES));
}

/** By code points, so a cut never splits a surrogate pair. */
function cut(text: string, max: number): string {
  const chars = [...text];
  return chars.length > max ? `${chars.slice(0, max - 1).join("")}…` : text;
}
