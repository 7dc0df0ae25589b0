/**
 * Issue 34, item 5: the decision past the simulated grid. False failures in the cells the earlier
 * bench did not simulate (ICC 0.15 and 0.2, a day effect with drift and ICC together, an improving
 * base branch, 2 / 3 / 12 / 20 base runs, 5 and 60 scenarios), the broad drop where the base branch
 * improves, and how often a broad drop is called ✅ "no regression" at 3 base runs. Each cell is
 * printed as it finishes (a long run can be read while it goes); a cell above 5% at 1,000 PRs is
 * simulated again at 4,000 with another seed.
 */
import { afterAll, expect, it } from "vitest";
import {
  IID,
  type PowerCell,
  REAL_WORLDS,
  type RunWorld,
  runDecisionSimulation,
  type WorldCell,
} from "../src/stats/decision-simulation.js";
import { DEFAULT_SEED } from "../src/stats/stats.js";
import { writeBenchmarkSection } from "./benchmarks-file.js";

const RUNS = 1000;
const REFINED_RUNS = 4000;
const percent = (x: number) => `${(100 * x).toFixed(1)}%`;

/** The worlds past the earlier grid (drift in points every 8 runs, as the simulation counts it). */
const PAST_THE_GRID: readonly RunWorld[] = [
  { label: "ICC 0.15", icc: 0.15, runEffectSd: 0, drift: 0 },
  { label: "ICC 0.2", icc: 0.2, runEffectSd: 0, drift: 0 },
  { label: "day sd 0.3 + drift −3 + ICC 0.05", icc: 0.05, runEffectSd: 0.3, drift: -0.03 },
  { label: "improving base +5 points / 8 runs", icc: 0, runEffectSd: 0, drift: 0.05 },
];
const IMPROVING = PAST_THE_GRID[3]!;

const rows: string[] = [];
const powerRows: string[] = [];

afterAll(async () => {
  if (rows.length === 0) return;
  await writeBenchmarkSection(
    "past-the-grid",
    [
      "## Past the grid (issue 34)",
      "",
      `bench/past-the-grid.bench-run.ts: the decision simulated as in "The regression decision" (seed ${DEFAULT_SEED},`,
      `${RUNS.toLocaleString("en")} PRs a cell; a cell above 5% simulated again at ${REFINED_RUNS.toLocaleString("en")} PRs with seed ${DEFAULT_SEED + 1}),`,
      "in the cells the earlier grid did not reach. 3 trials a scenario, +8 extra for screened ones.",
      "",
      "False failures with nothing changed (target ≤ 5%):",
      "",
      "| world | scenarios | base runs | pass rate | failed | per-scenario | suite | inconclusive |",
      "|---|---:|---:|---:|---:|---:|---:|---:|",
      ...rows,
      "",
      'Power (the broad drop: all 20 scenarios −10 points; ✅ = called "no regression"):',
      "",
      "| change | world | base runs | failed | suite | inconclusive | ✅ no regression |",
      "|---|---|---:|---:|---:|---:|---:|",
      ...powerRows,
    ].join("\n"),
  );
});

function falseFailureCell(world: RunWorld, baseRuns: number, passRate: number, scenarios = 20): WorldCell {
  const simulate = (runs: number, seed: number) =>
    runDecisionSimulation({
      runs,
      seed,
      baseRuns,
      scenarioCounts: [],
      worlds: [world],
      baseRunCounts: [baseRuns],
      worldPassRates: [passRate],
      worldScenarios: scenarios,
      powerLabels: [],
    }).worlds[0]!;
  const cell = simulate(RUNS, DEFAULT_SEED);
  let said = percent(cell.failedRate);
  let rate = cell.failedRate;
  if (cell.failedRate > 0.05) {
    rate = simulate(REFINED_RUNS, DEFAULT_SEED + 1).failedRate;
    said += ` (${percent(rate)} at ${REFINED_RUNS.toLocaleString("en")})`;
  }
  const row =
    `| ${world.label} | ${scenarios} | ${baseRuns} | ${passRate} | ${said} | ${percent(cell.primaryRate)} | ` +
    `${percent(cell.suiteRate)} | ${percent(cell.inconclusiveRate)} |`;
  rows.push(row);
  process.stdout.write(`${row}\n`);
  expect(cell.adaptiveOnlyFlags).toBe(0);
  return { ...cell, failedRate: rate };
}

function broadDropCell(world: RunWorld, baseRuns: number): PowerCell {
  const cell = runDecisionSimulation({
    runs: RUNS,
    baseRuns,
    scenarioCounts: [],
    worlds: [],
    broadDropWorld: world,
    powerLabels: ["all 20: 0.9 → 0.8"],
  }).power[0]!;
  const passed = 1 - cell.failedRate - cell.inconclusiveRate;
  const row =
    `| ${cell.label} | ${world.label} | ${baseRuns} | ${percent(cell.failedRate)} | ${percent(cell.suiteRate)} | ` +
    `${percent(cell.inconclusiveRate)} | ${percent(passed)} |`;
  powerRows.push(row);
  process.stdout.write(`${row}\n`);
  return cell;
}

it("the broad drop: at 3 base runs, and where the base branch improves", () => {
  broadDropCell(IID, 3);
  broadDropCell(IID, 12);
  broadDropCell(IMPROVING, 12);
  expect(powerRows).toHaveLength(3);
}, 7_200_000);

it("false failures past the grid", () => {
  const cells: WorldCell[] = [];
  for (const world of PAST_THE_GRID)
    for (const rate of [0.9, 0.7]) cells.push(falseFailureCell(world, 12, rate));
  for (const k of [2, 3, 12, 20]) for (const rate of [0.9, 0.7]) cells.push(falseFailureCell(IID, k, rate));
  for (const s of [5, 60]) for (const rate of [0.9, 0.7]) cells.push(falseFailureCell(IID, 12, rate, s));
  for (const world of REAL_WORLDS.slice(1))
    for (const k of [3, 20]) cells.push(falseFailureCell(world, k, 0.9));
  expect(cells.length).toBeGreaterThan(0);
}, 7_200_000);
