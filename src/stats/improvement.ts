/**
 * Improvements: did the head pass clearly more often than the pooled baseline? The regression
 * decision's own tests (regression-decision.ts), mirrored: a scenario's failures are its passes of
 * the other direction, so "the head fails less often" is the regression test run on the failure
 * counts — the same exact per-scenario family (Boschloo, or its clustered form, Holm over the
 * scenarios) and the same suite test (clustered CMH, with its run-to-run variation and drift), each at
 * its own level. An improving base branch is then a drift in the failures, allowed for as the
 * regression side allows for a declining one. Pure; docs/statistics.md is the contract.
 *
 * Its own multiplicity control: alpha split between the scenario family and the suite test as the
 * regression side splits it, so an unchanged PR shows an improvement at most alpha of the time. It
 * never gates: the decision reports it, the exit status and fail-on never read it.
 *
 * Only the head's first trials are tested: the adaptive screen gives extra trials to scenarios that
 * started worse than the baseline, so those extra trials are no fixed design in this direction.
 */
import {
  DEFAULT_ALPHA,
  DEFAULT_SUITE_ALPHA,
  decideRegression,
  type RegressionDecisionOptions,
  type ScenarioCounts,
} from "./regression-decision.js";
import type { RunCount } from "./run-clusters.js";

interface ScenarioImprovement {
  /** One-sided p of "the head passes more often" (first trials); null when a side has no trials. */
  pValue: number | null;
  /** On alpha's scale: improved exactly when adjustedP ≤ alpha. null when not in the family. */
  adjustedP: number | null;
  improved: boolean;
}

export interface ImprovementResult {
  /** The level of the whole improvement decision (scenarios and suite), apart from the regression one. */
  alpha: number;
  /** The scenario family's level (0 when only the suite test decides: one trial per scenario). */
  primaryAlpha: number;
  suiteAlpha: number;
  /** One entry per input scenario, in order. */
  scenarios: ScenarioImprovement[];
  suite: { pValue: number; adjustedP: number | null; improved: boolean };
}

export type ImprovementOptions = Pick<
  RegressionDecisionOptions,
  "alpha" | "suiteAlpha" | "icc" | "suiteOnly"
>;

const failuresOf = (r: RunCount): RunCount => ({ passed: r.trials - r.passed, trials: r.trials });

/** The head's first trials against the baseline, as failure counts: the regression test's mirror. */
function mirror(c: ScenarioCounts): ScenarioCounts {
  const headPassed = c.initialHeadPassed ?? c.headPassed;
  const headTrials = c.initialHeadTrials ?? c.headTrials;
  return {
    basePassed: c.baseTrials - c.basePassed,
    baseTrials: c.baseTrials,
    headPassed: headTrials - headPassed,
    headTrials,
    ...(c.baseRuns ? { baseRuns: c.baseRuns.map(failuresOf) } : {}),
  };
}

/**
 * The improvement decision over the same counts the regression decision takes (adaptive fields are
 * read only for the first trials). Alpha and its split default to the regression side's.
 */
export function decideImprovement(
  counts: readonly ScenarioCounts[],
  options: ImprovementOptions = {},
): ImprovementResult {
  const alpha = options.alpha ?? DEFAULT_ALPHA;
  const mirrored = decideRegression(counts.map(mirror), {
    alpha,
    suiteAlpha: options.suiteAlpha ?? (DEFAULT_SUITE_ALPHA / DEFAULT_ALPHA) * alpha,
    ...(options.icc !== undefined ? { icc: options.icc } : {}),
    ...(options.suiteOnly !== undefined ? { suiteOnly: options.suiteOnly } : {}),
  });
  return {
    alpha,
    primaryAlpha: mirrored.primaryAlpha,
    suiteAlpha: mirrored.suite.alpha,
    scenarios: mirrored.scenarios.map((s) => ({
      pValue: s.pValue,
      adjustedP: s.adjustedP,
      improved: s.regressed,
    })),
    suite: {
      pValue: mirrored.suite.pValue,
      adjustedP: mirrored.suite.adjustedP,
      improved: mirrored.suite.rejected,
    },
  };
}
