/**
 * The ModelClient port's Anthropic-shaped requests and answers, translated to and from OpenAI's
 * two wire formats: Chat Completions (`messages`, `tools`, `tool_calls`) and the Responses API
 * (`input` items, `function_call` / `function_call_output`). Pure: no SDK instance, no I/O.
 *
 * One token convention across providers: input tokens exclude what was read from (or written to)
 * the prompt cache, which is counted apart, as Anthropic reports it. OpenAI's prompt/input token
 * counts include the cached tokens, so they are subtracted here.
 */
import type OpenAI from "openai";
import type {
  ChatMessage,
  CreateMessageParams,
  ModelResponse,
  ModelUsage,
  TextBlock,
  ToolUseBlock,
} from "./model-client.js";

type ChatParams = OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming;
type ChatMessageParam = OpenAI.Chat.Completions.ChatCompletionMessageParam;
type ResponsesParams = OpenAI.Responses.ResponseCreateParamsNonStreaming;
type ResponsesInputItem = OpenAI.Responses.ResponseInputItem;

/** Chat Completions' finish reasons in the port's (Anthropic's) words. */
const CHAT_STOP_REASONS: Readonly<Record<string, string>> = {
  tool_calls: "tool_use",
  function_call: "tool_use",
  length: "max_tokens",
  stop: "end_turn",
  content_filter: "refusal",
};

function systemText(system: CreateMessageParams["system"]): string | null {
  if (system === undefined) return null;
  const text = typeof system === "string" ? system : system.map((block) => block.text).join("\n\n");
  return text === "" ? null : text;
}

/** A tool result as the model reads it: OpenAI has no error flag, so the text says so. */
function toolResultText(block: { content: string; is_error?: boolean }): string {
  return block.is_error ? `Error: ${block.content}` : block.content;
}

/** The request as Chat Completions takes it; `max_tokens` is sent as `max_completion_tokens`. */
export function toChatParams(params: CreateMessageParams): ChatParams {
  const messages: ChatMessageParam[] = [];
  const system = systemText(params.system);
  if (system !== null) messages.push({ role: "system", content: system });
  for (const message of params.messages) messages.push(...toChatMessages(message));
  const body: ChatParams = { model: params.model, messages, max_completion_tokens: params.max_tokens };
  if (params.tools !== undefined) {
    body.tools = params.tools.map((tool) => ({
      type: "function",
      function: { name: tool.name, description: tool.description, parameters: tool.input_schema },
    }));
  }
  if (params.tool_choice !== undefined) {
    const choice = params.tool_choice;
    body.tool_choice =
      choice.type === "tool"
        ? { type: "function", function: { name: choice.name } }
        : choice.type === "any"
          ? "required"
          : "auto";
  }
  if (params.temperature !== undefined) body.temperature = params.temperature;
  return body;
}

/**
 * One port message as Chat Completions messages: an assistant turn's tool_use blocks become its
 * `tool_calls`; a user turn's tool results become `tool` messages, which must directly follow the
 * assistant message that asked for them, so they come before any text of the same turn.
 */
function toChatMessages(message: ChatMessage): ChatMessageParam[] {
  if (typeof message.content === "string") {
    return [
      message.role === "user"
        ? { role: "user", content: message.content }
        : { role: "assistant", content: message.content },
    ];
  }
  const texts = message.content.filter((block) => block.type === "text").map((block) => block.text);
  if (message.role === "assistant") {
    const toolCalls = message.content
      .filter((block) => block.type === "tool_use")
      .map((block) => ({
        id: block.id,
        type: "function" as const,
        function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) },
      }));
    return [
      {
        role: "assistant",
        content: texts.length > 0 ? texts.join("\n\n") : null,
        ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
      },
    ];
  }
  const out: ChatMessageParam[] = [];
  for (const block of message.content) {
    if (block.type === "tool_result") {
      out.push({ role: "tool", tool_call_id: block.tool_use_id, content: toolResultText(block) });
    }
  }
  if (texts.length > 0) out.push({ role: "user", content: texts.join("\n\n") });
  return out;
}

/** A tool call's `arguments`: the JSON object it should be, or the raw text for the agent to refuse. */
function parseArguments(text: string): unknown {
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * Usage in the port's convention: `prompt` includes the `cached` tokens (and any written to the
 * cache), so plain input is what remains.
 */
function usageFrom(prompt: number, cached: number, written: number, output: number): ModelUsage {
  return {
    input_tokens: Math.max(0, prompt - cached - written),
    output_tokens: output,
    cache_read_input_tokens: cached,
    cache_creation_input_tokens: written,
  };
}

export function fromChatCompletion(completion: OpenAI.Chat.Completions.ChatCompletion): ModelResponse {
  const choice = completion.choices?.[0];
  if (!choice) throw new Error(`the API answered without a choice (completion ${completion.id})`);
  const content: (TextBlock | ToolUseBlock)[] = [];
  const message = choice.message;
  if (message.content) content.push({ type: "text", text: message.content });
  if (message.refusal) content.push({ type: "text", text: message.refusal });
  for (const call of message.tool_calls ?? []) {
    if (call.type !== "function") continue;
    content.push({
      type: "tool_use",
      id: call.id,
      name: call.function.name,
      input: parseArguments(call.function.arguments),
    });
  }
  const hasToolUse = content.some((block) => block.type === "tool_use");
  // Some OpenAI-compatible servers say "stop" even when the answer calls tools.
  const stopReason = hasToolUse
    ? "tool_use"
    : (CHAT_STOP_REASONS[choice.finish_reason] ?? choice.finish_reason ?? null);
  const usage = completion.usage;
  const details = usage?.prompt_tokens_details;
  return {
    id: completion.id,
    model: completion.model,
    stop_reason: stopReason,
    content,
    usage: usageFrom(
      usage?.prompt_tokens ?? 0,
      details?.cached_tokens ?? 0,
      details?.cache_write_tokens ?? 0,
      usage?.completion_tokens ?? 0,
    ),
  };
}

/**
 * The request as the Responses API takes it. `store: false`: nothing is kept on the provider's
 * side, and every request carries the whole conversation, as with Chat Completions.
 */
export function toResponsesParams(params: CreateMessageParams): ResponsesParams {
  const input: ResponsesInputItem[] = [];
  for (const message of params.messages) input.push(...toResponsesItems(message));
  const body: ResponsesParams = {
    model: params.model,
    input,
    max_output_tokens: params.max_tokens,
    store: false,
  };
  const system = systemText(params.system);
  if (system !== null) body.instructions = system;
  if (params.tools !== undefined) {
    body.tools = params.tools.map((tool) => ({
      type: "function",
      name: tool.name,
      description: tool.description,
      parameters: tool.input_schema,
      strict: false,
    }));
  }
  if (params.tool_choice !== undefined) {
    const choice = params.tool_choice;
    body.tool_choice =
      choice.type === "tool"
        ? { type: "function", name: choice.name }
        : choice.type === "any"
          ? "required"
          : "auto";
  }
  if (params.temperature !== undefined) body.temperature = params.temperature;
  return body;
}

function toResponsesItems(message: ChatMessage): ResponsesInputItem[] {
  if (typeof message.content === "string") return [{ role: message.role, content: message.content }];
  const items: ResponsesInputItem[] = [];
  for (const block of message.content) {
    if (block.type === "text") items.push({ role: message.role, content: block.text });
    else if (block.type === "tool_use") {
      items.push({
        type: "function_call",
        call_id: block.id,
        name: block.name,
        arguments: JSON.stringify(block.input ?? {}),
      });
    } else {
      items.push({ type: "function_call_output", call_id: block.tool_use_id, output: toolResultText(block) });
    }
  }
  return items;
}

export function fromResponse(response: OpenAI.Responses.Response): ModelResponse {
  if (response.status === "failed") {
    throw new Error(`the response failed: ${response.error?.message ?? "no reason given"}`);
  }
  const content: (TextBlock | ToolUseBlock)[] = [];
  for (const item of response.output ?? []) {
    if (item.type === "message") {
      for (const part of item.content) {
        const text = part.type === "output_text" ? part.text : part.refusal;
        if (text) content.push({ type: "text", text });
      }
    } else if (item.type === "function_call") {
      content.push({
        type: "tool_use",
        id: item.call_id,
        name: item.name,
        input: parseArguments(item.arguments),
      });
    }
  }
  const incomplete = response.status === "incomplete" ? response.incomplete_details?.reason : undefined;
  const stopReason = content.some((block) => block.type === "tool_use")
    ? "tool_use"
    : incomplete === "max_output_tokens"
      ? "max_tokens"
      : incomplete === "content_filter"
        ? "refusal"
        : "end_turn";
  const usage = response.usage;
  const details = usage?.input_tokens_details;
  return {
    id: response.id,
    model: response.model,
    stop_reason: stopReason,
    content,
    usage: usageFrom(
      usage?.input_tokens ?? 0,
      details?.cached_tokens ?? 0,
      details?.cache_write_tokens ?? 0,
      usage?.output_tokens ?? 0,
    ),
  };
}
