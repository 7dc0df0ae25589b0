/**
 * An agent talks to the credential proxy with a raw HTTP client (no URL normalisation on its side)
 * and tries to reach other endpoints of the API with the real key: dot segments, their encoded
 * forms, encoded slashes and backslashes, absolute-form targets, other methods. A loopback upstream
 * records what reached it: only the allowlisted endpoints, under the base URL's path prefix, and
 * nothing once the trial's request cap is reached.
 */
import net from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { startCredentialProxy } from "../../src/agents/credential-proxy.js";
import { startLoopbackServer } from "../support/loopback-server.js";

const CANARY_KEY = "sk-ant-canary-hostile-proxy-7Hq2Zx9Vb4";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

interface Received {
  method: string | undefined;
  url: string | undefined;
  key: string | string[] | undefined;
}

/** An upstream on 127.0.0.1 that records every request and answers 200 `{}`. */
async function startRecordingUpstream(): Promise<{ url: string; received: Received[] }> {
  const received: Received[] = [];
  const upstream = await startLoopbackServer((req, res) => {
    received.push({ method: req.method, url: req.url, key: req.headers["x-api-key"] });
    req.resume();
    res.writeHead(200, { "content-type": "application/json" }).end("{}");
  });
  cleanups.push(upstream.close);
  return { url: upstream.url, received };
}

/** Sends one request with exactly this request target; resolves with the status and body. */
function sendRaw(
  proxyUrl: string,
  method: string,
  target: string,
): Promise<{ status: number; body: string }> {
  const { port } = new URL(proxyUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), "127.0.0.1");
    let data = "";
    socket.setEncoding("latin1");
    socket.on("data", (chunk) => {
      data += chunk;
    });
    socket.on("error", reject);
    socket.on("close", () => {
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(data)?.[1] ?? 0);
      resolve({ status, body: data.slice(data.indexOf("\r\n\r\n") + 4) });
    });
    const body = "{}";
    socket.write(
      `${method} ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: placeholder\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n${body}`,
    );
  });
}

const ESCAPES = [
  "/v1/../admin/keys",
  "/v1/%2e%2e/admin/keys",
  "/v1/%2E%2E/admin/keys",
  "/v1/.%2e/admin/keys",
  "/v1/messages/../../admin/keys",
  "/v1/messages/%2e%2e/%2e%2e/v1/organizations",
  "/v1%2fmessages",
  "/v1%2Fmessages",
  "/v1/messages%2f..%2f..%2fadmin",
  "/v1%5cmessages",
  "/v1\\messages",
  "/v1/%252e%252e/admin",
  "/v1/messages%00",
  "/../v1/messages",
  "/v1//messages",
  "/v1/models",
  "/v1/organizations/api_keys",
  "/admin/keys",
  "http://127.0.0.1/v1/messages",
  "//evil.test/v1/messages",
];

describe("credential proxy against a hostile client", () => {
  it.each([
    ["no path prefix", ""],
    ["a path prefix", "/gateway/anthropic"],
  ])("forwards nothing outside the allowlist, with %s", async (_label, prefix) => {
    const upstream = await startRecordingUpstream();
    const proxy = await startCredentialProxy({ apiKey: CANARY_KEY, upstream: `${upstream.url}${prefix}/` });
    cleanups.push(() => proxy.close());

    for (const target of ESCAPES) {
      const response = await sendRaw(proxy.url, "POST", target);
      expect({ target, status: response.status }).toEqual({
        target,
        status: expect.toSatisfy((s) => s === 403 || s === 400),
      });
      expect(response.body).not.toContain(CANARY_KEY);
    }
    // Other methods on the allowed paths.
    for (const method of ["GET", "PUT", "DELETE", "PATCH"]) {
      const response = await sendRaw(proxy.url, method, "/v1/messages");
      expect(response.status).toBe(403);
      expect(JSON.parse(response.body)).toMatchObject({ type: "error", error: { type: "permission_error" } });
    }
    expect(upstream.received).toEqual([]);

    // The allowed endpoints still go through, the key with them, under the prefix and nowhere else.
    expect((await sendRaw(proxy.url, "POST", "/v1/messages?beta=true")).status).toBe(200);
    expect((await sendRaw(proxy.url, "POST", "/v1/messages/count_tokens")).status).toBe(200);
    // A dot segment that stays inside the allowlist is resolved, not passed on.
    expect((await sendRaw(proxy.url, "POST", "/v1/admin/../messages")).status).toBe(200);
    expect(upstream.received).toEqual([
      { method: "POST", url: `${prefix}/v1/messages?beta=true`, key: CANARY_KEY },
      { method: "POST", url: `${prefix}/v1/messages/count_tokens`, key: CANARY_KEY },
      { method: "POST", url: `${prefix}/v1/messages`, key: CANARY_KEY },
    ]);
    expect(proxy.forwarded()).toBe(3);
  });

  it("says which request it refused and why", async () => {
    const upstream = await startRecordingUpstream();
    const refusals: string[] = [];
    const proxy = await startCredentialProxy({
      apiKey: CANARY_KEY,
      upstream: upstream.url,
      onRefusal: (refusal) => refusals.push(`${refusal.reason} ${refusal.method} ${refusal.path}`),
    });
    cleanups.push(() => proxy.close());
    const encodedSlash = await sendRaw(proxy.url, "POST", "/v1%2fmessages");
    expect(JSON.parse(encodedSlash.body).error.message).toContain("refuses the path");
    // Encoded dot segments are resolved, then checked: /admin is not allowed.
    const dotted = await sendRaw(proxy.url, "POST", "/v1/%2e%2e/admin");
    expect(JSON.parse(dotted.body).error.message).toContain("not POST /admin");
    const other = await sendRaw(proxy.url, "GET", "/v1/models");
    expect(JSON.parse(other.body).error.message).toContain("forwards only POST /v1/messages");
    expect(refusals).toEqual([
      "malformed_path POST /v1%2fmessages",
      "not_allowed POST /v1/%2e%2e/admin",
      "not_allowed GET /v1/models",
    ]);
  });

  it("stops forwarding at the trial's request cap and says so", async () => {
    const upstream = await startRecordingUpstream();
    const refusals: string[] = [];
    const proxy = await startCredentialProxy({
      apiKey: CANARY_KEY,
      upstream: upstream.url,
      maxRequests: 3,
      onRefusal: (refusal) => refusals.push(refusal.reason),
    });
    cleanups.push(() => proxy.close());
    const statuses: number[] = [];
    for (let index = 0; index < 6; index += 1) {
      statuses.push((await sendRaw(proxy.url, "POST", "/v1/messages")).status);
    }
    expect(statuses).toEqual([200, 200, 200, 403, 403, 403]);
    expect(upstream.received).toHaveLength(3);
    expect(refusals).toEqual(["request_cap", "request_cap", "request_cap"]);
    const past = await sendRaw(proxy.url, "POST", "/v1/messages");
    expect(JSON.parse(past.body).error.message).toContain("cap of 3 API requests");
  });
});
