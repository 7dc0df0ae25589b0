/**
 * Trials as OpenTelemetry spans in OTLP/JSON (an ExportTraceServiceRequest, as an OTLP/HTTP
 * collector takes it and as trace viewers import it), named and attributed by the GenAI semantic
 * conventions (gen_ai.*, semantic conventions v1.41.0, status Development):
 *
 * - one trace per trial, its root span `invoke_agent {agent}` (gen_ai.operation.name
 *   invoke_agent, gen_ai.provider.name, the trial's model, tokens, outcome);
 * - a `chat {model}` span per model turn (gen_ai.provider.name, gen_ai.usage.input_tokens /
 *   output_tokens, gen_ai.response.finish_reasons);
 * - an `execute_tool bash` span per command the agent ran, with its exit status
 *   (`process.exit.code`), the command (`gen_ai.tool.call.arguments`) and status ERROR
 *   (`error.type` nonzero_exit or timeout) when it did not exit 0.
 *
 * As the conventions ask: `gen_ai.usage.input_tokens` counts every input token, cached ones
 * included (cache reads and writes are also given apart); `gen_ai.request.model` is the provider's
 * id (`gpt-5.2`, the harness's `openai:` prefix becoming `gen_ai.provider.name`); a span that
 * succeeded leaves its status UNSET, and one that failed has status ERROR and `error.type`.
 *
 * Ids are derived from the run, the scenario and the trial (a sha256), so the same report always
 * gives the same trace ids. A replayed trial's model figures are its recording's: the root span
 * says so (`llm_tool_test.recorded`). Pure.
 */
import { createHash } from "node:crypto";
import { scenarioKey } from "../results/scenario-key.js";
import type { Report, ScenarioReport, TrialReport } from "../results/types.js";
import type { EventOf, TokenUsage, TrialEvent } from "../transcript/events.js";
import { exportedModel } from "./genai-model.js";

const GENAI_SEMCONV_VERSION = "1.41.0";
const SCHEMA_URL = `https://opentelemetry.io/schemas/${GENAI_SEMCONV_VERSION}`;

type AttributeValue =
  | { stringValue: string }
  | { intValue: string }
  | { doubleValue: number }
  | { boolValue: boolean }
  | { arrayValue: { values: AttributeValue[] } };

export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** 1 INTERNAL, 3 CLIENT. */
  kind: 1 | 3;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: { key: string; value: AttributeValue }[];
  /** 0 UNSET (success too: instrumentation leaves OK to applications), 2 ERROR. */
  status: { code: 0 | 2; message?: string };
}

function value(v: string | number | boolean | string[]): AttributeValue {
  if (Array.isArray(v)) return { arrayValue: { values: v.map((s) => ({ stringValue: s })) } };
  if (typeof v === "string") return { stringValue: v };
  if (typeof v === "boolean") return { boolValue: v };
  return Number.isInteger(v) ? { intValue: String(v) } : { doubleValue: v };
}

function attributes(entries: Record<string, string | number | boolean | string[] | null | undefined>) {
  return Object.entries(entries)
    .filter((entry): entry is [string, string | number | boolean | string[]] => entry[1] != null)
    .map(([key, v]) => ({ key, value: value(v) }));
}

function hexId(bytes: number, ...parts: string[]): string {
  return createHash("sha256")
    .update(parts.join("\u0000"))
    .digest("hex")
    .slice(0, bytes * 2);
}

/** ISO timestamp (+ milliseconds) as OTLP's nanoseconds since the epoch, a decimal string. */
function nanos(iso: string | undefined, offsetMs = 0): string {
  const ms = iso ? Date.parse(iso) : Number.NaN;
  const at = Number.isFinite(ms) ? ms + offsetMs : 0;
  return (BigInt(Math.max(0, Math.round(at))) * 1_000_000n).toString();
}

/** Every input token, as gen_ai.usage.input_tokens counts them: uncached, cache reads and cache writes. */
function allInputTokens(
  usage: Pick<TokenUsage, "input_tokens" | "cache_read_tokens" | "cache_write_tokens">,
) {
  return usage.input_tokens + usage.cache_read_tokens + usage.cache_write_tokens;
}

/**
 * A failed trial's `error.type`: why the agent stopped when it did not stop by itself (timeout,
 * agent_crash...), else its outcome (a trial whose gates failed: `fail`).
 */
function trialErrorType(trial: TrialReport): string {
  return trial.end_reason && trial.end_reason !== "natural_stop" ? trial.end_reason : trial.outcome;
}

/** One trial's spans: the agent's root span, then its model turns and commands. */
export function buildTrialSpans(
  report: Pick<Report, "run">,
  scenario: ScenarioReport,
  trial: TrialReport,
  events: readonly TrialEvent[],
): OtlpSpan[] {
  const key = scenarioKey(scenario);
  const traceId = hexId(16, report.run.id, key, String(trial.trial));
  const rootId = hexId(8, traceId, "root");
  const start = events.find((e): e is EventOf<"trial_start"> => e.type === "trial_start");
  const end = events.find((e): e is EventOf<"trial_end"> => e.type === "trial_end");
  // In an agent matrix a trial is its entry's: never the run's first agent or model.
  const agent = scenario.agent ?? report.run.agent;
  // A replay calls no model: its trial's is the recording's.
  const replayed = events.find((e): e is EventOf<"recorded_execution"> => e.type === "recorded_execution");
  const recordedModel =
    start?.model ?? replayed?.model ?? scenario.model ?? (scenario.agent ? null : report.run.model) ?? null;
  const { model, provider } = exportedModel(agent, recordedModel);
  const execution = trial.execution;
  // A skipped trial did not fail; only a failed or errored one is an error.
  const failed = trial.outcome === "fail" || trial.outcome === "error";
  const conversationId = `${report.run.id}/${key}/trial-${trial.trial}`;
  const spans: OtlpSpan[] = [
    {
      traceId,
      spanId: rootId,
      name: `invoke_agent ${agent}`,
      kind: 1,
      startTimeUnixNano: nanos(start?.ts ?? report.run.started_at),
      endTimeUnixNano: nanos(end?.ts ?? start?.ts ?? report.run.started_at),
      attributes: attributes({
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.provider.name": provider,
        "gen_ai.agent.name": agent,
        "gen_ai.request.model": model,
        "gen_ai.conversation.id": conversationId,
        "gen_ai.usage.input_tokens": allInputTokens(execution),
        "gen_ai.usage.output_tokens": execution.output_tokens,
        "gen_ai.usage.cache_read.input_tokens": execution.cache_read_tokens,
        "gen_ai.usage.cache_creation.input_tokens": execution.cache_write_tokens,
        "error.type": failed ? trialErrorType(trial) : null,
        "llm_tool_test.scenario": key,
        "llm_tool_test.trial": trial.trial,
        "llm_tool_test.outcome": trial.outcome,
        "llm_tool_test.end_reason": trial.end_reason,
        "llm_tool_test.turns": execution.turns,
        "llm_tool_test.cost_usd": execution.cost_usd,
        "llm_tool_test.recorded": execution.recorded ? true : null,
      }),
      status: failed ? { code: 2, message: trial.reason ?? trial.outcome } : { code: 0 },
    },
  ];
  const results = new Map<string, EventOf<"tool_result">>();
  for (const event of events) if (event.type === "tool_result") results.set(event.call_id, event);
  for (const event of events) {
    if (event.type === "model_response") {
      spans.push({
        traceId,
        spanId: hexId(8, traceId, "turn", String(event.turn)),
        parentSpanId: rootId,
        name: `chat ${model ?? "unknown"}`,
        kind: 3,
        startTimeUnixNano: nanos(event.ts, -event.duration_ms),
        endTimeUnixNano: nanos(event.ts),
        attributes: attributes({
          "gen_ai.operation.name": "chat",
          "gen_ai.provider.name": provider,
          "gen_ai.request.model": model,
          "gen_ai.conversation.id": conversationId,
          "gen_ai.usage.input_tokens": allInputTokens(event.usage),
          "gen_ai.usage.output_tokens": event.usage.output_tokens,
          "gen_ai.usage.cache_read.input_tokens": event.usage.cache_read_tokens,
          "gen_ai.usage.cache_creation.input_tokens": event.usage.cache_write_tokens,
          "gen_ai.response.finish_reasons": event.stop_reason ? [event.stop_reason] : null,
          "llm_tool_test.turn": event.turn,
        }),
        status: { code: 0 },
      });
    } else if (event.type === "tool_call") {
      const result = results.get(event.call_id);
      const failed = result !== undefined && result.exit_code !== 0;
      spans.push({
        traceId,
        spanId: hexId(8, traceId, "call", event.call_id),
        parentSpanId: rootId,
        name: "execute_tool bash",
        kind: 1,
        startTimeUnixNano: nanos(event.ts),
        endTimeUnixNano: nanos(result?.ts ?? event.ts),
        attributes: attributes({
          "gen_ai.operation.name": "execute_tool",
          "gen_ai.tool.name": "bash",
          "gen_ai.tool.type": "function",
          "gen_ai.tool.call.id": event.call_id,
          "gen_ai.tool.call.arguments": JSON.stringify({ command: event.command }),
          "process.exit.code": result?.exit_code ?? null,
          "error.type": failed ? (result.timed_out ? "timeout" : "nonzero_exit") : null,
          "llm_tool_test.turn": event.turn,
          "llm_tool_test.output_truncated": result?.truncated ?? null,
        }),
        // Success, and a command that never returned (the trial ended first), are left UNSET.
        status: failed ? { code: 2, message: `exit ${result.exit_code}` } : { code: 0 },
      });
    }
  }
  return spans;
}

/** The whole report as one OTLP/JSON ExportTraceServiceRequest; `events` keyed by events_path. */
export function renderOtelJson(report: Report, events: Record<string, TrialEvent[]>): string {
  const spans = report.scenarios.flatMap((scenario) =>
    scenario.trials.flatMap((trial) =>
      buildTrialSpans(report, scenario, trial, trial.events_path ? (events[trial.events_path] ?? []) : []),
    ),
  );
  const request = {
    resourceSpans: [
      {
        resource: {
          attributes: attributes({
            "service.name": "llm-tool-test",
            "service.version": report.run.harness_version,
            "llm_tool_test.run_id": report.run.id,
          }),
        },
        scopeSpans: [
          {
            scope: { name: "llm-tool-test", version: report.run.harness_version },
            schemaUrl: SCHEMA_URL,
            spans,
          },
        ],
        schemaUrl: SCHEMA_URL,
      },
    ],
  };
  return `${JSON.stringify(request, null, 2)}\n`;
}
