/**
 * Adaptive extra trials (docs/statistics.md): with a baseline, a scenario whose first n head trials
 * passed less often than the baseline's gets m more (trials n+1..n+m). The screen is
 * `screenForExtraTrials`; it runs once per scenario, as soon as that scenario's first trials have
 * all finished, so the extra trials join the pool while other scenarios still run. Whether a
 * scenario is extended depends only on its first trials' results and the baseline's counts, so a
 * resumed run recomputes the same decisions.
 */
import type { TrialReport } from "../results/types.js";
import { screenForExtraTrials } from "../stats/regression-decision.js";
import type { BaselineCounts, RunOptions } from "./options.js";
import type { PlannedTrial } from "./plan.js";

export interface AdaptiveDesign {
  extraTrials: number;
  /** Per scenario key, the baseline's evaluated trials and passes. */
  baselineCounts: Record<string, BaselineCounts>;
}

/** The adaptive design of a run, or null when it gets no extra trials; `note` says why when that may surprise. */
export function adaptiveDesignOf(
  firstTrials: readonly PlannedTrial[],
  options: Pick<RunOptions, "extraTrials" | "baselineCounts" | "shard">,
): { design: AdaptiveDesign | null; note: string | null } {
  if (options.extraTrials <= 0 || !options.baselineCounts) return { design: null, note: null };
  if (options.shard) {
    // plan.ts deals trials to shards one by one, so no shard sees all of a scenario's first trials.
    return {
      design: null,
      note: "no extra trials in a sharded run: a scenario's trials are spread over the shards, so none of them sees all its first trials",
    };
  }
  if (firstTrials.every((t) => t.trial <= 1)) {
    // With one first trial per scenario only the suite test decides, on first trials (regression-decision.ts).
    return {
      design: null,
      note: "no extra trials with one trial per scenario: only the suite test decides, on first trials",
    };
  }
  return { design: { extraTrials: options.extraTrials, baselineCounts: options.baselineCounts }, note: null };
}

interface ScenarioPlan {
  first: PlannedTrial[];
  screened: boolean;
  extended: boolean;
}

export interface ExtraTrialScheduler {
  /**
   * After a trial finished (or was found finished on resume): when that completes its scenario's
   * first trials and the screen extends the scenario, the extra trials to run (else none).
   */
  afterTrial(planned: PlannedTrial, results: ReadonlyMap<string, TrialReport>): PlannedTrial[];
  /** Every scenario whose first trials have all finished, screened (for a resumed run). */
  screenFinished(results: ReadonlyMap<string, TrialReport>): PlannedTrial[];
  /** The scenario's planned first trials (n), whatever the shard. */
  firstTrialsOf(scenarioKey: string): number;
  /** Undefined when the run had no extra-trials design: the report then leaves `extended` out. */
  isExtended(scenarioKey: string): boolean | undefined;
}

export function createExtraTrialScheduler(
  firstTrials: readonly PlannedTrial[],
  design: AdaptiveDesign | null,
  /** The run's trials per scenario (a scenario's own `trials` wins), as planTrials counts them. */
  defaultTrials: number,
): ExtraTrialScheduler {
  const scenarios = new Map<string, ScenarioPlan>();
  for (const planned of firstTrials) {
    const entry = scenarios.get(planned.scenarioKey) ?? { first: [], screened: false, extended: false };
    entry.first.push(planned);
    scenarios.set(planned.scenarioKey, entry);
  }
  // Counted from the scenario, not from this plan: a shard plans only some of a scenario's trials.
  const plannedFirstTrials = (key: string) => {
    const first = scenarios.get(key)?.first[0];
    return first ? (first.scenario.trials ?? defaultTrials) : 0;
  };

  const screen = (key: string, results: ReadonlyMap<string, TrialReport>): PlannedTrial[] => {
    const entry = scenarios.get(key);
    const baseline = design?.baselineCounts[key];
    if (!design || !entry || entry.screened) return [];
    const outcomes = entry.first.map((t) => results.get(t.key)?.outcome);
    if (outcomes.some((outcome) => outcome === undefined || outcome === "skipped")) return [];
    entry.screened = true;
    if (!baseline) return [];
    const evaluated = outcomes.filter((o) => o === "pass" || o === "fail");
    const [extend] = screenForExtraTrials([
      {
        basePassed: baseline.passed,
        baseTrials: baseline.trials,
        headPassed: evaluated.filter((o) => o === "pass").length,
        headTrials: evaluated.length,
      },
    ]);
    if (!extend) return [];
    entry.extended = true;
    const template = entry.first[0] as PlannedTrial;
    const n = plannedFirstTrials(key);
    return Array.from({ length: design.extraTrials }, (_, i) => ({
      ...template,
      key: `${key}#${n + i + 1}`,
      trial: n + i + 1,
    }));
  };

  return {
    afterTrial: (planned, results) => screen(planned.scenarioKey, results),
    screenFinished: (results) => [...scenarios.keys()].flatMap((key) => screen(key, results)),
    firstTrialsOf: plannedFirstTrials,
    isExtended: (key) => (design ? (scenarios.get(key)?.extended ?? false) : undefined),
  };
}
