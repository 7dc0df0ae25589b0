/**
 * The run stage of `mode: run`: the runner's sandbox set up, the inputs turned into the run's
 * settings, then the pipeline's run of scenarios (run/pipeline.ts) with its progress in the log.
 */
import path from "node:path";
import type { AgentName } from "../agents/types.js";
import type { ProviderName } from "../model/provider.js";
import { formatUsd } from "../render/format.js";
import type { TrialReport } from "../results/types.js";
import { produceSuiteRun } from "../run/pipeline.js";
import { runAgents } from "../run/plan.js";
import { type PreparedRun, prepareRun } from "../run/prepare.js";
import type { ProgressEvent } from "../run/suite.js";
import { expandScenarioPatterns } from "../scenario/patterns.js";
import type { ActionFolders, ActionRun, Log, ProducedRun } from "./action-run.js";
import { agentCliOf, provideAgentCli } from "./agent-cli-install.js";
import { type ActionBaseline, settleActionBaseline } from "./baseline.js";
import { ACTION_SETTING_NAMES, type ActionSettings, actionKeyRemedy } from "./inputs.js";
import type { RunFrom } from "./run-source.js";
import { restoreSandboxSetup, setUpSandboxFor } from "./sandbox-setup.js";

/** Runs the scenarios as `source` says, with the runner's sandbox set up for the run and restored after. */
export async function runScenarios(
  run: ActionRun,
  source: RunFrom,
  folders: ActionFolders,
): Promise<ProducedRun> {
  const machine = { runProgram: run.deps.runProgram, env: run.deps.env };
  const setup = await setUpSandboxFor(source.runSettings, machine, run.log);
  try {
    return await runWithSandboxSetUp(run, source, folders);
  } finally {
    // The runner's AppArmor and sysctl as they were, whatever happened to the run.
    await restoreSandboxSetup(setup, machine, run.log);
  }
}

async function runWithSandboxSetUp(
  run: ActionRun,
  { runSettings: settings, baseline, replayFrom }: RunFrom,
  folders: ActionFolders,
): Promise<ProducedRun> {
  const { context, deps, log } = run;
  const produced = await produceSuiteRun<ActionBaseline>({
    prepare: () => prepareActionRun({ ...run, settings }, folders, replayFrom),
    settle: (target) => settleActionBaseline(baseline, target, run),
    ports: async (prepared, settled) => {
      log.info(describeRunStart(settings, prepared.scenarios.length, Boolean(settled?.report)));
      return {
        now: deps.now,
        ...(deps.signal ? { signal: deps.signal } : {}),
        git: { sha: context.sha, ref: context.ref },
        onProgress: createProgressLog(settings, log),
      };
    },
  });
  return { ...produced, baseline };
}

/** The inputs as the run's settings, the agent's CLI installed when it runs one, then the shared setup. */
async function prepareActionRun(
  { settings, context, deps, log }: ActionRun,
  folders: ActionFolders,
  replayFrom: string | null,
): Promise<PreparedRun> {
  // The input, else the environment's, as the CLI's --base-url: for the agent, claude-code's proxy and the judge.
  const baseURL = settings.baseURL ?? (deps.env.ANTHROPIC_BASE_URL || null);
  const baseURLs: Record<ProviderName, string | null> = {
    anthropic: baseURL,
    openai: settings.openaiBaseURL ?? (deps.env.OPENAI_BASE_URL || null),
  };
  const geminiBaseURL = settings.geminiBaseURL ?? (deps.env.GOOGLE_GEMINI_BASE_URL || null);
  // Before a possible install: a pattern that matches nothing should not wait for npm.
  const patterns = await expandScenarioPatterns(settings.scenarios, folders.workDir, 'input "scenarios"');
  // Each agent CLI of the run (one, or an agent matrix's), found or installed once.
  const agentBinaries: Partial<Record<AgentName, string>> = {};
  for (const agent of runAgents(settings)) {
    const cli = agentCliOf(agent);
    if (!cli) continue;
    agentBinaries[agent] = await provideAgentCli(cli, {
      env: deps.env,
      installDir: path.join(context.tempDir, "llm-tool-test", agent),
      runProgram: deps.runProgram,
      log: log.info,
      workspace: context.workspace,
    });
  }
  const matrix = settings.agents.length > 1;
  const agentBinary = matrix ? undefined : agentBinaries[settings.agent];
  return prepareRun(
    {
      ...patterns,
      cwd: folders.workDir,
      tags: settings.tags,
      tier: settings.tier,
      agent: settings.agent,
      apiKey: settings.apiKey || null,
      baseURL,
      openai: { apiKey: settings.openaiApiKey || null, baseURL: baseURLs.openai },
      gemini: { apiKey: settings.geminiApiKey || null, baseURL: geminiBaseURL },
      ...(agentBinary ? { agentBinary } : {}),
      ...(matrix ? { agentBinaries, agentEndpoints: settings.agentEndpoints } : {}),
      judgeModel: settings.judgeModel,
      // The action always runs in CI: `auto` never falls back to running agents unsandboxed.
      failClosed: true,
      options: {
        model: settings.model,
        models: settings.models,
        agents: settings.agents,
        agentModels: settings.agentModels,
        replayFrom: replayFrom ? [replayFrom] : [],
        outDir: folders.outDir,
        trials: settings.trials,
        extraTrials: settings.extraTrials,
        concurrency: settings.concurrency,
        sandbox: settings.sandbox,
        shard: settings.shard,
        maxCostUsd: settings.maxCostUsd,
        agentCommand: settings.agentCommand,
        bashkitHome: settings.bashkitHome,
        ...(settings.modelTimeoutMs !== undefined ? { modelTimeoutMs: settings.modelTimeoutMs } : {}),
      },
      describeNoMatch: (loaded) =>
        `no scenario left to run: ${loaded} loaded from input "scenarios", none matching` +
        `${settings.tags.length ? ` tags ${settings.tags.join(", ")}` : ""}${settings.tier !== null ? ` tier <= ${settings.tier}` : ""}`,
    },
    {
      env: deps.env,
      createModelClient: (apiKey, concurrency, attemptTimeoutMs, provider, agentBaseURL) =>
        deps.createModelClient({
          provider,
          apiKey,
          concurrency,
          attemptTimeoutMs,
          baseURL: agentBaseURL ?? baseURLs[provider],
          openaiApi: settings.openaiApi,
        }),
      keyRemedy: actionKeyRemedy,
      settingNames: ACTION_SETTING_NAMES,
      note: (note) => log.info(`Note: ${note}.`),
      warn: (warning) => log.warn(warning),
    },
  );
}

/** The log's line before the first trial: how many scenarios, with what, how many trials. */
function describeRunStart(settings: ActionSettings, scenarios: number, hasBaselineCounts: boolean): string {
  const shard = settings.shard ? `, shard ${settings.shard.index}/${settings.shard.count}` : "";
  const extra =
    hasBaselineCounts && settings.extraTrials > 0
      ? `, up to ${settings.extraTrials} more for scenarios that do worse than the baseline`
      : "";
  const who =
    settings.agents.length > 1 ? `the agents ${settings.agents.join(", ")}` : `the ${settings.agent} agent`;
  return `Running ${scenarios} scenario(s) with ${who} (${settings.trials} trial(s) each unless a scenario says otherwise${extra}, ${settings.concurrency} at once${shard}).`;
}

/** The run's progress as log lines: the plan, each trial's end, early stops, notes and extra trials. */
function createProgressLog(settings: ActionSettings, log: Log): (event: ProgressEvent) => void {
  return (event) => {
    if (event.type === "plan") {
      const estimate =
        event.estimatedCostUsd === null
          ? "no cost estimate yet (no baseline costs)"
          : `estimated cost ${formatUsd(event.estimatedCostUsd)}`;
      const cap = settings.maxCostUsd === null ? "" : `, budget ${formatUsd(settings.maxCostUsd)}`;
      log.info(`Planned ${event.trials} trial(s) over ${event.scenarios} scenario(s): ${estimate}${cap}.`);
    }
    if (event.type === "trial_end")
      log.info(describeTrialEnd(event.key, event.report, event.done, event.total));
    if (event.type === "stopping")
      log.warn(`Stopping early: ${event.reason}. Trials not started are reported as skipped.`);
    if (event.type === "note") log.info(`Note: ${event.message}.`);
    if (event.type === "extended") {
      log.info(
        `Extra trials: ${event.scenarioKey} gets ${event.trials} more (its first trials passed less often than the baseline's); ${event.total} trial(s) planned now.`,
      );
    }
  };
}

function describeTrialEnd(key: string, trial: TrialReport, done: number, total: number): string {
  const mark =
    trial.outcome === "pass" ? "✓" : trial.outcome === "fail" ? "✗" : trial.outcome === "error" ? "!" : "-";
  const why = trial.reason ? `: ${trial.reason.split("\n")[0]}` : "";
  return `[${done}/${total}] ${mark} ${key} ${trial.outcome}${why}`;
}
