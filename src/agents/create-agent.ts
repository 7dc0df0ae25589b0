import { ConfigError } from "../errors.js";
import { type AnthropicAgentOptions, createAnthropicAgent } from "./anthropic.js";
import type { ModelClient } from "./model-client.js";
import { createNullAgent } from "./null.js";
import { createOracleAgent } from "./oracle.js";
import type { Agent, AgentName } from "./types.js";

export const AGENT_NAMES: readonly AgentName[] = ["anthropic", "oracle", "null", "claude-code", "command"];

export interface AgentDeps {
  /** Required by `anthropic`; built by the CLI/action from the API key. */
  modelClient?: ModelClient;
  anthropic?: AnthropicAgentOptions;
}

/** The agent for `--agent NAME` (a string, since it comes straight from the user). */
export function createAgent(name: AgentName | (string & {}), deps: AgentDeps = {}): Agent {
  switch (name) {
    case "anthropic":
      if (!deps.modelClient) {
        throw new ConfigError(
          "the anthropic agent needs an API key: set ANTHROPIC_API_KEY or pass --agent oracle to try without a key",
          "--agent",
        );
      }
      return createAnthropicAgent(deps.modelClient, deps.anthropic);
    case "oracle":
      return createOracleAgent();
    case "null":
      return createNullAgent();
    case "claude-code":
    case "command":
      throw new ConfigError(
        `agent "${name}" is not available yet; use one of: anthropic, oracle, null`,
        "--agent",
      );
    default: {
      const suggestion = suggestName(name, AGENT_NAMES);
      const hint = suggestion ? ` (did you mean "${suggestion}"?)` : "";
      throw new ConfigError(
        `unknown agent "${name}"${hint}; expected one of: ${AGENT_NAMES.join(", ")}`,
        "--agent",
      );
    }
  }
}

/** The closest known name, when it is close enough to be a typo. */
function suggestName(input: string, names: readonly string[]): string | undefined {
  const lowered = input.toLowerCase();
  let best: { name: string; distance: number } | undefined;
  for (const name of names) {
    const distance = measureEditDistance(lowered, name);
    if (!best || distance < best.distance) best = { name, distance };
  }
  if (!best) return undefined;
  return best.distance <= Math.max(2, Math.floor(best.name.length / 3)) ? best.name : undefined;
}

function measureEditDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      const substitution = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min(previous[j]! + 1, current[j - 1]! + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length]!;
}
