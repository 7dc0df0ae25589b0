import { describe, expect, it } from "vitest";
import { planDelay, readRetryAfter } from "../../src/model/retrying-call.js";

describe("readRetryAfter and planDelay", () => {
  const now = Date.parse("2030-01-01T00:00:00Z");
  it("reads retry-after-ms first, then retry-after as seconds or an HTTP date", () => {
    expect(readRetryAfter(new Headers({ "retry-after-ms": "250", "retry-after": "9" }), now)).toBe(250);
    expect(readRetryAfter(new Headers({ "retry-after": "1.5" }), now)).toBe(1500);
    expect(readRetryAfter(new Headers({ "retry-after": "Tue, 01 Jan 2030 00:00:07 GMT" }), now)).toBe(7000);
    expect(readRetryAfter(new Headers({ "retry-after": "Mon, 31 Dec 2029 23:00:00 GMT" }), now)).toBe(0);
    expect(readRetryAfter(new Headers({ "retry-after": "soon" }), now)).toBeNull();
    expect(readRetryAfter(new Headers(), now)).toBeNull();
    expect(readRetryAfter(undefined, now)).toBeNull();
  });

  it("backs off exponentially with up to a quarter of jitter, capped at 30 s", () => {
    expect([1, 2, 3, 4].map((attempt) => planDelay(null, attempt, () => 0))).toEqual([500, 1000, 2000, 4000]);
    expect(planDelay(null, 20, () => 0)).toBe(30_000);
    expect(planDelay(null, 1, () => 0.999)).toBeGreaterThanOrEqual(375);
    expect(planDelay(1234, 5, () => 0.5)).toBe(1234);
    expect(planDelay(3_600_000, 1, () => 0)).toBe(300_000);
  });
});
