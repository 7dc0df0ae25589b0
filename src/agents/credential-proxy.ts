/**
 * A credential-injecting reverse proxy on 127.0.0.1 for external agent CLIs (claude-code, codex).
 *
 * An agent CLI's own tools (Claude Code's Bash, Codex's exec_command) inherit its environment, so
 * the real API key must never be in it. The CLI gets this proxy as its base URL and a placeholder
 * key; the proxy forwards the API calls the agent needs to the real base URL with the real key
 * (`x-api-key` and `authorization: Bearer`) in place of whatever key the client sent. Responses stream through
 * unbuffered (server-sent events). Upstream requests go through the model client's transport, so
 * they honour HTTPS_PROXY / HTTP_PROXY / NO_PROXY too.
 *
 * The agent (or a tool it runs) can send anything to this port, so the key goes only where it must:
 * - only loopback clients are served;
 * - the request path is normalised before it is checked (percent-encoding decoded once, `.` and
 *   `..` segments resolved); encoded slashes or backslashes, a `%` left after decoding, control
 *   characters and paths that climb above `/` are refused;
 * - only the agent's allowed endpoints are forwarded (default ANTHROPIC_ENDPOINTS; the rest: 403
 *   with a JSON error), and what is forwarded is the allowlisted path itself, joined under the base
 *   URL's path prefix;
 * - at most `maxRequests` are forwarded per proxy (one proxy per trial); past the cap every request
 *   is refused with 403 and `onRefusal` is told, so the trial's events say why; the agent may
 *   refuse more itself (`admit`: its turn limit, for a CLI that has none of its own).
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
  /** Requests forwarded at most (a runaway or hostile agent's cap); default DEFAULT_MAX_PROXY_REQUESTS. */
  maxRequests?: number;
  /** Told of every request refused (not allowed, malformed, past the cap, or not admitted). */
  onRefusal?: (refusal: ProxyRefusal) => void;
  /** The endpoints forwarded, as `METHOD /path` after normalisation; default ANTHROPIC_ENDPOINTS. */
  allowedEndpoints?: readonly string[];
  /**
   * Asked before an allowed request is forwarded: a message refuses it (reason `agent_limit`),
   * null lets it through.
   */
  admit?: (endpoint: string) => string | null;
  /**
   * Told of each upstream answer as it arrives (its status and content encoding), before its body
   * streams back; a function returned is given each chunk of the body as it is relayed.
   */
  onUpstreamResponse?: (answer: UpstreamAnswer) => ((chunk: Buffer) => void) | undefined;
  /** Ask the upstream for uncompressed bodies (the client's accept-encoding dropped), so they can be read. */
  uncompressed?: boolean;
}

export interface UpstreamAnswer {
  /** `METHOD /path` as allowed. */
  endpoint: string;
  status: number;
  /** The body's content-encoding (`identity` when none). */
  encoding: string;
}

export interface ProxyRefusal {
  reason: "not_allowed" | "malformed_path" | "request_cap" | "agent_limit";
  method: string;
  /** The path as the client sent it, without the query, cut to 200 characters. */
  path: string;
  message: string;
}

/** Per trial: far above what a real trial needs (a turn is one or two calls), low enough to stop a loop. */
export const DEFAULT_MAX_PROXY_REQUESTS = 1000;

/**
 * What Claude Code needs, by method and normalised path: the Messages API and its token counter.
 * (Its other traffic, telemetry, update checks and OAuth, is turned off by buildClaudeEnv or not
 * used with an API key.)
 */
export const ANTHROPIC_ENDPOINTS: readonly string[] = ["POST /v1/messages", "POST /v1/messages/count_tokens"];

export interface CredentialProxy {
  /** http://127.0.0.1:PORT, the CLI's base URL (ANTHROPIC_BASE_URL, Codex's provider base_url). */
  url: string;
  /** Its port on 127.0.0.1 (what the sandbox bridges in when the network is off). */
  port: number;
  /** Requests forwarded upstream so far. */
  forwarded(): number;
  /** Requests refused so far. */
  refused(): ProxyRefusal[];
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

  const maxRequests = options.maxRequests ?? DEFAULT_MAX_PROXY_REQUESTS;
  const allowed: ReadonlySet<string> = new Set(options.allowedEndpoints ?? ANTHROPIC_ENDPOINTS);
  const refusals: ProxyRefusal[] = [];
  const refuse = (req: http.IncomingMessage, res: http.ServerResponse, refusal: ProxyRefusal) => {
    req.resume();
    refusals.push(refusal);
    options.onRefusal?.(refusal);
    sendError(res, 403, "permission_error", refusal.message);
  };

  const server = http.createServer((req, res) => {
    if (!isLoopback(req.socket.remoteAddress)) {
      req.socket.destroy();
      return;
    }
    const vetted = vetRequest(req, { basePath, forwarded, maxRequests, allowed, admit: options.admit });
    if (vetted.kind === "probe") {
      req.resume();
      res.writeHead(200, { "content-length": "0" }).end();
      return;
    }
    if (vetted.kind === "refused") {
      refuse(req, res, vetted.refusal);
      return;
    }
    forwarded += 1;
    const { endpoint } = vetted;
    relay(req, res, {
      dispatcher,
      upstream,
      path: vetted.path,
      headers: upstreamHeaders(req.headers, options.apiKey, upstream.host, options.uncompressed === true),
      onAnswer: (status, encoding) => options.onUpstreamResponse?.({ endpoint, status, encoding }),
    });
  });

  server.listen(0, "127.0.0.1");
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", reject);
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    forwarded: () => forwarded,
    refused: () => [...refusals],
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await dispatcher.destroy();
    },
  };
}

type HttpDispatcher = ReturnType<typeof createHttpDispatcher>;

type VettedRequest =
  | { kind: "probe" }
  | { kind: "refused"; refusal: ProxyRefusal }
  | { kind: "forward"; path: string; endpoint: string };

/** What the proxy does with a request: answer a probe, refuse it (and why), or forward it (where). */
function vetRequest(
  req: http.IncomingMessage,
  {
    basePath,
    forwarded,
    maxRequests,
    allowed,
    admit,
  }: {
    basePath: string;
    forwarded: number;
    maxRequests: number;
    allowed: ReadonlySet<string>;
    admit: CredentialProxyOptions["admit"];
  },
): VettedRequest {
  const target = req.url ?? "/";
  const queryAt = target.indexOf("?");
  const rawPath = queryAt === -1 ? target : target.slice(0, queryAt);
  const query = queryAt === -1 ? "" : target.slice(queryAt);
  const method = req.method ?? "GET";
  const shown = rawPath.slice(0, 200);
  // Clients probe the base URL for connectivity (`HEAD /`): answered here.
  if ((method === "HEAD" || method === "GET") && rawPath === "/") return { kind: "probe" };
  const refused = (reason: ProxyRefusal["reason"], message: string): VettedRequest => ({
    kind: "refused",
    refusal: { reason, method, path: shown, message },
  });
  const normalised = normaliseRequestPath(rawPath);
  if (normalised === null) {
    return refused(
      "malformed_path",
      `the llm-tool-test proxy refuses the path ${JSON.stringify(shown)} (encoded slashes or backslashes, dot segments above the root, control characters or double encoding)`,
    );
  }
  const endpoint = `${method} ${normalised}`;
  if (!allowed.has(endpoint)) {
    return refused(
      "not_allowed",
      `the llm-tool-test proxy forwards only ${[...allowed].join(" and ")}, not ${endpoint}`,
    );
  }
  if (forwarded >= maxRequests) {
    return refused(
      "request_cap",
      `the llm-tool-test proxy's cap of ${maxRequests} API requests for this trial is reached`,
    );
  }
  const limit = admit?.(endpoint) ?? null;
  if (limit !== null) return refused("agent_limit", limit);
  // Query strings carry only flags (`?beta=true`); characters outside a URL's are refused upstream.
  return { kind: "forward", path: `${basePath}${normalised}${query}`, endpoint };
}

/** The client's headers without hop-by-hop ones and without any credential, then the real key's. */
function upstreamHeaders(
  incoming: http.IncomingHttpHeaders,
  apiKey: string,
  host: string,
  uncompressed: boolean,
): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(incoming)) {
    const lower = name.toLowerCase();
    if (value === undefined || HOP_BY_HOP.has(lower) || CREDENTIAL_HEADERS.has(lower)) continue;
    if (ANSWERED_HERE.has(lower) || (uncompressed && lower === "accept-encoding")) continue;
    headers[lower] = value;
  }
  headers["x-api-key"] = apiKey;
  headers.authorization = `Bearer ${apiKey}`;
  headers.host = host;
  return headers;
}

/** Sends the request upstream and streams the answer back as it arrives (server-sent events too). */
function relay(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  {
    dispatcher,
    upstream,
    path,
    headers,
    onAnswer,
  }: {
    dispatcher: HttpDispatcher;
    upstream: URL;
    path: string;
    headers: Record<string, string | string[]>;
    onAnswer: (status: number, encoding: string) => ((chunk: Buffer) => void) | undefined;
  },
): void {
  // The client gave up (the agent was killed): stop the upstream request too.
  const abort = new AbortController();
  res.on("close", () => {
    if (!res.writableFinished) abort.abort();
  });
  const hasBody = req.method !== "GET" && req.method !== "HEAD";
  dispatcher
    .request({
      origin: upstream.origin,
      path,
      method: req.method ?? "GET",
      headers,
      body: hasBody ? req : null,
      signal: abort.signal,
    })
    .then(
      (upstreamRes) => {
        const encoding = upstreamRes.headers["content-encoding"];
        const observe = onAnswer(
          upstreamRes.statusCode,
          typeof encoding === "string" ? encoding : "identity",
        );
        if (observe) upstreamRes.body.on("data", (chunk: Buffer) => observe(chunk));
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
}

/**
 * The path a server would act on: percent-encoding decoded once, `.` and `..` resolved. Null for a
 * path that is not origin-form (`/…`), that encodes a slash or backslash or holds a raw backslash,
 * that still holds `%` after decoding (double encoding an upstream might decode again), a control
 * character, or a `..` above the root.
 */
function normaliseRequestPath(rawPath: string): string | null {
  if (!rawPath.startsWith("/") || rawPath.includes("\\") || /%(?:2f|5c)/i.test(rawPath)) return null;
  let decoded: string;
  try {
    decoded = decodeURIComponent(rawPath);
  } catch {
    return null;
  }
  if (decoded.includes("%") || /[\u0000-\u001f\u007f]/.test(decoded)) return null;
  const segments: string[] = [];
  const parts = decoded.split("/").slice(1);
  for (const [index, part] of parts.entries()) {
    if (part === ".") {
      if (index === parts.length - 1) segments.push("");
    } else if (part === "..") {
      if (segments.length === 0) return null;
      segments.pop();
      if (index === parts.length - 1) segments.push("");
    } else segments.push(part);
  }
  return `/${segments.join("/")}`;
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
