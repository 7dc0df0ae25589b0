/**
 * Every agent, once: what it needs, where it is offered, how it is built. The CLI's choices and
 * help, the action's `agent` input, which agents record a model and the "needs an API key" message
 * are all derived from these descriptors, so adding an agent is one descriptor and its own file.
 */
import { suggestKey } from "../did-you-mean.js";
import { ConfigError } from "../errors.js";
import type { ModelClient } from "../model/model-client.js";
import { API_KEY_VARIABLES, PROVIDER_LABELS, type ProviderName, parseModelId } from "../model/provider.js";
import type { RecordingSet } from "../results/read-recordings.js";
import { type AnthropicAgentOptions, createAnthropicAgent } from "./anthropic.js";
import { type ClaudeCodeAgentOptions, createClaudeCodeAgent } from "./claude-code.js";
import { type CodexAgentOptions, createCodexAgent } from "./codex.js";
import { createCommandAgent } from "./command.js";
import { createGeminiCliAgent, GEMINI_API_KEY_ENV, type GeminiCliAgentOptions } from "./gemini-cli.js";
import { createNullAgent } from "./null.js";
import { createOpenCodeAgent, type OpenCodeAgentOptions } from "./opencode.js";
import { createOracleAgent } from "./oracle.js";
import { createReplayAgent } from "./replay.js";
import type { Agent, GuidanceIntake } from "./types.js";

export interface AgentDeps {
  /** Required by `anthropic`; built by the CLI/action from the API keys (one client per provider). */
  modelClient?: ModelClient;
  anthropic?: AnthropicAgentOptions;
  /** The real API key, for `claude-code` and `opencode` (it reaches the CLI only through a loopback proxy). */
  apiKey?: string;
  /** The real API base URL for `claude-code` and `opencode`; default https://api.anthropic.com. */
  baseURL?: string;
  /** The command template of the `command` agent (`--agent-command`). */
  agentCommand?: string | null;
  /** The recorded runs whose calls the `replay` agent re-issues (`--replay-from`; several: a model matrix). */
  recordings?: readonly RecordingSet[] | null;
  /** The binary of the agent's CLI (claude-code, codex, gemini-cli, opencode), as the action provides it; default: the agent's own search. */
  agentBinary?: string;
  /** Environment for finding the `claude` binary (LLM_TOOL_TEST_CLAUDE_BIN, PATH); default process.env. */
  env?: Record<string, string | undefined>;
  /** More claude-code settings (binary, tools, clock). */
  claudeCode?: Partial<ClaudeCodeAgentOptions>;
  /** The real OpenAI key, for `codex` (it reaches the CLI only through a loopback proxy). */
  openaiApiKey?: string;
  /** The real OpenAI base URL for `codex` (ending in /v1); default https://api.openai.com/v1. */
  openaiBaseURL?: string;
  /** More codex settings (binary, retries, clock). */
  codex?: Partial<CodexAgentOptions>;
  /** The Gemini API key, for `gemini-cli` (it reaches the CLI only through a loopback proxy). */
  geminiApiKey?: string;
  /** The real Gemini API base URL for `gemini-cli`; default https://generativelanguage.googleapis.com. */
  geminiBaseURL?: string;
  /** More gemini-cli settings (binary, tools, clock). */
  geminiCli?: Partial<GeminiCliAgentOptions>;
  /** More opencode settings (binary, tools, clock). */
  openCode?: Partial<OpenCodeAgentOptions>;
}

/**
 * The APIs whose base URL an agent can be given (`--base-url`, `--openai-base-url`,
 * `--gemini-base-url`): Anthropic's Messages API, an OpenAI-compatible one, the Gemini API.
 */
export type AgentApi = "anthropic" | "openai" | "gemini";

export const AGENT_APIS: readonly AgentApi[] = ["anthropic", "openai", "gemini"];

export interface AgentDescriptor {
  /** Talks to a model, so the report records which one. */
  usesModel: boolean;
  /** The APIs it calls (so whose base URL it takes); none for an agent that calls no API itself. */
  apis: readonly AgentApi[];
  /** Cannot start without an API key (of the model's provider, or its own: `apiKeyVariable`). */
  needsApiKey: boolean;
  /**
   * The variable of the agent's own key, for an agent whose models are not among the providers'
   * (Gemini CLI's): its model ids are passed to it as written. Absent: the model's provider's key.
   * Only Gemini's key is carried to an agent (the `gemini-api-key` input, GEMINI_API_KEY, the
   * `gemini` settings of run/prepare.ts), so another variable is a compile error until it is too.
   */
  apiKeyVariable?: typeof GEMINI_API_KEY_ENV;
  /**
   * Talks to its models through the harness's ModelClient (model/, `deps.modelClient`) rather than
   * a CLI of its own, so base URLs given to it alone build it model clients of its own (run/prepare.ts).
   */
  harnessModelClient?: true;
  /** The providers whose models it runs (claude-code: Anthropic's); absent: any provider's. */
  providers?: readonly ProviderName[];
  /** How its model is shown a scenario's guidance (docs/agents.md "Guidance: what each agent is shown"). */
  guidance: GuidanceIntake;
  /** One line for `run --help` (at most 60 characters). */
  description: string;
  /**
   * Other names users type for it (`gemini` for gemini-cli), accepted wherever an agent is named.
   * Case, dashes and underscores never matter (`Claude_Code`, `open-code`), so they need no alias.
   */
  aliases?: readonly string[];
  /** Throws a ConfigError naming what is missing from `deps`. */
  create(deps: AgentDeps): Agent;
}

/** How to give the key of `provider`'s models on the command line or to the library. */
export function apiKeyRemedy(provider: ProviderName): string {
  return `set ${API_KEY_VARIABLES[provider]} in the environment (never in a scenario file), or run with --agent oracle to try the scenarios without a model`;
}

/** The remedy for Anthropic's models (bare model ids), unless a front end has its own. */
const API_KEY_REMEDY = apiKeyRemedy("anthropic");

/** The one "needs an API key" message; `remedy` says how to give one where the user is. */
export function describeMissingApiKey(name: AgentName, remedy?: string): string {
  return `the ${name} agent needs an API key: ${remedy ?? defaultKeyRemedy(name)}`;
}

/** An agent with its own key names its variable; the others, Anthropic's. */
function defaultKeyRemedy(name: AgentName): string {
  const variable = agentApiKeyVariable(name);
  return variable
    ? `set ${variable} in the environment (never in a scenario file), or run with --agent oracle to try the scenarios without a model`
    : API_KEY_REMEDY;
}

/** The agent CLIs: each reads the work dir's AGENTS.md itself (claude-code through a CLAUDE.md link) and takes the system prompt. */
const CLI_LOADS_WORK_DIR_FILE: GuidanceIntake = { systemPrompt: true, workDirFile: "cli" };
/** No model, or none that is given anything but the task. */
const NOT_SHOWN: GuidanceIntake = { systemPrompt: false, workDirFile: "none" };

export const AGENTS = {
  anthropic: {
    guidance: { systemPrompt: true, workDirFile: "harness" },
    usesModel: true,
    needsApiKey: true,
    harnessModelClient: true,
    apis: ["anthropic", "openai"],
    aliases: ["built-in", "builtin"],
    description: "the built-in loop: a bash tool, Anthropic or OpenAI models",
    create(deps) {
      if (!deps.modelClient) throw new ConfigError(describeMissingApiKey("anthropic"), "--agent");
      return createAnthropicAgent(deps.modelClient, deps.anthropic);
    },
  },
  oracle: {
    guidance: NOT_SHOWN,
    usesModel: false,
    needsApiKey: false,
    apis: [],
    description: "runs each scenario's solution, without a model",
    create: () => createOracleAgent(),
  },
  replay: {
    guidance: NOT_SHOWN,
    usesModel: false,
    needsApiKey: false,
    apis: [],
    description: "re-runs a recorded run's calls (--replay-from)",
    create(deps) {
      if (!deps.recordings || deps.recordings.length === 0) {
        throw new ConfigError(
          "the replay agent needs recorded calls: pass --replay-from PATH (a previous run's output folder or a bashkit-eval results .json)",
          "--replay-from",
        );
      }
      return createReplayAgent(deps.recordings);
    },
  },
  null: {
    guidance: NOT_SHOWN,
    usesModel: false,
    needsApiKey: false,
    apis: [],
    description: "does nothing: shows the gates can fail",
    create: () => createNullAgent(),
  },
  "claude-code": {
    guidance: CLI_LOADS_WORK_DIR_FILE,
    usesModel: true,
    needsApiKey: true,
    providers: ["anthropic"],
    apis: ["anthropic"],
    aliases: ["claude", "claude-cli"],
    description: "the Claude Code CLI, the key reaching it via a local proxy",
    create(deps) {
      if (!deps.apiKey) throw new ConfigError(describeMissingApiKey("claude-code"), "--agent");
      return createClaudeCodeAgent({
        ...deps.claudeCode,
        ...(deps.agentBinary ? { binary: deps.agentBinary } : {}),
        apiKey: deps.apiKey,
        ...(deps.baseURL ? { baseURL: deps.baseURL } : {}),
        ...(deps.env ? { env: deps.env } : {}),
      });
    },
  },
  codex: {
    guidance: CLI_LOADS_WORK_DIR_FILE,
    usesModel: true,
    needsApiKey: true,
    providers: ["openai"],
    apis: ["openai"],
    aliases: ["codex-cli", "openai-codex"],
    description: "OpenAI's Codex CLI, the key reaching it via a local proxy",
    create(deps) {
      if (!deps.openaiApiKey) {
        throw new ConfigError(describeMissingApiKey("codex", apiKeyRemedy("openai")), "--agent");
      }
      return createCodexAgent({
        ...deps.codex,
        ...(deps.agentBinary ? { binary: deps.agentBinary } : {}),
        apiKey: deps.openaiApiKey,
        ...(deps.openaiBaseURL ? { baseURL: deps.openaiBaseURL } : {}),
        ...(deps.env ? { env: deps.env } : {}),
      });
    },
  },
  "gemini-cli": {
    guidance: CLI_LOADS_WORK_DIR_FILE,
    usesModel: true,
    needsApiKey: true,
    apiKeyVariable: GEMINI_API_KEY_ENV,
    apis: ["gemini"],
    aliases: ["gemini", "google-gemini"],
    description: "Google's Gemini CLI, the key reaching it via a local proxy",
    create(deps) {
      if (!deps.geminiApiKey) {
        throw new ConfigError(describeMissingApiKey("gemini-cli"), "--agent");
      }
      return createGeminiCliAgent({
        ...deps.geminiCli,
        ...(deps.agentBinary ? { binary: deps.agentBinary } : {}),
        apiKey: deps.geminiApiKey,
        ...(deps.geminiBaseURL ? { baseURL: deps.geminiBaseURL } : {}),
        ...(deps.env ? { env: deps.env } : {}),
      });
    },
  },
  opencode: {
    guidance: CLI_LOADS_WORK_DIR_FILE,
    usesModel: true,
    needsApiKey: true,
    providers: ["anthropic"],
    apis: ["anthropic"],
    aliases: ["opencode-cli", "sst-opencode"],
    description: "the OpenCode CLI, the key reaching it via a local proxy",
    create(deps) {
      if (!deps.apiKey) throw new ConfigError(describeMissingApiKey("opencode"), "--agent");
      return createOpenCodeAgent({
        ...deps.openCode,
        ...(deps.agentBinary ? { binary: deps.agentBinary } : {}),
        apiKey: deps.apiKey,
        ...(deps.baseURL ? { baseURL: deps.baseURL } : {}),
        ...(deps.env ? { env: deps.env } : {}),
      });
    },
  },
  command: {
    guidance: { systemPrompt: false, workDirFile: "unknown" },
    usesModel: true,
    needsApiKey: false,
    apis: [],
    description: "any agent CLI, from the --agent-command template",
    create(deps) {
      if (!deps.agentCommand) {
        throw new ConfigError(
          "the command agent needs a command template: pass --agent-command 'my-agent --model {model} --task {prompt}'",
          "--agent-command",
        );
      }
      return createCommandAgent({ template: deps.agentCommand });
    },
  },
} as const satisfies Record<string, AgentDescriptor>;

export type AgentName = keyof typeof AGENTS;

/** In the registry's order, which is the order of every list shown to users. */
export const AGENT_NAMES = Object.keys(AGENTS) as AgentName[];

export function isAgentName(name: string): name is AgentName {
  return Object.hasOwn(AGENTS, name);
}

/** Case, dashes, underscores and spaces never tell two agent names apart. */
function foldAgentName(name: string): string {
  return name
    .trim()
    .toLowerCase()
    .replace(/[-_\s]/g, "");
}

/** Every name a user may type for an agent, folded, to its agent. */
const AGENT_BY_TYPED_NAME: ReadonlyMap<string, AgentName> = new Map(
  AGENT_NAMES.flatMap((name) => {
    const descriptor: AgentDescriptor = AGENTS[name];
    return [name, ...(descriptor.aliases ?? [])].map((typed) => [foldAgentName(typed), name] as const);
  }),
);

/**
 * Names that are a provider's rather than an agent's, and which agents run its models: `openai`
 * could mean Codex or the built-in loop on an OpenAI model, so it is explained, not guessed.
 */
const PROVIDER_HINTS: ReadonlyMap<string, string> = new Map([
  [
    "openai",
    "a provider, not an agent: agent codex runs OpenAI's Codex CLI; agent anthropic with model openai:MODEL runs the built-in loop on an OpenAI model",
  ],
  ["google", "a provider, not an agent: agent gemini-cli runs Google's Gemini CLI"],
]);

/** The agent a user's name stands for (its own name, any case or dash, or an alias); undefined if none. */
export function resolveAgentName(typed: string): AgentName | undefined {
  if (isAgentName(typed)) return typed;
  return AGENT_BY_TYPED_NAME.get(foldAgentName(typed));
}

/**
 * Why `typed` names no agent, for a ConfigError: a provider's name explained, else the closest
 * agent name or alias (as its agent's name), then every agent's name.
 */
export function describeUnknownAgent(typed: string): string {
  const providerHint = PROVIDER_HINTS.get(foldAgentName(typed));
  if (providerHint)
    return `unknown agent "${typed}" (${providerHint}); expected one of: ${AGENT_NAMES.join(", ")}`;
  const closest = suggestKey(typed, [...AGENT_BY_TYPED_NAME.keys()]);
  const suggestion = closest === undefined ? undefined : AGENT_BY_TYPED_NAME.get(closest);
  const hint = suggestion ? ` (did you mean "${suggestion}"?)` : "";
  return `unknown agent "${typed}"${hint}; expected one of: ${AGENT_NAMES.join(", ")}`;
}

/**
 * Why `name` cannot run `model`, for a ConfigError, or null when it can: an agent runs only its
 * descriptor's providers' models (a bare id being Anthropic's, another provider's needs its
 * prefix). `model` null: none was given and the default, Anthropic's, would be taken.
 */
export function describeModelRefusal(name: AgentName, model: string | null): string | null {
  const descriptor: AgentDescriptor = AGENTS[name];
  const { provider, model: bare } = parseModelId(model ?? "");
  if (!descriptor.providers || descriptor.providers.includes(provider)) return null;
  const labels = descriptor.providers.map((p) => PROVIDER_LABELS[p]).join(" or ");
  const [only] = descriptor.providers;
  const prefix = descriptor.providers.length === 1 && only !== "anthropic" ? `${only}:` : "";
  if (model === null) return `the ${name} agent runs ${labels} models only: pass --model ${prefix}MODEL`;
  const hint = prefix ? `: name them with the ${prefix} prefix (${prefix}${bare})` : "";
  return `the ${name} agent runs ${labels} models only, not "${model}"${hint}`;
}

/** Agents that talk to a model (and so have a model worth recording). */
export function agentUsesModel(name: AgentName): boolean {
  return AGENTS[name].usesModel;
}

/**
 * The variable of the agent's own API key (gemini-cli: GEMINI_API_KEY), for an agent whose model
 * ids are its own rather than a provider's; undefined for the others.
 */
export function agentApiKeyVariable(name: AgentName): string | undefined {
  const descriptor: AgentDescriptor = AGENTS[name];
  return descriptor.apiKeyVariable;
}

/** Whether the agent's models are called through the harness's ModelClient (AgentDescriptor.harnessModelClient). */
export function agentUsesHarnessModelClient(name: AgentName): boolean {
  const descriptor: AgentDescriptor = AGENTS[name];
  return descriptor.harnessModelClient === true;
}

/** The APIs an agent calls itself, so whose base URL it takes (AgentApi). */
export function agentApis(name: AgentName): readonly AgentApi[] {
  const descriptor: AgentDescriptor = AGENTS[name];
  return descriptor.apis;
}

/** Whether a created agent talks to its model: its own answer, else its kind's. */
export function agentInstanceUsesModel(agent: Pick<Agent, "name" | "usesModel">): boolean {
  return agent.usesModel ?? agentUsesModel(agent.name);
}

/** How a created agent's model is shown the guidance: its own answer, else its kind's. */
export function agentGuidanceIntake(agent: Pick<Agent, "name" | "guidanceIntake">): GuidanceIntake {
  const descriptor: AgentDescriptor = AGENTS[agent.name];
  return agent.guidanceIntake ?? descriptor.guidance;
}

/** The agent for `--agent NAME` (a string, since it comes straight from the user). */
export function createAgent(name: AgentName | (string & {}), deps: AgentDeps = {}): Agent {
  const agent = resolveAgentName(name);
  if (!agent) throw new ConfigError(describeUnknownAgent(name), "--agent");
  return AGENTS[agent].create(deps);
}
