/**
 * What the ✅ line may claim: how often the suite test catches a broad drop at the run's own design,
 * by seeded simulation through the test the decision runs. Shipped with the decision (the bench's
 * wider simulation, decision-simulation.ts, is not).
 */
import { screenForExtraTrials } from "./regression-decision.js";
import { type ClusteredSuiteInput, clusteredSuiteTest, type RunCount } from "./run-clusters.js";
import { binomial, drawRunRates, type RunWorld } from "./simulated-runs.js";
import { createRng, DEFAULT_SEED, deriveSeed } from "./stats.js";

/** The broad drop the bench judges a design by: every scenario 0.9 → 0.8 ("all 20: 0.9 → 0.8"). */
const PLANNED_BROAD_DROP = { baseRate: 0.9, headRate: 0.8 } as const;

/** Simulated PRs behind a design's broad-drop power: its Monte Carlo error is at most ±3.5 points (one sd). */
const BROAD_DROP_DRAWS = 200;

export interface BroadDropDesign {
  scenarios: number;
  /** Trials of each base run, oldest first. */
  runTrials: readonly number[];
  /** The head's first trials per scenario. */
  headTrials: number;
  /** Extra trials a screened scenario gets (0: no screen). */
  extraTrials: number;
  /** The ICC the tests assume; the simulated runs draw their rates at it too. */
  icc: number;
  /** The suite test's level (its share of α). */
  suiteAlpha: number;
  /**
   * Only the draws whose base runs sent the suite test to its drift branch (a downward slope: it then
   * compares the head with the trend's prediction, which sees less), as a PR whose test took that branch
   * must be judged; absent: every draw.
   */
  trendBranch?: boolean;
}

const BROAD_DROP_CACHE = new Map<string, number>();

/**
 * How often the suite test catches the broad drop (PLANNED_BROAD_DROP in every scenario) at this design:
 * seeded simulation of its draws — base runs and the head each a day at the design's ICC, the screen,
 * the extra trials as its second stage — through the suite test the decision runs. The per-scenario
 * family is left out: for a 10-point drop it adds little (BENCHMARKS.md, "Past the grid": at 12 base
 * runs the decision failed 52.5% of them, the suite test 51.0%). Deterministic: seeded by the design.
 */
export function broadDropPower(design: BroadDropDesign): number {
  const key = JSON.stringify(design);
  const cached = BROAD_DROP_CACHE.get(key);
  if (cached !== undefined) return cached;
  const { scenarios, runTrials, headTrials, extraTrials, icc, suiteAlpha, trendBranch } = design;
  const rng = createRng(deriveSeed(DEFAULT_SEED, `broad drop ${key}`));
  const world: RunWorld = { label: "design", icc, runEffectSd: 0, drift: 0 };
  const base = Array.from({ length: scenarios }, () => PLANNED_BROAD_DROP.baseRate);
  const head = Array.from({ length: scenarios }, () => PLANNED_BROAD_DROP.headRate);
  const clustered = icc > 0 || runTrials.length > 1;
  let caught = 0;
  let counted = 0;
  // Conditioned on the branch, draw until BROAD_DROP_DRAWS took it (the drift branch is taken in about
  // half of flat-base draws), within a bound for a branch the design almost never takes.
  for (let draw = 0; counted < BROAD_DROP_DRAWS && draw < BROAD_DROP_DRAWS * 10; draw++) {
    const runs: RunCount[][] = base.map(() => []);
    runTrials.forEach((trials, r) => {
      drawRunRates(rng, base, world, r, runTrials.length).forEach((rate, s) => {
        runs[s]!.push({ passed: binomial(rng, trials, rate), trials });
      });
    });
    const headRates = drawRunRates(rng, head, world, runTrials.length, runTrials.length);
    const first = runs.map((r, s) => ({
      basePassed: r.reduce((sum, c) => sum + c.passed, 0),
      baseTrials: r.reduce((sum, c) => sum + c.trials, 0),
      headPassed: binomial(rng, headTrials, headRates[s]!),
      headTrials,
    }));
    const screened = extraTrials > 0 ? screenForExtraTrials(first) : first.map(() => false);
    const strata: ClusteredSuiteInput[] = first.map((c, s) => ({
      ...c,
      baseRuns: runs[s]!,
      ...(screened[s] ? { extraTrials, extraPassed: binomial(rng, extraTrials, headRates[s]!) } : {}),
    }));
    const suite = clusteredSuiteTest(strata, icc, clustered ? "clustered" : "exact");
    if (trendBranch !== undefined && (suite.method === "trend") !== trendBranch) continue;
    counted++;
    if (suite.pValue <= suiteAlpha) caught++;
  }
  const power = counted > 0 ? caught / counted : 0;
  if (BROAD_DROP_CACHE.size > 1000) BROAD_DROP_CACHE.clear();
  BROAD_DROP_CACHE.set(key, power);
  return power;
}
