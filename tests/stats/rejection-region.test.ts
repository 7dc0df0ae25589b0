import { describe, expect, it } from "vitest";
import { detectionPower, type PowerDesign } from "../../src/stats/detection-power.js";
import { fisherOneSidedP } from "../../src/stats/exact-2x2.js";
import { scenarioPValue } from "../../src/stats/regression-decision.js";
import { rejectionBoundary } from "../../src/stats/rejection-region.js";
import { detectionPowerByTables } from "../support/detection-power-by-tables.js";

const runsOf = (runs: number, trials: number) => Array.from({ length: runs }, () => trials);

/**
 * Designs the decision meets: the defaults (8 runs × 3, 3 + 8), a single saved report, few runs at the
 * prior ICC, more trials, no extra trials, Holm's first step over 20 or 5 scenarios and the full alpha.
 */
const DESIGNS: Array<PowerDesign & { name: string }> = [];
for (const icc of [0, 0.05, 0.1]) {
  for (const [name, runTrials, headTrials, extraTrials] of [
    ["8 × 3, 3 + 8", runsOf(8, 3), 3, 8],
    ["3 × 3, 3 + 8", runsOf(3, 3), 3, 8],
    ["1 × 3, 3 + 8", runsOf(1, 3), 3, 8],
    ["4 × 3, 2 + 4", runsOf(4, 3), 2, 4],
    ["8 × 3, 3 + 0", runsOf(8, 3), 3, 0],
    ["5 × 5, 5 + 5", runsOf(5, 5), 5, 5],
    ["2 × 12, 10 + 0", runsOf(2, 12), 10, 0],
    ["uneven runs 4, 3, 2, 3 + 6", [4, 3, 2], 3, 6],
  ] as const) {
    for (const level of [0.025 / 20, 0.025 / 5, 0.05]) {
      DESIGNS.push({
        name: `${name}, ICC ${icc}, level ${level}`,
        runTrials,
        headTrials,
        extraTrials,
        icc,
        level,
      });
    }
  }
}
// Larger ones, where the old search was slow: a saved report of 96 trials, 8 runs of 12 against 10 + 10.
DESIGNS.push(
  { name: "1 × 96, 3 + 8, ICC 0", runTrials: [96], headTrials: 3, extraTrials: 8, icc: 0, level: 0.025 / 20 },
  {
    name: "1 × 96, 10 + 10, ICC 0.05",
    runTrials: [96],
    headTrials: 10,
    extraTrials: 10,
    icc: 0.05,
    level: 0.025 / 20,
  },
  {
    name: "8 × 12, 10 + 10, ICC 0",
    runTrials: runsOf(8, 12),
    headTrials: 10,
    extraTrials: 10,
    icc: 0,
    level: 0.025 / 20,
  },
);

describe("the design's power from the rejection region found once", () => {
  it.each(DESIGNS)("equals the table-by-table search exactly: $name", (design) => {
    for (const [from, to] of [
      [0.9, 0.1],
      [0.9, 0.5],
      [1, 0.7],
    ] as const) {
      expect(detectionPower(design, from, to)).toBe(detectionPowerByTables(design, from, to));
    }
  });
});

describe("rejectionBoundary", () => {
  // Every table of the design asked of the test itself: the boundary flags exactly those at or below the level.
  it.each([
    { runTrials: runsOf(8, 3), headTrials: 11, icc: 0, level: 0.025 / 20 },
    { runTrials: runsOf(8, 3), headTrials: 11, icc: 0.05, level: 0.025 / 20 },
    { runTrials: runsOf(3, 3), headTrials: 5, icc: 0.1, level: 0.05 },
    { runTrials: [12], headTrials: 9, icc: 0, level: 0.01 },
  ])("flags exactly the tables whose p-value is at most the level (%o)", (design) => {
    const { runTrials, headTrials, icc, level } = design;
    const baseTrials = runTrials.reduce((s, n) => s + n, 0);
    const baseRuns = runTrials.map((trials) => ({ passed: 0, trials }));
    const boundary = rejectionBoundary(design);
    expect(boundary).toHaveLength(baseTrials + 1);
    let flagged = 0;
    for (let y = 0; y <= baseTrials; y++) {
      for (let x = 0; x <= headTrials; x++) {
        const p = scenarioPValue({ basePassed: y, baseTrials, headPassed: x, headTrials, baseRuns }, icc);
        expect(x <= boundary[y]!, `${x}/${headTrials} against ${y}/${baseTrials}: p ${p}`).toBe(p <= level);
        if (p <= level) flagged++;
      }
    }
    // Not a vacuous check: the design flags some tables and not others.
    expect(flagged).toBeGreaterThan(0);
    expect(flagged).toBeLessThan((baseTrials + 1) * (headTrials + 1));
  });

  it("is a threshold on Fisher's statistic: it never falls as the baseline passes more", () => {
    const design = { runTrials: [96], headTrials: 20, icc: 0.05, level: 0.025 / 20 };
    const boundary = rejectionBoundary(design);
    for (let y = 1; y < boundary.length; y++) expect(boundary[y]!).toBeGreaterThanOrEqual(boundary[y - 1]!);
    const last = boundary.findIndex((x) => x >= 0);
    expect(last).toBeGreaterThan(0);
    // The least extreme flagged table is more extreme than every table left out.
    const statistic = (x: number, y: number) =>
      fisherOneSidedP({ basePassed: y, baseTrials: 96, headPassed: x, headTrials: 20 });
    let flaggedMax = 0;
    let leftMin = 1;
    boundary.forEach((b, y) => {
      if (b >= 0) flaggedMax = Math.max(flaggedMax, statistic(b, y));
      if (b < 20) leftMin = Math.min(leftMin, statistic(b + 1, y));
    });
    expect(flaggedMax).toBeLessThan(leftMin);
  });
});
