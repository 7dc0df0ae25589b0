/**
 * The one call the suite runner makes after the agent stopped: layer 1 from the events, layer 2
 * gates in the sandbox, layer 3 judge when the scenario enables it, then outcome and composite.
 * A failing trial is data here, never an exception (only a ConfigError in a hand-built scenario
 * could escape).
 */
import type { ModelClient } from "../model/model-client.js";
import type { PriceTable } from "../model/pricing.js";
import type { GateResult, JudgeUsage, TrialReport } from "../results/types.js";
import type { TrialSandbox } from "../sandbox/types.js";
import type { Scenario } from "../scenario/types.js";
import type { EndReason, EventOf, TrialEvent } from "../transcript/events.js";
import { computeTrialBehaviour } from "./behaviour.js";
import { evaluateGates, scoreGates } from "./gates.js";
import { extractInvocations, findPossibleGlobalOptions } from "./invocations.js";
import { type JudgeVerdict, runJudge } from "./judge.js";
import { computeBySubcommand, computeExecution, computeInteraction, isCompleted } from "./metrics.js";
import { computeComposite, decideOutcome } from "./outcome.js";

export interface EvaluateTrialInput {
  scenario: Scenario;
  events: readonly TrialEvent[];
  sandbox: Pick<TrialSandbox, "runGateCommand" | "gateFiles">;
  /** The tested model (prices the agent's tokens); null for agents without one. */
  model: string | null;
  prices: Readonly<PriceTable>;
  /** The judge to use when the scenario enables one; null/absent when none is configured. */
  judge?: { client: ModelClient; model: string } | null;
  /** Markdown transcript of the trial, for the judge. */
  transcript: string;
  gateTimeoutMs: number;
  /** `script` gate variables (see buildScriptEnv in gates.ts). */
  scriptEnv: Record<string, string>;
  /** The run's cancellation: ends the gate in progress (the rest are not run) and the judge's call. */
  signal?: AbortSignal;
}

export type TrialEvaluation = Omit<TrialReport, "trial" | "events_path" | "transcript_path">;

export async function evaluateTrial(input: EvaluateTrialInput): Promise<TrialEvaluation> {
  const { scenario, events } = input;
  const end = findTrialEnd(events);
  const endReason: EndReason | null = end?.reason ?? null;
  const completed = isCompleted(endReason);

  const { source, invocations, disagreements, patternMisses, recordedCalls } = extractInvocations(
    events,
    scenario.target,
  );
  const interaction = computeInteraction(invocations, completed);
  const bySubcommand = computeBySubcommand(invocations, completed);
  const possibleGlobalOptions = findPossibleGlobalOptions(invocations, scenario.target);
  const execution = computeExecution(events, { prices: input.prices, model: input.model });

  // After an infrastructure error or a cancel the work dir says nothing about the agent: skip the rest.
  const evaluable = endReason !== "infra_error" && endReason !== "cancelled";
  const gates: GateResult[] = evaluable
    ? await evaluateGates(scenario.evaluation.gates, {
        sandbox: input.sandbox,
        events,
        invocations,
        invocationSource: source,
        recordedCalls: recordedCalls ?? invocations,
        scriptEnv: input.scriptEnv,
        gateTimeoutMs: input.gateTimeoutMs,
        ...(input.signal ? { signal: input.signal } : {}),
      })
    : [];
  const score = scoreGates(gates);

  const judgeSpec = scenario.evaluation.judge;
  const judgeEnabled = evaluable && judgeSpec?.enabled === true;
  let verdict: JudgeVerdict | null = null;
  let missingJudge: string | null = null;
  if (judgeEnabled && judgeSpec) {
    if (input.judge) {
      verdict = await runJudge({
        client: input.judge.client,
        model: input.judge.model,
        rubric: judgeSpec.rubric,
        scenario,
        transcript: input.transcript,
        events,
        gates,
        passThreshold: judgeSpec.passThreshold,
        prices: input.prices,
        ...(input.signal ? { signal: input.signal } : {}),
      });
    } else {
      missingJudge =
        "the scenario enables the judge but no judge is configured: provide an Anthropic API key (ANTHROPIC_API_KEY or the anthropic-api-key input) and a judge model (--judge-model, evaluation.judge.model or LLM_TOOL_TEST_JUDGE), or disable evaluation.judge";
    }
  }

  const decided = missingJudge
    ? { outcome: "error" as const, reason: missingJudge }
    : decideOutcome({
        endReason,
        infraError: endReason === "infra_error" ? (end?.error ?? "infrastructure error") : null,
        endError: end?.error ?? null,
        gates,
        judge: verdict,
        judgeEnabled,
      });

  const judgeScore = verdict?.ok ? verdict.response.weighted_score : null;
  const judgeUsage: JudgeUsage | null = verdict ? verdict.usage : null;
  return {
    outcome: decided.outcome,
    reason: decided.reason,
    end_reason: endReason,
    invocation_source: source,
    ...(disagreements && disagreements.length > 0 ? { shim_disagreements: disagreements } : {}),
    ...(patternMisses && patternMisses.length > 0
      ? { command_pattern_misses: summarisePatternMisses(patternMisses) }
      : {}),
    ...(possibleGlobalOptions.length > 0
      ? {
          possible_global_options: possibleGlobalOptions
            .slice(0, MAX_PATTERN_MISSES)
            .map(({ option, command }) => ({ option: cutCommand(option), command: cutCommand(command) })),
        }
      : {}),
    interaction,
    by_subcommand: bySubcommand,
    behaviour: computeTrialBehaviour(invocations, events),
    execution,
    gates,
    gates_passed: score.gates_passed,
    gates_total: score.gates_total,
    score: score.score,
    max_score: score.max_score,
    judge_score: judgeScore,
    judge_response: verdict?.ok ? verdict.response : null,
    judge_usage: judgeUsage,
    judge_model: verdict && input.judge ? input.judge.model : null,
    composite_score: computeComposite(scenario.evaluation.composite, {
      gateScore: score.score,
      gateMax: score.max_score,
      judgeScore,
      interaction,
    }),
  };
}

/** At most this many distinct missed commands (or possible global options) are listed per trial, each cut to 120 code points. */
const MAX_PATTERN_MISSES = 10;

/** The distinct commands `command_pattern` missed, bounded; the rest said in one line. */
function summarisePatternMisses(commands: readonly string[]): string[] {
  const distinct = [...new Set(commands)];
  const listed = distinct.slice(0, MAX_PATTERN_MISSES).map(cutCommand);
  const rest = distinct.length - listed.length;
  return rest > 0 ? [...listed, `and ${rest} more`] : listed;
}

/** A command as listed in the report: at most 120 code points. */
function cutCommand(command: string): string {
  const points = Array.from(command);
  return points.length > 120 ? `${points.slice(0, 120).join("")}…` : command;
}

function findTrialEnd(events: readonly TrialEvent[]): EventOf<"trial_end"> | null {
  for (let index = events.length - 1; index >= 0; index -= 1) {
    const event = events[index] as TrialEvent;
    if (event.type === "trial_end") return event;
  }
  return null;
}
