import { once } from "node:events";
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { gzipSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { nodeHttpFetch } from "../../src/model/node-http-fetch.js";

const servers: http.Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function serve(handler: http.RequestListener): Promise<string> {
  const server = http.createServer(handler);
  servers.push(server);
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function readBody(request: http.IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let body = "";
    request.setEncoding("utf8");
    request.on("data", (chunk) => {
      body += chunk;
    });
    request.on("end", () => resolve(body));
  });
}

describe("nodeHttpFetch", () => {
  it("sends the method, headers and body, and returns status, headers and body as a Response", async () => {
    const seen: { method?: string; headers?: http.IncomingHttpHeaders; body?: string } = {};
    const url = await serve(async (request, response) => {
      seen.method = request.method;
      seen.headers = request.headers;
      seen.body = await readBody(request);
      response.writeHead(201, "Made", [
        ["content-type", "application/json"],
        ["x-many", "a"],
        ["x-many", "b"],
      ]);
      response.end(JSON.stringify({ ok: true }));
    });
    const headers = new Headers({ "content-type": "application/json", "x-api-key": "k" });
    const response = await nodeHttpFetch(`${url}/v1/messages?beta=true`, {
      method: "POST",
      headers,
      body: JSON.stringify({ hello: "wörld" }),
    });
    expect(seen.method).toBe("POST");
    expect(seen.headers?.["x-api-key"]).toBe("k");
    expect(seen.headers?.["content-length"]).toBe(String(Buffer.byteLength('{"hello":"wörld"}')));
    expect(seen.body).toBe('{"hello":"wörld"}');
    expect(response.status).toBe(201);
    expect(response.statusText).toBe("Made");
    expect(response.ok).toBe(true);
    expect(response.headers.get("x-many")).toBe("a, b");
    expect(await response.json()).toEqual({ ok: true });
  });

  it("takes plain-object headers and byte bodies", async () => {
    const url = await serve(async (request, response) => {
      response.end(`${request.headers["x-test"]}:${await readBody(request)}`);
    });
    const response = await nodeHttpFetch(url, {
      method: "PUT",
      headers: { "X-Test": "yes" },
      body: new TextEncoder().encode("bytes"),
    });
    expect(await response.text()).toBe("yes:bytes");
  });

  it("answers a no-content status with a null body", async () => {
    const url = await serve((_request, response) => {
      response.writeHead(204);
      response.end();
    });
    const response = await nodeHttpFetch(url);
    expect(response.status).toBe(204);
    expect(response.body).toBeNull();
  });

  it("decodes a gzip-encoded answer and drops the headers that described the encoded bytes", async () => {
    const encoded = gzipSync(Buffer.from("x".repeat(1000)));
    const url = await serve((_request, response) => {
      response.writeHead(200, { "content-encoding": "gzip", "content-length": String(encoded.length) });
      response.end(encoded);
    });
    const response = await nodeHttpFetch(url);
    expect(await response.text()).toBe("x".repeat(1000));
    expect(response.headers.get("content-encoding")).toBeNull();
    expect(response.headers.get("content-length")).toBeNull();
  });

  it("rejects with an AbortError when aborted before or during the request, and closes the connection", async () => {
    const closed: Promise<unknown>[] = [];
    const url = await serve((request) => {
      // Never answers: only an abort ends this request.
      closed.push(once(request.socket, "close"));
    });
    const early = new AbortController();
    early.abort();
    await expect(nodeHttpFetch(url, { signal: early.signal })).rejects.toMatchObject({ name: "AbortError" });

    const late = new AbortController();
    const pending = nodeHttpFetch(url, { signal: late.signal });
    while (closed.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    late.abort();
    await expect(pending).rejects.toMatchObject({ name: "AbortError" });
    await closed[0];
  });

  it("reuses kept-alive connections, and retries once on a fresh one when the server dropped a reused one", async () => {
    const requestsPerSocket = new Map<Socket, number>();
    const url = await serve((request, response) => {
      const count = (requestsPerSocket.get(request.socket) ?? 0) + 1;
      requestsPerSocket.set(request.socket, count);
      // The race of a server closing an idle connection just as the client reuses it.
      if (count === 3) {
        request.socket.destroy();
        return;
      }
      response.end(`answer on request ${count} of this connection`);
    });
    expect(await (await nodeHttpFetch(url)).text()).toBe("answer on request 1 of this connection");
    expect(await (await nodeHttpFetch(url)).text()).toBe("answer on request 2 of this connection");
    // The third on the same connection is dropped; the retry goes over a new one.
    expect(await (await nodeHttpFetch(url)).text()).toBe("answer on request 1 of this connection");
    expect(requestsPerSocket.size).toBe(2);
  });

  it("does not retry a connection that failed on its first request", async () => {
    let requests = 0;
    const url = await serve((request) => {
      requests += 1;
      request.socket.destroy();
    });
    await expect(nodeHttpFetch(url, { method: "POST", body: "x" })).rejects.toMatchObject({
      code: "ECONNRESET",
    });
    expect(requests).toBe(1);
  });

  it("refuses schemes other than http and https", async () => {
    await expect(nodeHttpFetch("ftp://127.0.0.1/file")).rejects.toThrow(/unsupported URL scheme/);
  });
});
