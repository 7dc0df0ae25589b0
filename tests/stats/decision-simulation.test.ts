import { describe, expect, it } from "vitest";
import {
  formatDecisionSimulation,
  REAL_WORLDS,
  runDecisionSimulation,
} from "../../src/stats/decision-simulation.js";

// Each cell runs the project's decision on every simulated PR; the first cells fill the tests' caches.
describe("runDecisionSimulation", { timeout: 300_000 }, () => {
  const small = {
    runs: 60,
    scenarioCounts: [10],
    headTrialCounts: [1, 3],
    passRates: [0.8],
    worlds: REAL_WORLDS.filter((w) => w.label === "ICC 0.1"),
    baseRunCounts: [2, 8],
    worldPassRates: [0.9],
    powerLabels: ["0.9 → 0.1"],
  };

  it("is reproducible from its seed and never flags what the fixed design would not", () => {
    const a = runDecisionSimulation(small);
    const b = runDecisionSimulation(small);
    expect(b).toEqual(a);
    for (const cell of [...a.falseFailures, ...a.worlds, ...a.power]) {
      expect(cell.adaptiveOnlyFlags).toBe(0);
      expect(cell.failedRate).toBeLessThanOrEqual(cell.fixedDesignFailedRate + cell.suiteRate);
    }
  });

  it("counts head trials: n per scenario with one trial (no extras), n + 8 per screened scenario", () => {
    const tables = runDecisionSimulation(small);
    expect(tables.falseFailures[0]).toMatchObject({ scenarios: 10, headTrials: 1, headTrialsPerPr: 10 });
    const three = tables.falseFailures[1]!;
    expect(three.headTrialsPerPr).toBeGreaterThan(30);
    // Extra trials over the 60 runs come in eights.
    const extraTotal = (three.headTrialsPerPr - 30) * 60;
    expect(Math.abs(extraTotal / 8 - Math.round(extraTotal / 8))).toBeLessThan(1e-6);
  });

  it("estimates the ICC of a clustered world, assumes the prior below three runs, and never passes those", () => {
    const tables = runDecisionSimulation(small);
    const [two, eight] = tables.worlds;
    expect(two).toMatchObject({ world: "ICC 0.1", baseRuns: 2 });
    // Two runs: at least the prior 0.1 assumed, and every PR that did not fail is inconclusive.
    expect(two!.meanIcc).toBeGreaterThanOrEqual(0.1);
    expect(two!.failedRate + two!.inconclusiveRate).toBeCloseTo(1, 12);
    // Eight runs of a world with ICC 0.1: the estimate (rounded up) is near it.
    expect(eight!.meanIcc).toBeGreaterThan(0.06);
    expect(eight!.meanIcc).toBeLessThan(0.16);
  });

  it("catches a collapse far more often than it fails an unchanged suite, and formats the tables", () => {
    const tables = runDecisionSimulation(small);
    const collapse = tables.power.find((c) => c.label.includes("0.9 → 0.1") && c.world === "i.i.d.")!;
    expect(collapse.flaggedRate!).toBeGreaterThan(0.85);
    expect(Math.max(...tables.falseFailures.map((c) => c.failedRate))).toBeLessThan(0.1);
    // Nothing changed in these cells: 🟢 is as rare as a false failure (the bench measures it at size).
    expect(Math.max(...tables.falseFailures.map((c) => c.improvedRate))).toBeLessThan(0.1);
    expect(collapse.improvedRate).toBeLessThan(0.1);
    const text = formatDecisionSimulation(tables);
    expect(text).toMatch(/False improvements \(🟢 with nothing changed; target ≤ 5%\): at most \d+\.\d%/u);
    expect(text).toContain("| 10 | 3 | 0.8 |");
    expect(text).toContain("| ICC 0.1 | 8 | 0.9 |");
    expect(text).toContain("| one of 20: 0.9 → 0.1 | ICC 0.05 |");
  });

  it("an assumed ICC of 0 with the exact suite test is the design before runs were clusters", () => {
    const tables = runDecisionSimulation({ ...small, assumedIcc: 0, suiteForm: "exact", worlds: [] });
    expect(tables.settings).toMatchObject({ assumedIcc: 0, suiteForm: "exact" });
    expect(formatDecisionSimulation(tables)).toContain("ICC assumed 0.");
  });
});
