/** `plan`'s cost lines: what a PR and a base-branch run cost at the design, with 95% ranges. Pure. */
import type { CostPlan, CostRange } from "../compare/cost-plan.js";
import { formatUsd } from "./format.js";

/** The plan's cost lines; `source` names the report the costs come from. */
export function renderCostPlan(cost: CostPlan | null, source: string): string {
  if (cost === null) {
    return `Cost: unknown: no trial of ${source} has a known cost (its model is not in the price table, or it used none).`;
  }
  const range = (r: CostRange) => `${formatUsd(r.low)}–${formatUsd(r.high)}`;
  const pr = cost.pull_request;
  const extra =
    pr.extra_trials_max > 0
      ? ` + ~${Math.round(pr.extra_trials_expected)} extra (up to ${pr.extra_trials_max} if every scenario is extended)`
      : "";
  const unknown =
    cost.trials_unknown > 0 ? `; ${cost.trials_unknown} trial(s) without a known cost left out` : "";
  return [
    `Cost per PR: ~${formatUsd(pr.expected)} (${pr.first_trials} first trials${extra}; 95% range ${range(pr)}).`,
    `Cost per base-branch run: ~${formatUsd(cost.base_run.expected)} (${cost.base_run.trials} trials, none extra: a push run has no baseline; 95% range ${range(cost.base_run)}).`,
    `From ${cost.trials_priced} priced trial(s) of ${source}: ${formatUsd(cost.per_trial.mean)} a trial on average (sd ${formatUsd(cost.per_trial.sd)})${unknown}.`,
  ].join("\n");
}
