/**
 * The one factory for report data: TrialReport, ScenarioReport and Report. Every field of the
 * report contract is present, summaries come from the real aggregation, and the defaults are
 * neutral: tests set what they assert on.
 */
import {
  buildScenarioReport,
  summarizeBehaviour,
  summarizeRun,
  summarizeScenario,
  summarizeSubcommands,
} from "../../src/results/aggregate.js";
import { assembleReport } from "../../src/results/assemble-report.js";
import {
  type BehaviourSummary,
  type ExecutionMetrics,
  type InteractionMetrics,
  type Outcome,
  REPORT_SCHEMA_VERSION,
  type Report,
  type RunInfo,
  type ScenarioReport,
  type TrialReport,
} from "../../src/results/types.js";

export function makeInteraction(overrides: Partial<InteractionMetrics> = {}): InteractionMetrics {
  return {
    total_commands: 0,
    unique_commands: 0,
    error_count: 0,
    error_rate: null,
    retry_count: 0,
    retry_rate: null,
    help_invocations: 0,
    first_try_success_rate: null,
    iteration_ratio: null,
    completed: true,
    ...overrides,
  };
}

export function makeExecution(overrides: Partial<ExecutionMetrics> = {}): ExecutionMetrics {
  return {
    turns: 0,
    tool_calls: 0,
    tool_calls_ok: 0,
    tool_calls_error: 0,
    tool_call_success_rate: null,
    natural_stop: true,
    input_tokens: 0,
    output_tokens: 0,
    cache_read_tokens: 0,
    cache_write_tokens: 0,
    duration_ms: 0,
    rate_limit_wait_ms: 0,
    cost_usd: null,
    ...overrides,
  };
}

export function makeTrial(
  overrides: Partial<TrialReport> & { trial: number; outcome: TrialReport["outcome"] },
): TrialReport {
  return {
    reason: overrides.outcome === "pass" ? null : "something",
    end_reason: "natural_stop",
    invocation_source: "shim",
    interaction: makeInteraction(),
    by_subcommand: {},
    execution: makeExecution(),
    gates: [],
    gates_passed: 0,
    gates_total: 0,
    score: 0,
    max_score: 0,
    judge_score: null,
    judge_response: null,
    judge_usage: null,
    composite_score: null,
    events_path: null,
    transcript_path: null,
    ...overrides,
  };
}

/** The figures a comparison or a simulation varies; trialsFrom derives the rest so they agree. */
export interface TrialSpec extends Partial<InteractionMetrics>, Partial<ExecutionMetrics> {
  outcome?: Outcome;
}

/**
 * Trials numbered from 1 whose metrics agree with each other: error and retry rates follow the
 * counts, tool calls follow the commands, and each trial has one file_exists gate that passed
 * exactly when the trial did. Unset figures are those of a typical passing trial.
 */
export function trialsFrom(specs: readonly TrialSpec[]): TrialReport[] {
  return specs.map((spec, index) => trialFrom(index + 1, spec));
}

function trialFrom(trial: number, spec: TrialSpec): TrialReport {
  const outcome = spec.outcome ?? "pass";
  const total = spec.total_commands ?? 4;
  const errors = spec.error_count ?? 0;
  const interaction = makeInteraction({
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
  });
  const toolCalls = spec.tool_calls ?? total + 1;
  const execution = makeExecution({
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
  });
  const passed = outcome === "pass";
  return makeTrial({
    trial,
    outcome,
    reason: passed ? null : outcome === "error" ? "setup failed" : "gate file_exists failed",
    end_reason: outcome === "error" ? "infra_error" : "natural_stop",
    interaction,
    by_subcommand: { "(none)": interaction },
    execution,
    gates: [{ gate_type: "file_exists", passed, message: passed ? "found" : "missing", weight: 1 }],
    gates_passed: passed ? 1 : 0,
    gates_total: 1,
    score: passed ? 1 : 0,
    max_score: 1,
    events_path: `trials/t${trial}/events.jsonl`,
  });
}

/** A scenario's results; the summary is the real aggregation of `trials`. */
export function makeScenarioReport(
  overrides: Partial<Omit<ScenarioReport, "summary">> & { id: string; trials: readonly TrialReport[] },
): ScenarioReport {
  const { id, trials: given, ...rest } = overrides;
  const trials = [...given];
  return {
    id,
    variant: null,
    category: "general",
    description: null,
    tags: [],
    source: { file: `scenarios/${id}.yaml`, line: 1, format: "yaml" },
    content_hash: `sha256:${id}`,
    ...rest,
    trials,
    summary: summarizeScenario(trials),
    by_subcommand: summarizeSubcommands(trials),
    ...behaviourOf(trials),
  };
}

/** The scenario's pooled behaviour, as buildScenarioReport adds it: absent when no trial records one. */
function behaviourOf(trials: readonly TrialReport[]): { behaviour?: BehaviourSummary } {
  const behaviour = summarizeBehaviour(trials);
  return behaviour ? { behaviour } : {};
}

function makeRunInfo(overrides: Partial<RunInfo> = {}): RunInfo {
  return {
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
    ...overrides,
  };
}

/** A whole report; the summary is the real aggregation of `scenarios`. */
export function makeReport(scenarios: ScenarioReport[], run: Partial<RunInfo> = {}): Report {
  return {
    schema_version: REPORT_SCHEMA_VERSION,
    run: makeRunInfo(run),
    scenarios,
    summary: summarizeRun(scenarios),
  };
}

/** The same run with every trial passed: a base branch where the scenarios that fail here passed. */
export function withEveryTrialPassing(report: Report): Report {
  return assembleReport(
    report.run,
    report.scenarios.map(({ trials, summary: _summary, ...meta }) =>
      buildScenarioReport(
        meta,
        trials.map((t) => ({ ...t, outcome: "pass" as const, reason: null })),
      ),
    ),
  );
}

/**
 * A base branch that drifts, as the decision's tests build it: `failures` failed trials spread over
 * 20 scenarios of 3 trials, the first scenarios one more. Its passes in scenario `s`:
 */
export function passesWithFailuresSpread(failures: number, s: number): number {
  return 3 - (Math.floor(failures / 20) + (s < failures % 20 ? 1 : 0));
}

/** The report of such a run (scenarios s0..s19, passes first), with `run` facts of its own. */
export function suiteWithFailures(failures: number, run: Partial<RunInfo> = {}): Report {
  return makeReport(
    Array.from({ length: 20 }, (_, s) => {
      const passed = passesWithFailuresSpread(failures, s);
      const specs: TrialSpec[] = [0, 1, 2].map((t) => ({ outcome: t < passed ? "pass" : "fail" }));
      return makeScenarioReport({ id: `s${s}`, trials: trialsFrom(specs) });
    }),
    { evaluation_hash: "e1", ...run },
  );
}
