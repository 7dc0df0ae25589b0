/**
 * The contract every model provider keeps, run against each entry of PROVIDERS: its prefix reads
 * back, calls are routed to its client with the prefix taken off, a missing key is named, and the
 * docs name its key variable. Nothing here names a provider.
 */
import { describe, expect, it } from "vitest";
import type { CreateMessageParams, ModelClient } from "../../src/model/model-client.js";
import {
  API_KEY_VARIABLES,
  createProviderRouter,
  PROVIDER_LABELS,
  PROVIDERS,
  parseModelId,
} from "../../src/model/provider.js";
import { readUserDocs } from "../support/docs-text.js";

const docs = readUserDocs();

describe.each(PROVIDERS)("the provider %s", (provider) => {
  it("is read back from its prefix, in any case", () => {
    expect(parseModelId(`${provider}:some-model`)).toEqual({ provider, model: "some-model" });
    expect(parseModelId(`${provider.toUpperCase()}:m`).provider).toBe(provider);
  });

  it("gets its models' calls, without the prefix, and only those", async () => {
    const seen: string[] = [];
    const clientOf = (name: string): ModelClient => ({
      async createMessage(params: CreateMessageParams) {
        seen.push(`${name}:${params.model}`);
        throw new Error("stop here");
      },
    });
    const router = createProviderRouter(Object.fromEntries(PROVIDERS.map((p) => [p, clientOf(p)])));
    await expect(
      router.createMessage({ model: `${provider}:m`, max_tokens: 1, messages: [] } as CreateMessageParams),
    ).rejects.toThrow("stop here");
    expect(seen).toEqual([`${provider}:m`]);
  });

  it("without a client, fails the call naming its key variable", async () => {
    const router = createProviderRouter({});
    await expect(
      router.createMessage({ model: `${provider}:m`, max_tokens: 1, messages: [] } as CreateMessageParams),
    ).rejects.toThrow(API_KEY_VARIABLES[provider]);
  });

  it("has a label for sentences and its key variable in the docs", () => {
    expect(PROVIDER_LABELS[provider].length).toBeGreaterThan(0);
    expect(docs).toContain(API_KEY_VARIABLES[provider]);
    expect(docs).toContain(`${provider}:`);
  });
});
