/**
/**
 * A credential-injecting reverse proxy on 127.0.0.1 for external agent CLIs (claude-code, codex,
 * gemini-cli).
 *
 * An agent CLI's own tools (Claude Code's Bash, Codex's exec_command, Gemini CLI's run_shell_command)
 * inherit its environment, so the real API key must never be in it. The CLI gets this proxy as its
 * base URL and a placeholder key; the proxy forwards the API calls the agent needs to the real base
 * URL with the real key in place of whatever key the client sent: Anthropic's as `x-api-key` and
 * `authorization: Bearer`, OpenAI's as `authorization: Bearer`, Gemini's as `x-goog-api-key` (a
 * `key` in the query, Gemini's other way of sending it, is dropped). Responses stream through
 * unbuffered (server-sent events). Upstream requests go through the model client's transport, so
 * they honour HTTPS_PROXY / HTTP_PROXY / NO_PROXY too.
 *
 * The agent (or a tool it runs) can send anything to this port, so the key goes only where it must:
 * - only loopback clients are served;
 * - the request path is normalised before it is checked (percent-encoding decoded once, `.` and
 *   `..` segments resolved); encoded slashes or backslashes, a `%` left after decoding, control
 *   characters and paths that climb above `/` are refused;
 * - only the API's endpoints (API_PROFILES) are forwarded (the rest: 403 with a JSON error in the
 *   API's own format), and what is forwarded is the allowlisted path itself, joined under the base
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

/** The model APIs the proxy speaks: which endpoints it forwards and how it sends the key. */
type ProxiedApi = "anthropic" | "openai" | "gemini";

export interface CredentialProxyOptions {
  apiKey: string;
  /** The API behind `upstream`; default anthropic. */
  api?: ProxiedApi;
  /** The real API's base URL, e.g. https://api.anthropic.com (a path prefix is kept). */
  upstream: string;
  /** Where HTTPS_PROXY / HTTP_PROXY / NO_PROXY are read for the upstream; defaults to process.env. */
  proxyEnv?: ProxyEnv;
  /** Requests forwarded at most (a runaway or hostile agent's cap); default DEFAULT_MAX_PROXY_REQUESTS. */
  maxRequests?: number;
  /** Told of every request refused (not allowed, malformed, past the cap, or not admitted). */
  onRefusal?: (refusal: ProxyRefusal) => void;
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

interface UpstreamAnswer {
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
const DEFAULT_MAX_PROXY_REQUESTS = 1000;

interface ApiProfile {
  /** The endpoints forwarded, as the refusal names them. */
  endpoints: string;
  /** Whether `METHOD /normalised/path` is forwarded. */
  allows(endpoint: string): boolean;
  /** The query forwarded (credentials dropped), from the client's (with its `?`, or ""). */
  query(raw: string): string;
  /** The real key as the API takes it. */
  credentials(apiKey: string): Record<string, string>;
  /** An error body in the API's own format, so the client's SDK reads the message. */
  errorBody(status: number, type: string, message: string): string;
}

/**
 * What Claude Code needs, by method and normalised path: the Messages API and its token counter.
 * (Its other traffic, telemetry, update checks and OAuth, is turned off by buildClaudeEnv or not
 * used with an API key.)
 */
const ANTHROPIC_ENDPOINTS: ReadonlySet<string> = new Set([
  "POST /v1/messages",
  "POST /v1/messages/count_tokens",
]);

/** What Codex needs: the Responses API, under a base URL that ends in /v1 (its path prefix is kept). */
const OPENAI_ENDPOINTS: ReadonlySet<string> = new Set(["POST /responses"]);

/**
 * What Gemini CLI needs: a model's generateContent (streamed or not) and countTokens, in the API
 * versions the Gen AI SDK uses. A model name is one path segment of plain characters.
 */
const GEMINI_ENDPOINT =
  /^POST \/(?:v1|v1beta|v1alpha)\/models\/[A-Za-z0-9][A-Za-z0-9._-]*:(?:streamGenerateContent|generateContent|countTokens)$/;
/** Gemini query parameters forwarded (`alt=sse` for streaming); `key` and the rest are dropped. */
const GEMINI_QUERY_PARAMS = new Set(["alt"]);

const API_PROFILES: Readonly<Record<ProxiedApi, ApiProfile>> = {
  anthropic: {
    endpoints: [...ANTHROPIC_ENDPOINTS].join(" and "),
    allows: (endpoint) => ANTHROPIC_ENDPOINTS.has(endpoint),
    // Query strings carry only flags (`?beta=true`); characters outside a URL's are refused upstream.
    query: (raw) => raw,
    credentials: (apiKey) => ({ "x-api-key": apiKey, authorization: `Bearer ${apiKey}` }),
    errorBody: (_status, type, message) => JSON.stringify({ type: "error", error: { type, message } }),
  },
  openai: {
    endpoints: [...OPENAI_ENDPOINTS].join(" and "),
    allows: (endpoint) => OPENAI_ENDPOINTS.has(endpoint),
    query: (raw) => raw,
    credentials: (apiKey) => ({ authorization: `Bearer ${apiKey}` }),
    errorBody: (_status, type, message) => JSON.stringify({ error: { message, type, code: type } }),
  },
  gemini: {
    endpoints: "POST /v1beta/models/MODEL:streamGenerateContent, :generateContent and :countTokens",
    allows: (endpoint) => GEMINI_ENDPOINT.test(endpoint),
    query: (raw) => {
      const kept = new URLSearchParams();
      for (const [name, value] of new URLSearchParams(raw)) {
        if (GEMINI_QUERY_PARAMS.has(name)) kept.append(name, value);
      }
      const text = kept.toString();
      return text ? `?${text}` : "";
    },
    credentials: (apiKey) => ({ "x-goog-api-key": apiKey }),
    errorBody: (status, _type, message) =>
      JSON.stringify({
        error: { code: status, message, status: status === 403 ? "PERMISSION_DENIED" : "UNAVAILABLE" },
      }),
  },
};

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
const CREDENTIAL_HEADERS = new Set([
  "x-api-key",
  "authorization",
  "anthropic-api-key",
  "x-goog-api-key",
  "x-goog-user-project",
  "cookie",
]);

export async function startCredentialProxy(options: CredentialProxyOptions): Promise<CredentialProxy> {
  if (!options.apiKey) throw new Error("startCredentialProxy needs a non-empty apiKey");
  const upstream = new URL(options.upstream);
  if (upstream.protocol !== "http:" && upstream.protocol !== "https:") {
    throw new Error(`the API base URL must be http(s), got ${upstream.protocol}`);
  }
  const basePath = upstream.pathname.replace(/\/+$/, "");
  const profile = API_PROFILES[options.api ?? "anthropic"];
  const dispatcher = createHttpDispatcher(options.proxyEnv ?? process.env);
  let forwarded = 0;

  const maxRequests = options.maxRequests ?? DEFAULT_MAX_PROXY_REQUESTS;
  const refusals: ProxyRefusal[] = [];
  const refuse = (req: http.IncomingMessage, res: http.ServerResponse, refusal: ProxyRefusal) => {
    req.resume();
    refusals.push(refusal);
    options.onRefusal?.(refusal);
    sendError(res, profile, 403, "permission_error", refusal.message);
  };

  const server = http.createServer((req, res) => {
    if (!isLoopback(req.socket.remoteAddress)) {
      req.socket.destroy();
      return;
    }
    const vetted = vetRequest(req, { basePath, forwarded, maxRequests, profile, admit: options.admit });
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
      headers: upstreamHeaders(
        req.headers,
        profile.credentials(options.apiKey),
        upstream.host,
        options.uncompressed === true,
      ),
      profile,
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
    profile,
    admit,
  }: {
    basePath: string;
    forwarded: number;
    maxRequests: number;
    profile: ApiProfile;
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
  if (!profile.allows(endpoint)) {
    return refused(
      "not_allowed",
      `the llm-tool-test proxy forwards only ${profile.endpoints}, not ${endpoint}`,
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
  return { kind: "forward", path: `${basePath}${normalised}${profile.query(query)}`, endpoint };
}

/** The client's headers without hop-by-hop ones and without any credential, then the real key's. */
function upstreamHeaders(
  incoming: http.IncomingHttpHeaders,
  credentials: Record<string, string>,
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
  Object.assign(headers, credentials);
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
    profile,
    onAnswer,
  }: {
    dispatcher: HttpDispatcher;
    upstream: URL;
    path: string;
    headers: Record<string, string | string[]>;
    profile: ApiProfile;
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
          profile,
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

function sendError(
  res: http.ServerResponse,
  profile: ApiProfile,
  status: number,
  type: string,
  message: string,
): void {
  const body = profile.errorBody(status, type, message);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
  res.end(body);
}
