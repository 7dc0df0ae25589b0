/**
 * A `fetch` for the Anthropic SDK over node:http / node:https with keep-alive connections.
 *
 * Why not the global fetch: Node's fetch (undici, web streams) costs a few milliseconds of main-
 * thread time per call and tens of milliseconds to load on the first one; with many trials on one
 * event loop that time delays every other trial (see BENCHMARKS.md). This one reads the whole
 * answer before resolving, which is all a non-streaming Messages call needs; it is not a
 * general-purpose fetch (no streaming bodies, no redirects, no cookies).
 */
import http from "node:http";
import https from "node:https";
import zlib from "node:zlib";

const agents = {
  "http:": new http.Agent({ keepAlive: true }),
  "https:": new https.Agent({ keepAlive: true }),
};

/**
 * Node defines `Headers` and `Response` lazily and loads their implementation (~25 ms) on first
 * use. Called when a client is created, so that this start-up cost is not counted in the first
 * model call's duration, and does not hold up the first trials in flight.
 */
export function loadFetchClasses(): void {
  void new Headers();
  void Response;
}

/** Statuses whose response has no body (the Response constructor refuses one). */
const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

export function nodeHttpFetch(input: string | URL | Request, init: RequestInit = {}): Promise<Response> {
  const url = new URL(typeof input === "string" || input instanceof URL ? input : input.url);
  const agent = url.protocol === "http:" || url.protocol === "https:" ? agents[url.protocol] : null;
  if (!agent) return Promise.reject(new TypeError(`unsupported URL scheme in ${url.origin}`));
  const body = requestBody(init.body);
  const headers: Record<string, string> = {};
  new Headers(init.headers).forEach((value, name) => {
    headers[name] = value;
  });
  if (body !== null) headers["content-length"] = String(body.length);
  const options: http.RequestOptions = { method: init.method ?? "GET", headers, agent };
  return send(url, options, body, init.signal ?? null, true);
}

function send(
  url: URL,
  options: http.RequestOptions,
  body: Buffer | null,
  signal: AbortSignal | null,
  mayRetry: boolean,
): Promise<Response> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortError());
      return;
    }
    const transport = url.protocol === "https:" ? https : http;
    const request = transport.request(url, options, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("error", fail);
      response.on("end", () => {
        signal?.removeEventListener("abort", onAbort);
        try {
          resolve(toResponse(response, Buffer.concat(chunks)));
        } catch (error) {
          reject(error);
        }
      });
    });
    function onAbort() {
      request.destroy(abortError());
    }
    function fail(error: Error) {
      signal?.removeEventListener("abort", onAbort);
      // A kept-alive connection the server closed while idle: the request never reached it.
      const staleConnection =
        mayRetry && request.reusedSocket && (error as NodeJS.ErrnoException).code === "ECONNRESET";
      if (staleConnection && !signal?.aborted) resolve(send(url, options, body, signal, false));
      else reject(signal?.aborted ? abortError() : error);
    }
    signal?.addEventListener("abort", onAbort, { once: true });
    request.on("error", fail);
    request.end(body ?? undefined);
  });
}

function requestBody(body: RequestInit["body"]): Buffer | null {
  if (body === undefined || body === null) return null;
  if (typeof body === "string") return Buffer.from(body);
  if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  if (body instanceof ArrayBuffer) return Buffer.from(body);
  if (body instanceof URLSearchParams) return Buffer.from(body.toString());
  throw new TypeError("this fetch sends only string, byte and URL-encoded bodies");
}

function toResponse(response: http.IncomingMessage, raw: Buffer): Response {
  const status = response.statusCode ?? 0;
  const encoding = (response.headers["content-encoding"] ?? "").toLowerCase();
  const decoded = decode(raw, encoding);
  const headers = new Headers();
  for (let i = 0; i + 1 < response.rawHeaders.length; i += 2) {
    const name = response.rawHeaders[i] as string;
    const lower = name.toLowerCase();
    // The body below is already decoded: its encoding and length no longer apply.
    if (decoded !== raw && (lower === "content-encoding" || lower === "content-length")) continue;
    headers.append(name, response.rawHeaders[i + 1] as string);
  }
  return new Response(NULL_BODY_STATUSES.has(status) ? null : decoded, {
    status,
    statusText: response.statusMessage ?? "",
    headers,
  });
}

function decode(raw: Buffer, encoding: string): Buffer {
  if (encoding === "gzip" || encoding === "x-gzip") return zlib.gunzipSync(raw);
  if (encoding === "deflate") return zlib.inflateSync(raw);
  if (encoding === "br") return zlib.brotliDecompressSync(raw);
  return raw;
}

function abortError(): Error {
  return new DOMException("This operation was aborted", "AbortError");
}
