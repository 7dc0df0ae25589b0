import { describe, expect, it } from "vitest";
import { formatDecisionSimulation, runDecisionSimulation } from "../../src/stats/decision-simulation.js";

describe("runDecisionSimulation", () => {
  const small = { runs: 150, scenarioCounts: [10], headTrialCounts: [1, 3], passRates: [0.8] };

  it("is reproducible from its seed and never flags what the fixed design would not", () => {
    const a = runDecisionSimulation(small);
    const b = runDecisionSimulation(small);
    expect(b).toEqual(a);
    for (const cell of [...a.falseFailures, ...a.power]) {
      expect(cell.adaptiveOnlyFlags).toBe(0);
      expect(cell.failedRate).toBeLessThanOrEqual(cell.fixedDesignFailedRate + cell.suiteRate);
    }
  });

  it("counts head trials: n per scenario with one trial (no extras), n + 6 per screened scenario", () => {
    const tables = runDecisionSimulation(small);
    expect(tables.falseFailures[0]).toMatchObject({ scenarios: 10, headTrials: 1, headTrialsPerPr: 10 });
    const three = tables.falseFailures[1]!;
    expect(three.headTrialsPerPr).toBeGreaterThan(30);
    // Extra trials over the 150 runs come in sixes.
    const extraTotal = (three.headTrialsPerPr - 30) * 150;
    expect(Math.abs(extraTotal / 6 - Math.round(extraTotal / 6))).toBeLessThan(1e-6);
  });

  it("catches a collapse far more often than it fails an unchanged suite, and formats the tables", () => {
    const tables = runDecisionSimulation(small);
    const collapse = tables.power.find((c) => c.label.includes("0.9 → 0.1"))!;
    expect(collapse.flaggedRate!).toBeGreaterThan(0.75);
    expect(Math.max(...tables.falseFailures.map((c) => c.failedRate))).toBeLessThan(0.1);
    const text = formatDecisionSimulation(tables);
    expect(text).toContain("| 10 | 3 | 0.8 |");
    expect(text).toContain("one of 20: 0.9 → 0.1");
  });
});
