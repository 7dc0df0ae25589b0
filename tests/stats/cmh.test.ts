import { describe, expect, it } from "vitest";
import { cmhExactOneSided, cmhOneSided } from "../../src/stats/cmh.js";

const stratum = (basePassed: number, baseTrials: number, headPassed: number, headTrials: number) => ({
  basePassed,
  baseTrials,
  headPassed,
  headTrials,
});

// Reference values computed by hand in Python (scipy 1.17.1 for Φ and the hypergeometric pmf):
// E_k = n_k t_k / N_k, V_k = n_k m_k t_k (N_k − t_k) / (N_k² (N_k − 1)), z = (Σa − ΣE)/√ΣV
// (Mantel & Haenszel 1959; Agresti 2013 §6.4.2), and the exact conditional p by brute-force
// enumeration of every combination of the strata's hypergeometric head counts.
const SIX_STRATA = [
  stratum(11, 12, 1, 3),
  stratum(12, 12, 2, 3),
  stratum(10, 12, 3, 3),
  stratum(12, 12, 3, 3), // all passed: no information
  stratum(9, 12, 1, 3),
  stratum(0, 12, 0, 3), // all failed: no information
];
const FOUR_STRATA = [
  stratum(11, 12, 2, 9),
  stratum(12, 12, 3, 3),
  stratum(8, 12, 2, 3),
  stratum(12, 12, 8, 9),
];

describe("one-sided Cochran–Mantel–Haenszel test, normal approximation", () => {
  it("matches the formula computed by hand", () => {
    const six = cmhOneSided(SIX_STRATA);
    expect(six.observedMinusExpected).toBeCloseTo(-2.8, 12);
    expect(six.variance).toBeCloseTo(1.44, 12);
    expect(six.pValue).toBeCloseTo(0.009815328628645334, 8);
    expect(six.informativeStrata).toBe(4);
    expect(cmhOneSided(FOUR_STRATA).pValue).toBeCloseTo(0.002079691898493515, 8);
  });

  it("with the continuity correction, as R's mantelhaen.test(correct = TRUE)", () => {
    expect(cmhOneSided(SIX_STRATA, { continuityCorrection: true }).pValue).toBeCloseTo(
      0.027640146293010405,
      8,
    );
    expect(cmhOneSided(FOUR_STRATA, { continuityCorrection: true }).pValue).toBeCloseTo(
      0.005868741822828105,
      8,
    );
  });

  it("ignores strata where everything passed or failed, and is 1 when nothing is informative", () => {
    const without = cmhOneSided(SIX_STRATA.filter((_, i) => i !== 3 && i !== 5));
    expect(without.pValue).toBeCloseTo(cmhOneSided(SIX_STRATA).pValue, 14);
    expect(cmhOneSided([stratum(12, 12, 3, 3), stratum(0, 12, 0, 3), stratum(0, 0, 1, 3)]).pValue).toBe(1);
    expect(cmhExactOneSided([stratum(12, 12, 3, 3)]).pValue).toBe(1);
  });
});

describe("exact conditional version", () => {
  it("matches brute-force enumeration of the hypergeometric head counts", () => {
    expect(cmhExactOneSided(SIX_STRATA).pValue).toBeCloseTo(0.03234654199803336, 12);
    expect(cmhExactOneSided(SIX_STRATA, { midP: true }).pValue).toBeCloseTo(0.01852874911587627, 12);
    expect(cmhExactOneSided(FOUR_STRATA).pValue).toBeCloseTo(0.005448819203794877, 12);
    expect(cmhExactOneSided(FOUR_STRATA, { midP: true }).pValue).toBeCloseTo(0.0029860642926922065, 12);
  });

  it("is where the normal approximation is too optimistic at these sizes (0.032 exact against 0.0098)", () => {
    expect(cmhExactOneSided(SIX_STRATA).pValue).toBeGreaterThan(3 * cmhOneSided(SIX_STRATA).pValue);
  });

  it("with a single stratum equals Fisher's one-sided test (12/12 vs 0/3: 1/455)", () => {
    expect(cmhExactOneSided([stratum(12, 12, 0, 3)]).pValue).toBeCloseTo(1 / 455, 14);
  });
});
