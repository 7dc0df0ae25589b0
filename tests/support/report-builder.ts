/**
 * Builds complete, typed reports for comparison tests and simulations: every field of the
 * report contract is present, summaries computed by the real aggregation.
 */
import { summarizeRun, summarizeScenario } from "../../src/results/aggregate.js";
import type {
  ExecutionMetrics,
  InteractionMetrics,
  Outcome,
  Report,
  RunInfo,
  ScenarioReport,
  TrialReport,
} from "../../src/results/types.js";

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
    summary: summarizeScenario([...trials]),
  };
}

export function buildReport(scenarios: ScenarioReport[], run: Partial<RunInfo> = {}): Report {
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
    summary: summarizeRun(scenarios),
  };
}
