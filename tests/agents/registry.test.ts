import { describe, expect, it } from "vitest";
import { readActionSettings } from "../../src/action/inputs.js";
import { run as runAction } from "../../src/action/main.js";
import {
  AGENT_NAMES,
  createAgent,
  describeMissingApiKey,
  describeUnknownAgent,
  resolveAgentName,
} from "../../src/agents/registry.js";
import type { ModelClient } from "../../src/model/model-client.js";
import { configErrorOf } from "../support/config-error.js";

const modelClient: ModelClient = {
  createMessage: async () => {
    throw new Error("not called");
  },
};

describe("createAgent", () => {
  it("builds each available agent by name", () => {
    expect(createAgent("anthropic", { modelClient }).name).toBe("anthropic");
    expect(createAgent("oracle", {}).name).toBe("oracle");
    expect(createAgent("null", {}).name).toBe("null");
  });

  it("says how to get going when the anthropic agent has no model client", () => {
    const error = configErrorOf(() => createAgent("anthropic", {}));
    expect(error.where).toBe("--agent");
    expect(error.message).toBe(
      "--agent: the anthropic agent needs an API key: set ANTHROPIC_API_KEY in the environment (never in a scenario file), or run with --agent oracle to try the scenarios without a model",
    );
  });

  it("rejects an unknown name with a did-you-mean", () => {
    expect(configErrorOf(() => createAgent("orcale", {})).message).toBe(
      `--agent: unknown agent "orcale" (did you mean "oracle"?); expected one of: ${AGENT_NAMES.join(", ")}`,
    );
    expect(configErrorOf(() => createAgent("gpt-5-turbo-agent", {})).message).toBe(
      `--agent: unknown agent "gpt-5-turbo-agent"; expected one of: ${AGENT_NAMES.join(", ")}`,
    );
  });

  it("takes the names users type for an agent: aliases, any case, dashes or underscores", () => {
    const typed: Array<[string, string]> = [
      ["gemini", "gemini-cli"],
      ["Gemini", "gemini-cli"],
      ["gemini_cli", "gemini-cli"],
      ["claude", "claude-code"],
      ["Claude-Code", "claude-code"],
      ["claudecode", "claude-code"],
      ["open-code", "opencode"],
      ["OpenCode", "opencode"],
      ["codex-cli", "codex"],
      ["built-in", "anthropic"],
      ["Anthropic", "anthropic"],
      [" oracle ", "oracle"],
    ];
    for (const [name, agent] of typed) expect(resolveAgentName(name), name).toBe(agent);
    expect(createAgent("gemini", { geminiApiKey: "AIza-test" }).name).toBe("gemini-cli");
  });

  it("explains a provider's name instead of guessing an agent, and suggests an agent for a near alias", () => {
    expect(resolveAgentName("openai")).toBeUndefined();
    expect(configErrorOf(() => createAgent("openai", {})).message).toBe(
      `--agent: unknown agent "openai" (a provider, not an agent: agent codex runs OpenAI's Codex CLI; agent anthropic with model openai:MODEL runs the built-in loop on an OpenAI model); expected one of: ${AGENT_NAMES.join(", ")}`,
    );
    expect(describeUnknownAgent("google")).toContain("agent gemini-cli runs Google's Gemini CLI");
    // Near an alias, the suggestion is the agent's own name.
    expect(describeUnknownAgent("gemni")).toContain('(did you mean "gemini-cli"?)');
    expect(describeUnknownAgent("cluade")).toContain('(did you mean "claude-code"?)');
    expect(describeUnknownAgent("constructor")).not.toContain("did you mean");
  });

  it("says what claude-code and command need when it is missing", () => {
    expect(configErrorOf(() => createAgent("claude-code", { modelClient })).message).toContain(
      "the claude-code agent needs an API key",
    );
    expect(configErrorOf(() => createAgent("command", {})).message).toContain(
      "the command agent needs a command template: pass --agent-command",
    );
    expect(createAgent("command", { agentCommand: "my-agent {prompt}" }).name).toBe("command");
    // codex's key is OpenAI's, whatever Anthropic key is given.
    expect(configErrorOf(() => createAgent("codex", { apiKey: "sk-ant" })).message).toContain(
      "the codex agent needs an API key: set OPENAI_API_KEY",
    );
  });
});

describe("the agent registry", () => {
  it("refuses the action an agent the registry lacks, and reads several (each agent's entry: registry-contract.test.ts)", () => {
    const read =
      (agent: string, command = "") =>
      () =>
        readActionSettings((name) => (name === "agent" ? agent : name === "agent-command" ? command : ""));
    expect(read("gpt")).toThrow(
      `input "agent": unknown agent "gpt"; expected one of: ${AGENT_NAMES.join(", ")}`,
    );
    expect(read("gemini, Claude", "")().agents).toEqual(["gemini-cli", "claude-code"]);
    expect(read("gemni")).toThrow('input "agent": unknown agent "gemni" (did you mean "gemini-cli"?)');
  });

  it("says that a key is missing in one sentence, which the action uses too", async () => {
    const failed: string[] = [];
    const core = {
      getInput: (name: string) => (name === "agent" ? "anthropic" : ""),
      setSecret: () => {},
      setOutput: () => {},
      setFailed: (message: string) => failed.push(message),
      info: () => {},
      warning: () => {},
      debug: () => {},
    };
    const result = await runAction({ core, env: { GITHUB_EVENT_NAME: "push" }, cwd: process.cwd() });
    expect(result.status).toBe("config_error");
    expect(failed).toHaveLength(1);
    // The action's own remedy (a workflow line) follows the shared sentence.
    const prefix = `input "anthropic-api-key" is empty, and ${describeMissingApiKey("anthropic", 'add "anthropic-api-key: ')}`;
    expect(failed[0]?.slice(0, prefix.length)).toBe(prefix);
  });
});
