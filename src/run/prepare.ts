/**
 * What the CLI and the action both do between reading their settings and running the suite:
 * load and filter the scenarios, set up the judge, check the targets and the sandbox, build the
 * model client and the agent, and settle the run's options. One place, so the two front ends
 * cannot drift apart; each keeps only its own reading of settings and its own rendering.
 */

import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { resolveCommandProgram } from "../agents/command.js";
import {
  AGENTS,
  type AgentDeps,
  agentApiKeyVariable,
  agentUsesHarnessModelClient,
  agentUsesModel,
  apiKeyRemedy,
  createAgent,
  describeMissingApiKey,
  describeModelRefusal,
} from "../agents/registry.js";
import type { Agent, AgentName } from "../agents/types.js";
import { ConfigError } from "../errors.js";
import { isSameModel, resolveJudgeModel } from "../evaluate/judge.js";
import { createAnthropicClient } from "../model/anthropic-client.js";
import { createAimdLimiter } from "../model/call-limiter.js";
import type { ProxyEnv } from "../model/http-dispatcher.js";
import type { ModelClient } from "../model/model-client.js";
import { createOpenAiClient, type OpenAiApiChoice } from "../model/openai-client.js";
import { lookupPrice, PRICE_TABLE_CHECKED_ON, type PriceTable } from "../model/pricing.js";
import {
  API_KEY_VARIABLES,
  createProviderRouter,
  PROVIDERS,
  type ProviderName,
  parseModelId,
  providerOfModel,
} from "../model/provider.js";
import { modelsOfRecordings, type RecordingSet, readRecordings } from "../results/read-recordings.js";
import { findSameUserReason, OWN_ACCOUNT_NOTE } from "../sandbox/agent-account.js";
import { createSandboxSelector, isCiEnvironment } from "../sandbox/sandbox-selection.js";
import { warmSandboxRunners } from "../sandbox/trial-sandbox.js";
import { PARENTS_OUT_OF_REACH } from "../sandbox/withdraw-environment.js";
import { bashkitHomeAt, bashkitHomeNamed } from "../scenario/bashkit-home.js";
import { filterScenarios } from "../scenario/filter.js";
import { loadScenarios } from "../scenario/load.js";
import { computeTreatment } from "../scenario/treatment.js";
import type { Scenario } from "../scenario/types.js";
import type { AgentEndpoints } from "./agent-scope.js";
import { DEFAULT_MODEL, defaultRunOptions, type RunOptions, sandboxSettingOf } from "./options.js";
import { modelsOfAgent, runAgents, runModels } from "./plan.js";
import { checkAgentAccountReach, checkSandbox, checkTargetBinaries } from "./preflight.js";
import { checkRecordedTasks } from "./recorded-tasks.js";
import { CLI_SETTING_NAMES, type SettingNames } from "./setting-names.js";
import type { SuitePorts } from "./suite.js";

/** A guidance file every scenario runs with (the CLI's `--variant NAME=FILE`). */
export interface GuidanceVariantFile {
  name: string;
  /** Absolute path. */
  file: string;
}

/** What decides the run besides the agent and the judge (settled by prepareRun); unset fields take their defaults. */
export type RunOptionSettings = Omit<Partial<RunOptions>, "agent" | "agentReason" | "judgeModel"> & {
  outDir: string;
};

/** The typed settings of one run, read by a front end from its flags or inputs. */
export interface RunSettings {
  /** Scenario files, folders or .jsonl datasets (absolute, or relative to `cwd`). */
  paths: string[];
  /** Absolute files to leave out (expandScenarioPatterns's `!pattern` exclusions). */
  exclude?: readonly string[];
  /** What the scenarios' relative paths and messages are relative to. */
  cwd: string;
  /** Keep scenarios with any of these tags (none: all). */
  tags: string[];
  /** Keep scenarios with tier <= this. */
  tier: number | null;
  /** Replace every scenario's own guidance variants with these files (none: keep them). */
  variants?: GuidanceVariantFile[];
  agent: AgentName;
  /** Why `agent` runs when none was asked for (chooseDefaultAgent); null or absent when it was chosen. */
  agentReason?: string | null;
  /** The Anthropic key. Null when not given (nor the OpenAI one): only agents that need no key can run, and judges are skipped. */
  apiKey: string | null;
  /** The real API base URL, for agents that call the API themselves (claude-code). */
  baseURL: string | null;
  /** The binary of the agent's CLI (claude-code, codex, gemini-cli, opencode); absent: the agent finds its own. */
  agentBinary?: string;
  /** In an agent matrix (`options.agents`), each CLI agent's binary, as the action provides them; absent: its own search. */
  agentBinaries?: Partial<Record<AgentName, string>>;
  /**
   * In an agent matrix, the base URLs given to one agent alone (`--base-url claude-code=URL`), by
   * API; the others take `baseURL`, `openai.baseURL` and `gemini.baseURL`.
   */
  agentEndpoints?: AgentEndpoints;
  /** OpenAI-compatible models (`openai:` ids): the key, and how the front end builds their client. */
  openai?: OpenAiSettings;
  /** The gemini-cli agent's key (GEMINI_API_KEY) and the Gemini API base URL (null: Google's). */
  gemini?: { apiKey: string | null; baseURL: string | null };
  /** The judge model asked for; LLM_TOOL_TEST_JUDGE in the environment is the fallback. */
  judgeModel: string | null;
  options: RunOptionSettings;
  /**
   * Fail closed (CI): `auto` where bwrap does not work stops the run with a ConfigError instead of
   * falling back to the local sandbox. Default: whether `CI` is set in the environment (isCiEnvironment).
   */
  failClosed?: boolean;
  /** The message when the filters leave no scenario, given how many were loaded. */
  describeNoMatch(loaded: number): string;
}

interface OpenAiSettings {
  /** OPENAI_API_KEY (null: `openai:` models cannot run). */
  apiKey: string | null;
  /** The real OpenAI-compatible base URL, for agents that call the API themselves (codex); null: OpenAI's. */
  baseURL?: string | null;
}

export interface PreparePorts {
  /** The parent environment: PATH for the checks, LLM_TOOL_TEST_JUDGE, the agent's environment. */
  env: Record<string, string | undefined>;
  /**
   * One provider's client, built for each provider with a key. `concurrency` bounds the calls in
   * flight (lowered on rate limits; each provider has its own limits); `attemptTimeoutMs` bounds
   * one attempt.
   */
  createModelClient(
    apiKey: string,
    concurrency: number,
    attemptTimeoutMs: number,
    provider: ProviderName,
    /** The base URL of one agent's own client in an agent matrix (`--base-url anthropic=URL`); absent: the run's. */
    baseURL?: string,
  ): ModelClient;
  /** How to give `provider`'s key where the user is (default: the environment variable, as on the command line). */
  keyRemedy?: (provider: ProviderName) => string;
  /** How the user gave the run's settings, for the notes and errors (default: the CLI's flags). */
  settingNames?: SettingNames;
  /** Says something the user should know that is not an error (a judge skipped). */
  note(message: string): void;
  /** Says what weakens the run's containment (an agent in local mode). */
  warn(message: string): void;
}

/** What runSuite needs; the front end adds its own ports (signal, progress, git, baseline). */
export interface PreparedRun {
  scenarios: Scenario[];
  options: RunOptions;
  ports: Required<Pick<SuitePorts, "agent" | "judgeClient" | "env" | "sandboxes">> &
    Pick<SuitePorts, "agents">;
}

/**
 * The agent a run uses when none is asked for, and why: a run without a key must not pass for a
 * model's. `apiKey` is the key of the model's provider (Anthropic's unless said).
 */
export function chooseDefaultAgent(
  apiKey: string | null | undefined,
  provider: ProviderName = "anthropic",
): { agent: AgentName; reason: string } {
  const variable = API_KEY_VARIABLES[provider];
  return apiKey
    ? { agent: "anthropic", reason: `${variable} is set` }
    : { agent: "oracle", reason: `no ${variable} set; this run used no model` };
}

/** Load → filter → guidance variants → judge → target and sandbox checks → model client → agent → options. */
export async function prepareRun(settings: RunSettings, ports: PreparePorts): Promise<PreparedRun> {
  const all = await loadScenarios(settings.paths, {
    cwd: settings.cwd,
    onWarning: ports.warn,
    ...(settings.exclude ? { exclude: settings.exclude } : {}),
  });
  const filtered = filterScenarios(all, {
    ...(settings.tags.length > 0 ? { tags: settings.tags } : {}),
    ...(settings.tier !== null ? { tier: settings.tier } : {}),
  });
  if (filtered.length === 0) throw new ConfigError(settings.describeNoMatch(all.length));
  const selected = await applyGuidanceVariants(filtered, settings.variants ?? []);
  const names = ports.settingNames ?? CLI_SETTING_NAMES;

  const recordings = await readReplaySources(settings);
  checkRecordedTasks(recordings, selected, names.replayFrom ?? "--replay-from");
  settings = {
    ...settings,
    options: { ...settings.options, ...replaySettings(recordings, settings.options, names) },
  };
  const agents = runAgents({ agent: settings.agent, agents: settings.options.agents ?? [] });
  const matrix = agents.length > 1;
  if (matrix) checkAgentMatrix(agents, settings, names);
  const model = settings.options.model ?? DEFAULT_MODEL;
  const recordedBashkitHomes = recordedHomes(recordings, model, selected, ports.note, names);
  if (settings.options.bashkitHome && Object.keys(recordedBashkitHomes).length > 0) {
    ports.note(
      `${names.bashkitHome} ${settings.options.bashkitHome}: every bashkit task gets it, not the layout of the bashkit that recorded the replayed run`,
    );
  }
  const forceJudge = settings.options.forceJudge ?? false;
  // Every model an agent of the run talks to (one agent: the run's models, as before).
  const testedModels = matrix
    ? [
        ...new Set(
          agents
            .filter(agentUsesModel)
            .flatMap((agent) => modelsOfAgent(agent, { ...settings.options, agents })),
        ),
      ]
    : runModels(settings.options);
  const judge = setUpJudge(selected, {
    flag: settings.judgeModel,
    env: ports.env.LLM_TOOL_TEST_JUDGE,
    testedModel: testedModels[0] ?? model,
    testedModels,
    force: forceJudge,
    hasApiKey: Boolean(settings.apiKey || settings.openai?.apiKey),
    agents,
    names,
  });
  if (judge.note) ports.note(judge.note);
  const { scenarios, judgeModel } = judge;
  // A relative program is the user's, from where the run starts (command.ts): checked before any trial.
  const agentCommand = settings.options.agentCommand;
  const options = defaultRunOptions({
    ...settings.options,
    ...(agents.includes("command") && agentCommand
      ? { agentCommand: await resolveCommandProgram(agentCommand, settings.cwd, names.agentCommand) }
      : {}),
    agents: matrix ? agents : [],
    agentModels: matrix ? (settings.options.agentModels ?? {}) : {},
    agent: settings.agent,
    agentReason: settings.agentReason ?? null,
    model,
    recordedBashkitHomes,
    judgeModel,
    forceJudge,
  });

  const keys: Record<ProviderName, string | null> = {
    anthropic: settings.apiKey || null,
    openai: settings.openai?.apiKey || null,
  };
  for (const agent of agents) {
    const own = matrix && (options.agentModels[agent]?.length ?? 0) > 0;
    checkModelProviders(scenarios, modelsOfAgent(agent, options), agent, keys, ports.keyRemedy, {
      agentKey: settings.gemini?.apiKey ?? null,
      names,
      // In a matrix, say whose models they were: the agent's own, or the run's (then how to give it its own).
      ...(matrix
        ? {
            modelsOption: own
              ? names.agentModel(agent)
              : `${names.model} (the run's models, which ${agent} takes without its own ${names.agentModel(agent)})`,
          }
        : {}),
    });
  }
  const paidModels = matrix ? { ...options, models: testedModels } : options;
  const usesModels = agents.some(agentUsesModel);
  for (const unpriced of unpricedModels(scenarios, paidModels, usesModels)) {
    const checked = PRICE_TABLE_CHECKED_ON[providerOfModel(unpriced)?.provider ?? "anthropic"];
    const remedy = names.prices ? `; give its prices with ${names.prices} FILE` : "";
    ports.note(
      `cost unknown for model ${unpriced}: it is not in the price table (built in, checked ${checked}); its trials' cost is reported as unknown, and ${names.maxCostUsd} cannot count it${remedy}`,
    );
  }

  const searchPath = ports.env.PATH ?? "";
  await checkTargetBinaries(scenarios, searchPath);
  // One selector for the run: bwrap is probed once, and its warnings reach the report.
  const sandboxes = createSandboxSelector({
    searchPath,
    env: ports.env,
    failClosed: settings.failClosed ?? isCiEnvironment(ports.env),
  });
  for (const warning of await checkSandbox(scenarios, options.sandbox, sandboxes)) ports.warn(warning);
  // Their start-up (a Node start each) overlaps with the rest of the setup instead of delaying the first commands.
  await warmSandboxRunners(sandboxes.selected(), options.concurrency);
  // An explicit local sandbox is the user's choice (no report warning unless the agent runs as this
  // user, which the selector adds); the log says what it leaves in reach.
  if (scenarios.some((scenario) => sandboxSettingOf(scenario, options.sandbox) === "local")) {
    const ownAccounts = (await findSameUserReason(searchPath)) === null;
    ports.warn(`local sandbox: ${ownAccounts ? OWN_ACCOUNT_NOTE : PARENTS_OUT_OF_REACH}`);
  }
  const modelClient = createModelClients(keys, (key, provider) =>
    ports.createModelClient(key, options.concurrency, options.modelTimeoutMs, provider),
  );
  const deps: AgentDeps = {
    ...(modelClient ? { modelClient } : {}),
    ...(settings.apiKey ? { apiKey: settings.apiKey } : {}),
    ...(settings.baseURL ? { baseURL: settings.baseURL } : {}),
    ...(settings.openai?.apiKey ? { openaiApiKey: settings.openai.apiKey } : {}),
    ...(settings.openai?.baseURL ? { openaiBaseURL: settings.openai.baseURL } : {}),
    agentCommand: options.agentCommand,
    recordings,
    env: ports.env,
    ...(settings.agentBinary && !matrix ? { agentBinary: settings.agentBinary } : {}),
    ...(settings.gemini?.apiKey ? { geminiApiKey: settings.gemini.apiKey } : {}),
    ...(settings.gemini?.baseURL ? { geminiBaseURL: settings.gemini.baseURL } : {}),
  };
  const localScenarios: Scenario[] = [];
  for (const scenario of scenarios) {
    const selection = await sandboxes.select(sandboxSettingOf(scenario, options.sandbox));
    if (selection.mode === "local") localScenarios.push(scenario);
  }
  if (!matrix) {
    const agent = createAgent(settings.agent, deps);
    await checkAgentAccountReach(localScenarios, [agent], searchPath, names.sandbox);
    return { scenarios, options, ports: { agent, judgeClient: modelClient, env: ports.env, sandboxes } };
  }
  const built: Partial<Record<AgentName, Agent>> = {};
  for (const name of agents) {
    built[name] = createAgent(
      name,
      depsOfMatrixAgent(name, deps, settings, keys, (key, provider, baseURL) =>
        ports.createModelClient(key, options.concurrency, options.modelTimeoutMs, provider, baseURL),
      ),
    );
  }
  const agent = built[settings.agent] ?? (built[agents[0] as AgentName] as Agent);
  await checkAgentAccountReach(localScenarios, Object.values(built), searchPath, names.sandbox);
  return {
    scenarios,
    options,
    ports: { agent, agents: built, judgeClient: modelClient, env: ports.env, sandboxes },
  };
}

/**
 * What an agent matrix cannot hold, said before anything runs: the replay agent (its recorded runs
 * are a model matrix of their own), and settings that belong to an agent the run does not have.
 * An agent whose model ids are its own (gemini-cli) must be given them: the run's models are
 * another provider's.
 */
function checkAgentMatrix(agents: readonly AgentName[], settings: RunSettings, names: SettingNames): void {
  if (agents.includes("replay")) {
    const matrix = names.replayFrom
      ? ` (several ${names.replayFrom} make a model matrix of their models)`
      : "";
    throw new ConfigError(
      `the replay agent cannot be one of several agents: replay recorded runs on their own${matrix}`,
      names.agent,
    );
  }
  if (settings.options.agentCommand && !agents.includes("command")) {
    throw new ConfigError(
      `${names.agentCommand} is the command agent's, which is not an agent of this run (${agents.join(", ")}): add the command agent to ${names.agent} or drop ${names.agentCommand}`,
    );
  }
  if (settings.agentBinary) {
    throw new ConfigError(
      "one agent binary for several agents: give each agent CLI's binary apart (agentBinaries)",
      "agentBinary",
    );
  }
  for (const agent of agents) {
    const own = settings.options.agentModels?.[agent] ?? [];
    if (agentApiKeyVariable(agent) && own.length === 0) {
      throw new ConfigError(
        `the ${agent} agent's model ids are its own (e.g. gemini-2.5-flash), not the run's: with several agents give them as ${names.agentModel(agent)}`,
        names.model,
      );
    }
  }
}

/**
 * One agent of a matrix: the run's dependencies with the base URLs given to it alone, and its own
 * binary. An agent calling its models through the harness (the registry's harnessModelClient)
 * with a base URL of its own gets model clients of its own (the judge keeps the run's).
 */
function depsOfMatrixAgent(
  name: AgentName,
  deps: AgentDeps,
  settings: RunSettings,
  keys: Record<ProviderName, string | null>,
  createClient: (key: string, provider: ProviderName, baseURL: string | undefined) => ModelClient,
): AgentDeps {
  const own = settings.agentEndpoints?.[name] ?? {};
  const binary = settings.agentBinaries?.[name];
  const result: AgentDeps = {
    ...deps,
    ...(own.anthropic ? { baseURL: own.anthropic } : {}),
    ...(own.openai ? { openaiBaseURL: own.openai } : {}),
    ...(own.gemini ? { geminiBaseURL: own.gemini } : {}),
    ...(binary ? { agentBinary: binary } : {}),
  };
  if (agentUsesHarnessModelClient(name) && (own.anthropic || own.openai)) {
    const baseURLs: Record<ProviderName, string | undefined> = {
      anthropic: own.anthropic,
      openai: own.openai,
    };
    const client = createModelClients(keys, (key, provider) =>
      createClient(key, provider, baseURLs[provider]),
    );
    if (client) result.modelClient = client;
  }
  return result;
}

/** The replay agent's recorded runs, read before any trial starts (none for other agents). */
async function readReplaySources(settings: RunSettings): Promise<RecordingSet[]> {
  if (settings.agent !== "replay") return [];
  const sets: RecordingSet[] = [];
  for (const source of settings.options.replayFrom ?? []) sets.push(await readRecordings(source));
  return sets;
}

/**
 * Per model, the home layout of the bashkit that recorded its replayed bashkit-eval run, by the
 * run's date (scenario/bashkit-home.ts), or the one a replayed run folder's trials had; one
 * recorded run is the run's `model`. Only when the run has a bashkit dataset's tasks; a bashkit-eval
 * recording without a date is said, and its tasks keep the current layout.
 */
function recordedHomes(
  recordings: readonly RecordingSet[],
  model: string,
  scenarios: readonly Scenario[],
  note: (message: string) => void,
  names: SettingNames,
): Record<string, string> {
  const homes: Record<string, string> = {};
  if (!scenarios.some((scenario) => scenario.source.format === "bashkit-jsonl")) return homes;
  for (const set of recordings) {
    const key = recordings.length > 1 ? (set.model ?? model) : model;
    if (set.format === "run") {
      if (set.home_layout !== null && bashkitHomeNamed(set.home_layout)) homes[key] = set.home_layout;
      continue;
    }
    const layout = set.recorded_at === null ? null : bashkitHomeAt(set.recorded_at);
    if (!layout) {
      note(
        `${set.source}: the recorded run has no date (\`timestamp\`), so the bashkit version that made it is unknown; its tasks get the current bashkit's home layout (${names.bashkitHome} names another)`,
      );
      continue;
    }
    homes[key] = layout.name;
  }
  return homes;
}

/**
 * A replay runs as many trials as were recorded (bashkit-eval: one a task) unless --trials says
 * otherwise: more would replay the same calls again and count their recorded figures twice.
 * Several recorded runs replay as a model matrix of their models (bashkit-eval's baseline table of
 * its committed runs from one command); their models are the run's, so --model is not for them.
 */
function replaySettings(
  recordings: readonly RecordingSet[],
  given: RunSettings["options"],
  names: SettingNames,
): Partial<Pick<RunOptions, "model" | "models" | "trials">> {
  if (recordings.length === 0) return {};
  const recordedTrials = Math.max(
    1,
    ...recordings.flatMap((set) => [...set.byScenario.values()].map((list) => list.length)),
  );
  const trials = given.trials === undefined ? { trials: recordedTrials } : {};
  if (recordings.length < 2) return trials;
  if (given.model !== undefined || (given.models?.length ?? 0) > 0) {
    throw new ConfigError(
      `${names.model} with several ${names.replayFrom ?? "recorded runs"}: the models are those the recorded runs used; drop ${names.model}`,
      names.model,
    );
  }
  const models = modelsOfRecordings(recordings);
  return { ...trials, model: models[0] as string, models };
}

/**
 * Guidance variants given for the run replace each scenario's own: every scenario runs once per
 * file, with the scenario's guidance mode (default workdir). The files' contents join the
 * scenario's content hash (a resumed run notices when they change) and its treatment (a
 * comparison says that they changed); the measurement hash stays the scenario's.
 */
async function applyGuidanceVariants(
  scenarios: Scenario[],
  variants: GuidanceVariantFile[],
): Promise<Scenario[]> {
  if (variants.length === 0) return scenarios;
  const names = new Set<string>();
  const hash = createHash("sha256");
  for (const variant of variants) {
    if (names.has(variant.name)) throw new ConfigError(`--variant ${variant.name} is given twice`);
    names.add(variant.name);
    try {
      hash.update(variant.name).update(await readFile(variant.file));
    } catch {
      throw new ConfigError(`cannot read the guidance file of --variant ${variant.name}: ${variant.file}`);
    }
  }
  const digest = hash.digest("hex");
  return Promise.all(
    scenarios.map(async (scenario) => {
      const withVariants = {
        ...scenario,
        variants: variants.map((v) => ({
          name: v.name,
          guidance: { file: v.file, mode: scenario.guidance?.mode ?? ("workdir" as const) },
        })),
        contentHash: createHash("sha256").update(scenario.contentHash).update(digest).digest("hex"),
      };
      // The files are the treatment: the measurement hash stays the scenario's.
      return { ...withVariants, treatment: await computeTreatment(withVariants) };
    }),
  );
}

/** One client per provider with a key, behind the router (null when there is no key at all). */
function createModelClients(
  keys: Record<ProviderName, string | null>,
  create: (key: string, provider: ProviderName) => ModelClient,
): ModelClient | null {
  const clients: Partial<Record<ProviderName, ModelClient>> = {};
  for (const provider of PROVIDERS) {
    const key = keys[provider];
    if (key) clients[provider] = create(key, provider);
  }
  return Object.keys(clients).length > 0 ? createProviderRouter(clients) : null;
}

/**
 * Every model the run will call names a known provider whose key was given, before any trial
 * starts: the built-in agent's models (the run's and each scenario's own), and every judge. The
 * claude-code and opencode agents talk to Anthropic only, the codex agent to OpenAI only. An agent
 * with its own key (gemini-cli: GEMINI_API_KEY, `agentKey`) takes its model ids as written, and needs
 * that key. Other agents' model ids are theirs to read.
 */
export function checkModelProviders(
  scenarios: readonly Scenario[],
  runModels: readonly string[],
  agent: AgentName,
  keys: Record<ProviderName, string | null>,
  keyRemedy: (provider: ProviderName) => string = apiKeyRemedy,
  {
    agentKey = null,
    agentKeyRemedy,
    names = CLI_SETTING_NAMES,
    modelsOption = names.model,
  }: {
    agentKey?: string | null;
    agentKeyRemedy?: string;
    /** How the user gave the run's settings (default: the CLI's flags). */
    names?: SettingNames;
    /** Where the models were given, for the errors (an agent matrix: `--model codex=MODEL`); default `names.model`. */
    modelsOption?: string;
  } = {},
): void {
  // The agents that need a key are those whose model calls go out with it (registry.ts).
  const ownKey = agentApiKeyVariable(agent);
  if (ownKey && AGENTS[agent].needsApiKey && !agentKey) {
    throw new ConfigError(describeMissingApiKey(agent, agentKeyRemedy));
  }
  const callsModels = AGENTS[agent].needsApiKey && !ownKey;
  for (const scenario of scenarios) {
    // A model matrix: every model of the run, unless the scenario pins its own.
    for (const model of callsModels ? (scenario.agent.model ? [scenario.agent.model] : runModels) : []) {
      const where = scenario.agent.model ? `${scenario.id}: agent.model` : modelsOption;
      const { provider } = parseModelId(model, where);
      const refusal = describeModelRefusal(agent, model);
      if (refusal) throw new ConfigError(refusal, where);
      if (!keys[provider]) throw new ConfigError(describeMissingApiKey(agent, keyRemedy(provider)), where);
    }
    const judge = scenario.evaluation.judge;
    if (judge?.enabled && judge.model) {
      const where = `${scenario.id}: the judge`;
      const { provider } = parseModelId(judge.model, where);
      if (!keys[provider]) {
        throw new ConfigError(
          `the judge model "${judge.model}" needs ${API_KEY_VARIABLES[provider]}; set it, or choose a judge of a provider whose key is set (${names.judgeModel}, evaluation.judge.model or LLM_TOOL_TEST_JUDGE, e.g. openai:gpt-5-mini)`,
          where,
        );
      }
    }
  }
}

export function createRunModelClient(input: {
  /** Default anthropic. */
  provider?: ProviderName;
  /** For OpenAI: which API each model is called through (default auto). */
  openaiApi?: OpenAiApiChoice;
  apiKey: string;
  baseURL?: string | undefined;
  concurrency: number;
  /** One attempt's deadline (default 120 s). */
  attemptTimeoutMs?: number | undefined;
  /** Where the key comes from, for the message when it is rejected. */
  keySource: string;
  /** Where HTTPS_PROXY / HTTP_PROXY / NO_PROXY are read: the withdrawn environment, not process.env. */
  proxyEnv: ProxyEnv;
}): ModelClient {
  const timeout = input.attemptTimeoutMs;
  if (timeout !== undefined && !(timeout > 0)) {
    throw new ConfigError("the model timeout (--model-timeout, the model-timeout input) must be more than 0");
  }
  const options = {
    apiKey: input.apiKey,
    keySource: input.keySource,
    proxyEnv: input.proxyEnv,
    ...(timeout !== undefined ? { requestTimeoutMs: timeout } : {}),
    // Calls in flight adapt to rate limits: halved on 429/529, raised again on success.
    limiter: createAimdLimiter({ initial: input.concurrency, max: input.concurrency }),
    ...(input.baseURL ? { baseURL: input.baseURL } : {}),
  };
  if (input.provider === "openai") {
    return createOpenAiClient({ ...options, ...(input.openaiApi ? { api: input.openaiApi } : {}) });
  }
  return createAnthropicClient(options);
}

export interface JudgeSetup {
  /** The scenarios to run: each judge's model resolved (or the judge removed when none can run). */
  scenarios: Scenario[];
  /** The run's default judge (what a scenario without its own `judge.model` uses), for run.judge_model. */
  judgeModel: string | null;
  /** Said to the user when judges were skipped. */
  note: string | null;
}

/**
 * Resolves each judged scenario's judge model (resolveJudgeModel: the scenario's own model, then
 * the flag, then the environment, then the default) and writes it into the scenario, so a trial
 * is judged by exactly the model checked here. A judge equal to the model the scenario tests is
 * refused before any model call, naming the scenario (unless forced). Without an Anthropic or
 * OpenAI key only agents that need neither can run (oracle, null, command; gemini-cli with its own
 * key); the judges are skipped with a note naming every agent of the run, since the gates already
 * say whether the scenario is satisfiable.
 */
export function setUpJudge(
  scenarios: Scenario[],
  input: {
    flag: string | null | undefined;
    env: string | null | undefined;
    testedModel: string;
    /** A model matrix's models (the judge must differ from each); default `[testedModel]`. */
    testedModels?: string[];
    force: boolean;
    hasApiKey: boolean;
    /** The run's agents (an agent matrix's all): the judge is skipped for each of them. */
    agents: readonly AgentName[];
    /** How the user gave the run's settings (default: the CLI's flags). */
    names?: SettingNames;
  },
): JudgeSetup {
  const names = input.names ?? CLI_SETTING_NAMES;
  const judged = scenarios.filter((s) => s.evaluation.judge?.enabled);
  // No trial is judged: the run records no judge (a --judge-model given anyway judged nothing).
  if (judged.length === 0) return { scenarios, judgeModel: null, note: null };
  if (!input.hasApiKey) {
    return {
      scenarios: scenarios.map((s) =>
        s.evaluation.judge?.enabled ? { ...s, evaluation: { ...s.evaluation, judge: undefined } } : s,
      ),
      judgeModel: null,
      note: describeSkippedJudge(judged.length, input.agents),
    };
  }
  const requested = { flag: input.flag ?? undefined, env: input.env ?? undefined };
  const resolved = scenarios.map((scenario) => {
    const judge = scenario.evaluation.judge;
    if (!judge?.enabled) return scenario;
    // In a model matrix the judge must differ from every model the scenario runs with.
    const tested = scenario.agent.model
      ? [scenario.agent.model]
      : (input.testedModels ?? [input.testedModel]);
    const resolutions = tested.map((testedModel) =>
      resolveJudgeModel({
        ...requested,
        scenario: judge.model,
        testedModel,
        force: input.force,
        scenarioId: scenario.id,
        flagName: names.judgeModel,
        forceName: names.forceJudge,
      }),
    );
    const model =
      resolutions.find((judgeModel) => input.force || !tested.some((t) => isSameModel(judgeModel, t))) ??
      refuseMatrixJudge(scenario.id, tested, names);
    return { ...scenario, evaluation: { ...scenario.evaluation, judge: { ...judge, model } } };
  });
  return { scenarios: resolved, judgeModel: defaultJudgeOf(scenarios, resolved), note: null };
}

/**
 * The note for judges skipped for want of a key, naming every agent of the run it concerns (in a
 * matrix the judge is skipped for each one) and why they could run without one. An agent with a
 * key of its own (gemini-cli's GEMINI_API_KEY) does need a key, just not one a judge can use; one
 * that needs a provider's key is refused later (checkModelProviders), so it is not said to need none.
 */
function describeSkippedJudge(judgedCount: number, agents: readonly AgentName[]): string {
  const keyless = agents.filter((agent) => !AGENTS[agent].needsApiKey);
  const ownKey = agents.flatMap((agent) => {
    const variable = agentApiKeyVariable(agent);
    return variable ? [`the ${agent} agent's ${variable} is not one`] : [];
  });
  const reasons = [
    ...(keyless.length > 0
      ? [`the ${listed(keyless)} ${keyless.length === 1 ? "agent needs" : "agents need"} none`]
      : []),
    ...ownKey,
  ];
  const forWhom = agents.length > 1 ? " for every agent of the run" : "";
  return `the judge of ${judgedCount} scenario(s) is skipped${forWhom}: it needs a model API key, ANTHROPIC_API_KEY or OPENAI_API_KEY${reasons.length > 0 ? ` (${reasons.join("; ")})` : ""}`;
}

/** `a`, `a and b`, `a, b and c`. */
function listed(names: readonly string[]): string {
  return names.length <= 1 ? names.join("") : `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
}

/**
 * The run's default judge as it judged: the model the judged scenarios without a `judge.model` of
 * their own were given (the first, when a fallback gave some another); null when every judged
 * scenario names its own, so the report never names a judge that judged nothing.
 */
function defaultJudgeOf(given: readonly Scenario[], resolved: readonly Scenario[]): string | null {
  const index = given.findIndex((scenario) => {
    const own = scenario.evaluation.judge;
    return own?.enabled && !own.model;
  });
  return resolved[index]?.evaluation.judge?.model ?? null;
}

function refuseMatrixJudge(scenarioId: string, tested: string[], names: SettingNames): never {
  const force = names.forceJudge ? `, or pass ${names.forceJudge}` : "";
  throw new ConfigError(
    `scenario ${scenarioId}: the default judge models are among the models under test (${tested.join(", ")}), and a model grading itself is biased; choose another judge with ${names.judgeModel} (or evaluation.judge.model)${force}`,
  );
}

/** The models this run will pay for (agent and judge) that the price table does not know. */
function unpricedModels(
  scenarios: readonly Scenario[],
  options: { model: string; models?: string[]; prices: Readonly<PriceTable> },
  agentUsesModel: boolean,
): string[] {
  const models = new Set<string>();
  for (const scenario of scenarios) {
    if (agentUsesModel)
      for (const model of scenario.agent.model ? [scenario.agent.model] : runModels(options))
        models.add(model);
    const judge = scenario.evaluation.judge;
    if (judge?.enabled && judge.model) models.add(judge.model);
  }
  return [...models].filter((model) => lookupPrice(options.prices, model) === null).sort();
}
