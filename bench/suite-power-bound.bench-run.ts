/**
 * Issue 24's last target, bounded: how often ANY suite test could catch a broad drop while keeping
 * unchanged PRs under the suite test's share of α in the drift and day-effect cells
 * (src/stats/suite-power-bound.ts), beside what today's decision catches in the seeded simulation.
 * docs/statistics.md ("The frontier") reads the table.
 */
import { expect, it } from "vitest";
import { DRIFT_WINDOW, REAL_WORLDS, runDecisionSimulation } from "../src/stats/decision-simulation.js";
import { DEFAULT_SUITE_ALPHA } from "../src/stats/regression-decision.js";
import { DEFAULT_BASELINE_RUNS } from "../src/stats/run-clusters.js";
import { type SuiteBoundDesign, suitePowerBound } from "../src/stats/suite-power-bound.js";
import { writeBenchmarkSection } from "./benchmarks-file.js";

const percent = (x: number) => `${(100 * x).toFixed(1)}%`;

/** The simulation's drift cell (−5 points every 8 runs) and its largest day effect (logit sd 0.5), as bounds see them. */
const DRIFT_PER_RUN = Math.min(...REAL_WORLDS.map((w) => w.drift)) / DRIFT_WINDOW;
const LARGEST_DAY_EFFECT = Math.max(...REAL_WORLDS.map((w) => w.runEffectSd));
// The logit-scale effect on a level near `rate`, by the delta method.
const dayVariance = (rate: number) => (LARGEST_DAY_EFFECT * rate * (1 - rate)) ** 2;

const DEFAULTS: SuiteBoundDesign = {
  scenarios: 20,
  trials: 3,
  baseRuns: DEFAULT_BASELINE_RUNS,
  baseRate: 0.9,
  headRate: 0.8,
  driftPerRun: DRIFT_PER_RUN,
  maxDayVariance: dayVariance(0.9),
  alpha: DEFAULT_SUITE_ALPHA,
};

it("bounds the broad drop's power for any suite test, beside today's", async () => {
  // Today's suite test on the information each bound is for: its first stage alone (first trials), and
  // with the extended scenarios' extra trials as its second stage.
  const simulate = (extrasStage: boolean) =>
    runDecisionSimulation({
      runs: 1000,
      scenarioCounts: [],
      worlds: [],
      extrasStage,
      powerLabels: ["all 20: 0.9 → 0.8", "all 20: 0.8 → 0.7"],
    }).power;
  const firstStage = simulate(false);
  const withExtras = simulate(true);
  const simulated = (power: typeof firstStage, label: string) => {
    const cell = power.find((c) => c.label === label)!;
    return `${percent(cell.suiteRate)} (${percent(cell.failedRate)})`;
  };
  const rows: Array<{ said: string; design: SuiteBoundDesign; today?: string }> = [
    {
      said: `**the defaults**: drift and day-effect cells, first trials, ${DEFAULT_BASELINE_RUNS} base runs, α_S 0.025`,
      design: DEFAULTS,
      today: `first stage ${simulated(firstStage, "all 20: 0.9 → 0.8")}`,
    },
    { said: "without the day-effect cells (drift only)", design: { ...DEFAULTS, maxDayVariance: 0 } },
    {
      said: "without the drift cell (day effects only)",
      design: { ...DEFAULTS, driftPerRun: 0 },
    },
    {
      said: "neither (trials independent, no drift)",
      design: { ...DEFAULTS, driftPerRun: 0, maxDayVariance: 0 },
    },
    { said: "α_S 0.03 (α_P 0.02)", design: { ...DEFAULTS, alpha: 0.03 } },
    { said: "α_S 0.035 (α_P 0.015)", design: { ...DEFAULTS, alpha: 0.035 } },
    { said: "8 base runs (the default until 2026-11-27)", design: { ...DEFAULTS, baseRuns: 8 } },
    { said: "16 base runs", design: { ...DEFAULTS, baseRuns: 16 } },
    {
      said: "the head at 7 trials a scenario (140: what the extra trials spend on this drop), as if not adaptive",
      design: { ...DEFAULTS, headTrials: 7 },
      today: `with the extra trials ${simulated(withExtras, "all 20: 0.9 → 0.8")}`,
    },
    {
      said: "all 20: 0.8 → 0.7, the defaults",
      design: { ...DEFAULTS, baseRate: 0.8, headRate: 0.7, maxDayVariance: dayVariance(0.8) },
      today: `first stage ${simulated(firstStage, "all 20: 0.8 → 0.7")}`,
    },
    {
      said: "all 20: 0.8 → 0.7, the head at 8 trials a scenario (159 spent), as if not adaptive",
      design: { ...DEFAULTS, baseRate: 0.8, headRate: 0.7, maxDayVariance: dayVariance(0.8), headTrials: 8 },
      today: `with the extra trials ${simulated(withExtras, "all 20: 0.8 → 0.7")}`,
    },
  ];
  const lines = rows.map(({ said, design, today: now }) => {
    const bound = suitePowerBound(design).power;
    return { bound, line: `| ${said} | ${percent(bound)} | ${now ?? ""} |` };
  });
  const table = [
    "Upper bound on the share of PRs with a broad drop (all 20 scenarios 0.9 → 0.8 unless said) that any suite test",
    "could fail while failing at most α_S of unchanged PRs in every null cell: no change, a drift of −5 points every 8",
    "runs, and a suite-wide day effect up to sd 0.5 on the logit scale (normal model of suite levels, dual of the",
    "Neyman–Pearson linear program; src/stats/suite-power-bound.ts). Today: the suite test's rejections in the seeded",
    "simulation (1,000 PRs) on the same information — its first stage alone, or with the extra trials as its second",
    "stage — the whole decision's in parentheses.",
    "",
    "| design | bound, any suite test | today's suite test (decision) |",
    "|---|---:|---:|",
    ...lines.map((l) => l.line),
  ].join("\n");
  process.stdout.write(`\n${table}\n`);
  expect(lines[0]!.bound).toBeGreaterThan(0);
  await writeBenchmarkSection(
    "suite-bound",
    [
      "## The broad drop: a bound for any suite test",
      "",
      "bench/suite-power-bound.bench-run.ts.",
      "",
      table,
    ].join("\n"),
  );
}, 3_600_000);
