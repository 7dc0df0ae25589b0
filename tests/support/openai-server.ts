// biome-ignore-all lint/suspicious/noExplicitAny: request bodies are whatever JSON the client sent.
/**
 * A scripted OpenAI-compatible server on 127.0.0.1, speaking the real wire formats the client
 * uses: Chat Completions (`POST /v1/chat/completions`, JSON) and the Responses API
 * (`POST /v1/responses`, JSON), with OpenAI's error bodies, `retry-after-ms` / `retry-after`
 * headers, requests that never answer and connections reset without an answer.
 * Tests point the real `openai` SDK at `url` (which ends in /v1, as OpenAI's base URL does).
 * The client does not stream, so neither does this server: a `stream: true` request is refused.
 */
import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { readRequestBody, retryAfterHeaders } from "./model-server.js";

export interface OpenAiRecordedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: any;
  /** Which API the request was for. */
  api: "chat" | "responses" | null;
}

export interface OpenAiScriptedUsage {
  /** Includes `cached_tokens`, as OpenAI counts them. Default: the request's JSON length / 4. */
  prompt_tokens?: number;
  completion_tokens?: number;
  cached_tokens?: number;
  /** Written to the prompt cache (some OpenAI-compatible gateways report it); included in `prompt_tokens` too. */
  cache_write_tokens?: number;
}

interface OpenAiScriptedToolCall {
  id?: string;
  name: string;
  /** An object is sent as its JSON; a string as is (to script malformed arguments). */
  arguments: unknown;
}

export type OpenAiScriptedReply =
  | {
      kind: "answer";
      text?: string;
      /** The model's refusal, in its own field (Chat) or content part (Responses), as OpenAI sends it. */
      refusal?: string;
      toolCalls?: OpenAiScriptedToolCall[];
      /** Chat's finish_reason; default `tool_calls` with tool calls, else `stop`. */
      finishReason?: string;
      /** The Responses API's incomplete reason (`max_output_tokens`), making the status `incomplete`. */
      incomplete?: string;
      usage?: OpenAiScriptedUsage;
      model?: string;
    }
  | { kind: "error"; status: number; message?: string; retryAfterMs?: number; retryAfterSeconds?: number }
  /** Never answers; the connection stays open until the client gives up or the server closes. */
  | { kind: "hang" }
  /** Destroys the connection without an answer. */
  | { kind: "reset" };

export type OpenAiResponder = (
  request: OpenAiRecordedRequest,
) => OpenAiScriptedReply | Promise<OpenAiScriptedReply>;

export interface OpenAiServer {
  /** The base URL, ending in /v1. */
  url: string;
  requests: OpenAiRecordedRequest[];
  close(): Promise<void>;
}

export function openAiText(text: string, usage?: OpenAiScriptedUsage): OpenAiScriptedReply {
  return { kind: "answer", text, ...(usage ? { usage } : {}) };
}

export function openAiBashCall(command: string, usage?: OpenAiScriptedUsage): OpenAiScriptedReply {
  return {
    kind: "answer",
    toolCalls: [{ name: "bash", arguments: { command } }],
    ...(usage ? { usage } : {}),
  };
}

/**
 * The assistant turns already in the conversation (the turn this request asks for), in either
 * API's shape: a run of function_call items or an assistant message is one turn.
 */
export function openAiTurnOf(request: OpenAiRecordedRequest): number {
  const items: any[] = request.body?.messages ?? request.body?.input ?? [];
  let turns = 0;
  let inAssistant = false;
  for (const item of items) {
    const assistant = item.role === "assistant" || item.type === "function_call";
    if (assistant && !inAssistant) turns += 1;
    inAssistant = assistant;
  }
  return turns;
}

/** Answers each conversation from the script, by turn. */
export function openAiScriptByTurn(script: OpenAiScriptedReply[]): OpenAiResponder {
  return (request) => script[openAiTurnOf(request)] ?? openAiText("(script exhausted)");
}

let nextNumber = 0;
function nextId(prefix: string): string {
  nextNumber += 1;
  return `${prefix}_${nextNumber.toString(36).padStart(6, "0")}`;
}

function argumentsText(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

function usageOf(reply: Extract<OpenAiScriptedReply, { kind: "answer" }>, body: unknown) {
  const prompt = reply.usage?.prompt_tokens ?? Math.ceil(JSON.stringify(body).length / 4);
  return {
    prompt,
    completion: reply.usage?.completion_tokens ?? 10,
    cached: reply.usage?.cached_tokens ?? 0,
    written: reply.usage?.cache_write_tokens,
  };
}

function chatCompletion(reply: Extract<OpenAiScriptedReply, { kind: "answer" }>, body: any) {
  const usage = usageOf(reply, body);
  const toolCalls = (reply.toolCalls ?? []).map((call) => ({
    id: call.id ?? nextId("call"),
    type: "function",
    function: { name: call.name, arguments: argumentsText(call.arguments) },
  }));
  return {
    id: nextId("chatcmpl"),
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: reply.model ?? body.model,
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: reply.text ?? null,
          refusal: reply.refusal ?? null,
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
        },
        finish_reason: reply.finishReason ?? (toolCalls.length > 0 ? "tool_calls" : "stop"),
        logprobs: null,
      },
    ],
    usage: {
      prompt_tokens: usage.prompt,
      completion_tokens: usage.completion,
      total_tokens: usage.prompt + usage.completion,
      prompt_tokens_details: {
        cached_tokens: usage.cached,
        audio_tokens: 0,
        ...(usage.written !== undefined ? { cache_write_tokens: usage.written } : {}),
      },
      completion_tokens_details: { reasoning_tokens: 0 },
    },
  };
}

function responsesAnswer(reply: Extract<OpenAiScriptedReply, { kind: "answer" }>, body: any) {
  const usage = usageOf(reply, body);
  const output: unknown[] = [];
  if (reply.text !== undefined || reply.refusal !== undefined) {
    output.push({
      type: "message",
      id: nextId("msg"),
      role: "assistant",
      status: "completed",
      content: [
        ...(reply.text !== undefined ? [{ type: "output_text", text: reply.text, annotations: [] }] : []),
        ...(reply.refusal !== undefined ? [{ type: "refusal", refusal: reply.refusal }] : []),
      ],
    });
  }
  for (const call of reply.toolCalls ?? []) {
    output.push({
      type: "function_call",
      id: nextId("fc"),
      call_id: call.id ?? nextId("call"),
      name: call.name,
      arguments: argumentsText(call.arguments),
      status: "completed",
    });
  }
  return {
    id: nextId("resp"),
    object: "response",
    created_at: Math.floor(Date.now() / 1000),
    model: reply.model ?? body.model,
    status: reply.incomplete ? "incomplete" : "completed",
    incomplete_details: reply.incomplete ? { reason: reply.incomplete } : null,
    error: null,
    output,
    usage: {
      input_tokens: usage.prompt,
      input_tokens_details: {
        cached_tokens: usage.cached,
        ...(usage.written !== undefined ? { cache_write_tokens: usage.written } : {}),
      },
      output_tokens: usage.completion,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: usage.prompt + usage.completion,
    },
  };
}

function sendJson(
  res: http.ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) {
  res.writeHead(status, { "content-type": "application/json", "x-request-id": nextId("req"), ...headers });
  res.end(JSON.stringify(body));
}

function openAiError(status: number, message: string) {
  const type =
    status === 429 ? "rate_limit_exceeded" : status >= 500 ? "server_error" : "invalid_request_error";
  return { error: { message, type, param: null, code: type } };
}

const ROUTES: Record<string, "chat" | "responses"> = {
  "/v1/chat/completions": "chat",
  "/v1/responses": "responses",
};

export async function startOpenAiServer(respond: OpenAiResponder): Promise<OpenAiServer> {
  const requests: OpenAiRecordedRequest[] = [];
  const hanging = new Set<http.ServerResponse>();
  const server = http.createServer(async (req, res) => {
    const raw = await readRequestBody(req);
    let body: any = null;
    try {
      body = raw ? JSON.parse(raw) : null;
    } catch {
      sendJson(res, 400, openAiError(400, "body is not JSON"));
      return;
    }
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    const api = req.method === "POST" ? (ROUTES[path] ?? null) : null;
    const recorded: OpenAiRecordedRequest = {
      method: req.method ?? "GET",
      path,
      headers: req.headers,
      body,
      api,
    };
    requests.push(recorded);
    if (!api) {
      sendJson(res, 404, openAiError(404, `no route ${path}`));
      return;
    }
    if (body?.stream) {
      sendJson(res, 400, openAiError(400, "this scripted server does not stream"));
      return;
    }
    const reply = await respond(recorded);
    if (reply.kind === "reset") {
      req.socket.destroy();
      return;
    }
    if (reply.kind === "hang") {
      hanging.add(res);
      res.on("close", () => hanging.delete(res));
      return;
    }
    if (reply.kind === "error") {
      sendJson(
        res,
        reply.status,
        openAiError(reply.status, reply.message ?? `scripted ${reply.status}`),
        retryAfterHeaders(reply),
      );
      return;
    }
    sendJson(res, 200, api === "chat" ? chatCompletion(reply, body) : responsesAnswer(reply, body));
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
