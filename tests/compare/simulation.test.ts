/**
 * Simulated suites with a known truth, seeded. With no true effect the comparison must not cry
 * "regressed" more often than alpha; with a large effect and enough trials it must find it.
 */

import { describe, expect, it } from "vitest";
import { compareReports } from "../../src/compare/compare.js";
import { decide } from "../../src/compare/decision.js";
import type { CompareOptions, Comparison } from "../../src/compare/types.js";
import type { Report } from "../../src/results/types.js";
import { createRng, type Rng } from "../../src/stats/stats.js";
import { makeReport, makeScenarioReport, type TrialSpec, trialsFrom } from "../support/report-factory.js";

/** Knuth's Poisson sampler: fine for the small means of command counts. */
function drawPoisson(rng: Rng, mean: number): number {
  const limit = Math.exp(-mean);
  let k = 0;
  let p = rng();
  while (p > limit) {
    k++;
    p *= rng();
  }
  return k;
}

interface Truth {
  passProbability: number;
  commandsMean: number;
}

function simulateRun(rng: Rng, truths: readonly Truth[], trials: number): Report {
  return makeReport(
    truths.map((t, i) =>
      makeScenarioReport({
        id: `s${i}`,
        trials: trialsFrom(
          Array.from(
            { length: trials },
            (): TrialSpec => ({
              outcome: rng() < t.passProbability ? "pass" : "fail",
              total_commands: drawPoisson(rng, t.commandsMean),
            }),
          ),
        ),
      }),
    ),
  );
}

// Fewer resamples than the defaults keep the simulations fast; the tests stay valid p-values.
const OPTIONS: CompareOptions = {
  metrics: ["total_commands"],
  bootstrapResamples: 200,
  permutationResamples: 2000,
};

function countRegressed(c: Comparison): number {
  return c.scenarios.reduce((n, s) => n + s.regressed.length, 0);
}

describe("simulated suites", () => {
  it("with no true effect, false 'regressed' verdicts stay at or below alpha (300 comparisons, 10 scenarios × 5 trials)", () => {
    const rng = createRng(2024);
    const alpha = 0.05;
    let runsWithFalseRegression = 0;
    let runsWithFalseSuiteRegression = 0;
    let gateFailures = 0;
    let tests = 0;
    let falseTests = 0;
    const sims = 300;
    for (let sim = 0; sim < sims; sim++) {
      // Each simulation draws its own suite: pass probabilities 0.3–0.95, 2–8 commands on average.
      const truths = Array.from({ length: 10 }, () => ({
        passProbability: 0.3 + 0.65 * rng(),
        commandsMean: 2 + 6 * rng(),
      }));
      const base = simulateRun(rng, truths, 5);
      const head = simulateRun(rng, truths, 5);
      const c = compareReports(base, head, { ...OPTIONS, alpha, seed: sim });
      const regressed = countRegressed(c);
      falseTests += regressed;
      tests += c.settings.family_size;
      if (regressed > 0) runsWithFalseRegression++;
      if (c.suite.metrics.some((m) => m.verdict === "regressed")) runsWithFalseSuiteRegression++;
      if (decide({ head, baseline: base, alpha, seed: sim }).failed) gateFailures++;
    }
    // Holm controls the family-wise error rate: the share of runs with any false regression ≤ alpha.
    expect(runsWithFalseRegression / sims).toBeLessThanOrEqual(alpha);
    expect(runsWithFalseSuiteRegression / sims).toBeLessThanOrEqual(alpha);
    expect(gateFailures / sims).toBeLessThanOrEqual(alpha);
    expect(falseTests / tests).toBeLessThanOrEqual(alpha);
    expect(tests).toBeGreaterThan(300 * 10);
  });

  it("with no true effect, Benjamini–Hochberg also stays at or below alpha (all nulls: FDR = FWER)", () => {
    const rng = createRng(77);
    let runsWithFalseRegression = 0;
    const sims = 150;
    for (let sim = 0; sim < sims; sim++) {
      const truths = Array.from({ length: 10 }, () => ({ passProbability: 0.5, commandsMean: 5 }));
      const c = compareReports(simulateRun(rng, truths, 6), simulateRun(rng, truths, 6), {
        ...OPTIONS,
        correction: "bh",
        seed: sim,
      });
      if (countRegressed(c) > 0) runsWithFalseRegression++;
    }
    expect(runsWithFalseRegression / sims).toBeLessThanOrEqual(0.05);
  });

  it("with a large effect and enough trials, the regressed scenarios are detected in most runs", () => {
    const rng = createRng(99);
    const sims = 50;
    let detectedPass = 0;
    let detectedCommands = 0;
    let falseOnUnaffected = 0;
    let gateFailures = 0;
    for (let sim = 0; sim < sims; sim++) {
      const before = Array.from({ length: 10 }, () => ({ passProbability: 0.9, commandsMean: 4 }));
      // Scenarios 0–2 break: pass probability 0.9 → 0.25, commands 4 → 9 on average.
      const after = before.map((t, i) => (i < 3 ? { passProbability: 0.25, commandsMean: 9 } : t));
      const base = simulateRun(rng, before, 20);
      const head = simulateRun(rng, after, 20);
      const c = compareReports(base, head, { ...OPTIONS, seed: sim });
      for (const s of c.scenarios) {
        const affected = Number(s.key.slice(1)) < 3;
        if (affected) {
          if (s.regressed.includes("pass_rate")) detectedPass++;
          if (s.regressed.includes("total_commands")) detectedCommands++;
        } else if (s.regressed.length > 0) {
          falseOnUnaffected++;
        }
      }
      // The simulated trials are independent draws: the decision is told so (one base run shows nothing).
      if (decide({ head, baseline: base, icc: 0 }).failed) gateFailures++;
    }
    expect(detectedPass / (3 * sims)).toBeGreaterThan(0.8);
    expect(detectedCommands / (3 * sims)).toBeGreaterThan(0.9);
    expect(gateFailures / sims).toBeGreaterThan(0.95);
    expect(falseOnUnaffected / (7 * sims)).toBeLessThanOrEqual(0.05);
  });

  it("a broad small shift no single scenario shows is found at suite level, where the scenario is the unit", () => {
    const rng = createRng(5);
    const sims = 60;
    let suiteDetected = 0;
    let scenarioDetected = 0;
    for (let sim = 0; sim < sims; sim++) {
      const before = Array.from({ length: 12 }, () => ({ passProbability: 0.85, commandsMean: 4 }));
      const after = before.map((t) => ({ ...t, passProbability: 0.45 }));
      const c = compareReports(simulateRun(rng, before, 5), simulateRun(rng, after, 5), {
        metrics: [],
        bootstrapResamples: 200,
        seed: sim,
      });
      if (c.suite.metrics[0]!.verdict === "regressed") suiteDetected++;
      scenarioDetected += c.scenarios.filter((s) => s.regressed.length > 0).length;
    }
    expect(suiteDetected / sims).toBeGreaterThan(0.8);
    // With 5 trials a side, single scenarios rarely reach significance after correction.
    expect(scenarioDetected / (12 * sims)).toBeLessThan(0.3);
  });
});
