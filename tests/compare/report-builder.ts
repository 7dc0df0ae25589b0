/**
 * Builds complete, typed reports for comparison tests and simulations: every field of the
 * report contract is present, summaries computed with the real statistics.
 */
import {
  classifyFlakiness,
  passAtK,
  passHatK,
  summarizeMetric,
  wilsonInterval,
} from "../../src/report/stats.js";
import type {
  ExecutionMetrics,
  InteractionMetrics,
  Outcome,
  Report,
  RunInfo,
  ScenarioReport,
  ScenarioSummary,
  TrialReport,
} from "../../src/report/types.js";

export interface TrialSpec extends Partial<InteractionMetrics>, Partial<ExecutionMetrics> {
  outcome?: Outcome;
}

export function buildTrial(index: number, spec: TrialSpec = {}): TrialReport {
  const outcome = spec.outcome ?? "pass";
  const total = spec.total_commands ?? 4;
  const errors = spec.error_count ?? 0;
  const interaction: InteractionMetrics = {
    total_commands: total,
    unique_commands: spec.unique_commands ?? total,
    error_count: errors,
    error_rate: spec.error_rate !== undefined ? spec.error_rate : total > 0 ? errors / total : null,
    retry_count: spec.retry_count ?? 0,
    retry_rate: spec.retry_rate !== undefined ? spec.retry_rate : total > 0 ? 0 : null,
    help_invocations: spec.help_invocations ?? 0,
    first_try_success_rate: spec.first_try_success_rate !== undefined ? spec.first_try_success_rate : 1,
    iteration_ratio: spec.iteration_ratio !== undefined ? spec.iteration_ratio : total > 0 ? 1 : null,
    completed: spec.completed ?? true,
  };
  const toolCalls = spec.tool_calls ?? total + 1;
  const execution: ExecutionMetrics = {
    turns: spec.turns ?? toolCalls + 1,
    tool_calls: toolCalls,
    tool_calls_ok: spec.tool_calls_ok ?? toolCalls - errors,
    tool_calls_error: spec.tool_calls_error ?? errors,
    tool_call_success_rate:
      spec.tool_call_success_rate !== undefined
        ? spec.tool_call_success_rate
        : toolCalls > 0
          ? (toolCalls - errors) / toolCalls
          : null,
    natural_stop: spec.natural_stop ?? true,
    input_tokens: spec.input_tokens ?? 12_000,
    output_tokens: spec.output_tokens ?? 900,
    cache_read_tokens: spec.cache_read_tokens ?? 0,
    cache_write_tokens: spec.cache_write_tokens ?? 0,
    duration_ms: spec.duration_ms ?? 20_000,
    rate_limit_wait_ms: spec.rate_limit_wait_ms ?? 0,
    cost_usd: spec.cost_usd !== undefined ? spec.cost_usd : 0.05,
  };
  const passed = outcome === "pass";
  return {
    trial: index + 1,
    outcome,
    reason: passed ? null : outcome === "error" ? "setup failed" : "gate file_exists failed",
    end_reason: outcome === "error" ? "infra_error" : "natural_stop",
    invocation_source: "shim",
    interaction,
    by_subcommand: { "(none)": interaction },
    execution,
    gates: [{ gate_type: "file_exists", passed, message: passed ? "found" : "missing", weight: 1 }],
    gates_passed: passed ? 1 : 0,
    gates_total: 1,
    score: passed ? 1 : 0,
    max_score: 1,
    judge_score: null,
    judge_response: null,
    judge_usage: null,
    composite_score: null,
    events_path: `trials/t${index + 1}/events.jsonl`,
    transcript_path: null,
  };
}

const SUMMARY_METRICS: Array<keyof InteractionMetrics | keyof ExecutionMetrics> = [
  "total_commands",
  "error_rate",
  "first_try_success_rate",
  "turns",
  "cost_usd",
  "duration_ms",
];

export function summarizeTrials(trials: readonly TrialReport[]): ScenarioSummary {
  const passed = trials.filter((t) => t.outcome === "pass").length;
  const failed = trials.filter((t) => t.outcome === "fail").length;
  const n = passed + failed;
  const ci = wilsonInterval(passed, n);
  const metrics: ScenarioSummary["metrics"] = {};
  for (const name of SUMMARY_METRICS) {
    metrics[name] = summarizeMetric(
      trials
        .filter((t) => t.outcome === "pass" || t.outcome === "fail")
        .map((t) => {
          const v =
            (t.interaction as unknown as Record<string, unknown>)[name] ??
            (t.execution as unknown as Record<string, unknown>)[name];
          return typeof v === "number" ? v : null;
        }),
    );
  }
  return {
    trials: trials.length,
    passed,
    failed,
    errors: trials.filter((t) => t.outcome === "error").length,
    skipped: trials.filter((t) => t.outcome === "skipped").length,
    pass_rate: n > 0 ? passed / n : null,
    pass_rate_ci_low: ci?.low ?? null,
    pass_rate_ci_high: ci?.high ?? null,
    pass_at_k: n > 0 ? passAtK(n, passed, n) : null,
    pass_hat_k: n > 0 ? passHatK(n, passed, n) : null,
    flakiness: classifyFlakiness(passed, failed),
    score: trials.reduce((s, t) => s + t.score, 0),
    max_score: trials.reduce((s, t) => s + t.max_score, 0),
    cost_usd: trials.reduce((s, t) => s + (t.execution.cost_usd ?? 0), 0),
    metrics,
  };
}

export interface ScenarioExtra {
  variant?: string | null;
  contentHash?: string;
  category?: string;
}

export function buildScenario(
  id: string,
  specs: readonly TrialSpec[],
  extra: ScenarioExtra = {},
): ScenarioReport {
  const trials = specs.map((s, i) => buildTrial(i, s));
  return {
    id,
    variant: extra.variant ?? null,
    category: extra.category ?? "notes",
    description: `Scenario ${id}`,
    tags: ["smoke"],
    source: { file: `scenarios/${id}.yaml`, line: 1, format: "yaml" },
    content_hash: extra.contentHash ?? `sha256:${id}`,
    trials,
    summary: summarizeTrials(trials),
  };
}

export function buildReport(scenarios: ScenarioReport[], run: Partial<RunInfo> = {}): Report {
  const trials = scenarios.flatMap((s) => s.trials);
  const passed = trials.filter((t) => t.outcome === "pass").length;
  const failed = trials.filter((t) => t.outcome === "fail").length;
  const errors = trials.filter((t) => t.outcome === "error").length;
  const skipped = trials.filter((t) => t.outcome === "skipped").length;
  const evaluated = passed + failed;
  const sum = (f: (t: TrialReport) => number) => trials.reduce((s, t) => s + f(t), 0);
  const toolCalls = sum((t) => t.execution.tool_calls);
  const toolOk = sum((t) => t.execution.tool_calls_ok);
  const byCategory: Report["summary"]["by_category"] = {};
  for (const s of scenarios) {
    const c = byCategory[s.category] ?? {
      tasks: 0,
      passed: 0,
      score: 0,
      max_score: 0,
      rate: null,
      pass_rate: null,
      errors: 0,
    };
    byCategory[s.category] = c;
    c.tasks += s.summary.trials;
    c.passed += s.summary.passed;
    c.score += s.summary.score;
    c.max_score += s.summary.max_score;
    c.errors += s.summary.errors;
    c.rate = c.max_score > 0 ? c.score / c.max_score : null;
    const denominator = c.tasks - c.errors;
    c.pass_rate = denominator > 0 ? c.passed / denominator : null;
  }
  return {
    schema_version: 1,
    run: {
      id: "run-base",
      started_at: "2025-01-01T00:00:00.000Z",
      ended_at: "2025-01-01T00:10:00.000Z",
      harness_version: "0.1.0",
      agent: "anthropic",
      model: "claude-sonnet-4-5",
      judge_model: null,
      git_sha: "0123456789abcdef0123456789abcdef01234567",
      git_ref: "refs/heads/main",
      settings_hash: "sha256:settings",
      price_table: {
        "claude-sonnet-4-5": { input: 3, output: 15, cache_read: 0.3, cache_write: 3.75 },
      },
      incomplete: false,
      shard: null,
      ...run,
    },
    scenarios,
    summary: {
      outcome: failed > 0 ? "fail" : errors > 0 ? "error" : "pass",
      scenarios: scenarios.length,
      scenarios_passed: scenarios.filter((s) => s.summary.flakiness === "stable_pass").length,
      trials: trials.length,
      passed,
      failed,
      errors,
      skipped,
      pass_rate: evaluated > 0 ? passed / evaluated : null,
      total_tasks: evaluated,
      total_passed: passed,
      total_score: sum((t) => t.score),
      total_max_score: sum((t) => t.max_score),
      overall_rate: evaluated > 0 ? sum((t) => t.score) / sum((t) => t.max_score) : null,
      total_tool_calls: toolCalls,
      tool_calls_ok: toolOk,
      tool_calls_error: toolCalls - toolOk,
      tool_call_success_rate: toolCalls > 0 ? toolOk / toolCalls : null,
      total_turns: sum((t) => t.execution.turns),
      avg_turns_per_task: trials.length > 0 ? sum((t) => t.execution.turns) / trials.length : null,
      avg_tool_calls_per_task: trials.length > 0 ? toolCalls / trials.length : null,
      total_input_tokens: sum((t) => t.execution.input_tokens),
      total_output_tokens: sum((t) => t.execution.output_tokens),
      total_cache_read_tokens: sum((t) => t.execution.cache_read_tokens),
      total_cache_write_tokens: sum((t) => t.execution.cache_write_tokens),
      total_duration_ms: sum((t) => t.execution.duration_ms),
      avg_duration_ms: trials.length > 0 ? sum((t) => t.execution.duration_ms) / trials.length : null,
      total_cost_usd: sum((t) => t.execution.cost_usd ?? 0),
      judge_cost_usd: 0,
      by_category: byCategory,
    },
  };
}
