/**
 * Recorded tool calls for the replay agent (`--agent replay --replay-from PATH`): from a previous
 * run's output folder (its report.json and each trial's events.jsonl) or from a bashkit-eval
 * results JSON (its per-task `trace.tool_calls`). Recordings are keyed like reports: by scenario
 * key (`id` or `id@variant`), then by trial number.
 */
import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import { ConfigError, describeError } from "../errors.js";
import type { TrialEvent } from "../transcript/events.js";
import { readReportFile } from "./read-report.js";
import { loadTrialEvents } from "./read-trial-events.js";
import { scenarioKey } from "./scenario-key.js";

export interface RecordedCall {
  /** The recorded model turn that issued the call (1-based). */
  turn: number;
  command: string;
  /** Null when the recording did not keep it (a call cut off by the trial's end). */
  exit_code: number | null;
  stdout: string;
  stderr: string;
}

export interface Recording {
  scenario_key: string;
  trial: number;
  /** The model whose calls these were, when the source says. */
  model: string | null;
  calls: RecordedCall[];
  /** The work dir as the recorded agent saw it, when known: replaced by the new one before outputs are compared. */
  work_dir: string | null;
}

export interface RecordingSet {
  /** The path given, for messages and the report. */
  source: string;
  format: "run" | "bashkit-eval";
  /** Per scenario key, ordered by trial. */
  byScenario: Map<string, Recording[]>;
}

/** The recording trial `trial` of a scenario replays: the same trial number, else the recordings in turn. */
export function pickRecording(set: RecordingSet, key: string, trial: number): Recording | null {
  const recordings = set.byScenario.get(key);
  if (!recordings || recordings.length === 0) return null;
  return recordings.find((r) => r.trial === trial) ?? recordings[(trial - 1) % recordings.length] ?? null;
}

/** Reads PATH: a run's output folder (or its report.json), or a bashkit-eval results file. */
export async function readRecordings(source: string): Promise<RecordingSet> {
  const info = await stat(source).catch(() => null);
  if (!info) {
    throw new ConfigError(
      "--replay-from: not found: give a previous run's output folder or a bashkit-eval results .json",
      source,
    );
  }
  if (info.isDirectory()) return readRunFolder(source, path.join(source, "report.json"));
  let data: unknown;
  try {
    data = JSON.parse(await readFile(source, "utf8"));
  } catch (error) {
    throw new ConfigError(`--replay-from: not valid JSON (${describeError(error)})`, source);
  }
  if (isBashkitResults(data)) return fromBashkitResults(source, data);
  if (typeof data === "object" && data !== null && "schema_version" in data && "run" in data) {
    return readRunFolder(source, source);
  }
  throw new ConfigError(
    "--replay-from: neither an llm-tool-test report.json nor a bashkit-eval results file (with `results[].trace.tool_calls`)",
    source,
  );
}

async function readRunFolder(source: string, reportFile: string): Promise<RecordingSet> {
  const report = await readReportFile(reportFile);
  const folder = path.dirname(reportFile);
  const events = await loadTrialEvents(report, folder);
  const byScenario = new Map<string, Recording[]>();
  for (const scenario of report.scenarios) {
    const key = scenarioKey(scenario);
    for (const trial of scenario.trials) {
      const trialEvents = trial.events_path ? events[trial.events_path] : undefined;
      if (!trialEvents) continue;
      const recording = fromEvents(key, trial.trial, trialEvents);
      if (recording.calls.length === 0 && trial.outcome === "skipped") continue;
      const list = byScenario.get(key) ?? [];
      list.push(recording);
      byScenario.set(key, list);
    }
  }
  if (byScenario.size === 0) {
    throw new ConfigError(
      "--replay-from: the run has no trial transcripts (events.jsonl) next to its report: give the folder `run` wrote, with its trials/",
      source,
    );
  }
  for (const list of byScenario.values()) list.sort((a, b) => a.trial - b.trial);
  return { source, format: "run", byScenario };
}

/** The tool calls of one trial's events, each with its result (a call without one keeps exit_code null). */
function fromEvents(key: string, trial: number, events: readonly TrialEvent[]): Recording {
  const calls: RecordedCall[] = [];
  const byId = new Map<string, RecordedCall>();
  let model: string | null = null;
  let workDir: string | null = null;
  for (const event of events) {
    if (event.type === "trial_start") model = event.model;
    else if (event.type === "tool_call") {
      const call: RecordedCall = {
        turn: event.turn,
        command: event.command,
        exit_code: null,
        stdout: "",
        stderr: "",
      };
      calls.push(call);
      byId.set(event.call_id, call);
    } else if (event.type === "tool_result") {
      const call = byId.get(event.call_id);
      if (call)
        Object.assign(call, { exit_code: event.exit_code, stdout: event.stdout, stderr: event.stderr });
    } else if (event.type === "prompt") workDir = event.work_dir ?? null;
  }
  return { scenario_key: key, trial, model, calls, work_dir: workDir };
}

interface BashkitToolCall {
  commands: string;
  stdout?: string;
  stderr?: string;
  exit_code?: number;
}

interface BashkitResults {
  model?: string;
  results: {
    task: { id: string };
    trace: { tool_calls: BashkitToolCall[]; messages?: { role: string; content: unknown }[] };
  }[];
}

function isBashkitResults(data: unknown): data is BashkitResults {
  if (typeof data !== "object" || data === null) return false;
  const results = (data as { results?: unknown }).results;
  return (
    Array.isArray(results) &&
    results.every(
      (r) =>
        typeof r?.task?.id === "string" &&
        Array.isArray(r?.trace?.tool_calls) &&
        r.trace.tool_calls.every((c: unknown) => typeof (c as BashkitToolCall)?.commands === "string"),
    )
  );
}

/** One trial per task; turns are counted from the trace's assistant messages. */
function fromBashkitResults(source: string, data: BashkitResults): RecordingSet {
  const byScenario = new Map<string, Recording[]>();
  for (const result of data.results) {
    const turns = toolUseTurns(result.trace.messages ?? []);
    const calls = result.trace.tool_calls.map((call, index) => ({
      turn: turns[index] ?? index + 1,
      command: call.commands,
      exit_code: typeof call.exit_code === "number" ? call.exit_code : null,
      stdout: call.stdout ?? "",
      stderr: call.stderr ?? "",
    }));
    byScenario.set(result.task.id, [
      { scenario_key: result.task.id, trial: 1, model: data.model ?? null, calls, work_dir: null },
    ]);
  }
  return { source, format: "bashkit-eval", byScenario };
}

/** The turn (1-based assistant message) of each tool_use block, in order. */
function toolUseTurns(messages: readonly { role: string; content: unknown }[]): number[] {
  const turns: number[] = [];
  let turn = 0;
  for (const message of messages) {
    if (message.role !== "assistant") continue;
    turn += 1;
    if (!Array.isArray(message.content)) continue;
    for (const block of message.content) {
      if ((block as { type?: unknown })?.type === "tool_use") turns.push(turn);
    }
  }
  return turns;
}
