import type { InteractionMetrics, TrialReport } from "../../src/results/types.js";

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

/** A TrialReport with neutral figures; tests set what they assert on. */
export function makeTrial(
  overrides: Partial<TrialReport> & { trial: number; outcome: TrialReport["outcome"] },
): TrialReport {
  return {
    reason: overrides.outcome === "pass" ? null : "something",
    end_reason: "natural_stop",
    invocation_source: "shim",
    interaction: makeInteraction(),
    by_subcommand: {},
    execution: {
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
    },
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
