/**
 * Runs are clusters: the beta-binomial law, the ICC estimate, the clustered per-scenario test (exact
 * under its model, Boschloo's test at ICC 0) and the suite test's forms.
 */
import { describe, expect, it } from "vitest";
import { cmhExactOneSided } from "../../src/stats/cmh.js";
import { boschlooOneSidedP } from "../../src/stats/exact-2x2.js";
import {
  assumeRunVariation,
  betaBinomialPmf,
  clusteredSuiteTest,
  clusteredUnconditionalP,
  estimateIntraRunCorrelation,
  estimateSuiteDispersion,
  PRIOR_ICC,
  type RunCount,
} from "../../src/stats/run-clusters.js";
import { binomialPmf } from "../../src/stats/stats.js";

const runsOf = (...counts: Array<[number, number]>): RunCount[] =>
  counts.map(([passed, trials]) => ({ passed, trials }));

describe("betaBinomialPmf", () => {
  it("matches the beta-binomial law computed from beta functions (Python math.lgamma)", () => {
    // C(n,k) B(k+a, n−k+b) / B(a,b), a = μ(1−ρ)/ρ, b = (1−μ)(1−ρ)/ρ.
    const expected = [0.027456, 0.07392, 0.13376, 0.20064, 0.26448, 0.299744];
    for (const [k, p] of Array.from(betaBinomialPmf(5, 0.7, 0.2)).entries())
      expect(p).toBeCloseTo(expected[k]!, 10);
    const nine = [
      1.754381e-6, 2.727265e-5, 0.000221858409, 0.001251580984, 0.005468864736, 0.019558143378,
      0.058807478727, 0.149280522923, 0.310143155383, 0.455239368428,
    ];
    for (const [k, p] of Array.from(betaBinomialPmf(9, 0.9, 0.05)).entries())
      expect(p).toBeCloseTo(nine[k]!, 10);
  });

  it("is the binomial law at ICC 0, and a point mass at rates 0 and 1", () => {
    const binomial = binomialPmf(12, 0.35);
    for (const [k, p] of Array.from(betaBinomialPmf(12, 0.35, 0)).entries())
      expect(p).toBeCloseTo(binomial[k]!, 14);
    expect(Array.from(betaBinomialPmf(3, 0, 0.1))).toEqual([1, 0, 0, 0]);
    expect(Array.from(betaBinomialPmf(3, 1, 0.1))).toEqual([0, 0, 0, 1]);
  });

  it("stays a law at 1,536 trials, where P(X = 0) is subnormal (it summed to 1e75 and 1e60)", () => {
    // Python math.lgamma, as above: the binomial at 0.45, the beta-binomial at 0.7 with ICC 0.001
    // (`--icc` takes any value) and at 0.99 with ICC 0.01.
    const cases = [
      {
        mean: 0.45,
        icc: 0,
        values: { 640: 0.0006449324178140143, 691: 0.020457087566340477, 740: 0.0008985790477470329 },
      },
      {
        mean: 0.7,
        icc: 0.001,
        values: { 1000: 0.00048045274093045943, 1075: 0.013935748825709965, 1150: 0.0004099801404542174 },
      },
      {
        mean: 0.99,
        icc: 0.01,
        values: { 1480: 0.0017955487642799136, 1521: 0.023715410630860356, 1536: 0.06169002416263036 },
      },
    ];
    for (const { mean, icc, values } of cases) {
      const pmf = betaBinomialPmf(1536, mean, icc);
      expect(Math.abs(pmf.reduce((s, p) => s + p, 0) - 1)).toBeLessThan(1e-9);
      for (const [k, expected] of Object.entries(values)) {
        expect(Math.abs(pmf[Number(k)]! - expected) / expected).toBeLessThan(1e-8);
      }
    }
  });
});

describe("estimateIntraRunCorrelation", () => {
  it("is the one-way ANOVA estimator with sums of squares pooled over scenarios (hand-computed)", () => {
    // 3/3, 1/3, 3/3, 1/3: MSB = 4/9, MSW = 1/6, n0 = 3, ρ = (4/9 − 1/6) / (4/9 + 2/6) = 5/14.
    expect(estimateIntraRunCorrelation([runsOf([3, 3], [1, 3], [3, 3], [1, 3])])).toBeCloseTo(5 / 14, 12);
    // Runs that agree less than independent trials would: truncated at 0.
    expect(estimateIntraRunCorrelation([runsOf([2, 3], [1, 3], [2, 3], [1, 3])])).toBe(0);
    // Every trial passed: no variation at all.
    expect(estimateIntraRunCorrelation([runsOf([3, 3], [3, 3], [3, 3])])).toBe(0);
    // One run: nothing to estimate from.
    expect(estimateIntraRunCorrelation([runsOf([2, 3])])).toBeNull();
  });

  it("the decision assumes the prior below three runs and rounds the estimate up to 0.01 from three on", () => {
    expect(assumeRunVariation([runsOf([2, 3])])).toEqual({ runs: 1, icc: null, iccUsed: PRIOR_ICC });
    const four = assumeRunVariation([runsOf([3, 3], [1, 3], [3, 3], [1, 3])]);
    expect(four.runs).toBe(4);
    expect(four.icc).toBeCloseTo(5 / 14, 12);
    expect(four.iccUsed).toBe(0.36);
    expect(assumeRunVariation([runsOf([3, 3], [1, 3], [3, 3], [1, 3])], 0).iccUsed).toBe(0);
    expect(() => assumeRunVariation([], 1)).toThrow(RangeError);
  });

  it("sees a suite-wide day effect in the spread of run levels, not in independent runs", () => {
    // Every scenario passes 3/3 on even runs and 1/3 on odd ones: levels 1, 1/3, 1, 1/3 …
    const together = Array.from({ length: 10 }, () => runsOf([3, 3], [1, 3], [3, 3], [1, 3], [3, 3], [1, 3]));
    expect(estimateSuiteDispersion(together)!).toBeGreaterThan(5);
    // Half the scenarios up when the other half are down: levels equal, no dispersion.
    const opposed = Array.from({ length: 10 }, (_, s) =>
      s % 2 === 0 ? runsOf([3, 3], [1, 3], [3, 3], [1, 3]) : runsOf([1, 3], [3, 3], [1, 3], [3, 3]),
    );
    expect(estimateSuiteDispersion(opposed)).toBe(0);
  });
});

describe("clusteredUnconditionalP", () => {
  it("is Boschloo's test at ICC 0 (and with the baseline in several runs)", () => {
    for (const [basePassed, headPassed, headTrials] of [
      [11, 1, 9],
      [9, 2, 3],
      [12, 0, 3],
      [6, 5, 9],
    ] as const) {
      const boschloo = boschlooOneSidedP({ basePassed, baseTrials: 12, headPassed, headTrials });
      // The clustered test's own grid at a tiny ICC converges to the binomial case.
      const clustered = clusteredUnconditionalP({
        baseRunTrials: [3, 3, 3, 3],
        basePassed,
        headTrials,
        headPassed,
        icc: 1e-9,
      });
      expect(clustered).toBeCloseTo(boschloo, 4);
    }
  });

  it("is exact under its model: P(p ≤ α) ≤ α whatever the mean, by enumeration", () => {
    const runTrials = [3, 3, 3];
    const headTrials = 6;
    for (const icc of [0.05, 0.2]) {
      for (const mean of [0.3, 0.6, 0.9, 0.97]) {
        // The pooled base law: the convolution of three runs' beta-binomial laws.
        let base = [1];
        for (const n of runTrials) {
          const run = Array.from(betaBinomialPmf(n, mean, icc));
          const next = new Array<number>(base.length + n).fill(0);
          base.forEach((p, i) => {
            run.forEach((q, j) => {
              next[i + j]! += p * q;
            });
          });
          base = next;
        }
        const head = Array.from(betaBinomialPmf(headTrials, mean, icc));
        for (const alpha of [0.01, 0.05, 0.2]) {
          let size = 0;
          base.forEach((pb, y) => {
            head.forEach((ph, x) => {
              const p = clusteredUnconditionalP({
                baseRunTrials: runTrials,
                basePassed: y,
                headTrials,
                headPassed: x,
                icc,
              });
              if (p <= alpha) size += pb * ph;
            });
          });
          expect(size).toBeLessThanOrEqual(alpha + 1e-9);
        }
      }
    }
  });

  it("is larger (less ready to flag) the more the runs vary", () => {
    const at = (icc: number) =>
      clusteredUnconditionalP({
        baseRunTrials: [3, 3, 3, 3, 3, 3, 3, 3],
        basePassed: 22,
        headTrials: 11,
        headPassed: 3,
        icc,
      });
    expect(at(0.01)).toBeLessThan(at(0.05));
    expect(at(0.05)).toBeLessThan(at(0.2));
  });
});

describe("clusteredSuiteTest", () => {
  // Scenario s sees the runs' pattern rotated by s: the same counts, but no day shared by all scenarios.
  const strata = (headPassed: number, runs: RunCount[]) =>
    Array.from({ length: 20 }, (_, s) => {
      const rotated = runs.map((_, r) => runs[(r + s) % runs.length]!);
      return {
        basePassed: runs.reduce((sum, r) => sum + r.passed, 0),
        baseTrials: runs.reduce((sum, r) => sum + r.trials, 0),
        headPassed,
        headTrials: 3,
        baseRuns: rotated,
      };
    });
  /**
   * 20 scenarios × 3 trials, one base run per entry of `failures` with that many failures dealt round
   * the scenarios (so each run's level is exact and the failures spread evenly); the head fails one
   * trial in each of its first `headFailures` scenarios.
   */
  const dealtFailures = (failures: readonly number[], headFailures: number) => {
    const runs: RunCount[][] = Array.from({ length: 20 }, () => []);
    let dealt = 0;
    for (const count of failures) {
      const failed = new Array<number>(20).fill(0);
      for (let i = 0; i < count; i++) failed[dealt++ % 20]!++;
      for (const [s, f] of failed.entries()) runs[s]!.push({ passed: 3 - f, trials: 3 });
    }
    return runs.map((r, s) => ({
      basePassed: r.reduce((sum, c) => sum + c.passed, 0),
      baseTrials: 3 * failures.length,
      headPassed: s < headFailures ? 2 : 3,
      headTrials: 3,
      baseRuns: r,
    }));
  };
  // Every scenario shares the pattern: each run is one day for all of them.
  const together = (headPassed: number, runs: RunCount[]) =>
    strata(headPassed, runs).map((stratum) => ({ ...stratum, baseRuns: runs }));

  it("is the exact CMH test at ICC 0 when the base runs agree as independent trials would", () => {
    const input = strata(2, runsOf([3, 3], [3, 3], [2, 3], [3, 3], [3, 3], [2, 3], [3, 3], [3, 3]));
    const result = clusteredSuiteTest(input, 0);
    expect(result.method).toBe("exact");
    expect(result.pValue).toBe(cmhExactOneSided(input).pValue);
  });

  it("divides the z of the exact test by the design effect of the ICC", () => {
    const input = strata(2, runsOf([3, 3], [3, 3], [2, 3], [3, 3], [3, 3], [2, 3], [3, 3], [3, 3]));
    const result = clusteredSuiteTest(input, 0.1);
    expect(result.method).toBe("design-effect");
    expect(result.pValue).toBeGreaterThan(cmhExactOneSided(input).pValue);
  });

  it("takes each base run as one observation of the day when the runs' levels spread widely", () => {
    // Levels swing between 1 and 1/3 across eight runs in every scenario (no trend); the head's level,
    // 1/3, is a day like half of them. Pooled as independent trials it looks like a collapse; as one more
    // day it does not.
    const input = together(1, runsOf([3, 3], [1, 3], [1, 3], [3, 3], [3, 3], [1, 3], [1, 3], [3, 3]));
    const result = clusteredSuiteTest(input, 0);
    expect(result.method).toBe("runs");
    expect(cmhExactOneSided(input).pValue).toBeLessThan(1e-5);
    expect(result.pValue).toBeGreaterThan(0.05);
  });

  it("compares the head with the trend's next run when the base runs drift down", () => {
    // 20 scenarios, levels sliding from 3/3 towards 1/3 over eight runs; the head continues the slide.
    const sliding = Array.from({ length: 20 }, (_, s) =>
      runsOf(
        [3, 3],
        [3, 3],
        [3, 3],
        s % 3 === 0 ? [2, 3] : [3, 3],
        [2, 3],
        s % 2 === 0 ? [2, 3] : [1, 3],
        [2, 3],
        [1, 3],
      ),
    );
    const input = sliding.map((runs) => ({
      basePassed: runs.reduce((a, r) => a + r.passed, 0),
      baseTrials: 24,
      headPassed: 1,
      headTrials: 3,
      baseRuns: runs,
    }));
    const result = clusteredSuiteTest(input, 0);
    expect(result.method).toBe("trend");
    expect(result.trend!).toBeLessThan(0);
    // Against the pooled baseline the head looks far worse; against the trend it is what was coming.
    expect(cmhExactOneSided(input).pValue).toBeLessThan(1e-6);
    expect(result.pValue).toBeGreaterThan(0.01);
  });

  it("takes the head's variance along the trend at the rate predicted for it, where runs vary more than near the ceiling", () => {
    // 20 scenarios × 3 trials, 12 runs whose levels fall from 60/60 to 53/60 (0, 1, 1, 2, 3, 3, 4, 4, 5,
    // 6, 6, 7 failures, dealt round the scenarios); the head, 13 failures (47/60), is about 4 passes
    // below the 0.875 the trend predicts. The residual spread is that of runs at 0.94 on average, but
    // the head runs at 0.875, where binomial sampling varies 1.4 times as much: with the runs' average
    // variance the head failed (p = 0.0137 at the suite's 0.025); with its own it is 0.040.
    const input = dealtFailures([0, 1, 1, 2, 3, 3, 4, 4, 5, 6, 6, 7], 13);
    const result = clusteredSuiteTest(input, 0);
    expect(result.method).toBe("trend");
    expect(result.pValue).toBeGreaterThan(0.025);
    expect(result.pValue).toBeCloseTo(0.0405, 3);
  });

  it("follows an upward trend only in the measured variant, and only where the spread about it shows no day effect", () => {
    // Levels rising from 48/60 to 55/60 over 12 runs, close to the line; the head at 51/60, the
    // runs' mean. The default compares it with that mean (nothing); the variant ("Past the grid")
    // with the line's 56/60 for the next run.
    const rising = dealtFailures([12, 11, 11, 10, 9, 9, 8, 8, 7, 6, 6, 5], 9);
    const flat = clusteredSuiteTest(rising, 0);
    expect(flat.method).toBe("exact");
    expect(flat.pValue).toBeGreaterThan(0.4);
    const followed = clusteredSuiteTest(rising, 0, "upward-trend-arcsine");
    expect(followed.method).toBe("trend");
    expect(followed.trend!).toBeGreaterThan(0);
    expect(followed.pValue).toBeLessThan(0.1);
    // The same rise with levels swinging by 5 to 10 failures from run to run (a day effect): not followed.
    const swinging = dealtFailures([14, 8, 13, 6, 11, 4, 12, 3, 9, 2, 8, 1], 9);
    const variant = clusteredSuiteTest(swinging, 0, "upward-trend-arcsine");
    expect(variant.trend!).toBeGreaterThan(0);
    expect(variant.method).toBe("runs");
    expect(variant.pValue).toBe(clusteredSuiteTest(swinging, 0).pValue);
  });

  it("from three to seven base runs assumes the design's largest day effect unless the runs show more", () => {
    // Four runs whose levels agree as independent trials would: too few to rule out a day effect.
    const four = strata(2, runsOf([3, 3], [2, 3], [2, 3], [3, 3]));
    const result = clusteredSuiteTest(four, 0);
    expect(result.method).toBe("prior");
    expect(result.pValue).toBeGreaterThan(cmhExactOneSided(four).pValue);
    // Eight such runs: their spread is taken at its word.
    const eight = strata(2, runsOf([3, 3], [2, 3], [2, 3], [3, 3], [3, 3], [2, 3], [2, 3], [3, 3]));
    expect(clusteredSuiteTest(eight, 0).method).toBe("exact");
  });

  it("finds no regression, and no day effect, where every run of every scenario passed", () => {
    const input = strata(3, runsOf([3, 3], [3, 3], [3, 3], [3, 3], [3, 3], [3, 3], [3, 3], [3, 3]));
    expect(estimateSuiteDispersion(input.map((s) => s.baseRuns))).toBeNull();
    const result = clusteredSuiteTest(input, 0);
    expect(result.method).toBe("exact");
    expect(result.pValue).toBe(1);
  });

  it("floors the trend's residual variance at the levels' binomial variance: runs that agree exactly do not fail an unchanged head", () => {
    // 5 scenarios × 3 trials, every base run 14/15 (its one failure in another scenario each run): the
    // levels are equal but for floating-point rounding, which read as a downward trend known to 1e-17,
    // and a head at 13/15 failed with p ≈ 1e-87 at 8 runs.
    for (const k of [4, 8, 12]) {
      const input = Array.from({ length: 5 }, (_, s) => {
        const baseRuns = Array.from({ length: k }, (_, r) => ({
          passed: (r + 4) % 5 === s ? 2 : 3,
          trials: 3,
        }));
        return {
          basePassed: baseRuns.reduce((sum, r) => sum + r.passed, 0),
          baseTrials: 3 * k,
          headPassed: s < 2 ? 2 : 3,
          headTrials: 3,
          baseRuns,
        };
      });
      const result = clusteredSuiteTest(input, 0);
      expect(result.method).toBe("trend");
      // The head is one or two passes below levels 14/15 binomial sampling moves by ±1 pass: nothing.
      expect(result.pValue).toBeGreaterThan(0.15);
    }
  });

  it("below three base runs assumes the design's largest day effect", () => {
    const input = strata(2, runsOf([12, 12]));
    const result = clusteredSuiteTest(input, 0);
    expect(result.method).toBe("prior");
    expect(result.pValue).toBeGreaterThan(cmhExactOneSided(input).pValue);
    expect(clusteredSuiteTest(input, 0, "exact").pValue).toBe(cmhExactOneSided(input).pValue);
  });
});
