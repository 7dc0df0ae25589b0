/** `fail-on: regression` in words: the gate's findings (compare/gate.ts) as one reason per line. */
import {
  findRegressions,
  type Regression,
  type RegressionFindings,
  type RegressionGateOptions,
} from "../compare/gate.js";
import type { Comparison } from "../compare/types.js";
import { formatMetricChange, formatPStatement } from "./format.js";
import { describeCorrection } from "./labels.js";

export interface RegressionDecision {
  failed: boolean;
  reasons: string[];
}

/** Whether the check fails on the comparison, and why, one reason per regression. */
export function decideRegressionFailure(
  comparison: Comparison,
  options: RegressionGateOptions = {},
): RegressionDecision {
  const findings = findRegressions(comparison, options);
  return {
    failed: findings.failed,
    reasons: findings.regressions.map((r) => describeRegression(r, findings)),
  };
}

/** "`key`: pass_rate regressed 100% → 0% (…); adjusted p = 0.004 ≤ 0.05 (Holm over 3 tests)". */
export function describeRegression(r: Regression, findings: RegressionFindings): string {
  if (r.kind === "metric") {
    const scope = r.scenario === null ? "suite" : `\`${r.scenario}\``;
    const method = describeCorrection(findings.correction, findings.tests);
    return `${scope}: ${r.test.metric} regressed ${formatMetricChange(r.test)}; ${formatPStatement("adjusted p", r.p_adjusted)} ≤ ${findings.alpha} (${method})`;
  }
  const s = r.scenario;
  const notes: string[] = [];
  if (s.base.passed === 1 && s.head.failed === 1) notes.push("one trial each, which may be noise");
  if (s.content_changed) notes.push("the scenario's content changed too");
  const note = notes.length ? ` (${notes.join("; ")})` : "";
  return `\`${s.key}\`: newly failing: passed ${s.base.passed}/${s.base.passed} baseline trials, failed ${s.head.failed}/${s.head.failed} head trials${note}`;
}
