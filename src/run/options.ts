import type { AgentName } from "../agents/types.js";
import { DEFAULT_ATTEMPT_TIMEOUT_MS } from "../model/model-client.js";
import { DEFAULT_PRICE_TABLE, mergePriceTable } from "../model/pricing.js";
import type { ModelPrice } from "../results/types.js";
import { bashkitHomeNamed } from "../scenario/bashkit-home.js";
import type { HomeLayout, SandboxSetting, Scenario } from "../scenario/types.js";
import { DEFAULT_PASS_K } from "../stats/pass-at-k.js";
import { DEFAULT_EXTRA_TRIALS } from "../stats/regression-decision.js";

export { DEFAULT_EXTRA_TRIALS };

export const DEFAULT_MODEL = "claude-haiku-4-5";
const DEFAULT_MAX_TURNS = 20;
const DEFAULT_TRIAL_TIMEOUT_MS = 300_000;
const DEFAULT_COMMAND_TIMEOUT_MS = 60_000;
const DEFAULT_GATE_TIMEOUT_MS = 60_000;
const DEFAULT_OUTPUT_CAP_BYTES = 256 * 1024;
export const DEFAULT_TRIALS = 3;
/** bwrap where it works here, else local with a warning that the agent was not isolated. */
const DEFAULT_SANDBOX: SandboxSetting = "auto";

/** A scenario's sandbox setting in a run: the run's override, else the scenario's, else the default. */
export function sandboxSettingOf(
  scenario: Pick<Scenario, "sandbox">,
  override: SandboxSetting | null | undefined,
): SandboxSetting {
  return override ?? scenario.sandbox ?? DEFAULT_SANDBOX;
}

/**
 * The home layout of a trial (where the agent starts, what HOME is): a bashkit dataset's task gets
 * the layout asked for (`--bashkit-home`), else that of the bashkit that recorded the model's
 * replayed run, else its own (the current bashkit's). Other scenarios keep theirs (none: the
 * sandbox's own).
 */
export function homeLayoutOf(
  scenario: Pick<Scenario, "machine">,
  model: string,
  options: Pick<RunOptions, "bashkitHome" | "recordedBashkitHomes">,
): HomeLayout | undefined {
  const own = scenario.machine?.home;
  if (!own || !bashkitHomeNamed(own.name)) return own;
  const chosen = options.bashkitHome ?? options.recordedBashkitHomes[model];
  return (chosen ? bashkitHomeNamed(chosen) : undefined) ?? own;
}

/** A baseline scenario's evaluated trials (errors and skips left out) and how many of them passed. */
export interface BaselineCounts {
  passed: number;
  trials: number;
}

const DEFAULT_MODEL_TIMEOUT_MS = DEFAULT_ATTEMPT_TIMEOUT_MS;

/** Everything that decides what a run does, read once by the CLI or the action. */
export interface RunOptions {
  agent: AgentName;
  /** Why `agent` runs when none was asked for (see chooseDefaultAgent); null when it was chosen. */
  agentReason: string | null;
  /** The `command` agent's template (`--agent-command`): {prompt}, {workdir}, {model}, {system}. */
  agentCommand: string | null;
  /** A model matrix (`--model` given several times): every scenario runs with each. Empty: `model` alone. */
  models: string[];
  /**
   * An agent matrix (`--agent` given several times, two or more): every scenario runs with each
   * agent and each of its models (`agentModels`, else `models`/`model`). Empty: `agent` alone.
   * `agent` is then the first of them.
   */
  agents: AgentName[];
  /** In an agent matrix, the models of the agents given their own (`--model AGENT=ID`). */
  agentModels: Partial<Record<AgentName, string[]>>;
  /**
   * The `replay` agent's recordings (`--replay-from`, repeatable): each a run's output folder or a
   * bashkit-eval results file. Several, one per model, replay as a model matrix of their models.
   */
  replayFrom: string[];
  /**
   * The bashkit home layout every bashkit dataset task gets (`--bashkit-home`, a name from
   * scenario/bashkit-home.ts); null: each gets its replayed recording's, else the current bashkit's.
   */
  bashkitHome: string | null;
  /** Per model, the home layout of the bashkit that recorded its replayed run (bashkit-eval results files). */
  recordedBashkitHomes: Record<string, string>;
  /** Default model; a scenario's `agent.model` wins. */
  model: string;
  judgeModel: string | null;
  /** Allow the judge to be the tested model. */
  forceJudge: boolean;
  maxTurns: number;
  /** Default trials per scenario; a scenario's `trials` wins. */
  trials: number;
  trialTimeoutMs: number;
  commandTimeoutMs: number;
  gateTimeoutMs: number;
  /** One attempt of a model call (the agent's and the judge's); a hung attempt is retried. */
  modelTimeoutMs: number;
  outputCapBytes: number;
  /** Trials in flight at once. */
  concurrency: number;
  /** Overrides every scenario's sandbox setting when set (otherwise the scenario's, else DEFAULT_SANDBOX). */
  sandbox: SandboxSetting | null;
  keepWorkDirs: boolean;
  outDir: string;
  prices: Record<string, ModelPrice>;
  shard: { index: number; count: number } | null;
  maxCostUsd: number | null;
  /** Finish the interrupted run in `outDir` instead of starting afresh. */
  resume: boolean;
  /** The k of pass@k and pass^k in every scenario summary. */
  passK: number;
  /**
   * Adaptive extra trials: a scenario whose first trials passed less often than the baseline's gets
   * this many more (0: never). Needs `baselineCounts`.
   */
  extraTrials: number;
  /** The (pooled) baseline per scenario key, for the adaptive screen; null without a baseline. */
  baselineCounts: Record<string, BaselineCounts> | null;
}

export function defaultRunOptions(overrides: Partial<RunOptions> & { outDir: string }): RunOptions {
  // An explicit `undefined` (a caller's optional field passed on) means "the default", not "none".
  const given = Object.fromEntries(
    Object.entries(overrides).filter(([, value]) => value !== undefined),
  ) as Partial<RunOptions> & { outDir: string };
  return {
    agent: "oracle",
    agentReason: null,
    agentCommand: null,
    models: [],
    agents: [],
    agentModels: {},
    replayFrom: [],
    bashkitHome: null,
    recordedBashkitHomes: {},
    model: DEFAULT_MODEL,
    judgeModel: null,
    forceJudge: false,
    maxTurns: DEFAULT_MAX_TURNS,
    trials: DEFAULT_TRIALS,
    trialTimeoutMs: DEFAULT_TRIAL_TIMEOUT_MS,
    commandTimeoutMs: DEFAULT_COMMAND_TIMEOUT_MS,
    gateTimeoutMs: DEFAULT_GATE_TIMEOUT_MS,
    modelTimeoutMs: DEFAULT_MODEL_TIMEOUT_MS,
    outputCapBytes: DEFAULT_OUTPUT_CAP_BYTES,
    concurrency: 1,
    sandbox: null,
    keepWorkDirs: false,
    shard: null,
    maxCostUsd: null,
    resume: false,
    passK: DEFAULT_PASS_K,
    extraTrials: DEFAULT_EXTRA_TRIALS,
    baselineCounts: null,
    ...given,
    // Given prices extend or override the built-in table; they never replace it wholesale.
    prices: mergePriceTable(DEFAULT_PRICE_TABLE, given.prices ?? {}),
  };
}
