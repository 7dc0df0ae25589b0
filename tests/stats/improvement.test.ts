import { describe, expect, it } from "vitest";
import { boschlooOneSidedP } from "../../src/stats/exact-2x2.js";
import { decideImprovement } from "../../src/stats/improvement.js";
import { decideRegression, type ScenarioCounts } from "../../src/stats/regression-decision.js";
import { clusteredUnconditionalP } from "../../src/stats/run-clusters.js";

const counts = (basePassed: number, baseTrials: number, headPassed: number, headTrials: number) => ({
  basePassed,
  baseTrials,
  headPassed,
  headTrials,
});

describe("decideImprovement", () => {
  it("tests the head passing more often with the regression side's exact test, mirrored", () => {
    // 0/11 → 3/3: one-sided in the improving direction is Boschloo's test of 11/11 → 0/3.
    const result = decideImprovement([counts(0, 11, 3, 3)]);
    const mirrored = boschlooOneSidedP(counts(11, 11, 0, 3));
    expect(result.scenarios[0]!.pValue).toBeCloseTo(mirrored, 12);
    expect(mirrored).toBeLessThan(0.001);
    // A family of one at 0.025 of 0.05, on alpha's scale: 2p.
    expect(result.scenarios[0]!.adjustedP).toBeCloseTo(2 * mirrored, 12);
    expect(result.scenarios[0]!.improved).toBe(true);
    expect(result).toMatchObject({ alpha: 0.05, primaryAlpha: 0.025, suiteAlpha: 0.025 });
  });

  it("takes the base runs as clusters, in the failures' direction, at the assumed ICC", () => {
    const baseRuns = [
      { passed: 0, trials: 4 },
      { passed: 1, trials: 4 },
      { passed: 0, trials: 4 },
    ];
    const result = decideImprovement([{ ...counts(1, 12, 3, 3), baseRuns }], { icc: 0.1 });
    const direct = clusteredUnconditionalP({
      baseRunTrials: [4, 4, 4],
      basePassed: 11,
      headTrials: 3,
      headPassed: 0,
      icc: 0.1,
    });
    expect(result.scenarios[0]!.pValue).toBeCloseTo(direct, 12);
  });

  it("does not call a shrug an improvement: 20/24 → 3/3, 10/12 → 3/3", () => {
    const result = decideImprovement([counts(20, 24, 3, 3), counts(10, 12, 3, 3)]);
    expect(result.scenarios.map((s) => s.improved)).toEqual([false, false]);
    expect(result.suite.improved).toBe(false);
  });

  it("controls its own family: Holm over the scenarios, as the regression side does", () => {
    // The same data one at a time and among 20 scenarios that did not move: only the family grows.
    const alone = decideImprovement([counts(0, 12, 3, 3)]);
    const among = decideImprovement([
      counts(0, 12, 3, 3),
      ...Array.from({ length: 19 }, () => counts(11, 12, 3, 3)),
    ]);
    expect(among.scenarios[0]!.pValue).toBe(alone.scenarios[0]!.pValue);
    expect(among.scenarios[0]!.adjustedP!).toBeGreaterThan(alone.scenarios[0]!.adjustedP!);
  });

  it("tests the first trials only: the screen's extra trials follow a worse start, not a fixed design", () => {
    const extended: ScenarioCounts = {
      ...counts(2, 12, 11, 11),
      initialHeadPassed: 0,
      initialHeadTrials: 3,
      extended: true,
    };
    const result = decideImprovement([extended]);
    expect(result.scenarios[0]!.pValue).toBeCloseTo(boschlooOneSidedP(counts(10, 12, 3, 3)), 12);
    expect(result.scenarios[0]!.improved).toBe(false);
  });

  it("sees a broad small gain through the suite test when no scenario alone shows it", () => {
    // 30 scenarios, 75% → 100%: none significant alone.
    const result = decideImprovement(Array.from({ length: 30 }, () => counts(9, 12, 3, 3)));
    expect(result.scenarios.some((s) => s.improved)).toBe(false);
    expect(result.suite.improved).toBe(true);
    // … and the regression decision of the same counts rejects nothing: the two directions are apart.
    expect(decideRegression(Array.from({ length: 30 }, () => counts(9, 12, 3, 3))).failed).toBe(false);
  });
});
