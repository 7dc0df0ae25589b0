/**
 * The trial event log (`events.jsonl`): one JSON object a line. Versioned; documented in
 * docs/events.md. Field names are snake_case because the file is a public contract.
 */
export const EVENTS_SCHEMA_VERSION = 2;

export type EndReason =
  | "natural_stop" // the model ended its turn / the external agent exited 0 with success
  | "turn_limit"
  | "timeout"
  | "agent_crash" // the agent itself failed (external agent non-zero exit, malformed stream)
  | "infra_error" // setup failed, sandbox failed, API exhausted its retries or the time ran out in a model call
  | "cancelled"; // the run was interrupted (SIGINT/SIGTERM, budget)

export interface TokenUsage {
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
}

/** One turn of a recorded model, as a replay carries it (`recorded_transcript`). */
export interface RecordedTurn {
  /** 1-based, as the recorded calls' `turn`. */
  turn: number;
  /** Its text blocks, joined; "" when it only called tools. */
  text: string;
  /** When the recorded model answered, when the recording kept it. */
  ts: string | null;
  /** Its token usage, when the recording kept it per turn. */
  usage: TokenUsage | null;
}

interface EventBase {
  /** ISO timestamp. */
  ts: string;
  /** Milliseconds since the trial started. */
  t_ms: number;
}

export type TrialEvent = EventBase &
  (
    | {
        type: "trial_start";
        schema_version: number;
        scenario_id: string;
        variant: string | null;
        trial: number;
        agent: string;
        model: string | null;
        /** Not known yet when the trial starts (the sandbox creates it next): null. */
        work_dir: string | null;
        sandbox: "local" | "bwrap";
      }
    | {
        /** What the agent was given: the task (the user message) and the system prompt the harness composed. */
        type: "prompt";
        task: string;
        system_prompt: string;
        /** The work dir as the agent sees it (absent in events of earlier versions). */
        work_dir?: string;
      }
    | {
        type: "setup";
        command: string;
        exit_code: number;
        stdout: string;
        stderr: string;
        duration_ms: number;
      }
    | { type: "model_request"; turn: number; model: string; message_count: number }
    | {
        type: "model_response";
        turn: number;
        stop_reason: string | null;
        usage: TokenUsage;
        /** Concatenated text blocks of the response. */
        text: string;
        tool_uses: { id: string; name: string; input: unknown }[];
        duration_ms: number;
        /** Part of duration_ms spent waiting (rate-limit slot, backoff between retries), not working. */
        waited_ms?: number;
        /** Cost reported by an external agent (claude-code), when it reports one. */
        cost_usd?: number;
      }
    | {
        type: "model_error";
        turn: number;
        attempt: number;
        status: number | null;
        message: string;
        will_retry: boolean;
        retry_after_ms: number | null;
      }
    | {
        type: "tool_call";
        call_id: string;
        turn: number;
        command: string;
        /**
         * The agent's tool when the call is no shell command (Codex's `apply_patch`): it ran no
         * command, so it invokes no target and no gate reads it as one; `command` describes it.
         */
        tool?: string;
      }
    | {
        type: "tool_result";
        call_id: string;
        stdout: string;
        stderr: string;
        exit_code: number;
        duration_ms: number;
        truncated: boolean;
        timed_out: boolean;
        /** The agent's shell is gone after this call (the timeout killed it, or its runner was killed). */
        shell_exited?: boolean;
        /**
         * The agent CLI refused the call before any shell ran it (its own policy, e.g. Gemini CLI's
         * block of `$(…)`): a failed tool call that typed no invocation of the target.
         */
        not_run?: boolean;
        /**
         * The command went on running after this result (Claude Code's `run_in_background`): the
         * exit code is the launch's, not the command's, and its invocations may start until the end.
         */
        background?: boolean;
      }
    | {
        type: "target_invocation";
        argv: string[];
        exit_code: number;
        duration_ms: number;
        cwd: string | null;
        /** Epoch ms when the invocation started (from the shim). */
        started_at_ms: number;
        /**
         * Read from argv by the harness as layer 1 reads it (evaluate/invocations.ts readTargetCall):
         * the subcommand, and the option names before and after it. Since schema version 2; layer 1
         * reads argv itself, so events of version 1 without them measure the same.
         */
        subcommand?: string | null;
        options?: string[];
      }
    /**
     * The replay agent's check of one re-issued call against its recording (after the call's
     * tool_result): what differs, in order (empty when the call behaved as recorded).
     */
    | {
        type: "replay_check";
        call_id: string;
        /** 1-based position in the recorded sequence. */
        index: number;
        /** Calls in the recording (the replay may stop before the last one: a timeout, a cancel). */
        recorded_calls: number;
        recorded_exit_code: number | null;
        exit_code: number;
        differences: ReplayDifference[];
      }
    /**
     * The replay agent's figures of the recorded trial it replayed (after its calls): what the
     * recorded model did, which a replay cannot measure. Layer 1 reports them as recorded values.
     */
    | {
        type: "recorded_execution";
        /** The recorded trial's model, when the recording names it. */
        model: string | null;
        turns: number;
        input_tokens: number;
        output_tokens: number;
        cache_read_tokens: number;
        cache_write_tokens: number;
        /** Tool calls of the recorded trial. */
        tool_calls: number;
        /** How the recorded trial ended. */
        end_reason: EndReason;
        /** The cost the recorded agent reported; null when it reported none. */
        cost_usd: number | null;
      }
    /**
     * The replay agent's copy of the recorded model's side of the trial (before the replayed
     * calls): what it said each turn, and the system prompt it was given when the recording kept
     * it. A replay's own prompt event is the harness's, which the recorded model never saw.
     */
    | {
        type: "recorded_transcript";
        /** The recorded model's system prompt; null when the recording does not have it. */
        system_prompt: string | null;
        turns: RecordedTurn[];
      }
    /**
     * Free text from an external agent (its stdout) kept as the transcript. `truncated`: this event
     * stands where the middle of a stdout over its cap was cut (the head before it, the tail after).
     */
    | { type: "agent_output"; text: string; truncated?: boolean }
    | {
        type: "trial_end";
        reason: EndReason;
        error: string | null;
        turns: number;
        duration_ms: number;
      }
  );

/** How a replayed call differs from its recording. */
export type ReplayDifference = "exit_code" | "stdout" | "stderr";

export type TrialEventType = TrialEvent["type"];
export type EventOf<T extends TrialEventType> = Extract<TrialEvent, { type: T }>;
/** What an emitter passes: the writer stamps ts and t_ms. */
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
export type EventInput = DistributiveOmit<TrialEvent, "ts" | "t_ms">;

export interface EventSink {
  /**
   * `at`: when it happened (epoch ms), for an event an external agent reports after the fact (a
   * command OpenCode reports once it has finished); stamped no later than now. Default: now.
   */
  emit(event: EventInput, at?: number): void;
}
