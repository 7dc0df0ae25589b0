/**
 * The data behind the transcript viewer: one entry per trial, embedded as JSON and rendered in the
 * browser only when a trial is opened, so a 5,000-trial report stays one light page.
 */

import { scenarioKey } from "../../results/scenario-key.js";
import type { GateResult, Report, ScenarioReport, TrialReport } from "../../results/types.js";
import type { TrialEvent } from "../../transcript/events.js";
import { describeReplay } from "../replay.js";

/** One step of the timeline, in the order the trial lived it. Tool calls are paired with their results. */
export type TimelineStep =
  | { kind: "setup"; command: string; exit_code: number; stdout: string; stderr: string; duration_ms: number }
  | {
      kind: "turn";
      turn: number;
      text: string;
      stop_reason: string | null;
      input_tokens: number;
      output_tokens: number;
      duration_ms: number;
      tool_uses: number;
    }
  | {
      kind: "model_error";
      turn: number;
      attempt: number;
      status: number | null;
      message: string;
      will_retry: boolean;
    }
  | {
      kind: "command";
      turn: number;
      command: string;
      /** null when the call never returned a result (the trial was cut off). */
      exit_code: number | null;
      duration_ms: number | null;
      stdout: string;
      stderr: string;
      truncated: boolean;
      timed_out: boolean;
    }
  | { kind: "agent_output"; text: string }
  | { kind: "end"; reason: string; error: string | null; turns: number; duration_ms: number };

interface InvocationRow {
  argv: string[];
  exit_code: number;
  duration_ms: number;
}

export interface TrialView {
  scenario: string;
  category: string;
  trial: number;
  outcome: TrialReport["outcome"];
  reason: string | null;
  /** A replayed trial: where its recorded calls now diverge. */
  replay: string | null;
  end_reason: string | null;
  invocation_source: string;
  /** Where the shim's records disagree with the tool calls; empty when they agree. */
  shim_disagreements: string[];
  /** Recorded calls that `target.command_pattern` does not match (counted all the same); empty when none. */
  command_pattern_misses: string[];
  figures: {
    turns: number;
    tool_calls: number;
    tool_calls_error: number;
    commands: number;
    command_errors: number;
    gates_passed: number;
    gates_total: number;
    score: number;
    max_score: number;
    duration_ms: number;
    input_tokens: number;
    output_tokens: number;
    cost_usd: number | null;
  };
  gates: GateResult[];
  judge: {
    score: number | null;
    confidence: number;
    scores: Record<string, number>;
    issues: string[];
    highlights: string[];
    model: string | null;
  } | null;
  events_path: string | null;
  transcript_path: string | null;
  /** null when the trial's events.jsonl was not given (not found next to the report). */
  timeline: TimelineStep[] | null;
  invocations: InvocationRow[];
}

export function labelScenario(scenario: Pick<ScenarioReport, "id" | "variant">): string {
  return scenarioKey(scenario);
}

/**
 * Text for the page: control characters a terminal would act on (ESC of colour codes, NUL...) are
 * shown as their Unicode control pictures (␛, ␀) instead of blank boxes; tab and line breaks stay.
 */
function showControls(text: string): string {
  return text.replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/g, (c) =>
    String.fromCharCode(c === "\u007F" ? 0x2421 : 0x2400 + c.charCodeAt(0)),
  );
}

/** Keeps the head and the tail of a long output (the events file keeps all of it); controls made visible. */
export function clipText(text: string, max: number): string {
  return showControls(clipHead(text, max));
}

function clipHead(text: string, max: number): string {
  if (text.length <= max) return text;
  const half = Math.floor(max / 2);
  return `${text.slice(0, half)}\n[… ${text.length - 2 * half} characters not shown here; the events file has them all …]\n${text.slice(-half)}`;
}

/** events.jsonl is read back without validation: a field missing from an odd line must not break the page. */
function str(value: unknown): string {
  return typeof value === "string" ? value : value === undefined || value === null ? "" : String(value);
}

function num(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) ? value : 0;
}

/** Pairs each tool call with its result and drops what a reader does not need (requests, timestamps). */
export function buildTimeline(events: TrialEvent[], maxOutputChars: number): TimelineStep[] {
  const steps: TimelineStep[] = [];
  const openCalls = new Map<string, Extract<TimelineStep, { kind: "command" }>>();
  const clip = (text: unknown) => clipText(str(text), maxOutputChars);
  for (const event of events) {
    switch (event.type) {
      case "setup":
        steps.push({
          kind: "setup",
          command: clip(event.command),
          exit_code: num(event.exit_code),
          stdout: clip(event.stdout),
          stderr: clip(event.stderr),
          duration_ms: num(event.duration_ms),
        });
        break;
      case "model_response":
        steps.push({
          kind: "turn",
          turn: num(event.turn),
          text: clip(event.text),
          stop_reason: event.stop_reason ?? null,
          input_tokens: num(event.usage?.input_tokens),
          output_tokens: num(event.usage?.output_tokens),
          duration_ms: num(event.duration_ms),
          tool_uses: Array.isArray(event.tool_uses) ? event.tool_uses.length : 0,
        });
        break;
      case "model_error":
        steps.push({
          kind: "model_error",
          turn: num(event.turn),
          attempt: num(event.attempt),
          status: typeof event.status === "number" ? event.status : null,
          message: clip(event.message),
          will_retry: event.will_retry === true,
        });
        break;
      case "tool_call": {
        const step: Extract<TimelineStep, { kind: "command" }> = {
          kind: "command",
          turn: num(event.turn),
          command: clip(event.command),
          exit_code: null,
          duration_ms: null,
          stdout: "",
          stderr: "",
          truncated: false,
          timed_out: false,
        };
        openCalls.set(event.call_id, step);
        steps.push(step);
        break;
      }
      case "tool_result": {
        const step = openCalls.get(event.call_id);
        if (!step) break;
        openCalls.delete(event.call_id);
        step.exit_code = num(event.exit_code);
        step.duration_ms = num(event.duration_ms);
        step.stdout = clip(event.stdout);
        step.stderr = clip(event.stderr);
        step.truncated = event.truncated === true;
        step.timed_out = event.timed_out === true;
        break;
      }
      case "agent_output":
        steps.push({ kind: "agent_output", text: clip(event.text) });
        break;
      case "trial_end":
        steps.push({
          kind: "end",
          reason: str(event.reason),
          error: event.error ? clip(event.error) : null,
          turns: num(event.turns),
          duration_ms: num(event.duration_ms),
        });
        break;
      case "trial_start":
      case "prompt":
      case "model_request":
      case "target_invocation":
        break;
    }
  }
  return steps;
}

function buildTrialView(
  scenario: ScenarioReport,
  trial: TrialReport,
  events: TrialEvent[] | undefined,
  maxOutputChars: number,
): TrialView {
  const invocations: InvocationRow[] = (events ?? []).flatMap((e) =>
    e.type === "target_invocation"
      ? [
          {
            argv: (Array.isArray(e.argv) ? e.argv : []).map((a) => clipText(str(a), maxOutputChars)),
            exit_code: num(e.exit_code),
            duration_ms: num(e.duration_ms),
          },
        ]
      : [],
  );
  return {
    scenario: labelScenario(scenario),
    category: scenario.category,
    trial: trial.trial,
    outcome: trial.outcome,
    reason: trial.reason,
    replay: trial.replay ? describeReplay(trial.replay, (c) => `\`${c}\``) : null,
    end_reason: trial.end_reason,
    invocation_source: trial.invocation_source,
    shim_disagreements: trial.shim_disagreements ?? [],
    command_pattern_misses: trial.command_pattern_misses ?? [],
    figures: {
      turns: trial.execution.turns,
      tool_calls: trial.execution.tool_calls,
      tool_calls_error: trial.execution.tool_calls_error,
      commands: trial.interaction.total_commands,
      command_errors: trial.interaction.error_count,
      gates_passed: trial.gates_passed,
      gates_total: trial.gates_total,
      score: trial.score,
      max_score: trial.max_score,
      duration_ms: trial.execution.duration_ms,
      input_tokens: trial.execution.input_tokens,
      output_tokens: trial.execution.output_tokens,
      cost_usd: trial.execution.cost_usd,
    },
    gates: trial.gates.map((g) => ({ ...g, message: clipText(g.message, maxOutputChars) })),
    judge: trial.judge_response
      ? {
          score: trial.judge_score,
          confidence: trial.judge_response.confidence,
          scores: trial.judge_response.scores,
          issues: trial.judge_response.issues,
          highlights: trial.judge_response.highlights,
          model: trial.judge_usage?.model ?? null,
        }
      : null,
    events_path: trial.events_path,
    transcript_path: trial.transcript_path,
    timeline: events ? buildTimeline(events, maxOutputChars) : null,
    invocations,
  };
}

/** Trial views in report order (scenario by scenario); a trial's index is its handle in the page. */
export function buildTrialViews(
  report: Report,
  events: Record<string, TrialEvent[]>,
  maxOutputChars: number,
): TrialView[] {
  return report.scenarios.flatMap((scenario) =>
    scenario.trials.map((trial) =>
      buildTrialView(
        scenario,
        trial,
        trial.events_path !== null && Object.hasOwn(events, trial.events_path)
          ? events[trial.events_path]
          : undefined,
        maxOutputChars,
      ),
    ),
  );
}
