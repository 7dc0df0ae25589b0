/**
 * A credential-injecting reverse proxy on 127.0.0.1 for external agent CLIs (claude-code).
 *
 * An agent CLI's own tools (Claude Code's Bash) inherit its environment, so the real API key must
 * never be in it. The CLI gets `ANTHROPIC_BASE_URL=<this proxy>` and a placeholder key; the proxy
 * forwards `/v1/*` to the real base URL with the real key (`x-api-key` and `authorization: Bearer`)
 * in place of whatever key the client sent. Responses stream through unbuffered (server-sent
 * events). Only loopback clients are served; nothing but `/v1/*` is forwarded. Upstream requests
 * go through the model client's transport, so they honour HTTPS_PROXY / HTTP_PROXY / NO_PROXY too.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { createHttpDispatcher, type ProxyEnv } from "../model/http-dispatcher.js";

/** What an agent CLI is given instead of the real key. */
export const PLACEHOLDER_API_KEY = "sk-ant-llm-tool-test-proxy-placeholder";

export interface CredentialProxyOptions {
  apiKey: string;
  /** The real API's base URL, e.g. https://api.anthropic.com (a path prefix is kept). */
  upstream: string;
  /** Where HTTPS_PROXY / HTTP_PROXY / NO_PROXY are read for the upstream; defaults to process.env. */
  proxyEnv?: ProxyEnv;
}

export interface CredentialProxy {
  /** http://127.0.0.1:PORT, for ANTHROPIC_BASE_URL. */
  url: string;
  /** Requests forwarded upstream so far. */
  forwarded(): number;
  close(): Promise<void>;
}

/** Hop-by-hop headers (RFC 9110 §7.6.1) are never forwarded; `host` is the upstream's. */
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-authenticate",
  "proxy-authorization",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
  "host",
]);
/** Node's server has answered `Expect: 100-continue` already; undici refuses to send it. */
const ANSWERED_HERE = new Set(["expect"]);
/** Credentials a client may send; all replaced by the real key. */
const CREDENTIAL_HEADERS = new Set(["x-api-key", "authorization", "anthropic-api-key", "cookie"]);

export async function startCredentialProxy(options: CredentialProxyOptions): Promise<CredentialProxy> {
  if (!options.apiKey) throw new Error("startCredentialProxy needs a non-empty apiKey");
  const upstream = new URL(options.upstream);
  if (upstream.protocol !== "http:" && upstream.protocol !== "https:") {
    throw new Error(`the API base URL must be http(s), got ${upstream.protocol}`);
  }
  const basePath = upstream.pathname.replace(/\/+$/, "");
  const dispatcher = createHttpDispatcher(options.proxyEnv ?? process.env);
  let forwarded = 0;

  const server = http.createServer((req, res) => {
    if (!isLoopback(req.socket.remoteAddress)) {
      req.socket.destroy();
      return;
    }
    const url = req.url ?? "/";
    const pathOnly = url.split("?")[0] ?? "/";
    if (!pathOnly.startsWith("/v1/")) {
      // Clients probe the base URL for connectivity (`HEAD /`); nothing else is served.
      if ((req.method === "HEAD" || req.method === "GET") && pathOnly === "/") {
        res.writeHead(200, { "content-length": "0" }).end();
      } else {
        sendError(
          res,
          404,
          "not_found_error",
          `the llm-tool-test proxy forwards only /v1/*, not ${pathOnly}`,
        );
      }
      req.resume();
      return;
    }

    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(req.headers)) {
      const lower = name.toLowerCase();
      if (value === undefined || HOP_BY_HOP.has(lower) || CREDENTIAL_HEADERS.has(lower)) continue;
      if (ANSWERED_HERE.has(lower)) continue;
      headers[lower] = value;
    }
    headers["x-api-key"] = options.apiKey;
    headers.authorization = `Bearer ${options.apiKey}`;
    headers.host = upstream.host;

    forwarded += 1;
    // The client gave up (the agent was killed): stop the upstream request too.
    const abort = new AbortController();
    res.on("close", () => {
      if (!res.writableFinished) abort.abort();
    });
    const hasBody = req.method !== "GET" && req.method !== "HEAD";
    dispatcher
      .request({
        origin: upstream.origin,
        path: `${basePath}${url}`,
        method: req.method ?? "GET",
        headers,
        body: hasBody ? req : null,
        signal: abort.signal,
      })
      .then(
        (upstreamRes) => {
          const responseHeaders: http.OutgoingHttpHeaders = {};
          for (const [name, value] of Object.entries(upstreamRes.headers)) {
            if (value !== undefined && !HOP_BY_HOP.has(name.toLowerCase())) responseHeaders[name] = value;
          }
          res.writeHead(upstreamRes.statusCode, responseHeaders);
          // Each chunk goes out as it arrives: server-sent events must not wait for the end.
          res.flushHeaders();
          upstreamRes.body.pipe(res);
          upstreamRes.body.on("error", () => res.destroy());
        },
        (error: Error) => {
          if (res.headersSent || abort.signal.aborted) {
            res.destroy();
            return;
          }
          sendError(
            res,
            502,
            "api_error",
            `the llm-tool-test proxy could not reach ${upstream.origin}: ${error.message}`,
          );
        },
      );
  });

  server.listen(0, "127.0.0.1");
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", reject);
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    forwarded: () => forwarded,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await dispatcher.destroy();
    },
  };
}

function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  const v4 = address.startsWith("::ffff:") ? address.slice("::ffff:".length) : address;
  return v4.startsWith("127.") || address === "::1";
}

function sendError(res: http.ServerResponse, status: number, type: string, message: string): void {
  const body = JSON.stringify({ type: "error", error: { type, message } });
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
  res.end(body);
}
