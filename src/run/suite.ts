import { randomUUID } from "node:crypto";
import { defaultMaxListeners, setMaxListeners } from "node:events";
import { chmod, mkdir } from "node:fs/promises";
import { agentGuidanceIntake, agentUsesModel } from "../agents/registry.js";
import type { Agent, AgentName } from "../agents/types.js";
import { ConfigError } from "../errors.js";
import type { ModelClient } from "../model/model-client.js";
import { buildScenarioReport, scenarioMetaOf } from "../results/aggregate.js";
import { assembleReport } from "../results/assemble-report.js";
import { intakeSeenInTrials } from "../results/guidance-delivery.js";
import { collectSandboxesUsed, sandboxUsedField } from "../results/sandbox-used.js";
import type { Report, RunInfo, ScenarioReport, TrialReport } from "../results/types.js";
import { findSameUserReason } from "../sandbox/agent-account.js";
import {
  createSandboxSelector,
  isCiEnvironment,
  type SandboxSelector,
} from "../sandbox/sandbox-selection.js";
import { collectSecretValues, createSecretRedactor, mergeSecretValues } from "../sandbox/secrets.js";
import { warmSandboxRunners } from "../sandbox/trial-sandbox.js";
import type { Scenario } from "../scenario/types.js";
import { HARNESS_VERSION } from "../version.js";
import {
  type AdaptiveDesign,
  adaptiveDesignOf,
  createExtraTrialScheduler,
  type ExtraTrialScheduler,
} from "./adaptive.js";
import { runIdentityOf } from "./baseline.js";
import { type Budget, createBudget } from "./budget.js";
import {
  checkResumable,
  loadFinishedTrials,
  readManifest,
  resumedDesign,
  writeManifest,
} from "./manifest.js";
import { type RunOptions, sandboxSettingOf } from "./options.js";
import { isAgentMatrix, type PlannedTrial, planTrials, runAgents } from "./plan.js";
import { hashSettings } from "./settings-hash.js";
import { runTrial, skippedTrial } from "./trial.js";

export type ProgressEvent =
  | { type: "plan"; trials: number; scenarios: number; resumed: number; estimatedCostUsd: number | null }
  | { type: "trial_start"; key: string; scenarioKey: string; trial: number }
  | { type: "turn"; key: string; turn: number }
  | { type: "trial_end"; key: string; report: TrialReport; done: number; total: number }
  | { type: "stopping"; reason: string }
  /** The screen gave a scenario `trials` extra trials; the run now has `total`. */
  | { type: "extended"; scenarioKey: string; trials: number; total: number }
  /** Something the user should know about the run's design (why it gets no extra trials). */
  | { type: "note"; message: string };

export interface SuitePorts {
  /** The run's agent; in an agent matrix, the first, with every agent in `agents`. */
  agent: Agent;
  /** An agent matrix's agents by name (each trial runs with its entry's); absent: `agent` runs every trial. */
  agents?: Partial<Record<AgentName, Agent>>;
  judgeClient?: ModelClient | null;
  /** The parent process environment: the sandbox builds the agent's env from it, minus secrets. */
  env: Record<string, string | undefined>;
  /** Picks each trial's sandbox mode (`auto`: bwrap probed once); default a new one on env.PATH. */
  sandboxes?: SandboxSelector;
  now?: () => number;
  /** Abort with reason "cancelled" to stop: no new trials start, running ones are killed. */
  signal?: AbortSignal;
  onProgress?: (event: ProgressEvent) => void;
  /** Git facts for the report, when known. */
  git?: { sha: string | null; ref: string | null };
  /** A baseline report (pooled or single, see baseline.ts): its per-trial costs estimate this run's
   * spend for the budget. The adaptive screen uses `options.baselineCounts`, settled from the same
   * report; the run is compared with it afterwards, by the decide stage (compare/decide-run.ts). */
  baseline?: Report | null;
}

/** A finished run: its report (not yet written: the decide and write stages follow) and its design. */
export interface SuiteRun {
  report: Report;
  /**
   * The extra trials the run's design gave a screened scenario (0 without an adaptive design), for
   * the decision's design line: the power of the design the run had, not of the extra trials it
   * happened to spend.
   */
  designExtraTrials: number;
}

/** Consecutive infrastructure errors after which the run stops instead of failing for hours. */
function breakerThreshold(concurrency: number): number {
  return Math.max(3, Math.min(concurrency, 10));
}

/**
 * The run stage of the core: scenarios in, a report out. Each trial's result is written into
 * `options.outDir` as it finishes; the report is built from them. Deciding the run
 * (compare/decide-run.ts) and writing its report files (write-outputs.ts) are the stages after.
 * A failing or broken trial is data in the report; only configuration errors throw.
 */
export async function runSuite(
  scenarios: Scenario[],
  given: RunOptions,
  ports: SuitePorts,
): Promise<SuiteRun> {
  const options = withAgentOfRecord(given, ports.agent);
  checkMatrixAgents(options, ports);
  const now = ports.now ?? Date.now;
  const signal = ports.signal ?? new AbortController().signal;
  // Every trial in flight listens on the run's signal (a few listeners each, removed when it ends):
  // from -j 4 on that passes Node's default of 10, whose warning users would read as a leak.
  setMaxListeners(Math.max(defaultMaxListeners, 4 * options.concurrency + 10), signal);
  const redact = createRunRedactor(scenarios, ports.env);
  await mkdir(options.outDir, { recursive: true });
  await closeOutputToAgents(scenarios, options, ports.env.PATH ?? "");
  const sandboxes =
    ports.sandboxes ??
    createSandboxSelector({
      searchPath: ports.env.PATH ?? "",
      env: ports.env,
      failClosed: isCiEnvironment(ports.env),
    });

  const run = await startRun(scenarios, options, ports, now);
  const stopReason = await runTrials(run, { options, ports, now, signal, redact, sandboxes });
  return finishRun(run, stopReason, options, { ...ports, sandboxes }, now);
}

/**
 * Where agents may run in the local sandbox as accounts of their own, the output folder becomes the
 * harness's alone (0700): an agent must not read what other trials wrote there (another trial's
 * transcript holds its solution) any more than write it.
 */
async function closeOutputToAgents(
  scenarios: Scenario[],
  options: RunOptions,
  searchPath: string,
): Promise<void> {
  const mayRunLocally = scenarios.some((scenario) => sandboxSettingOf(scenario, options.sandbox) !== "bwrap");
  if (!mayRunLocally || (await findSameUserReason(searchPath)) !== null) return;
  await chmod(options.outDir, 0o700);
}

/**
 * The report records the agent that runs: `options.agent` follows `ports.agent` (a library caller
 * who set only the ports would otherwise get a report that says `oracle`, with no model).
 */
function withAgentOfRecord(options: RunOptions, agent: Agent): RunOptions {
  if (options.agent === agent.name || isAgentMatrix(options)) return options;
  return { ...options, agent: agent.name, agentReason: null };
}

/** An agent matrix runs each agent it names: a caller must have built every one (prepareRun does). */
function checkMatrixAgents(options: RunOptions, ports: SuitePorts): void {
  if (!isAgentMatrix(options)) return;
  const missing = runAgents(options).filter((name) => ports.agents?.[name]?.name !== name);
  if (missing.length > 0) {
    throw new ConfigError(
      `the agent matrix names ${missing.join(", ")}, but no such agent was given (ports.agents); build each with createAgent`,
      "agents",
    );
  }
}

/**
 * Redacts the run's secret values: the parent's, and those the scenarios' authors wrote into the
 * target's env (a password in a `DATABASE_URL`), which the agent sees and may print in any form.
 * The run's events and its written outputs are redacted with it.
 */
export function createRunRedactor(
  scenarios: readonly Scenario[],
  env: Record<string, string | undefined>,
): (text: string) => string {
  const lists = [collectSecretValues(env)];
  for (const scenario of scenarios) {
    lists.push(collectSecretValues(scenario.target.env));
    for (const variant of scenario.variants) lists.push(collectSecretValues(variant.env ?? {}));
  }
  return createSecretRedactor(mergeSecretValues(...lists));
}

/** A run as opened (or resumed): who it is, and what it has decided to run so far. */
interface StartedRun {
  runId: string;
  startedAt: string;
  settingsHash: string;
  design: AdaptiveDesign | null;
  /** Every trial the run has decided to run: the first ones, then extra ones as the screen adds them. */
  plan: PlannedTrial[];
  /** The finished trials, by key. */
  results: Map<string, TrialReport>;
  extra: ExtraTrialScheduler;
}

/** Plans the first trials, opens the run (its manifest) and, on a resume, takes back what finished. */
async function startRun(
  scenarios: Scenario[],
  options: RunOptions,
  ports: SuitePorts,
  now: () => number,
): Promise<StartedRun> {
  const firstTrials = planTrials(scenarios, options);
  const settingsHash = hashSettings(options, scenarios);
  const adaptive = adaptiveDesignOf(firstTrials, options);
  const { runId, startedAt, design, results } = await openRun(
    options,
    firstTrials,
    settingsHash,
    adaptive.design,
    now,
  );
  if (adaptive.note) ports.onProgress?.({ type: "note", message: adaptive.note });

  const plan = [...firstTrials];
  const extra = createExtraTrialScheduler(firstTrials, design, options.trials);
  if (options.resume) {
    // The screen's decisions for scenarios whose first trials finished before the interruption.
    const scheduled = extra.screenFinished(results);
    plan.push(...scheduled);
    for (const [key, report] of await loadFinishedTrials(options.outDir, scheduled)) results.set(key, report);
  }
  return { runId, startedAt, settingsHash, design, plan, results, extra };
}

/** What every trial of a run is run with. */
interface TrialSettings {
  options: RunOptions;
  ports: SuitePorts;
  now: () => number;
  signal: AbortSignal;
  redact: (text: string) => string;
  sandboxes: SandboxSelector;
}

/** What the workers share while the trials run. */
interface TrialPool extends TrialSettings {
  run: StartedRun;
  budget: Budget;
  /** The trials waiting to start, in order. */
  queue: PlannedTrial[];
  inFlight: number;
  done: number;
  consecutiveInfraErrors: number;
  /** Each finished trial's sandbox cleanup, awaited before the report is written. */
  cleanups: Promise<void>[];
  /** Why the run stopped early; null while it runs on. */
  stopReason: string | null;
}

/**
 * Runs the planned trials (and the extra ones the screen adds) with `options.concurrency` workers,
 * within the budget, until they are done or the run stops. Returns why it stopped, if it did.
 */
async function runTrials(run: StartedRun, settings: TrialSettings): Promise<string | null> {
  const { options, ports } = settings;
  const pending = run.plan.filter((t) => !run.results.has(t.key));
  const budget = createBudget(options.maxCostUsd, ports.baseline ?? null, [...run.results.values()]);
  ports.onProgress?.({
    type: "plan",
    trials: run.plan.length,
    scenarios: new Set(run.plan.map((t) => t.scenarioKey)).size,
    resumed: run.results.size,
    estimatedCostUsd: budget.estimateTotal(pending),
  });

  const pool: TrialPool = {
    ...settings,
    run,
    budget,
    queue: [...pending],
    inFlight: 0,
    done: run.results.size,
    consecutiveInfraErrors: 0,
    cleanups: [],
    stopReason: null,
  };
  settings.signal.addEventListener("abort", () => stopPool(pool, "the run was cancelled"), { once: true });
  // Ready by the time the first trials' agents run their first commands.
  if (pending.length > 0) await warmRunners(pending, settings);
  // With a design, idle workers wait for extra trials instead of leaving the pool.
  const workers = run.design ? options.concurrency : Math.min(options.concurrency, pending.length);
  await Promise.all(Array.from({ length: Math.max(1, workers) }, () => poolWorker(pool)));
  await Promise.all(pool.cleanups);
  return pool.stopReason;
}

/** The process runners the pending trials' sandbox modes use, started now (see warmSandboxRunners). */
async function warmRunners(pending: PlannedTrial[], { options, sandboxes }: TrialSettings): Promise<void> {
  const settings = new Set(pending.map((trial) => sandboxSettingOf(trial.scenario, options.sandbox)));
  const modes = await Promise.all(
    [...settings].map(async (setting) => (await sandboxes.select(setting)).mode),
  );
  await warmSandboxRunners(modes, Math.min(options.concurrency, pending.length));
}

function stopPool(pool: TrialPool, reason: string): void {
  if (pool.stopReason) return;
  pool.stopReason = reason;
  pool.ports.onProgress?.({ type: "stopping", reason });
}

/** One worker: takes the next trial the budget admits, until the queue is empty or the run stops. */
async function poolWorker(pool: TrialPool): Promise<void> {
  const { budget, queue } = pool;
  for (;;) {
    if (pool.signal.aborted) stopPool(pool, "the run was cancelled");
    if (pool.stopReason) return;
    const planned = queue[0];
    if (!planned) {
      // A running trial may still complete a scenario's first trials and add extra ones.
      if (pool.inFlight === 0) return;
      await budget.waitForChange();
      continue;
    }
    const admission = budget.admit(planned, pool.inFlight);
    if (admission === "wait") {
      await budget.waitForChange();
      continue;
    }
    if (admission === "over") {
      stopPool(pool, `the cost budget of $${pool.options.maxCostUsd} would be exceeded`);
      return;
    }
    queue.shift();
    await runPooledTrial(pool, planned);
  }
}

/** Runs one admitted trial and records it: its result, its cost, the breaker, the screen's extra trials. */
async function runPooledTrial(pool: TrialPool, planned: PlannedTrial): Promise<void> {
  const { ports, budget, run } = pool;
  pool.inFlight += 1;
  budget.start(planned);
  ports.onProgress?.({
    type: "trial_start",
    key: planned.key,
    scenarioKey: planned.scenarioKey,
    trial: planned.trial,
  });
  try {
    const { report, fatalError, cleanedUp } = await runTrial(planned, pool.options, {
      agent: agentOfTrial(ports, planned),
      judgeClient: ports.judgeClient ?? null,
      parentEnv: ports.env,
      redact: pool.redact,
      sandboxes: pool.sandboxes,
      now: pool.now,
      signal: pool.signal,
      onTurn: (turn) => ports.onProgress?.({ type: "turn", key: planned.key, turn }),
    });
    pool.cleanups.push(cleanedUp);
    run.results.set(planned.key, report);
    budget.finish(planned, report);
    pool.consecutiveInfraErrors = report.end_reason === "infra_error" ? pool.consecutiveInfraErrors + 1 : 0;
    if (fatalError) stopPool(pool, fatalError);
    if (pool.consecutiveInfraErrors >= breakerThreshold(pool.options.concurrency)) {
      stopPool(
        pool,
        `${pool.consecutiveInfraErrors} trials in a row ended in infrastructure errors (last: ${report.reason ?? "unknown"})`,
      );
    }
    pool.done += 1;
    ports.onProgress?.({
      type: "trial_end",
      key: planned.key,
      report,
      done: pool.done,
      total: run.plan.length,
    });
    // Scheduled even when the run is stopping: they are reported as skipped, and a resume runs them.
    scheduleExtraTrials(pool, run.extra.afterTrial(planned, run.results));
  } finally {
    pool.inFlight -= 1;
    budget.notify();
  }
}

/** The agent of a trial: its entry's in an agent matrix, else the run's one agent. */
function agentOfTrial(ports: SuitePorts, planned: PlannedTrial): Agent {
  if (!planned.inAgentMatrix) return ports.agent;
  const agent = ports.agents?.[planned.agent];
  if (!agent) throw new Error(`no agent ${planned.agent} was built for this agent matrix`);
  return agent;
}

function scheduleExtraTrials(pool: TrialPool, added: PlannedTrial[]): void {
  if (added.length === 0) return;
  pool.run.plan.push(...added);
  // Behind every first trial still waiting: under a budget, first trials matter more.
  pool.queue.push(...added);
  const first = added[0] as PlannedTrial;
  pool.ports.onProgress?.({
    type: "extended",
    scenarioKey: first.scenarioKey,
    trials: added.length,
    total: pool.run.plan.length,
  });
}

/** Reports the trials that never ran as skipped and builds the report. */
function finishRun(
  started: StartedRun,
  stopReason: string | null,
  options: RunOptions,
  ports: SuitePorts & { sandboxes: SandboxSelector },
  now: () => number,
): SuiteRun {
  const { plan, results } = started;
  // Trials that never started are reported as skipped, with the reason the run stopped.
  for (const planned of plan) {
    if (!results.has(planned.key)) {
      results.set(planned.key, skippedTrial(planned, `not run: ${stopReason ?? "the run stopped"}`));
    }
  }
  // Incomplete: a planned trial never ran, or was cut short by the stop. A stop that only kept new
  // trials from starting after every one had started (the breaker, the budget) leaves it complete.
  const incomplete = [...results.values()].some(
    (t) => t.outcome === "skipped" || (stopReason !== null && t.end_reason === "cancelled"),
  );
  const run: RunInfo = {
    id: started.runId,
    started_at: started.startedAt,
    ended_at: new Date(now()).toISOString(),
    ...runIdentityOf(options),
    git_sha: ports.git?.sha ?? null,
    git_ref: ports.git?.ref ?? null,
    settings_hash: started.settingsHash,
    pass_k: options.passK,
    extra_trials: started.design?.extraTrials ?? 0,
    price_table: options.prices,
    incomplete,
    shard: options.shard,
    ...(options.agentReason ? { agent_reason: options.agentReason } : {}),
    ...runWarningsOf(ports.sandboxes.warnings()),
    ...sandboxUsedField(collectSandboxesUsed(results.values())),
  };
  const report = assembleReport(
    run,
    groupByScenario(plan, results, started.extra, options.passK, (planned) => agentOfTrial(ports, planned)),
  );
  return { report, designExtraTrials: run.extra_trials ?? 0 };
}

/** What a reader of the report must not miss (the agent was not isolated); absent when nothing. */
function runWarningsOf(warnings: string[]): { warnings?: string[] } {
  return warnings.length > 0 ? { warnings } : {};
}

/**
 * A new run writes its manifest; a resumed one checks it and loads the finished first trials. The
 * adaptive design is the one the run started with.
 */
async function openRun(
  options: RunOptions,
  firstTrials: PlannedTrial[],
  settingsHash: string,
  requested: AdaptiveDesign | null,
  now: () => number,
): Promise<{
  runId: string;
  startedAt: string;
  design: AdaptiveDesign | null;
  results: Map<string, TrialReport>;
}> {
  if (options.resume) {
    const manifest = await readManifest(options.outDir);
    checkResumable(manifest, settingsHash, firstTrials, options.outDir);
    return {
      runId: manifest.run_id,
      startedAt: manifest.started_at,
      design: resumedDesign(manifest, requested, options.outDir),
      results: await loadFinishedTrials(options.outDir, firstTrials),
    };
  }
  const runId = randomUUID();
  const startedAt = new Date(now()).toISOString();
  await writeManifest(options.outDir, {
    manifest_version: 1,
    run_id: runId,
    started_at: startedAt,
    harness_version: HARNESS_VERSION,
    settings_hash: settingsHash,
    shard: options.shard,
    trial_keys: firstTrials.map((t) => t.key),
    adaptive: requested,
  });
  return { runId, startedAt, design: requested, results: new Map() };
}

function groupByScenario(
  plan: PlannedTrial[],
  results: Map<string, TrialReport>,
  extra: ExtraTrialScheduler,
  passK: number,
  agentOf: (planned: PlannedTrial) => Agent,
): ScenarioReport[] {
  const byScenario = new Map<string, PlannedTrial[]>();
  for (const planned of plan) {
    const list = byScenario.get(planned.scenarioKey) ?? [];
    list.push(planned);
    byScenario.set(planned.scenarioKey, list);
  }
  return [...byScenario.values()].map((trials) => {
    const first = trials[0] as PlannedTrial;
    const reports = trials.map((t) => results.get(t.key)).filter((r): r is TrialReport => r !== undefined);
    const meta = scenarioMetaOf(
      first.scenario,
      first.variant?.name ?? null,
      first.inMatrix && (!first.inAgentMatrix || agentUsesModel(first.agent)) ? first.model : null,
      first.inAgentMatrix ? first.agent : null,
      intakeSeenInTrials(agentGuidanceIntake(agentOf(first)), reports),
    );
    const extended = extra.isExtended(first.scenarioKey);
    return buildScenarioReport(
      {
        ...meta,
        first_trials: extra.firstTrialsOf(first.scenarioKey),
        ...(extended === undefined ? {} : { extended }),
      },
      reports,
      passK,
    );
  });
}
