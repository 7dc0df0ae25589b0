/**
 * The real ModelClient: a thin adapter over `@anthropic-ai/sdk` (the only module importing it).
 * The SDK's own retries are off; this module retries so that every failed attempt is visible to
 * the run (as `model_error` events) and rate limits feed the shared CallLimiter. Each attempt has
 * its own deadline and holds a limiter slot only while it runs, so a hung request costs its own
 * trial one attempt and never blocks the other trials' calls for longer.
 */
import Anthropic, {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
  type ClientOptions,
} from "@anthropic-ai/sdk";
import { describeError } from "../errors.js";
import { createHttpDispatcher, createHttpFetch, type ProxyEnv } from "./http-dispatcher.js";
import {
  type CallLimiter,
  type CallOptions,
  type CreateMessageParams,
  DEFAULT_ATTEMPT_TIMEOUT_MS,
  ModelCallError,
  type ModelClient,
  type ModelResponse,
  type TextBlock,
  type ToolUseBlock,
} from "./model-client.js";

export const DEFAULT_BASE_URL = "https://api.anthropic.com";
export const DEFAULT_MAX_ATTEMPTS = 6;
export const DEFAULT_REQUEST_TIMEOUT_MS = DEFAULT_ATTEMPT_TIMEOUT_MS;
const BACKOFF_BASE_MS = 500;
const BACKOFF_CAP_MS = 30_000;
/** A server asking for a longer wait is clamped to this; the attempt bound still ends a hopeless call. */
const RETRY_AFTER_CAP_MS = 5 * 60_000;

export interface AnthropicClientOptions {
  apiKey: string;
  /** Defaults to the public API; never read from the environment here (the CLI/action do that). */
  baseURL?: string;
  /** Attempts per call, the first included. */
  maxAttempts?: number;
  /**
   * Per attempt, from sending the request to reading the whole answer (the SDK's own timeout stops
   * at the headers). An attempt past it fails like a 5xx: retried while attempts remain.
   */
  requestTimeoutMs?: number;
  /** Where the key came from, named in the message when the API rejects it. */
  keySource?: string;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  limiter?: CallLimiter;
  /** Epoch milliseconds; used for durations and for `retry-after` dates. */
  now?: () => number;
  /** In [0, 1); the backoff jitter. */
  random?: () => number;
  /** Where HTTPS_PROXY / HTTP_PROXY / NO_PROXY are read; defaults to process.env. */
  proxyEnv?: ProxyEnv;
}

interface AttemptFailure {
  status: number | null;
  message: string;
  retryable: boolean;
  /** What the server asked for, in ms (retry-after-ms, then retry-after). */
  retryAfterMs: number | null;
}

export function createAnthropicClient(options: AnthropicClientOptions): ModelClient {
  const apiKey = options.apiKey;
  if (!apiKey) throw new Error("createAnthropicClient needs a non-empty apiKey");
  const baseURL = options.baseURL || DEFAULT_BASE_URL;
  const maxAttempts = Math.max(1, Math.floor(options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS));
  const requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  if (!(requestTimeoutMs > 0)) throw new Error("createAnthropicClient needs a requestTimeoutMs > 0");
  const client: ClientSettings = {
    sdk: createSdk(apiKey, baseURL, requestTimeoutMs, options.proxyEnv ?? process.env),
    apiKey,
    baseURL,
    maxAttempts,
    requestTimeoutMs,
    keySource: options.keySource ?? "ANTHROPIC_API_KEY (the action's anthropic-api-key input)",
    sleep: options.sleep ?? sleepFor,
    now: options.now ?? Date.now,
    random: options.random ?? Math.random,
    limiter: options.limiter,
  };
  return { createMessage: (params, callOptions = {}) => callWithRetries(client, params, callOptions) };
}

/** The client's options, resolved, with the SDK instance they configure. */
interface ClientSettings {
  sdk: Anthropic;
  apiKey: string;
  baseURL: string;
  maxAttempts: number;
  requestTimeoutMs: number;
  keySource: string;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  now: () => number;
  random: () => number;
  limiter: CallLimiter | undefined;
}

function createSdk(apiKey: string, baseURL: string, requestTimeoutMs: number, proxyEnv: ProxyEnv): Anthropic {
  return new Anthropic({
    // Every option that would otherwise fall back to an ANTHROPIC_* variable or a profile on disk
    // is given here: an explicit apiKey turns off the SDK's credential chain, baseURL is never
    // left to ANTHROPIC_BASE_URL, and the headers below win over ANTHROPIC_CUSTOM_HEADERS so no
    // ambient credential can ride along with (or replace) the key we were given.
    apiKey,
    authToken: null,
    webhookKey: null,
    baseURL,
    defaultHeaders: { Authorization: `Bearer ${apiKey}`, "X-Api-Key": null },
    maxRetries: 0,
    timeout: requestTimeoutMs,
    // The events are the record; the SDK must not print request bodies (ANTHROPIC_LOG) or
    // export message content as traces.
    logLevel: "off",
    openTelemetry: false,
    // undici on this client's dispatcher (keep-alive, the proxy from proxyEnv): Node's global
    // fetch ignores proxy settings. Its request API rather than its fetch, for the CPU (see there).
    fetch: createHttpFetch(createHttpDispatcher(proxyEnv)) as ClientOptions["fetch"],
  });
}

/**
 * The retry loop: attempts until one answers, a failure is not retryable, or the attempts run out.
 * Every failed attempt is reported through `onRetry`; the time spent queued for the limiter and
 * backing off is the response's `waited_ms`.
 */
async function callWithRetries(
  client: ClientSettings,
  params: CreateMessageParams,
  callOptions: CallOptions,
): Promise<ModelResponse> {
  const { signal, onRetry } = callOptions;
  const { limiter, now } = client;
  let waited = 0;
  for (let attempt = 1; ; attempt += 1) {
    throwIfAborted(signal);
    const result = await attemptOnce(client, params, signal);
    waited += result.queuedMs;
    if ("response" in result) return { ...result.response, waited_ms: waited, attempts: attempt };
    const { failure } = result;

    if (failure.status === 429 || failure.status === 529) limiter?.onRateLimited(failure.retryAfterMs);
    const message = redactKey(failure.message, client.apiKey);
    const willRetry = failure.retryable && attempt < client.maxAttempts;
    const delayMs = willRetry ? planDelay(failure.retryAfterMs, attempt, client.random) : null;
    onRetry?.({
      attempt,
      status: failure.status,
      message,
      willRetry,
      retryAfterMs: failure.retryAfterMs,
      delayMs,
    });
    if (delayMs === null) {
      const final = failure.retryable
        ? `gave up after ${attempt} attempt${attempt === 1 ? "" : "s"}: ${message}`
        : message;
      throw new ModelCallError(final, failure.status, attempt);
    }
    const before = now();
    try {
      await client.sleep(delayMs, signal);
    } catch {
      throw abortError(signal);
    }
    waited += now() - before;
  }
}

/**
 * One attempt: a limiter slot, then the request under its own deadline. A cancelled call throws;
 * anything else that goes wrong is a failure for the retry loop to weigh.
 */
async function attemptOnce(
  client: ClientSettings,
  params: CreateMessageParams,
  signal: AbortSignal | undefined,
): Promise<{ queuedMs: number } & ({ response: ModelResponse } | { failure: AttemptFailure })> {
  const { limiter, now } = client;
  let queuedMs = 0;
  if (limiter) {
    const before = now();
    try {
      await limiter.acquire(signal);
    } catch {
      throw abortError(signal);
    }
    queuedMs = now() - before;
  }
  const deadline = startDeadline(client.requestTimeoutMs, signal);
  try {
    const message = await client.sdk.messages.create(toSdkParams(params), { signal: deadline.signal });
    limiter?.onSuccess();
    return { queuedMs, response: fromSdkMessage(message) };
  } catch (error) {
    if (signal?.aborted) throw abortError(signal);
    if (deadline.expired()) return { queuedMs, failure: timedOut(client) };
    if (error instanceof APIUserAbortError) throw abortError(signal);
    return { queuedMs, failure: describeFailure(error, params.model, client) };
  } finally {
    // The slot is held for this attempt only: an answer, a failure, the deadline or an abort frees it.
    deadline.clear();
    limiter?.release();
  }
}

function redactKey(message: string, apiKey: string): string {
  // Belt and braces: nothing we build contains the key, but an error body or a proxy might echo it.
  return apiKey.length >= 8 ? message.split(apiKey).join("[redacted]") : message;
}

function timedOut(client: ClientSettings): AttemptFailure {
  return {
    status: null,
    message: `the request timed out after ${formatMs(client.requestTimeoutMs)} with no answer from ${client.baseURL}`,
    retryable: true,
    retryAfterMs: null,
  };
}

/** What went wrong, in words, and whether another attempt may do better. */
function describeFailure(error: unknown, model: string, client: ClientSettings): AttemptFailure {
  if (error instanceof APIConnectionTimeoutError) return timedOut(client);
  if (error instanceof APIConnectionError) {
    const cause = error.cause instanceof Error ? `: ${causeChain(error.cause)}` : "";
    return {
      status: null,
      message: `could not reach ${client.baseURL}${cause}`,
      retryable: true,
      retryAfterMs: null,
    };
  }
  if (error instanceof APIError && typeof error.status === "number") {
    const status = error.status;
    const apiMessage = error.apiMessage ?? error.message;
    const retryAfterMs = readRetryAfter(error.headers, client.now());
    const shouldRetry = error.headers?.get("x-should-retry");
    const retryable =
      shouldRetry === "true" ||
      (shouldRetry !== "false" &&
        (status === 408 || status === 409 || status === 429 || status === 529 || status >= 500));
    return {
      status,
      message: describeStatus(status, apiMessage, model, client.keySource),
      retryable,
      retryAfterMs,
    };
  }
  return {
    status: null,
    message: describeError(error),
    retryable: false,
    retryAfterMs: null,
  };
}

function describeStatus(status: number, apiMessage: string, model: string, keySource: string): string {
  if (status === 401 || status === 403) {
    return `the API rejected the key (${status}: ${apiMessage}); check the key in ${keySource}`;
  }
  if (status === 404 && /model/i.test(apiMessage)) {
    return `unknown model "${model}" (404: ${apiMessage}); check the model name (--model, or agent.model in the scenario)`;
  }
  if (status === 400) return `the API refused the request (400): ${apiMessage}`;
  if (status === 429) return `rate limited (429): ${apiMessage}`;
  if (status === 529) return `the API is overloaded (529): ${apiMessage}`;
  return `the API answered ${status}: ${apiMessage}`;
}

/** The server's wait, in ms: `retry-after-ms`, then `retry-after` as seconds or an HTTP date. */
export function readRetryAfter(headers: Headers | undefined, nowMs: number): number | null {
  const millis = headers?.get("retry-after-ms");
  if (millis) {
    const value = Number.parseFloat(millis);
    if (Number.isFinite(value) && value >= 0) return value;
  }
  const after = headers?.get("retry-after");
  if (after) {
    const seconds = Number.parseFloat(after);
    if (Number.isFinite(seconds) && /^\s*[\d.]+\s*$/.test(after)) return Math.max(0, seconds * 1000);
    const date = Date.parse(after);
    if (Number.isFinite(date)) return Math.max(0, date - nowMs);
  }
  return null;
}

/** Honour the server when it says how long to wait; otherwise exponential backoff with jitter. */
export function planDelay(retryAfterMs: number | null, attempt: number, random: () => number): number {
  if (retryAfterMs !== null) return Math.min(retryAfterMs, RETRY_AFTER_CAP_MS);
  const exponential = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** (attempt - 1));
  // Up to a quarter off, so calls that failed together do not all come back together.
  return Math.round(exponential * (1 - 0.25 * random()));
}

function toSdkParams(params: CreateMessageParams): Anthropic.MessageCreateParamsNonStreaming {
  const body: Record<string, unknown> = {
    model: params.model,
    max_tokens: params.max_tokens,
    messages: params.messages,
  };
  if (params.system !== undefined) body.system = params.system;
  if (params.tools !== undefined) body.tools = params.tools;
  if (params.tool_choice !== undefined) body.tool_choice = params.tool_choice;
  if (params.temperature !== undefined) body.temperature = params.temperature;
  return body as unknown as Anthropic.MessageCreateParamsNonStreaming;
}

function fromSdkMessage(message: Anthropic.Message): ModelResponse {
  const content: (TextBlock | ToolUseBlock)[] = [];
  for (const block of message.content) {
    if (block.type === "text") content.push({ type: "text", text: block.text });
    else if (block.type === "tool_use") {
      content.push({ type: "tool_use", id: block.id, name: block.name, input: block.input });
    }
  }
  const usage = message.usage;
  return {
    id: message.id,
    model: message.model,
    stop_reason: message.stop_reason ?? null,
    content,
    usage: {
      input_tokens: usage?.input_tokens ?? 0,
      output_tokens: usage?.output_tokens ?? 0,
      cache_read_input_tokens: usage?.cache_read_input_tokens ?? 0,
      cache_creation_input_tokens: usage?.cache_creation_input_tokens ?? 0,
    },
  };
}

interface Deadline {
  /** Aborts when the caller's signal does or when the time is up. */
  signal: AbortSignal;
  expired(): boolean;
  clear(): void;
}

/** One attempt's deadline, linked to the caller's signal. */
function startDeadline(ms: number, outer: AbortSignal | undefined): Deadline {
  const controller = new AbortController();
  let expired = false;
  const timer = setTimeout(() => {
    expired = true;
    controller.abort(new Error(`no answer within ${formatMs(ms)}`));
  }, ms);
  const onAbort = () => controller.abort(outer?.reason);
  if (outer?.aborted) onAbort();
  else outer?.addEventListener("abort", onAbort, { once: true });
  return {
    signal: controller.signal,
    expired: () => expired,
    clear: () => {
      clearTimeout(timer);
      outer?.removeEventListener("abort", onAbort);
    },
  };
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw abortError(signal);
}

/** What a cancelled call rejects with: the signal's own reason when it is an Error. */
function abortError(signal: AbortSignal | undefined): Error {
  const reason: unknown = signal?.reason;
  if (reason instanceof Error) return reason;
  const error = new Error(`the model call was aborted${reason === undefined ? "" : ` (${String(reason)})`}`);
  error.name = "AbortError";
  return error;
}

function causeChain(error: Error): string {
  const parts = [error.message];
  let cause: unknown = error.cause;
  while (cause instanceof Error && parts.length < 4) {
    parts.push(cause.message);
    cause = cause.cause;
  }
  return parts.join(": ");
}

function formatMs(ms: number): string {
  return ms >= 1000 ? `${Math.round(ms / 100) / 10} s` : `${ms} ms`;
}

/** A sleep that an abort cuts short (rejecting). */
export function sleepFor(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
