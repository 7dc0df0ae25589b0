/**
 * A pooled baseline: the reports of several base-branch runs, combined per scenario into one
 * report that the comparison treats like a single baseline with more trials. A run contributes
 * only when it measured the same thing as the head run (agent, model, judge, harness major
 * version, and — when both reports record them — the evaluation settings and the sandbox its
 * trials really ran in); a scenario contributes
 * only when its measurement is the head scenario's (`measurementHash`: the treatment — guidance,
 * the tool's build — may differ, that is what a PR changes; a report of an earlier version without
 * it, only when its whole content is). Everything left out is listed with the reason,
 * so the comment can say what the baseline is made of.
 */
import { buildScenarioReport } from "../results/aggregate.js";
import { assembleReport } from "../results/assemble-report.js";
import { readSandboxesUsed } from "../results/sandbox-used.js";
import { matrixEntryLabel, scenarioKey } from "../results/scenario-key.js";
import type { Report, RunInfo, ScenarioReport, TrialReport } from "../results/types.js";
import type { RunCount } from "../stats/run-clusters.js";

/** Base-branch runs the action pools by default (the design's, run-clusters.ts); `plan` plans with it. */
export { DEFAULT_BASELINE_RUNS } from "../stats/run-clusters.js";

export interface BaselineCandidate {
  report: Report;
  /** How the comment names this run: "run #12 (`abc1234`)", or a file path. */
  label: string;
}

export interface ExcludedBaseline {
  label: string;
  /** Null when the whole run was left out; else the scenario key. */
  scenario: string | null;
  reason: string;
}

export interface PooledBaseline {
  /** The pooled report; null when no run could be used. */
  report: Report | null;
  /** Labels of the runs that contributed at least one scenario, in the order given. */
  used: string[];
  excluded: ExcludedBaseline[];
  /** Per scenario key: how many runs contributed its trials. */
  runsPerScenario: Record<string, number>;
  /**
   * Per scenario key: each used run's passes and evaluated trials, **oldest first** (index r =
   * `chronology[r]`; 0 trials where that run did not contribute the scenario). Runs are clusters: the
   * decision estimates the run-to-run variation from these, and reads a drift in their time order.
   */
  runCounts: Record<string, RunCount[]>;
  /** The used runs' labels oldest first (see oldestFirst): the order of `runCounts`. */
  chronology: string[];
}

/** What the decision needs to know of a pooled baseline. */
export interface BaselinePooling {
  runs: string[];
  excluded: ExcludedBaseline[];
  /** Oldest first (PooledBaseline.runCounts). */
  runCounts?: Record<string, RunCount[]>;
}

export function describePooling(pooled: PooledBaseline): BaselinePooling {
  return { runs: pooled.used, excluded: pooled.excluded, runCounts: pooled.runCounts };
}

function countRun(trials: readonly TrialReport[]): RunCount {
  const passed = trials.filter((t) => t.outcome === "pass").length;
  return { passed, trials: passed + trials.filter((t) => t.outcome === "fail").length };
}

/** What a run measures, as far as pooling cares; a finished Report's `run` is one. */
export type RunIdentity = Pick<
  RunInfo,
  | "agent"
  | "agents"
  | "entries"
  | "model"
  | "models"
  | "judge_model"
  | "harness_version"
  | "evaluation_hash"
  | "sandbox_used"
>;

/**
 * The head a baseline is pooled for. It is known before the head runs (its identity from the run's
 * options, its planned scenarios with their content hashes), and a finished head Report is one too.
 */
export interface PoolTarget {
  run: RunIdentity;
  /** Every planned scenario (variant included) with its hashes. */
  scenarios: readonly ScenarioHashes[];
}

/** What pooling reads of a scenario entry: its key and its hashes. */
export type ScenarioHashes = Pick<ScenarioReport, "id" | "variant" | "agent" | "model" | "content_hash"> &
  Partial<Pick<ScenarioReport, "measurement_hash">>;

/** The reason a base run that ran none of the head's scenarios (variant and model included) is left out. */
const NO_SCENARIO_IN_COMMON = "it ran none of this run's scenarios";

/** The reason a base scenario whose measurement differs from the head's is left out. */
export const MEASUREMENT_CHANGED = "the scenario changed since this run";

/**
 * Whether a base scenario measured what the head scenario measures: the same measurement hash, or
 * — when either report is of an earlier version without one — the same content hash.
 */
export function sameMeasurement(base: ScenarioHashes, head: ScenarioHashes): boolean {
  const b = base.measurement_hash;
  const h = head.measurement_hash;
  if (typeof b === "string" && typeof h === "string") return b === h;
  return base.content_hash === head.content_hash;
}

function majorVersion(version: string): string {
  return version.split(".")[0] ?? version;
}

/** Why `base` cannot stand for the head run at all, or null when it can. */
export function describeRunMismatch(base: Report, head: Pick<PoolTarget, "run">): string | null {
  const b = base.run;
  const h = head.run;
  // Two agent matrices: each entry's key names its agent and model, so each entry meets its own
  // baseline; an agent matrix and a one-agent run share no entry.
  const entries = (run: RunIdentity) =>
    run.entries && run.entries.length > 0
      ? `an agent matrix (${run.entries.map((e) => matrixEntryLabel(e)).join(", ")})`
      : null;
  const sameEntries = (run: RunIdentity) =>
    (run.entries ?? [])
      .map((e) => matrixEntryLabel(e))
      .sort()
      .join("\n");
  if (sameEntries(b) !== sameEntries(h)) {
    return `${entries(b) ?? `agent ${b.agent}`}, not ${entries(h) ?? `agent ${h.agent}`}`;
  }
  // Agent matrices with the same entries (in any order) measured the same agents and models.
  const agentMatrices = entries(h) !== null;
  if (!agentMatrices && b.agent !== h.agent) return `agent ${b.agent}, not ${h.agent}`;
  // Two model matrices: each entry's key names its model, so each model meets its own baseline
  // (the run's `model` is only the first one given). A matrix and a one-model run share no entry.
  const baseMatrix = (b.models?.length ?? 0) > 1;
  const headMatrix = (h.models?.length ?? 0) > 1;
  if (!agentMatrices && baseMatrix !== headMatrix) {
    const describe = (run: RunIdentity) =>
      (run.models?.length ?? 0) > 1
        ? `a model matrix (${run.models?.join(", ")})`
        : `model ${run.model ?? "none"}`;
    return `${describe(b)}, not ${describe(h)}`;
  }
  if (!agentMatrices && !headMatrix && b.model !== h.model)
    return `model ${b.model ?? "none"}, not ${h.model ?? "none"}`;
  if (b.judge_model !== h.judge_model)
    return `judge ${b.judge_model ?? "none"}, not ${h.judge_model ?? "none"}`;
  if (majorVersion(b.harness_version) !== majorVersion(h.harness_version)) {
    return `harness ${b.harness_version}, not major version ${majorVersion(h.harness_version)}`;
  }
  if (b.evaluation_hash && h.evaluation_hash && b.evaluation_hash !== h.evaluation_hash) {
    return "other evaluation settings (turn limit, timeouts or sandbox)";
  }
  // The sandbox really used (`auto` falls back to local where bwrap does not work); unknown on
  // either side (reports of older versions, a plan without a preflight): no objection.
  const baseSandboxes = readSandboxesUsed(base);
  const headSandboxes = readSandboxesUsed(head);
  if (baseSandboxes && headSandboxes && baseSandboxes.join(",") !== headSandboxes.join(",")) {
    return `its trials ran in the ${baseSandboxes.join(" and ")} sandbox, not ${headSandboxes.join(" and ")}`;
  }
  return null;
}

/**
 * A base run's trials of a scenario that the pool takes: its first trials. The extra trials a base run
 * gave a scenario were chosen by its outcomes (the screen extends what looked worse), so they are
 * not a sample of that day; and every run then counts the same trials, as the decision's model of
 * runs as clusters (and its simulation) assumes.
 */
function firstTrialsOf(scenario: ScenarioReport): TrialReport[] {
  const first = scenario.first_trials;
  return first === undefined ? scenario.trials : scenario.trials.filter((t) => t.trial <= first);
}

/** Trial numbers made unique across runs, so a pooled scenario lists every trial once. */
function renumber(trials: TrialReport[], offset: number): TrialReport[] {
  return trials.map((trial) => ({ ...trial, trial: trial.trial + offset }));
}

export interface PoolOptions {
  /**
   * False for a single report the user named (`compare BASE.json HEAD.json`, the action's
   * `baseline: <path>`): whatever agent or model made it, it is compared — scenario by scenario,
   * still only where the measurement is the head's. Default true.
   */
  matchRun?: boolean;
}

export function poolBaselines(
  candidates: readonly BaselineCandidate[],
  head: PoolTarget,
  options: PoolOptions = {},
): PooledBaseline {
  const excluded: ExcludedBaseline[] = [];
  const headScenarios = new Map(head.scenarios.map((s) => [scenarioKey(s), s]));
  const pooled = new Map<string, { first: ScenarioReport; trials: TrialReport[]; runs: number }>();
  const used: string[] = [];
  const contributions = new Map<string, Map<string, RunCount>>();

  for (const { report, label } of candidates) {
    const mismatch = options.matchRun === false ? null : describeRunMismatch(report, head);
    if (mismatch) {
      excluded.push({ label, scenario: null, reason: mismatch });
      continue;
    }
    let contributed = false;
    const exclusionsBefore = excluded.length;
    for (const scenario of report.scenarios) {
      const key = scenarioKey(scenario);
      const headScenario = headScenarios.get(key);
      // A scenario the head run did not run (deleted, or another shard) is simply not compared.
      if (headScenario === undefined) continue;
      if (!sameMeasurement(scenario, headScenario)) {
        excluded.push({ label, scenario: key, reason: MEASUREMENT_CHANGED });
        continue;
      }
      const entry = pooled.get(key);
      if (entry) {
        const offset = Math.max(0, ...entry.trials.map((t) => t.trial));
        entry.trials.push(...renumber(firstTrialsOf(scenario), offset));
        entry.runs += 1;
      } else {
        // A copy: the later runs' trials are added to it, and the run's own report must stay as it was.
        pooled.set(key, { first: scenario, trials: [...firstTrialsOf(scenario)], runs: 1 });
      }
      contributed = true;
      const byKey = contributions.get(label) ?? new Map<string, RunCount>();
      byKey.set(key, countRun(firstTrialsOf(scenario)));
      contributions.set(label, byKey);
    }
    if (contributed) used.push(label);
    // Every run left out says why: one whose scenarios are all of other keys has no scenario reason.
    else if (excluded.length === exclusionsBefore)
      excluded.push({ label, scenario: null, reason: NO_SCENARIO_IN_COMMON });
  }

  if (used.length === 0)
    return { report: null, used, excluded, runsPerScenario: {}, runCounts: {}, chronology: [] };
  const newest = candidates.find((c) => c.label === used[0])?.report as Report;
  const scenarios = [...pooled.values()].map(({ first, trials }) => {
    // A pooled scenario has no first trials of its own: it is a baseline, never extended.
    const {
      trials: _trials,
      summary: _summary,
      first_trials: _first,
      extended: _extended,
      // Recomputed from the pooled trials (a run's own counts its extra trials too).
      behaviour: _behaviour,
      ...meta
    } = first;
    return buildScenarioReport(meta, trials, newest.run.pass_k);
  });
  const report = assembleReport(
    { ...newest.run, incomplete: candidates.some((c) => used.includes(c.label) && c.report.run.incomplete) },
    scenarios,
  );
  const runsPerScenario = Object.fromEntries([...pooled].map(([key, entry]) => [key, entry.runs]));
  const chronology = oldestFirst(used, candidates);
  const runCounts = Object.fromEntries(
    [...pooled.keys()].map((key) => [
      key,
      chronology.map((label) => contributions.get(label)?.get(key) ?? { passed: 0, trials: 0 }),
    ]),
  );
  return { report, used, excluded, runsPerScenario, runCounts, chronology };
}

/**
 * The used runs in the order they ran, by each report's `run.started_at`: the suite test fits a trend
 * to the runs' levels and predicts the head as the next run, so a base branch that gets worse week
 * after week must read oldest to newest whatever order the runs came in (the action lists the base
 * commit's run first, then newest first; `--baseline` files come in any order). Runs that started at
 * the same time, or any whose start cannot be read, keep the given order taken as newest first.
 */
function oldestFirst(used: readonly string[], candidates: readonly BaselineCandidate[]): string[] {
  const reversed = [...used].reverse();
  const started = new Map(candidates.map((c) => [c.label, Date.parse(c.report.run.started_at)] as const));
  if (reversed.some((label) => !Number.isFinite(started.get(label)))) return reversed;
  return reversed.sort((a, b) => started.get(a)! - started.get(b)!);
}

/** One line per left-out run or scenario: "run #3, scenario `b`: the scenario changed since this run". */
export function describeExclusions(excluded: readonly ExcludedBaseline[]): string[] {
  return excluded.map(
    (e) => `${e.label}${e.scenario === null ? "" : `, scenario \`${e.scenario}\``}: ${e.reason}`,
  );
}
