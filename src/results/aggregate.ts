import type { GuidanceIntake } from "../agents/types.js";
import type { Scenario } from "../scenario/types.js";
import { DEFAULT_PASS_K, passKEstimates } from "../stats/pass-at-k.js";
import { classifyFlakiness, summarizeMetric, wilsonInterval } from "../stats/stats.js";
import type { EndReason } from "../transcript/events.js";
import { guidanceDelivery } from "./guidance-delivery.js";
import { METRIC_DEFINITIONS, PASS_RATE, readTrialValues } from "./trial-metrics.js";
import type {
  BehaviourSummary,
  CategorySummary,
  MetricSummary,
  ReportTreatment,
  RunSummary,
  ScenarioReport,
  ScenarioSummary,
  SubcommandSummary,
  TrialReport,
} from "./types.js";

/** Trials that count towards rates: evaluated ones (not errors, not skipped). */
function isEvaluated(trial: TrialReport): boolean {
  return trial.outcome === "pass" || trial.outcome === "fail";
}

/** Trials that spent something: every one but the skipped (a skipped trial never started). */
function ran(trial: TrialReport): boolean {
  return trial.outcome !== "skipped";
}

/** The trial's known cost (agent and judge); see hasUnknownCost for what it leaves out. */
function trialCost(trial: TrialReport): number {
  return (trial.execution.cost_usd ?? 0) + (trial.judge_usage?.cost_usd ?? 0);
}

/** True when the agent's or the judge's cost could not be computed (a model with no known price). */
function hasUnknownCost(trial: TrialReport): boolean {
  return (
    trial.execution.cost_usd === null || (trial.judge_usage !== null && trial.judge_usage.cost_usd === null)
  );
}

export function summarizeScenario(trials: TrialReport[], k: number = DEFAULT_PASS_K): ScenarioSummary {
  const count = (outcome: TrialReport["outcome"]) => trials.filter((t) => t.outcome === outcome).length;
  const passed = count("pass");
  const failed = count("fail");
  const evaluated = trials.filter(isEvaluated);
  const n = passed + failed;
  const interval = wilsonInterval(passed, n);
  const metrics: Record<string, MetricSummary> = {};
  for (const definition of METRIC_DEFINITIONS) {
    // The pass rate has its own fields, with the interval that suits a proportion.
    if (definition.name === PASS_RATE) continue;
    metrics[definition.name] = summarizeMetric(readTrialValues(trials, definition));
  }
  return {
    trials: trials.length,
    passed,
    failed,
    errors: count("error"),
    skipped: count("skipped"),
    pass_rate: n > 0 ? passed / n : null,
    pass_rate_ci_low: interval?.low ?? null,
    pass_rate_ci_high: interval?.high ?? null,
    pass_k: k,
    ...passKFields(passed, n, k),
    flakiness: classifyFlakiness(passed, failed),
    score: sum(evaluated.map((t) => t.score)),
    max_score: sum(evaluated.map((t) => t.max_score)),
    cost_usd: sum(trials.map(trialCost)),
    trials_cost_unknown: trials.filter(hasUnknownCost).length,
    metrics,
  };
}

/** What a scenario report says about its scenario, apart from its trials. */
export type ScenarioMeta = Omit<ScenarioReport, "trials" | "summary">;

/**
 * `model`: the model of a matrix run's entry (null outside a matrix, and for an agent without a
 * model in an agent matrix); `agent`: the entry's agent in an agent matrix (null otherwise);
 * `guidanceIntake`: how the entry's agent takes guidance, so the report says how it reached it
 * (null: not said).
 */
export function scenarioMetaOf(
  scenario: Scenario,
  variant: string | null,
  model: string | null = null,
  agent: string | null = null,
  guidanceIntake: GuidanceIntake | null = null,
): ScenarioMeta {
  return {
    id: scenario.id,
    variant,
    ...(agent ? { agent } : {}),
    ...(model ? { model } : {}),
    category: scenario.category,
    description: scenario.description ?? null,
    tags: scenario.tags,
    source: { file: scenario.source.file, line: scenario.source.line, format: scenario.source.format },
    content_hash: scenario.contentHash,
    measurement_hash: scenario.measurementHash,
    treatment: reportTreatmentOf(scenario, variant, guidanceIntake),
    ...(scenario.toleranceGates ? { tolerance_gates: { ...scenario.toleranceGates } } : {}),
  };
}

/** The treatment an entry ran with: its variant's guidance, else the scenario's own (as the trial does). */
function reportTreatmentOf(
  scenario: Scenario,
  variant: string | null,
  intake: GuidanceIntake | null,
): ReportTreatment {
  const { treatment } = scenario;
  const guidance = (variant ? treatment.variants[variant] : null) ?? treatment.guidance;
  const delivery = guidance && intake ? { delivery: guidanceDelivery(intake, guidance.mode) } : {};
  return {
    guidance: guidance
      ? [{ path: guidance.path, mode: guidance.mode, sha256: guidance.sha256, ...delivery }]
      : [],
    tool: treatment.tool ? [{ path: treatment.tool.path, sha256: treatment.tool.sha256 }] : [],
  };
}

export function buildScenarioReport(
  meta: ScenarioMeta,
  trials: TrialReport[],
  k: number = DEFAULT_PASS_K,
): ScenarioReport {
  const sorted = [...trials].sort((a, b) => a.trial - b.trial);
  return {
    ...meta,
    trials: sorted,
    summary: summarizeScenario(sorted, k),
    by_subcommand: summarizeSubcommands(sorted),
    ...behaviourField(sorted),
  };
}

/**
 * The evaluated trials' behaviour pooled (BehaviourSummary); absent when none records it. The first
 * failed call is a failing trial's when one has it: that is the call that explains a regression.
 */
export function summarizeBehaviour(trials: readonly TrialReport[]): BehaviourSummary | null {
  const recorded = trials.filter(isEvaluated).filter((t) => t.behaviour !== undefined);
  if (recorded.length === 0) return null;
  const summary: BehaviourSummary = {
    trials: recorded.length,
    calls: 0,
    help_calls: 0,
    subcommands: {},
    options: {},
    shapes: {},
    first_failure: null,
  };
  const add = (into: Record<string, number>, from: Record<string, number>) => {
    for (const [name, count] of Object.entries(from)) into[name] = (into[name] ?? 0) + count;
  };
  for (const trial of recorded) {
    summary.calls += trial.interaction.total_commands;
    summary.help_calls += trial.interaction.help_invocations;
    add(
      summary.subcommands,
      Object.fromEntries(Object.entries(trial.by_subcommand).map(([name, m]) => [name, m.total_commands])),
    );
    add(summary.options, trial.behaviour?.options ?? {});
    add(summary.shapes, trial.behaviour?.shapes ?? {});
  }
  const failing = [...recorded].sort((a, b) => Number(a.outcome !== "fail") - Number(b.outcome !== "fail"));
  const withFailure = failing.find((t) => t.behaviour?.first_failure);
  if (withFailure?.behaviour?.first_failure) {
    summary.first_failure = { ...withFailure.behaviour.first_failure, trial: withFailure.trial };
  }
  return summary;
}

function behaviourField(trials: readonly TrialReport[]): Pick<ScenarioReport, "behaviour"> {
  const behaviour = summarizeBehaviour(trials);
  return behaviour ? { behaviour } : {};
}

/**
 * Layer 1 per subcommand, pooled over the evaluated trials, subcommands sorted by name. The error
 * rate is errors ÷ commands of the trials whose rate was known (a trial with no known exit code
 * adds its commands to `commands` only).
 */
export function summarizeSubcommands(trials: readonly TrialReport[]): Record<string, SubcommandSummary> {
  const entries = new Map<string, SubcommandSummary & { known: number }>();
  for (const trial of trials.filter(isEvaluated)) {
    for (const [name, m] of Object.entries(trial.by_subcommand)) {
      const entry = entries.get(name) ?? {
        trials: 0,
        commands: 0,
        errors: 0,
        error_rate: null,
        retries: 0,
        help_invocations: 0,
        known: 0,
      };
      entries.set(name, entry);
      entry.trials += 1;
      entry.commands += m.total_commands;
      entry.errors += m.error_count;
      entry.retries += m.retry_count;
      entry.help_invocations += m.help_invocations;
      if (m.error_rate !== null) entry.known += m.total_commands;
    }
  }
  const sortedNames = [...entries.keys()].sort((a, b) => a.localeCompare(b));
  return Object.fromEntries(
    sortedNames.map((name) => {
      const { known, ...entry } = entries.get(name) as SubcommandSummary & { known: number };
      return [name, { ...entry, error_rate: ratio(entry.errors, known) }];
    }),
  );
}

function countEndReasons(trials: readonly TrialReport[]): Partial<Record<EndReason, number>> {
  const counts: Partial<Record<EndReason, number>> = {};
  for (const trial of trials) {
    if (trial.end_reason) counts[trial.end_reason] = (counts[trial.end_reason] ?? 0) + 1;
  }
  return counts;
}

function passKFields(passed: number, n: number, k: number) {
  const estimates = passKEstimates(passed, n, k);
  return { pass_at_k: estimates.passAtK, pass_hat_k: estimates.passHatK };
}

function sum(values: number[]): number {
  return values.reduce((a, b) => a + b, 0);
}

function ratio(numerator: number, denominator: number): number | null {
  return denominator > 0 ? numerator / denominator : null;
}

/**
 * Per run and per category, in one scope (docs/metrics.md "Run totals"): spend — tokens, cost, duration —
 * and the end reasons cover every trial that ran, errors included, because they were paid for;
 * everything else (tasks, score, turns, tool calls, every rate and per-task average) covers the
 * evaluated trials, bashkit-eval's "tasks" (one trial = one run of a task).
 */
export function summarizeRun(scenarios: ScenarioReport[]): RunSummary {
  const all = scenarios.flatMap((s) => s.trials);
  const spent = all.filter(ran);
  const evaluated = all.filter(isEvaluated);
  const passed = evaluated.filter((t) => t.outcome === "pass").length;
  const failed = evaluated.length - passed;
  const errors = all.filter((t) => t.outcome === "error").length;
  const skipped = all.filter((t) => t.outcome === "skipped").length;
  const toolCalls = sum(evaluated.map((t) => t.execution.tool_calls));
  const toolOk = sum(evaluated.map((t) => t.execution.tool_calls_ok));
  const turns = sum(evaluated.map((t) => t.execution.turns));
  const evaluatedDuration = sum(evaluated.map((t) => t.execution.duration_ms));
  const score = sum(evaluated.map((t) => t.score));
  const maxScore = sum(evaluated.map((t) => t.max_score));

  const byCategory: Record<string, CategorySummary> = {};
  for (const scenario of scenarios) {
    const entry = byCategory[scenario.category] ?? {
      tasks: 0,
      passed: 0,
      score: 0,
      max_score: 0,
      rate: null,
      pass_rate: null,
      errors: 0,
    };
    byCategory[scenario.category] = entry;
    for (const trial of scenario.trials) {
      if (trial.outcome === "error") entry.errors += 1;
      if (!isEvaluated(trial)) continue;
      entry.tasks += 1;
      if (trial.outcome === "pass") entry.passed += 1;
      entry.score += trial.score;
      entry.max_score += trial.max_score;
    }
  }
  for (const entry of Object.values(byCategory)) {
    entry.rate = ratio(entry.score, entry.max_score);
    entry.pass_rate = ratio(entry.passed, entry.tasks);
  }
  const sortedCategories = Object.fromEntries(
    Object.entries(byCategory).sort(([a], [b]) => a.localeCompare(b)),
  );

  const scenariosPassed = scenarios.filter(
    (s) => s.summary.passed > 0 && s.summary.failed === 0 && s.summary.errors === 0,
  ).length;
  // A run that evaluated nothing did not pass: there is nothing it passed.
  const outcome: RunSummary["outcome"] =
    failed > 0 ? "fail" : errors > 0 || evaluated.length === 0 ? "error" : "pass";
  return {
    outcome,
    scenarios: scenarios.length,
    scenarios_passed: scenariosPassed,
    trials: all.length,
    passed,
    failed,
    errors,
    skipped,
    pass_rate: ratio(passed, evaluated.length),
    total_tasks: evaluated.length,
    total_passed: passed,
    total_score: score,
    total_max_score: maxScore,
    overall_rate: ratio(score, maxScore),
    total_tool_calls: toolCalls,
    tool_calls_ok: toolOk,
    tool_calls_error: toolCalls - toolOk,
    tool_call_success_rate: ratio(toolOk, toolCalls),
    total_turns: turns,
    avg_turns_per_task: ratio(turns, evaluated.length),
    avg_tool_calls_per_task: ratio(toolCalls, evaluated.length),
    total_input_tokens: sum(spent.map((t) => t.execution.input_tokens)),
    total_output_tokens: sum(spent.map((t) => t.execution.output_tokens)),
    total_cache_read_tokens: sum(spent.map((t) => t.execution.cache_read_tokens)),
    total_cache_write_tokens: sum(spent.map((t) => t.execution.cache_write_tokens)),
    total_duration_ms: sum(spent.map((t) => t.execution.duration_ms)),
    avg_duration_ms: ratio(evaluatedDuration, evaluated.length),
    total_cost_usd: sum(spent.map(trialCost)),
    judge_cost_usd: sum(spent.map((t) => t.judge_usage?.cost_usd ?? 0)),
    end_reasons: countEndReasons(spent),
    trials_cost_unknown: spent.filter(hasUnknownCost).length,
    ...recordedField(spent),
    by_category: sortedCategories,
  };
}

/** How many trials carry recorded figures (a replay), only when some do. */
function recordedField(
  trials: readonly TrialReport[],
): Pick<RunSummary, "trials_recorded" | "trials_cost_priced"> {
  const recorded = trials.filter((trial) => trial.execution.recorded === true).length;
  const priced = trials.filter((trial) => trial.execution.cost_priced === true).length;
  return {
    ...(recorded > 0 ? { trials_recorded: recorded } : {}),
    ...(priced > 0 ? { trials_cost_priced: priced } : {}),
  };
}
