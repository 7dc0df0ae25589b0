import { describe, expect, it } from "vitest";
import { createAimdLimiter, type LimiterClock } from "../../src/model/call-limiter.js";

/** A clock that only moves when told to, firing due timers in order. */
function createFakeClock(): LimiterClock & { advance(ms: number): void; pending(): number } {
  let time = 0;
  let timers: { at: number; callback: () => void }[] = [];
  return {
    now: () => time,
    setTimer(callback, ms) {
      const timer = { at: time + ms, callback };
      timers.push(timer);
      return () => {
        timers = timers.filter((t) => t !== timer);
      };
    },
    advance(ms) {
      const end = time + ms;
      while (true) {
        const due = timers.filter((t) => t.at <= end).sort((a, b) => a.at - b.at)[0];
        if (!due) break;
        timers = timers.filter((t) => t !== due);
        time = due.at;
        due.callback();
      }
      time = end;
    },
    pending: () => timers.length,
  };
}

/** Lets granted acquire() promises run their continuations. */
const flush = () => new Promise((resolve) => setImmediate(resolve));

describe("createAimdLimiter", () => {
  it("grants up to the limit at once and queues the rest in order", async () => {
    const clock = createFakeClock();
    const limiter = createAimdLimiter({ initial: 2, max: 8, clock });
    const granted: number[] = [];
    for (const id of [1, 2, 3, 4]) void limiter.acquire().then(() => granted.push(id));
    await flush();
    expect(granted).toEqual([1, 2]);
    expect(limiter.inFlight()).toBe(2);
    expect(limiter.queued()).toBe(2);

    clock.advance(50);
    limiter.release();
    await flush();
    expect(granted).toEqual([1, 2, 3]);
    limiter.release();
    await flush();
    expect(granted).toEqual([1, 2, 3, 4]);
    // The third and fourth callers each waited 50 ms.
    expect(limiter.waitedMs()).toBe(100);
  });

  it("adds one slot after `limit` successes and never passes max", () => {
    const limiter = createAimdLimiter({ initial: 2, max: 4, clock: createFakeClock() });
    limiter.onSuccess();
    expect(limiter.limit()).toBe(2);
    limiter.onSuccess();
    expect(limiter.limit()).toBe(3);
    for (let i = 0; i < 3; i += 1) limiter.onSuccess();
    expect(limiter.limit()).toBe(4);
    for (let i = 0; i < 20; i += 1) limiter.onSuccess();
    expect(limiter.limit()).toBe(4);
  });

  it("halves on a rate limit, not below min, once per cooldown for a burst of failures", () => {
    const clock = createFakeClock();
    const limiter = createAimdLimiter({ initial: 16, min: 3, max: 32, decreaseCooldownMs: 1000, clock });
    limiter.onRateLimited(null);
    expect(limiter.limit()).toBe(8);
    // The other calls of the same burst come back failed too: one signal, one decrease.
    limiter.onRateLimited(null);
    limiter.onRateLimited(null);
    expect(limiter.limit()).toBe(8);
    clock.advance(1000);
    limiter.onRateLimited(null);
    expect(limiter.limit()).toBe(4);
    clock.advance(1000);
    limiter.onRateLimited(null);
    expect(limiter.limit()).toBe(3);
  });

  it("pauses every new call until the retry-after has passed, and counts the wait", async () => {
    const clock = createFakeClock();
    const limiter = createAimdLimiter({ initial: 4, max: 4, clock });
    await limiter.acquire();
    limiter.onRateLimited(500);
    limiter.release();

    let granted = false;
    void limiter.acquire().then(() => {
      granted = true;
    });
    await flush();
    expect(granted).toBe(false);
    clock.advance(499);
    await flush();
    expect(granted).toBe(false);
    expect(limiter.waitedMs()).toBe(499);
    clock.advance(1);
    await flush();
    expect(granted).toBe(true);
    expect(limiter.waitedMs()).toBe(500);
    expect(clock.pending()).toBe(0);
  });

  it("extends the pause when a later rate limit asks for longer", async () => {
    const clock = createFakeClock();
    const limiter = createAimdLimiter({ initial: 4, max: 4, clock });
    limiter.onRateLimited(100);
    let granted = false;
    void limiter.acquire().then(() => {
      granted = true;
    });
    clock.advance(50);
    limiter.onRateLimited(200);
    clock.advance(100);
    await flush();
    expect(granted).toBe(false);
    clock.advance(100);
    await flush();
    expect(granted).toBe(true);
  });

  it("lets fewer calls in after a decrease until enough have finished", async () => {
    const clock = createFakeClock();
    const limiter = createAimdLimiter({ initial: 4, max: 4, clock });
    for (let i = 0; i < 4; i += 1) await limiter.acquire();
    limiter.onRateLimited(null);
    expect(limiter.limit()).toBe(2);
    let granted = false;
    void limiter.acquire().then(() => {
      granted = true;
    });
    limiter.release();
    limiter.release();
    await flush();
    expect(granted).toBe(false);
    limiter.release();
    await flush();
    expect(granted).toBe(true);
    expect(limiter.inFlight()).toBe(2);
  });

  it("rejects a waiting acquire when its signal aborts, and frees its place", async () => {
    const clock = createFakeClock();
    const limiter = createAimdLimiter({ initial: 1, max: 1, clock });
    await limiter.acquire();
    const controller = new AbortController();
    const waiting = limiter.acquire(controller.signal);
    clock.advance(30);
    controller.abort("timeout");
    await expect(waiting).rejects.toBe("timeout");
    expect(limiter.queued()).toBe(0);
    expect(limiter.waitedMs()).toBe(30);
    limiter.release();
    expect(limiter.inFlight()).toBe(0);
    await expect(limiter.acquire(AbortSignal.abort("cancelled"))).rejects.toBe("cancelled");
  });

  it("works on the real clock", async () => {
    const limiter = createAimdLimiter({ initial: 1, max: 2 });
    limiter.onRateLimited(20);
    const started = performance.now();
    await limiter.acquire();
    expect(performance.now() - started).toBeGreaterThanOrEqual(15);
    expect(limiter.waitedMs()).toBeGreaterThanOrEqual(15);
    limiter.release();
  });
});
