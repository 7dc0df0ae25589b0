import type { TrialReport } from "./types.js";

/** A trial's cost, agent and judge together; null when either is unknown (no price), so it never reads as $0. */
export function trialCost(trial: Pick<TrialReport, "execution" | "judge_usage">): number | null {
  const judge = trial.judge_usage ? trial.judge_usage.cost_usd : 0;
  if (trial.execution.cost_usd === null || judge === null) return null;
  return trial.execution.cost_usd + judge;
}
