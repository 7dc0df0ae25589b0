/** The hashes that say whether two runs measured the same thing (resume, merge, pooling). */
import { createHash } from "node:crypto";
import type { Scenario } from "../scenario/types.js";
import type { RunOptions } from "./options.js";
import { isAgentMatrix, runEntries } from "./plan.js";

/** What a trial measures depends on these; the trial count and the scenarios are hashed apart. */
function evaluationSettings(options: RunOptions) {
  return {
    // An agent matrix's entries (agent/model) in order; a one-agent run's hash stays what earlier versions wrote.
    agent: isAgentMatrix(options)
      ? runEntries(options)
          .map(({ agent, model }) => `${agent}/${model}`)
          .sort()
      : options.agent,
    // A matrix's models as a list; a one-model run's hash stays what earlier versions wrote.
    model: options.models.length > 1 ? options.models : options.model,
    judge: options.judgeModel,
    maxTurns: options.maxTurns,
    timeouts: [options.trialTimeoutMs, options.commandTimeoutMs, options.gateTimeoutMs],
    sandbox: options.sandbox,
    // Where a bashkit task starts and what HOME is, when a run chose it: absent, hashes stay as before.
    ...(options.bashkitHome ? { bashkitHome: options.bashkitHome } : {}),
    ...(Object.keys(options.recordedBashkitHomes).length > 0
      ? { recordedBashkitHomes: options.recordedBashkitHomes }
      : {}),
  };
}

function hashJson(value: unknown): string {
  return createHash("sha256").update(JSON.stringify(value)).digest("hex").slice(0, 16);
}

/** The whole run's identity, for `--resume` and `merge`: evaluation settings, trial count, scenarios. */
export function hashSettings(options: RunOptions, scenarios: Scenario[]): string {
  const { agent, model, judge, maxTurns, timeouts, sandbox, ...homes } = evaluationSettings(options);
  // Key order as in earlier versions, so their runs stay resumable.
  return hashJson({
    agent,
    model,
    judge,
    maxTurns,
    trials: options.trials,
    timeouts,
    sandbox,
    ...homes,
    scenarios: scenarios.map((s) => [s.id, s.contentHash]),
  });
}

/** Which runs may be pooled into one baseline (see RunInfo.evaluation_hash). */
export function hashEvaluationSettings(options: RunOptions): string {
  return hashJson(evaluationSettings(options));
}
