import { afterEach, describe, expect, it } from "vitest";
import { createAimdLimiter } from "../../src/model/call-limiter.js";
import { type CreateMessageParams, ModelCallError, type RetryNotice } from "../../src/model/model-client.js";
import { createOpenAiClient, openAiApiFor } from "../../src/model/openai-client.js";
import { inOrder } from "../support/model-server.js";
import {
  type OpenAiResponder,
  type OpenAiServer,
  openAiBashCall,
  openAiText,
  startOpenAiServer,
} from "../support/openai-server.js";
import { createSleepClock } from "../support/sleep-clock.js";

const CANARY_KEY = "sk-proj-canary-4e8b1d7f2a9c6e3b5d0f";

/** A conversation one turn in: the model ran `ls`, the tool answered (with an error flag). */
const params: CreateMessageParams = {
  model: "gpt-test",
  max_tokens: 256,
  system: [{ type: "text", text: "system prompt", cache_control: { type: "ephemeral" } }],
  messages: [
    { role: "user", content: [{ type: "text", text: "list the files" }] },
    {
      role: "assistant",
      content: [
        { type: "text", text: "Looking." },
        { type: "tool_use", id: "call_1", name: "bash", input: { command: "ls" } },
      ],
    },
    {
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: "call_1", content: "exit 2: no such dir", is_error: true },
      ],
    },
  ],
  tools: [{ name: "bash", description: "run bash", input_schema: { type: "object", properties: {} } }],
};

const servers: OpenAiServer[] = [];
async function serve(respond: OpenAiResponder): Promise<OpenAiServer> {
  const server = await startOpenAiServer(respond);
  servers.push(server);
  return server;
}
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

describe("createOpenAiClient over Chat Completions", () => {
  it("sends the conversation as Chat Completions messages and maps the tool call back", async () => {
    const server = await serve(() => ({
      kind: "answer",
      text: "Trying again.",
      toolCalls: [{ id: "call_2", name: "bash", arguments: { command: "ls -la" } }],
      usage: { prompt_tokens: 120, completion_tokens: 9 },
    }));
    const client = createOpenAiClient({ apiKey: CANARY_KEY, baseURL: server.url });
    const response = await client.createMessage(params);

    expect(response).toMatchObject({
      model: "gpt-test",
      stop_reason: "tool_use",
      content: [
        { type: "text", text: "Trying again." },
        { type: "tool_use", id: "call_2", name: "bash", input: { command: "ls -la" } },
      ],
      usage: {
        input_tokens: 120,
        output_tokens: 9,
        cache_read_input_tokens: 0,
        cache_creation_input_tokens: 0,
      },
      attempts: 1,
    });
    const [request] = server.requests;
    expect(request?.path).toBe("/v1/chat/completions");
    expect(request?.headers.authorization).toBe(`Bearer ${CANARY_KEY}`);
    expect(request?.headers["openai-organization"]).toBeUndefined();
    expect(request?.body).toEqual({
      model: "gpt-test",
      max_completion_tokens: 256,
      messages: [
        { role: "system", content: "system prompt" },
        { role: "user", content: "list the files" },
        {
          role: "assistant",
          content: "Looking.",
          tool_calls: [
            { id: "call_1", type: "function", function: { name: "bash", arguments: '{"command":"ls"}' } },
          ],
        },
        { role: "tool", tool_call_id: "call_1", content: "Error: exit 2: no such dir" },
      ],
      tools: [
        {
          type: "function",
          function: { name: "bash", description: "run bash", parameters: { type: "object", properties: {} } },
        },
      ],
    });
  });

  it("counts cached prompt tokens apart from input, as Anthropic reports them", async () => {
    const server = await serve(
      inOrder(
        openAiText("done", { prompt_tokens: 1000, cached_tokens: 768, completion_tokens: 40 }),
        openAiText("done", { prompt_tokens: 1000, cached_tokens: 600, cache_write_tokens: 300 }),
      ),
    );
    const client = createOpenAiClient({ apiKey: CANARY_KEY, baseURL: server.url });
    const response = await client.createMessage(params);
    expect(response.stop_reason).toBe("end_turn");
    expect(response.usage).toEqual({
      input_tokens: 232,
      output_tokens: 40,
      cache_read_input_tokens: 768,
      cache_creation_input_tokens: 0,
    });
    // A gateway that reports cache writes: they are counted apart from input too.
    expect((await client.createMessage(params)).usage).toMatchObject({
      input_tokens: 100,
      cache_read_input_tokens: 600,
      cache_creation_input_tokens: 300,
    });
  });

  it("maps finish reasons, a forced tool choice and malformed arguments", async () => {
    const server = await serve(
      inOrder(
        { kind: "answer", text: "cut", finishReason: "length" },
        { kind: "answer", toolCalls: [{ name: "bash", arguments: '{"command": "ls' }] },
      ),
    );
    const client = createOpenAiClient({ apiKey: CANARY_KEY, baseURL: server.url });
    expect((await client.createMessage(params)).stop_reason).toBe("max_tokens");
    const forced = await client.createMessage({ ...params, tool_choice: { type: "tool", name: "bash" } });
    expect(server.requests[1]?.body.tool_choice).toEqual({ type: "function", function: { name: "bash" } });
    // The agent refuses a tool input that is not an object; the raw text shows what the model sent.
    expect(forced.content).toEqual([expect.objectContaining({ type: "tool_use", input: '{"command": "ls' })]);
  });

  it("keeps a refusal's words as the answer's text and maps a content filter stop to a refusal", async () => {
    const server = await serve(
      inOrder(
        { kind: "answer", refusal: "I can't help with deleting those files." },
        { kind: "answer", text: "partial", finishReason: "content_filter" },
      ),
    );
    const client = createOpenAiClient({ apiKey: CANARY_KEY, baseURL: server.url });
    const refused = await client.createMessage(params);
    expect(refused.content).toEqual([{ type: "text", text: "I can't help with deleting those files." }]);
    expect(refused.stop_reason).toBe("end_turn");
    const filtered = await client.createMessage(params);
    expect(filtered.stop_reason).toBe("refusal");
    expect(filtered.content).toEqual([{ type: "text", text: "partial" }]);
  });

  it("waits out a 429's retry-after-ms, tells the limiter, then succeeds", async () => {
    const server = await serve(
      inOrder({ kind: "error", status: 429, message: "slow down", retryAfterMs: 150 }, openAiBashCall("ls")),
    );
    const clock = createSleepClock();
    const limiter = createAimdLimiter({ initial: 4, max: 4 });
    const notices: RetryNotice[] = [];
    const client = createOpenAiClient({
      apiKey: CANARY_KEY,
      baseURL: server.url,
      limiter,
      sleep: clock.sleep,
      now: clock.now,
    });
    const response = await client.createMessage(params, { onRetry: (notice) => notices.push(notice) });

    expect(response.attempts).toBe(2);
    expect(response.waited_ms).toBe(150);
    expect(clock.sleeps).toEqual([150]);
    expect(notices).toEqual([
      {
        attempt: 1,
        status: 429,
        message: "rate limited (429): slow down",
        willRetry: true,
        retryAfterMs: 150,
        delayMs: 150,
      },
    ]);
    expect(limiter.limit()).toBe(2);
    expect(limiter.inFlight()).toBe(0);
  });

  it("retries a 500 with backoff and gives up after the attempts, saying so", async () => {
    const server = await serve(() => ({ kind: "error", status: 500, message: "boom" }));
    const clock = createSleepClock();
    const client = createOpenAiClient({
      apiKey: CANARY_KEY,
      baseURL: server.url,
      maxAttempts: 3,
      sleep: clock.sleep,
      now: clock.now,
      random: () => 0,
    });
    const error = await client.createMessage(params).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ModelCallError);
    expect(error).toMatchObject({ status: 500, attempts: 3 });
    expect((error as Error).message).toBe("gave up after 3 attempts: the API answered 500: boom");
    expect(clock.sleeps).toEqual([500, 1000]);
    expect(server.requests).toHaveLength(3);
  });

  it("abandons an attempt with no answer within the timeout and retries it", async () => {
    const server = await serve(inOrder({ kind: "hang" }, openAiText("late but fine")));
    const notices: RetryNotice[] = [];
    const client = createOpenAiClient({
      apiKey: CANARY_KEY,
      baseURL: server.url,
      requestTimeoutMs: 300,
      sleep: async () => {},
    });
    const response = await client.createMessage(params, { onRetry: (notice) => notices.push(notice) });
    expect(response.content).toEqual([{ type: "text", text: "late but fine" }]);
    expect(notices[0]?.message).toBe(`the request timed out after 300 ms with no answer from ${server.url}`);
    expect(notices[0]?.willRetry).toBe(true);
  });

  it("does not retry a rejected key, names where the key came from and never echoes it", async () => {
    const server = await serve(() => ({
      kind: "error",
      status: 401,
      message: `Incorrect API key provided: ${CANARY_KEY}`,
    }));
    const client = createOpenAiClient({
      apiKey: CANARY_KEY,
      baseURL: server.url,
      keySource: "OPENAI_API_KEY",
    });
    const error = (await client.createMessage(params).catch((caught: unknown) => caught)) as ModelCallError;
    expect(error.attempts).toBe(1);
    expect(error.message).toBe(
      "the API rejected the key (401: Incorrect API key provided: [redacted]); check the key in OPENAI_API_KEY",
    );
    expect(error.message).not.toContain(CANARY_KEY);
  });
});

describe("createOpenAiClient over the Responses API", () => {
  it("sends the models only the Responses API serves there, as input items, and maps the answer", async () => {
    const server = await serve(() => ({
      kind: "answer",
      text: "Checking.",
      toolCalls: [{ id: "call_9", name: "bash", arguments: { command: "pwd" } }],
      usage: { prompt_tokens: 500, cached_tokens: 256, completion_tokens: 30 },
    }));
    const client = createOpenAiClient({ apiKey: CANARY_KEY, baseURL: server.url });
    const response = await client.createMessage({ ...params, model: "gpt-5.2-pro" });

    expect(response).toMatchObject({
      model: "gpt-5.2-pro",
      stop_reason: "tool_use",
      content: [
        { type: "text", text: "Checking." },
        { type: "tool_use", id: "call_9", name: "bash", input: { command: "pwd" } },
      ],
      usage: {
        input_tokens: 244,
        output_tokens: 30,
        cache_read_input_tokens: 256,
        cache_creation_input_tokens: 0,
      },
    });
    const [request] = server.requests;
    expect(request?.path).toBe("/v1/responses");
    expect(request?.body).toEqual({
      model: "gpt-5.2-pro",
      instructions: "system prompt",
      max_output_tokens: 256,
      store: false,
      input: [
        { role: "user", content: "list the files" },
        { role: "assistant", content: "Looking." },
        { type: "function_call", call_id: "call_1", name: "bash", arguments: '{"command":"ls"}' },
        { type: "function_call_output", call_id: "call_1", output: "Error: exit 2: no such dir" },
      ],
      tools: [
        {
          type: "function",
          name: "bash",
          description: "run bash",
          parameters: { type: "object", properties: {} },
          strict: false,
        },
      ],
    });
  });

  it("uses the Responses API for every model when asked, and maps an answer cut at max_output_tokens", async () => {
    const server = await serve(() => ({ kind: "answer", text: "partial", incomplete: "max_output_tokens" }));
    const client = createOpenAiClient({ apiKey: CANARY_KEY, baseURL: server.url, api: "responses" });
    const response = await client.createMessage(params);
    expect(server.requests[0]?.path).toBe("/v1/responses");
    expect(response.stop_reason).toBe("max_tokens");
  });

  it("keeps a refusal part's words and maps a content-filtered response to a refusal", async () => {
    const server = await serve(
      inOrder(
        { kind: "answer", text: "Here is", refusal: "I won't run that." },
        { kind: "answer", text: "cut", incomplete: "content_filter" },
      ),
    );
    const client = createOpenAiClient({ apiKey: CANARY_KEY, baseURL: server.url, api: "responses" });
    const refused = await client.createMessage(params);
    expect(refused.content).toEqual([
      { type: "text", text: "Here is" },
      { type: "text", text: "I won't run that." },
    ]);
    expect(refused.stop_reason).toBe("end_turn");
    expect((await client.createMessage(params)).stop_reason).toBe("refusal");
  });

  it("chooses the API per model", () => {
    expect(openAiApiFor("gpt-5.2")).toBe("chat");
    expect(openAiApiFor("gpt-5-mini")).toBe("chat");
    expect(openAiApiFor("llama3:8b")).toBe("chat");
    expect(openAiApiFor("gpt-5-pro-2025-10-06")).toBe("responses");
    expect(openAiApiFor("gpt-5.1-codex-mini")).toBe("responses");
    expect(openAiApiFor("o3-pro")).toBe("responses");
    expect(openAiApiFor("gpt-5-pro", "chat")).toBe("chat");
  });
});
