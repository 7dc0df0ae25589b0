import { afterEach, describe, expect, it, vi } from "vitest";
import { createAnthropicClient } from "../../src/model/anthropic-client.js";
import { createAimdLimiter } from "../../src/model/call-limiter.js";
import {
  type CallLimiter,
  type CreateMessageParams,
  ModelCallError,
  type RetryNotice,
} from "../../src/model/model-client.js";
import {
  apiError,
  bashCall,
  finalText,
  inOrder,
  type ModelServer,
  type Responder,
  startModelServer,
} from "../support/model-server.js";
import { createSleepClock } from "../support/sleep-clock.js";

const CANARY_KEY = "sk-ant-canary-7f3a9c1e5b2d4f6a8c0e";

const params: CreateMessageParams = {
  model: "claude-test",
  max_tokens: 256,
  system: [{ type: "text", text: "system prompt", cache_control: { type: "ephemeral" } }],
  messages: [{ role: "user", content: [{ type: "text", text: "hello" }] }],
  tools: [{ name: "bash", description: "run bash", input_schema: { type: "object", properties: {} } }],
};

const servers: ModelServer[] = [];
async function serve(respond: Responder): Promise<ModelServer> {
  const server = await startModelServer(respond);
  servers.push(server);
  return server;
}
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

describe("createAnthropicClient", () => {
  it("sends the request with the given key only and maps the response", async () => {
    const server = await serve(() => ({
      kind: "message",
      content: [
        { type: "text", text: "Looking." },
        { type: "tool_use", id: "toolu_1", name: "bash", input: { command: "ls" } },
      ],
      usage: {
        input_tokens: 120,
        output_tokens: 9,
        cache_read_input_tokens: 100,
        cache_creation_input_tokens: 20,
      },
    }));
    const client = createAnthropicClient({ apiKey: CANARY_KEY, baseURL: server.url });
    const response = await client.createMessage(params);

    expect(response).toMatchObject({
      model: "claude-test",
      stop_reason: "tool_use",
      content: [
        { type: "text", text: "Looking." },
        { type: "tool_use", id: "toolu_1", name: "bash", input: { command: "ls" } },
      ],
      usage: {
        input_tokens: 120,
        output_tokens: 9,
        cache_read_input_tokens: 100,
        cache_creation_input_tokens: 20,
      },
      attempts: 1,
      waited_ms: 0,
    });
    const [request] = server.messageRequests();
    expect(request?.headers.authorization).toBe(`Bearer ${CANARY_KEY}`);
    expect(request?.headers["x-api-key"]).toBeUndefined();
    expect(request?.body).toMatchObject({
      model: "claude-test",
      max_tokens: 256,
      system: params.system,
      messages: params.messages,
      tools: params.tools,
    });
    expect(request?.body.stream).toBeFalsy();
  });

  it("talks HTTP through its keep-alive dispatcher, one connection for many calls, never Node's fetch", async () => {
    const server = await serve(() => ({ kind: "message", content: [{ type: "text", text: "ok" }] }));
    const globalFetch = vi.spyOn(globalThis, "fetch");
    try {
      const client = createAnthropicClient({ apiKey: CANARY_KEY, baseURL: server.url, proxyEnv: {} });
      for (let call = 0; call < 4; call += 1) {
        expect((await client.createMessage(params)).content).toEqual([{ type: "text", text: "ok" }]);
        // A trial runs a command between calls; undici frees the connection a tick after the answer.
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      expect(globalFetch).not.toHaveBeenCalled();
    } finally {
      globalFetch.mockRestore();
    }
    expect(server.messageRequests()).toHaveLength(4);
    expect(server.connections()).toBe(1);
  });

  it("retries 429, 529 and 500 answers, honouring retry-after-ms, and reports every failed attempt", async () => {
    const server = await serve(
      inOrder(apiError(429), apiError(529), apiError(500), finalText("ok"), finalText("unexpected")),
    );
    const clock = createSleepClock();
    const notices: RetryNotice[] = [];
    const client = createAnthropicClient({ apiKey: CANARY_KEY, baseURL: server.url, ...clock });
    const response = await client.createMessage(params, { onRetry: (notice) => notices.push(notice) });

    expect(response.content).toEqual([{ type: "text", text: "ok" }]);
    expect(response.attempts).toBe(4);
    expect(notices.map((n) => [n.attempt, n.status, n.willRetry, n.retryAfterMs, n.delayMs])).toEqual([
      [1, 429, true, 1, 1],
      [2, 529, true, 1, 1],
      [3, 500, true, 1, 1],
    ]);
    expect(notices[0]?.message).toMatch(/rate limited \(429\)/);
    expect(notices[1]?.message).toMatch(/overloaded \(529\)/);
    expect(clock.sleeps).toEqual([1, 1, 1]);
    expect(response.waited_ms).toBe(3);
    expect(server.messageRequests()).toHaveLength(4);
  });

  it("gives up after maxAttempts with a ModelCallError and the last notice saying so", async () => {
    const server = await serve(() => apiError(529));
    const notices: RetryNotice[] = [];
    const client = createAnthropicClient({ apiKey: CANARY_KEY, baseURL: server.url, maxAttempts: 3 });
    const error = await client
      .createMessage(params, { onRetry: (notice) => notices.push(notice) })
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ModelCallError);
    expect(error).toMatchObject({ status: 529, attempts: 3 });
    expect((error as Error).message).toMatch(/^gave up after 3 attempts: the API is overloaded \(529\)/);
    expect(notices.map((n) => n.willRetry)).toEqual([true, true, false]);
    expect(notices[2]?.delayMs).toBeNull();
    expect(server.messageRequests()).toHaveLength(3);
  });

  it("fails at once on a 401, naming where the key comes from and never the key", async () => {
    const server = await serve(() => ({
      kind: "error",
      status: 401,
      // A proxy that echoes the key back must not get it into our messages either.
      message: `invalid x-api-key ${CANARY_KEY}`,
    }));
    const notices: RetryNotice[] = [];
    const client = createAnthropicClient({ apiKey: CANARY_KEY, baseURL: server.url });
    const error = await client
      .createMessage(params, { onRetry: (notice) => notices.push(notice) })
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ModelCallError);
    const message = (error as Error).message;
    expect(message).toMatch(/the API rejected the key \(401/);
    expect(message).toContain("ANTHROPIC_API_KEY");
    expect(message).not.toContain(CANARY_KEY);
    expect(message).toContain("[redacted]");
    expect(JSON.stringify(notices)).not.toContain(CANARY_KEY);
    expect(notices).toHaveLength(1);
    expect(notices[0]?.willRetry).toBe(false);
    expect(server.messageRequests()).toHaveLength(1);
  });

  it("says which input supplies the key when told", async () => {
    const server = await serve(() => ({ kind: "error", status: 403, message: "forbidden" }));
    const client = createAnthropicClient({
      apiKey: CANARY_KEY,
      baseURL: server.url,
      keySource: "the api-key input",
    });
    await expect(client.createMessage(params)).rejects.toThrow(
      /rejected the key \(403: forbidden\); check the key in the api-key input/,
    );
  });

  it("turns a 404 about the model into an unknown-model message", async () => {
    const server = await serve(() => ({ kind: "error", status: 404, message: "model: claude-nope" }));
    const client = createAnthropicClient({ apiKey: CANARY_KEY, baseURL: server.url });
    const error = await client.createMessage({ ...params, model: "claude-nope" }).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/^unknown model "claude-nope" .*check the model name/);
    expect(server.messageRequests()).toHaveLength(1);
  });

  it("passes a 400's API message through without retrying", async () => {
    const server = await serve(() => ({
      kind: "error",
      status: 400,
      message: "messages.0.content: text content blocks must be non-empty",
    }));
    const client = createAnthropicClient({ apiKey: CANARY_KEY, baseURL: server.url });
    const error = await client.createMessage(params).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 400, attempts: 1 });
    expect((error as Error).message).toBe(
      "the API refused the request (400): messages.0.content: text content blocks must be non-empty",
    );
  });

  it("retries a request that hangs past the request timeout", async () => {
    const server = await serve(inOrder({ kind: "hang" }, finalText("late but fine")));
    const notices: RetryNotice[] = [];
    const client = createAnthropicClient({
      apiKey: CANARY_KEY,
      baseURL: server.url,
      requestTimeoutMs: 200,
      sleep: async () => {},
    });
    const response = await client.createMessage(params, { onRetry: (notice) => notices.push(notice) });
    expect(response.content).toEqual([{ type: "text", text: "late but fine" }]);
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatchObject({ status: null, willRetry: true, retryAfterMs: null });
    expect(notices[0]?.message).toMatch(/timed out after 200 ms/);
  });

  it("times out an answer that stalls after its headers, which the SDK's own timeout does not cover", async () => {
    const server = await serve(inOrder({ kind: "stall" }, finalText("second try")));
    const notices: RetryNotice[] = [];
    const client = createAnthropicClient({
      apiKey: CANARY_KEY,
      baseURL: server.url,
      requestTimeoutMs: 200,
      sleep: async () => {},
    });
    const started = performance.now();
    const response = await client.createMessage(params, { onRetry: (notice) => notices.push(notice) });
    expect(response.content).toEqual([{ type: "text", text: "second try" }]);
    expect(response.attempts).toBe(2);
    expect(notices).toEqual([
      expect.objectContaining({
        status: null,
        willRetry: true,
        message: expect.stringMatching(/timed out after 200 ms/),
      }),
    ]);
    expect(performance.now() - started).toBeLessThan(5000);
  });

  it("retries a connection the server resets, up to maxAttempts", async () => {
    const server = await serve(() => ({ kind: "reset" }));
    const notices: RetryNotice[] = [];
    const client = createAnthropicClient({
      apiKey: CANARY_KEY,
      baseURL: server.url,
      maxAttempts: 3,
      sleep: async () => {},
    });
    const failure = await client
      .createMessage(params, { onRetry: (notice) => notices.push(notice) })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ModelCallError);
    expect((failure as ModelCallError).message).toMatch(/^gave up after 3 attempts: could not reach/);
    expect(notices.map((n) => n.willRetry)).toEqual([true, true, false]);
    expect(server.messageRequests()).toHaveLength(3);
  });

  it("refuses a request timeout that is not positive", () => {
    expect(() => createAnthropicClient({ apiKey: CANARY_KEY, requestTimeoutMs: 0 })).toThrow(
      /requestTimeoutMs > 0/,
    );
  });

  it("retries a refused connection and then reports it", async () => {
    const server = await serve(() => finalText("never"));
    const url = server.url;
    await server.close();
    servers.splice(servers.indexOf(server), 1);
    const notices: RetryNotice[] = [];
    const client = createAnthropicClient({
      apiKey: CANARY_KEY,
      baseURL: url,
      maxAttempts: 2,
      sleep: async () => {},
    });
    const error = await client
      .createMessage(params, { onRetry: (n) => notices.push(n) })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ status: null, attempts: 2 });
    expect((error as Error).message).toContain(`could not reach ${url}`);
    expect(notices.map((n) => n.willRetry)).toEqual([true, false]);
  });

  it("backs off exponentially when the server gives no retry-after, and honours retry-after seconds", async () => {
    const server = await serve(
      inOrder(
        { kind: "error", status: 500 },
        { kind: "error", status: 502 },
        { kind: "error", status: 503 },
        { kind: "error", status: 429, retryAfterSeconds: 2 },
        finalText("ok"),
      ),
    );
    const clock = createSleepClock();
    const client = createAnthropicClient({
      apiKey: CANARY_KEY,
      baseURL: server.url,
      random: () => 0,
      ...clock,
    });
    const response = await client.createMessage(params);
    expect(clock.sleeps).toEqual([500, 1000, 2000, 2000]);
    expect(response.waited_ms).toBe(5500);
  });

  it("stops at once when the signal aborts during a call or a backoff sleep", async () => {
    // Aborted once the server holds the request (it never answers): only the abort can end the call.
    const controller = new AbortController();
    const hanging = await serve(() => {
      setImmediate(() => controller.abort("timeout"));
      return { kind: "hang" };
    });
    const client = createAnthropicClient({ apiKey: CANARY_KEY, baseURL: hanging.url });
    await expect(client.createMessage(params, { signal: controller.signal })).rejects.toThrow(
      /aborted \(timeout\)/,
    );
    expect(hanging.messageRequests()).toHaveLength(1);

    // Aborted once the client starts its 60 s backoff: it ends long before the sleep would (the
    // test's own timeout is half of it), with no second request.
    const limited = await serve(() => apiError(429, 60_000));
    const sleepy = createAnthropicClient({ apiKey: CANARY_KEY, baseURL: limited.url });
    const second = new AbortController();
    const notices: RetryNotice[] = [];
    const onRetry = (notice: RetryNotice) => {
      notices.push(notice);
      setImmediate(() => second.abort("cancelled"));
    };
    await expect(sleepy.createMessage(params, { signal: second.signal, onRetry })).rejects.toThrow(
      /aborted \(cancelled\)/,
    );
    expect(notices).toEqual([expect.objectContaining({ status: 429, willRetry: true, delayMs: 60_000 })]);
    expect(limited.messageRequests()).toHaveLength(1);
  });

  it("tells the limiter about rate limits and successes, and releases every slot it takes", async () => {
    const server = await serve(inOrder(apiError(429, 5), apiError(500), apiError(529, 5), finalText("ok")));
    const calls: string[] = [];
    let held = 0;
    const limiter: CallLimiter = {
      acquire: async () => {
        held += 1;
        calls.push("acquire");
      },
      release: () => {
        held -= 1;
        calls.push("release");
      },
      onRateLimited: (ms) => calls.push(`limited ${ms}`),
      onSuccess: () => calls.push("success"),
      waitedMs: () => 0,
    };
    const client = createAnthropicClient({
      apiKey: CANARY_KEY,
      baseURL: server.url,
      limiter,
      sleep: async () => {},
    });
    await client.createMessage(params);
    expect(held).toBe(0);
    expect(calls).toEqual([
      "acquire",
      "release",
      "limited 5",
      "acquire",
      "release",
      "acquire",
      "release",
      "limited 5",
      "acquire",
      "success",
      "release",
    ]);
  });

  it("adapts a real AIMD limiter and counts the time spent waiting for a slot", async () => {
    const server = await serve(inOrder(apiError(429, 30), finalText("ok")));
    const limiter = createAimdLimiter({ initial: 4, max: 8 });
    const client = createAnthropicClient({
      apiKey: CANARY_KEY,
      baseURL: server.url,
      limiter,
      sleep: async () => {},
    });
    // The client's own sleep returns at once, so the wait comes from the limiter's global pause.
    const response = await client.createMessage(params);
    expect(limiter.limit()).toBe(2);
    expect(response.waited_ms).toBeGreaterThanOrEqual(20);
    expect(limiter.waitedMs()).toBeGreaterThanOrEqual(20);
    expect(limiter.inFlight()).toBe(0);
  });

  it("holds a limiter slot for one attempt only: a hung attempt frees it at its deadline", async () => {
    let count = 0;
    const server = await serve(() => (++count === 1 ? { kind: "hang" } : finalText(`answer ${count}`)));
    // One slot, as after 429/529s have cut the limit: the hung call must not keep it.
    const limiter = createAimdLimiter({ initial: 1, max: 1 });
    const client = createAnthropicClient({
      apiKey: CANARY_KEY,
      baseURL: server.url,
      limiter,
      requestTimeoutMs: 300,
      sleep: async () => {},
    });
    const hung = client.createMessage(params);
    await vi.waitFor(() => expect(server.messageRequests()).toHaveLength(1));
    const started = performance.now();
    const queued = await client.createMessage(params);
    // The second call got the slot when the first attempt's deadline passed, not minutes later.
    expect(queued.content).toEqual([{ type: "text", text: "answer 2" }]);
    expect(performance.now() - started).toBeLessThan(3000);
    expect(queued.waited_ms).toBeGreaterThanOrEqual(150);
    // The hung call's retry queued behind it and then succeeded.
    expect((await hung).attempts).toBe(2);
    expect(limiter.inFlight()).toBe(0);
    expect(limiter.queued()).toBe(0);
  });

  it("frees the slot of an aborted call and removes an aborted call from the queue", async () => {
    const server = await serve(() => ({ kind: "hang" }));
    const limiter = createAimdLimiter({ initial: 1, max: 1 });
    const client = createAnthropicClient({ apiKey: CANARY_KEY, baseURL: server.url, limiter });
    const inFlight = new AbortController();
    const running = client.createMessage(params, { signal: inFlight.signal });
    await vi.waitFor(() => expect(server.messageRequests()).toHaveLength(1));
    const waiting = new AbortController();
    const queued = client.createMessage(params, { signal: waiting.signal });
    await vi.waitFor(() => expect(limiter.queued()).toBe(1));

    waiting.abort("timeout");
    await expect(queued).rejects.toThrow(/aborted \(timeout\)/);
    expect(limiter.queued()).toBe(0);
    expect(limiter.inFlight()).toBe(1);

    inFlight.abort("cancelled");
    await expect(running).rejects.toThrow(/aborted \(cancelled\)/);
    expect(limiter.inFlight()).toBe(0);
    // Only the call that reached the slot was ever sent.
    expect(server.messageRequests()).toHaveLength(1);
  });

  it("uses no ambient credential, base URL or header from the environment", async () => {
    const server = await serve(() => bashCall("true"));
    const decoy = await serve(() => finalText("wrong server"));
    const saved = { ...process.env };
    Object.assign(process.env, {
      ANTHROPIC_API_KEY: "ambient-api-key",
      ANTHROPIC_AUTH_TOKEN: "ambient-auth-token",
      ANTHROPIC_BASE_URL: decoy.url,
      ANTHROPIC_PROFILE: "no-such-profile",
      ANTHROPIC_CUSTOM_HEADERS: "X-Api-Key: ambient-custom-key\nAuthorization: Bearer ambient-custom-token",
      ANTHROPIC_LOG: "debug",
    });
    let loggedCalls = -1;
    const logged = (["debug", "info", "log", "warn", "error"] as const).map((level) =>
      vi.spyOn(console, level).mockImplementation(() => {}),
    );
    try {
      const client = createAnthropicClient({ apiKey: CANARY_KEY, baseURL: server.url });
      await client.createMessage(params);
    } finally {
      loggedCalls = logged.reduce((sum, spy) => sum + spy.mock.calls.length, 0);
      for (const spy of logged) spy.mockRestore();
      for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
      Object.assign(process.env, saved);
    }
    expect(decoy.requests).toHaveLength(0);
    const headers = server.messageRequests()[0]?.headers ?? {};
    expect(headers.authorization).toBe(`Bearer ${CANARY_KEY}`);
    expect(headers["x-api-key"]).toBeUndefined();
    expect(JSON.stringify(headers)).not.toContain("ambient");
    // ANTHROPIC_LOG=debug would print request details to the run's stdout.
    expect(loggedCalls).toBe(0);
  });

  it("prints the SDK's deprecated-model warning once, however many requests name the model", async () => {
    const server = await serve(() => finalText("done"));
    const warned = vi.spyOn(console, "warn").mockImplementation(() => {});
    let warnings: unknown[][] = [];
    try {
      const client = createAnthropicClient({ apiKey: CANARY_KEY, baseURL: server.url });
      // claude-sonnet-4-5 is in the bundled SDK's list of deprecated models.
      const deprecated = { ...params, model: "claude-sonnet-4-5" };
      await Promise.all([client.createMessage(deprecated), client.createMessage(deprecated)]);
      for (let call = 0; call < 3; call += 1) await client.createMessage(deprecated);
      await client.createMessage(params);
      warnings = warned.mock.calls.map((args) => [...args]);
    } finally {
      warned.mockRestore();
    }
    expect(server.messageRequests()).toHaveLength(6);
    expect(warnings).toHaveLength(1);
    expect(String(warnings[0]?.[0])).toMatch(/^The model 'claude-sonnet-4-5' is deprecated/);
  });
});
