import Anthropic from "@anthropic-ai/sdk";
import { afterEach, describe, expect, it } from "vitest";
import {
  apiError,
  bashCall,
  finalText,
  type ModelServer,
  scriptByTurn,
  startModelServer,
} from "./model-server.js";

// The fake must speak the wire format the real SDK parses; these tests hold it to that.
describe("scripted Messages-API server", () => {
  let server: ModelServer | undefined;
  afterEach(async () => server?.close());

  it("answers the SDK with scripted tool calls, retrying a 429 with retry-after-ms", async () => {
    let calls = 0;
    server = await startModelServer((request) => {
      calls += 1;
      return calls === 1 ? apiError(429) : scriptByTurn([bashCall("ls -la"), finalText("done")])(request);
    });
    const client = new Anthropic({ apiKey: "test-key", baseURL: server.url, maxRetries: 2 });
    const message = await client.messages.create({
      model: "claude-test",
      max_tokens: 100,
      messages: [{ role: "user", content: "list files" }],
    });
    expect(message.stop_reason).toBe("tool_use");
    expect(message.content[0]).toMatchObject({
      type: "tool_use",
      name: "bash",
      input: { command: "ls -la" },
    });
    expect(server.messageRequests()).toHaveLength(2);
    const headers = server.requests[0]?.headers ?? {};
    expect(headers["x-api-key"] ?? headers.authorization).toMatch(/test-key/);
  });

  it("streams server-sent events that the SDK assembles into the same message", async () => {
    server = await startModelServer(() => ({
      kind: "message",
      content: [
        { type: "text", text: "Let me look." },
        { type: "tool_use", name: "Bash", input: { command: "echo 'a b'" } },
      ],
      usage: { input_tokens: 50, output_tokens: 7, cache_read_input_tokens: 40 },
    }));
    const client = new Anthropic({ apiKey: "test-key", baseURL: server.url, maxRetries: 0 });
    const stream = client.messages.stream({
      model: "claude-test",
      max_tokens: 100,
      messages: [{ role: "user", content: "go" }],
    });
    const message = await stream.finalMessage();
    expect(message.content).toEqual([
      expect.objectContaining({ type: "text", text: "Let me look." }),
      expect.objectContaining({ type: "tool_use", name: "Bash", input: { command: "echo 'a b'" } }),
    ]);
    expect(message.usage).toMatchObject({ input_tokens: 50, output_tokens: 7, cache_read_input_tokens: 40 });
    expect(message.stop_reason).toBe("tool_use");
  });
});

describe("prompt cache simulation", () => {
  let server: ModelServer | undefined;
  afterEach(async () => server?.close());

  it("writes the prefix up to the last breakpoint, then reads the longest cached prefix", async () => {
    server = await startModelServer(() => finalText("ok"), { simulatePromptCache: true });
    const client = new Anthropic({ apiKey: "test-key", baseURL: server.url, maxRetries: 0 });
    const system = [
      { type: "text" as const, text: "s".repeat(400), cache_control: { type: "ephemeral" as const } },
    ];
    const first = await client.messages.create({
      model: "m",
      max_tokens: 10,
      system,
      messages: [{ role: "user", content: "hello there" }],
    });
    expect(first.usage.cache_creation_input_tokens).toBeGreaterThan(100);
    expect(first.usage.cache_read_input_tokens).toBe(0);
    const second = await client.messages.create({
      model: "m",
      max_tokens: 10,
      system,
      messages: [
        {
          role: "user",
          content: [{ type: "text", text: "a longer question", cache_control: { type: "ephemeral" } }],
        },
      ],
    });
    expect(second.usage.cache_read_input_tokens).toBe(first.usage.cache_creation_input_tokens);
    expect(second.usage.cache_creation_input_tokens).toBeGreaterThan(0);
    expect(second.usage.input_tokens).toBe(0);
    const uncached = await client.messages.create({
      model: "m",
      max_tokens: 10,
      messages: [{ role: "user", content: "x" }],
    });
    expect(uncached.usage.cache_read_input_tokens).toBe(0);
    expect(uncached.usage.cache_creation_input_tokens).toBe(0);
  });
});
