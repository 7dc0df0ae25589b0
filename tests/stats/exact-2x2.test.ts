import { describe, expect, it } from "vitest";
import {
  boschlooMinimumP,
  boschlooOneSidedP,
  fisherMinimumP,
  fisherMinimumPForSizes,
  fisherOneSidedP,
} from "../../src/stats/exact-2x2.js";

const table = (basePassed: number, baseTrials: number, headPassed: number, headTrials: number) => ({
  basePassed,
  baseTrials,
  headPassed,
  headTrials,
});

// Reference values: scipy 1.17.1, with the table in scipy's layout [[head passed, base passed],
// [head failed, base failed]] and alternative="less", e.g.
// scipy.stats.boschloo_exact([[0, 12], [3, 0]], alternative="less").pvalue.
const SCIPY: { counts: ReturnType<typeof table>; boschloo: number; fisher: number }[] = [
  { counts: table(12, 12, 0, 3), boschloo: 0.0005497558138879981, fisher: 0.002197802197802198 },
  { counts: table(11, 12, 1, 9), boschloo: 0.00013788051903630715, fisher: 0.00037083659374681044 },
  { counts: table(10, 12, 2, 9), boschloo: 0.0035168265526576295, fisher: 0.008454393903310311 },
  { counts: table(9, 12, 1, 9), boschloo: 0.0019303092412283405, fisher: 0.0058007008471404765 },
  { counts: table(5, 5, 0, 5), boschloo: 0.0009765625, fisher: 0.003968253968253969 },
  { counts: table(12, 12, 3, 3), boschloo: 1, fisher: 1 },
  { counts: table(6, 12, 1, 3), boschloo: 0.3596216065712158, fisher: 0.5538461538461539 },
  { counts: table(12, 12, 0, 1), boschloo: 0.029438208205929812, fisher: 0.07692307692307691 },
  { counts: table(7, 10, 2, 10), boschloo: 0.020694732666015646, fisher: 0.034889259347463675 },
];

describe("one-sided exact tests for a lower head pass rate", () => {
  it("match scipy.stats.boschloo_exact and fisher_exact (alternative='less', scipy 1.17.1)", () => {
    for (const { counts, boschloo, fisher } of SCIPY) {
      expect(Math.abs(boschlooOneSidedP(counts) - boschloo)).toBeLessThan(1e-9);
      expect(Math.abs(fisherOneSidedP(counts) - fisher)).toBeLessThan(1e-12);
    }
  });

  it("stays finite beyond 1,000 trials in all, where C(nb, y) overflows a double (it was NaN)", () => {
    // scipy.stats.boschloo_exact([[hx, by], [20 - hx, 1100 - by]], alternative="less", n=1024).
    const large = [
      { counts: table(990, 1100, 12, 20), boschloo: 0.00026587480759518163 },
      { counts: table(1000, 1100, 5, 20), boschloo: 1.982795174975762e-12 },
      { counts: table(990, 1100, 15, 20), boschloo: 0.03065241108433809 },
    ];
    for (const { counts, boschloo } of large) {
      const p = boschlooOneSidedP(counts);
      expect(Number.isFinite(p)).toBe(true);
      expect(Math.abs(p - boschloo) / boschloo).toBeLessThan(1e-8);
    }
  });

  it("Fisher's one-sided p is the hypergeometric lower tail, by hand", () => {
    // 12/12 vs 0/3: 12 passes among 15 trials; the head got none: 1/C(15, 3) = 1/455.
    expect(fisherOneSidedP(table(12, 12, 0, 3))).toBeCloseTo(1 / 455, 14);
    // 11/12 vs 1/3: 12 passes; P(head ≤ 1) = [C(3,0)C(12,12) + C(3,1)C(12,11)] / 455 = 37/455.
    expect(fisherOneSidedP(table(11, 12, 1, 3))).toBeCloseTo(37 / 455, 14);
  });

  it("Boschloo is never above Fisher (it is uniformly more powerful), over every 12 vs 9 table", () => {
    for (let b = 0; b <= 12; b++) {
      for (let h = 0; h <= 9; h++) {
        const counts = table(b, 12, h, 9);
        expect(boschlooOneSidedP(counts)).toBeLessThanOrEqual(fisherOneSidedP(counts) + 1e-12);
      }
    }
  });

  it("is 1 when a side has no trials, and rejects invalid counts", () => {
    expect(boschlooOneSidedP(table(0, 0, 0, 3))).toBe(1);
    expect(fisherOneSidedP(table(5, 5, 0, 0))).toBe(1);
    expect(() => boschlooOneSidedP(table(13, 12, 0, 3))).toThrow(RangeError);
    expect(() => fisherOneSidedP(table(1, 2, -1, 3))).toThrow(RangeError);
  });
});

describe("minimum attainable p-values", () => {
  it("for Fisher given the margins: the head at its fewest possible passes", () => {
    expect(fisherMinimumP(12, 3, 12)).toBeCloseTo(1 / 455, 14);
    // 14 passes of 15: the head has at least 2; P(head = 2) = C(3,2)/C(15,14) = 3/15.
    expect(fisherMinimumP(12, 3, 14)).toBeCloseTo(0.2, 14);
    // Every trial passed: only one table, which cannot be significant.
    expect(fisherMinimumP(12, 3, 15)).toBe(1);
  });

  it("for Fisher given only the sample sizes: 3/3 → 0/3 cannot beat 1/C(6, 3) = 0.05", () => {
    expect(fisherMinimumPForSizes(3, 3)).toBeCloseTo(0.05, 14);
    expect(fisherMinimumPForSizes(12, 3)).toBeCloseTo(1 / 455, 14);
  });

  it("for Boschloo: the p-value of the most extreme table (scipy 1.17.1 values above)", () => {
    expect(boschlooMinimumP(12, 3)).toBeCloseTo(0.0005497558138879981, 9);
    expect(boschlooMinimumP(12, 1)).toBeCloseTo(0.029438208205929812, 9);
  });
});
