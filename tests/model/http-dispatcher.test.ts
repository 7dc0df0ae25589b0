/**
 * The model client's HTTP honours HTTPS_PROXY / HTTP_PROXY / NO_PROXY: a forward proxy on 127.0.0.1
 * stands in front of the scripted Messages API and records what went through it. The SDK's fetch
 * over undici's request API behaves as fetch does where the SDK can tell.
 */
import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createAnthropicClient } from "../../src/model/anthropic-client.js";
import { createHttpDispatcher, createHttpFetch, type ProxyEnv } from "../../src/model/http-dispatcher.js";
import type { CreateMessageParams } from "../../src/model/model-client.js";
import { type ConnectProxy, startConnectProxy } from "../support/connect-proxy.js";
import { finalText, type ModelServer, readRequestBody, startModelServer } from "../support/model-server.js";

const KEY = "sk-ant-test-proxy-0123456789";

const params: CreateMessageParams = {
  model: "claude-test",
  max_tokens: 16,
  messages: [{ role: "user", content: [{ type: "text", text: "hello" }] }],
};

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

async function setup(): Promise<{ server: ModelServer; proxy: ConnectProxy }> {
  const server = await startModelServer(() => finalText("through"));
  const proxy = await startConnectProxy();
  cleanups.push(
    () => server.close(),
    () => proxy.close(),
  );
  return { server, proxy };
}

/** Two calls from a client on `baseURL` with `proxyEnv`; both must be answered. */
async function callTwice(baseURL: string, proxyEnv: ProxyEnv): Promise<void> {
  const client = createAnthropicClient({ apiKey: KEY, baseURL, proxyEnv, maxAttempts: 1 });
  for (let call = 0; call < 2; call += 1) {
    expect((await client.createMessage(params)).content).toEqual([{ type: "text", text: "through" }]);
  }
}

/** Sets process.env for the duration of `body`, then restores it exactly. */
async function withProcessEnv<T>(vars: Record<string, string>, body: () => Promise<T>): Promise<T> {
  const saved = { ...process.env };
  Object.assign(process.env, vars);
  try {
    return await body();
  } finally {
    for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
    Object.assign(process.env, saved);
  }
}

describe("model HTTP and proxies", () => {
  it.each(["HTTP_PROXY", "http_proxy"])(
    "sends http:// calls through %s as absolute-URI requests",
    async (name) => {
      const { server, proxy } = await setup();
      await callTwice(server.url, { [name]: proxy.url });
      expect(proxy.forwarded).toEqual([`POST ${server.url}/v1/messages`, `POST ${server.url}/v1/messages`]);
      expect(proxy.connects).toEqual([]);
      expect(server.messageRequests()[0]?.headers.authorization).toBe(`Bearer ${KEY}`);
    },
  );

  it("goes direct when NO_PROXY covers the host", async () => {
    const { server, proxy } = await setup();
    await callTwice(server.url, {
      HTTP_PROXY: proxy.url,
      HTTPS_PROXY: proxy.url,
      NO_PROXY: "example.test,127.0.0.1",
    });
    expect(proxy.connections()).toBe(0);
    expect(server.messageRequests()).toHaveLength(2);
  });

  it("goes direct without proxy variables, whatever process.env says, and HTTPS_PROXY does not apply to http://", async () => {
    const { server, proxy } = await setup();
    await withProcessEnv({ HTTP_PROXY: proxy.url, http_proxy: proxy.url }, () => callTwice(server.url, {}));
    await callTwice(server.url, { HTTPS_PROXY: proxy.url, https_proxy: proxy.url });
    expect(proxy.connections()).toBe(0);
    expect(server.messageRequests()).toHaveLength(4);
  });

  it("reads the proxy from process.env when no proxyEnv is given, when the client is created", async () => {
    const { server, proxy } = await setup();
    const client = await withProcessEnv({ HTTP_PROXY: proxy.url, http_proxy: proxy.url }, async () =>
      createAnthropicClient({ apiKey: KEY, baseURL: server.url, maxAttempts: 1 }),
    );
    expect((await client.createMessage(params)).content).toEqual([{ type: "text", text: "through" }]);
    expect(proxy.forwarded).toEqual([`POST ${server.url}/v1/messages`]);
  });

  it("tunnels https:// calls through HTTPS_PROXY with CONNECT to the API's host and port", async () => {
    // The scripted server speaks plain http, so TLS fails once the tunnel stands: the CONNECT
    // and the client's report of the failure are what this shows.
    const { server, proxy } = await setup();
    const { host } = new URL(server.url);
    const baseURL = `https://${host}`;
    const client = createAnthropicClient({
      apiKey: KEY,
      baseURL,
      proxyEnv: { HTTPS_PROXY: proxy.url },
      maxAttempts: 1,
    });
    await expect(client.createMessage(params)).rejects.toThrow(`could not reach ${baseURL}`);
    expect(proxy.connects).toEqual([host]);
    expect(proxy.forwarded).toEqual([]);
    expect(server.messageRequests()).toHaveLength(0);
  });
});

/** A loopback server whose handler answers each request; closed after the test. */
async function startServer(handler: http.RequestListener): Promise<string> {
  const server = http.createServer(handler);
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  cleanups.push(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe("the model SDK's fetch over undici's request API", () => {
  const httpFetch = createHttpFetch(createHttpDispatcher({}));

  it("sends the method, headers and body, and answers with the status, headers and whole body", async () => {
    const seen: { method?: string; url?: string; header?: string; body?: string }[] = [];
    const url = await startServer(async (request, response) => {
      seen.push({
        method: request.method,
        url: request.url,
        header: request.headers["x-api-key"] as string,
        body: await readRequestBody(request),
      });
      response.setHeader("set-cookie", ["a=1", "b=2"]);
      response.writeHead(429, "Slow Down", { "content-type": "application/json", "retry-after-ms": "7" });
      response.end('{"error":"later"}');
    });
    const answer = await httpFetch(`${url}/v1/messages?beta=true`, {
      method: "POST",
      headers: new Headers({ "x-api-key": "k-1", "content-type": "application/json" }),
      body: '{"hello":1}',
    });
    expect(seen).toEqual([
      { method: "POST", url: "/v1/messages?beta=true", header: "k-1", body: '{"hello":1}' },
    ]);
    expect([answer.status, answer.statusText, answer.ok]).toEqual([429, "Slow Down", false]);
    expect(answer.headers.get("retry-after-ms")).toBe("7");
    expect(answer.headers.getSetCookie()).toEqual(["a=1", "b=2"]);
    expect(await answer.json()).toEqual({ error: "later" });
  });

  it("follows a redirect as fetch does (307 keeps the method and body) and gives no body for 204", async () => {
    const url = await startServer(async (request, response) => {
      const body = await readRequestBody(request);
      if (request.url === "/old") {
        response.writeHead(307, { location: "/new" }).end();
      } else if (request.url === "/new") {
        response.writeHead(200, { "content-type": "text/plain" }).end(`${request.method} ${body}`);
      } else {
        response.writeHead(204).end();
      }
    });
    const moved = await httpFetch(`${url}/old`, { method: "POST", body: "payload" });
    expect(await moved.text()).toBe("POST payload");
    const empty = await httpFetch(`${url}/empty`);
    expect([empty.status, empty.body]).toEqual([204, null]);
  });

  it("passes an event stream through as it arrives", async () => {
    let finish: () => void = () => undefined;
    const url = await startServer((_request, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.write("data: first\n\n");
      finish = () => response.end("data: last\n\n");
    });
    const answer = await httpFetch(`${url}/stream`);
    const reader = (answer.body as ReadableStream<Uint8Array>).getReader();
    const first = await reader.read();
    expect(Buffer.from(first.value as Uint8Array).toString()).toBe("data: first\n\n");
    finish();
    let rest = "";
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      rest += Buffer.from(chunk.value).toString();
    }
    expect(rest).toBe("data: last\n\n");
  });

  it("rejects as fetch does: with the signal's reason on an abort, TypeError('fetch failed') otherwise", async () => {
    const url = await startServer((_request, response) => {
      // Headers and half a body, then nothing: the abort lands while the body is read.
      response.writeHead(200, { "content-type": "application/json" });
      response.write('{"partial":');
    });
    const controller = new AbortController();
    const reason = new Error("deadline");
    const pending = httpFetch(`${url}/stall`, { signal: controller.signal });
    setTimeout(() => controller.abort(reason), 50);
    await expect(pending).rejects.toBe(reason);

    // A port that was just listening and is now closed.
    const closed = await startServer(() => undefined);
    await cleanups.pop()?.();
    const failure = await httpFetch(`${closed}/gone`).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TypeError);
    expect((failure as TypeError).message).toBe("fetch failed");
    expect(((failure as TypeError).cause as NodeJS.ErrnoException).code).toBe("ECONNREFUSED");
  });
});
