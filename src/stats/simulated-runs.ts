/**
 * Simulated base-branch and head runs: each run draws its scenarios' pass rates for the day (an
 * intra-run correlation, a suite-wide run effect, a drift), and its trials are binomial at them. Used
 * by the decision (its broad-drop power, broad-drop-power.ts) and by the bench's simulation
 * (decision-simulation.ts). Pure: the randomness is the seeded Rng passed in.
 */
import type { Rng } from "./stats.js";

/** How a run's pass rates differ from the scenario's long-run rate. */
export interface RunWorld {
  label: string;
  /** Intra-run correlation: each run's rate ~ Beta with this ICC around the scenario's. */
  icc: number;
  /** Standard deviation of a suite-wide run effect on the logit scale. */
  runEffectSd: number;
  /** Change of every rate over 8 runs, linear in run order, the head last (−0.05: −5 points every 8 runs). */
  drift: number;
}

/** Runs over which a world's `drift` accrues (−5 points every 8 runs, however many are pooled). */
export const DRIFT_WINDOW = 8;

/** One run's pass rate for each scenario, `position` runs after the oldest base run (the head is last). */
export function drawRunRates(
  rng: Rng,
  means: readonly number[],
  world: RunWorld,
  position: number,
  runs: number,
) {
  const effect = world.runEffectSd > 0 ? world.runEffectSd * normal(rng) : 0;
  const shift = (world.drift * (position - runs)) / DRIFT_WINDOW;
  return means.map((mean) => {
    let rate = clamp(mean + shift, 0, 1);
    if (effect !== 0 && rate > 0 && rate < 1)
      rate = 1 / (1 + Math.exp(-(Math.log(rate / (1 - rate)) + effect)));
    if (world.icc > 0 && rate > 0 && rate < 1) {
      const scale = (1 - world.icc) / world.icc;
      rate = betaDraw(rng, rate * scale, (1 - rate) * scale);
    }
    return rate;
  });
}

/** A binomial draw: n trials at rate p. */
export function binomial(rng: Rng, n: number, p: number): number {
  let passed = 0;
  for (let i = 0; i < n; i++) if (rng() < p) passed++;
  return passed;
}

function clamp(x: number, low: number, high: number): number {
  return Math.min(high, Math.max(low, x));
}

/** A standard normal draw (Box–Muller). */
function normal(rng: Rng): number {
  return Math.sqrt(-2 * Math.log(1 - rng())) * Math.cos(2 * Math.PI * rng());
}

/** A Gamma(shape, 1) draw (Marsaglia & Tsang 2000; shape < 1 by the boost u^(1/shape)). */
function gammaDraw(rng: Rng, shape: number): number {
  if (shape < 1) return gammaDraw(rng, shape + 1) * (1 - rng()) ** (1 / shape);
  const d = shape - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  for (;;) {
    let x: number;
    let v: number;
    do {
      x = normal(rng);
      v = 1 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const u = 1 - rng();
    if (u < 1 - 0.0331 * x ** 4 || Math.log(u) < 0.5 * x * x + d * (1 - v + Math.log(v))) return d * v;
  }
}

function betaDraw(rng: Rng, a: number, b: number): number {
  const x = gammaDraw(rng, a);
  const y = gammaDraw(rng, b);
  return x / (x + y);
}
