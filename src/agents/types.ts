import type { ExecResult, HostFile } from "../sandbox/types.js";
import type { Scenario } from "../scenario/types.js";
import type { EndReason, EventSink } from "../transcript/events.js";
import type { AgentName } from "./registry.js";

/** Derived from the registry (src/agents/registry.ts): one descriptor per agent. */
export type { AgentName };

/** A bash call's result, with the id of the `tool_call`/`tool_result` events the harness recorded for it. */
export interface AgentCallResult extends ExecResult {
  call_id: string;
}

/** What the harness hands an agent for one trial. */
export interface AgentContext {
  scenario: Scenario;
  /** The scenario's key in reports (`id`, or `id@variant`). */
  scenarioKey: string;
  /** This trial's number (1-based) within its scenario. */
  trial: number;
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
  /**
   * One bash call in the trial's persistent shell (cwd, variables, functions and aliases last
   * between calls). The harness records `tool_call`/`tool_result` events itself.
   */
  bash(command: string, turn: number): Promise<AgentCallResult>;
  /**
   * Ends the persistent shell; the next call starts a fresh one (the bash tool's `restart`).
   * Optional so that stand-in contexts built by tests need not provide it; the harness always does.
   */
  restartShell?(): Promise<void>;
  /**
   * Run an external agent process (an agent CLI) in the sandbox: the agent environment plus
   * `extraEnv`, cwd the work dir, the target shim first on PATH, killed with its process group on
   * the trial's signal or timeout. Records no events. Optional so that stand-in contexts built by
   * tests need not provide it; the harness always does.
   */
  runProcess?(file: string, args: string[], options?: AgentProcessOptions): Promise<ExecResult>;
  events: EventSink;
}

export interface AgentProcessOptions {
  /**
   * Called with every complete stdout line as it arrives, for the first `streamCapBytes` (default
   * 1 MiB); past them `onStdoutCut` marks where the middle was cut, and the tail's lines follow.
   */
  onStdoutLine?: (line: string) => void;
  onStdoutCut?: (droppedBytes: number) => void;
  streamCapBytes?: number;
  /**
   * Host programs the process runs (a path, or a name on the parent's PATH): bwrap binds their
   * folders, and a script's interpreter's, read-only (local mode sees the host anyway).
   */
  programs?: string[];
  /** Added over the agent environment (values holding a parent secret are dropped). */
  extraEnv?: Record<string, string>;
  /** Written to the process's stdin, which is then closed; default: no stdin. */
  stdin?: string;
  /**
   * Ports of the host's 127.0.0.1 it must reach (its credential proxy): the only ones it can when
   * the scenario has no network (bwrap bridges them into its network namespace).
   */
  loopbackPorts?: number[];
  /**
   * Ends the process early, as the trial's signal would (its process tree killed), for an agent
   * that stops its CLI itself (OpenCode past the turn limit). The trial's signal still applies.
   */
  stop?: AbortSignal;
}

export interface AgentOutcome {
  reason: EndReason;
  error?: string;
  turns: number;
  /** The failure will repeat in every trial (a rejected API key, an unknown model): stop the run. */
  fatal?: boolean;
  /**
   * Why the agent's CLI, which reads the work dir's guidance itself, was not shown AGENTS.md in this
   * trial (a CLAUDE.md of the work dir's own, which Claude Code reads instead); absent when it was
   * shown, or when there was none.
   */
  guidanceNotShown?: string;
}

/**
 * How an agent's model is shown a scenario's guidance. `systemPrompt`: it gets the harness's system
 * prompt (so guidance in `system` mode). `workDirFile`: who puts the work dir's AGENTS.md in its
 * context: `harness` (the built-in loop: the harness loads it into the system prompt, as the agent
 * CLIs load theirs), `cli` (its CLI reads it as its context file), `unknown` (the command agent:
 * whether the user's CLI reads it is not known), `none` (no model, or nothing reads it).
 */
export interface GuidanceIntake {
  systemPrompt: boolean;
  workDirFile: "harness" | "cli" | "unknown" | "none";
}

export interface Agent {
  readonly name: AgentName;
  /** How its model is shown the guidance; absent: the registry's answer for its name (the command agent answers for its template). */
  readonly guidanceIntake?: GuidanceIntake;
  /**
   * Whether this agent talks to the model it is given, so the transcript may name it; absent: the
   * registry's answer for its name (the command agent answers for its own template).
   */
  readonly usesModel?: boolean;
  /**
   * Host files its processes run (an agent CLI's program; node, for a script): in local mode an
   * account of its own must reach them, which is checked before any trial.
   */
  readonly hostFiles?: readonly HostFile[];
  run(context: AgentContext): Promise<AgentOutcome>;
}
