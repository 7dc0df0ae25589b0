/**
 * Research only (not shipped; issue 34, item 5): where the per-scenario tests' false failures come from
 * in a cell, and what levers on the per-scenario side would buy and cost. docs/statistics.md ("Past
 * the grid", "The per-scenario side") quotes what it measured.
 *
 * It draws the PRs exactly as the bench's simulation does (`simulateCell` in
 * src/stats/decision-simulation.ts: the same cell label, so the same seed and the same draws), decides
 * each with `decideRegression` and the ICC `assumeRunVariation` takes from the base runs, and then
 * re-runs the per-scenario family alone (Holm over the screened scenarios' `scenarioPValue`, at the
 * default α_P = 0.025) with other ICCs or another base, keeping the built suite test's verdict: a
 * variant's "failed" is its family's rejection or the built suite test's. Its first family is the
 * built one, checked PR by PR (`mismatches` must be 0).
 *
 *   npx tsx bench/per-scenario-side.spike.ts <world> <prs> <seed> [null|collapse|broad] [pass rate]
 *
 * world: `iid`, `icc05` (ICC 0.05), `combined` (day sd 0.3 + drift −3 points / 8 runs + ICC 0.05),
 * `icc05-day` (ICC 0.05 + day sd 0.3), `icc05-drift` (ICC 0.05 + drift −3), `icc20` (ICC 0.2).
 * 20 scenarios × 3 trials (+8 extra for screened ones), 12 base runs, as the defaults.
 */
import {
  DEFAULT_ALPHA,
  DEFAULT_EXTRA_TRIALS,
  DEFAULT_SUITE_ALPHA,
  decideRegression,
  type ScenarioCounts,
  scenarioPValue,
  screenForExtraTrials,
} from "../src/stats/regression-decision.js";
import {
  assumeRunVariation,
  betaBinomialPmf,
  DEFAULT_BASELINE_RUNS,
  type RunCount,
  roundIccUp,
  scenarioTestRuns,
} from "../src/stats/run-clusters.js";
import { binomial, DRIFT_WINDOW, drawRunRates, type RunWorld } from "../src/stats/simulated-runs.js";
import { adjustPValues, createRng, deriveSeed } from "../src/stats/stats.js";

const WORLDS: Record<string, RunWorld> = {
  iid: { label: "i.i.d.", icc: 0, runEffectSd: 0, drift: 0 },
  icc05: { label: "ICC 0.05", icc: 0.05, runEffectSd: 0, drift: 0 },
  icc20: { label: "ICC 0.2", icc: 0.2, runEffectSd: 0, drift: 0 },
  combined: { label: "day sd 0.3 + drift −3 + ICC 0.05", icc: 0.05, runEffectSd: 0.3, drift: -0.03 },
  "icc05-day": { label: "day sd 0.3 + ICC 0.05", icc: 0.05, runEffectSd: 0.3, drift: 0 },
  "icc05-drift": { label: "drift −3 + ICC 0.05", icc: 0.05, runEffectSd: 0, drift: -0.03 },
};

const [worldName = "combined", prsArg = "1000", seedArg = "20240502", mode = "null", rateArg = "0.9"] =
  process.argv.slice(2);
const world = WORLDS[worldName];
if (!world) throw new Error(`world must be one of ${Object.keys(WORLDS).join(", ")}, got ${worldName}`);
const prs = Number(prsArg);
const seed = Number(seedArg);
const passRate = Number(rateArg);
const BASE_RUNS = DEFAULT_BASELINE_RUNS;
const TRIALS = 3;
const SCENARIOS = 20;
const PRIMARY_ALPHA = DEFAULT_ALPHA - DEFAULT_SUITE_ALPHA;

// The label the bench's simulation gives the cell (decision-simulation.ts), so the draws are the same.
const cellLabel =
  mode === "collapse"
    ? `one of 20: 0.9 → 0.1 (${world.label})`
    : mode === "broad"
      ? `all 20: 0.9 → 0.8 (${world.label})`
      : `no change: ${world.label}, ${BASE_RUNS} base runs at ${passRate}`;
const baseMeans = Array.from({ length: SCENARIOS }, () => (mode === "null" ? passRate : 0.9));
const headMeans = baseMeans.map((m, i) =>
  mode === "broad" ? 0.8 : mode === "collapse" && i === 0 ? 0.1 : m,
);

/** The per-scenario family as decideRegression runs it, at a given ICC, on given base counts. */
function family(tested: readonly ScenarioCounts[], icc: number): boolean[] {
  const p = tested.map((c) => (c.extended ? scenarioPValue(c, icc) : 1));
  return adjustPValues(p, "holm").map((adjusted) => adjusted <= PRIMARY_ALPHA);
}

/** A scenario's base as its own test sees it: the newest runs, moved along a negative slope (as built). */
function testedBase(c: ScenarioCounts, slope: number): ScenarioCounts {
  const runs = scenarioTestRuns(c.baseRuns!);
  const passed = runs.reduce((s, r) => s + r.passed, 0);
  const trials = runs.reduce((s, r) => s + r.trials, 0);
  if (!(slope < 0)) return { ...c, baseRuns: runs, basePassed: passed, baseTrials: trials };
  const meanPosition = runs.reduce((s, r, i) => s + i * r.trials, 0) / trials;
  const shift = slope * (runs.length - meanPosition) * trials;
  return { ...c, baseRuns: runs, basePassed: Math.max(0, Math.round(passed + shift)), baseTrials: trials };
}

/**
 * The day variance τ² on the logit scale the suite levels show about their line, by moments (as the
 * suite test's drift branch estimates it), and the scenarios' mean p(1 − p); τ² is 0 unless the residual
 * spread is above its median under sampling (the pretest's point).
 */
function dayVariance(runCounts: readonly RunCount[][], icc: number): { tau2: number; pq: number } {
  const k = BASE_RUNS;
  const levels = Array.from(
    { length: k },
    (_, r) => runCounts.reduce((s, runs) => s + runs[r]!.passed / runs[r]!.trials, 0) / SCENARIOS,
  );
  const center = (k - 1) / 2;
  const mean = levels.reduce((s, v) => s + v, 0) / k;
  const sxx = levels.reduce((s, _, r) => s + (r - center) ** 2, 0);
  const slope = levels.reduce((s, v, r) => s + (r - center) * (v - mean), 0) / sxx;
  const spread = levels.reduce((s, v, r) => s + (v - mean - slope * (r - center)) ** 2, 0) / (k - 2);
  let sampling = 0;
  let pq = 0;
  for (const runs of runCounts) {
    const p = runs.reduce((s, r) => s + r.passed, 0) / runs.reduce((s, r) => s + r.trials, 0);
    sampling += (p * (1 - p) * (1 + (TRIALS - 1) * icc)) / TRIALS;
    pq += p * (1 - p);
  }
  sampling /= SCENARIOS ** 2;
  pq /= SCENARIOS;
  const medianRatio = (1 - 2 / (9 * (k - 2))) ** 3; // χ²_{K−2}/(K − 2), Wilson–Hilferty
  const tau2 = spread > sampling * medianRatio && pq > 0 ? Math.max(0, spread - sampling) / pq ** 2 : 0;
  return { tau2, pq };
}

/**
 * The ICC by maximum (pseudo-)likelihood: every scenario's runs beta-binomial at its pooled rate and one
 * common ICC, maximised on a grid of 0.005 steps in [0, 0.5]. A candidate for a less noisy estimate
 * than the ANOVA one near the ceiling, where most runs pass every trial.
 */
function likelihoodIcc(runCounts: readonly RunCount[][]): number {
  let best = 0;
  let bestLog = Number.NEGATIVE_INFINITY;
  for (let step = 0; step <= 100; step++) {
    const rho = step * 0.005;
    let log = 0;
    for (const runs of runCounts) {
      const rate = runs.reduce((s, r) => s + r.passed, 0) / runs.reduce((s, r) => s + r.trials, 0);
      if (rate <= 0 || rate >= 1) continue;
      const pmf = betaBinomialPmf(TRIALS, rate, rho);
      for (const r of runs) log += Math.log(pmf[r.passed]!);
    }
    if (log > bestLog) {
      bestLog = log;
      best = rho;
    }
  }
  return best;
}

const trueIcc = world.icc + world.runEffectSd ** 2 * passRate * (1 - passRate);
const tally = new Map<string, number>();
const count = (key: string) => tally.set(key, (tally.get(key) ?? 0) + 1);
let mismatches = 0;
let iccSum = 0;
const rng = createRng(deriveSeed(seed, cellLabel));
for (let pr = 0; pr < prs; pr++) {
  const runCounts: RunCount[][] = baseMeans.map(() => []);
  for (let r = 0; r < BASE_RUNS; r++) {
    drawRunRates(rng, baseMeans, world, r, BASE_RUNS).forEach((rate, s) => {
      runCounts[s]!.push({ passed: binomial(rng, TRIALS, rate), trials: TRIALS });
    });
  }
  const headRates = drawRunRates(rng, headMeans, world, BASE_RUNS, BASE_RUNS);
  const first = baseMeans.map((_, s) => ({
    basePassed: runCounts[s]!.reduce((sum, c) => sum + c.passed, 0),
    baseTrials: runCounts[s]!.reduce((sum, c) => sum + c.trials, 0),
    headPassed: binomial(rng, TRIALS, headRates[s]!),
    headTrials: TRIALS,
  }));
  const extraPassed = headRates.map((rate) => binomial(rng, DEFAULT_EXTRA_TRIALS, rate));
  const screened = screenForExtraTrials(first);
  const variation = assumeRunVariation(runCounts);
  const counts: ScenarioCounts[] = first.map((f, i) => ({
    ...f,
    headPassed: f.headPassed + (screened[i] ? extraPassed[i]! : 0),
    headTrials: TRIALS + (screened[i] ? DEFAULT_EXTRA_TRIALS : 0),
    initialHeadPassed: f.headPassed,
    initialHeadTrials: TRIALS,
    baseRuns: runCounts[i]!,
    extended: screened[i]!,
  }));
  const icc = variation.iccUsed;
  iccSum += icc;
  const decision = decideRegression(counts, { icc });
  const suite = decision.suite;
  const slope = suite.method === "trend" ? (suite.trend ?? 0) : 0;
  const asBuilt = counts.map((c) => testedBase(c, slope));
  const { tau2, pq } = dayVariance(runCounts, icc);
  const variants: Array<[string, readonly ScenarioCounts[], number]> = [
    ["built", asBuilt, icc],
    ["ICC floor 0.02", asBuilt, Math.max(icc, 0.02)],
    ["ICC floor 0.03", asBuilt, Math.max(icc, 0.03)],
    ["ICC floor 0.04", asBuilt, Math.max(icc, 0.04)],
    ["ICC floor 0.05", asBuilt, Math.max(icc, 0.05)],
    ["ICC + τ²·p(1−p) when the spread shows a day", asBuilt, Math.min(0.99, roundIccUp(icc + tau2 * pq))],
    ["max(ICC, τ²·p(1−p))", asBuilt, Math.max(icc, roundIccUp(tau2 * pq))],
    ["the ICC by beta-binomial likelihood", asBuilt, roundIccUp(likelihoodIcc(runCounts))],
    ["oracle: the world's ICC (+ the day's τ²·p(1−p))", asBuilt, roundIccUp(trueIcc)],
    [
      "oracle: base moved along the world's drift",
      counts.map((c) => testedBase(c, world.drift / DRIFT_WINDOW)),
      icc,
    ],
  ];
  for (const [name, tested, variantIcc] of variants) {
    const flags = family(tested, variantIcc);
    if (name === "built" && flags.some((f, i) => f !== decision.scenarios[i]!.regressed)) mismatches++;
    const primary = flags.some(Boolean);
    if (primary) count(`${name}|per-scenario`);
    if (primary || suite.rejected) count(`${name}|failed`);
    if (mode === "collapse" && flags[0]) count(`${name}|collapsed scenario flagged`);
  }
  if (decision.scenarios.some((s) => s.regressed)) {
    count(`built per-scenario, by the suite's branch|${suite.method}`);
    count(`built per-scenario, by the ICC assumed|${icc <= world.icc ? `≤ ${world.icc}` : `> ${world.icc}`}`);
    if (!suite.rejected) count("built per-scenario, the suite test not rejecting|all");
  }
  count(`PRs by the suite's branch|${suite.method}`);
  count(`PRs by the ICC assumed|${icc <= world.icc ? `≤ ${world.icc}` : `> ${world.icc}`}`);
}

const percent = (n: number) => `${((100 * n) / prs).toFixed(2)}%`;
process.stdout.write(
  `${world.label}, ${mode}, pass rate ${passRate}, ${prs} PRs, seed ${seed}: mean ICC assumed ${(iccSum / prs).toFixed(4)}, mismatches ${mismatches}\n`,
);
for (const [key, n] of [...tally].sort(([a], [b]) => a.localeCompare(b))) {
  const [name, what] = key.split("|");
  process.stdout.write(`${name!.padEnd(52)} ${what!.padEnd(28)} ${String(n).padStart(5)} ${percent(n)}\n`);
}
if (mismatches > 0) process.exitCode = 1;
