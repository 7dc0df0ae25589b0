/**
 * Reports and real decisions for the renderers' tests: suites built from pass counts with the
 * report factory, compared and decided by the library itself (never hand-written Decision literals).
 */
import { compareReports } from "../../src/compare/compare.js";
import { type DecisionInput, decide, parseFailOn } from "../../src/compare/decision.js";
import type { Report, ScenarioReport, TrialBehaviour, TrialReport } from "../../src/results/types.js";
import { makeReport, makeScenarioReport, type TrialSpec, trialsFrom } from "../support/report-factory.js";

/** A scenario with `passed` passes of `trials`, the passes first; `spec` sets the other figures of every trial. */
export function scenarioWith(
  id: string,
  passed: number,
  trials: number,
  spec: Omit<TrialSpec, "outcome"> = {},
  extra: Partial<ScenarioReport> = {},
): ScenarioReport {
  const specs: TrialSpec[] = Array.from({ length: trials }, (_, i) => ({
    ...spec,
    outcome: i < passed ? "pass" : "fail",
  }));
  return makeScenarioReport({ id, trials: trialsFrom(specs), ...extra });
}

export type Counts = Array<[passed: number, trials: number]>;

/** A suite of scenarios `s0`, `s1`, … (or the given ids) with these pass counts. */
export function suiteOf(
  counts: Counts,
  ids?: readonly string[],
  run: Parameters<typeof makeReport>[1] = {},
): Report {
  return makeReport(
    counts.map(([p, n], i) => scenarioWith(ids?.[i] ?? `s${i}`, p, n)),
    run,
  );
}

export const repeat = (n: number, passed: number, trials: number): Counts =>
  Array.from({ length: n }, () => [passed, trials]);

/** The decision and the comparison of a head against a baseline, as the library computes them. */
export function decideAndCompare(
  head: Report,
  baseline: Report | null,
  options: Omit<DecisionInput, "head" | "baseline"> & { failOnText?: string } = {},
) {
  const { failOnText, ...rest } = options;
  const decision = decide({
    head,
    baseline,
    ...rest,
    ...(failOnText ? { failOn: parseFailOn(failOnText, "fail-on") } : {}),
  });
  const comparison = baseline
    ? compareReports(baseline, head, { bootstrapResamples: 200, permutationResamples: 500 })
    : null;
  return { decision, comparison };
}

/**
 * A baseline pooled from `runs` base-branch runs of `trialsPerRun` trials each, every scenario
 * passing `passedPerRun(scenario, run)` of them: the pooled report and its provenance (with each
 * run's counts, from which the decision estimates run-to-run variation).
 */
export function pooledBaseline(
  scenarios: number,
  runs: number,
  trialsPerRun = 3,
  passedPerRun: (scenario: number, run: number) => number = () => trialsPerRun,
) {
  const runCounts: Record<string, Array<{ passed: number; trials: number }>> = {};
  const counts: Counts = [];
  for (let i = 0; i < scenarios; i++) {
    const perRun = Array.from({ length: runs }, (_, r) => ({
      passed: passedPerRun(i, r),
      trials: trialsPerRun,
    }));
    runCounts[`s${i}`] = perRun;
    counts.push([perRun.reduce((sum, c) => sum + c.passed, 0), runs * trialsPerRun]);
  }
  const labels = Array.from({ length: runs }, (_, r) => `run #${40 - r}`);
  return { report: suiteOf(counts), pooling: { runs: labels, excluded: [], runCounts } };
}

/**
 * A head that ran the adaptive design: `counts` are all its trials, the first `first` of each are
 * its first trials, and a scenario with more than `first` trials was extended.
 */
export function adaptiveHead(counts: Counts, first = 3): Report {
  return makeReport(
    counts.map(([p, n], i) => scenarioWith(`s${i}`, p, n, {}, { first_trials: first, extended: n > first })),
  );
}

/** The same report with each trial's calls replaced by `calls(trial)`; the scenarios' summaries follow. */
function withCalls(
  report: Report,
  calls: (trial: TrialReport) => { subcommand: string; behaviour: TrialBehaviour } | null,
): Report {
  const scenarios = report.scenarios.map(({ summary: _summary, behaviour: _behaviour, ...scenario }) =>
    makeScenarioReport({
      ...scenario,
      trials: scenario.trials.map((trial) => {
        const made = calls(trial);
        if (!made) return trial;
        const { behaviour: _old, ...rest } = trial;
        return {
          ...rest,
          by_subcommand: { [made.subcommand]: trial.interaction },
          behaviour: made.behaviour,
        };
      }),
    }),
  );
  return makeReport(scenarios, report.run);
}

/** What the head's failing mlr calls printed; agent-controlled, with Markdown and HTML in it. */
export const MLR_STDERR = "mlr: data does not parse as JSON: `a,b` <b>*bold*</b> @team\nsecond line";

/**
 * The user test behind this diff: a Miller author's scenario whose base runs (8, all passing) call
 * `mlr --icsv --ojson cat` and whose head stopped passing `--icsv` (every call `mlr --ojson cat`)
 * and failed. Each trial makes 4 calls (trialsFrom).
 */
export function mlrRegression(options: { baseRecordsCalls?: boolean } = {}) {
  const pooled = pooledBaseline(1, 8);
  const base =
    options.baseRecordsCalls === false
      ? pooled.report
      : withCalls(pooled.report, () => ({
          subcommand: "cat",
          behaviour: {
            options: { "--icsv": 4, "--ojson": 4 },
            shapes: { "cat --icsv --ojson": 4 },
            first_failure: null,
          },
        }));
  const head = withCalls(suiteOf([[0, 3]]), (trial) => ({
    subcommand: "cat",
    behaviour: {
      options: { "--ojson": 4 },
      shapes: { "cat --ojson": 4 },
      first_failure: {
        command: `mlr --ojson cat example-${trial.trial}.csv`,
        exit_code: 1,
        stderr: MLR_STDERR,
      },
    },
  }));
  return { baseline: { report: base, pooling: pooled.pooling }, head };
}
