/**
 * `fail-on: regression`: fail the check only on what the data support: a statistically significant
 * regression in a chosen metric, or a scenario that passed every baseline trial and fails every head
 * trial. Noise (inconclusive, too few samples) never fails the check.
 */
import { ConfigError } from "../errors.js";
import { adjustPValues } from "../stats/stats.js";
import { PASS_RATE } from "./metrics.js";
import type {
  Comparison,
  Correction,
  MetricComparison,
  ScenarioComparison,
  SuiteMetricComparison,
} from "./types.js";

export interface RegressionGateOptions {
  /** Significance level; default the comparison's. */
  alpha?: number;
  /** Metrics whose regressions fail the check; default pass_rate only. */
  metrics?: string[];
}

/** One thing that fails the check; render/regression-reasons.ts says it in words. */
export type Regression =
  | {
      kind: "metric";
      /** The scenario's key; null for the suite-level test. */
      scenario: string | null;
      test: MetricComparison | SuiteMetricComparison;
      /** The p-value corrected over the gate's family of tests. */
      p_adjusted: number;
    }
  | { kind: "newly_failing"; scenario: ScenarioComparison };

export interface RegressionFindings {
  failed: boolean;
  alpha: number;
  correction: Correction;
  /** How many tests the gate corrected over. */
  tests: number;
  regressions: Regression[];
}

/**
 * The family of tests is the one the gate acts on: the per-scenario and suite-level tests of the
 * chosen metrics, corrected together with the comparison's method (Holm or BH). Correcting over only
 * these keeps the gate's power where the user put it, rather than diluting pass_rate by every
 * informational metric.
 */
export function findRegressions(
  comparison: Comparison,
  options: RegressionGateOptions = {},
): RegressionFindings {
  const alpha = options.alpha ?? comparison.settings.alpha;
  if (!(alpha > 0 && alpha < 1))
    throw new ConfigError(`alpha must be between 0 and 1, got ${alpha}`, "alpha");
  const metrics = options.metrics ?? [PASS_RATE];
  for (const name of metrics) {
    if (!comparison.settings.metrics.includes(name)) {
      throw new ConfigError(
        `metric "${name}" was not compared; compared metrics: ${comparison.settings.metrics.join(", ")}`,
        "metrics",
      );
    }
  }

  type Candidate = { scenario: string | null; test: MetricComparison | SuiteMetricComparison };
  const candidates: Candidate[] = [];
  for (const s of comparison.scenarios) {
    for (const m of s.metrics) {
      if (metrics.includes(m.metric) && m.p_value !== null && m.verdict !== "too_few_samples") {
        candidates.push({ scenario: s.key, test: m });
      }
    }
  }
  for (const m of comparison.suite.metrics) {
    if (metrics.includes(m.metric) && m.p_value !== null && m.verdict !== "too_few_samples") {
      candidates.push({ scenario: null, test: m });
    }
  }
  const correction = comparison.settings.correction;
  const adjusted = adjustPValues(
    candidates.map((c) => c.test.p_value!),
    correction,
  );

  const regressions: Regression[] = [];
  candidates.forEach(({ scenario, test }, i) => {
    const p = adjusted[i]!;
    const worse =
      test.delta !== null && (test.direction === "higher_is_better" ? test.delta < 0 : test.delta > 0);
    if (worse && p <= alpha) regressions.push({ kind: "metric", scenario, test, p_adjusted: p });
  });
  for (const s of comparison.scenarios) {
    if (s.status === "newly_failing") regressions.push({ kind: "newly_failing", scenario: s });
  }
  return { failed: regressions.length > 0, alpha, correction, tests: candidates.length, regressions };
}
