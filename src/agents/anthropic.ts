/**
 * The built-in agent loop: one `bash` tool, one model call per turn, tool results fed back
 * until the model stops on its own, the turn limit, the trial's signal or a failed API call.
 */

import { describeError } from "../errors.js";
import {
  type ChatMessage,
  type ContentBlock,
  type CreateMessageParams,
  ModelCallError,
  type ModelClient,
  type ModelResponse,
  type RetryNotice,
  type TextBlock,
  type ToolDefinition,
  type ToolResultBlock,
  type ToolUseBlock,
} from "../model/model-client.js";
import type { ExecResult } from "../sandbox/types.js";
import { classifyAbort } from "./abort-reason.js";
import type { Agent, AgentContext, AgentOutcome } from "./types.js";

const DEFAULT_MAX_TOKENS = 4096;
const BASH_TOOL_NAME = "bash";
/** What a restarted shell means for the next call. */
const FRESH_SHELL =
  "the next command runs in a fresh shell in the work dir (files stay; the current directory, variables, functions and aliases are reset).";
export const CONTINUE_MESSAGE =
  "Your last reply was cut off at the output limit. Continue exactly where you left off.";

export interface AnthropicAgentOptions {
  maxTokens?: number;
  temperature?: number;
  /** Milliseconds, for turn durations. */
  now?: () => number;
}

const EPHEMERAL = { type: "ephemeral" } as const;

export function createAnthropicAgent(client: ModelClient, options: AnthropicAgentOptions = {}): Agent {
  const settings: TurnSettings = {
    client,
    maxTokens: options.maxTokens ?? DEFAULT_MAX_TOKENS,
    temperature: options.temperature,
    now: options.now ?? (() => performance.now()),
  };

  async function run(context: AgentContext): Promise<AgentOutcome> {
    const { signal } = context;
    const prefix = buildStablePrefix(context.systemPrompt, describeBashTool(context.commandTimeoutMs));
    const history: ChatMessage[] = [{ role: "user", content: [{ type: "text", text: context.task }] }];
    let turns = 0;

    while (true) {
      if (signal.aborted) return { reason: classifyAbort(signal), turns };
      if (turns >= context.maxTurns) return { reason: "turn_limit", turns };
      turns += 1;
      const ended = await takeTurn(settings, context, prefix, history, turns);
      if (ended) return ended;
    }
  }

  return { name: "anthropic", run };
}

/** What every turn of an agent's run uses. */
interface TurnSettings {
  client: ModelClient;
  maxTokens: number;
  temperature: number | undefined;
  now: () => number;
}

/**
 * One turn: a model call, then the commands it asked for, both added to `history`. Returns the
 * outcome when the run ends here, null when the next turn follows.
 */
async function takeTurn(
  settings: TurnSettings,
  context: AgentContext,
  prefix: { tools: ToolDefinition[]; system: TextBlock[] | undefined },
  history: ChatMessage[],
  turn: number,
): Promise<AgentOutcome | null> {
  const params: CreateMessageParams = {
    model: context.model,
    max_tokens: settings.maxTokens,
    tools: prefix.tools,
    messages: withMovingBreakpoint(history),
    ...(prefix.system ? { system: prefix.system } : {}),
    ...(settings.temperature !== undefined ? { temperature: settings.temperature } : {}),
  };
  const answer = await askModel(settings, context, params, history.length, turn);
  if ("outcome" in answer) return answer.outcome;
  const { response, toolUses } = answer;
  // The API rejects an assistant message with no content; an empty reply adds nothing to keep.
  if (response.content.length > 0) history.push({ role: "assistant", content: response.content });

  if (toolUses.length === 0) {
    if (response.stop_reason === "max_tokens") {
      history.push({ role: "user", content: [{ type: "text", text: CONTINUE_MESSAGE }] });
      return null;
    }
    return { reason: "natural_stop", turns: turn };
  }

  const results = await runToolUses(context, toolUses, turn);
  if (!Array.isArray(results)) return results;
  // Every tool_use must be answered, all in the one user message that follows it.
  history.push({ role: "user", content: results });
  return null;
}

/**
 * The turn's model call, its failed attempts and its answer recorded as events. A call that fails
 * for good (or is cut short by the trial's signal) ends the run with `outcome`.
 */
async function askModel(
  settings: TurnSettings,
  context: AgentContext,
  params: CreateMessageParams,
  messageCount: number,
  turn: number,
): Promise<{ response: ModelResponse; toolUses: ToolUseBlock[] } | { outcome: AgentOutcome }> {
  const { signal, events } = context;
  const { now } = settings;
  events.emit({ type: "model_request", turn, model: context.model, message_count: messageCount });
  const started = now();
  const failedAttempts: RetryNotice[] = [];
  let response: ModelResponse;
  try {
    response = await settings.client.createMessage(params, {
      signal,
      onRetry: (notice) => {
        failedAttempts.push(notice);
        events.emit({
          type: "model_error",
          turn,
          attempt: notice.attempt,
          status: notice.status,
          message: notice.message,
          will_retry: notice.willRetry,
          // When retrying: the wait actually planned before the next attempt (the server's
          // retry-after, capped, else the backoff). When giving up: what the server asked for, if anything.
          retry_after_ms: notice.delayMs ?? notice.retryAfterMs,
        });
      },
    });
  } catch (error) {
    if (signal.aborted) {
      return { outcome: endedDuringModelCall(signal, { turn, waitedMs: now() - started, failedAttempts }) };
    }
    if (error instanceof ModelCallError) {
      // A rejected key or an unknown model fails every trial alike: the run should stop.
      const fatal = error.status === 401 || error.status === 403 || error.status === 404;
      return {
        outcome: { reason: "infra_error", error: error.message, turns: turn, ...(fatal ? { fatal } : {}) },
      };
    }
    return {
      outcome: { reason: "infra_error", error: `model call failed: ${describeError(error)}`, turns: turn },
    };
  }

  const toolUses = response.content.filter((block): block is ToolUseBlock => block.type === "tool_use");
  events.emit({
    type: "model_response",
    turn,
    stop_reason: response.stop_reason,
    usage: {
      input_tokens: response.usage.input_tokens,
      output_tokens: response.usage.output_tokens,
      cache_read_tokens: response.usage.cache_read_input_tokens,
      cache_write_tokens: response.usage.cache_creation_input_tokens,
    },
    text: response.content
      .filter((block): block is TextBlock => block.type === "text")
      .map((block) => block.text)
      .join("\n"),
    tool_uses: toolUses.map(({ id, name, input }) => ({ id, name, input })),
    duration_ms: Math.round(now() - started),
    ...(response.waited_ms !== undefined ? { waited_ms: Math.round(response.waited_ms) } : {}),
  });
  return { response, toolUses };
}

/**
 * Runs the turn's commands in order, one tool_result each. Returns the outcome instead when the
 * trial's signal or a broken sandbox ends the run.
 */
async function runToolUses(
  context: AgentContext,
  toolUses: ToolUseBlock[],
  turn: number,
): Promise<ToolResultBlock[] | AgentOutcome> {
  const { signal } = context;
  const results: ToolResultBlock[] = [];
  for (const toolUse of toolUses) {
    if (signal.aborted) return { reason: classifyAbort(signal), turns: turn };
    const command = commandOf(toolUse);
    if (typeof command === "object" && "restart" in command) {
      const restarted = await restartShell(context);
      if (typeof restarted !== "string") return { ...restarted, turns: turn };
      results.push({ type: "tool_result", tool_use_id: toolUse.id, content: restarted });
      continue;
    }
    if (typeof command !== "string") {
      results.push({
        type: "tool_result",
        tool_use_id: toolUse.id,
        content: command.error,
        is_error: true,
      });
      continue;
    }
    let result: ExecResult;
    try {
      result = await context.bash(command, turn);
    } catch (error) {
      if (signal.aborted) return { reason: classifyAbort(signal), turns: turn };
      return {
        reason: "infra_error",
        error: `the sandbox failed to run a command: ${describeError(error)}`,
        turns: turn,
      };
    }
    results.push({
      type: "tool_result",
      tool_use_id: toolUse.id,
      content: formatToolResult(result, context.commandTimeoutMs),
      ...(result.exit_code !== 0 ? { is_error: true } : {}),
    });
  }
  return results;
}

/** The bash tool's `restart`: a message for the model, or how the run ends when the sandbox failed. */
async function restartShell(context: AgentContext): Promise<string | Omit<AgentOutcome, "turns">> {
  try {
    await context.restartShell?.();
  } catch (error) {
    if (context.signal.aborted) return { reason: classifyAbort(context.signal) };
    return {
      reason: "infra_error",
      error: `the sandbox failed to restart the shell: ${describeError(error)}`,
    };
  }
  return `The shell was restarted: ${FRESH_SHELL}`;
}

/**
 * The trial's time ran out while a model call was in flight, waiting for a limiter slot or backing
 * off between attempts: the API did not answer in time, which says nothing about the agent, so the
 * trial is an infrastructure error (excluded from pass rates), not a timeout that fails its gates.
 * A cancelled run stays `cancelled`.
 */
function endedDuringModelCall(
  signal: AbortSignal,
  call: { turn: number; waitedMs: number; failedAttempts: RetryNotice[] },
): AgentOutcome {
  const reason = classifyAbort(signal);
  if (reason === "cancelled") return { reason, turns: call.turn };
  const last = call.failedAttempts[call.failedAttempts.length - 1];
  const failures = last
    ? `; ${call.failedAttempts.length} failed attempt${call.failedAttempts.length === 1 ? "" : "s"} before, the last: ${last.message}`
    : "";
  return {
    reason: "infra_error",
    error: `the trial timed out waiting for the model API: turn ${call.turn}'s call had no answer after ${formatSeconds(call.waitedMs)}${failures}`,
    turns: call.turn,
  };
}

function describeBashTool(commandTimeoutMs: number): ToolDefinition {
  const seconds = Math.max(1, Math.round(commandTimeoutMs / 1000));
  return {
    name: BASH_TOOL_NAME,
    description: [
      "Run a command in a persistent bash shell, started in the work dir, and see its exit code, stdout and stderr.",
      "The shell lasts between calls: the current directory (after `cd`), variables, functions and aliases carry over, and background processes keep running.",
      "It is not interactive: a command's stdin is empty, so nothing can be typed into a prompt.",
      `Each call is killed after ${seconds} s, and the shell with it: the next call starts a fresh shell in the work dir (files stay).`,
      'If the shell gets into a bad state, call with {"restart": true} for a fresh one.',
      "Very long output is cut in the middle (the head and tail are kept).",
    ].join(" "),
    input_schema: {
      type: "object",
      properties: {
        command: { type: "string", description: "The bash command to run." },
        restart: {
          type: "boolean",
          description: "Set to true (without a command) to restart the shell.",
        },
      },
    },
  };
}

/**
 * Prompt caching. The API caches the prefix up to each `cache_control` breakpoint, in the order
 * tools -> system -> messages, and allows at most 4 breakpoints per request. Two are used:
 * - the end of the system prompt: caches tools + system, identical on every turn (and across
 *   trials of a scenario);
 * - the last block of the newest user message (moved every turn): writes the conversation so far,
 *   and the next turn's lookup finds the previous turn's entry a few blocks back, so each turn pays
 *   full price only for what it added. The old moving breakpoint is dropped, not accumulated,
 *   which keeps a long trial under the limit.
 */
function buildStablePrefix(
  systemPrompt: string,
  tool: ToolDefinition,
): { tools: ToolDefinition[]; system: TextBlock[] | undefined } {
  if (systemPrompt.length > 0) {
    return { tools: [tool], system: [{ type: "text", text: systemPrompt, cache_control: EPHEMERAL }] };
  }
  // An empty text block cannot carry a breakpoint; the tool is then the whole stable prefix.
  return { tools: [{ ...tool, cache_control: EPHEMERAL }], system: undefined };
}

/** The history as sent: copies, with the one moving breakpoint on the newest user message's last block. */
function withMovingBreakpoint(history: ChatMessage[]): ChatMessage[] {
  const lastUser = history.findLastIndex((message) => message.role === "user");
  return history.map((message, index) => {
    if (index !== lastUser) return message;
    const blocks: ContentBlock[] =
      typeof message.content === "string" ? [{ type: "text", text: message.content }] : [...message.content];
    const last = blocks[blocks.length - 1];
    if (last && last.type !== "tool_use") blocks[blocks.length - 1] = { ...last, cache_control: EPHEMERAL };
    return { role: message.role, content: blocks };
  });
}

function commandOf(toolUse: ToolUseBlock): string | { error: string } | { restart: true } {
  if (toolUse.name !== BASH_TOOL_NAME) {
    return {
      error: `There is no tool named "${toolUse.name}". The only tool is "bash", with input {"command": "..."} (or {"restart": true}).`,
    };
  }
  const input = toolUse.input as { command?: unknown; restart?: unknown } | null;
  if (input && typeof input === "object" && typeof input.command === "string") return input.command;
  if (input && typeof input === "object" && input.restart === true) return { restart: true };
  return {
    error: `The bash tool needs an input like {"command": "ls -la"} with "command" a string (or {"restart": true}); it got ${truncateJson(toolUse.input)}. Nothing was run.`,
  };
}

/** What the model sees of a command: exit code first, then each non-empty stream in labelled tags. */
export function formatToolResult(result: ExecResult, commandTimeoutMs: number): string {
  const lines = [`exit code: ${result.exit_code}`];
  if (result.timed_out) {
    lines.push(
      `The command timed out after ${formatSeconds(commandTimeoutMs)} and was killed, with the shell: ${FRESH_SHELL}`,
    );
  } else if (result.shell_exited) {
    lines.push(`The shell exited: ${FRESH_SHELL}`);
  }
  if (result.truncated) {
    lines.push("The output was too long and was truncated: the middle was cut, the head and tail are kept.");
  }
  if (result.stdout.length > 0) lines.push(`<stdout>\n${trimNewline(result.stdout)}\n</stdout>`);
  if (result.stderr.length > 0) lines.push(`<stderr>\n${trimNewline(result.stderr)}\n</stderr>`);
  if (result.stdout.length === 0 && result.stderr.length === 0)
    lines.push("(no output: stdout and stderr were empty)");
  return lines.join("\n");
}

function trimNewline(text: string): string {
  return text.endsWith("\n") ? text.slice(0, -1) : text;
}

function formatSeconds(ms: number): string {
  const seconds = ms / 1000;
  return `${Number.isInteger(seconds) ? seconds : seconds.toFixed(1)} s`;
}

function truncateJson(value: unknown): string {
  const json = JSON.stringify(value) ?? String(value);
  return json.length > 200 ? `${json.slice(0, 200)}...` : json;
}
