import { describe, expect, it } from "vitest";
import { holmRejections, taroneFamilySize, taroneHolm } from "../bench/tarone.js";
import { adjustPValues } from "../src/stats/stats.js";

describe("Tarone's family size", () => {
  it("is the smallest K with at most K tests able to reach alpha / K", () => {
    // At K = 1 two tests can reach 0.05 (0.01, 0.001); at K = 2 both can still reach 0.025: K = 2.
    expect(taroneFamilySize([0.2, 0.01, 0.001, 0.6], 0.05)).toBe(2);
    // Nothing can reach 0.05: K = 1 with an empty family.
    expect(taroneFamilySize([0.2, 0.3], 0.05)).toBe(1);
    expect(taroneFamilySize([0, 0, 0], 0.05)).toBe(3);
  });
});

describe("step-down Tarone–Holm (Hommel & Krummenauer 1998)", () => {
  it("rejects by hand-worked steps, more than Holm over every test", () => {
    const p = [0.3, 0.02, 0.004, 0.9];
    const minimum = [0.2, 0.01, 0.001, 0.6];
    // Step 1: K = 2, level 0.025: 0.004 rejected. Step 2 over {0, 1, 3}: only 0.01 can reach 0.05,
    // K = 1, level 0.05: 0.02 rejected. Step 3: nothing can reach 0.05.
    const result = taroneHolm(p, minimum, 0.05);
    expect(result.rejected).toEqual([false, true, true, false]);
    expect(result.testable).toEqual([false, true, true, false]);
    expect(result.level[1]).toBeCloseTo(0.05, 14);
    expect(result.level[2]).toBeCloseTo(0.025, 14);
    // Holm over the four: 0.004 ≤ 0.0125, then 0.02 > 0.05/3: one rejection.
    expect(holmRejections(p, 0.05)).toEqual([false, false, true, false]);
  });

  it("is Holm when every test can reach significance", () => {
    const p = [0.01, 0.04, 0.03, 0.005, 0.2];
    const holm = adjustPValues(p, "holm").map((q) => q <= 0.05);
    expect(taroneHolm(p, [0, 0, 0, 0, 0], 0.05).rejected).toEqual(holm);
    expect(holmRejections(p, 0.05)).toEqual(holm);
  });

  it("can be non-monotone in alpha (why it reports decisions, not adjusted p-values)", () => {
    const p = [0.014, 0.5, 0.5];
    const minimum = [0.01, 0.01, 0.02];
    // alpha 0.03: K = 2, level 0.015 → rejected; alpha 0.04: K = 3, level 0.0133 → not.
    expect(taroneHolm(p, minimum, 0.03).rejected[0]).toBe(true);
    expect(taroneHolm(p, minimum, 0.04).rejected[0]).toBe(false);
  });

  it("rejects inconsistent input", () => {
    expect(() => taroneHolm([0.1], [0.2], 0.05)).toThrow(RangeError);
    expect(() => taroneHolm([0.1, 0.2], [0.1], 0.05)).toThrow(RangeError);
  });
});
