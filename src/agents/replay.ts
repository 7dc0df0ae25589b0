/**
 * Re-issues a recorded trial's tool calls, in order, against the current build of the tool in a
 * fresh sandbox: no model, no key, deterministic. After each call a `replay_check` event says
 * how it differs from its recording, so the report can show where the sequence now diverges.
 * The scenario's gates judge the replayed trial as usual. A replay cannot show what a model
 * would do differently on seeing new output: the recorded calls run whatever the tool answers.
 */
import { describeError } from "../errors.js";
import { pickRecording, type RecordedCall, type RecordingSet } from "../results/read-recordings.js";
import type { ExecResult } from "../sandbox/types.js";
import type { ReplayDifference } from "../transcript/events.js";
import { classifyAbort } from "./abort-reason.js";
import type { Agent, AgentCallResult, AgentContext, AgentOutcome } from "./types.js";

export function createReplayAgent(recordings: RecordingSet): Agent {
  async function run(context: AgentContext): Promise<AgentOutcome> {
    const recording = pickRecording(recordings, context.scenarioKey, context.trial);
    if (!recording) {
      return {
        reason: "agent_crash",
        error: `no recording of scenario "${context.scenarioKey}" in ${recordings.source}: replay runs only the scenarios the recorded run had`,
        turns: 0,
      };
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
    // No model calls, so no turns, as with the oracle.
    return { reason: "natural_stop", turns: 0 };
  }
  return { name: "replay", run };
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
