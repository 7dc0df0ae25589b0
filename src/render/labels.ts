/** The words and marks the renderers use for the comparison's verdicts, statuses and corrections. */
import type { Correction, ScenarioStatus, Verdict } from "../compare/types.js";

export const VERDICT_LABEL: Record<Verdict, string> = {
  regressed: "regressed",
  improved: "improved",
  unchanged: "unchanged",
  inconclusive: "inconclusive",
  too_few_samples: "too few samples",
};

export const STATUS_LABEL: Record<ScenarioStatus, string> = {
  newly_failing: "newly failing",
  newly_passing: "newly passing",
  still_passing: "passing",
  still_failing: "still failing",
  became_flaky: "became flaky",
  still_flaky: "flaky",
  stabilized_pass: "now passing",
  stabilized_fail: "now failing",
  no_data: "no data",
};

export const CORRECTION_NAME: Record<Correction, string> = {
  holm: "Holm",
  bh: "Benjamini–Hochberg",
};

/** ", model `a`" or ", models `a`, `b`, `c`" (every model of a matrix, not its first); "" for none. */
export function describeModels(models: readonly string[], code: (text: string) => string): string {
  if (models.length === 0) return "";
  return `, model${models.length === 1 ? "" : "s"} ${models.map(code).join(", ")}`;
}
