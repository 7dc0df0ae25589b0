/**
 * The bound on any suite test's power: the χ² law it bins, and the bound against tests whose power is
 * known in closed form — it may never fall below a test that keeps every null cell, and with nothing
 * to guard against it is the most powerful test's power.
 */
import { describe, expect, it } from "vitest";
import { normalCdf, normalQuantile } from "../../src/stats/stats.js";
import {
  type BoundGrid,
  chiSquareCdf,
  type SuiteBoundDesign,
  suitePowerBound,
} from "../../src/stats/suite-power-bound.js";

const COARSE: BoundGrid = { d: 80, slope: 16, spread: 12, dayCells: 3, sweeps: 3 };

const DEFAULTS: SuiteBoundDesign = {
  scenarios: 20,
  trials: 3,
  baseRuns: 8,
  baseRate: 0.9,
  headRate: 0.8,
  driftPerRun: -0.05 / 8,
  maxDayVariance: (0.5 * 0.9 * 0.1) ** 2,
  alpha: 0.025,
};

/** Power of the one-sided z-test of D − c·slope, c the distance from the base runs' mean position to the head's. */
function zTestPower(design: SuiteBoundDesign, extrapolate: boolean): number {
  const { scenarios, trials, baseRuns: k, baseRate: p, headRate: p1, alpha } = design;
  const baseVar = (p * (1 - p)) / (scenarios * trials);
  const center = (k - 1) / 2;
  let sxx = 0;
  for (let r = 0; r < k; r++) sxx += (r - center) ** 2;
  const trendVar = extrapolate ? (baseVar * ((k + 1) / 2) ** 2) / sxx : 0;
  const null0 = Math.sqrt(baseVar + baseVar / k + trendVar);
  const alt = Math.sqrt((p1 * (1 - p1)) / (scenarios * trials) + baseVar / k + trendVar);
  return normalCdf((normalQuantile(alpha) * null0 - (p1 - p)) / alt);
}

describe("chiSquareCdf", () => {
  it("matches scipy.stats.chi2.cdf", () => {
    expect(chiSquareCdf(3, 6)).toBeCloseTo(0.19115316946194183, 12);
    expect(chiSquareCdf(10, 6)).toBeCloseTo(0.8753479805169189, 12);
    expect(chiSquareCdf(0.5, 1)).toBeCloseTo(0.5204998778130466, 12);
    expect(chiSquareCdf(0.2, 10) / 7.667801686189327e-8).toBeCloseTo(1, 10);
    expect(chiSquareCdf(55, 40)).toBeCloseTo(0.9425426483234082, 12);
    expect(chiSquareCdf(0, 4)).toBe(0);
  });
});

describe("suitePowerBound", () => {
  it("with no drift and no day effect to guard against, is the most powerful test's power (the z-test of D)", () => {
    const design = { ...DEFAULTS, driftPerRun: 0, maxDayVariance: 0 };
    const bound = suitePowerBound(design, COARSE).power;
    const ump = zTestPower(design, false);
    expect(ump).toBeCloseTo(0.6423, 4);
    // The grid restricts the threshold to its bins: at most a bin's worth below, never far above.
    expect(Math.abs(bound - ump)).toBeLessThan(0.01);
  });

  it("is never below a test that keeps every null cell: the extrapolated trend keeps the drift cell exactly", () => {
    const design = { ...DEFAULTS, maxDayVariance: 0 };
    const bound = suitePowerBound(design, COARSE).power;
    const trend = zTestPower(design, true);
    expect(bound).toBeGreaterThan(trend - 0.01);
    // ... and below the mean's test, which fails the drift cell (it ignores the drift's bias).
    expect(bound).toBeLessThan(zTestPower(design, false) - 0.05);
  });

  it("falls as null cells are added and rises with base runs, head trials and the level", () => {
    const all = suitePowerBound(DEFAULTS, COARSE).power;
    const noDay = suitePowerBound({ ...DEFAULTS, maxDayVariance: 0 }, COARSE).power;
    expect(all).toBeLessThan(noDay);
    expect(suitePowerBound({ ...DEFAULTS, baseRuns: 12 }, COARSE).power).toBeGreaterThan(all + 0.03);
    expect(suitePowerBound({ ...DEFAULTS, headTrials: 7 }, COARSE).power).toBeGreaterThan(all + 0.1);
    expect(suitePowerBound({ ...DEFAULTS, alpha: 0.035 }, COARSE).power).toBeGreaterThan(all + 0.02);
  });

  it("at the defaults is below 50% for a broad drop 0.9 → 0.8, and a finer grid moves it by little", () => {
    const coarse = suitePowerBound(DEFAULTS, COARSE);
    expect(coarse.cells).toContain("drift");
    expect(coarse.multipliers.every((m) => m >= 0)).toBe(true);
    const finer = suitePowerBound(DEFAULTS, { d: 160, slope: 24, spread: 16, dayCells: 3, sweeps: 3 });
    expect(Math.abs(finer.power - coarse.power)).toBeLessThan(0.01);
    expect(finer.power).toBeLessThan(0.5);
  });

  it("refuses fewer than three base runs", () => {
    expect(() => suitePowerBound({ ...DEFAULTS, baseRuns: 2 }, COARSE)).toThrow(/at least 3 base runs/);
  });
});
