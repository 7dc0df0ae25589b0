import { suggestKey } from "../did-you-mean.js";
import { ConfigError } from "../errors.js";
import type { ModelClient } from "../model/model-client.js";
import { type AnthropicAgentOptions, createAnthropicAgent } from "./anthropic.js";
import { type ClaudeCodeAgentOptions, createClaudeCodeAgent } from "./claude-code.js";
import { createCommandAgent } from "./command.js";
import { createNullAgent } from "./null.js";
import { createOracleAgent } from "./oracle.js";
import type { Agent, AgentName } from "./types.js";

export const AGENT_NAMES: readonly AgentName[] = ["anthropic", "oracle", "null", "claude-code", "command"];

export interface AgentDeps {
  /** Required by `anthropic`; built by the CLI/action from the API key. */
  modelClient?: ModelClient;
  anthropic?: AnthropicAgentOptions;
  /** The real API key, for `claude-code` (it reaches the CLI only through a loopback proxy). */
  apiKey?: string;
  /** The real API base URL for `claude-code`; default https://api.anthropic.com. */
  baseURL?: string;
  /** The command template of the `command` agent (`--agent-command`). */
  agentCommand?: string | null;
  /** Environment for finding the `claude` binary (LLM_TOOL_TEST_CLAUDE_BIN, PATH); default process.env. */
  env?: Record<string, string | undefined>;
  /** More claude-code settings (binary, tools, clock). */
  claudeCode?: Partial<ClaudeCodeAgentOptions>;
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
      if (!deps.apiKey) {
        throw new ConfigError(
          "the claude-code agent needs an API key: set ANTHROPIC_API_KEY (Claude Code gets it only through a local proxy, never in its environment)",
          "--agent",
        );
      }
      return createClaudeCodeAgent({
        ...deps.claudeCode,
        apiKey: deps.apiKey,
        ...(deps.baseURL ? { baseURL: deps.baseURL } : {}),
        ...(deps.env ? { env: deps.env } : {}),
      });
    case "command":
      if (!deps.agentCommand) {
        throw new ConfigError(
          "the command agent needs a command template: pass --agent-command 'my-agent --model {model} --task {prompt}'",
          "--agent-command",
        );
      }
      return createCommandAgent({ template: deps.agentCommand });
    default: {
      const suggestion = suggestKey(name, AGENT_NAMES);
      const hint = suggestion ? ` (did you mean "${suggestion}"?)` : "";
      throw new ConfigError(
        `unknown agent "${name}"${hint}; expected one of: ${AGENT_NAMES.join(", ")}`,
        "--agent",
      );
    }
  }
}
