/**
 * The history of the base-branch runs beside the head run (`report --format history`): per scenario
 * and for the suite, each run's pass rate with its Wilson interval and its per-trial metrics, and
 * where the treatment (the tool's build, the guidance) changed between consecutive runs. Pure data;
 * render/history-html.ts draws it. Only runs that measured what the head measures (the pool's rule,
 * describeRunMismatch) are shown: another agent's or model's runs are listed as left out.
 */
import { scenarioKey } from "../results/scenario-key.js";
import type { Report, ScenarioReport, TrialReport } from "../results/types.js";
import { incompleteBeta, wilsonInterval } from "../stats/stats.js";
import type { Decision } from "./decision.js";
import { describeTreatmentChanges, type TreatmentFileChange } from "./pairing.js";
import {
  type BaselineCandidate,
  describeRunMismatch,
  type ExcludedBaseline,
  sameMeasurement,
} from "./pool-baselines.js";

/** The per-trial figures the history follows, each a mean over a run's evaluated trials. */
export const HISTORY_METRICS = [
  { key: "commands", label: "commands", of: (t: TrialReport) => t.interaction.total_commands },
  { key: "errors", label: "errors", of: (t: TrialReport) => t.interaction.error_count },
  { key: "help", label: "help lookups", of: (t: TrialReport) => t.interaction.help_invocations },
  {
    key: "tokens",
    label: "tokens",
    of: (t: TrialReport) => t.execution.input_tokens + t.execution.output_tokens,
  },
  { key: "cost", label: "cost (USD)", of: (t: TrialReport) => t.execution.cost_usd },
] as const;

export type HistoryMetric = (typeof HISTORY_METRICS)[number]["key"];

interface HistoryRun {
  label: string;
  started_at: string;
  git_sha: string | null;
  /** The run under review (last); the others are base-branch runs, oldest first. */
  head: boolean;
}

/** One run's figures for a scenario, or for the suite. */
export interface HistoryPoint {
  passed: number;
  /** Evaluated trials (pass or fail). */
  trials: number;
  rate: number | null;
  /** 95% Wilson interval; null without an evaluated trial. */
  low: number | null;
  high: number | null;
  /** Means per evaluated trial; null when no trial had the figure (an unknown cost). */
  metrics: Record<HistoryMetric, number | null>;
  /** False when this run's scenario measured something else than the head's (it was not pooled). */
  same_measurement: boolean;
}

/** Where the treatment changed: between run `run - 1` and run `run` (indexes into RunHistory.runs). */
export interface TreatmentMarker {
  run: number;
  kinds: Array<"tool" | "guidance">;
  files: TreatmentFileChange[];
}

/** The range in which a base run's own pass rate falls, as the decision's model of runs estimates it. */
export interface RunSpread {
  /** The base runs' pooled pass rate (runs that measured what the head measures). */
  rate: number;
  /** 2.5% and 97.5% quantiles of a run's rate: Beta with that mean and the decision's ICC. */
  low: number;
  high: number;
}

interface ScenarioHistory {
  key: string;
  /** Per run (RunHistory.runs' order); null where the run did not run the scenario. */
  points: Array<HistoryPoint | null>;
  markers: TreatmentMarker[];
  /** Null without the decision's ICC or without a base run of it. */
  spread: RunSpread | null;
}

export interface RunHistory {
  runs: HistoryRun[];
  /** Base runs not shown: they measured something else (another agent, model, judge, settings). */
  left_out: ExcludedBaseline[];
  suite: { points: Array<HistoryPoint | null>; markers: TreatmentMarker[] };
  scenarios: ScenarioHistory[];
  /** The intra-run correlation the decision assumed; null without a decision that compared. */
  icc: number | null;
  /** The decision's suite-level spread across base runs against binomial sampling; null when unknown. */
  dispersion: number | null;
}

export interface RunHistoryInput {
  head: Report;
  /** The head's label ("head `abc1234`" by default). */
  headLabel?: string;
  /** The base-branch runs, in any order: they are shown by `run.started_at`. */
  base: readonly BaselineCandidate[];
  /** The run's decision: its ICC gives each scenario's run-level spread. */
  decision?: Decision | undefined;
}

const evaluated = (trials: readonly TrialReport[]) =>
  trials.filter((t) => t.outcome === "pass" || t.outcome === "fail");

function mean(values: ReadonlyArray<number | null>): number | null {
  const known = values.filter((v): v is number => v !== null);
  return known.length === 0 ? null : known.reduce((s, v) => s + v, 0) / known.length;
}

function pointOf(trials: readonly TrialReport[], sameMeasurementAsHead: boolean): HistoryPoint {
  const done = evaluated(trials);
  const passed = done.filter((t) => t.outcome === "pass").length;
  const interval = wilsonInterval(passed, done.length);
  const metrics = Object.fromEntries(
    HISTORY_METRICS.map((m) => [m.key, mean(done.map((t) => m.of(t)))]),
  ) as HistoryPoint["metrics"];
  return {
    passed,
    trials: done.length,
    rate: done.length === 0 ? null : passed / done.length,
    low: interval?.low ?? null,
    high: interval?.high ?? null,
    metrics,
    same_measurement: sameMeasurementAsHead,
  };
}

/** A Beta(a, b) quantile by bisection on the regularized incomplete beta (monotone in x). */
function betaQuantile(q: number, a: number, b: number): number {
  let low = 0;
  let high = 1;
  for (let i = 0; i < 50; i++) {
    const mid = (low + high) / 2;
    if (incompleteBeta(mid, a, b) < q) low = mid;
    else high = mid;
  }
  return (low + high) / 2;
}

/**
 * The central 95% of a run's own rate under the decision's model (runs are clusters: a run's rate is
 * Beta with the pooled mean and intra-run correlation `icc`; docs/statistics.md).
 */
export function runLevelSpread(passed: number, trials: number, icc: number): RunSpread | null {
  if (trials === 0) return null;
  const rate = passed / trials;
  if (icc <= 0 || rate === 0 || rate === 1) return { rate, low: rate, high: rate };
  const a = (rate * (1 - icc)) / icc;
  const b = ((1 - rate) * (1 - icc)) / icc;
  return { rate, low: betaQuantile(0.025, a, b), high: betaQuantile(0.975, a, b) };
}

/** The treatment changes from `earlier` to `later` among their common scenarios (null when none). */
function markerBetween(
  earlier: readonly ScenarioReport[],
  later: readonly ScenarioReport[],
  run: number,
): TreatmentMarker | null {
  const byKey = new Map(earlier.map((s) => [scenarioKey(s), s]));
  const paired = later.map((head) => ({ head, base: byKey.get(scenarioKey(head)) ?? null }));
  const { files } = describeTreatmentChanges(paired);
  if (files.length === 0) return null;
  const kinds = (["tool", "guidance"] as const).filter((k) => files.some((f) => f.kind === k));
  return { run, kinds: [...kinds], files };
}

/** Oldest first by `run.started_at`; an unreadable time keeps the given order (taken as newest first). */
function byStart(candidates: readonly BaselineCandidate[]): BaselineCandidate[] {
  const time = (c: BaselineCandidate) => Date.parse(c.report.run.started_at);
  if (candidates.some((c) => !Number.isFinite(time(c)))) return [...candidates].reverse();
  return [...candidates].sort((a, b) => time(a) - time(b));
}

export function buildRunHistory({ head, headLabel, base, decision }: RunHistoryInput): RunHistory {
  const left_out: ExcludedBaseline[] = [];
  const shown = byStart(base).filter(({ report, label }) => {
    const mismatch = describeRunMismatch(report, head);
    if (mismatch) left_out.push({ label, scenario: null, reason: mismatch });
    return mismatch === null;
  });
  const reports = [...shown.map((c) => c.report), head];
  const runs: HistoryRun[] = [
    ...shown.map(({ report, label }) => ({
      label,
      started_at: report.run.started_at,
      git_sha: report.run.git_sha,
      head: false,
    })),
    {
      label: headLabel ?? `head${head.run.git_sha ? ` \`${head.run.git_sha.slice(0, 7)}\`` : ""}`,
      started_at: head.run.started_at,
      git_sha: head.run.git_sha,
      head: true,
    },
  ];
  const icc = decision?.variation?.icc_used ?? null;

  // Each run's scenarios by key, once: a history of 100 runs × 300 scenarios must stay light.
  const byKey = reports.map((r) => new Map(r.scenarios.map((s) => [scenarioKey(s), s])));
  const scenarios = head.scenarios.map((headScenario): ScenarioHistory => {
    const key = scenarioKey(headScenario);
    const entries = byKey.map((index) => index.get(key) ?? null);
    const points = entries.map((s) => (s ? pointOf(s.trials, sameMeasurement(s, headScenario)) : null));
    const markers: TreatmentMarker[] = [];
    let previous: ScenarioReport | null = null;
    entries.forEach((entry, run) => {
      if (!entry) return;
      const marker = previous ? markerBetween([previous], [entry], run) : null;
      if (marker) markers.push(marker);
      previous = entry;
    });
    const pooled = points.slice(0, -1).filter((p): p is HistoryPoint => p?.same_measurement === true);
    const passed = pooled.reduce((s, p) => s + p.passed, 0);
    const trials = pooled.reduce((s, p) => s + p.trials, 0);
    return { key, points, markers, spread: icc === null ? null : runLevelSpread(passed, trials, icc) };
  });

  const headKeys = new Set(head.scenarios.map(scenarioKey));
  const suitePoints = reports.map((report) => {
    const common = report.scenarios.filter((s) => headKeys.has(scenarioKey(s)));
    return common.length === 0
      ? null
      : pointOf(
          common.flatMap((s) => s.trials),
          true,
        );
  });
  const suiteMarkers = reports.flatMap((report, run) => {
    const marker = run === 0 ? null : markerBetween(reports[run - 1]!.scenarios, report.scenarios, run);
    return marker ? [marker] : [];
  });
  return {
    runs,
    left_out,
    suite: { points: suitePoints, markers: suiteMarkers },
    scenarios,
    icc,
    dispersion: decision?.variation?.dispersion ?? null,
  };
}
