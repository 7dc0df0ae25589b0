import type { ExecResult } from "../sandbox/types.js";
import type { Scenario } from "../scenario/types.js";
import type { EndReason, EventSink } from "../transcript/events.js";

export type AgentName = "anthropic" | "oracle" | "null" | "claude-code" | "command";

/** What the harness hands an agent for one trial. */
export interface AgentContext {
  scenario: Scenario;
  /** The user message. */
  task: string;
  /** Composed by the harness: where the agent is, guidance in system mode, the scenario's `system`. */
  systemPrompt: string;
  model: string;
  maxTurns: number;
  commandTimeoutMs: number;
  /** Aborted when the trial times out or the run is cancelled. */
  signal: AbortSignal;
  /** Work dir as the agent sees it. */
  workDir: string;
  /** One bash call in the sandbox. The harness records `tool_call`/`tool_result` events itself. */
  bash(command: string, turn: number): Promise<ExecResult>;
  events: EventSink;
}

export interface AgentOutcome {
  reason: EndReason;
  error?: string;
  turns: number;
}

export interface Agent {
  readonly name: AgentName;
  run(context: AgentContext): Promise<AgentOutcome>;
}
