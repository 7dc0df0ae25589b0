import { describe, expect, it } from "vitest";
import { differenceInterval, toleranceTest } from "../../src/stats/difference-interval.js";

// Known values from scipy 1.17 (stats.ttest_ind(equal_var=False), its confidence_interval, and
// brentq on the MOVER bound with Poisson score side intervals).
const HEAD = [130, 150, 170, 160, 140];
const BASE = [100, 110, 90, 105, 95, 100, 115, 85];

describe("differenceInterval", () => {
  it("is Welch's interval when both sides vary", () => {
    const i = differenceInterval(HEAD, BASE, "amount")!;
    expect(i.low).toBeCloseTo(30.682227, 5);
    expect(i.high).toBeCloseTo(69.317773, 5);
  });

  it("scales the base: mean(head) − 1.2·mean(base) is centred on 30", () => {
    const i = differenceInterval(HEAD, BASE, "amount", { scale: 1.2 })!;
    expect((i.low + i.high) / 2).toBeCloseTo(30, 9);
  });

  it("is null with fewer than two values on a side", () => {
    expect(differenceInterval([1], [1, 2], "amount")).toBeNull();
  });
});

describe("toleranceTest: does the head exceed the base by more than the tolerance?", () => {
  it("is Welch's one-sided t test of mean(head) − (1 + t)·mean(base) when both sides vary", () => {
    const at20 = toleranceTest(HEAD, BASE, "amount", 0.2)!;
    expect(at20.excess).toBeCloseTo(30, 9);
    expect(at20.p_value).toBeCloseTo(0.0042715547, 7);
    // +50% observed: within a +40% tolerance the data cannot show it is exceeded.
    expect(toleranceTest(HEAD, BASE, "amount", 0.4)!.p_value).toBeCloseTo(0.140416335, 6);
  });

  it("gives 1 when the head's mean is within the tolerance", () => {
    expect(toleranceTest(HEAD, BASE, "amount", 0.6)).toEqual({ p_value: 1, excess: 150 - 1.6 * 100 });
  });

  it("uses Poisson side intervals for counts without spread: 3 trials of 4 turns against 3 of 3 show nothing", () => {
    expect(toleranceTest([4, 4, 4], [3, 3, 3], "count", 0.2)!.p_value).toBeCloseTo(0.405598, 4);
    // Ten trials a side of 6 turns against 3: twice the base, clearly more than +20%.
    expect(toleranceTest(Array(10).fill(6), Array(10).fill(3), "count", 0.2)!.p_value).toBeCloseTo(
      0.0110908,
      5,
    );
  });

  it("amounts without spread on either side are known exactly: any excess rejects at every level", () => {
    expect(toleranceTest([2000, 2000], [1000, 1000], "amount", 0.2)!.p_value).toBeLessThan(1e-11);
    expect(toleranceTest([1100, 1100], [1000, 1000], "amount", 0.2)!.p_value).toBe(1);
  });

  it("needs two values a side", () => {
    expect(toleranceTest([5], [1, 2], "amount", 0.2)).toBeNull();
  });
});
