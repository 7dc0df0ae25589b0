/**
 * The port through which the agent loop and the judge talk to a model. Shapes follow the
 * Anthropic Messages API wire format, so the real client is a thin adapter
 * (`anthropic-client.ts`, the only module importing `@anthropic-ai/sdk`) and tests can use the
 * real client against a scripted server on 127.0.0.1.
 */

/**
 * One attempt's deadline, by default. A non-streaming answer of a few thousand tokens comes well
 * within it; an attempt past it is taken for hung, abandoned (its limiter slot freed) and retried.
 */
export const DEFAULT_ATTEMPT_TIMEOUT_MS = 120_000;

export interface TextBlock {
  type: "text";
  text: string;
  cache_control?: { type: "ephemeral" };
}
export interface ToolUseBlock {
  type: "tool_use";
  id: string;
  name: string;
  input: unknown;
}
export interface ToolResultBlock {
  type: "tool_result";
  tool_use_id: string;
  content: string;
  is_error?: boolean;
  cache_control?: { type: "ephemeral" };
}
export type ContentBlock = TextBlock | ToolUseBlock | ToolResultBlock;

export interface ChatMessage {
  role: "user" | "assistant";
  content: string | ContentBlock[];
}

export interface ToolDefinition {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
  cache_control?: { type: "ephemeral" };
}

export interface CreateMessageParams {
  model: string;
  max_tokens: number;
  system?: string | TextBlock[];
  messages: ChatMessage[];
  tools?: ToolDefinition[];
  tool_choice?: { type: "auto" } | { type: "any" } | { type: "tool"; name: string };
  temperature?: number;
}

export interface ModelUsage {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
}

export interface ModelResponse {
  id: string;
  model: string;
  stop_reason: string | null;
  content: (TextBlock | ToolUseBlock)[];
  usage: ModelUsage;
  /** Milliseconds this call spent waiting rather than working: for a limiter slot and in backoff between attempts. */
  waited_ms?: number;
  /** Attempts the call took (1 when the first one succeeded). */
  attempts?: number;
}

/** Told about each failed attempt (so it lands in the events) before the client retries or gives up. */
export interface RetryNotice {
  attempt: number;
  status: number | null;
  message: string;
  willRetry: boolean;
  retryAfterMs: number | null;
  /** The sleep the client will take before the next attempt (null when it gives up). */
  delayMs?: number | null;
}

export interface CallOptions {
  signal?: AbortSignal;
  onRetry?: (notice: RetryNotice) => void;
}

/** Thrown when a call failed for good (retries exhausted, or a non-retryable API error). */
export class ModelCallError extends Error {
  override readonly name = "ModelCallError";
  constructor(
    message: string,
    readonly status: number | null,
    readonly attempts: number,
  ) {
    super(message);
  }
}

/**
 * Shared by every model call of a run, so concurrent trials adapt together to rate limits
 * (issue 7): a call holds a slot while its request is in flight; 429/529 answers shrink the
 * number of slots and pause new calls for the server's retry-after; successes grow it again.
 */
export interface CallLimiter {
  /** Waits for a slot; rejects when the signal aborts while waiting. */
  acquire(signal?: AbortSignal): Promise<void>;
  release(): void;
  onRateLimited(retryAfterMs: number | null): void;
  onSuccess(): void;
  /** Total milliseconds callers have spent waiting in `acquire` (time lost to rate limits, reported apart). */
  waitedMs(): number;
}

export interface ModelClient {
  createMessage(params: CreateMessageParams, options?: CallOptions): Promise<ModelResponse>;
}
