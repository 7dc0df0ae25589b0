/**
 * The per-scenario test's rejection region for a design, found once. What a design can detect
 * (detection-power.ts) sums the chance of every table the test flags; asking the test table by table
 * cost one exact p-value per baseline total, and each p-value enumerates every table of the design
 * again, so the cost grew as the cube of the trial counts (10 s and more at 96 base trials against
 * 10 + 10 head trials, on every decision).
 *
 * The region is a threshold on the test's statistic. Boschloo's test and its clustered form
 * (run-clusters.ts) order tables by Fisher's one-sided p, T, and a table's p-value is the largest
 * chance, over the nuisance rate, of the tables with T at most its own: the regions of tables in
 * order of T are nested, so their p-values rise with T. The flagged tables are therefore those with T
 * at most some T*, and T* is found by a search over the tables sorted by T that asks the test itself
 * (scenarioPValue) for a few p-values: the region is the test's own, not an approximation of it.
 * A cheap lower bound of every table's p-value (the chance of its region's sorted prefix at 99
 * nuisance rates) tells where to start, so most designs need two or three exact p-values.
 */
import { fisherOneSidedP } from "./exact-2x2.js";
import { scenarioPValue } from "./regression-decision.js";
import { betaBinomialPmf } from "./run-clusters.js";

export interface RegionDesign {
  /** Trials of each base run (the pooled baseline is their sum). */
  runTrials: readonly number[];
  /** The head's trials the test sees (first and extra ones: one run). */
  headTrials: number;
  /** The intra-run correlation the test assumes (0: Boschloo's test). */
  icc: number;
  /** The level a table's p-value is compared with. */
  level: number;
}

/** The lower bound that narrows the search takes the nuisance rates 1/100 … 99/100. */
const BOUND_STEPS = 100;
/** A lower bound this close above the level does not rule a table out (its sums are in another order). */
const BOUND_MARGIN = 1 + 1e-9;

interface OrderedTables {
  /** Fisher's one-sided p of table (x head passes, y base passes), at x · (baseTrials + 1) + y. */
  statistic: Float64Array;
  /** Table indices, T ascending. */
  order: Uint32Array;
}

const ORDERS = new Map<string, OrderedTables>();
const BOUNDARIES = new Map<string, Int32Array>();

/**
 * For every baseline total y (0..the base runs' trials), the most head passes the test flags against
 * it, or −1. The test flags a table exactly when its p-value is at most the level; the boundary does
 * not fall as y grows. Cached per design: the array is shared, read it only.
 */
export function rejectionBoundary(design: RegionDesign): Int32Array {
  const { runTrials, headTrials, icc, level } = design;
  const key = `${icc}:${runTrials.join(",")}:${headTrials}:${level}`;
  const cached = BOUNDARIES.get(key);
  if (cached) return cached;
  const baseTrials = runTrials.reduce((s, n) => s + n, 0);
  const width = baseTrials + 1;
  const { statistic, order } = orderTables(headTrials, baseTrials);
  const baseRuns = runTrials.map((trials) => ({ passed: 0, trials }));
  // Whether the test flags the table at this place of the order (as the decision asks it).
  const flagged = (place: number): boolean => {
    const table = order[place]!;
    const counts = {
      basePassed: table % width,
      baseTrials,
      headPassed: Math.floor(table / width),
      headTrials,
      baseRuns,
    };
    return scenarioPValue(counts, icc) <= level;
  };
  const last = lastFlagged(flagged, boundStart(design, order), order.length);
  const threshold = last < 0 ? Number.NEGATIVE_INFINITY : statistic[order[last]!]!;
  const boundary = new Int32Array(width).fill(-1);
  for (let y = 0; y < width; y++) {
    // T rises with the head's passes: the flagged ones are a run from 0.
    let x = -1;
    while (x < headTrials && statistic[(x + 1) * width + y]! <= threshold) x++;
    boundary[y] = x;
  }
  if (BOUNDARIES.size > 2_000) BOUNDARIES.clear();
  BOUNDARIES.set(key, boundary);
  return boundary;
}

/**
 * The last place of the order the test flags, or −1 (flagging stops at some place and never resumes:
 * the p-values rise along the order). `start` is where the lower bound says it ends; the answer rests
 * on the test's own p-values only: from `start` it gallops up while flagged, or down while not, and
 * bisects between the last flagged place and the first one not flagged.
 */
function lastFlagged(flagged: (place: number) => boolean, start: number, places: number): number {
  const from = Math.max(0, start);
  let low: number; // flagged, or −1
  let high: number; // not flagged, or `places`
  if (from < places && flagged(from)) {
    low = from;
    high = from + 1;
    for (let step = 1; high < places && flagged(high); step *= 2) {
      low = high;
      high = Math.min(places, low + step);
    }
  } else {
    high = from;
    low = high - 1;
    for (let step = 1; low >= 0 && !flagged(low); step *= 2) {
      high = low;
      low = Math.max(-1, high - step);
    }
  }
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (flagged(middle)) low = middle;
    else high = middle;
  }
  return low;
}

/** Every table of the design, sorted by the test's statistic (computed as the test computes it). */
function orderTables(headTrials: number, baseTrials: number): OrderedTables {
  const key = `${headTrials}:${baseTrials}`;
  const cached = ORDERS.get(key);
  if (cached) return cached;
  const width = baseTrials + 1;
  const statistic = new Float64Array((headTrials + 1) * width);
  for (let x = 0; x <= headTrials; x++) {
    for (let y = 0; y <= baseTrials; y++) {
      statistic[x * width + y] = fisherOneSidedP({ basePassed: y, baseTrials, headPassed: x, headTrials });
    }
  }
  const order = Uint32Array.from(statistic.keys()).sort((a, b) => statistic[a]! - statistic[b]!);
  const tables = { statistic, order };
  if (ORDERS.size > 64) ORDERS.clear();
  ORDERS.set(key, tables);
  return tables;
}

/**
 * The last place whose p-value could be at most the level: a table's p-value is at least the chance,
 * at any one nuisance rate, of the tables before it in the order (they are all in its region), so a
 * place where that chance exceeds the level at some rate is not flagged, nor any place after it.
 */
function boundStart(design: RegionDesign, order: Uint32Array): number {
  const { runTrials, headTrials, icc, level } = design;
  const baseTrials = runTrials.reduce((s, n) => s + n, 0);
  const width = baseTrials + 1;
  let end = order.length - 1;
  for (let step = 1; step < BOUND_STEPS; step++) {
    const mean = step / BOUND_STEPS;
    const head = betaBinomialPmf(headTrials, mean, icc);
    const base = icc <= 0 ? betaBinomialPmf(baseTrials, mean, 0) : pooledRunsLaw(runTrials, mean, icc);
    let sum = 0;
    for (let place = 0; place <= end; place++) {
      const table = order[place]!;
      sum += head[Math.floor(table / width)]! * base[table % width]!;
      if (sum > level * BOUND_MARGIN) {
        end = place - 1;
        break;
      }
    }
    if (end < 0) return -1;
  }
  // Tied tables share their region and p-value, so a place inside a run of ties is as good as any.
  return end;
}

/** The law of the pooled base passes: the sum of independent runs, each beta-binomial with this mean and ICC. */
export function pooledRunsLaw(runTrials: readonly number[], mean: number, icc: number): Float64Array {
  let law = new Float64Array([1]);
  for (const n of runTrials) {
    const run = betaBinomialPmf(n, mean, icc);
    const next = new Float64Array(law.length + n);
    law.forEach((p, i) => {
      for (let j = 0; j <= n; j++) next[i + j]! += p * run[j]!;
    });
    law = next;
  }
  return law;
}
