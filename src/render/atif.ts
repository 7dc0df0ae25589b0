/**
 * Trials as ATIF trajectories (Harbor's Agent Trajectory Interchange Format, RFC 0001, version
 * ATIF-v1.4), so a trial opens in the viewers and pipelines that read Harbor's trajectory.json.
 * One trajectory per trial, one JSON object a line (JSON Lines): `jq -c 'select(...)'` picks one.
 *
 * Mapping from events.jsonl: the prompt's system prompt and task are a `system` and a `user` step;
 * each model turn is an `agent` step (its text, its tool calls, their results as the observation,
 * its token usage as metrics); an agent without model turns (an agent CLI, the oracle, a replay)
 * gets one agent step per turn of tool calls, and its free text as agent steps. The bash tool's
 * calls are `tool_calls` with function_name `bash` and arguments `{command}`; each result's exit
 * status, duration and cut-offs go in the step's `extra.tool_results` (ATIF's observation result
 * has no field for them). The trial's outcome, score, gates and end reason are in the root `extra`.
 *
 * A replayed trial is the recorded model's trajectory: its system prompt (none when the recording
 * lacks it: then no system step, and the notes say so), each recorded turn's text as an agent step
 * (the final answer and a turn without calls included) with its recorded time and tokens where the
 * recording has them, and the replayed calls of that turn. Their observations are the replay's
 * outputs: each result's `extra.tool_results` entry says whether it is what the recorded model saw
 * (`recorded_output`: same or differs, with the differences), and the notes count them.
 * Model names are the provider's ids (`gpt-5.2`, not the harness's `openai:gpt-5.2`). Pure.
 */
import { scenarioKey } from "../results/scenario-key.js";
import type { Report, ScenarioReport, TrialReport } from "../results/types.js";
import type { EventOf, TokenUsage, TrialEvent } from "../transcript/events.js";
import { exportedModel } from "./genai-model.js";

export const ATIF_SCHEMA_VERSION = "ATIF-v1.4";

interface AtifToolCall {
  tool_call_id: string;
  function_name: string;
  arguments: Record<string, unknown>;
}

interface AtifStep {
  step_id: number;
  timestamp?: string;
  source: "system" | "user" | "agent";
  model_name?: string;
  message: string;
  tool_calls?: AtifToolCall[];
  observation?: { results: { source_call_id: string; content: string }[] };
  metrics?: {
    prompt_tokens: number;
    completion_tokens: number;
    cached_tokens: number;
    cost_usd?: number;
    extra?: Record<string, unknown>;
  };
  extra?: Record<string, unknown>;
}

export interface AtifTrajectory {
  schema_version: typeof ATIF_SCHEMA_VERSION;
  session_id: string;
  agent: { name: string; version: string; model_name?: string; extra?: Record<string, unknown> };
  steps: AtifStep[];
  notes?: string;
  final_metrics: {
    total_prompt_tokens: number;
    total_completion_tokens: number;
    total_cached_tokens: number;
    total_cost_usd?: number;
    total_steps: number;
    extra?: Record<string, unknown>;
  };
  extra: Record<string, unknown>;
}

/** A tool result as the model read it: stdout, then stderr, as the transcript shows them. */
function observationText(result: EventOf<"tool_result">): string {
  const parts = [result.stdout];
  if (result.stderr) parts.push(`[stderr]\n${result.stderr}`);
  return parts.filter(Boolean).join("\n");
}

/** The calls (and their results) of one turn, in order. */
function callsOf(events: readonly TrialEvent[], turn: number) {
  const results = new Map<string, EventOf<"tool_result">>();
  for (const event of events) if (event.type === "tool_result") results.set(event.call_id, event);
  return events
    .filter((event): event is EventOf<"tool_call"> => event.type === "tool_call" && event.turn === turn)
    .map((call) => ({ call, result: results.get(call.call_id) }));
}

/** Per replayed call, how its output compares with the recording's (`replay_check`). */
type ReplayChecks = ReadonlyMap<string, EventOf<"replay_check">>;

function toolStepFields(calls: ReturnType<typeof callsOf>, checks?: ReplayChecks): Partial<AtifStep> {
  if (calls.length === 0) return {};
  return {
    tool_calls: calls.map(({ call }) => ({
      tool_call_id: call.call_id,
      function_name: "bash",
      arguments: { command: call.command },
    })),
    observation: {
      results: calls
        .filter(({ result }) => result !== undefined)
        .map(({ call, result }) => ({
          source_call_id: call.call_id,
          content: observationText(result as EventOf<"tool_result">),
        })),
    },
    extra: {
      tool_results: calls.map(({ call, result }) => ({
        call_id: call.call_id,
        exit_code: result?.exit_code ?? null,
        duration_ms: result?.duration_ms ?? null,
        timed_out: result?.timed_out ?? null,
        truncated: result?.truncated ?? null,
        ...(checks ? replayedOutput(checks.get(call.call_id)) : {}),
      })),
    },
  };
}

/** A replayed call's output against the recording: what the recorded model saw, or not. */
function replayedOutput(check: EventOf<"replay_check"> | undefined) {
  if (!check) return { recorded_output: "unknown" };
  return check.differences.length === 0
    ? { recorded_output: "same" }
    : { recorded_output: "differs", differences: check.differences };
}

/** ATIF's step metrics for one model turn: prompt_tokens count every input token, cached ones included. */
function turnMetrics(usage: TokenUsage, cost?: number): NonNullable<AtifStep["metrics"]> {
  return {
    prompt_tokens: usage.input_tokens + usage.cache_read_tokens + usage.cache_write_tokens,
    completion_tokens: usage.output_tokens,
    cached_tokens: usage.cache_read_tokens,
    ...(typeof cost === "number" ? { cost_usd: cost } : {}),
    ...(usage.cache_write_tokens > 0
      ? { extra: { cache_creation_input_tokens: usage.cache_write_tokens } }
      : {}),
  };
}

/**
 * A replayed trial's steps (after the task): each recorded turn with the replayed calls of that
 * turn. Returns the notes that say what is the recording's and what the replay's.
 */
function addRecordedTurns(
  transcript: EventOf<"recorded_transcript">,
  events: readonly TrialEvent[],
  add: (step: Omit<AtifStep, "step_id">) => void,
  modelName: string | null,
): string[] {
  const checks = new Map<string, EventOf<"replay_check">>();
  for (const event of events) if (event.type === "replay_check") checks.set(event.call_id, event);
  const recordedTurns = new Set(transcript.turns.map((turn) => turn.turn));
  const turnsOfCalls = [
    ...new Set(events.filter((e) => e.type === "tool_call").map((e) => (e as EventOf<"tool_call">).turn)),
  ];
  // Every recorded turn, then the turns of calls the transcript lacks (none, from a whole recording).
  const steps = [
    ...transcript.turns,
    ...turnsOfCalls
      .filter((turn) => !recordedTurns.has(turn))
      .map((turn) => ({ turn, text: "", ts: null, usage: null })),
  ].sort((a, b) => a.turn - b.turn);
  for (const turn of steps) {
    add({
      ...(turn.ts ? { timestamp: turn.ts } : {}),
      source: "agent",
      ...(modelName ? { model_name: modelName } : {}),
      message: turn.text,
      ...toolStepFields(callsOf(events, turn.turn), checks),
      ...(turn.usage ? { metrics: turnMetrics(turn.usage) } : {}),
    });
  }
  const differing = [...checks.values()].filter((check) => check.differences.length > 0).length;
  return [
    "replayed trial: each agent step's text, time and tokens are the recorded model's (where the recording has them); its tool calls were run again, and the observations are the replay's outputs",
    `${differing} of ${checks.size} observation(s) differ from what the recorded model saw (extra.tool_results[].recorded_output)`,
    ...(transcript.system_prompt === null
      ? [
          "the recording has no system prompt, so there is no system step (the replay's own prompt was never the recorded model's)",
        ]
      : []),
  ];
}

/** One trial's trajectory; `events` are its events.jsonl (empty when they were not kept). */
export function buildAtifTrajectory(
  report: Pick<Report, "run">,
  scenario: ScenarioReport,
  trial: TrialReport,
  events: readonly TrialEvent[],
): AtifTrajectory {
  const start = events.find((e): e is EventOf<"trial_start"> => e.type === "trial_start");
  // In an agent matrix a trial is its entry's: never the run's first agent or model.
  const agent = scenario.agent ?? report.run.agent;
  // A replay calls no model: its trial's is the recording's.
  const replayed = events.find((e): e is EventOf<"recorded_execution"> => e.type === "recorded_execution");
  const recordedModel =
    start?.model ?? replayed?.model ?? scenario.model ?? (scenario.agent ? null : report.run.model) ?? null;
  const model = exportedModel(agent, recordedModel).model;
  const steps: AtifStep[] = [];
  const add = (step: Omit<AtifStep, "step_id">) => steps.push({ step_id: steps.length + 1, ...step });
  const prompt = events.find((e): e is EventOf<"prompt"> => e.type === "prompt");
  const transcript = events.find(
    (e): e is EventOf<"recorded_transcript"> => e.type === "recorded_transcript",
  );
  const notes: string[] = [];
  if (transcript) {
    // The recorded model's system prompt, never the replay's; times are not the replay's either.
    if (transcript.system_prompt !== null) add({ source: "system", message: transcript.system_prompt });
    if (prompt) add({ source: "user", message: prompt.task });
  } else if (prompt) {
    add({ timestamp: prompt.ts, source: "system", message: prompt.system_prompt });
    add({ timestamp: prompt.ts, source: "user", message: prompt.task });
  }
  const responses = events.filter((e): e is EventOf<"model_response"> => e.type === "model_response");
  const usage = { prompt: 0, completion: 0, cached: 0 };
  if (transcript) {
    notes.push(...addRecordedTurns(transcript, events, add, model));
  } else if (responses.length > 0) {
    for (const response of responses) {
      const metrics = turnMetrics(response.usage, response.cost_usd);
      usage.prompt += metrics.prompt_tokens;
      usage.completion += metrics.completion_tokens;
      usage.cached += metrics.cached_tokens;
      add({
        timestamp: response.ts,
        source: "agent",
        ...(model ? { model_name: model } : {}),
        message: response.text,
        ...toolStepFields(callsOf(events, response.turn)),
        metrics,
      });
    }
  } else {
    // No model turns seen (an agent CLI, the oracle, a replay): its text and its calls, turn by turn.
    const turns = [
      ...new Set(events.filter((e) => e.type === "tool_call").map((e) => (e as EventOf<"tool_call">).turn)),
    ];
    for (const event of events) {
      if (event.type === "agent_output") add({ timestamp: event.ts, source: "agent", message: event.text });
    }
    for (const turn of turns) {
      const calls = callsOf(events, turn);
      add({ timestamp: calls[0]?.call.ts, source: "agent", message: "", ...toolStepFields(calls) });
    }
  }
  const execution = trial.execution;
  return {
    schema_version: ATIF_SCHEMA_VERSION,
    session_id: `${report.run.id}/${scenarioKey(scenario)}/trial-${trial.trial}`,
    agent: {
      name: agent,
      version: report.run.harness_version,
      ...(model ? { model_name: model } : {}),
      extra: { harness: "llm-tool-test" },
    },
    steps,
    ...(events.length === 0 ? { notes: "the trial's events.jsonl was not found: no steps" } : {}),
    ...(notes.length > 0 ? { notes: `${notes.join("; ")}.` } : {}),
    final_metrics: {
      // A replay's model figures are its recording's (execution.recorded): taken from the trial, not its events.
      total_prompt_tokens: execution.recorded
        ? execution.input_tokens + execution.cache_read_tokens + execution.cache_write_tokens
        : usage.prompt,
      total_completion_tokens: execution.recorded ? execution.output_tokens : usage.completion,
      total_cached_tokens: execution.recorded ? execution.cache_read_tokens : usage.cached,
      ...(execution.cost_usd !== null ? { total_cost_usd: execution.cost_usd } : {}),
      total_steps: steps.length,
      extra: {
        turns: execution.turns,
        tool_calls: execution.tool_calls,
        ...(execution.recorded ? { recorded: true } : {}),
      },
    },
    extra: {
      scenario: scenarioKey(scenario),
      category: scenario.category,
      trial: trial.trial,
      outcome: trial.outcome,
      reason: trial.reason,
      end_reason: trial.end_reason,
      score: trial.score,
      max_score: trial.max_score,
      gates: trial.gates.map((gate) => ({
        type: gate.gate_type,
        ...(gate.description ? { description: gate.description } : {}),
        passed: gate.passed,
        message: gate.message,
      })),
    },
  };
}

/** Every trial of the report, one trajectory a line; `events` keyed by each trial's events_path. */
export function renderAtifJsonLines(report: Report, events: Record<string, TrialEvent[]>): string {
  const lines: string[] = [];
  for (const scenario of report.scenarios) {
    for (const trial of scenario.trials) {
      const trialEvents = trial.events_path ? (events[trial.events_path] ?? []) : [];
      lines.push(JSON.stringify(buildAtifTrajectory(report, scenario, trial, trialEvents)));
    }
  }
  return lines.length > 0 ? `${lines.join("\n")}\n` : "";
}
