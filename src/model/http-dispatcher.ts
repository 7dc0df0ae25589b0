/**
 * The HTTP transport to the model API: undici with keep-alive connections, through the proxy that
 * HTTPS_PROXY / HTTP_PROXY / NO_PROXY (or their lowercase forms, which win) name, as curl would.
 * Used by the Anthropic and OpenAI clients (through `createHttpFetch`) and by the claude-code
 * credential proxy.
 */
import { Readable } from "node:stream";
import { type Dispatcher, EnvHttpProxyAgent, interceptors, fetch as undiciFetch } from "undici";

/** The variables read: only the proxy ones (lowercase first, as curl and undici read them). */
export type ProxyEnv = Readonly<Record<string, string | undefined>>;

/**
 * One dispatcher per client: a keep-alive pool per origin, or a proxy's when the environment names
 * one. `https:` origins go through HTTPS_PROXY (else HTTP_PROXY) in a CONNECT tunnel; `http:`
 * origins through HTTP_PROXY as absolute-URI requests; hosts in NO_PROXY go direct.
 */
export function createHttpDispatcher(env: ProxyEnv = process.env): Dispatcher {
  return new EnvHttpProxyAgent({
    // An empty string (not undefined) keeps undici from reading process.env behind our back.
    httpProxy: env.http_proxy ?? env.HTTP_PROXY ?? "",
    httpsProxy: env.https_proxy ?? env.HTTPS_PROXY ?? "",
    noProxy: env.no_proxy ?? env.NO_PROXY ?? "",
    // Plain http through an HTTP proxy is forwarded, not tunnelled: proxies commonly refuse
    // CONNECT to ports other than 443.
    proxyTunnel: false,
    // The callers own their deadlines (the client's request timeout; the agent CLI's own), and a
    // long non-streaming answer can take more than undici's default five minutes to start.
    headersTimeout: 0,
    bodyTimeout: 0,
  });
}

type Fetch = typeof globalThis.fetch;

/** Statuses whose response has no body (the Response constructor refuses one). */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);
/** As many as a browser would follow on an API call; fetch's own limit is 20. */
const MAX_REDIRECTIONS = 5;

/**
 * A `fetch` for the model SDK over undici's request API on `dispatcher`. undici's own fetch costs
 * about 0.5 ms more CPU per call (its WHATWG streams and spec bookkeeping), on the one event loop
 * every trial in flight shares; see BENCHMARKS.md. A request with a string or byte body (every
 * Messages call) goes this way: redirects followed as fetch follows them, the answer read whole
 * before it resolves (an event stream is passed through as it arrives). Failures look as fetch's
 * do: an abort rejects with the signal's reason, anything else with TypeError("fetch failed") and
 * the cause. Any other body (a stream, a form) goes through undici's fetch on the same dispatcher.
 */
export function createHttpFetch(dispatcher: Dispatcher): Fetch {
  const redirecting = dispatcher.compose(interceptors.redirect({ maxRedirections: MAX_REDIRECTIONS }));
  return (async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    const body = init.body;
    if (
      input instanceof Request ||
      !(body == null || typeof body === "string" || body instanceof Uint8Array)
    ) {
      return (await undiciFetch(input as never, { ...init, dispatcher } as never)) as unknown as Response;
    }
    const signal = init.signal ?? undefined;
    try {
      const answer = await redirecting.request({
        ...splitUrl(input),
        method: (init.method ?? "GET") as Dispatcher.HttpMethod,
        // A plain record: what every dispatcher on the way (the proxy agents too) reads.
        headers: Object.fromEntries(new Headers(init.headers)),
        body: body ?? null,
        signal,
      });
      const headers = toHeaders(answer.headers);
      return new Response(await readBody(answer, headers), {
        status: answer.statusCode,
        statusText: answer.statusText,
        headers,
      });
    } catch (error) {
      if (signal?.aborted) throw signal.reason ?? error;
      throw new TypeError("fetch failed", { cause: error });
    }
  }) as Fetch;
}

/** The whole body, or its stream for an event stream, or none where the status allows none. */
async function readBody(
  answer: Dispatcher.ResponseData,
  headers: Headers,
): Promise<Uint8Array | ReadableStream<Uint8Array> | null> {
  if (NULL_BODY_STATUSES.has(answer.statusCode)) {
    await answer.body.dump();
    return null;
  }
  if (headers.get("content-type")?.startsWith("text/event-stream")) {
    return Readable.toWeb(answer.body) as ReadableStream<Uint8Array>;
  }
  return await answer.body.bytes();
}

function splitUrl(input: string | URL): { origin: string; path: string } {
  const url = typeof input === "string" ? new URL(input) : input;
  return { origin: url.origin, path: `${url.pathname}${url.search}` };
}

function toHeaders(raw: Record<string, string | string[] | undefined>): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw)) {
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else if (value !== undefined) headers.append(name, value);
  }
  return headers;
}
