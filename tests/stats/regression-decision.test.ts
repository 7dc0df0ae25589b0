import { describe, expect, it } from "vitest";
import { boschlooOneSidedP } from "../../src/stats/exact-2x2.js";
import {
  decideRegression,
  type ScenarioCounts,
  screenForExtraTrials,
} from "../../src/stats/regression-decision.js";
import { createRng, deriveSeed, drawInt } from "../../src/stats/stats.js";

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
      for (const primaryTest of ["boschloo", "fisher-tarone"] as const) {
        const adaptive = decideRegression(
          build((i) => screened[i]!),
          { primaryTest, alpha: 0.2 },
        );
        const fixed = decideRegression(
          build(() => true),
          { primaryTest, alpha: 0.2 },
        );
        adaptive.scenarios.forEach((s, i) => {
          expect(s.regressed).toBe(s.adjustedP !== null && s.adjustedP <= 0.2);
          if (s.regressed) expect(fixed.scenarios[i]!.regressed).toBe(true);
        });
      }
    }
  });

  it("rejects a suite share outside [0, alpha]", () => {
    expect(() => decideRegression([unchanged()], { suiteAlpha: 0.06 })).toThrow(RangeError);
    expect(() => decideRegression([unchanged()], { alpha: 1 })).toThrow(RangeError);
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
