/**
 * Seeded simulation of the regression decision at the defaults: how often an unchanged PR fails, how
 * often real regressions are caught, and how many head trials that costs. Pure (a seeded PRNG per
 * cell); `npm run bench` prints it (bench/decision-simulation.bench-run.ts).
 *
 * One simulated PR: every scenario draws `baseTrials` baseline trials at its baseline pass rate (the
 * pooled baseline: 4 runs × 3 trials = 12) and `headTrials + extraTrials` head trials at its head
 * pass rate. The adaptive design looks at the first `headTrials`, screens, and uses the extra ones
 * only for screened scenarios. The same draws also feed the fixed design that uses every extra trial
 * on every scenario, so each run checks that every scenario the adaptive design flags, the fixed
 * design flags too (the argument of docs/statistics.md).
 */
import {
  DEFAULT_ALPHA,
  DEFAULT_EXTRA_TRIALS,
  DEFAULT_SUITE_ALPHA,
  decideRegression,
  type PrimaryTest,
  type ScenarioCounts,
  screenForExtraTrials,
} from "./regression-decision.js";
import { createRng, DEFAULT_SEED, deriveSeed, type Rng } from "./stats.js";

export interface DecisionSimulationOptions {
  /** Simulated PRs per cell; default 1,000. */
  runs?: number;
  seed?: number;
  /** Pooled baseline trials per scenario; default 12 (4 base-branch runs × 3 trials). */
  baseTrials?: number;
  /** Head trials per scenario before the screen, for the power table; default 3. */
  headTrials?: number;
  /** Extra head trials per screened scenario; default 6. */
  extraTrials?: number;
  alpha?: number;
  suiteAlpha?: number;
  primaryTest?: PrimaryTest;
  /** The false-failure grid; defaults as in issue 14. */
  scenarioCounts?: number[];
  headTrialCounts?: number[];
  passRates?: number[];
}

export interface CellOutcome {
  /** Share of simulated PRs whose decision failed. */
  failedRate: number;
  /** Share in which some scenario was flagged by the primary family. */
  primaryRate: number;
  /** Share in which the suite test rejected. */
  suiteRate: number;
  /** Mean head trials per PR (first trials plus extra ones). */
  headTrialsPerPr: number;
  /** Share in which the fixed design (extra trials on every scenario) failed. */
  fixedDesignFailedRate: number;
  /** Scenario flags of the adaptive design that the fixed design did not raise: must be 0. */
  adaptiveOnlyFlags: number;
}

export interface FalseFailureCell extends CellOutcome {
  scenarios: number;
  headTrials: number;
  passRate: number;
}

export interface PowerCell extends CellOutcome {
  label: string;
  scenarios: number;
  /** Share in which the changed scenario itself was flagged; null when every scenario changed. */
  flaggedRate: number | null;
}

export interface DecisionSimulationTables {
  settings: Required<Omit<DecisionSimulationOptions, "scenarioCounts" | "headTrialCounts" | "passRates">>;
  falseFailures: FalseFailureCell[];
  power: PowerCell[];
}

interface Scenario {
  base: number;
  head: number;
}

export function runDecisionSimulation(options: DecisionSimulationOptions = {}): DecisionSimulationTables {
  const settings = {
    runs: options.runs ?? 1000,
    seed: options.seed ?? DEFAULT_SEED,
    baseTrials: options.baseTrials ?? 12,
    headTrials: options.headTrials ?? 3,
    extraTrials: options.extraTrials ?? DEFAULT_EXTRA_TRIALS,
    alpha: options.alpha ?? DEFAULT_ALPHA,
    suiteAlpha: options.suiteAlpha ?? DEFAULT_SUITE_ALPHA,
    primaryTest: options.primaryTest ?? "boschloo",
  };
  const falseFailures: FalseFailureCell[] = [];
  for (const scenarios of options.scenarioCounts ?? [10, 30]) {
    for (const headTrials of options.headTrialCounts ?? [1, 3, 5]) {
      for (const passRate of options.passRates ?? [0.5, 0.8, 0.95]) {
        const design = Array.from({ length: scenarios }, () => ({ base: passRate, head: passRate }));
        const label = `no change: ${scenarios} × ${headTrials} at ${passRate}`;
        falseFailures.push({
          scenarios,
          headTrials,
          passRate,
          ...simulateCell(design, { ...settings, headTrials }, label).outcome,
        });
      }
    }
  }
  const unchanged = (n: number, rate: number): Scenario[] =>
    Array.from({ length: n }, () => ({ base: rate, head: rate }));
  const powerDesigns: { label: string; design: Scenario[]; changed: number | null }[] = [
    { label: "one of 20: 0.9 → 0.1", design: [{ base: 0.9, head: 0.1 }, ...unchanged(19, 0.9)], changed: 0 },
    { label: "one of 20: 0.9 → 0.5", design: [{ base: 0.9, head: 0.5 }, ...unchanged(19, 0.9)], changed: 0 },
    { label: "one of 20: 1.0 → 0.7", design: [{ base: 1, head: 0.7 }, ...unchanged(19, 0.9)], changed: 0 },
    {
      label: "all 20: 0.9 → 0.8",
      design: Array.from({ length: 20 }, () => ({ base: 0.9, head: 0.8 })),
      changed: null,
    },
    {
      label: "all 20: 0.8 → 0.7",
      design: Array.from({ length: 20 }, () => ({ base: 0.8, head: 0.7 })),
      changed: null,
    },
  ];
  const power = powerDesigns.map(({ label, design, changed }) => {
    const { outcome, flagged } = simulateCell(design, settings, label, changed);
    return { label, scenarios: design.length, flaggedRate: changed === null ? null : flagged, ...outcome };
  });
  return { settings, falseFailures, power };
}

type CellSettings = DecisionSimulationTables["settings"];

function simulateCell(
  design: readonly Scenario[],
  settings: CellSettings,
  label: string,
  changed: number | null = null,
): { outcome: CellOutcome; flagged: number } {
  const rng = createRng(deriveSeed(settings.seed, label));
  const decisionOptions = {
    alpha: settings.alpha,
    suiteAlpha: settings.suiteAlpha,
    primaryTest: settings.primaryTest,
  };
  let failed = 0;
  let primary = 0;
  let suite = 0;
  let trials = 0;
  let fixedFailed = 0;
  let adaptiveOnlyFlags = 0;
  let flagged = 0;
  for (let run = 0; run < settings.runs; run++) {
    const first = design.map(({ base, head }) => ({
      basePassed: binomial(rng, settings.baseTrials, base),
      baseTrials: settings.baseTrials,
      headPassed: binomial(rng, settings.headTrials, head),
      headTrials: settings.headTrials,
    }));
    const extraPassed = design.map(({ head }) => binomial(rng, settings.extraTrials, head));
    const screened = settings.extraTrials > 0 ? screenForExtraTrials(first) : first.map(() => false);
    const complete = (c: (typeof first)[number], i: number, extended: boolean): ScenarioCounts => ({
      ...c,
      headPassed: c.headPassed + (extended ? extraPassed[i]! : 0),
      headTrials: c.headTrials + (extended ? settings.extraTrials : 0),
      initialHeadPassed: c.headPassed,
      initialHeadTrials: c.headTrials,
      ...(settings.extraTrials > 0 ? { extended } : {}),
    });
    const adaptive = decideRegression(
      first.map((c, i) => complete(c, i, screened[i]!)),
      decisionOptions,
    );
    const fixed = decideRegression(
      first.map((c, i) => complete(c, i, settings.extraTrials > 0)),
      decisionOptions,
    );
    if (adaptive.failed) failed++;
    if (adaptive.scenarios.some((s) => s.regressed)) primary++;
    if (adaptive.suite.rejected) suite++;
    if (fixed.failed) fixedFailed++;
    adaptive.scenarios.forEach((s, i) => {
      if (s.regressed && !fixed.scenarios[i]!.regressed) adaptiveOnlyFlags++;
    });
    if (changed !== null && adaptive.scenarios[changed]!.regressed) flagged++;
    trials += first.reduce((sum, c, i) => sum + c.headTrials + (screened[i] ? settings.extraTrials : 0), 0);
  }
  const runs = settings.runs;
  return {
    outcome: {
      failedRate: failed / runs,
      primaryRate: primary / runs,
      suiteRate: suite / runs,
      headTrialsPerPr: trials / runs,
      fixedDesignFailedRate: fixedFailed / runs,
      adaptiveOnlyFlags,
    },
    flagged: flagged / runs,
  };
}

function binomial(rng: Rng, n: number, p: number): number {
  let passed = 0;
  for (let i = 0; i < n; i++) if (rng() < p) passed++;
  return passed;
}

const percent = (x: number) => `${(100 * x).toFixed(1)}%`;

/** The tables as Markdown, as the bench prints them and docs/statistics.md quotes them. */
export function formatDecisionSimulation(tables: DecisionSimulationTables): string {
  const s = tables.settings;
  const lines = [
    `Settings: ${s.runs} simulated PRs a cell, seed ${s.seed}; baseline ${s.baseTrials} trials per scenario; ` +
      `+${s.extraTrials} extra head trials for screened scenarios; alpha ${s.alpha} ` +
      `(suite test ${s.suiteAlpha}, per-scenario family ${+(s.alpha - s.suiteAlpha).toFixed(4)}); ${s.primaryTest}.`,
    "",
    "False failures with nothing changed (target ≤ 5%):",
    "",
    "| scenarios | head trials | pass rate | failed | per-scenario | suite | fixed design | head trials/PR |",
    "|---:|---:|---:|---:|---:|---:|---:|---:|",
    ...tables.falseFailures.map(
      (c) =>
        `| ${c.scenarios} | ${c.headTrials} | ${c.passRate} | ${percent(c.failedRate)} | ${percent(c.primaryRate)} | ` +
        `${percent(c.suiteRate)} | ${percent(c.fixedDesignFailedRate)} | ${c.headTrialsPerPr.toFixed(1)} |`,
    ),
    "",
    `Power, ${s.headTrials} head trials per scenario (+${s.extraTrials}):`,
    "",
    "| change | failed | changed scenario flagged | suite | head trials/PR |",
    "|---|---:|---:|---:|---:|",
    ...tables.power.map(
      (c) =>
        `| ${c.label} | ${percent(c.failedRate)} | ${c.flaggedRate === null ? "—" : percent(c.flaggedRate)} | ` +
        `${percent(c.suiteRate)} | ${c.headTrialsPerPr.toFixed(1)} |`,
    ),
  ];
  const adaptiveOnly = [...tables.falseFailures, ...tables.power].reduce(
    (n, c) => n + c.adaptiveOnlyFlags,
    0,
  );
  lines.push(
    "",
    `Scenario flags of the adaptive design that the fixed design did not raise: ${adaptiveOnly}.`,
  );
  return lines.join("\n");
}
