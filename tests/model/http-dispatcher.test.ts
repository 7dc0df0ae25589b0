/**
 * The model client's HTTP honours HTTPS_PROXY / HTTP_PROXY / NO_PROXY: a forward proxy on 127.0.0.1
 * stands in front of the scripted Messages API and records what went through it.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createAnthropicClient } from "../../src/model/anthropic-client.js";
import type { ProxyEnv } from "../../src/model/http-dispatcher.js";
import type { CreateMessageParams } from "../../src/model/model-client.js";
import { type ConnectProxy, startConnectProxy } from "../support/connect-proxy.js";
import { finalText, type ModelServer, startModelServer } from "../support/model-server.js";

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
