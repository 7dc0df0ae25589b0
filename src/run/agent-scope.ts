/**
 * Settings given per agent in a run of several agents (an agent matrix): a value written
 * `AGENT=VALUE` belongs to that agent alone (`--model codex=openai:gpt-5`, `--base-url
 * claude-code=http://127.0.0.1:8080`); one without a prefix is every agent's that uses it. A value
 * that names an agent the run does not have, or one that does not use the option, is a
 * configuration error naming the option: no setting is silently dropped or given to the wrong agent.
 */

import { type AgentApi, agentApis, describeUnknownAgent, resolveAgentName } from "../agents/registry.js";
import type { AgentName } from "../agents/types.js";
import { ConfigError } from "../errors.js";
import { CLI_SETTING_NAMES, type SettingNames } from "./setting-names.js";

/** A value for one agent (`agent`), or for every agent that uses it (`agent` null). */
export interface ScopedValue {
  agent: AgentName | null;
  value: string;
}

/**
 * `codex=openai:gpt-5` → codex's; `openai:gpt-5`, `http://127.0.0.1:8080` → everyone's. Agent
 * names hold only letters, digits and dashes, and a URL's scheme ends in `:`, so a prefix before
 * the first `=` is never part of a URL or a model id.
 */
export function parseScoped(raw: string, option: string): ScopedValue {
  const match = /^([A-Za-z0-9][A-Za-z0-9_-]*)=(.*)$/s.exec(raw);
  if (!match) return { agent: null, value: raw };
  const [, typed = "", value = ""] = match;
  const name = resolveAgentName(typed);
  if (!name) throw new ConfigError(`${describeUnknownAgent(typed)}; write AGENT=VALUE`, `${option} ${raw}`);
  if (value.trim() === "") throw new ConfigError(`${option} ${raw}: no value after "${typed}="`);
  return { agent: name, value };
}

/** The scoped value's agent must be one the run has. */
function checkAgentOfRun(scoped: ScopedValue, agents: readonly AgentName[], option: string): void {
  if (scoped.agent === null || agents.includes(scoped.agent)) return;
  throw new ConfigError(
    `${option} ${scoped.agent}=${scoped.value}: ${scoped.agent} is not an agent of this run (${agents.join(", ")}); add ${scoped.agent} to the run's agents or drop the value`,
  );
}

/**
 * The models of a run's `--model` values: unscoped ones (comma-separated lists allowed) are the
 * run's, for every agent without its own; `AGENT=a,b` are that agent's.
 */
export function settleScopedModels(
  values: readonly ScopedValue[],
  agents: readonly AgentName[],
  option: string,
): { models: string[]; agentModels: Partial<Record<AgentName, string[]>> } {
  const models: string[] = [];
  const agentModels: Partial<Record<AgentName, string[]>> = {};
  for (const scoped of values) {
    checkAgentOfRun(scoped, agents, option);
    const ids = scoped.value
      .split(",")
      .map((id) => id.trim())
      .filter(Boolean);
    if (scoped.agent === null) {
      models.push(...ids);
      continue;
    }
    const own = agentModels[scoped.agent] ?? [];
    for (const id of ids) if (!own.includes(id)) own.push(id);
    agentModels[scoped.agent] = own;
  }
  return { models: [...new Set(models)], agentModels };
}

/** One API's base URL: the run's (every agent that calls the API) and per agent. */
export interface SettledBaseUrl {
  shared: string | null;
  perAgent: Partial<Record<AgentName, string>>;
}

/**
 * An API's base URL values: at most one unscoped (every agent of the run that calls the API), and
 * at most one per agent, each for an agent of the run that calls this API.
 */
export function settleScopedBaseUrl(
  api: AgentApi,
  values: readonly ScopedValue[],
  agents: readonly AgentName[],
  /** Where each API's base URL is given, for the errors: the CLI's flags unless the action's inputs. */
  optionOf: SettingNames["baseUrl"] = CLI_SETTING_NAMES.baseUrl,
): SettledBaseUrl {
  const option = optionOf[api];
  const settled: SettledBaseUrl = { shared: null, perAgent: {} };
  for (const scoped of values) {
    checkAgentOfRun(scoped, agents, option);
    if (scoped.agent === null) {
      if (settled.shared !== null) {
        throw new ConfigError(
          `${option} is given twice without an agent: give it once for every agent, or once per agent as ${option} AGENT=URL`,
        );
      }
      settled.shared = scoped.value;
      continue;
    }
    const takes = agentApis(scoped.agent);
    if (!takes.includes(api)) {
      const own = takes.map((other) => `${optionOf[other]} ${scoped.agent}=URL`);
      throw new ConfigError(
        `${option} ${scoped.agent}=${scoped.value}: the ${scoped.agent} agent does not call this API${own.length > 0 ? `; its base URL is ${own.join(" or ")}` : ", it takes no base URL"}`,
      );
    }
    if (settled.perAgent[scoped.agent] !== undefined) {
      throw new ConfigError(`${option} is given twice for ${scoped.agent}: give it once`);
    }
    settled.perAgent[scoped.agent] = scoped.value;
  }
  return settled;
}

/** Each agent's own base URLs (absent: the run's), by API, as prepareRun takes them. */
export type AgentEndpoints = Partial<Record<AgentName, Partial<Record<AgentApi, string>>>>;

/** The per-agent parts of settled base URLs, gathered by agent. */
export function endpointsByAgent(settled: Partial<Record<AgentApi, SettledBaseUrl>>): AgentEndpoints {
  const byAgent: AgentEndpoints = {};
  for (const [api, { perAgent }] of Object.entries(settled) as [AgentApi, SettledBaseUrl][]) {
    for (const [agent, url] of Object.entries(perAgent) as [AgentName, string][]) {
      byAgent[agent] = { ...byAgent[agent], [api]: url };
    }
  }
  return byAgent;
}
