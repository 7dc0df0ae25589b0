import { describe, expect, it } from "vitest";
import { ConfigError } from "../../src/errors.js";
import {
  adjustPValues,
  binomialHalfTest,
  bootstrapDifferenceInterval,
  bootstrapMeanInterval,
  classifyFlakiness,
  createRng,
  deriveSeed,
  fisherExactTest,
  logChoose,
  logGamma,
  mcnemarExactTest,
  meanInterval,
  moverInterval,
  newcombeInterval,
  normalCdf,
  normalQuantile,
  passAtK,
  passHatK,
  permutationTest,
  poissonMeanInterval,
  signFlipTest,
  studentTCdf,
  studentTQuantile,
  summarizeMetric,
  trialsNeededForMean,
  trialsNeededForRate,
  welchInterval,
  wilsonInterval,
  wilsonIntervalForRate,
} from "../../src/stats/stats.js";

function expectInterval(actual: { low: number; high: number } | null, low: number, high: number, digits = 4) {
  expect(actual).not.toBeNull();
  expect(actual!.low).toBeCloseTo(low, digits);
  expect(actual!.high).toBeCloseTo(high, digits);
}

describe("wilsonInterval", () => {
  // Newcombe RG (1998), "Two-sided confidence intervals for the single proportion: comparison of
  // seven methods", Statistics in Medicine 17:857-872, Table I, method 3 (score, no continuity correction).
  it.each([
    [81, 263, 0.2553, 0.3662],
    [15, 148, 0.0624, 0.1605],
    [0, 20, 0, 0.1611],
    [1, 29, 0.0061, 0.1718],
  ])("%i/%i matches Newcombe 1998 Table I", (x, n, low, high) => {
    expectInterval(wilsonInterval(x, n), low, high);
  });

  it("is exact at the ends: 0/n starts at 0, n/n ends at 1, and 0/n's upper bound is z²/(n+z²)", () => {
    // Hand computation: for x = 0 the score interval's upper bound reduces to z²/(n + z²).
    const z = normalQuantile(0.975);
    expectInterval(wilsonInterval(0, 10), 0, (z * z) / (10 + z * z), 12);
    expectInterval(wilsonInterval(10, 10), 10 / (10 + z * z), 1, 12);
  });

  it("widens with confidence and is null without trials", () => {
    const i90 = wilsonInterval(3, 10, 0.9)!;
    const i99 = wilsonInterval(3, 10, 0.99)!;
    expect(i99.low).toBeLessThan(i90.low);
    expect(i99.high).toBeGreaterThan(i90.high);
    expect(wilsonInterval(0, 0)).toBeNull();
  });

  it("rejects impossible counts", () => {
    expect(() => wilsonInterval(6, 5)).toThrow(RangeError);
    expect(() => wilsonInterval(-1, 5)).toThrow(RangeError);
    expect(() => wilsonInterval(1.5, 5)).toThrow(RangeError);
  });
});

describe("newcombeInterval (difference of proportions)", () => {
  // Newcombe RG (1998), "Interval estimation for the difference between independent proportions:
  // comparison of eleven methods", Statistics in Medicine 17:873-890, Table II, method 10.
  it.each([
    [56, 70, 48, 80, 0.0524, 0.3339],
    [9, 10, 3, 10, 0.1705, 0.809],
    [5, 56, 0, 29, -0.0381, 0.1926],
    [0, 10, 0, 20, -0.1611, 0.2775],
    [0, 10, 0, 10, -0.2775, 0.2775],
    [10, 10, 0, 20, 0.6791, 1],
    [10, 10, 0, 10, 0.6075, 1],
  ])("%i/%i − %i/%i matches Newcombe 1998 Table II", (x1, n1, x2, n2, low, high) => {
    expectInterval(newcombeInterval(x1, n1, x2, n2), low, high);
  });

  it("is null when a side has no trials", () => {
    expect(newcombeInterval(0, 0, 1, 2)).toBeNull();
  });

  it("equals MOVER built from the two Wilson intervals (Zou & Donner 2008 show method 10 is MOVER)", () => {
    const mover = moverInterval(56 / 70, wilsonInterval(56, 70)!, 48 / 80, wilsonInterval(48, 80)!);
    expectInterval(mover, newcombeInterval(56, 70, 48, 80)!.low, newcombeInterval(56, 70, 48, 80)!.high, 12);
  });
});

describe("boundary-aware intervals for samples without spread", () => {
  it("Wilson for a real-valued share matches the count version", () => {
    expectInterval(
      wilsonIntervalForRate(0.3, 10),
      wilsonInterval(3, 10)!.low,
      wilsonInterval(3, 10)!.high,
      12,
    );
    expect(() => wilsonIntervalForRate(1.2, 10)).toThrow(RangeError);
  });

  it("Poisson score interval matches hand computation", () => {
    // No events in 5 trials: [0, z²/5] = [0, 3.8415/5].
    const z = normalQuantile(0.975);
    expectInterval(poissonMeanInterval(0, 5), 0, (z * z) / 5, 12);
    // 20 events in 5 trials: (20 + z²/2 ± z·√(20 + z²/4)) / 5 = (21.921 ± 8.973) / 5.
    expectInterval(poissonMeanInterval(20, 5), 2.5896, 6.1787, 3);
  });
});

describe("passAtK and passHatK", () => {
  // Hand computation with n = 5 trials, c = 2 passes:
  // pass@1 = 2/5; pass@2 = 1 − C(3,2)/C(5,2) = 1 − 3/10; pass@3 = 1 − C(3,3)/C(5,3) = 1 − 1/10;
  // pass@4 = 1 because any 4 of the 5 contain a pass. pass^1 = 2/5; pass^2 = C(2,2)/C(5,2) = 1/10; pass^3 = 0.
  it("matches hand computation for n = 5, c = 2", () => {
    expect(passAtK(5, 2, 1)).toBeCloseTo(0.4, 12);
    expect(passAtK(5, 2, 2)).toBeCloseTo(0.7, 12);
    expect(passAtK(5, 2, 3)).toBeCloseTo(0.9, 12);
    expect(passAtK(5, 2, 4)).toBe(1);
    expect(passHatK(5, 2, 1)).toBeCloseTo(0.4, 12);
    expect(passHatK(5, 2, 2)).toBeCloseTo(0.1, 12);
    expect(passHatK(5, 2, 3)).toBe(0);
  });

  it("equals the k = n extremes: pass@n is 'any passed', pass^n is 'all passed'", () => {
    expect(passAtK(4, 1, 4)).toBe(1);
    expect(passAtK(4, 0, 4)).toBe(0);
    expect(passHatK(4, 4, 4)).toBe(1);
    expect(passHatK(4, 3, 4)).toBe(0);
  });

  it("stays stable where the binomials overflow a double", () => {
    // C(199,100)/C(200,100) = 100/200 by hand, so pass@100 with one pass in 200 is exactly 1/2.
    expect(passAtK(200, 1, 100)).toBeCloseTo(0.5, 12);
    // pass^100 over 2000 trials with 1500 passes, against the log-binomial form.
    const expected = Math.exp(logChoose(1500, 100) - logChoose(2000, 100));
    expect(passHatK(2000, 1500, 100)! / expected).toBeCloseTo(1, 9);
  });

  it("is null when there are fewer trials than k or none", () => {
    expect(passAtK(0, 0, 1)).toBeNull();
    expect(passAtK(2, 1, 3)).toBeNull();
    expect(passHatK(2, 2, 3)).toBeNull();
  });
});

describe("classifyFlakiness", () => {
  it("labels stable pass, stable fail, flaky and no data", () => {
    expect(classifyFlakiness(3, 0)).toBe("stable_pass");
    expect(classifyFlakiness(0, 3)).toBe("stable_fail");
    expect(classifyFlakiness(2, 1)).toBe("flaky");
    expect(classifyFlakiness(0, 0)).toBe("no_data");
  });
});

describe("distributions", () => {
  // Reference values: standard tables (e.g. NIST/SEMATECH e-Handbook 1.3.6.7.1 and 1.3.6.7.2),
  // to the digits printed there; the extra digits agree with scipy.stats 1.17.
  it("normal CDF and quantile match the tables", () => {
    expect(normalCdf(-3)).toBeCloseTo(0.0013499, 7);
    expect(normalCdf(-1.5)).toBeCloseTo(0.0668072, 7);
    expect(normalCdf(2)).toBeCloseTo(0.9772499, 7);
    expect(normalQuantile(0.975)).toBeCloseTo(1.959964, 6);
    expect(normalQuantile(0.025)).toBeCloseTo(-1.959964, 6);
    expect(normalQuantile(1e-10)).toBeCloseTo(-6.361341, 5);
    expect(normalQuantile(normalCdf(0.3))).toBeCloseTo(0.3, 9);
  });

  it("t quantiles match the t table (two-sided 95%)", () => {
    expect(studentTQuantile(0.975, 1)).toBeCloseTo(12.706, 3);
    expect(studentTQuantile(0.975, 2)).toBeCloseTo(4.303, 3);
    expect(studentTQuantile(0.975, 4)).toBeCloseTo(2.776, 3);
    expect(studentTQuantile(0.975, 9)).toBeCloseTo(2.262, 3);
    expect(studentTQuantile(0.975, 29)).toBeCloseTo(2.045, 3);
    expect(studentTQuantile(0.025, 9)).toBeCloseTo(-2.262, 3);
    expect(studentTCdf(studentTQuantile(0.9, 7.3), 7.3)).toBeCloseTo(0.9, 10);
  });

  it("t with 1 df is the Cauchy distribution (closed form, hand computation)", () => {
    expect(studentTCdf(3.1, 1)).toBeCloseTo(0.5 + Math.atan(3.1) / Math.PI, 10);
  });

  it("logGamma matches factorials and Γ(1/2) = √π", () => {
    expect(logGamma(10)).toBeCloseTo(Math.log(362880), 10);
    expect(logGamma(0.5)).toBeCloseTo(Math.log(Math.sqrt(Math.PI)), 10);
    expect(logChoose(10, 3)).toBeCloseTo(Math.log(120), 12);
    expect(logChoose(10, 11)).toBe(Number.NEGATIVE_INFINITY);
  });
});

describe("fisherExactTest", () => {
  it("gives p = 0.4857 on Fisher's tea-tasting table (Fisher 1935, The Design of Experiments, §2)", () => {
    // [[3, 1], [1, 3]]: p = (1 + 16 + 16 + 1) / 70 = 34/70 two-sided.
    expect(fisherExactTest(3, 1, 1, 3)).toBeCloseTo(34 / 70, 12);
  });

  it("matches hand-computed hypergeometric sums", () => {
    // [[5, 0], [1, 4]]: margins 5/5 and 6/4; P(x) = C(5,x)C(5,6−x)/C(10,6) for x = 1..5:
    // 5, 50, 100, 50, 5 over 210; tables as or less likely than x = 5 are x = 1 and x = 5: 10/210.
    expect(fisherExactTest(5, 0, 1, 4)).toBeCloseTo(10 / 210, 12);
    // [[5, 0], [0, 5]]: only the two extreme tables, each 1/252.
    expect(fisherExactTest(5, 0, 0, 5)).toBeCloseTo(2 / 252, 12);
    // R: fisher.test(matrix(c(9, 2, 1, 8), 2))$p.value = 0.005477 (also scipy.stats.fisher_exact).
    expect(fisherExactTest(9, 1, 2, 8)).toBeCloseTo(0.0054775, 6);
  });

  it("is 1 when a margin is empty or the table is the most likely one", () => {
    expect(fisherExactTest(0, 0, 3, 2)).toBe(1);
    expect(fisherExactTest(5, 0, 5, 0)).toBe(1);
    expect(fisherExactTest(1, 0, 0, 1)).toBe(1);
  });
});

describe("binomial and McNemar exact tests", () => {
  it("match hand computation", () => {
    // 0 of 5 discordant pairs favour one side: 2 × (1/2)^5 = 1/16.
    expect(mcnemarExactTest(0, 5)).toBeCloseTo(1 / 16, 12);
    // 1 of 6: 2 × (1 + 6)/64 = 14/64.
    expect(binomialHalfTest(1, 6)).toBeCloseTo(14 / 64, 12);
    expect(mcnemarExactTest(3, 3)).toBe(1);
    expect(mcnemarExactTest(0, 0)).toBe(1);
  });

  it("equals the sign-flip test on ±1 differences", () => {
    const diffs = [1, 1, 1, 1, 1, -1, 0, 0];
    const rng = createRng(1);
    expect(signFlipTest(diffs, { rng }).p_value).toBeCloseTo(mcnemarExactTest(1, 5), 12);
  });
});

describe("permutationTest", () => {
  it("is exact for small samples: completely separated 3 vs 3 gives 2/20", () => {
    // Of the C(6,3) = 20 splits, only the observed one and its mirror are as extreme.
    const r = permutationTest([1, 2, 3], [10, 11, 12], { rng: createRng(1) });
    expect(r.exact).toBe(true);
    expect(r.p_value).toBeCloseTo(2 / 20, 12);
  });

  it("gives 1 when nothing differs and cannot be significant with 2 vs 2 trials", () => {
    expect(permutationTest([4, 4, 4], [4, 4], { rng: createRng(1) }).p_value).toBe(1);
    // With 2 vs 2 the best possible is 2 of C(4,2) = 6 splits.
    expect(permutationTest([0, 1], [10, 11], { rng: createRng(1) }).p_value).toBeCloseTo(1 / 3, 12);
  });

  it("agrees between exact enumeration and Monte Carlo, and is reproducible with a seed", () => {
    const x = [3, 5, 4, 6, 7, 5, 6, 4];
    const y = [6, 8, 7, 9, 6, 8, 9, 7];
    const exact = permutationTest(x, y, { rng: createRng(1), maxExact: 20_000 });
    const mc1 = permutationTest(x, y, { rng: createRng(7), maxExact: 10, resamples: 20_000 });
    const mc2 = permutationTest(x, y, { rng: createRng(7), maxExact: 10, resamples: 20_000 });
    expect(exact.exact).toBe(true);
    expect(mc1.exact).toBe(false);
    expect(mc1.p_value).toBe(mc2.p_value);
    expect(Math.abs(mc1.p_value - exact.p_value)).toBeLessThan(0.003);
    expect(exact.p_value).toBeLessThan(0.01);
  });

  it("stops Monte Carlo early when the difference is unremarkable (Besag & Clifford 1991)", () => {
    const x = [3, 5, 4, 6, 7, 5, 6, 4, 5, 6];
    const y = [4, 6, 5, 5, 6, 4, 7, 5, 6, 5];
    let draws = 0;
    const counting = createRng(3);
    const rng = () => {
      draws++;
      return counting();
    };
    const r = permutationTest(x, y, { rng, maxExact: 10, stopAfterHits: 20 });
    expect(r.p_value).toBeGreaterThan(0.3);
    // 10 random indices per draw; 20 hits at p ≈ 0.5 take about 40 draws, far below 10,000.
    expect(draws).toBeLessThan(200 * 10);
  });

  it("gives valid Monte Carlo p-values: under the null, p ≤ 0.05 in at most about 5% of samples", () => {
    const data = createRng(8);
    const normal = () => Math.sqrt(-2 * Math.log(1 - data())) * Math.cos(2 * Math.PI * data());
    let rejections = 0;
    const sims = 1000;
    for (let i = 0; i < sims; i++) {
      const x = Array.from({ length: 10 }, normal);
      const y = Array.from({ length: 10 }, normal);
      if (permutationTest(x, y, { rng: createRng(i), maxExact: 10, resamples: 1000 }).p_value <= 0.05)
        rejections++;
    }
    // 3 binomial standard deviations above 5%: √(0.05 · 0.95 / 1000) ≈ 0.0069.
    expect(rejections / sims).toBeLessThanOrEqual(0.05 + 3 * 0.0069);
    expect(rejections / sims).toBeGreaterThan(0.02);
  });
});

describe("adjustPValues", () => {
  // Benjamini Y, Hochberg Y (1995), "Controlling the false discovery rate", JRSS B 57:289-300, §4:
  // the 15 p-values of the thrombolysis example. At q = 0.05 BH rejects the four smallest; the
  // Bonferroni-type procedures (Holm) reject only three.
  const bh1995 = [
    0.0001, 0.0004, 0.0019, 0.0095, 0.0201, 0.0278, 0.0298, 0.0344, 0.0459, 0.324, 0.4262, 0.5719, 0.6528,
    0.759, 1,
  ];
  it("reproduces the rejections of Benjamini & Hochberg 1995", () => {
    expect(adjustPValues(bh1995, "bh").filter((p) => p <= 0.05)).toHaveLength(4);
    expect(adjustPValues(bh1995, "holm").filter((p) => p <= 0.05)).toHaveLength(3);
    // Hand computation: the 4th BH-adjusted value is 0.0095 × 15/4; the 5th is min over ranks ≥ 5 of
    // p × 15/rank = 0.0201 × 3.
    expect(adjustPValues(bh1995, "bh")[3]).toBeCloseTo((0.0095 * 15) / 4, 12);
    expect(adjustPValues(bh1995, "bh")[4]).toBeCloseTo(0.0201 * 3, 12);
  });

  it("matches R's p.adjust on a small vector (hand computation, input order kept)", () => {
    // p.adjust(c(0.01, 0.04, 0.03, 0.02, 0.05), "holm") = 0.05 0.09 0.09 0.08 0.09
    const p = [0.01, 0.04, 0.03, 0.02, 0.05];
    const holm = adjustPValues(p, "holm");
    for (const [i, v] of [0.05, 0.09, 0.09, 0.08, 0.09].entries()) expect(holm[i]).toBeCloseTo(v, 12);
    // p.adjust(..., "BH") = 0.05 for all five (m·p/rank is 0.05 at every rank).
    for (const v of adjustPValues(p, "bh")) expect(v).toBeCloseTo(0.05, 12);
    // Capped at 1.
    expect(adjustPValues([0.5, 0.6, 0.7], "holm")).toEqual([1, 1, 1]);
    expect(adjustPValues([], "bh")).toEqual([]);
  });
});

describe("summarizeMetric and intervals", () => {
  it("computes n, mean, median and the t interval by hand", () => {
    // [2, 4, 4, 6]: mean 4, median 4, s = √(8/3); half-width t(0.975, 3) × s/2 with t = 3.182446.
    const s = summarizeMetric([2, 4, 4, 6]);
    expect(s.n).toBe(4);
    expect(s.mean).toBe(4);
    expect(s.median).toBe(4);
    const half = 3.182446 * (Math.sqrt(8 / 3) / 2);
    expect(s.ci_low).toBeCloseTo(4 - half, 5);
    expect(s.ci_high).toBeCloseTo(4 + half, 5);
  });

  it("drops nulls, gives nulls for no data and no interval for one value", () => {
    expect(summarizeMetric([])).toEqual({ n: 0, mean: null, median: null, ci_low: null, ci_high: null });
    expect(summarizeMetric([null, 3, null])).toEqual({
      n: 1,
      mean: 3,
      median: 3,
      ci_low: null,
      ci_high: null,
    });
    expect(summarizeMetric([1, 1, 1])).toEqual({ n: 3, mean: 1, median: 1, ci_low: 1, ci_high: 1 });
  });

  it("Welch interval matches hand computation", () => {
    // x = [1,2,3], y = [2,4,6,8]: means 2 and 5; vx/nx = 1/3, vy/ny = (20/3)/4 = 5/3; se = √2;
    // df = 4 / ((1/9)/2 + (25/9)/3) = 4 / (1/18 + 25/27) = 4.0755; t(0.975, 4.0755) from our quantile.
    const i = welchInterval([1, 2, 3], [2, 4, 6, 8])!;
    const df = 4 / (1 / 18 + 25 / 27);
    const half = studentTQuantile(0.975, df) * Math.SQRT2;
    expectInterval(i, -3 - half, -3 + half, 10);
    expect(studentTQuantile(0.975, df)).toBeGreaterThan(2.75);
    expect(studentTQuantile(0.975, df)).toBeLessThan(2.78);
    expect(welchInterval([1], [2, 3])).toBeNull();
  });

  it("bootstrap intervals are reproducible and bracket the estimate", () => {
    const values = [0.2, 0.5, 0.4, 0.9, 0.6, 0.3];
    const a = bootstrapMeanInterval(values, { rng: createRng(3) })!;
    const b = bootstrapMeanInterval(values, { rng: createRng(3) })!;
    expect(a).toEqual(b);
    expect(a.low).toBeLessThan(0.4833);
    expect(a.high).toBeGreaterThan(0.4833);
    const t = meanInterval(values)!;
    // The percentile bootstrap is narrower than t at n = 6, but of the same order.
    expect(a.high - a.low).toBeLessThan(t.high - t.low);
    expect(a.high - a.low).toBeGreaterThan((t.high - t.low) / 2);
    const d = bootstrapDifferenceInterval([5, 6, 7, 8], [1, 2, 3, 2], { rng: createRng(3) })!;
    expect(d.low).toBeGreaterThan(0);
  });

  it("seeded streams are reproducible and labelled seeds differ", () => {
    const a = createRng(42);
    const b = createRng(42);
    const xs = Array.from({ length: 5 }, () => a());
    expect(Array.from({ length: 5 }, () => b())).toEqual(xs);
    for (const x of xs) expect(x >= 0 && x < 1).toBe(true);
    expect(deriveSeed(1, "a")).not.toBe(deriveSeed(1, "b"));
    expect(deriveSeed(1, "a")).toBe(deriveSeed(1, "a"));
  });
});

describe("sample-size planning", () => {
  it("two proportions: R's power.prop.test(p1 = 0.5, p2 = 0.6, power = 0.8) gives n = 387.3 per group", () => {
    // Hand computation of the same formula:
    // (1.959964·√(2·0.55·0.45) + 0.841621·√(0.25 + 0.24))² / 0.1² = 387.34 → 388.
    expect(trialsNeededForRate({ baseline: 0.5, effect: 0.1 })).toBe(388);
    expect(trialsNeededForRate({ baseline: 0.5, effect: -0.1 })).toBe(388);
    // Near the ceiling the change is taken downwards: 0.95 → 0.85.
    expect(trialsNeededForRate({ baseline: 0.95, effect: 0.1 })).toBe(
      trialsNeededForRate({ baseline: 0.85, effect: 0.1 }),
    );
    // Bigger effects need fewer trials; more power needs more.
    expect(trialsNeededForRate({ baseline: 0.5, effect: 0.3 })).toBeLessThan(50);
    expect(trialsNeededForRate({ baseline: 0.5, effect: 0.1, power: 0.9 })).toBeGreaterThan(388);
  });

  it("two means: R's power.t.test(delta = 1, sd = 1, power = 0.8) gives n = 16.71 per group", () => {
    expect(trialsNeededForMean({ sd: 1, effect: 1 })).toBe(17);
    // Halving the effect roughly quadruples n: 2·(2.8016)²·4 + 0.96 = 63.8 → 64 (power.t.test: 63.77).
    expect(trialsNeededForMean({ sd: 1, effect: 0.5 })).toBe(64);
  });

  it("rejects meaningless plans with a ConfigError naming the field", () => {
    expect(() => trialsNeededForRate({ baseline: 0.5, effect: 0 })).toThrow(ConfigError);
    expect(() => trialsNeededForRate({ baseline: 1.5, effect: 0.1 })).toThrow(/baseline/);
    expect(() => trialsNeededForMean({ sd: 1, effect: 1, power: 1 })).toThrow(/power/);
    expect(() => trialsNeededForMean({ sd: -1, effect: 1 })).toThrow(/sd/);
  });
});
