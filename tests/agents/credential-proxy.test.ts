import type http from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { type CredentialProxy, startCredentialProxy } from "../../src/agents/credential-proxy.js";
import { startConnectProxy } from "../support/connect-proxy.js";
import { geminiText, startGeminiServer } from "../support/gemini-server.js";
import { type LoopbackServer, startLoopbackServer } from "../support/loopback-server.js";
import { apiError, bashCall, finalText, inOrder, startModelServer } from "../support/model-server.js";

const CANARY_KEY = "sk-ant-canary-proxy-5f4e3d2c1b0a";
const CLIENT_KEY = "sk-ant-what-the-agent-holds";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

async function startProxy(upstream: string): Promise<CredentialProxy> {
  const proxy = await startCredentialProxy({ apiKey: CANARY_KEY, upstream });
  cleanups.push(() => proxy.close());
  return proxy;
}

/** A loopback upstream whose handler the test writes; closed after the test. */
async function startUpstream(handler: http.RequestListener): Promise<LoopbackServer> {
  const upstream = await startLoopbackServer(handler);
  cleanups.push(upstream.close);
  return upstream;
}

describe("credential proxy", () => {
  it("forwards /v1/* with the real key in place of the client's, and the answer back", async () => {
    const server = await startModelServer(inOrder(bashCall("ls"), finalText("done")));
    cleanups.push(() => server.close());
    const proxy = await startProxy(server.url);
    expect(new URL(proxy.url).hostname).toBe("127.0.0.1");

    const response = await fetch(`${proxy.url}/v1/messages?beta=true`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-api-key": CLIENT_KEY,
        authorization: `Bearer ${CLIENT_KEY}`,
        // Other credentials a client may hold go nowhere either.
        "anthropic-api-key": CLIENT_KEY,
        cookie: "session=agent-cookie",
        "anthropic-version": "2023-06-01",
        "anthropic-beta": "claude-code-20250219",
      },
      body: JSON.stringify({
        model: "claude-test",
        max_tokens: 10,
        messages: [{ role: "user", content: "hi" }],
      }),
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { content: { type: string; name?: string }[] };
    expect(body.content[0]).toMatchObject({ type: "tool_use", name: "bash" });

    expect(server.requests).toHaveLength(1);
    const received = server.requests[0]!;
    expect(received.path).toBe("/v1/messages");
    expect(received.headers["x-api-key"]).toBe(CANARY_KEY);
    expect(received.headers.authorization).toBe(`Bearer ${CANARY_KEY}`);
    expect(received.headers["anthropic-version"]).toBe("2023-06-01");
    expect(received.headers["anthropic-beta"]).toBe("claude-code-20250219");
    expect(received.headers.host).toBe(new URL(server.url).host);
    expect(JSON.stringify(received.headers)).not.toContain(CLIENT_KEY);
    expect(received.headers.cookie).toBeUndefined();
    expect(received.body.model).toBe("claude-test");
    expect(proxy.forwarded()).toBe(1);
  });

  it("reaches the upstream through HTTP_PROXY from its proxyEnv, and directly when NO_PROXY covers it", async () => {
    const server = await startModelServer(() => finalText("ok"));
    const forward = await startConnectProxy();
    cleanups.push(
      () => server.close(),
      () => forward.close(),
    );
    const send = async (proxyEnv: Record<string, string>) => {
      const proxy = await startCredentialProxy({ apiKey: CANARY_KEY, upstream: server.url, proxyEnv });
      cleanups.push(() => proxy.close());
      const response = await fetch(`${proxy.url}/v1/messages`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": CLIENT_KEY },
        body: JSON.stringify({ model: "claude-test", max_tokens: 1, messages: [] }),
      });
      expect(response.status).toBe(200);
    };
    await send({ HTTP_PROXY: forward.url });
    expect(forward.forwarded).toEqual([`POST ${server.url}/v1/messages`]);
    await send({ HTTP_PROXY: forward.url, NO_PROXY: "127.0.0.1" });
    expect(forward.forwarded).toHaveLength(1);
    expect(server.messageRequests().map((request) => request.headers["x-api-key"])).toEqual([
      CANARY_KEY,
      CANARY_KEY,
    ]);
  });

  it("passes errors through with their status and retry headers", async () => {
    const server = await startModelServer(inOrder(apiError(429, 1500)));
    cleanups.push(() => server.close());
    const proxy = await startProxy(server.url);
    const response = await fetch(`${proxy.url}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": CLIENT_KEY },
      body: JSON.stringify({ model: "m", max_tokens: 1, messages: [] }),
    });
    expect(response.status).toBe(429);
    expect(response.headers.get("retry-after-ms")).toBe("1500");
    expect(((await response.json()) as { error: { type: string } }).error.type).toBe("rate_limit_error");
  });

  it("streams server-sent events through as they come, not when the upstream finishes", async () => {
    let releaseRest: () => void = () => undefined;
    const rest = new Promise<void>((resolve) => {
      releaseRest = resolve;
    });
    const upstream = await startUpstream(async (req, res) => {
      req.resume();
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write('event: message_start\ndata: {"type":"message_start"}\n\n');
      // The rest is sent only once the client has seen the first event: a buffering proxy hangs here.
      await rest;
      res.end('event: message_stop\ndata: {"type":"message_stop"}\n\n');
    });
    const proxy = await startProxy(upstream.url);
    const response = await fetch(`${proxy.url}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    const first = await reader.read();
    expect(decoder.decode(first.value)).toContain("message_start");
    releaseRest();
    let tail = "";
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      tail += decoder.decode(chunk.value);
    }
    expect(tail).toContain("message_stop");
  });

  it("keeps the upstream's path prefix and the query string", async () => {
    const seen: { url: string | undefined; key: string | string[] | undefined }[] = [];
    const upstream = await startUpstream((req, res) => {
      seen.push({ url: req.url, key: req.headers["x-api-key"] });
      req.resume();
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
    const proxy = await startProxy(`${upstream.url}/gateway/anthropic/`);
    const response = await fetch(`${proxy.url}/v1/messages/count_tokens?beta=true`, {
      method: "POST",
      body: "{}",
    });
    expect(response.status).toBe(200);
    expect(seen).toEqual([{ url: "/gateway/anthropic/v1/messages/count_tokens?beta=true", key: CANARY_KEY }]);
  });

  it("answers a connectivity probe itself and forwards nothing outside the allowed endpoints", async () => {
    const upstream = await startUpstream((req, res) => {
      req.resume();
      res.writeHead(500).end();
    });
    const proxy = await startProxy(upstream.url);
    const probe = await fetch(`${proxy.url}/`, { method: "HEAD" });
    expect(probe.status).toBe(200);
    const other = await fetch(`${proxy.url}/api/oauth/profile`);
    expect(other.status).toBe(403);
    expect(await other.json()).toMatchObject({
      type: "error",
      error: {
        type: "permission_error",
        message: expect.stringContaining("forwards only POST /v1/messages"),
      },
    });
    expect(proxy.refused()).toMatchObject([
      { reason: "not_allowed", method: "GET", path: "/api/oauth/profile" },
    ]);
    expect(proxy.forwarded()).toBe(0);
  });

  it("forwards only the agent's own endpoints under the upstream's prefix, refuses what the agent does not admit, and shows the agent each answer's status and body", async () => {
    const seen: string[] = [];
    const upstream = await startUpstream((req, res) => {
      seen.push(`${req.method} ${req.url} ${req.headers.authorization}`);
      req.resume();
      res.writeHead(seen.length === 1 ? 200 : 429, { "content-type": "application/json" }).end("{}");
    });
    const statuses: [string, number][] = [];
    const bodies: string[] = [];
    let admitted = 0;
    const proxy = await startCredentialProxy({
      apiKey: CANARY_KEY,
      upstream: `${upstream.url}/v1`,
      api: "openai",
      admit: () => (admitted++ < 2 ? null : "the trial's turn limit is reached"),
      onUpstreamResponse: ({ endpoint, status }) => {
        statuses.push([endpoint, status]);
        return (chunk) => bodies.push(chunk.toString());
      },
    });
    cleanups.push(() => proxy.close());
    const post = (path: string) =>
      fetch(`${proxy.url}${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${CLIENT_KEY}` },
        body: "{}",
      });
    expect((await post("/responses")).status).toBe(200);
    // Another provider's endpoint, the same path under the prefix, or a climb out: not the agent's.
    for (const path of ["/v1/messages", "/v1/responses", "/responses/../files"]) {
      expect((await post(path)).status).toBe(403);
    }
    expect((await post("/responses")).status).toBe(429);
    const limited = await post("/responses");
    expect(limited.status).toBe(403);
    expect(await limited.text()).toContain("the trial's turn limit is reached");
    expect(seen).toEqual([
      `POST /v1/responses Bearer ${CANARY_KEY}`,
      `POST /v1/responses Bearer ${CANARY_KEY}`,
    ]);
    expect(statuses).toEqual([
      ["POST /responses", 200],
      ["POST /responses", 429],
    ]);
    // The bodies as relayed, for the agent to read (the answers' token counts).
    expect(bodies).toEqual(["{}", "{}"]);
    expect(proxy.refused().map((refusal) => refusal.reason)).toEqual([
      "not_allowed",
      "not_allowed",
      "not_allowed",
      "agent_limit",
    ]);
  });

  it("answers 502 in the API's error format when the upstream cannot be reached, without the key", async () => {
    const upstream = await startUpstream(() => undefined);
    const deadUrl = upstream.url;
    await upstream.close();
    const proxy = await startProxy(deadUrl);
    const response = await fetch(`${proxy.url}/v1/messages`, { method: "POST", body: "{}" });
    expect(response.status).toBe(502);
    const text = await response.text();
    expect(JSON.parse(text)).toMatchObject({ type: "error", error: { type: "api_error" } });
    expect(text).toContain("could not reach");
    expect(text).not.toContain(CANARY_KEY);
  });

  it("ends the upstream request when the client goes away mid-stream", async () => {
    let upstreamClosed: () => void = () => undefined;
    const closed = new Promise<void>((resolve) => {
      upstreamClosed = resolve;
    });
    const upstream = await startUpstream((req, res) => {
      req.resume();
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write("event: ping\ndata: {}\n\n");
      res.on("close", () => upstreamClosed());
    });
    const proxy = await startProxy(upstream.url);
    const controller = new AbortController();
    const response = await fetch(`${proxy.url}/v1/messages`, {
      method: "POST",
      body: "{}",
      signal: controller.signal,
    });
    const reader = response.body!.getReader();
    await reader.read();
    controller.abort();
    await closed;
  });

  it("refuses an empty key and a non-HTTP base URL", async () => {
    await expect(startCredentialProxy({ apiKey: "", upstream: "http://127.0.0.1:1" })).rejects.toThrow(
      /apiKey/,
    );
    await expect(
      startCredentialProxy({ apiKey: CANARY_KEY, upstream: "ftp://example.test" }),
    ).rejects.toThrow(/http\(s\)/);
  });
});

describe("credential proxy for the Gemini API", () => {
  async function startGeminiProxy(upstream: string): Promise<CredentialProxy> {
    const proxy = await startCredentialProxy({ apiKey: CANARY_KEY, upstream, api: "gemini" });
    cleanups.push(() => proxy.close());
    return proxy;
  }

  it("sends the real key as x-goog-api-key, never the client's key from a header or the query", async () => {
    const server = await startGeminiServer(() => geminiText("hello"));
    cleanups.push(() => server.close());
    const proxy = await startGeminiProxy(server.url);
    const response = await fetch(
      `${proxy.url}/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse&key=${CLIENT_KEY}&access_token=${CLIENT_KEY}`,
      {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-goog-api-key": CLIENT_KEY,
          authorization: `Bearer ${CLIENT_KEY}`,
          "x-api-key": CLIENT_KEY,
          "x-goog-user-project": "agent-project",
        },
        body: JSON.stringify({ contents: [{ role: "user", parts: [{ text: "hi" }] }] }),
      },
    );
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('"text":"hello"');
    expect(server.requests).toHaveLength(1);
    const received = server.requests[0]!;
    expect(received.path).toBe("/v1beta/models/gemini-2.5-flash:streamGenerateContent");
    // Only alt survives: a key in the query would reach the upstream (and its logs) unreplaced.
    expect(received.query).toBe("alt=sse");
    expect(received.headers["x-goog-api-key"]).toBe(CANARY_KEY);
    // Anthropic's headers are not Google's: the key goes out once, where Gemini reads it.
    expect(received.headers.authorization).toBeUndefined();
    expect(received.headers["x-api-key"]).toBeUndefined();
    expect(received.headers["x-goog-user-project"]).toBeUndefined();
    expect(JSON.stringify(received.headers)).not.toContain(CLIENT_KEY);
  });

  it("forwards only a model's generateContent and countTokens, refusing in Gemini's error format", async () => {
    const upstream = await startUpstream((req, res) => {
      req.resume();
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
    const proxy = await startGeminiProxy(`${upstream.url}/gateway/`);
    const send = (method: string, path: string) =>
      fetch(`${proxy.url}${path}`, { method, ...(method === "POST" ? { body: "{}" } : {}) });
    for (const path of [
      "/v1beta/models/gemini-2.5-flash:generateContent",
      "/v1/models/gemini-2.5-pro:countTokens",
      "/v1beta/models/gemini-2.5-flash%3AstreamGenerateContent?alt=sse",
    ]) {
      expect((await send("POST", path)).status).toBe(200);
    }
    const refusedPaths = [
      ["GET", "/v1beta/models"],
      ["POST", "/v1beta/files"],
      ["POST", "/upload/v1beta/files"],
      ["POST", "/v1beta/models/gemini-2.5-flash:embedContent"],
      ["POST", "/v1beta/tunedModels/x:generateContent"],
      ["POST", "/v1/messages"],
      ["POST", "/v1beta/models/gemini-2.5-flash:generateContent/../../../files"],
      ["POST", "/v1beta/models/..%2Ffiles:generateContent"],
    ] as const;
    for (const [method, path] of refusedPaths) {
      const response = await send(method, path);
      expect(response.status, `${method} ${path}`).toBe(403);
      expect(await response.json()).toMatchObject({
        error: {
          code: 403,
          status: "PERMISSION_DENIED",
          message: expect.stringContaining("llm-tool-test proxy"),
        },
      });
    }
    expect(proxy.forwarded()).toBe(3);
    expect(proxy.refused()).toHaveLength(refusedPaths.length);
  });

  it("refuses Gemini's endpoints when the proxy speaks Anthropic's API", async () => {
    const upstream = await startUpstream((req, res) => {
      req.resume();
      res.writeHead(200).end("{}");
    });
    const proxy = await startProxy(upstream.url);
    const response = await fetch(`${proxy.url}/v1beta/models/gemini-2.5-flash:generateContent`, {
      method: "POST",
      body: "{}",
    });
    expect(response.status).toBe(403);
    expect(proxy.forwarded()).toBe(0);
  });
});
