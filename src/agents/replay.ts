/**
 * Re-issues a recorded trial's tool calls, in order, against the current build of the tool in a
 * fresh sandbox: no model, no key, deterministic. After each call a `replay_check` event says
 * how it differs from its recording, so the report can show where the sequence now diverges.
 * The scenario's gates judge the replayed trial as usual. A replay cannot show what a model
 * would do differently on seeing new output: the recorded calls run whatever the tool answers.
 *
 * What only the model could tell (its turns, tokens, cost, whether it stopped on its own or at the
 * turn limit) is carried over from the recording in a `recorded_execution` event, so the report
 * shows the recorded run's figures, marked as recorded, instead of a replay's zeros; what the
 * recorded model said (and its system prompt) goes first in a `recorded_transcript` event, for the
 * exports that show the recorded turns. Several
 * recorded runs (one per model) replay as a model matrix: each trial takes its model's recording.
 */
import { describeError } from "../errors.js";
import {
  pickRecording,
  type RecordedCall,
  type Recording,
  type RecordingSet,
} from "../results/read-recordings.js";
import type { ExecResult } from "../sandbox/types.js";
import type { ReplayDifference } from "../transcript/events.js";
import { classifyAbort } from "./abort-reason.js";
import type { Agent, AgentCallResult, AgentContext, AgentOutcome } from "./types.js";

/**
 * `sources`: one recorded run, or several, each of a different model (recordingsByModel checks
 * that), replayed as a model matrix of those models.
 */
export function createReplayAgent(sources: RecordingSet | readonly RecordingSet[]): Agent {
  const sets = Array.isArray(sources) ? (sources as readonly RecordingSet[]) : [sources as RecordingSet];
  const matrix = sets.length > 1;
  async function run(context: AgentContext): Promise<AgentOutcome> {
    const recordings = matrix ? sets.find((set) => set.model === context.model) : sets[0];
    if (!recordings) {
      return {
        reason: "agent_crash",
        error: `no recorded run of model ${context.model} among --replay-from's: replay runs only the models of the recorded runs`,
        turns: 0,
      };
    }
    // A matrix's keys end in `~model`; each recorded run keys its trials without it.
    const key =
      matrix && context.scenarioKey.endsWith(`~${context.model}`)
        ? context.scenarioKey.slice(0, -(context.model.length + 1))
        : context.scenarioKey;
    const recording = pickRecording(recordings, key, context.trial);
    if (!recording) {
      return {
        reason: "agent_crash",
        error: `no recording of scenario "${key}" in ${recordings.source}: replay runs only the scenarios the recorded run had`,
        turns: 0,
      };
    }
    // The recorded model's side (its text each turn, its system prompt), which the replay cannot produce.
    if (recording.turns.length > 0 || recording.system_prompt !== null) {
      context.events.emit({
        type: "recorded_transcript",
        system_prompt: recording.system_prompt,
        turns: recording.turns,
      });
    }
    for (const [index, call] of recording.calls.entries()) {
      if (context.signal.aborted) return { reason: classifyAbort(context.signal), turns: 0 };
      const command = replaceWorkDir(call.command, recording.work_dir, context.workDir);
      let result: AgentCallResult;
      try {
        result = await context.bash(command, call.turn);
      } catch (error) {
        if (context.signal.aborted) return { reason: classifyAbort(context.signal), turns: 0 };
        return {
          reason: "infra_error",
          error: `the sandbox failed to run a command: ${describeError(error)}`,
          turns: 0,
        };
      }
      context.events.emit({
        type: "replay_check",
        call_id: result.call_id,
        index: index + 1,
        recorded_calls: recording.calls.length,
        recorded_exit_code: call.exit_code,
        exit_code: result.exit_code,
        differences: compareWithRecording(call, result, recording.work_dir, context.workDir),
      });
    }
    if (context.signal.aborted) return { reason: classifyAbort(context.signal), turns: 0 };
    return endAsRecorded(recording, context);
  }
  // In a matrix the trials name the model whose recording they replay.
  return { name: "replay", usesModel: matrix, run };
}

/**
 * Every recorded call ran: the trial ends as the recorded one did (at its turn limit, or on its
 * own; a recorded timeout or crash is not replayed, since all its calls now ran), with its
 * figures. A recording without figures ends as the oracle does: no turns.
 */
function endAsRecorded(recording: Recording, context: AgentContext): AgentOutcome {
  const figures = recording.figures;
  if (!figures) return { reason: "natural_stop", turns: 0 };
  context.events.emit({ type: "recorded_execution", model: recording.model, ...figures });
  return {
    reason: figures.end_reason === "turn_limit" ? "turn_limit" : "natural_stop",
    turns: figures.turns,
  };
}

/**
 * What differs between a recorded call and its replay. Outputs are compared with the recorded
 * work dir replaced by the new one (a local sandbox's path changes from run to run), and without
 * trailing whitespace; a recording that kept no exit code compares only its outputs.
 */
export function compareWithRecording(
  recorded: RecordedCall,
  result: Pick<ExecResult, "exit_code" | "stdout" | "stderr">,
  recordedWorkDir: string | null,
  workDir: string,
): ReplayDifference[] {
  const differences: ReplayDifference[] = [];
  if (recorded.exit_code !== null && recorded.exit_code !== result.exit_code) differences.push("exit_code");
  const same = (before: string, after: string) =>
    replaceWorkDir(before, recordedWorkDir, workDir).trimEnd() === after.trimEnd();
  if (!same(recorded.stdout, result.stdout)) differences.push("stdout");
  if (!same(recorded.stderr, result.stderr)) differences.push("stderr");
  return differences;
}

function replaceWorkDir(text: string, from: string | null, to: string): string {
  return from && from !== to ? text.split(from).join(to) : text;
}
