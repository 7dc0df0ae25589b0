/** One line on a replayed trial: where its recorded calls now diverge, in words. */
import type { ReplaySummary } from "../results/replay-summary.js";

const DIFFERENCE_WORDS = { stdout: "stdout differs", stderr: "stderr differs" } as const;

/**
 * e.g. "call 3 of 5: `tool list --json` exit 0 → 2, stdout differs (2 calls diverged)", or
 * "all 5 recorded calls behaved as recorded". `code` quotes the command for the output language.
 */
export function describeReplay(summary: ReplaySummary, code: (text: string) => string): string {
  const { recorded_calls: recorded, replayed_calls: replayed, first_divergence: first } = summary;
  const cut = replayed < recorded ? `; replayed ${replayed} of ${recorded} calls` : "";
  if (!first) {
    return replayed === recorded
      ? `all ${recorded} recorded call(s) behaved as recorded`
      : `the calls replayed behaved as recorded${cut}`;
  }
  const parts = first.differences.map((d) =>
    d === "exit_code" ? `exit ${first.recorded_exit_code ?? "?"} → ${first.exit_code}` : DIFFERENCE_WORDS[d],
  );
  const more = summary.diverged_calls > 1 ? ` (${summary.diverged_calls} calls diverged)` : "";
  const command = first.command.trim().split("\n")[0] ?? "";
  return `call ${first.index} of ${recorded}: ${code(command)} ${parts.join(", ")}${more}${cut}`;
}
