/**
 * `fail-on: regression`: fail the check only on what the data support: a statistically significant
 * regression in a chosen metric, or a scenario that passed every baseline trial and fails every head
 * trial. Noise (inconclusive, too few samples) never fails the check.
 */
import { ConfigError } from "../errors.js";
import { adjustPValues } from "../stats/stats.js";
import { describeCorrection, formatChange } from "./format.js";
import { PASS_RATE } from "./metrics.js";
import type { Comparison, MetricComparison, SuiteMetricComparison } from "./types.js";

export interface RegressionGateOptions {
  /** Significance level; default the comparison's. */
  alpha?: number;
  /** Metrics whose regressions fail the check; default pass_rate only. */
  metrics?: string[];
}

export interface RegressionDecision {
  failed: boolean;
  reasons: string[];
}

/**
 * The family of tests is the one the gate acts on: the per-scenario and suite-level tests of the
 * chosen metrics, corrected together with the comparison's method (Holm or BH). Correcting over only
 * these keeps the gate's power where the user put it, rather than diluting pass_rate by every
 * informational metric.
 */
export function decideRegressionFailure(
  comparison: Comparison,
  options: RegressionGateOptions = {},
): RegressionDecision {
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

  type Candidate = { scope: string; test: MetricComparison | SuiteMetricComparison };
  const candidates: Candidate[] = [];
  for (const s of comparison.scenarios) {
    for (const m of s.metrics) {
      if (metrics.includes(m.metric) && m.p_value !== null && m.verdict !== "too_few_samples") {
        candidates.push({ scope: `\`${s.key}\``, test: m });
      }
    }
  }
  for (const m of comparison.suite.metrics) {
    if (metrics.includes(m.metric) && m.p_value !== null && m.verdict !== "too_few_samples") {
      candidates.push({ scope: "suite", test: m });
    }
  }
  const adjusted = adjustPValues(
    candidates.map((c) => c.test.p_value!),
    comparison.settings.correction,
  );
  const method = describeCorrection(comparison.settings.correction, candidates.length);

  const reasons: string[] = [];
  candidates.forEach(({ scope, test }, i) => {
    const p = adjusted[i]!;
    const worse =
      test.delta !== null && (test.direction === "higher_is_better" ? test.delta < 0 : test.delta > 0);
    if (worse && p <= alpha) {
      reasons.push(
        `${scope}: ${test.metric} regressed ${formatChange(test)}; adjusted p = ${formatP(p)} ≤ ${alpha} (${method})`,
      );
    }
  });
  for (const s of comparison.scenarios) {
    if (s.status !== "newly_failing") continue;
    const notes: string[] = [];
    if (s.base.passed === 1 && s.head.failed === 1) notes.push("one trial each, which may be noise");
    if (s.content_changed) notes.push("the scenario's content changed too");
    const note = notes.length ? ` (${notes.join("; ")})` : "";
    reasons.push(
      `\`${s.key}\`: newly failing: passed ${s.base.passed}/${s.base.passed} baseline trials, failed ${s.head.failed}/${s.head.failed} head trials${note}`,
    );
  }
  return { failed: reasons.length > 0, reasons };
}

function formatP(p: number): string {
  return p < 0.001 ? p.toExponential(1) : p.toFixed(3);
}
