/**
 * Target invocations for layer 1 (docs/metrics.md), from the best source a trial offers:
 * 1. `shim`: the PATH shim's `target_invocation` records, exact argv and exit code. Used whenever
 *    the scenario names `target.binary`. The shim only sees calls that find the binary through
 *    PATH, so the agent's tool calls are cross-checked: an invocation typed with a path
 *    (`/abs/path/my-tool`, `./bin/my-tool`) bypassed it and is added from the tool events, unless
 *    the shim recorded, while that tool call ran, a call with the same arguments (the path was the
 *    shim's own, e.g. found with `which`). Bare-name calls are never added: they went through the
 *    shim, which saw them or saw that they did not run. So nothing is counted twice.
 * 2. `tool_events`: the target's invocations in each agent `tool_call` (see below), exit code from
 *    its `tool_result`.
 * 3. `transcript_regex`: every match of `command_pattern` in an external agent's free text
 *    (`agent_output`). Exit codes are unknown there (null); see metrics.ts for how null counts.
 * 4. `none`: nothing identifies the target.
 *
 * In a tool call (sources 1 and 2) the target is found with `command_pattern`, else the binary's
 * base name as a word, matched at the start of a command word or right after a `/` in it, and only
 * at a command position (shell-commands.ts): `echo "run my-tool --help"`, comments and heredoc
 * bodies are not invocations. Each simple command that invokes it is one invocation. Only the last
 * command of a call can be given the call's exit code (bash reports the last one's status); an
 * earlier one (`my-tool a; my-tool b`, `my-tool list | head`) has an unknown exit code (null),
 * neither success nor failure. A pattern's group 1 is stripped of quotes and Markdown (`` ` ``,
 * `*`, trailing punctuation) before it names the subcommand; without one, the subcommand is the
 * first argument that is neither an option nor the value of one of `target.global_options`.
 */

import { ConfigError, describeError } from "../errors.js";
import type { InvocationSource } from "../results/types.js";
import type { Target } from "../scenario/types.js";
import type { EventOf, TrialEvent } from "../transcript/events.js";
import { assignInOrder, type Cost, completeAssignment, type OrderedSlot } from "./ordered-assignment.js";
import { commandWordPattern, compilePattern, type PatternMatch, type ScenarioPattern } from "./regex.js";
import { findSimpleCommands, type ShellWord, type SimpleCommand } from "./shell-commands.js";

export interface Invocation {
  /** The full command line: the shim's argv joined with shell quoting, else the text as typed. */
  command: string;
  argv: string[] | null;
  subcommand: string | null;
  /** Its option names, before and after the subcommand, in the order typed (findArgvOptions). */
  options: string[];
  exit_code: number | null;
  duration_ms: number | null;
  /** The agent's tool call it ran in, when known: its output holds the call's stderr. */
  call_id?: string;
  /**
   * The target ran without the shim recording it (shim source only): counted from the tool call,
   * whose exit code is only its last command's, so its failures cannot all be known.
   */
  around_shim?: boolean;
}

/** 128 + 13: how bash (and the shim, from bash's `wait`) reports a process killed by SIGPIPE. */
const SIGPIPE_EXIT_CODE = 141;

/**
 * A target killed by SIGPIPE stopped because its reader closed the pipe (`my-tool help | head -3`):
 * it did what was asked, so exit 141 is not a failure. The code itself stays as recorded. (A program
 * that exits 141 on its own is indistinguishable and counted the same way.)
 */
export function isSigpipeExit(exitCode: number | null): boolean {
  return exitCode === SIGPIPE_EXIT_CODE;
}

/** A known non-zero exit code, other than SIGPIPE's; an unknown code (null) is not a failure. */
export function isFailedExit(exitCode: number | null): boolean {
  return exitCode !== null && exitCode !== 0 && !isSigpipeExit(exitCode);
}

export interface ExtractedInvocations {
  source: InvocationSource;
  invocations: Invocation[];
  /** Where the shim's records and the tool calls disagree (source `shim` only). */
  disagreements?: string[];
  /** Recorded calls that `command_pattern` does not match (source `shim` only): counted all the same. */
  patternMisses?: string[];
  /**
   * Every call the shim recorded, with the calls around it, in start order (source `shim` only;
   * present when it differs from `invocations`): also the successes no tool call explains, which
   * layer 1 leaves out (a record the agent added must not improve its metrics). The behaviour gates
   * judge this list: the target run from a script is what they look for, and an added record can
   * only fail them.
   */
  recordedCalls?: Invocation[];
}

export function extractInvocations(events: readonly TrialEvent[], target: Target): ExtractedInvocations {
  if (target.binary) {
    const { invocations, disagreements, patternMisses, recordedCalls } = extractShimAndUnseenInvocations(
      events,
      target,
    );
    return {
      source: "shim",
      invocations,
      ...(disagreements.length > 0 ? { disagreements } : {}),
      ...(patternMisses.length > 0 ? { patternMisses } : {}),
      ...(recordedCalls.length !== invocations.length ? { recordedCalls } : {}),
    };
  }
  if (!target.commandPattern) return { source: "none", invocations: [] };
  // Structured tool events are exact even when there are none, unless the agent only left free text.
  let hasToolCalls = false;
  let hasAgentOutput = false;
  for (const event of events) {
    if (event.type === "tool_call") hasToolCalls = true;
    else if (event.type === "agent_output") hasAgentOutput = true;
  }
  if (hasToolCalls || !hasAgentOutput) {
    return { source: "tool_events", invocations: extractToolEventInvocations(events, target) };
  }
  return { source: "transcript_regex", invocations: extractTranscriptInvocations(events, target) };
}

function fromShimRecord(
  event: EventOf<"target_invocation">,
  pattern: ScenarioPattern | null,
  target: Target,
): Invocation {
  const command = event.argv.map(quoteShellWord).join(" ");
  return {
    command,
    argv: [...event.argv],
    ...readCall(event.argv, command, pattern, target),
    exit_code: event.exit_code,
    duration_ms: event.duration_ms,
  };
}

/**
 * A recorded call's subcommand (`command_pattern`'s group 1 wins, else findArgvSubcommand) and
 * options (findArgvOptions), as layer 1 reads them: the `target_invocation` event carries them.
 */
export function readTargetCall(
  argv: readonly string[],
  target: Target,
): { subcommand: string | null; options: string[] } {
  return readCall(argv, argv.map(quoteShellWord).join(" "), compileTargetPattern(target), target);
}

function readCall(
  argv: readonly string[],
  command: string,
  pattern: ScenarioPattern | null,
  target: Target,
): { subcommand: string | null; options: string[] } {
  return {
    subcommand: findPatternSubcommand(pattern, command) ?? findArgvSubcommand(argv, target.globalOptions),
    options: findArgvOptions(argv, target.globalOptions),
  };
}

/**
 * How far a shim record may start outside the window of the tool call it belongs to. An external
 * agent's tool events are timed when the harness reads them from its stream, which can come after
 * the command started (Claude Code runs a Bash call before its message is on stdout: tens of
 * milliseconds, more on a loaded machine); the harness's own calls are timed around the command.
 * Records are given to calls jointly (see assignRecords), so a skewed call does not take a
 * neighbour's record; a record further than this from every call is no call's.
 */
export const RECORD_SKEW_MS = 2000;

/**
 * The shim's records, plus the path invocations in tool calls that the shim did not record (see
 * the module comment), in the order they ran: by start time, an added one right after the
 * shim-recorded call that preceded it in its tool call.
 *
 * The records are checked against the tool calls the harness saw (the agent can add records to the
 * shim's channel, see sandbox/shim-channel.ts), and every disagreement is said:
 * - a call whose last command is the target, that the shim did not record: the call's own exit
 *   code (the harness's) stands in for the missing record;
 * - a record whose exit code is not the one the agent's shell reported for that call: the worse of
 *   the two counts (the shim's record is the measurement, the shell's status a claim the agent's
 *   shell code makes; a failure on either side stays a failure);
 * - a record no tool call explains (it started outside every call, or during a call that typed no
 *   invocation of the target: the target run from a script, or a forged record): it counts only
 *   when it reports a failure, so added records never improve the metrics.
 * Records are matched to the calls' typed invocations by their arguments, within RECORD_SKEW_MS
 * of each call's window (an honest agent's timing skew), all calls together (assignRecords).
 * Agents without tool calls (free text only) have nothing to check against.
 */
function extractShimAndUnseenInvocations(
  events: readonly TrialEvent[],
  target: Target,
): {
  invocations: Invocation[];
  disagreements: string[];
  patternMisses: string[];
  recordedCalls: Invocation[];
} {
  const pattern = compileTargetPattern(target);
  const matcher = compileBinaryMatcher(target);
  const records: ShimRecord[] = [];
  for (const event of events) {
    if (event.type === "target_invocation") {
      records.push({ event, claimed: false, exitCode: event.exit_code });
    }
  }
  // By start time (stable), for the windows of the tool calls.
  records.sort((a, b) => a.event.started_at_ms - b.event.started_at_ms);
  const disagreements: string[] = [];
  const pairs = pairToolCalls(events);
  const calls = planCalls(pairs, matcher, target.globalOptions);
  assignRecords(calls, records);
  const added: { invocation: Invocation; atMs: number }[] = [];
  for (const call of calls) added.push(...settleCall(call, disagreements));
  const checked = pairs.length > 0;
  const looseWindows = mergeWindows(calls.filter((call) => !call.strict));
  const explained = (record: ShimRecord) =>
    record.claimed || isInWindows(record.event.started_at_ms, looseWindows);
  const unexplained = checked ? records.filter((record) => !explained(record)) : [];
  if (unexplained.length > 0) {
    const successes = unexplained.filter((record) => !isFailedExit(record.exitCode)).length;
    disagreements.push(
      `${unexplained.length} shim record(s) match no tool call that invokes the target (run from a script, or forged)${successes > 0 ? `; ${successes} reporting success not counted` : ""}`,
    );
  }
  const isCounted = (record: ShimRecord) => !checked || explained(record) || isFailedExit(record.exitCode);
  const timedRecords = records.map((record) => ({
    counted: isCounted(record),
    invocation: {
      ...fromShimRecord(record.event, pattern, target),
      exit_code: record.exitCode,
      ...(record.callId !== undefined ? { call_id: record.callId } : {}),
    },
    atMs: record.event.started_at_ms,
  }));
  const shimInvocations = timedRecords.filter((entry) => entry.counted);
  // Stable: shim records keep their order.
  const inStartOrder = (entries: readonly { invocation: Invocation; atMs: number }[]) =>
    [...entries].sort((a, b) => a.atMs - b.atMs).map((entry) => entry.invocation);
  return {
    invocations: inStartOrder([...shimInvocations, ...added]),
    recordedCalls: inStartOrder([...timedRecords, ...added]),
    disagreements,
    // Counted all the same (found by the binary's name), their subcommand from the arguments.
    patternMisses: pattern
      ? shimInvocations
          .filter(({ invocation }) => !pattern.find(invocation.command))
          .map(({ invocation }) => invocation.command)
      : [],
  };
}

interface ShimRecord {
  event: EventOf<"target_invocation">;
  /** Taken by one typed invocation (by its arguments). */
  claimed: boolean;
  /** The record's exit code, or the harness's when they disagree. */
  exitCode: number;
  /** The tool call whose typed invocation claimed it. */
  callId?: string;
}

/** A tool call that typed invocations of the target, and the records they claimed. */
interface PlannedCall {
  call: EventOf<"tool_call">;
  result: EventOf<"tool_result"> | null;
  number: number;
  found: ScriptInvocation[];
  /** Nothing but the target's commands, without a loop or a function: each ran at most once. */
  strict: boolean;
  onlyTarget: boolean;
  fromMs: number;
  toMs: number;
  /** The record each typed invocation claimed (same index as `found`), or null. */
  records: (ShimRecord | null)[];
}

function planCalls(
  pairs: { call: EventOf<"tool_call">; result: EventOf<"tool_result"> | null }[],
  matcher: readonly ScenarioPattern[],
  valueOptions: readonly string[] | undefined,
): PlannedCall[] {
  const planned: PlannedCall[] = [];
  pairs.forEach(({ call, result }, index) => {
    const commands = findSimpleCommands(call.command);
    const found = findScriptInvocations(call.command, matcher, valueOptions, commands);
    if (found.length === 0) return;
    const onlyTarget = found.length === commands.length;
    planned.push({
      call,
      result,
      number: index + 1,
      found,
      onlyTarget,
      strict: onlyTarget && !LOOP_OR_FUNCTION.test(call.command),
      fromMs: Date.parse(call.ts),
      // A background run's commands go on after its result: its window stays open.
      toMs: result && !result.background ? Date.parse(result.ts) : Number.POSITIVE_INFINITY,
      records: found.map(() => null),
    });
  });
  return planned;
}

/** A typed invocation waiting for its record: one slot of the assignment. */
interface InvocationSlot {
  call: PlannedCall;
  /** Its index in the call's `found`. */
  index: number;
  /** The exit code the harness saw for it (the call's last command, observed), else null. */
  expectedExit: number | null;
}

/**
 * Gives the shim's records to the typed invocations of all calls at once: the assignment of least
 * cost that keeps time order (assignInOrder), where cost is, in this order of importance,
 * 1. invocations left without a record: bare names before path calls (a bare name surely went
 *    through the shim; a shim covering the path records a path call too, in local mode none does);
 * 2. last commands given a record whose exit code is not the one the harness saw (a forged twin
 *    rarely has it);
 * 3. how far records started outside their calls' windows (an agent's timing skew), in ms.
 * Then whatever keeping order left without a record is matched across it where possible
 * (completeAssignment: parallel calls whose windows nest), no invocation losing its record.
 * A record may go to an invocation with the same arguments whose call's window it started within
 * RECORD_SKEW_MS of. Invocations typed with the same literal arguments are assigned together, each
 * such group on its own: calls the agent ran in parallel may have run in either order, which only
 * matters between calls that agree on the arguments. Then the invocations with an expansion
 * (`my-tool show "$f"`, which may have any of several argument lists) take from the records left.
 */
function assignRecords(calls: readonly PlannedCall[], records: readonly ShimRecord[]): void {
  const literal = new Map<string, InvocationSlot[]>();
  const expanding: InvocationSlot[] = [];
  for (const call of calls) {
    const observed = isObserved(call.result);
    call.found.forEach((invocation, index) => {
      const slot = {
        call,
        index,
        expectedExit: invocation.last && observed ? (call.result as EventOf<"tool_result">).exit_code : null,
      };
      if (invocation.argv.slice(1).some(expandsInShell)) expanding.push(slot);
      else groupOf(literal, argumentsKey(invocation.argv)).push(slot);
    });
  }
  const recordsByArguments = new Map<string, ShimRecord[]>();
  for (const record of records) groupOf(recordsByArguments, argumentsKey(record.event.argv)).push(record);
  for (const [key, slots] of literal) assignGroup(slots, recordsByArguments.get(key) ?? []);
  assignGroup(
    expanding,
    records.filter((record) => !record.claimed),
  );
}

/** One assignment (see assignRecords) of `slots` to `records` (by start time), marking what is taken. */
function assignGroup(slots: InvocationSlot[], records: readonly ShimRecord[]): void {
  if (slots.length === 0 || records.length === 0) return;
  // In the order the calls were made, each call's invocations in the order typed.
  slots.sort((a, b) => a.call.fromMs - b.call.fromMs || a.call.number - b.call.number || a.index - b.index);
  const isViaPath = (slot: InvocationSlot | undefined) =>
    slot !== undefined && (slot.call.found[slot.index] as ScriptInvocation).viaPath;
  const pathSlots = slots.filter(isViaPath).length;
  const bareUnmatched: Cost = [pathSlots + 1, 0, 0];
  const pathUnmatched: Cost = [1, 0, 0];
  const ordered: OrderedSlot[] = slots.map(({ call, index, expectedExit }) => {
    const invocation = call.found[index] as ScriptInvocation;
    const candidates: { item: number; cost: Cost }[] = [];
    const toMs = call.toMs + RECORD_SKEW_MS;
    for (
      let item = firstStartingAt(records, call.fromMs - RECORD_SKEW_MS);
      item < records.length;
      item += 1
    ) {
      const record = records[item] as ShimRecord;
      const atMs = record.event.started_at_ms;
      if (atMs > toMs) break;
      if (!argumentsAgree(record.event.argv, invocation.argv)) continue;
      const distance = atMs < call.fromMs ? call.fromMs - atMs : atMs > call.toMs ? atMs - call.toMs : 0;
      const mismatch = expectedExit !== null && record.exitCode !== expectedExit ? 1 : 0;
      candidates.push({ item, cost: [0, mismatch, distance] });
    }
    return { unmatched: invocation.viaPath ? pathUnmatched : bareUnmatched, candidates };
  });
  const assigned = assignInOrder(ordered, records.length);
  // Then across the order, for what it could not match: bare names first.
  const byPriority = slots.map((_, position) => position);
  byPriority.sort((a, b) => Number(isViaPath(slots[a])) - Number(isViaPath(slots[b])));
  completeAssignment(ordered, assigned, records.length, byPriority);
  assigned.forEach((item, position) => {
    if (item < 0) return;
    const { call, index } = slots[position] as InvocationSlot;
    const record = records[item] as ShimRecord;
    record.claimed = true;
    record.callId = call.call.call_id;
    call.records[index] = record;
  });
}

function groupOf<T>(groups: Map<string, T[]>, key: string): T[] {
  let group = groups.get(key);
  if (!group) {
    group = [];
    groups.set(key, group);
  }
  return group;
}

/** The arguments after the binary, as one key (the binary itself may be typed with a path). */
function argumentsKey(argv: readonly string[]): string {
  return JSON.stringify(argv.slice(1));
}

/** The loose calls' windows widened by RECORD_SKEW_MS, merged where they overlap, by start. */
function mergeWindows(calls: readonly PlannedCall[]): { fromMs: number; toMs: number }[] {
  const windows = calls
    .map((call) => ({ fromMs: call.fromMs - RECORD_SKEW_MS, toMs: call.toMs + RECORD_SKEW_MS }))
    .sort((a, b) => a.fromMs - b.fromMs);
  const merged: { fromMs: number; toMs: number }[] = [];
  for (const widened of windows) {
    const previous = merged[merged.length - 1];
    if (previous && widened.fromMs <= previous.toMs) previous.toMs = Math.max(previous.toMs, widened.toMs);
    else merged.push({ ...widened });
  }
  return merged;
}

/** Whether `atMs` falls in one of `windows` (merged, by start): a binary search. */
function isInWindows(atMs: number, windows: readonly { fromMs: number; toMs: number }[]): boolean {
  let low = 0;
  let high = windows.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((windows[middle] as { fromMs: number }).fromMs <= atMs) low = middle + 1;
    else high = middle;
  }
  const containing = windows[low - 1];
  return containing !== undefined && atMs <= containing.toMs;
}

/**
 * Once records are claimed: checks the last command's exit code against the call's, and returns the
 * invocations the shim did not record (typed with a path, or surely run but missing), saying so.
 */
function settleCall(call: PlannedCall, disagreements: string[]): { invocation: Invocation; atMs: number }[] {
  const { result, number: callNumber } = call;
  const observed = isObserved(result);
  const added: { invocation: Invocation; atMs: number }[] = [];
  let previousMs = call.fromMs;
  call.found.forEach((invocation, index) => {
    const record = call.records[index];
    if (record) {
      previousMs = record.event.started_at_ms;
      if (invocation.last && observed && record.exitCode !== result.exit_code) {
        // The shim's record is the measurement; the shell's status is the agent's claim. The worse
        // counts: a failure on either side stays a failure, and the shim's code when both agree on that.
        const shellFailed = isFailedExit(result.exit_code) && !isFailedExit(record.exitCode);
        disagreements.push(
          `tool call ${callNumber}: the shim recorded exit code ${record.exitCode}, the agent's shell reported ${result.exit_code}; ${shellFailed ? "its failure" : "the shim's"} counts`,
        );
        if (shellFailed) record.exitCode = result.exit_code;
      }
      return;
    }
    if (!invocation.viaPath) {
      // A bare name always runs the shim; it surely ran only when the call is nothing but the
      // target's commands (`test -f x && my-tool x` may skip it) and it is the last.
      if (!(invocation.last && observed && call.onlyTarget)) return;
      disagreements.push(
        `tool call ${callNumber}: the shim recorded no call of ${quoteHeadOf(invocation.command)} (run around the shim, or its record lost); counted from the tool call`,
      );
    } else {
      disagreements.push(
        `tool call ${callNumber}: ${quoteHeadOf(invocation.command)} ran around the shim (by its path); counted from the tool call`,
      );
    }
    added.push({
      invocation: { ...withCallResult(invocation, result, call.call.call_id), around_shim: true },
      atMs: previousMs + (added.length + 1) * 1e-6,
    });
  });
  return added;
}

/**
 * Whether the call's exit code is its last command's: it ended in time, in the foreground (a
 * background run's result is its launch's).
 */
function isObserved(result: EventOf<"tool_result"> | null): result is EventOf<"tool_result"> {
  return result !== null && !result.timed_out && result.background !== true;
}

/** Shell words that can run a command more than once. */
const LOOP_OR_FUNCTION = /\b(?:for|while|until|select|function)\b|\(\s*\)|[{}]/;

/** The index of the first record (sorted by start) that started at or after `atMs`: a binary search. */
function firstStartingAt(records: readonly ShimRecord[], atMs: number): number {
  let low = 0;
  let high = records.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((records[middle] as ShimRecord).event.started_at_ms < atMs) low = middle + 1;
    else high = middle;
  }
  return low;
}

function quoteHeadOf(command: string): string {
  return `\`${command.length > 80 ? `${command.slice(0, 80)}…` : command}\``;
}

/** Each agent tool call's invocations of the target (see the module comment). */
export function extractToolEventInvocations(events: readonly TrialEvent[], target: Target): Invocation[] {
  const matcher = compileCommandMatcher(target);
  if (!matcher) return [];
  const invocations: Invocation[] = [];
  for (const { call, result } of pairToolCalls(events)) {
    for (const found of findScriptInvocations(call.command, matcher, target.globalOptions)) {
      invocations.push(withCallResult(found, result, call.call_id));
    }
  }
  return invocations;
}

interface ScriptInvocation {
  command: string;
  argv: string[];
  subcommand: string | null;
  options: string[];
  /** The script's last command: its exit status is the call's. */
  last: boolean;
  /** Typed with a path (`/abs/my-tool`, `./my-tool`), so not looked up on PATH. */
  viaPath: boolean;
}

function withCallResult(
  found: ScriptInvocation,
  result: EventOf<"tool_result"> | null,
  callId: string,
): Invocation {
  // A background run's result is its launch's, not its last command's.
  const known = found.last && result !== null && result.background !== true;
  return {
    command: found.command,
    argv: found.argv,
    subcommand: found.subcommand,
    options: found.options,
    exit_code: known ? result.exit_code : null,
    duration_ms: known ? result.duration_ms : null,
    call_id: callId,
  };
}

/**
 * The shell calls with their results, less the calls the agent CLI refused before a shell ran them
 * (`not_run`) and its other tools' calls (`tool`, e.g. a file edit): their commands typed no
 * invocation, so no shim record may be given to them.
 */
function pairToolCalls(
  events: readonly TrialEvent[],
): { call: EventOf<"tool_call">; result: EventOf<"tool_result"> | null }[] {
  const results = new Map<string, EventOf<"tool_result">>();
  for (const event of events) if (event.type === "tool_result") results.set(event.call_id, event);
  const pairs: { call: EventOf<"tool_call">; result: EventOf<"tool_result"> | null }[] = [];
  for (const event of events) {
    if (event.type !== "tool_call") continue;
    const result = results.get(event.call_id) ?? null;
    if (event.tool === undefined && result?.not_run !== true) pairs.push({ call: event, result });
  }
  return pairs;
}

/** Commands that run their arguments as a command: a target among those arguments runs too. */
const COMMAND_WRAPPERS = new Set([
  "sudo",
  "env",
  "command",
  "exec",
  "nohup",
  "nice",
  "timeout",
  "xargs",
  "stdbuf",
]);
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*\+?=/;

/** One invocation per simple command whose command word (or a wrapped one) is the target. */
function findScriptInvocations(
  script: string,
  matcher: ScenarioPattern | readonly ScenarioPattern[],
  valueOptions: readonly string[] = [],
  commands: readonly SimpleCommand[] = findSimpleCommands(script),
): ScriptInvocation[] {
  const found: ScriptInvocation[] = [];
  commands.forEach((command, index) => {
    const { words } = command;
    let first = 0;
    while (first < words.length - 1 && ASSIGNMENT.test((words[first] as ShellWord).text)) first += 1;
    // Only assignments (`log=$(… /path/my-tool)`): nothing runs as a command here.
    if (ASSIGNMENT.test((words[first] as ShellWord).text)) return;
    const wrapped = COMMAND_WRAPPERS.has(basename((words[first] as ShellWord).text));
    const last = wrapped ? words.length - 1 : first;
    for (let wordIndex = first; wordIndex <= last; wordIndex += 1) {
      const word = words[wordIndex] as ShellWord;
      const match = matchCommandWord(script, word, matcher);
      if (!match) continue;
      const argv = words.slice(wordIndex).map((entry) => entry.text);
      found.push({
        command: script.slice(word.start, (words[words.length - 1] as ShellWord).end),
        argv,
        subcommand: cleanCapture(match.groups[1]) ?? findArgvSubcommand(argv, valueOptions),
        options: findArgvOptions(argv, valueOptions),
        last: index === commands.length - 1,
        viaPath: script.slice(word.start, match.at).includes("/"),
      });
      return;
    }
  });
  return found;
}

/** The matcher (sticky) at the word's start, past an opening quote, or right after a `/` in it. */
function matchCommandWord(
  script: string,
  word: ShellWord,
  matcher: ScenarioPattern | readonly ScenarioPattern[],
): { at: number; groups: PatternMatch["groups"] } | null {
  const starts = [word.start];
  if (/['"\\]/.test(script[word.start] ?? "")) starts.push(word.start + 1);
  for (let pos = word.start; pos < word.end; pos += 1) if (script[pos] === "/") starts.push(pos + 1);
  const matchers = Array.isArray(matcher) ? matcher : [matcher as ScenarioPattern];
  for (const at of starts) {
    for (const each of matchers) {
      const match = each.matchAt(script, at);
      if (match) return { at, groups: match.groups };
    }
  }
  return null;
}

/** Whether a shim record's argv is the call typed as `parsed` (an argument with an expansion matches any). */
function argumentsAgree(recorded: readonly string[], parsed: readonly string[]): boolean {
  const expected = parsed.slice(1);
  const actual = recorded.slice(1);
  if (!expected.some(expandsInShell)) {
    return actual.length === expected.length && actual.every((arg, index) => arg === expected[index]);
  }
  // Expansions may change the count: the first argument (the subcommand) decides when literal.
  const first = expected[0];
  return first === undefined || expandsInShell(first) || actual[0] === first;
}

/** A typed word the shell may turn into other words (variables, substitutions, globs, braces, `~`). */
function expandsInShell(word: string): boolean {
  return /[$`*?[~{]/.test(word);
}

/** Every match of `command_pattern` in `agent_output` text; exit codes and durations unknown. */
function extractTranscriptInvocations(events: readonly TrialEvent[], target: Target): Invocation[] {
  const pattern = compileTargetPattern(target);
  if (!pattern) return [];
  const invocations: Invocation[] = [];
  for (const event of events) {
    if (event.type !== "agent_output") continue;
    const text = event.text;
    for (const match of pattern.findAll(text)) {
      if (match.text === "") continue;
      const lineEnd = text.indexOf("\n", match.index);
      // Markdown often wraps commands in backticks; the closing one is not part of the command.
      const command = text
        .slice(match.index, lineEnd === -1 ? text.length : lineEnd)
        .trim()
        .replace(/`+$/, "");
      const argv = splitShellSegment(text, match.index);
      invocations.push({
        command,
        argv,
        subcommand: cleanCapture(match.groups[1]) ?? findArgvSubcommand(argv, target.globalOptions),
        options: findArgvOptions(argv, target.globalOptions),
        exit_code: null,
        duration_ms: null,
      });
    }
  }
  return invocations;
}

/**
 * The first non-option argument after the binary (`--` ends the options). `valueOptions`
 * (`target.global_options`) take the next argument as their value: `-f main.journal balance` is
 * `balance`. A short one ends a cluster as getopt reads it (`-vf main.journal`: `-v`, then `-f`
 * with the next argument; `-fmain.journal` carries its value), other letters taken as flags;
 * `--file=main.journal` carries its value.
 */
export function findArgvSubcommand(
  argv: readonly string[],
  valueOptions: readonly string[] = [],
): string | null {
  for (let index = 1; index < argv.length; index += 1) {
    const arg = argv[index] as string;
    if (arg === "--") return argv[index + 1] ?? null;
    if (arg !== "" && (!arg.startsWith("-") || arg === "-")) return arg;
    if (takesNextArgument(arg, valueOptions)) index += 1;
  }
  return null;
}

/** Where `command_pattern`'s group 1 took an option for the subcommand, and the call it did it in. */
export interface OptionCapture {
  capture: string;
  command: string;
  /** A call of the scenario's own solution, or one made up with an option before the subcommand. */
  from: "solution" | "probe";
}

/**
 * Whether `command_pattern`'s group 1 takes an option for the subcommand: in one of the scenario's
 * own solution calls, else in a made-up call with an option before the subcommand
 * (`mlr --icsv cat`; agents put options there). Such a pattern names `--icsv` the subcommand of
 * every such call and hides what changed. Null without a pattern, a group or such a capture.
 */
export function findOptionCapture(target: Target, solution: readonly string[] = []): OptionCapture | null {
  const pattern = compileTargetPattern(target);
  if (!pattern) return null;
  for (const command of solution) {
    for (const match of pattern.findAll(command)) {
      const capture = cleanCapture(match.groups[1]);
      if (capture?.startsWith("-")) return { capture, command: match.text, from: "solution" };
    }
  }
  const name = target.binary ? basename(target.binary) : null;
  for (const probe of name ? [`${name} --option subcommand`, `${name} -o subcommand`] : []) {
    const capture = cleanCapture(pattern.find(probe)?.groups[1]);
    if (capture?.startsWith("-")) return { capture, command: probe, from: "probe" };
  }
  return null;
}

/** A sentence for `validate`: what the pattern did and how to fix it. */
export function describeOptionCapture(found: OptionCapture): string {
  const where = found.from === "solution" ? "in the solution's call" : "in a call such as";
  return `group 1 captures the option ${JSON.stringify(found.capture)} as the subcommand ${where} ${JSON.stringify(found.command)}; agents often put options before the subcommand, so their calls would be counted under an option's name. Make group 1 skip options (e.g. "my-tool\\s+(?:-\\S+\\s+)*([a-z][\\w-]*)"), or drop the group: the subcommand is then the first argument that is not an option`;
}

/** A negative number (`-5`, `-0.5`) is an argument, not an option. */
const NEGATIVE_NUMBER = /^-\d+(?:\.\d+)?$/;
/** A short option with a number attached as its value (`-n5`, `-j4`). */
const SHORT_WITH_NUMBER = /^(-[A-Za-z])\d+$/;

/**
 * The option names of a call, before and after the subcommand, in the order typed (repeats kept):
 * - `--name=value` is `--name`; a value given as the next argument is not an option and is not
 *   kept (only `target.global_options` say which options take one, as in findArgvSubcommand);
 * - a single-dash word is one option as typed (`-la`, `-name`): a bundle of flags and a
 *   single-dash long option cannot be told apart without the tool's grammar. Except a letter with
 *   a number attached (`-n5` is `-n`), and a cluster holding a declared short value option, read as
 *   getopt does (`-vfmain.journal` is `-v`, `-f`);
 * - `-` (stdin) and negative numbers (`-5`) are arguments; `--` ends the options and is not one.
 */
export function findArgvOptions(argv: readonly string[], valueOptions: readonly string[] = []): string[] {
  const options: string[] = [];
  for (let index = 1; index < argv.length; index += 1) {
    const arg = argv[index] as string;
    if (arg === "--") break;
    if (arg.length < 2 || !arg.startsWith("-") || NEGATIVE_NUMBER.test(arg)) continue;
    options.push(...optionNames(arg, valueOptions));
    if (takesNextArgument(arg, valueOptions)) index += 1;
  }
  return options;
}

/** The option names one option word stands for (see findArgvOptions). */
function optionNames(arg: string, valueOptions: readonly string[]): string[] {
  const equals = arg.indexOf("=");
  const name = equals === -1 ? arg : arg.slice(0, equals);
  if (arg.startsWith("--") || valueOptions.includes(name)) return [name];
  for (let at = 1; at < arg.length; at += 1) {
    if (valueOptions.includes(`-${arg[at]}`)) return [...arg.slice(1, at + 1)].map((letter) => `-${letter}`);
  }
  return [SHORT_WITH_NUMBER.exec(arg)?.[1] ?? name];
}

/** An option seemingly given a value that was taken for the subcommand, and a call where it was. */
export interface PossibleGlobalOption {
  option: string;
  command: string;
}

/** A file name with an extension, a path or a number: more likely an option's value than a subcommand. */
const VALUE_LIKE = /^(?:\d+|[^.\s-][^\s]*\.[A-Za-z0-9]{1,10}|[^\s]*\/[^\s]*)$/;

/**
 * Without `target.global_options`, the options whose value seems to have been taken for the
 * subcommand: the subcommand came from the arguments, right after an option (no `=`), and looks
 * like a value (`hledger -f main.journal balance`: `-f`, whose `main.journal` is no subcommand).
 * Each option once, with its first call. A hint for the scenario's author: the counts stay as they are.
 */
export function findPossibleGlobalOptions(
  invocations: readonly Invocation[],
  target: Target,
): PossibleGlobalOption[] {
  if (target.globalOptions) return [];
  const found = new Map<string, string>();
  for (const { argv, subcommand, command } of invocations) {
    if (!argv || subcommand === null) continue;
    const at = argv.indexOf(subcommand, 1);
    const before = argv[at - 1];
    if (at < 2 || before === undefined || before === "--" || !before.startsWith("-") || before.includes("="))
      continue;
    if (findArgvSubcommand(argv) !== subcommand || !VALUE_LIKE.test(subcommand)) continue;
    if (!found.has(before)) found.set(before, command);
  }
  return [...found].map(([option, command]) => ({ option, command }));
}

/** Whether option argument `arg` leaves its value to the next argument. */
function takesNextArgument(arg: string, valueOptions: readonly string[]): boolean {
  if (valueOptions.includes(arg)) return true;
  if (arg.startsWith("--") || arg.includes("=")) return false;
  // A cluster of short options: the first that takes a value takes the rest, or the next argument.
  for (let at = 1; at < arg.length; at += 1) {
    if (valueOptions.includes(`-${arg[at]}`)) return at === arg.length - 1;
  }
  return false;
}

/** Quotes a word for a POSIX shell only when it needs it. */
export function quoteShellWord(word: string): string {
  if (word === "") return "''";
  if (/^[A-Za-z0-9_\-./=:,@%+^]+$/.test(word)) return word;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

function compileTargetPattern(target: Target): ScenarioPattern | null {
  if (!target.commandPattern) return null;
  try {
    return compilePattern(target.commandPattern);
  } catch (error) {
    // The loader rejects invalid patterns; this only guards hand-built scenarios.
    throw new ConfigError(describeError(error), "target.command_pattern");
  }
}

function findPatternSubcommand(pattern: ScenarioPattern | null, text: string): string | null {
  if (!pattern) return null;
  return cleanCapture(pattern.find(text)?.groups[1]);
}

/** A capture without the quotes, Markdown and punctuation that prose wraps a command in. */
function cleanCapture(capture: string | undefined): string | null {
  if (capture === undefined) return null;
  const cleaned = capture.replace(/^[`'"*([]+/, "").replace(/[`'"*.,;:!?)\]]+$/, "");
  return cleaned === "" ? null : cleaned;
}

/**
 * The sticky matchers for a named binary in a tool call, with the shim: `command_pattern` (for its
 * subcommand) and the binary's base name as a whole word, so a call the pattern misses
 * (`my-tool --help` beside `my-tool -f x show`) is still the target's.
 */
function compileBinaryMatcher(target: Target): ScenarioPattern[] {
  const pattern = compileTargetPattern(target);
  const word = target.binary ? commandWordPattern(basename(target.binary)) : null;
  return [pattern, word].filter((entry): entry is ScenarioPattern => entry !== null);
}

/**
 * The sticky matcher for a target in a tool call: `command_pattern`, else the binary's base name
 * as a whole word (an absolute path ending in `/NAME` matches where the name starts).
 */
function compileCommandMatcher(target: Target): ScenarioPattern | null {
  const pattern = compileTargetPattern(target);
  if (pattern) return pattern;
  if (!target.binary) return null;
  return commandWordPattern(basename(target.binary));
}

function basename(file: string): string {
  return file.split("/").pop() || file;
}

/**
 * Splits the shell words from `start` up to the next unquoted control operator. Quotes and
 * backslashes are honoured; redirections (`>file`, `2>&1`, `<in`) are dropped. Best effort: it is
 * only used where the exact argv is not known.
 */
export function splitShellSegment(text: string, start = 0): string[] {
  const words: string[] = [];
  let word = "";
  let inWord = false;
  let skipNextWord = false;
  const endWord = () => {
    if (inWord) {
      if (skipNextWord) skipNextWord = false;
      else words.push(word);
    }
    word = "";
    inWord = false;
  };
  for (let pos = start; pos < text.length; pos += 1) {
    const char = text[pos] as string;
    if (char === "'") {
      const close = text.indexOf("'", pos + 1);
      const end = close === -1 ? text.length : close;
      word += text.slice(pos + 1, end);
      inWord = true;
      pos = end;
    } else if (char === '"') {
      inWord = true;
      for (pos += 1; pos < text.length && text[pos] !== '"'; pos += 1) {
        if (text[pos] === "\\" && pos + 1 < text.length && /["\\$`]/.test(text[pos + 1] as string)) pos += 1;
        word += text[pos];
      }
    } else if (char === "\\") {
      if (text[pos + 1] === "\n") {
        pos += 1; // line continuation
        continue;
      }
      if (pos + 1 < text.length) word += text[pos + 1];
      inWord = true;
      pos += 1;
    } else if (char === ">" || char === "<") {
      if (/^\d+$/.test(word)) {
        word = "";
        inWord = false;
      } else endWord();
      while (text[pos + 1] === ">" || text[pos + 1] === "&" || text[pos + 1] === "<") pos += 1;
      // `2>&1`: the target is a descriptor glued to the operator, not a word to skip.
      if (/\d/.test(text[pos + 1] ?? "") && text[pos] === "&") {
        while (/\d/.test(text[pos + 1] ?? "")) pos += 1;
      } else {
        skipNextWord = true;
      }
    } else if (
      char === ";" ||
      char === "&" ||
      char === "|" ||
      char === "\n" ||
      char === ")" ||
      char === "`"
    ) {
      break;
    } else if (char === " " || char === "\t" || char === "\r") {
      endWord();
    } else {
      word += char;
      inWord = true;
    }
  }
  endWord();
  return words;
}
