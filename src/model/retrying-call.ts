/**
 * What every provider's client does around its SDK call, whichever provider it is: attempts until
 * one answers, each with its own deadline and holding a slot of the shared CallLimiter only while
 * it runs; failures described in words, reported through `onRetry` and retried with the server's
 * retry-after or exponential backoff; the key never in a message. The SDKs' own retries are off,
 * so every failed attempt is visible to the run (as `model_error` events).
 */
import { describeError } from "../errors.js";
import {
  type CallLimiter,
  type CallOptions,
  DEFAULT_ATTEMPT_TIMEOUT_MS,
  ModelCallError,
  type ModelResponse,
} from "./model-client.js";

const DEFAULT_MAX_ATTEMPTS = 6;
const BACKOFF_BASE_MS = 500;
const BACKOFF_CAP_MS = 30_000;
/** A server asking for a longer wait is clamped to this; the attempt bound still ends a hopeless call. */
const RETRY_AFTER_CAP_MS = 5 * 60_000;

/** The options every provider's client takes besides its own. */
export interface RetryingClientOptions {
  apiKey: string;
  /** Defaults to the provider's public API; never read from the environment here (the CLI/action do that). */
  baseURL?: string;
  /** Attempts per call, the first included. */
  maxAttempts?: number;
  /**
   * Per attempt, from sending the request to reading the whole answer (the SDKs' own timeouts stop
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
}

/** The client's options, resolved. */
export interface RetrySettings {
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

export function resolveRetrySettings(
  clientName: string,
  options: RetryingClientOptions,
  defaults: { baseURL: string; keySource: string },
): RetrySettings {
  if (!options.apiKey) throw new Error(`${clientName} needs a non-empty apiKey`);
  const requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_ATTEMPT_TIMEOUT_MS;
  if (!(requestTimeoutMs > 0)) throw new Error(`${clientName} needs a requestTimeoutMs > 0`);
  return {
    apiKey: options.apiKey,
    baseURL: options.baseURL || defaults.baseURL,
    maxAttempts: Math.max(1, Math.floor(options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS)),
    requestTimeoutMs,
    keySource: options.keySource ?? defaults.keySource,
    sleep: options.sleep ?? sleepFor,
    now: options.now ?? Date.now,
    random: options.random ?? Math.random,
    limiter: options.limiter,
  };
}

/** An SDK's error, sorted into what the retry loop weighs (each SDK has its own error classes). */
export type SdkFailure =
  | { kind: "aborted" }
  | { kind: "timeout" }
  | { kind: "connection"; cause: unknown }
  | { kind: "status"; status: number; headers: Headers | undefined; apiMessage: string }
  | { kind: "other"; error: unknown };

/** One provider's request: send it under the attempt's signal; sort what it throws. */
export interface ProviderRequest {
  /** The model id as the provider knows it, for messages. */
  model: string;
  send(signal: AbortSignal): Promise<ModelResponse>;
  classify(error: unknown): SdkFailure;
}

interface AttemptFailure {
  status: number | null;
  message: string;
  retryable: boolean;
  /** What the server asked for, in ms (retry-after-ms, then retry-after). */
  retryAfterMs: number | null;
}

/**
 * The retry loop: attempts until one answers, a failure is not retryable, or the attempts run out.
 * Every failed attempt is reported through `onRetry`; the time spent queued for the limiter and
 * backing off is the response's `waited_ms`.
 */
export async function callWithRetries(
  settings: RetrySettings,
  request: ProviderRequest,
  callOptions: CallOptions,
): Promise<ModelResponse> {
  const { signal, onRetry } = callOptions;
  const { limiter, now } = settings;
  let waited = 0;
  for (let attempt = 1; ; attempt += 1) {
    throwIfAborted(signal);
    const result = await attemptOnce(settings, request, signal);
    waited += result.queuedMs;
    if ("response" in result) return { ...result.response, waited_ms: waited, attempts: attempt };
    const { failure } = result;

    if (failure.status === 429 || failure.status === 529) limiter?.onRateLimited(failure.retryAfterMs);
    const message = redactKey(failure.message, settings.apiKey);
    const willRetry = failure.retryable && attempt < settings.maxAttempts;
    const delayMs = willRetry ? planDelay(failure.retryAfterMs, attempt, settings.random) : null;
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
      await settings.sleep(delayMs, signal);
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
  settings: RetrySettings,
  request: ProviderRequest,
  signal: AbortSignal | undefined,
): Promise<{ queuedMs: number } & ({ response: ModelResponse } | { failure: AttemptFailure })> {
  const { limiter, now } = settings;
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
  const deadline = startDeadline(settings.requestTimeoutMs, signal);
  try {
    const response = await request.send(deadline.signal);
    limiter?.onSuccess();
    return { queuedMs, response };
  } catch (error) {
    if (signal?.aborted) throw abortError(signal);
    if (deadline.expired()) return { queuedMs, failure: timedOut(settings) };
    const sorted = request.classify(error);
    if (sorted.kind === "aborted") throw abortError(signal);
    return { queuedMs, failure: describeFailure(sorted, request.model, settings) };
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

function timedOut(settings: RetrySettings): AttemptFailure {
  return {
    status: null,
    message: `the request timed out after ${formatMs(settings.requestTimeoutMs)} with no answer from ${settings.baseURL}`,
    retryable: true,
    retryAfterMs: null,
  };
}

/** What went wrong, in words, and whether another attempt may do better. */
function describeFailure(failure: SdkFailure, model: string, settings: RetrySettings): AttemptFailure {
  switch (failure.kind) {
    case "timeout":
      return timedOut(settings);
    case "connection": {
      const cause = failure.cause instanceof Error ? `: ${causeChain(failure.cause)}` : "";
      return {
        status: null,
        message: `could not reach ${settings.baseURL}${cause}`,
        retryable: true,
        retryAfterMs: null,
      };
    }
    case "status": {
      const { status, headers } = failure;
      const shouldRetry = headers?.get("x-should-retry");
      const retryable =
        shouldRetry === "true" ||
        (shouldRetry !== "false" &&
          (status === 408 || status === 409 || status === 429 || status === 529 || status >= 500));
      return {
        status,
        message: describeStatus(status, failure.apiMessage, model, settings.keySource),
        retryable,
        retryAfterMs: readRetryAfter(headers, settings.now()),
      };
    }
    default:
      return {
        status: null,
        message: describeError(failure.kind === "other" ? failure.error : failure),
        retryable: false,
        retryAfterMs: null,
      };
  }
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
function sleepFor(ms: number, signal?: AbortSignal): Promise<void> {
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
