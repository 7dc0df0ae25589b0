import type { CallLimiter } from "./model-client.js";

/** A clock the limiter can be tested with: the current time and a cancellable timer. */
export interface LimiterClock {
  now(): number;
  setTimer(callback: () => void, ms: number): () => void;
}

export interface AimdLimiterOptions {
  /** Calls in flight at the start. */
  initial: number;
  min?: number;
  max: number;
  /**
   * After a decrease, further rate-limit answers within this window do not halve again: the calls
   * already in flight when the limit dropped tend to fail together, and that is one signal, not many.
   */
  decreaseCooldownMs?: number;
  clock?: LimiterClock;
}

export interface AimdLimiter extends CallLimiter {
  /** Calls allowed in flight right now. */
  limit(): number;
  inFlight(): number;
  /** Callers waiting in `acquire`. */
  queued(): number;
}

interface Waiter {
  since: number;
  grant: () => void;
}

const systemClock: LimiterClock = {
  now: () => performance.now(),
  setTimer: (callback, ms) => {
    const timer = setTimeout(callback, ms);
    return () => clearTimeout(timer);
  },
};

/**
 * Additive increase, multiplicative decrease, as TCP does for congestion: +1 slot after `limit`
 * successes in a row, halve on a 429/529, and pause every new call until the server's retry-after
 * has passed so the whole run backs off at once instead of each call hammering on its own.
 */
export function createAimdLimiter(options: AimdLimiterOptions): AimdLimiter {
  const min = Math.max(1, Math.floor(options.min ?? 1));
  const max = Math.max(min, Math.floor(options.max));
  const cooldownMs = options.decreaseCooldownMs ?? 1000;
  const clock = options.clock ?? systemClock;

  let limit = Math.min(max, Math.max(min, Math.floor(options.initial)));
  let inFlight = 0;
  let successes = 0;
  let pausedUntil = Number.NEGATIVE_INFINITY;
  let lastDecreaseAt = Number.NEGATIVE_INFINITY;
  let waited = 0;
  let cancelTimer: (() => void) | null = null;
  const queue: Waiter[] = [];

  function pump(): void {
    const now = clock.now();
    if (now < pausedUntil) {
      if (queue.length > 0 && !cancelTimer) {
        cancelTimer = clock.setTimer(() => {
          cancelTimer = null;
          pump();
        }, pausedUntil - now);
      }
      return;
    }
    while (inFlight < limit && queue.length > 0) {
      const waiter = queue.shift()!;
      inFlight += 1;
      waited += now - waiter.since;
      waiter.grant();
    }
  }

  return {
    acquire(signal) {
      if (signal?.aborted) return Promise.reject(abortReason(signal));
      const now = clock.now();
      if (queue.length === 0 && inFlight < limit && now >= pausedUntil) {
        inFlight += 1;
        return Promise.resolve();
      }
      return new Promise<void>((resolve, reject) => {
        const onAbort = () => {
          const index = queue.indexOf(waiter);
          if (index >= 0) queue.splice(index, 1);
          waited += clock.now() - waiter.since;
          reject(abortReason(signal!));
        };
        const waiter: Waiter = {
          since: now,
          grant: () => {
            signal?.removeEventListener("abort", onAbort);
            resolve();
          },
        };
        signal?.addEventListener("abort", onAbort, { once: true });
        queue.push(waiter);
        // Arms the timer for the end of a pause when this is the first caller to wait on it.
        pump();
      });
    },
    release() {
      inFlight = Math.max(0, inFlight - 1);
      pump();
    },
    onRateLimited(retryAfterMs) {
      const now = clock.now();
      if (now - lastDecreaseAt >= cooldownMs) {
        limit = Math.max(min, Math.floor(limit / 2));
        lastDecreaseAt = now;
      }
      successes = 0;
      if (retryAfterMs !== null && retryAfterMs > 0) {
        const until = now + retryAfterMs;
        if (until > pausedUntil) {
          pausedUntil = until;
          // A later pause end replaces an earlier timer.
          cancelTimer?.();
          cancelTimer = null;
        }
      }
      pump();
    },
    onSuccess() {
      successes += 1;
      if (successes < limit) return;
      successes = 0;
      if (limit < max) {
        limit += 1;
        pump();
      }
    },
    waitedMs: () => {
      const now = clock.now();
      return queue.reduce((sum, waiter) => sum + (now - waiter.since), waited);
    },
    limit: () => limit,
    inFlight: () => inFlight,
    queued: () => queue.length,
  };
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("The operation was aborted", "AbortError");
}
