import { describe, expect, it } from "vitest";
import { createAgent } from "../../src/agents/registry.js";
import { ConfigError } from "../../src/errors.js";
import type { ModelClient } from "../../src/model/model-client.js";

const modelClient: ModelClient = {
  createMessage: async () => {
    throw new Error("not called");
  },
};

function configErrorOf(run: () => unknown): ConfigError {
  try {
    run();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error("expected a ConfigError");
}

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
      "--agent: the anthropic agent needs an API key: set ANTHROPIC_API_KEY or pass --agent oracle to try without a key",
    );
  });

  it("rejects an unknown name with a did-you-mean", () => {
    expect(configErrorOf(() => createAgent("orcale", {})).message).toBe(
      '--agent: unknown agent "orcale" (did you mean "oracle"?); expected one of: anthropic, oracle, null, claude-code, command',
    );
    expect(configErrorOf(() => createAgent("Anthropic", {})).message).toContain('did you mean "anthropic"?');
    expect(configErrorOf(() => createAgent("gpt-5-turbo-agent", {})).message).toBe(
      '--agent: unknown agent "gpt-5-turbo-agent"; expected one of: anthropic, oracle, null, claude-code, command',
    );
  });

  it("says what claude-code and command need when it is missing", () => {
    expect(configErrorOf(() => createAgent("claude-code", { modelClient })).message).toContain(
      "the claude-code agent needs an API key",
    );
    expect(configErrorOf(() => createAgent("command", {})).message).toContain(
      "the command agent needs a command template: pass --agent-command",
    );
    expect(createAgent("command", { agentCommand: "my-agent {prompt}" }).name).toBe("command");
  });
});
