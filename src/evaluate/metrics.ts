/**
 * Layer 1 (docs/metrics.md) and bashkit-eval's execution figures, computed in one pass over arrays.
 *
 * A failure is a known non-zero exit code other than 141 (killed by SIGPIPE because its reader
 * closed the pipe: not an error, see invocations.ts). Unknown exit codes (null: transcript-regex
 * invocations, a command before the last one of a tool call, or a call cut off before its result)
 * are neither successes nor failures:
 * - error_count counts known non-zero codes; error_rate divides by the invocations whose code is
 *   known (the same as N when all are known) and is null when none is known;
 * - a retry needs a previous invocation of the same subcommand with a known non-zero code;
 *   retry_rate = retry_count / N, null when no exit code is known;
 * - first_try_success_rate counts only subcommands whose first (non-help) invocation has a known code.
 * Invocations without a subcommand form one group, "(none)", for retries and first tries.
 */

import { computeCost, lookupPrice, type PriceTable } from "../model/pricing.js";
import type { ExecutionMetrics, InteractionMetrics } from "../results/types.js";
import type { EndReason, TrialEvent } from "../transcript/events.js";
import { type Invocation, isFailedExit } from "./invocations.js";

export const NO_SUBCOMMAND = "(none)";

/** The trial counts as completed only when the agent stopped on its own. */
export function isCompleted(endReason: EndReason | null | undefined): boolean {
  return endReason === "natural_stop";
}

/** `--help` / `-h` among the arguments, or the subcommand `help`. */
export function isHelpInvocation(invocation: Invocation): boolean {
  if (invocation.subcommand === "help") return true;
  const args = invocation.argv ? invocation.argv.slice(1) : invocation.command.split(/\s+/);
  return args.some((arg) => arg === "--help" || arg === "-h");
}

export function computeInteraction(
  invocations: readonly Invocation[],
  completed: boolean,
): InteractionMetrics {
  const total = invocations.length;
  const commands = new Set<string>();
  const lastExitBySubcommand = new Map<string, number | null>();
  const firstExitBySubcommand = new Map<string, number | null>();
  let known = 0;
  let errors = 0;
  let retries = 0;
  let help = 0;

  for (const invocation of invocations) {
    commands.add(invocation.command);
    const exit = invocation.exit_code;
    if (exit !== null) {
      known += 1;
      if (isFailedExit(exit)) errors += 1;
    }
    const key = invocation.subcommand ?? NO_SUBCOMMAND;
    const previous = lastExitBySubcommand.get(key);
    if (previous !== undefined && isFailedExit(previous)) retries += 1;
    lastExitBySubcommand.set(key, exit);
    if (isHelpInvocation(invocation)) help += 1;
    else if (!firstExitBySubcommand.has(key)) firstExitBySubcommand.set(key, exit);
  }

  let firstKnown = 0;
  let firstOk = 0;
  for (const exit of firstExitBySubcommand.values()) {
    if (exit === null) continue;
    firstKnown += 1;
    if (!isFailedExit(exit)) firstOk += 1;
  }

  return {
    total_commands: total,
    unique_commands: commands.size,
    error_count: errors,
    error_rate: known > 0 ? errors / known : null,
    retry_count: retries,
    retry_rate: total > 0 && known > 0 ? retries / total : null,
    help_invocations: help,
    first_try_success_rate: firstKnown > 0 ? firstOk / firstKnown : null,
    iteration_ratio: total > 0 ? commands.size / total : null,
    completed,
  };
}

/** Layer 1 per subcommand, keys in order of first use; "(none)" for invocations without one. */
export function computeBySubcommand(
  invocations: readonly Invocation[],
  completed: boolean,
): Record<string, InteractionMetrics> {
  const groups = new Map<string, Invocation[]>();
  for (const invocation of invocations) {
    const key = invocation.subcommand ?? NO_SUBCOMMAND;
    let group = groups.get(key);
    if (!group) {
      group = [];
      groups.set(key, group);
    }
    group.push(invocation);
  }
  const result: Record<string, InteractionMetrics> = {};
  for (const [key, group] of groups) result[key] = computeInteraction(group, completed);
  return result;
}

/**
 * Execution figures (bashkit-eval). turns = model_response events, or the turns the trial_end
 * reports when there are none (external agents). Tool calls = tool_result events, ok = exit 0.
 * rate_limit_wait_ms sums the waits the model client announced before retrying (model_error
 * events with will_retry and retry_after_ms); a retry without an announced wait adds 0.
 * cost_usd: the sum of costs an external agent reported on its model_response events when it
 * reported any; else the tokens priced with `prices` for `model`; null when the model is unknown
 * (never 0: an unknown cost is said, not hidden). A trial that called no model (the oracle, a
 * trial that never started) costs 0.
 * A replayed trial's `recorded_execution` event gives the model's figures instead (turns, tokens,
 * natural stop, cost: the recorded cost, else its tokens priced for the recorded model, else
 * unknown), and `recorded: true` says so; its tool calls are the replayed ones, measured now.
 */
export function computeExecution(
  events: readonly TrialEvent[],
  options: { prices: Readonly<PriceTable>; model: string | null },
): ExecutionMetrics {
  let responses = 0;
  let toolCalls = 0;
  let toolCallsOk = 0;
  let inputTokens = 0;
  let outputTokens = 0;
  let cacheRead = 0;
  let cacheWrite = 0;
  let waitMs = 0;
  let reportedCost = 0;
  let hasReportedCost = false;
  let lastTms = 0;
  let end: Extract<TrialEvent, { type: "trial_end" }> | null = null;
  let recorded: Extract<TrialEvent, { type: "recorded_execution" }> | null = null;

  for (const event of events) {
    if (event.t_ms > lastTms) lastTms = event.t_ms;
    switch (event.type) {
      case "model_response":
        responses += 1;
        inputTokens += event.usage.input_tokens;
        outputTokens += event.usage.output_tokens;
        cacheRead += event.usage.cache_read_tokens;
        cacheWrite += event.usage.cache_write_tokens;
        if (typeof event.cost_usd === "number" && Number.isFinite(event.cost_usd)) {
          reportedCost += event.cost_usd;
          hasReportedCost = true;
        }
        break;
      case "model_error":
        if (event.will_retry && event.retry_after_ms !== null && event.retry_after_ms > 0) {
          waitMs += event.retry_after_ms;
        }
        break;
      case "tool_result":
        toolCalls += 1;
        if (event.exit_code === 0) toolCallsOk += 1;
        break;
      case "trial_end":
        end = event;
        break;
      case "recorded_execution":
        recorded = event;
        break;
      default:
        break;
    }
  }

  const usage = {
    input_tokens: inputTokens,
    output_tokens: outputTokens,
    cache_read_tokens: cacheRead,
    cache_write_tokens: cacheWrite,
  };
  let cost: number | null = null;
  if (hasReportedCost) cost = reportedCost;
  else if (responses === 0 && (end?.turns ?? 0) === 0 && Object.values(usage).every((n) => n === 0)) cost = 0;
  else {
    const price = lookupPrice(options.prices, options.model);
    if (price) cost = computeCost(usage, price);
  }

  if (recorded)
    return withRecordedFigures(recorded, toolCalls, toolCallsOk, end, lastTms, waitMs, options.prices);
  return {
    turns: responses > 0 ? responses : (end?.turns ?? 0),
    tool_calls: toolCalls,
    tool_calls_ok: toolCallsOk,
    tool_calls_error: toolCalls - toolCallsOk,
    tool_call_success_rate: toolCalls > 0 ? toolCallsOk / toolCalls : null,
    natural_stop: end?.reason === "natural_stop",
    ...usage,
    duration_ms: end ? end.duration_ms : lastTms,
    rate_limit_wait_ms: waitMs,
    cost_usd: cost,
  };
}

function withRecordedFigures(
  recorded: Extract<TrialEvent, { type: "recorded_execution" }>,
  toolCalls: number,
  toolCallsOk: number,
  end: Extract<TrialEvent, { type: "trial_end" }> | null,
  lastTms: number,
  waitMs: number,
  prices: Readonly<PriceTable>,
): ExecutionMetrics {
  const usage = {
    input_tokens: recorded.input_tokens,
    output_tokens: recorded.output_tokens,
    cache_read_tokens: recorded.cache_read_tokens,
    cache_write_tokens: recorded.cache_write_tokens,
  };
  let cost = recorded.cost_usd;
  let priced = false;
  // As for a trial of ours: no model call recorded, nothing spent.
  if (cost === null && recorded.turns === 0 && Object.values(usage).every((n) => n === 0)) cost = 0;
  else if (cost === null) {
    const price = lookupPrice(prices, recorded.model);
    if (price) {
      cost = computeCost(usage, price);
      priced = true;
    }
  }
  return {
    turns: recorded.turns,
    tool_calls: toolCalls,
    tool_calls_ok: toolCallsOk,
    tool_calls_error: toolCalls - toolCallsOk,
    tool_call_success_rate: toolCalls > 0 ? toolCallsOk / toolCalls : null,
    natural_stop: recorded.end_reason === "natural_stop",
    ...usage,
    duration_ms: end ? end.duration_ms : lastTms,
    rate_limit_wait_ms: waitMs,
    cost_usd: cost,
    recorded: true,
    // A cost the recording did not have is this run's figure: said apart from the recorded ones.
    ...(priced ? { cost_priced: true as const } : {}),
  };
}
