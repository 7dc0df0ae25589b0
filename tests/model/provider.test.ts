import { describe, expect, it } from "vitest";
import { ConfigError } from "../../src/errors.js";
import type { CreateMessageParams, ModelClient, ModelResponse } from "../../src/model/model-client.js";
import { ModelCallError } from "../../src/model/model-client.js";
import { createProviderRouter, parseModelId, providerOfModel } from "../../src/model/provider.js";

describe("parseModelId", () => {
  it("reads the provider prefix; a bare id is Anthropic's", () => {
    expect(parseModelId("openai:gpt-5.2")).toEqual({ provider: "openai", model: "gpt-5.2" });
    expect(parseModelId("anthropic:claude-haiku-4-5")).toEqual({
      provider: "anthropic",
      model: "claude-haiku-4-5",
    });
    expect(parseModelId("claude-haiku-4-5")).toEqual({ provider: "anthropic", model: "claude-haiku-4-5" });
    // A colon of the model's own: after the prefix (an Ollama tag), or in a Bedrock id.
    expect(parseModelId("openai:llama3:8b")).toEqual({ provider: "openai", model: "llama3:8b" });
    expect(parseModelId("us.anthropic.claude-sonnet-4-5-20250929-v1:0").provider).toBe("anthropic");
  });

  it("refuses an unknown provider with a did-you-mean and the way to name an OpenAI-compatible server", () => {
    expect(() => parseModelId("opanai:gpt-5.2", "--model")).toThrow(ConfigError);
    expect(() => parseModelId("opanai:gpt-5.2", "--model")).toThrow(
      '--model: unknown provider "opanai" in model id "opanai:gpt-5.2"; did you mean "openai:gpt-5.2"?',
    );
    expect(() => parseModelId("llama3:8b")).toThrow(/PROVIDER one of anthropic, openai .*openai:8b/);
    expect(providerOfModel("llama3:8b")).toBeNull();
  });
});

describe("createProviderRouter", () => {
  function recording(name: string, seen: string[]): ModelClient {
    return {
      createMessage: async (params: CreateMessageParams) => {
        seen.push(`${name}:${params.model}`);
        return {
          id: "x",
          model: params.model,
          stop_reason: "end_turn",
          content: [],
        } as unknown as ModelResponse;
      },
    };
  }
  const params = { max_tokens: 10, messages: [] };

  it("sends each call to its provider's client, without the prefix", async () => {
    const seen: string[] = [];
    const router = createProviderRouter({ anthropic: recording("a", seen), openai: recording("o", seen) });
    await router.createMessage({ ...params, model: "openai:gpt-5.2" });
    await router.createMessage({ ...params, model: "claude-haiku-4-5" });
    await router.createMessage({ ...params, model: "anthropic:claude-haiku-4-5" });
    expect(seen).toEqual(["o:gpt-5.2", "a:claude-haiku-4-5", "a:claude-haiku-4-5"]);
  });

  it("fails a call whose provider has no client, naming the key it needs", async () => {
    const router = createProviderRouter({ anthropic: recording("a", []) });
    const error = await router.createMessage({ ...params, model: "openai:gpt-5.2" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelCallError);
    expect((error as Error).message).toContain("no OPENAI_API_KEY was given");
    // A model setup never saw fails its call (a rejection), not the caller's stack.
    await expect(router.createMessage({ ...params, model: "opanai:gpt-5.2" })).rejects.toThrow(ConfigError);
  });
});
