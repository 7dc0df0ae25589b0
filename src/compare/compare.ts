/**
 * Head against baseline: match scenarios, test every metric, correct for multiplicity, and give
 * each scenario and metric a verdict a statistician would sign.
 *
 * The verdict rule (per scenario and metric, and at suite level):
 *  1. too_few_samples when a side has fewer than `minTrials` usable values (default 2), and always
 *     when both sides have at most one: one trial against one trial proves nothing.
 *  2. regressed / improved when the corrected p-value is at most alpha; the sign of the change and
 *     the metric's direction decide which.
 *  3. unchanged when not significant and the 95% interval of the change lies within ±tolerance:
 *     the data rule out a change bigger than the tolerance.
 *  4. inconclusive otherwise: the data cannot tell a change of that size from noise.
 * Tolerances: rates ±rateTolerance (10 points); counts ±relativeTolerance (10%) of the baseline mean
 * but at least 0.5 (half a command or turn); amounts (tokens, cost, time) ±relativeTolerance of the
 * baseline mean. Each can be set per metric.
 *
 * Intervals of the change: Newcombe's hybrid score interval for pass rates; Welch's t interval for
 * trial means, except that a side whose values are all equal gets a boundary-aware interval (see
 * differenceInterval), so "unchanged" is never claimed from a handful of identical zeros.
 *
 * Tests: pass rate by Fisher's exact test on pass/fail counts (errors and skips excluded);
 * continuous metrics by a two-sample permutation test on the trial values (trials that errored or
 * were skipped excluded); Holm or Benjamini–Hochberg over the whole family of per-scenario tests.
 * Trials of two runs are independent samples, not pairs, so the per-scenario tests are unpaired; the
 * suite level pairs by scenario.
 */
import { ConfigError } from "../errors.js";
import { summarizeScenario } from "../results/aggregate.js";
import { entriesOfRun } from "../results/model-matrix.js";
import { scenarioKey } from "../results/scenario-key.js";
import {
  type Flakiness,
  REPORT_SCHEMA_VERSION,
  type Report,
  type ScenarioReport,
  type TrialReport,
} from "../results/types.js";
import { differenceInterval } from "../stats/difference-interval.js";
import {
  adjustPValues,
  bootstrapMeanInterval,
  computeMean,
  createRng,
  DEFAULT_SEED,
  deriveSeed,
  fisherExactTest,
  type Interval,
  mcnemarExactTest,
  newcombeInterval,
  permutationTest,
  signFlipTest,
} from "../stats/stats.js";
import {
  findMetric,
  type MetricDefinition,
  PASS_RATE,
  readMetricValues,
  resolveMetricNames,
} from "./metrics.js";
import { sameMeasurement } from "./pool-baselines.js";
import {
  COMPARISON_SCHEMA_VERSION,
  type CompareOptions,
  type Comparison,
  type ComparisonCounts,
  type ComparisonSettings,
  type ComparisonWarning,
  type Direction,
  type MetricComparison,
  type RenamedScenario,
  type RunRef,
  type ScenarioComparison,
  type ScenarioRef,
  type ScenarioStatus,
  type SideSummary,
  type SuiteComparison,
  type SuiteMetricComparison,
  type Verdict,
} from "./types.js";

/** A suite-level verdict needs at least this many scenarios with data on both sides. */
export const MIN_SUITE_SCENARIOS = 5;
const COUNT_TOLERANCE_FLOOR = 0.5;

export function compareReports(base: Report, head: Report, options: CompareOptions = {}): Comparison {
  const baseLabel = options.sources?.base ?? "base report";
  const headLabel = options.sources?.head ?? "head report";
  checkReport(base, baseLabel);
  checkReport(head, headLabel);
  const settings = resolveSettings(options);
  const definitions = settings.metrics.map((name) => findMetric(name));

  const match = matchScenarios(base.scenarios, head.scenarios, baseLabel, headLabel);
  const scenarios = match.pairs.map(({ base: b, head: h, renamedFrom }) =>
    compareScenario(b, h, renamedFrom, definitions, settings),
  );
  applyCorrection(
    scenarios.flatMap((s) => s.metrics),
    (m) => ({ baseN: m.base_n, headN: m.head_n, min: settings.min_trials }),
    settings,
  );
  for (const s of scenarios) {
    s.regressed = s.metrics.filter((m) => m.verdict === "regressed").map((m) => m.metric);
    s.improved = s.metrics.filter((m) => m.verdict === "improved").map((m) => m.metric);
  }
  settings.family_size = scenarios.reduce(
    (n, s) => n + s.metrics.filter((m) => m.p_adjusted !== null).length,
    0,
  );

  return {
    schema_version: COMPARISON_SCHEMA_VERSION,
    base: describeRun(base),
    head: describeRun(head),
    settings,
    counts: countResults(scenarios, match),
    warnings: collectWarnings(base, head, scenarios),
    scenarios,
    added: match.added.map(describeScenario),
    removed: match.removed.map(describeScenario),
    renamed: match.renamed,
    suite: compareSuite(match.pairs, definitions, settings),
  };
}

/** The verdict rule of this module (see the header comment). */
export function decideVerdict(input: {
  baseN: number;
  headN: number;
  minTrials: number;
  pAdjusted: number | null;
  alpha: number;
  delta: number | null;
  interval: Interval | null;
  tolerance: number;
  direction: Direction;
}): Verdict {
  const { baseN, headN } = input;
  if (baseN < input.minTrials || headN < input.minTrials || (baseN <= 1 && headN <= 1)) {
    return "too_few_samples";
  }
  if (
    input.pAdjusted !== null &&
    input.pAdjusted <= input.alpha &&
    input.delta !== null &&
    input.delta !== 0
  ) {
    const better = input.direction === "higher_is_better" ? input.delta > 0 : input.delta < 0;
    return better ? "improved" : "regressed";
  }
  if (input.interval && input.interval.low >= -input.tolerance && input.interval.high <= input.tolerance) {
    return "unchanged";
  }
  return "inconclusive";
}

// ---------------------------------------------------------------------------------------------

function resolveSettings(options: CompareOptions): ComparisonSettings {
  const alpha = options.alpha ?? 0.05;
  if (!(alpha > 0 && alpha < 1))
    throw new ConfigError(`alpha must be between 0 and 1, got ${alpha}`, "alpha");
  const correction = options.correction ?? "holm";
  if (correction !== "holm" && correction !== "bh") {
    throw new ConfigError(`correction must be "holm" or "bh", got "${String(correction)}"`, "correction");
  }
  const minTrials = options.minTrials ?? 2;
  if (!Number.isInteger(minTrials) || minTrials < 1) {
    throw new ConfigError(`minTrials must be an integer >= 1, got ${minTrials}`, "minTrials");
  }
  const rateTolerance = checkTolerance(options.rateTolerance ?? 0.1, "rateTolerance");
  const relativeTolerance = checkTolerance(options.relativeTolerance ?? 0.1, "relativeTolerance");
  const tolerances: Record<string, number> = {};
  for (const [name, value] of Object.entries(options.tolerances ?? {})) {
    findMetric(name, `tolerances.${name}`);
    tolerances[name] = checkTolerance(value, `tolerances.${name}`);
  }
  const resamples = checkResamples(options.bootstrapResamples ?? 2000, "bootstrapResamples");
  const permutations = checkResamples(options.permutationResamples ?? 10_000, "permutationResamples");
  return {
    alpha,
    correction,
    metrics: resolveMetricNames(options.metrics),
    seed: options.seed ?? DEFAULT_SEED,
    min_trials: minTrials,
    rate_tolerance: rateTolerance,
    relative_tolerance: relativeTolerance,
    tolerances,
    bootstrap_resamples: resamples,
    permutation_resamples: permutations,
    family_size: 0,
  };
}

function checkResamples(value: number, where: string): number {
  if (!Number.isInteger(value) || value < 100)
    throw new ConfigError(`must be an integer >= 100, got ${value}`, where);
  return value;
}

function checkTolerance(value: number, where: string): number {
  if (!(value >= 0 && Number.isFinite(value))) {
    throw new ConfigError(`tolerance must be a finite number >= 0, got ${value}`, where);
  }
  return value;
}

const OUTCOMES = new Set(["pass", "fail", "error", "skipped"]);

/** Enough of the report's shape to compare it; a clear ConfigError instead of a crash otherwise. */
function checkReport(report: Report, label: string): void {
  const fail = (message: string): never => {
    throw new ConfigError(`${message}; is this a report.json written by llm-tool-test?`, label);
  };
  if (typeof report !== "object" || report === null) fail("not a JSON object");
  if (typeof report.schema_version !== "number") fail("schema_version is missing");
  if (report.schema_version > REPORT_SCHEMA_VERSION) {
    throw new ConfigError(
      `schema_version ${report.schema_version} is newer than this llm-tool-test understands (${REPORT_SCHEMA_VERSION}); upgrade llm-tool-test`,
      label,
    );
  }
  if (typeof report.run !== "object" || report.run === null) fail("run is missing");
  if (!Array.isArray(report.scenarios)) fail("scenarios is not an array");
  report.scenarios.forEach((s, i) => {
    if (typeof s?.id !== "string") fail(`scenarios[${i}].id is missing`);
    if (!Array.isArray(s.trials)) fail(`scenarios[${i}].trials is not an array`);
    s.trials.forEach((t, j) => {
      if (!OUTCOMES.has(t?.outcome))
        fail(`scenarios[${i}].trials[${j}].outcome is not pass, fail, error or skipped`);
    });
  });
}

interface ScenarioPair {
  base: ScenarioReport;
  head: ScenarioReport;
  renamedFrom: string | null;
}

interface Match {
  pairs: ScenarioPair[];
  added: ScenarioReport[];
  removed: ScenarioReport[];
  renamed: RenamedScenario[];
}

/** By key first; then a leftover base and head scenario with the same content hash (and variant,
 * and matrix entry: agent and model), when that hash is unique on both sides, are the same
 * scenario renamed. A matrix entry is never paired with another entry's scenario. */
function matchScenarios(
  base: readonly ScenarioReport[],
  head: readonly ScenarioReport[],
  baseLabel: string,
  headLabel: string,
): Match {
  const baseByKey = indexByKey(base, baseLabel);
  indexByKey(head, headLabel);
  const pairs: ScenarioPair[] = [];
  const leftoverHead: ScenarioReport[] = [];
  for (const h of head) {
    const b = baseByKey.get(scenarioKey(h));
    if (b) pairs.push({ base: b, head: h, renamedFrom: null });
    else leftoverHead.push(h);
  }
  const headKeys = new Set(head.map(scenarioKey));
  const leftoverBase = base.filter((b) => !headKeys.has(scenarioKey(b)));

  const renameKey = (s: ScenarioReport) =>
    [s.content_hash, s.variant ?? "", s.agent ?? "", s.model ?? ""].join("\u0000");
  const countBy = (list: ScenarioReport[]) => {
    const counts = new Map<string, number>();
    for (const s of list) counts.set(renameKey(s), (counts.get(renameKey(s)) ?? 0) + 1);
    return counts;
  };
  const baseCounts = countBy(leftoverBase);
  const headCounts = countBy(leftoverHead);
  const renamed: RenamedScenario[] = [];
  const renamedBase = new Set<ScenarioReport>();
  const added: ScenarioReport[] = [];
  for (const h of leftoverHead) {
    const k = renameKey(h);
    const b = leftoverBase.find((s) => renameKey(s) === k);
    if (h.content_hash && b && baseCounts.get(k) === 1 && headCounts.get(k) === 1) {
      pairs.push({ base: b, head: h, renamedFrom: scenarioKey(b) });
      renamed.push({ from: scenarioKey(b), to: scenarioKey(h), content_hash: h.content_hash });
      renamedBase.add(b);
    } else {
      added.push(h);
    }
  }
  const order = new Map(head.map((s, i) => [s, i]));
  pairs.sort((x, y) => order.get(x.head)! - order.get(y.head)!);
  return { pairs, added, removed: leftoverBase.filter((b) => !renamedBase.has(b)), renamed };
}

function indexByKey(list: readonly ScenarioReport[], label: string): Map<string, ScenarioReport> {
  const map = new Map<string, ScenarioReport>();
  for (const s of list) {
    const key = scenarioKey(s);
    if (map.has(key)) {
      throw new ConfigError(
        `scenario "${key}" appears twice; merge shard reports with the merge command before comparing`,
        label,
      );
    }
    map.set(key, s);
  }
  return map;
}

/** The counts and pass rate of one side, as the report's own scenario summary computes them. */
function summarizeSide(trials: readonly TrialReport[]): SideSummary {
  const summary = summarizeScenario([...trials]);
  return {
    trials: summary.trials,
    passed: summary.passed,
    failed: summary.failed,
    errors: summary.errors,
    skipped: summary.skipped,
    pass_rate: summary.pass_rate,
    pass_rate_ci_low: summary.pass_rate_ci_low,
    pass_rate_ci_high: summary.pass_rate_ci_high,
    flakiness: summary.flakiness,
  };
}

/** A scenario's label from the two sides' flakiness ("newly failing", …): a description, never a gate. */
export function classifyStatus(b: Flakiness, h: Flakiness): ScenarioStatus {
  if (b === "no_data" || h === "no_data") return "no_data";
  if (b === "stable_pass")
    return h === "stable_pass" ? "still_passing" : h === "stable_fail" ? "newly_failing" : "became_flaky";
  if (b === "stable_fail")
    return h === "stable_fail" ? "still_failing" : h === "stable_pass" ? "newly_passing" : "became_flaky";
  return h === "stable_pass" ? "stabilized_pass" : h === "stable_fail" ? "stabilized_fail" : "still_flaky";
}

function toleranceFor(
  definition: MetricDefinition,
  baseMean: number | null,
  settings: ComparisonSettings,
): number {
  const explicit = settings.tolerances[definition.name];
  if (explicit !== undefined) return explicit;
  if (definition.kind === "rate") return settings.rate_tolerance;
  const relative = settings.relative_tolerance * Math.abs(baseMean ?? 0);
  return definition.kind === "count" ? Math.max(relative, COUNT_TOLERANCE_FLOOR) : relative;
}

function compareScenario(
  base: ScenarioReport,
  head: ScenarioReport,
  renamedFrom: string | null,
  definitions: readonly MetricDefinition[],
  settings: ComparisonSettings,
): ScenarioComparison {
  const key = scenarioKey(head);
  const baseSide = summarizeSide(base.trials);
  const headSide = summarizeSide(head.trials);
  const metrics = definitions.map((d) =>
    d.name === PASS_RATE
      ? comparePassRate(baseSide, headSide, d, settings)
      : compareContinuous(
          readMetricValues(base, d),
          readMetricValues(head, d),
          d,
          settings,
          `${key}\u0000${d.name}`,
        ),
  );
  return {
    key,
    id: head.id,
    variant: head.variant ?? null,
    category: head.category,
    renamed_from: renamedFrom,
    // The measurement, not the treatment: a PR that edits only the guidance is what is compared.
    content_changed: renamedFrom === null && !sameMeasurement(base, head),
    status: classifyStatus(baseSide.flakiness, headSide.flakiness),
    base: baseSide,
    head: headSide,
    metrics,
    regressed: [],
    improved: [],
  };
}

function comparePassRate(
  base: SideSummary,
  head: SideSummary,
  definition: MetricDefinition,
  settings: ComparisonSettings,
): MetricComparison {
  const baseN = base.passed + base.failed;
  const headN = head.passed + head.failed;
  const testable = baseN > 0 && headN > 0;
  const interval = testable ? newcombeInterval(head.passed, headN, base.passed, baseN) : null;
  return {
    metric: definition.name,
    direction: definition.direction,
    kind: definition.kind,
    test: testable ? "fisher_exact" : "none",
    base_n: baseN,
    head_n: headN,
    base_mean: base.pass_rate,
    head_mean: head.pass_rate,
    delta: testable ? head.pass_rate! - base.pass_rate! : null,
    ci_low: interval?.low ?? null,
    ci_high: interval?.high ?? null,
    p_value: testable ? fisherExactTest(head.passed, head.failed, base.passed, base.failed) : null,
    p_adjusted: null,
    tolerance: toleranceFor(definition, base.pass_rate, settings),
    verdict: "too_few_samples",
  };
}

function compareContinuous(
  base: number[],
  head: number[],
  definition: MetricDefinition,
  settings: ComparisonSettings,
  label: string,
): MetricComparison {
  const baseMean = computeMean(base);
  const headMean = computeMean(head);
  const testable = base.length > 0 && head.length > 0;
  const interval = differenceInterval(head, base, definition.kind);
  const p = testable
    ? permutationTest(head, base, {
        rng: createRng(deriveSeed(settings.seed, label)),
        resamples: settings.permutation_resamples,
      }).p_value
    : null;
  return {
    metric: definition.name,
    direction: definition.direction,
    kind: definition.kind,
    test: testable ? "permutation" : "none",
    base_n: base.length,
    head_n: head.length,
    base_mean: baseMean,
    head_mean: headMean,
    delta: testable ? headMean! - baseMean! : null,
    ci_low: interval?.low ?? null,
    ci_high: interval?.high ?? null,
    p_value: p,
    p_adjusted: null,
    tolerance: toleranceFor(definition, baseMean, settings),
    verdict: "too_few_samples",
  };
}

type Tested = Pick<
  MetricComparison,
  "p_value" | "p_adjusted" | "delta" | "ci_low" | "ci_high" | "tolerance" | "direction" | "verdict"
>;
interface SampleSizes {
  baseN: number;
  headN: number;
  min: number;
}

/** Adjusts the p-values of the tests that have enough samples to count, then sets every verdict. */
function applyCorrection<T extends Tested>(
  tests: readonly T[],
  sizesOf: (test: T) => SampleSizes,
  settings: ComparisonSettings,
): void {
  const enough = ({ baseN, headN, min }: SampleSizes) =>
    baseN >= min && headN >= min && !(baseN <= 1 && headN <= 1);
  const family = tests.filter((t) => t.p_value !== null && enough(sizesOf(t)));
  const adjusted = adjustPValues(
    family.map((t) => t.p_value!),
    settings.correction,
  );
  family.forEach((t, i) => {
    t.p_adjusted = adjusted[i]!;
  });
  for (const t of tests) {
    const { baseN, headN, min } = sizesOf(t);
    t.verdict = decideVerdict({
      baseN,
      headN,
      minTrials: min,
      pAdjusted: t.p_adjusted,
      alpha: settings.alpha,
      delta: t.delta,
      interval: t.ci_low !== null && t.ci_high !== null ? { low: t.ci_low, high: t.ci_high } : null,
      tolerance: t.tolerance,
      direction: t.direction,
    });
  }
}

/**
 * A scenario's first trials only: adaptive extra trials are run where the first ones did worse than
 * the baseline, so adding them to a side's mean would pull it towards the mean (up, after a bad
 * start) and bias any average over scenarios. All trials in reports without the design.
 */
function withFirstTrialsOnly(scenario: ScenarioReport): ScenarioReport {
  const first = scenario.first_trials;
  if (first === undefined || scenario.trials.every((t) => t.trial <= first)) return scenario;
  return { ...scenario, trials: scenario.trials.filter((t) => t.trial <= first) };
}

/**
 * The scenario is the unit: per metric, each matched scenario contributes its head mean minus its
 * base mean, each over its first trials (withFirstTrialsOnly: an average over scenarios with the
 * extra trials in would be biased towards the side that got them). The interval is a cluster
 * bootstrap (scenarios resampled with replacement, each bringing its own paired difference); the
 * p-value is the paired sign-flip permutation test.
 */
function compareSuite(
  allPairs: readonly ScenarioPair[],
  definitions: readonly MetricDefinition[],
  settings: ComparisonSettings,
): SuiteComparison {
  const pairs = allPairs.map((p) => ({
    ...p,
    base: withFirstTrialsOnly(p.base),
    head: withFirstTrialsOnly(p.head),
  }));
  const extraLeftOut = pairs.some((p, i) => p.base !== allPairs[i]!.base || p.head !== allPairs[i]!.head);
  const metrics: SuiteMetricComparison[] = definitions.map((d) => {
    const baseMeans: number[] = [];
    const headMeans: number[] = [];
    let singleTrials = true;
    for (const { base, head } of pairs) {
      const b = readMetricValues(base, d);
      const h = readMetricValues(head, d);
      if (b.length === 0 || h.length === 0) continue;
      if (b.length !== 1 || h.length !== 1) singleTrials = false;
      baseMeans.push(computeMean(b)!);
      headMeans.push(computeMean(h)!);
    }
    const diffs = headMeans.map((h, i) => h - baseMeans[i]!);
    const n = diffs.length;
    const enough = n >= MIN_SUITE_SCENARIOS;
    const rng = createRng(deriveSeed(settings.seed, `suite\u0000${d.name}`));
    const interval = enough
      ? bootstrapMeanInterval(diffs, { rng, resamples: settings.bootstrap_resamples })
      : null;
    const mcnemar = d.name === PASS_RATE && singleTrials;
    let p: number | null = null;
    if (enough) {
      p = mcnemar
        ? mcnemarExactTest(diffs.filter((x) => x < 0).length, diffs.filter((x) => x > 0).length)
        : signFlipTest(diffs, { rng, resamples: settings.permutation_resamples }).p_value;
    }
    const baseMean = computeMean(baseMeans);
    return {
      metric: d.name,
      direction: d.direction,
      kind: d.kind,
      test: !enough ? "none" : mcnemar ? "mcnemar_exact" : "sign_flip",
      scenarios: n,
      base_mean: baseMean,
      head_mean: computeMean(headMeans),
      delta: computeMean(diffs),
      ci_low: interval?.low ?? null,
      ci_high: interval?.high ?? null,
      p_value: p,
      p_adjusted: null,
      tolerance: toleranceFor(d, baseMean, settings),
      verdict: "too_few_samples",
    };
  });
  applyCorrection(
    metrics,
    (m) => ({ baseN: m.scenarios, headN: m.scenarios, min: MIN_SUITE_SCENARIOS }),
    settings,
  );
  return {
    scenarios: pairs.length,
    first_trials_only: extraLeftOut,
    min_scenarios: MIN_SUITE_SCENARIOS,
    bootstrap_resamples: settings.bootstrap_resamples,
    metrics,
  };
}

function describeRun(report: Report): RunRef {
  const run = report.run;
  return {
    run_id: run.id,
    started_at: run.started_at,
    agent: run.agent,
    model: run.model ?? null,
    ...(run.models && run.models.length > 1 ? { models: [...run.models] } : {}),
    ...(run.entries && run.entries.length > 0 ? { entries: entriesOfRun(run) } : {}),
    judge_model: run.judge_model ?? null,
    harness_version: run.harness_version,
    git_sha: run.git_sha ?? null,
    git_ref: run.git_ref ?? null,
    incomplete: run.incomplete === true,
  };
}

function describeScenario(s: ScenarioReport): ScenarioRef {
  return {
    key: scenarioKey(s),
    id: s.id,
    variant: s.variant ?? null,
    category: s.category,
    content_hash: s.content_hash,
    summary: summarizeSide(s.trials),
  };
}

function countResults(scenarios: readonly ScenarioComparison[], match: Match): ComparisonCounts {
  const verdicts: Record<Verdict, number> = {
    improved: 0,
    regressed: 0,
    unchanged: 0,
    inconclusive: 0,
    too_few_samples: 0,
  };
  for (const s of scenarios) for (const m of s.metrics) verdicts[m.verdict]++;
  return {
    matched: scenarios.length,
    added: match.added.length,
    removed: match.removed.length,
    renamed: match.renamed.length,
    content_changed: scenarios.filter((s) => s.content_changed).length,
    newly_failing: scenarios.filter((s) => s.status === "newly_failing").length,
    newly_passing: scenarios.filter((s) => s.status === "newly_passing").length,
    regressed: scenarios.filter((s) => s.regressed.length > 0).length,
    improved: scenarios.filter((s) => s.improved.length > 0).length,
    verdicts,
  };
}

function collectWarnings(
  base: Report,
  head: Report,
  scenarios: readonly ScenarioComparison[],
): ComparisonWarning[] {
  const warnings: ComparisonWarning[] = [];
  const differs = (code: ComparisonWarning["code"], what: string, b: unknown, h: unknown, why: string) => {
    if ((b ?? null) !== (h ?? null)) {
      warnings.push({ code, message: `The baseline used ${what} ${show(b)}, head used ${show(h)}: ${why}` });
    }
  };
  // A matrix is named by all its models, not its first; an agent matrix by all its agents.
  const models = (report: Report) =>
    report.run.models && report.run.models.length > 1 ? report.run.models.join(", ") : report.run.model;
  const agents = (report: Report) =>
    report.run.agents && report.run.agents.length > 1 ? report.run.agents.join(", ") : report.run.agent;
  differs(
    "model_differs",
    "model",
    models(base),
    models(head),
    "differences may come from the model, not from this change.",
  );
  differs(
    "agent_differs",
    "agent",
    agents(base),
    agents(head),
    "differences may come from the agent, not from this change.",
  );
  differs(
    "judge_model_differs",
    "judge model",
    base.run.judge_model,
    head.run.judge_model,
    "judge scores and the pass/fail of judged scenarios are not comparable.",
  );
  differs(
    "harness_version_differs",
    "llm-tool-test",
    base.run.harness_version,
    head.run.harness_version,
    "metric definitions may have changed between versions.",
  );
  if (stableJson(base.run.price_table ?? {}) !== stableJson(head.run.price_table ?? {})) {
    warnings.push({
      code: "price_table_differs",
      message:
        "The two runs priced tokens with different price tables: cost_usd changes may be price changes.",
    });
  }
  const changed = scenarios.filter((s) => s.content_changed).map((s) => s.key);
  if (changed.length > 0) {
    warnings.push({
      code: "content_changed",
      message: `${changed.length} scenario${changed.length === 1 ? "" : "s"} changed content since the baseline (${listSome(changed)}): their differences may come from the scenario itself.`,
    });
  }
  for (const [side, report] of [
    ["baseline", base],
    ["head", head],
  ] as const) {
    if (report.run.incomplete) {
      warnings.push({
        code: "incomplete_run",
        message: `The ${side} run was incomplete (interrupted or cut by a budget): some trials are missing.`,
      });
    }
  }
  if (scenarios.length === 0) {
    warnings.push({
      code: "no_matched_scenarios",
      message:
        "No scenario of the baseline matches one of head (by id, variant or content): nothing to compare.",
    });
  }
  return warnings;
}

function show(value: unknown): string {
  return value === null || value === undefined ? "none" : `"${String(value)}"`;
}

function listSome(items: readonly string[], max = 5): string {
  const shown = items.slice(0, max).join(", ");
  return items.length > max ? `${shown} and ${items.length - max} more` : shown;
}

function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) =>
      a < b ? -1 : a > b ? 1 : 0,
    );
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}
