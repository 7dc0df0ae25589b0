import { describe, expect, it } from "vitest";
import { collapsePower } from "../../src/stats/detection-power.js";
import { boschlooOneSidedP } from "../../src/stats/exact-2x2.js";
import {
  decideRegression,
  type ScenarioCounts,
  screenForExtraTrials,
} from "../../src/stats/regression-decision.js";
import { SCENARIO_TEST_RUNS } from "../../src/stats/run-clusters.js";
import { createRng, deriveSeed, drawInt } from "../../src/stats/stats.js";
import { passesWithFailuresSpread } from "../support/report-factory.js";

const unchanged = (extended?: boolean): ScenarioCounts => ({
  basePassed: 11,
  baseTrials: 12,
  headPassed: 3,
  headTrials: 3,
  ...(extended === undefined ? {} : { extended }),
});

describe("decideRegression", () => {
  it("flags a collapsed scenario among 20, with Holm at 0.025 and the adjusted p on alpha's scale", () => {
    const collapsed: ScenarioCounts = {
      basePassed: 11,
      baseTrials: 12,
      headPassed: 1,
      headTrials: 9,
      initialHeadPassed: 0,
      initialHeadTrials: 3,
      extended: true,
    };
    const counts = [collapsed, ...Array.from({ length: 19 }, () => unchanged(false))];
    const decision = decideRegression(counts);
    const p = boschlooOneSidedP(collapsed); // scipy 1.17.1: 0.00013788051903630715
    expect(decision.primaryAlpha).toBeCloseTo(0.025, 14);
    expect(decision.scenarios[0]!.pValue).toBeCloseTo(0.00013788051903630715, 9);
    // Holm over 20 (screened-out scenarios count with p = 1): 20p, then × 0.05/0.025.
    expect(decision.scenarios[0]!.adjustedP).toBeCloseTo(20 * p * 2, 12);
    expect(decision.scenarios[0]!.regressed).toBe(true);
    expect(decision.scenarios[1]).toMatchObject({ tested: false, regressed: false, adjustedP: 1 });
    expect(decision.failed).toBe(true);
  });

  it("does not fail an unchanged suite, and leaves a scenario without baseline untested", () => {
    const decision = decideRegression([
      ...Array.from({ length: 10 }, () => unchanged()),
      { basePassed: 0, baseTrials: 0, headPassed: 0, headTrials: 3 },
    ]);
    expect(decision.failed).toBe(false);
    expect(decision.scenarios[10]).toEqual({
      pValue: null,
      adjustedP: null,
      tested: false,
      regressed: false,
    });
    expect(decision.scenarios[0]!.tested).toBe(true);
  });

  it("catches a broad small drop with the suite test when no scenario can be flagged", () => {
    const counts = Array.from({ length: 20 }, () => ({
      basePassed: 12,
      baseTrials: 12,
      headPassed: 2,
      headTrials: 3,
    }));
    const decision = decideRegression(counts);
    expect(decision.scenarios.some((s) => s.regressed)).toBe(false);
    expect(decision.suite.pValue).toBeLessThan(0.025);
    expect(decision.suite.rejected).toBe(true);
    expect(decision.suite.adjustedP).toBeCloseTo(decision.suite.pValue * 2, 12);
    expect(decision.failed).toBe(true);
  });

  it("with one trial per scenario, lets only the suite test decide, at the full alpha", () => {
    const counts = Array.from({ length: 10 }, () => ({
      basePassed: 12,
      baseTrials: 12,
      headPassed: 0,
      headTrials: 1,
    }));
    const decision = decideRegression(counts);
    expect(decision.suiteOnly).toBe(true);
    expect(decision.primaryAlpha).toBe(0);
    expect(decision.suite.alpha).toBe(0.05);
    expect(decision.scenarios.every((s) => !s.tested && !s.regressed)).toBe(true);
    expect(decision.failed).toBe(decision.suite.pValue <= 0.05);
    expect(decision.failed).toBe(true);
  });

  it("the suite test sees only the head's first trials unless the screen extended the scenario", () => {
    const first = { basePassed: 12, baseTrials: 12, headPassed: 2, headTrials: 3 };
    const withExtras = { ...first, headPassed: 8, headTrials: 9, initialHeadPassed: 2, initialHeadTrials: 3 };
    const a = decideRegression(Array.from({ length: 5 }, () => first));
    const b = decideRegression(Array.from({ length: 5 }, () => withExtras));
    expect(b.suite.pValue).toBe(a.suite.pValue);
    expect(b.suite.extrasStage).toBeNull();
    // Extended: the extras are a second stage (tests/stats/extras-stage.test.ts).
    const c = decideRegression(Array.from({ length: 5 }, () => ({ ...withExtras, extended: true })));
    expect(c.suite.extrasStage).toMatchObject({ scenarios: 5, firstStageP: a.suite.pValue });
  });

  it("regressed ⇔ adjustedP ≤ alpha, and adaptive flags ⊆ flags of the fixed design (random data)", () => {
    const rng = createRng(deriveSeed(1, "decision properties"));
    for (let run = 0; run < 150; run++) {
      const first = Array.from({ length: 8 }, () => {
        const baseTrials = 12;
        return { basePassed: drawInt(rng, 13), baseTrials, headPassed: drawInt(rng, 4), headTrials: 3 };
      });
      const extra = first.map(() => drawInt(rng, 7));
      const screened = screenForExtraTrials(first);
      const build = (extend: (i: number) => boolean) =>
        first.map((c, i) => ({
          ...c,
          headPassed: c.headPassed + (extend(i) ? extra[i]! : 0),
          headTrials: 3 + (extend(i) ? 6 : 0),
          initialHeadPassed: c.headPassed,
          initialHeadTrials: 3,
          extended: extend(i),
        }));
      const adaptive = decideRegression(
        build((i) => screened[i]!),
        { alpha: 0.2 },
      );
      const fixed = decideRegression(
        build(() => true),
        { alpha: 0.2 },
      );
      adaptive.scenarios.forEach((s, i) => {
        expect(s.regressed).toBe(s.adjustedP !== null && s.adjustedP <= 0.2);
        if (s.regressed) expect(fixed.scenarios[i]!.regressed).toBe(true);
      });
    }
  });

  it("rejects a suite share outside [0, alpha]", () => {
    expect(() => decideRegression([unchanged()], { suiteAlpha: 0.06 })).toThrow(RangeError);
    expect(() => decideRegression([unchanged()], { alpha: 1 })).toThrow(RangeError);
  });
});

describe("the per-scenario tests' window of base runs", () => {
  // 12 base runs of 3 trials, oldest first: the oldest 4 perfect, the newest 8 at 2/3 — a base branch
  // that got worse. The head at 1/3 is no worse than the newest runs say.
  const runs = [...Array.from({ length: 4 }, () => 3), ...Array.from({ length: 8 }, () => 2)].map(
    (passed) => ({
      passed,
      trials: 3,
    }),
  );
  const scenario: ScenarioCounts = {
    basePassed: 28,
    baseTrials: 36,
    headPassed: 1,
    headTrials: 3,
    baseRuns: runs,
  };
  const newest = runs.slice(-SCENARIO_TEST_RUNS);

  it("pools only the newest runs for a scenario's own test, and every run for the suite test", () => {
    // (Without the suite test's drift branch, which would move the base rate along the trend; below.)
    const decision = decideRegression(
      Array.from({ length: 20 }, () => scenario),
      { suiteForm: "no-trend" },
    );
    const windowed = decideRegression(
      Array.from({ length: 20 }, () => ({ ...scenario, basePassed: 16, baseTrials: 24, baseRuns: newest })),
      { suiteForm: "no-trend" },
    );
    expect(SCENARIO_TEST_RUNS).toBe(8);
    expect(decision.scenarios[0]!.pValue).toBe(windowed.scenarios[0]!.pValue);
    // Against all 12 runs the scenario's p would be smaller: the older, better runs count against the head.
    expect(boschlooOneSidedP(scenario)).toBeLessThan(
      boschlooOneSidedP({ ...scenario, basePassed: 16, baseTrials: 24 }),
    );
    // The suite test sees the 12 runs' levels.
    expect(decision.suite.levels).toHaveLength(12);
  });

  it("is the window the design's power is computed on", () => {
    const design = (runTrials: number[]) => ({
      runTrials,
      headTrials: 3,
      extraTrials: 8,
      icc: 0.02,
      level: 0.025 / 20,
    });
    expect(collapsePower(design(Array(12).fill(3)))).toBe(collapsePower(design(Array(8).fill(3))));
    expect(collapsePower(design(Array(6).fill(3)))).toBeLessThan(collapsePower(design(Array(8).fill(3)))!);
  });
});

describe("the per-scenario tests under a drift", () => {
  // 8 base runs of 20 scenarios × 3 trials, oldest first, losing 2 passes more each run (3 failures in
  // the oldest, 17 in the newest); the head one run on.
  const failuresIn = (r: number) => 3 + 2 * r;
  const counts: ScenarioCounts[] = Array.from({ length: 20 }, (_, s) => {
    const baseRuns = Array.from({ length: 8 }, (_, r) => ({
      passed: passesWithFailuresSpread(failuresIn(r), s),
      trials: 3,
    }));
    return {
      basePassed: baseRuns.reduce((sum, r) => sum + r.passed, 0),
      baseTrials: 24,
      headPassed: passesWithFailuresSpread(19, s),
      headTrials: 3,
      baseRuns,
    };
  });

  it("compare each scenario with its base rate moved along the drift the suite test fitted", () => {
    const decision = decideRegression(counts);
    expect(decision.suite.method).toBe("trend");
    const slope = decision.suite.trend!;
    expect(slope).toBeLessThan(0);
    decision.scenarios.forEach((d, s) => {
      const c = counts[s]!;
      // The runs' mean position is 3.5 (equal trials), the head's 8: 4.5 runs on.
      const moved = Math.round(c.basePassed + slope * 4.5 * 24);
      expect(moved).toBeLessThan(c.basePassed);
      expect(d.pValue).toBe(boschlooOneSidedP({ ...c, basePassed: moved }));
    });
  });

  it("leave the base rate as it is when the suite test did not take the drift branch", () => {
    const decision = decideRegression(counts, { suiteForm: "no-trend" });
    expect(decision.suite.method).not.toBe("trend");
    decision.scenarios.forEach((d, s) => {
      expect(d.pValue).toBe(boschlooOneSidedP(counts[s]!));
    });
  });
});

describe("screenForExtraTrials", () => {
  it("extends scenarios whose head passed a smaller share of its first trials than the baseline", () => {
    expect(
      screenForExtraTrials([
        { basePassed: 11, baseTrials: 12, headPassed: 2, headTrials: 3 }, // 0.67 < 0.92
        { basePassed: 8, baseTrials: 12, headPassed: 2, headTrials: 3 }, // 0.67 = 0.67
        { basePassed: 12, baseTrials: 12, headPassed: 3, headTrials: 3 },
        { basePassed: 0, baseTrials: 0, headPassed: 0, headTrials: 3 }, // no baseline: not tested
      ]),
    ).toEqual([true, false, false, false]);
  });

  it("extends nothing with one first trial per scenario (only the suite test decides)", () => {
    expect(screenForExtraTrials([{ basePassed: 12, baseTrials: 12, headPassed: 0, headTrials: 1 }])).toEqual([
      false,
    ]);
  });
});
