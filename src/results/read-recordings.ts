/**
 * Recorded tool calls for the replay agent (`--agent replay --replay-from PATH`): from a previous
 * run's output folder (its report.json and each trial's events.jsonl) or from a bashkit-eval
 * results JSON (its per-task `trace.tool_calls`). Recordings are keyed like reports: by scenario
 * key (`id` or `id@variant`), then by trial number.
 */
import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import { ConfigError, describeError } from "../errors.js";
import type { RecordedTurn, TrialEvent } from "../transcript/events.js";
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

/**
 * What the recorded trial measured of its model, which a replay cannot measure (it calls no model):
 * the replay carries these figures into its report, marked as recorded.
 */
type RecordedFigures = Omit<
  Extract<TrialEvent, { type: "recorded_execution" }>,
  "type" | "model" | "ts" | "t_ms"
>;

export interface Recording {
  scenario_key: string;
  trial: number;
  /** The model whose calls these were, when the source says. */
  model: string | null;
  calls: RecordedCall[];
  /** The work dir as the recorded agent saw it, when known: replaced by the new one before outputs are compared. */
  work_dir: string | null;
  /** Null when the source kept no figures (a trial without a trial_end: an interrupted run). */
  figures: RecordedFigures | null;
  /** The system prompt the recorded model was given; null when the source does not have it. */
  system_prompt: string | null;
  /** What the recorded model said, turn by turn (empty when the source kept no model turns). */
  turns: RecordedTurn[];
}

export interface RecordingSet {
  /** The path given, for messages and the report. */
  source: string;
  format: "run" | "bashkit-eval";
  /** The one model the recorded run used, when it names one (a model matrix's run: null). */
  model: string | null;
  /** When the recorded run started (ISO 8601), when the source says: tells which bashkit version wrote it. */
  recorded_at: string | null;
  /**
   * A run folder's: the home layout its trials had (`trials[].home_layout`, a bashkit dataset's
   * tasks), when they all had the same one; else null (and always for a bashkit-eval file, whose
   * date tells its layout).
   */
  home_layout: string | null;
  /** Per scenario key, ordered by trial. */
  byScenario: Map<string, Recording[]>;
  /**
   * A bashkit-eval file's tasks as that run had them (each `results[].task`, as one JSON line of a
   * dataset), by task id: a replay grades against the task file given, which must hold the same
   * tasks (run/prepare.ts compares them). Null for a run folder.
   */
  tasks: ReadonlyMap<string, string> | null;
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
  const homeLayouts = new Set<string | null>();
  for (const scenario of report.scenarios) {
    const key = scenarioKey(scenario);
    for (const trial of scenario.trials) {
      const trialEvents = trial.events_path ? events[trial.events_path] : undefined;
      if (!trialEvents) continue;
      const recording = fromEvents(key, trial.trial, trialEvents);
      if (recording.calls.length === 0 && trial.outcome === "skipped") continue;
      homeLayouts.add(typeof trial.home_layout === "string" ? trial.home_layout : null);
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
  const models = new Set([...byScenario.values()].flat().map((recording) => recording.model));
  const model = report.run.models && report.run.models.length > 1 ? null : (report.run.model ?? null);
  return {
    source,
    format: "run",
    model: model ?? (models.size === 1 ? ([...models][0] ?? null) : null),
    recorded_at: report.run.started_at,
    home_layout: homeLayouts.size === 1 ? ([...homeLayouts][0] ?? null) : null,
    byScenario,
    tasks: null,
  };
}

/**
 * The tool calls of one trial's events, each with its result (a call without one keeps exit_code
 * null), and its figures: summed from its model responses, or, for a trial that was itself a
 * replay, the figures its `recorded_execution` event carried on.
 */
function fromEvents(key: string, trial: number, events: readonly TrialEvent[]): Recording {
  const calls: RecordedCall[] = [];
  const byId = new Map<string, RecordedCall>();
  let model: string | null = null;
  let workDir: string | null = null;
  const usage = { input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0 };
  let responses = 0;
  let cost: number | null = null;
  let carried: RecordedFigures | null = null;
  let end: Extract<TrialEvent, { type: "trial_end" }> | null = null;
  let systemPrompt: string | null = null;
  let turns: RecordedTurn[] = [];
  // A trial that was itself a replay carries its recording's transcript, not its own prompt.
  let carriedTranscript = false;
  for (const event of events) {
    if (event.type === "trial_start") model = event.model;
    else if (event.type === "recorded_transcript") {
      carriedTranscript = true;
      systemPrompt = event.system_prompt;
      turns = event.turns;
    } else if (event.type === "model_response") {
      responses += 1;
      if (!carriedTranscript) {
        turns.push({ turn: event.turn, text: event.text, ts: event.ts, usage: event.usage });
      }
      for (const field of Object.keys(usage) as (keyof typeof usage)[]) usage[field] += event.usage[field];
      if (typeof event.cost_usd === "number") cost = (cost ?? 0) + event.cost_usd;
    } else if (event.type === "recorded_execution") {
      carried = {
        turns: event.turns,
        input_tokens: event.input_tokens,
        output_tokens: event.output_tokens,
        cache_read_tokens: event.cache_read_tokens,
        cache_write_tokens: event.cache_write_tokens,
        tool_calls: event.tool_calls,
        end_reason: event.end_reason,
        cost_usd: event.cost_usd,
      };
      model ??= event.model;
    } else if (event.type === "trial_end") end = event;
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
    } else if (event.type === "prompt") {
      workDir = event.work_dir ?? null;
      if (!carriedTranscript) systemPrompt = event.system_prompt;
    }
  }
  // A trial of an agent without a model (the oracle) has nothing a replay could not measure.
  const calledModel = model !== null || responses > 0 || (end?.turns ?? 0) > 0;
  const figures: RecordedFigures | null =
    carried ??
    (end && calledModel
      ? {
          turns: responses > 0 ? responses : end.turns,
          ...usage,
          tool_calls: calls.length,
          end_reason: end.reason,
          cost_usd: cost,
        }
      : null);
  return {
    scenario_key: key,
    trial,
    model,
    calls,
    work_dir: workDir,
    figures,
    system_prompt: systemPrompt,
    turns,
  };
}

interface BashkitToolCall {
  commands: string;
  stdout?: string;
  stderr?: string;
  exit_code?: number;
}

interface BashkitTrace {
  tool_calls: BashkitToolCall[];
  messages?: { role: string; content: unknown }[];
  turns?: number;
  natural_stop?: boolean;
  total_input_tokens?: number;
  total_output_tokens?: number;
}

interface BashkitResults {
  provider?: string;
  model?: string;
  timestamp?: string;
  results: { task: { id: string; system?: string | null }; trace: BashkitTrace }[];
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

/** One trial per task; each call's turn is counted from the trace's assistant messages. */
function fromBashkitResults(source: string, data: BashkitResults): RecordingSet {
  const byScenario = new Map<string, Recording[]>();
  const model = bashkitModelId(data);
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
      {
        scenario_key: result.task.id,
        trial: 1,
        model,
        calls,
        work_dir: null,
        figures: bashkitFigures(result.trace, calls.length),
        // bashkit-eval gives a task's own system prompt; a task without one has none recorded.
        system_prompt: typeof result.task.system === "string" ? result.task.system : null,
        turns: assistantTurns(result.trace.messages ?? []),
      },
    ]);
  }
  const recordedAt = typeof data.timestamp === "string" ? data.timestamp : null;
  const tasks = new Map(data.results.map((result) => [result.task.id, JSON.stringify(result.task)]));
  return {
    source,
    format: "bashkit-eval",
    model,
    recorded_at: recordedAt,
    home_layout: null,
    byScenario,
    tasks,
  };
}

/**
 * The model as `--model` names it: bashkit-eval's `provider` and `model` (`openai`, `gpt-5.5` →
 * `openai:gpt-5.5`; Anthropic's ids stay bare), so prices and reports treat it as a run of ours would.
 */
function bashkitModelId(data: BashkitResults): string | null {
  if (typeof data.model !== "string" || data.model.trim() === "") return null;
  const provider = typeof data.provider === "string" ? data.provider.toLowerCase() : "anthropic";
  // bashkit-eval's `openresponses` provider is OpenAI's Responses API.
  return provider === "openai" || provider === "openresponses" ? `openai:${data.model}` : data.model;
}

/**
 * The trace's own figures (bashkit-eval's AgentTrace): turns are its `provider.chat()` calls,
 * tokens its totals, `natural_stop` false meaning its turn limit. Null when the trace lacks them.
 */
function bashkitFigures(trace: BashkitTrace, toolCalls: number): RecordedFigures | null {
  const count = (value: unknown) =>
    typeof value === "number" && Number.isSafeInteger(value) && value >= 0 ? value : null;
  const turns = count(trace.turns);
  const input = count(trace.total_input_tokens);
  const output = count(trace.total_output_tokens);
  if (turns === null || input === null || output === null || typeof trace.natural_stop !== "boolean")
    return null;
  return {
    turns,
    input_tokens: input,
    output_tokens: output,
    cache_read_tokens: 0,
    cache_write_tokens: 0,
    tool_calls: toolCalls,
    end_reason: trace.natural_stop ? "natural_stop" : "turn_limit",
    cost_usd: null,
  };
}

/**
 * Each assistant message as a turn: its text blocks joined (a string content is its text). The
 * trace keeps no time or tokens per message, only totals.
 */
function assistantTurns(messages: readonly { role: string; content: unknown }[]): RecordedTurn[] {
  return messages
    .filter((message) => message.role === "assistant")
    .map((message, index) => ({
      turn: index + 1,
      text: Array.isArray(message.content)
        ? message.content
            .filter((block) => (block as { type?: unknown })?.type === "text")
            .map((block) => String((block as { text?: unknown }).text ?? ""))
            .join("\n\n")
        : typeof message.content === "string"
          ? message.content
          : "",
      ts: null,
      usage: null,
    }));
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

/**
 * The models of several recorded runs replayed as one model matrix (`--replay-from A
 * --replay-from B`), in the order given: each run must name its one model, and no two the same.
 */
export function modelsOfRecordings(sets: readonly RecordingSet[]): string[] {
  const models: string[] = [];
  for (const set of sets) {
    if (!set.model) {
      throw new ConfigError(
        "--replay-from: this recorded run names no single model, so it cannot take a column of a model matrix; replay it on its own",
        set.source,
      );
    }
    if (models.includes(set.model)) {
      const first = sets.find((other) => other.model === set.model) as RecordingSet;
      throw new ConfigError(
        `--replay-from: ${first.source} and this file both recorded model ${set.model}; give one recorded run per model`,
        set.source,
      );
    }
    models.push(set.model);
  }
  return models;
}
