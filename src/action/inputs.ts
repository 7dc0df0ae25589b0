/**
 * Every action input is read here, once, and validated into one typed object. Nothing else in the
 * action reads inputs. A bad value is a ConfigError that names the input and shows what was given.
 */

import {
  type AgentApi,
  type AgentName,
  agentApiKeyVariable,
  describeUnknownAgent,
  resolveAgentName,
} from "../agents/registry.js";
import { checkGateMetrics, type FailOn, parseFailOn } from "../compare/decision.js";
import { DEFAULT_BASELINE_RUNS } from "../compare/pool-baselines.js";
import { ConfigError } from "../errors.js";
import { OPENAI_APIS, type OpenAiApiChoice } from "../model/openai-client.js";
import { API_KEY_VARIABLES, type ProviderName, parseModelId } from "../model/provider.js";
import { parseToleranceGates, type ToleranceGates } from "../results/tolerance-gates.js";
import {
  type AgentEndpoints,
  endpointsByAgent,
  parseScoped,
  type SettledBaseUrl,
  settleScopedBaseUrl,
  settleScopedModels,
} from "../run/agent-scope.js";
import { DEFAULT_EXTRA_TRIALS, DEFAULT_MODEL, DEFAULT_TRIALS } from "../run/options.js";
import { settleModels } from "../run/plan.js";
import type { SettingNames } from "../run/setting-names.js";
import { parseBashkitHome } from "../scenario/bashkit-home.js";
import { parseDuration } from "../scenario/duration.js";
import { SANDBOX_SETTINGS } from "../scenario/keys.js";
import type { SandboxSetting } from "../scenario/types.js";

/** The input that gives each provider's key. */
export const KEY_INPUTS: Readonly<Record<ProviderName, string>> = {
  anthropic: "anthropic-api-key",
  openai: "openai-api-key",
};

/** How to give the action `provider`'s key, for the one "needs an API key" message. */
export function actionKeyRemedy(provider: ProviderName): string {
  const secret = API_KEY_VARIABLES[provider];
  return `add "${KEY_INPUTS[provider]}: \${{ secrets.${secret} }}" to the step (or use "agent: oracle" to try the scenarios without a model)`;
}

/** `post-fork-comment`: a `workflow_run` follow-up posting the comment of a fork's run (fork-follow-up.ts). */
type ActionMode = "run" | "merge" | "post-fork-comment";
const ACTION_MODES: readonly ActionMode[] = ["run", "merge", "post-fork-comment"];
type BaselineSetting = { kind: "auto" } | { kind: "none" } | { kind: "path"; path: string };
/** A pull request without secrets (a fork's, Dependabot's): replay the baseline's transcripts, or skip. */
type ForkMode = "replay" | "skip";
const FORK_MODES: readonly ForkMode[] = ["replay", "skip"];

export interface ActionSettings {
  mode: ActionMode;
  /** Paths, globs and `!pattern` exclusions, relative to workingDirectory. */
  scenarios: string[];
  /** Empty when not given (a fork's pull request has no secrets). */
  apiKey: string;
  /** The OpenAI key for `openai:` models (`openai-api-key`); empty when not given. */
  openaiApiKey: string;
  /** The OpenAI-compatible base URL (`openai-base-url`); null: OPENAI_BASE_URL, else OpenAI's own. */
  openaiBaseURL: string | null;
  /** The Gemini API key for `agent: gemini-cli` (`gemini-api-key`); empty when not given. */
  geminiApiKey: string;
  /** The Gemini API base URL (`gemini-base-url`); null: GOOGLE_GEMINI_BASE_URL, else Google's. */
  geminiBaseURL: string | null;
  /** How `openai:` models are called (`openai-api`). */
  openaiApi: OpenAiApiChoice;
  /** The run's model: `model`, or the first of `models`. */
  model: string;
  /** Two or more (`models`): a model matrix, as the CLI's repeated --model; empty otherwise. */
  models: string[];
  judgeModel: string | null;
  /** The run's agent: `agent`, or the first of several. */
  agent: AgentName;
  /** Two or more (`agent: a, b`): an agent matrix, as the CLI's repeated --agent; empty otherwise. */
  agents: AgentName[];
  /** In an agent matrix, the models given to one agent (`models: codex=openai:gpt-5`). */
  agentModels: Partial<Record<AgentName, string[]>>;
  /** In an agent matrix, the base URLs given to one agent (`base-url: claude-code=URL`). */
  agentEndpoints: AgentEndpoints;
  /** The `command` agent's template (`agent-command`); null for the other agents. */
  agentCommand: string | null;
  /** The Anthropic API base URL (`base-url`); null: ANTHROPIC_BASE_URL, else the API's own. */
  baseURL: string | null;
  trials: number;
  /**
   * The bashkit home layout every bashkit dataset task gets (`bashkit-home`, as the CLI's
   * --bashkit-home: a layout's name); null: a replayed recording's, else the current bashkit's.
   */
  bashkitHome: string | null;
  /** Adaptive extra trials per screened scenario (0: off). */
  extraTrials: number;
  concurrency: number;
  tags: string[];
  tier: number | null;
  baseline: BaselineSetting;
  /** With `baseline: auto`, how many base-branch runs to pool. */
  baselineRuns: number;
  comment: boolean;
  commentKey: string;
  failOn: FailOn;
  /** Layer-1 metrics that also decide under fail-on regression. */
  gateMetrics: string[];
  /** Tolerance gates on cost, tokens and turns (`tolerance-gates`); a scenario's own override them. */
  toleranceGates: ToleranceGates;
  maxCostUsd: number | null;
  /** Explicit or derived from commentKey. */
  artifactName: string;
  workingDirectory: string;
  githubToken: string;
  /** Null: each scenario's (default auto). */
  sandbox: SandboxSetting | null;
  /** Make bwrap work on the runner (install it, allow its user namespaces) unless the sandbox is local. */
  sandboxSetup: boolean;
  shard: { index: number; count: number } | null;
  alpha: number;
  /** What a pull request without secrets gets (`fork-mode`). */
  forkMode: ForkMode;
  /** One attempt of a model call; undefined: the default (120 s). */
  modelTimeoutMs?: number | undefined;
}

/** The `core.getInput` shape: the raw value, "" when unset. */
export type ReadInput = (name: string) => string;

const DEFAULT_COMMENT_KEY = "llm-tool-test";
const COMMENT_KEY_PATTERN = /^[A-Za-z0-9._-]{1,100}$/;
/** Characters the artifact service refuses in names. */
const ARTIFACT_NAME_FORBIDDEN = /["':<>|*?\r\n\\/]/;

function fail(name: string, expectation: string, value: string): never {
  throw new ConfigError(`input "${name}" ${expectation}, got ${JSON.stringify(value)}`);
}

function readWholeNumber(read: ReadInput, name: string, min: number): number | null {
  const raw = read(name).trim();
  if (raw === "") return null;
  if (!/^\d+$/.test(raw) || Number(raw) < min || !Number.isSafeInteger(Number(raw))) {
    fail(name, `must be a whole number >= ${min}`, raw);
  }
  return Number(raw);
}

function readChoice<T extends string>(read: ReadInput, name: string, choices: readonly T[], fallback: T): T {
  const raw = read(name).trim();
  if (raw === "") return fallback;
  const lowered = raw.toLowerCase();
  const match = choices.find((choice) => choice === lowered);
  if (!match) fail(name, `must be one of ${choices.map((c) => `"${c}"`).join(", ")}`, raw);
  return match;
}

/** YAML 1.2 booleans, as `core.getBooleanInput` accepts them. */
function readBoolean(read: ReadInput, name: string, fallback: boolean): boolean {
  const raw = read(name).trim();
  if (raw === "") return fallback;
  if (["true", "True", "TRUE"].includes(raw)) return true;
  if (["false", "False", "FALSE"].includes(raw)) return false;
  return fail(name, "must be true or false", raw);
}

/** Lines or commas; blank entries dropped. */
function readList(read: ReadInput, name: string, separator: RegExp): string[] {
  return read(name)
    .split(separator)
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0);
}

function readShard(read: ReadInput): { index: number; count: number } | null {
  const raw = read("shard").trim();
  if (raw === "") return null;
  const match = /^(\d+)\s*\/\s*(\d+)$/.exec(raw);
  const index = Number(match?.[1]);
  const count = Number(match?.[2]);
  if (!match || count < 1 || index < 1 || index > count) {
    fail("shard", 'must be "i/n" with 1 <= i <= n (e.g. "2/4")', raw);
  }
  return { index, count };
}

function readBaseline(read: ReadInput): BaselineSetting {
  const raw = read("baseline").trim();
  if (raw === "" || raw.toLowerCase() === "auto") return { kind: "auto" };
  if (raw.toLowerCase() === "none") return { kind: "none" };
  // Anything else is a path; whether it exists is checked when it is read.
  return { kind: "path", path: raw };
}

function readPositiveNumber(read: ReadInput, name: string): number | null {
  const raw = read(name).trim();
  if (raw === "") return null;
  const value = Number(raw);
  if (!/^\d*\.?\d+$/.test(raw) || !(value > 0) || !Number.isFinite(value)) {
    fail(name, "must be a number of US dollars > 0 (or empty for no cap)", raw);
  }
  return value;
}

function readAlpha(read: ReadInput): number {
  const raw = read("alpha").trim();
  if (raw === "") return 0.05;
  const value = Number(raw);
  if (!/^\d*\.?\d+(e-?\d+)?$/i.test(raw) || !(value > 0 && value < 1)) {
    fail("alpha", "must be a number between 0 and 1 (exclusive)", raw);
  }
  return value;
}

function readCommentKey(read: ReadInput): string {
  const raw = read("comment-key").trim();
  if (raw === "") return DEFAULT_COMMENT_KEY;
  if (!COMMENT_KEY_PATTERN.test(raw)) {
    fail("comment-key", "must be 1-100 letters, digits, '.', '_' or '-'", raw);
  }
  return raw;
}

/** `llm-tool-test-report` for the default key, `llm-tool-test-report-<key>` for another. */
export function deriveArtifactName(commentKey: string): string {
  return commentKey === DEFAULT_COMMENT_KEY ? "llm-tool-test-report" : `llm-tool-test-report-${commentKey}`;
}

function readArtifactName(read: ReadInput, commentKey: string): string {
  const raw = read("artifact-name").trim();
  if (raw === "") return deriveArtifactName(commentKey);
  if (ARTIFACT_NAME_FORBIDDEN.test(raw) || raw.length > 200) {
    fail(
      "artifact-name",
      `must not contain any of " ' : < > | * ? \\ / or a newline (at most 200 characters)`,
      raw,
    );
  }
  return raw;
}

/** One agent, or several (comma- or newline-separated) for an agent matrix, as the CLI's repeated --agent. */
function readAgents(read: ReadInput): AgentName[] {
  const listed = readList(read, "agent", /[\n,]/);
  if (listed.length === 0) return ["anthropic"];
  const agents: AgentName[] = [];
  for (const raw of listed) {
    const match = resolveAgentName(raw);
    if (!match) throw new ConfigError(describeUnknownAgent(raw), 'input "agent"');
    if (!agents.includes(match)) agents.push(match);
  }
  return agents;
}

/** Required with `agent: command`, and meaningless (so refused) without the command agent. */
function readAgentCommand(read: ReadInput, agents: readonly AgentName[]): string | null {
  const raw = read("agent-command").trim();
  const command = agents.includes("command");
  if (command && raw === "") {
    throw new ConfigError(
      `input "agent-command" is required with "agent: command": the command template, e.g. "my-agent --model {model} --task {prompt}"`,
    );
  }
  if (!command && raw !== "") {
    fail("agent-command", `is only used with "agent: command" (agent is "${agents.join(", ")}")`, raw);
  }
  return raw === "" ? null : raw;
}

/** The action's inputs, as the setup shared with the CLI names them in its notes and errors. */
export const ACTION_SETTING_NAMES: SettingNames = {
  baseUrl: {
    anthropic: 'input "base-url"',
    openai: 'input "openai-base-url"',
    gemini: 'input "gemini-base-url"',
  },
  model: 'input "model" (or "models")',
  agentModel: (agent) => `input "models" entry ${agent}=MODEL`,
  agent: 'input "agent"',
  agentCommand: 'input "agent-command"',
  // The replay agent replays the baseline run the action finds.
  replayFrom: null,
  bashkitHome: 'input "bashkit-home"',
  maxCostUsd: 'input "max-cost-usd"',
  prices: null,
  judgeModel: 'input "judge-model"',
  forceJudge: null,
  sandbox: 'input "sandbox"',
};

/**
 * A base URL input: one URL for every agent that calls the API, and in an agent matrix also
 * `AGENT=URL` lines for one agent alone.
 */
function readBaseUrls(
  read: ReadInput,
  name: "base-url" | "openai-base-url" | "gemini-base-url",
  api: AgentApi,
  agents: readonly AgentName[],
  example: string,
): SettledBaseUrl {
  // One a line: a URL may hold a comma.
  const values = readList(read, name, /\n/).map((raw) => parseScoped(raw, `input "${name}"`));
  for (const { value } of values) {
    const url = URL.canParse(value) ? new URL(value) : null;
    if (!url || (url.protocol !== "http:" && url.protocol !== "https:")) {
      fail(name, `must be an http:// or https:// URL (e.g. ${example})`, value);
    }
  }
  const settled = settleScopedBaseUrl(api, values, agents, ACTION_SETTING_NAMES.baseUrl);
  if (agents.length > 1) return settled;
  // One agent: its own URL is the run's.
  const own = Object.values(settled.perAgent)[0];
  if (own !== undefined && settled.shared !== null) {
    fail(
      name,
      `is given twice for ${agents[0]} (with and without ${agents[0]}=): give it once`,
      read(name).trim(),
    );
  }
  return { shared: own ?? settled.shared, perAgent: {} };
}

/**
 * `models` (comma- or newline-separated) as the CLI's repeated --model: the first is the run's
 * model, two or more make a matrix. Without it, `model`. Each id's provider is checked here, so
 * a typo names the input.
 */
function readModels(
  read: ReadInput,
  agents: readonly AgentName[],
): { model: string; models: string[]; agentModels: Partial<Record<AgentName, string[]>> } {
  const scoped = readList(read, "models", /[\n,]/).map((raw) => parseScoped(raw, 'input "models"'));
  const settled = settleScopedModels(scoped, agents, 'input "models"');
  // One agent: models given to it are the run's.
  const matrix = agents.length > 1;
  const listed = [
    ...new Set([...settled.models, ...(matrix ? [] : Object.values(settled.agentModels).flat())]),
  ];
  const single = read("model").trim();
  if (listed.length > 0 && single !== "" && single !== DEFAULT_MODEL && !listed.includes(single)) {
    fail(
      "models",
      `and input "model" (${JSON.stringify(single)}) are both given: use one of them`,
      listed.join(","),
    );
  }
  const models = listed.length > 0 ? listed : [single === "" ? DEFAULT_MODEL : single];
  for (const model of models) parseModelId(model, listed.length > 0 ? 'input "models"' : 'input "model"');
  const agentModels = matrix ? settled.agentModels : {};
  for (const [agent, ids] of Object.entries(agentModels) as [AgentName, string[]][]) {
    // An agent with model ids of its own (gemini-cli) takes them as written.
    if (!agentApiKeyVariable(agent)) for (const id of ids) parseModelId(id, 'input "models"');
  }
  return { ...settleModels(models), agentModels };
}

/** Reads and validates every input. Throws a ConfigError naming the first bad input. */
export function readActionSettings(read: ReadInput): ActionSettings {
  const commentKey = readCommentKey(read);
  const scenarios = readList(read, "scenarios", /[\n,]/);
  const judgeModel = read("judge-model").trim();
  const agents = readAgents(read);
  const agent = agents[0] as AgentName;
  const anthropicUrls = readBaseUrls(
    read,
    "base-url",
    "anthropic",
    agents,
    "https://gateway.example.com/anthropic",
  );
  const openaiUrls = readBaseUrls(read, "openai-base-url", "openai", agents, "http://localhost:11434/v1");
  const geminiUrls = readBaseUrls(
    read,
    "gemini-base-url",
    "gemini",
    agents,
    "https://gateway.example.com/gemini",
  );
  return {
    mode: readChoice(read, "mode", ACTION_MODES, "run"),
    scenarios: scenarios.length > 0 ? scenarios : ["scenarios"],
    apiKey: read("anthropic-api-key").trim(),
    openaiApiKey: read("openai-api-key").trim(),
    geminiApiKey: read("gemini-api-key").trim(),
    geminiBaseURL: geminiUrls.shared,
    openaiBaseURL: openaiUrls.shared,
    openaiApi: readChoice(read, "openai-api", ["auto", ...OPENAI_APIS] as const, "auto"),
    ...readModels(read, agents),
    judgeModel: judgeModel === "" ? null : judgeModel,
    agent,
    agents: agents.length > 1 ? agents : [],
    agentEndpoints: endpointsByAgent({ anthropic: anthropicUrls, openai: openaiUrls, gemini: geminiUrls }),
    agentCommand: readAgentCommand(read, agents),
    baseURL: anthropicUrls.shared,
    bashkitHome: readBashkitHome(read),
    trials: readWholeNumber(read, "trials", 1) ?? DEFAULT_TRIALS,
    extraTrials: readWholeNumber(read, "extra-trials", 0) ?? DEFAULT_EXTRA_TRIALS,
    concurrency: readWholeNumber(read, "concurrency", 1) ?? 4,
    tags: readList(read, "tags", /[\s,]+/),
    tier: readWholeNumber(read, "tier", 0),
    baseline: readBaseline(read),
    baselineRuns: readWholeNumber(read, "baseline-runs", 1) ?? DEFAULT_BASELINE_RUNS,
    comment: readBoolean(read, "comment", true),
    commentKey,
    failOn: parseFailOn(read("fail-on").trim() || "regression", 'input "fail-on"'),
    gateMetrics: checkGateMetrics(readList(read, "gate-metrics", /[\s,]+/), 'input "gate-metrics"'),
    toleranceGates: parseToleranceGates(
      readList(read, "tolerance-gates", /[\s,]+/),
      'input "tolerance-gates"',
    ),
    maxCostUsd: readPositiveNumber(read, "max-cost-usd"),
    artifactName: readArtifactName(read, commentKey),
    workingDirectory: read("working-directory").trim() || ".",
    githubToken: read("github-token").trim(),
    sandbox: read("sandbox").trim() === "" ? null : readChoice(read, "sandbox", SANDBOX_SETTINGS, "auto"),
    sandboxSetup: readBoolean(read, "sandbox-setup", true),
    shard: readShard(read),
    alpha: readAlpha(read),
    forkMode: readChoice(read, "fork-mode", FORK_MODES, "replay"),
    modelTimeoutMs: readModelTimeout(read),
  };
}

/** As the CLI's --bashkit-home: a layout's name, `current` or a date, kept as the layout's name. */
function readBashkitHome(read: ReadInput): string | null {
  const raw = read("bashkit-home").trim();
  return raw === "" ? null : parseBashkitHome(raw, 'input "bashkit-home"').name;
}

function readModelTimeout(read: ReadInput): number | undefined {
  const raw = read("model-timeout").trim();
  if (raw === "") return undefined;
  try {
    return parseDuration(raw);
  } catch {
    return fail("model-timeout", 'must be a duration such as "120s" or "3m"', raw);
  }
}
