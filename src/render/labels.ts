/** The words and marks the renderers use for the comparison's verdicts, statuses and corrections. */
import type { Correction, ScenarioStatus, Verdict } from "../compare/types.js";
import { entriesOfRun, modelsOfRun } from "../results/model-matrix.js";
import type { RunInfo } from "../results/types.js";

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
function describeModels(models: readonly string[], code: (text: string) => string): string {
  if (models.length === 0) return "";
  return `, model${models.length === 1 ? "" : "s"} ${models.map(code).join(", ")}`;
}

/**
 * Who ran: "agent `a`, model `m`" (or every model of a model matrix), or for an agent matrix every
 * entry: "agents · models `a · m`, `b · n`" ("agents `a`, `b`" when none has a model). Never only
 * the first of a matrix.
 */
export function describeRunAgents(
  run: Pick<RunInfo, "agent" | "agents" | "entries" | "model" | "models">,
  code: (text: string) => string,
): string {
  const entries = entriesOfRun(run);
  if (entries.length > 0) {
    const withModels = (run.entries ?? []).some((entry) => entry.model !== null);
    return `${withModels ? "agents · models" : "agents"} ${entries.map(code).join(", ")}`;
  }
  return `agent ${code(run.agent)}${describeModels(modelsOfRun(run), code)}`;
}
