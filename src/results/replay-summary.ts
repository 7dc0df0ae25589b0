/** A replayed trial, from its events: how far the recorded calls ran and where they first diverged. */
import type { ReplayDifference, TrialEvent } from "../transcript/events.js";

interface ReplayDivergence {
  /** 1-based position in the recorded sequence. */
  index: number;
  command: string;
  recorded_exit_code: number | null;
  exit_code: number;
  differences: ReplayDifference[];
}

export interface ReplaySummary {
  recorded_calls: number;
  replayed_calls: number;
  /** Replayed calls that behaved differently from their recording. */
  diverged_calls: number;
  /**
   * Replayed calls that failed where the recording succeeded, or the reverse (exit 0 on one side
   * only): they move the tool calls' ok / error counts away from the recorded agent's. Absent in
   * reports of earlier versions.
   */
  status_flipped_calls?: number;
  /** The first call that diverged; null when every replayed call behaved as recorded. */
  first_divergence: ReplayDivergence | null;
}

/** Null for a trial that was not replayed (no `replay_check` events). */
export function summarizeReplay(events: readonly TrialEvent[]): ReplaySummary | null {
  const commands = new Map<string, string>();
  let summary: ReplaySummary | null = null;
  for (const event of events) {
    if (event.type === "tool_call") commands.set(event.call_id, event.command);
    if (event.type !== "replay_check") continue;
    summary ??= {
      recorded_calls: event.recorded_calls,
      replayed_calls: 0,
      diverged_calls: 0,
      status_flipped_calls: 0,
      first_divergence: null,
    };
    summary.replayed_calls += 1;
    if (event.differences.length === 0) continue;
    summary.diverged_calls += 1;
    const recorded = event.recorded_exit_code;
    if (recorded !== null && (recorded === 0) !== (event.exit_code === 0)) {
      summary.status_flipped_calls = (summary.status_flipped_calls ?? 0) + 1;
    }
    summary.first_divergence ??= {
      index: event.index,
      command: commands.get(event.call_id) ?? "",
      recorded_exit_code: event.recorded_exit_code,
      exit_code: event.exit_code,
      differences: event.differences,
    };
  }
  return summary;
}
