/**
 * The baseline a run is measured against, settled before it starts: the adaptive screen needs each
 * scenario's baseline pass counts while the head is still running. Several reports (the CLI's
 * repeated `--baseline`, the action's `baseline: auto`) are pooled over the runs that measured what
 * this run measures (compare/pool-baselines.ts); a single report the user named is used as given.
 */

import { agentUsesModel } from "../agents/registry.js";
import {
  type BaselineCandidate,
  type ExcludedBaseline,
  type PooledBaseline,
  type PoolTarget,
  poolBaselines,
  type RunIdentity,
  sameMeasurement,
} from "../compare/pool-baselines.js";
import { sandboxUsedField } from "../results/sandbox-used.js";
import { scenarioKey } from "../results/scenario-key.js";
import type { Report } from "../results/types.js";
import type { SandboxMode, Scenario } from "../scenario/types.js";
import { HARNESS_VERSION } from "../version.js";
import type { BaselineCounts, RunOptions } from "./options.js";
import { isAgentMatrix, planTrials, runEntries } from "./plan.js";
import { hashEvaluationSettings } from "./settings-hash.js";

/** What the run will record in its report's `run` (the fields pooling compares), before it runs. */
export function runIdentityOf(options: RunOptions): RunIdentity {
  if (isAgentMatrix(options)) return agentMatrixIdentityOf(options);
  // A replay of several recorded runs is a matrix of the models they recorded.
  const namesModels =
    agentUsesModel(options.agent) || (options.agent === "replay" && options.models.length > 1);
  return {
    agent: options.agent,
    model: namesModels ? options.model : null,
    ...(namesModels && options.models.length > 1 ? { models: options.models } : {}),
    judge_model: options.judgeModel,
    harness_version: HARNESS_VERSION,
    evaluation_hash: hashEvaluationSettings(options),
  };
}

/**
 * An agent matrix's identity: its agents, its entries (each agent with each of its models; an
 * agent without a model has none), and every model its agents run with.
 */
function agentMatrixIdentityOf(options: RunOptions): RunIdentity {
  const entries = runEntries(options).map(({ agent, model }) => ({
    agent,
    model: agentUsesModel(agent) ? model : null,
  }));
  const models = [...new Set(entries.flatMap((entry) => (entry.model ? [entry.model] : [])))];
  return {
    agent: options.agent,
    agents: [...options.agents],
    entries,
    model: models[0] ?? null,
    ...(models.length > 1 ? { models } : {}),
    judge_model: options.judgeModel,
    harness_version: HARNESS_VERSION,
    evaluation_hash: hashEvaluationSettings(options),
  };
}

/** The run's pool target: its identity and every scenario × variant (× model) it plans, with content hashes. */
export function poolTargetOf(
  scenarios: readonly Scenario[],
  options: RunOptions,
  /** The sandboxes the run will use, once its preflight settled `auto` (SandboxSelector.selected). */
  sandboxUsed: SandboxMode[] = [],
): PoolTarget {
  const entries = new Map<string, PoolTarget["scenarios"][number]>();
  for (const planned of planTrials([...scenarios], { ...options, trials: 1, shard: null })) {
    entries.set(planned.scenarioKey, {
      id: planned.scenario.id,
      variant: planned.variant?.name ?? null,
      ...(planned.inAgentMatrix ? { agent: planned.agent } : {}),
      ...(planned.inMatrix && (!planned.inAgentMatrix || agentUsesModel(planned.agent))
        ? { model: planned.model }
        : {}),
      content_hash: planned.scenario.contentHash,
      measurement_hash: planned.scenario.measurementHash,
    });
  }
  return {
    run: { ...runIdentityOf(options), ...sandboxUsedField([...sandboxUsed].sort()) },
    scenarios: [...entries.values()],
  };
}

export interface RunBaseline {
  /** What the run compares with and estimates its costs from; null when no report could be used. */
  report: Report | null;
  /** Labels of the reports in `report` (newest first when pooled). */
  used: string[];
  /** Runs or scenarios left out of the pool, with the reason (none when a single report is used as given). */
  excluded: ExcludedBaseline[];
  /** Per planned scenario key whose content the baseline measured too: its evaluated trials and passes. */
  counts: Record<string, BaselineCounts>;
  /** Pooled only: each used run's counts per scenario key (runs are clusters; the decision needs them). */
  runCounts?: PooledBaseline["runCounts"];
}

/**
 * One candidate with `pool: false` is used whatever agent or model made it (the run compares with
 * the report the user named); otherwise the candidates are pooled over the runs that measured what
 * this run measures. Either way only scenarios whose measurement is the planned scenario's are
 * compared (the others are listed as left out), and only they give the adaptive screen counts.
 */
export function settleBaseline(
  candidates: readonly BaselineCandidate[],
  /** The planned run (poolTargetOf), or a finished report (a merge of shards). */
  target: PoolTarget,
  {
    pool,
    rejected = [],
  }: {
    pool: boolean;
    /** Reports refused before pooling (not valid reports), listed first among the exclusions. */
    rejected?: readonly ExcludedBaseline[];
  },
): RunBaseline {
  const [single] = candidates;
  const asGiven = !pool && candidates.length === 1 && single !== undefined && rejected.length === 0;
  const pooled = poolBaselines(candidates, target, { matchRun: !asGiven });
  if (asGiven) {
    // The report itself, so the comparison still sees its removed and renamed scenarios; the
    // decision compares only the scenarios that measured the same thing (compare/pairing.ts) and
    // lists the others.
    return {
      report: single.report,
      used: [single.label],
      excluded: pooled.excluded,
      counts: countsFor(single.report, target),
    };
  }
  return {
    report: pooled.report,
    used: pooled.used,
    excluded: [...rejected, ...pooled.excluded],
    runCounts: pooled.runCounts,
    counts: pooled.report ? countsFor(pooled.report, target) : {},
  };
}

/** The baseline's evaluated trials and passes for each target scenario whose measurement it measured too. */
function countsFor(report: Report, target: PoolTarget): Record<string, BaselineCounts> {
  const wanted = new Map(target.scenarios.map((s) => [scenarioKey(s), s]));
  const counts: Record<string, BaselineCounts> = {};
  for (const scenario of report.scenarios) {
    const key = scenarioKey(scenario);
    const planned = wanted.get(key);
    if (!planned || !sameMeasurement(scenario, planned)) continue;
    const { passed, failed } = scenario.summary;
    counts[key] = { passed, trials: passed + failed };
  }
  return counts;
}
