/**
 * Seeded simulation of the regression decision at the defaults, in the world real runs live in: how
 * often an unchanged PR fails, how often real regressions are caught, how often the verdict is
 * inconclusive, and how many head trials that costs. Pure (a seeded PRNG per cell); `npm run bench`
 * prints it (bench/decision-simulation.bench-run.ts); docs/statistics.md quotes it.
 *
 * One simulated PR: K base-branch runs and the head run. Every run draws each scenario's pass rate
 * for the day from the cell's world — independent trials (i.i.d.), an intra-run correlation (the
 * run's rate is beta-distributed around the scenario's), a suite-wide run effect (every scenario of a
 * run shifted together on the logit scale), or a drift (the rate falling linearly run after run, the
 * head last) — and its trials are binomial at that rate. The head's first trials are screened
 * against the pooled base runs as `decide()` screens them, screened scenarios get the extra trials,
 * and the decision is the project's own (`decideRegression` with the ICC `assumeRunVariation` takes
 * from the base runs, as `decide()` does). The same draws feed the fixed design that extends every
 * scenario, so each PR checks that the adaptive design never flags what the fixed one would not.
 */

import { collapsePower, inconclusiveGrounds } from "./detection-power.js";
import { decideImprovement } from "./improvement.js";
import {
  DEFAULT_ALPHA,
  DEFAULT_EXTRA_TRIALS,
  DEFAULT_SUITE_ALPHA,
  decideRegression,
  type ScenarioCounts,
  screenForExtraTrials,
} from "./regression-decision.js";
import { assumeRunVariation, DEFAULT_BASELINE_RUNS, type RunCount, type SuiteForm } from "./run-clusters.js";
import { binomial, drawRunRates, type RunWorld } from "./simulated-runs.js";
import { createRng, DEFAULT_SEED, deriveSeed } from "./stats.js";

// What the bench and the tests import from here, defined where the decision ships them.
export { broadDropPower } from "./broad-drop-power.js";
export { DRIFT_WINDOW, type RunWorld } from "./simulated-runs.js";

export const IID: RunWorld = { label: "i.i.d.", icc: 0, runEffectSd: 0, drift: 0 };

/** The real-world cells of issue 24. */
export const REAL_WORLDS: readonly RunWorld[] = [
  IID,
  { label: "ICC 0.05", icc: 0.05, runEffectSd: 0, drift: 0 },
  { label: "ICC 0.1", icc: 0.1, runEffectSd: 0, drift: 0 },
  { label: "run effect sd 0.2", icc: 0, runEffectSd: 0.2, drift: 0 },
  { label: "run effect sd 0.5", icc: 0, runEffectSd: 0.5, drift: 0 },
  { label: "drift −5 points / 8 runs", icc: 0, runEffectSd: 0, drift: -0.05 },
];

export interface DecisionSimulationOptions {
  /** Simulated PRs per cell; default 1,000. */
  runs?: number;
  seed?: number;
  /** Base-branch runs pooled; default the action's `baseline-runs` (12). */
  baseRuns?: number;
  /** Head trials per scenario before the screen (and trials of each base run); default 3. */
  headTrials?: number;
  /** Extra head trials per screened scenario; default the decision's (8). */
  extraTrials?: number;
  alpha?: number;
  suiteAlpha?: number;
  /** Which corrections the suite test makes (the frontier table asks for fewer); default all. */
  suiteForm?: SuiteForm;
  /** Whether the suite test takes the extra trials as a second stage; default yes. */
  extrasStage?: boolean;
  /** The ICC the tests assume instead of estimating it (0: trials taken as independent, as before runs were clusters). */
  assumedIcc?: number;
  /** Only the power cells whose change contains one of these (default all). */
  powerLabels?: string[];
  /** The i.i.d. false-failure grid. */
  scenarioCounts?: number[];
  headTrialCounts?: number[];
  passRates?: number[];
  /** The real-world false-failure cells: worlds × base runs × pass rates, 20 scenarios × 3 trials. */
  worlds?: readonly RunWorld[];
  baseRunCounts?: number[];
  worldPassRates?: number[];
  /** Scenarios of the real-world cells (default 20: the label says so only when it differs). */
  worldScenarios?: number;
  /** The world the broad drops ("all 20: …") are simulated in (default i.i.d.). */
  broadDropWorld?: RunWorld;
}

interface CellOutcome {
  /** Share of simulated PRs whose decision failed. */
  failedRate: number;
  /** Share in which some scenario was flagged by the primary family. */
  primaryRate: number;
  /** Share in which the suite test rejected. */
  suiteRate: number;
  /** Share that did not fail but were inconclusive (too few base runs, or the design's power below 80%). */
  inconclusiveRate: number;
  /** Mean head trials per PR (first trials plus extra ones). */
  headTrialsPerPr: number;
  /** Mean ICC the tests assumed. */
  meanIcc: number;
  /** Share in which the fixed design (extra trials on every scenario) failed. */
  fixedDesignFailedRate: number;
  /** Scenario flags of the adaptive design that the fixed design did not raise: must be 0. */
  adaptiveOnlyFlags: number;
  /** Share shown 🟢 improved (a scenario or the suite; src/stats/improvement.ts): false when nothing changed. */
  improvedRate: number;
}

interface FalseFailureCell extends CellOutcome {
  scenarios: number;
  headTrials: number;
  passRate: number;
}

export interface WorldCell extends CellOutcome {
  world: string;
  scenarios: number;
  baseRuns: number;
  passRate: number;
}

export interface PowerCell extends CellOutcome {
  label: string;
  world: string;
  scenarios: number;
  /** Share in which the changed scenario itself was flagged; null when every scenario changed. */
  flaggedRate: number | null;
}

export interface DecisionSimulationTables {
  settings: {
    runs: number;
    seed: number;
    baseRuns: number;
    headTrials: number;
    extraTrials: number;
    alpha: number;
    suiteAlpha: number;
    suiteForm: SuiteForm;
    extrasStage: boolean;
    assumedIcc: number | null;
  };
  falseFailures: FalseFailureCell[];
  worlds: WorldCell[];
  power: PowerCell[];
}

interface Scenario {
  base: number;
  head: number;
}

interface CellDesign {
  scenarios: readonly Scenario[];
  world: RunWorld;
  baseRuns: number;
  headTrials: number;
}

type Settings = DecisionSimulationTables["settings"];

export function runDecisionSimulation(options: DecisionSimulationOptions = {}): DecisionSimulationTables {
  const settings: Settings = {
    runs: options.runs ?? 1000,
    seed: options.seed ?? DEFAULT_SEED,
    baseRuns: options.baseRuns ?? DEFAULT_BASELINE_RUNS,
    headTrials: options.headTrials ?? 3,
    extraTrials: options.extraTrials ?? DEFAULT_EXTRA_TRIALS,
    alpha: options.alpha ?? DEFAULT_ALPHA,
    suiteAlpha: options.suiteAlpha ?? DEFAULT_SUITE_ALPHA,
    suiteForm: options.suiteForm ?? "clustered",
    extrasStage: options.extrasStage ?? true,
    assumedIcc: options.assumedIcc ?? null,
  };
  const unchanged = (n: number, rate: number): Scenario[] =>
    Array.from({ length: n }, () => ({ base: rate, head: rate }));

  const falseFailures: FalseFailureCell[] = [];
  for (const scenarios of options.scenarioCounts ?? [10, 30]) {
    for (const headTrials of options.headTrialCounts ?? [1, 3, 5]) {
      for (const passRate of options.passRates ?? [0.5, 0.8, 0.95]) {
        const design = {
          scenarios: unchanged(scenarios, passRate),
          world: IID,
          baseRuns: settings.baseRuns,
          headTrials,
        };
        const label = `no change: ${scenarios} × ${headTrials} at ${passRate}`;
        falseFailures.push({
          scenarios,
          headTrials,
          passRate,
          ...simulateCell(design, settings, label).outcome,
        });
      }
    }
  }

  const worlds: WorldCell[] = [];
  const worldScenarios = options.worldScenarios ?? 20;
  for (const world of options.worlds ?? REAL_WORLDS) {
    for (const baseRuns of options.baseRunCounts ?? [1, 2, 4, 8, DEFAULT_BASELINE_RUNS]) {
      for (const passRate of options.worldPassRates ?? [0.9, 0.7]) {
        const design = {
          scenarios: unchanged(worldScenarios, passRate),
          world,
          baseRuns,
          headTrials: settings.headTrials,
        };
        // 20 scenarios keep the label (and so the seed) the cells had before the count could change.
        const label =
          `no change: ${world.label}, ${baseRuns} base runs at ${passRate}` +
          (worldScenarios === 20 ? "" : `, ${worldScenarios} scenarios`);
        worlds.push({
          world: world.label,
          scenarios: worldScenarios,
          baseRuns,
          passRate,
          ...simulateCell(design, settings, label).outcome,
        });
      }
    }
  }

  const broadWorld = options.broadDropWorld ?? IID;
  const collapse = (world: RunWorld) => ({
    label: "one of 20: 0.9 → 0.1",
    world,
    scenarios: [{ base: 0.9, head: 0.1 }, ...unchanged(19, 0.9)],
    changed: 0,
  });
  const powerDesigns: { label: string; world: RunWorld; scenarios: Scenario[]; changed: number | null }[] = [
    collapse(IID),
    collapse(REAL_WORLDS[1]!),
    {
      label: "one of 20: 0.9 → 0.5",
      world: IID,
      scenarios: [{ base: 0.9, head: 0.5 }, ...unchanged(19, 0.9)],
      changed: 0,
    },
    {
      label: "one of 20: 1.0 → 0.7",
      world: IID,
      scenarios: [{ base: 1, head: 0.7 }, ...unchanged(19, 0.9)],
      changed: 0,
    },
    {
      label: "one of 20: 0.8 → 0.7",
      world: IID,
      scenarios: [{ base: 0.8, head: 0.7 }, ...unchanged(19, 0.9)],
      changed: 0,
    },
    {
      label: "all 20: 0.9 → 0.8",
      world: broadWorld,
      scenarios: Array.from({ length: 20 }, () => ({ base: 0.9, head: 0.8 })),
      changed: null,
    },
    {
      label: "all 20: 0.8 → 0.7",
      world: broadWorld,
      scenarios: Array.from({ length: 20 }, () => ({ base: 0.8, head: 0.7 })),
      changed: null,
    },
  ];
  const wanted = options.powerLabels;
  const power = powerDesigns
    .filter((d) => !wanted || wanted.some((w) => d.label.includes(w)))
    .map(({ label, world, scenarios, changed }) => {
      const design = { scenarios, world, baseRuns: settings.baseRuns, headTrials: settings.headTrials };
      const { outcome, flagged } = simulateCell(design, settings, `${label} (${world.label})`, changed);
      return {
        label,
        world: world.label,
        scenarios: scenarios.length,
        flaggedRate: changed === null ? null : flagged,
        ...outcome,
      };
    });
  return { settings, falseFailures, worlds, power };
}

const POWER_CACHE = new Map<string, number | null>();

/** Whether a PR that did not fail would be called conclusive: decide()'s rule (inconclusiveGrounds). */
function isConclusive(settings: Settings, design: CellDesign, icc: number, runs: number, level: number) {
  const key = `${runs}:${design.headTrials}:${settings.extraTrials}:${icc}:${level}`;
  let power = POWER_CACHE.get(key);
  if (power === undefined) {
    power = collapsePower({
      runTrials: Array.from({ length: runs }, () => design.headTrials),
      headTrials: design.headTrials,
      extraTrials: settings.extraTrials,
      icc,
      level,
    });
    POWER_CACHE.set(key, power);
  }
  return inconclusiveGrounds({ baseRuns: runs, collapsePower: power, notCompared: 0 }).length === 0;
}

function simulateCell(
  design: CellDesign,
  settings: Settings,
  label: string,
  changed: number | null = null,
): { outcome: CellOutcome; flagged: number } {
  const rng = createRng(deriveSeed(settings.seed, label));
  const { scenarios, world, baseRuns, headTrials } = design;
  const extraTrials = settings.extraTrials;
  const baseMeans = scenarios.map((s) => s.base);
  const headMeans = scenarios.map((s) => s.head);
  const tally = {
    failed: 0,
    primary: 0,
    suite: 0,
    inconclusive: 0,
    trials: 0,
    fixed: 0,
    adaptiveOnly: 0,
    flagged: 0,
    icc: 0,
    improved: 0,
  };
  for (let run = 0; run < settings.runs; run++) {
    const runCounts: RunCount[][] = scenarios.map(() => []);
    for (let r = 0; r < baseRuns; r++) {
      drawRunRates(rng, baseMeans, world, r, baseRuns).forEach((rate, s) => {
        runCounts[s]!.push({ passed: binomial(rng, headTrials, rate), trials: headTrials });
      });
    }
    const headRates = drawRunRates(rng, headMeans, world, baseRuns, baseRuns);
    const first = scenarios.map((_, s) => {
      const runs = runCounts[s]!;
      return {
        basePassed: runs.reduce((sum, c) => sum + c.passed, 0),
        baseTrials: runs.reduce((sum, c) => sum + c.trials, 0),
        headPassed: binomial(rng, headTrials, headRates[s]!),
        headTrials,
      };
    });
    const extraPassed = headRates.map((rate) => binomial(rng, extraTrials, rate));
    const screened = extraTrials > 0 ? screenForExtraTrials(first) : first.map(() => false);
    const variation = assumeRunVariation(runCounts, settings.assumedIcc ?? undefined);
    const complete = (i: number, extended: boolean): ScenarioCounts => ({
      ...first[i]!,
      headPassed: first[i]!.headPassed + (extended ? extraPassed[i]! : 0),
      headTrials: headTrials + (extended ? extraTrials : 0),
      initialHeadPassed: first[i]!.headPassed,
      initialHeadTrials: headTrials,
      baseRuns: runCounts[i]!,
      ...(extraTrials > 0 ? { extended } : {}),
    });
    const options = {
      alpha: settings.alpha,
      suiteAlpha: settings.suiteAlpha,
      icc: variation.iccUsed,
      suiteForm: settings.suiteForm,
      extrasStage: settings.extrasStage,
    };
    const adaptive = decideRegression(
      first.map((_, i) => complete(i, screened[i]!)),
      options,
    );
    const fixed = decideRegression(
      first.map((_, i) => complete(i, extraTrials > 0)),
      options,
    );
    tally.icc += variation.iccUsed;
    // The improvement decision on the same counts, as decide() makes it beside the regression one.
    const improvement = decideImprovement(
      first.map((_, i) => complete(i, screened[i]!)),
      { alpha: settings.alpha, suiteAlpha: settings.suiteAlpha, icc: variation.iccUsed },
    );
    if (improvement.suite.improved || improvement.scenarios.some((s) => s.improved)) tally.improved++;
    if (adaptive.failed) tally.failed++;
    else if (
      !isConclusive(
        settings,
        design,
        variation.iccUsed,
        variation.runs,
        adaptive.primaryAlpha / scenarios.length,
      )
    ) {
      tally.inconclusive++;
    }
    if (adaptive.scenarios.some((s) => s.regressed)) tally.primary++;
    if (adaptive.suite.rejected) tally.suite++;
    if (fixed.failed) tally.fixed++;
    adaptive.scenarios.forEach((s, i) => {
      if (s.regressed && !fixed.scenarios[i]!.regressed) tally.adaptiveOnly++;
    });
    if (changed !== null && adaptive.scenarios[changed]!.regressed) tally.flagged++;
    tally.trials += screened.reduce((sum, extended) => sum + headTrials + (extended ? extraTrials : 0), 0);
  }
  const runs = settings.runs;
  return {
    outcome: {
      failedRate: tally.failed / runs,
      primaryRate: tally.primary / runs,
      suiteRate: tally.suite / runs,
      inconclusiveRate: tally.inconclusive / runs,
      headTrialsPerPr: tally.trials / runs,
      meanIcc: tally.icc / runs,
      fixedDesignFailedRate: tally.fixed / runs,
      adaptiveOnlyFlags: tally.adaptiveOnly,
      improvedRate: tally.improved / runs,
    },
    flagged: tally.flagged / runs,
  };
}

const percent = (x: number) => `${(100 * x).toFixed(1)}%`;

/** The tables as Markdown, as the bench prints them and docs/statistics.md quotes them. */
export function formatDecisionSimulation(tables: DecisionSimulationTables): string {
  const s = tables.settings;
  const lines = [
    `Settings: ${s.runs} simulated PRs a cell, seed ${s.seed}; ${s.baseRuns} base runs of ${s.headTrials} trials ` +
      `(unless the row says otherwise); +${s.extraTrials} extra head trials for screened scenarios; alpha ${s.alpha} ` +
      `(suite test ${s.suiteAlpha}, per-scenario family ${+(s.alpha - s.suiteAlpha).toFixed(4)}); suite test ${s.suiteForm}; ` +
      `${s.assumedIcc === null ? "ICC estimated from the base runs" : `ICC assumed ${s.assumedIcc}`}.`,
  ];
  if (tables.falseFailures.length > 0) {
    lines.push(
      "",
      "False failures with nothing changed, independent trials (target ≤ 5%):",
      "",
      "| scenarios | head trials | pass rate | failed | per-scenario | suite | fixed design | head trials/PR |",
      "|---:|---:|---:|---:|---:|---:|---:|---:|",
      ...tables.falseFailures.map(
        (c) =>
          `| ${c.scenarios} | ${c.headTrials} | ${c.passRate} | ${percent(c.failedRate)} | ${percent(c.primaryRate)} | ` +
          `${percent(c.suiteRate)} | ${percent(c.fixedDesignFailedRate)} | ${c.headTrialsPerPr.toFixed(1)} |`,
      ),
    );
  }
  if (tables.worlds.length > 0) {
    lines.push(
      "",
      `False failures with nothing changed, runs as they really differ (${tables.worlds[0]!.scenarios} scenarios × ${s.headTrials} trials; target ≤ 5%):`,
      "",
      "| world | base runs | pass rate | failed | per-scenario | suite | inconclusive | ICC assumed (mean) |",
      "|---|---:|---:|---:|---:|---:|---:|---:|",
      ...tables.worlds.map(
        (c) =>
          `| ${c.world} | ${c.baseRuns} | ${c.passRate} | ${percent(c.failedRate)} | ${percent(c.primaryRate)} | ` +
          `${percent(c.suiteRate)} | ${percent(c.inconclusiveRate)} | ${c.meanIcc.toFixed(3)} |`,
      ),
    );
  }
  if (tables.power.length > 0) {
    lines.push(
      "",
      `Power, ${s.baseRuns} base runs, ${s.headTrials} head trials per scenario (+${s.extraTrials}):`,
      "",
      "| change | world | failed | changed scenario flagged | suite | inconclusive | head trials/PR |",
      "|---|---|---:|---:|---:|---:|---:|",
      ...tables.power.map(
        (c) =>
          `| ${c.label} | ${c.world} | ${percent(c.failedRate)} | ${c.flaggedRate === null ? "—" : percent(c.flaggedRate)} | ` +
          `${percent(c.suiteRate)} | ${percent(c.inconclusiveRate)} | ${c.headTrialsPerPr.toFixed(1)} |`,
      ),
    );
  }
  const adaptiveOnly = [...tables.falseFailures, ...tables.worlds, ...tables.power].reduce(
    (n, c) => n + c.adaptiveOnlyFlags,
    0,
  );
  lines.push(
    "",
    `Scenario flags of the adaptive design that the fixed design did not raise: ${adaptiveOnly}.`,
  );
  // Improvements never gate; with nothing changed, 🟢 is as false as a failure (target ≤ 5%).
  const unchanged = [...tables.falseFailures, ...tables.worlds];
  if (unchanged.length > 0) {
    const worst = unchanged.reduce((a, b) => (b.improvedRate > a.improvedRate ? b : a));
    const where =
      "world" in worst
        ? `${worst.world}, ${worst.baseRuns} base runs at ${worst.passRate}`
        : `${worst.scenarios} × ${worst.headTrials} at ${worst.passRate}`;
    lines.push(
      "",
      `False improvements (🟢 with nothing changed; target ≤ 5%): at most ${percent(worst.improvedRate)} (${where}); ` +
        `mean ${percent(unchanged.reduce((sum, c) => sum + c.improvedRate, 0) / unchanged.length)} over ${unchanged.length} cells.`,
    );
  }
  return lines.join("\n");
}
