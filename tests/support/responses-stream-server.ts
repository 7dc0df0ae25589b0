// biome-ignore-all lint/suspicious/noExplicitAny: request bodies are whatever JSON the client sent.
/**
 * A scripted OpenAI Responses API on 127.0.0.1 that streams, as Codex calls it: `POST
 * /v1/responses` with `stream: true`, answered with server-sent events (`response.created`,
 * `response.output_item.added` / `.done` per output item, `response.output_text.delta`,
 * `response.completed` with the usage), or with OpenAI's error body and status.
 */
import type http from "node:http";
import { startLoopbackServer } from "./loopback-server.js";
import { readRequestBody } from "./model-server.js";

interface ResponsesRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: any;
}

export interface ResponsesUsage {
  /** Includes the cached tokens, as OpenAI counts them. */
  input_tokens: number;
  cached_tokens?: number;
  output_tokens: number;
}

export type ResponsesReply =
  | {
      kind: "answer";
      /** An assistant message before any call. */
      text?: string;
      /** exec_command calls (Codex's shell tool), in order: the command, or all its arguments. */
      commands?: (string | Record<string, unknown>)[];
      usage?: ResponsesUsage;
    }
  | { kind: "error"; status: number; message: string };

export type ResponsesResponder = (request: ResponsesRequest) => ResponsesReply;

export interface ResponsesServer {
  /** The base URL, ending in /v1 as OpenAI's does. */
  url: string;
  requests: ResponsesRequest[];
  close(): Promise<void>;
}

export function answerText(text: string, usage?: ResponsesUsage): ResponsesReply {
  return { kind: "answer", text, ...(usage ? { usage } : {}) };
}

export function runCommand(command: string, usage?: ResponsesUsage): ResponsesReply {
  return { kind: "answer", commands: [command], ...(usage ? { usage } : {}) };
}

/**
 * The model's answers already in the conversation (so, which one this request asks for): a run of
 * assistant messages, reasoning and function calls is one answer.
 */
function responsesTurnOf(request: ResponsesRequest): number {
  const items: any[] = request.body?.input ?? [];
  let turns = 0;
  let inAnswer = false;
  for (const item of items) {
    const answer = item.role === "assistant" || item.type === "function_call" || item.type === "reasoning";
    if (answer && !inAnswer) turns += 1;
    inAnswer = answer;
  }
  return turns;
}

/** Answers each conversation from the script, by turn. */
export function responsesScript(script: ResponsesReply[]): ResponsesResponder {
  return (request) => script[responsesTurnOf(request)] ?? answerText("(script exhausted)");
}

let nextNumber = 0;
function nextId(prefix: string): string {
  nextNumber += 1;
  return `${prefix}_${nextNumber.toString(36).padStart(6, "0")}`;
}

export async function startResponsesServer(respond: ResponsesResponder): Promise<ResponsesServer> {
  const requests: ResponsesRequest[] = [];
  const handler = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    const raw = await readRequestBody(req);
    const request: ResponsesRequest = {
      method: req.method ?? "GET",
      path: req.url ?? "/",
      headers: req.headers,
      body: parseJson(raw),
    };
    requests.push(request);
    if (request.method !== "POST" || request.path !== "/v1/responses") {
      sendError(res, 404, `no route ${request.method} ${request.path}`);
      return;
    }
    if (req.headers["content-encoding"] || request.body === null || request.body.stream !== true) {
      sendError(res, 400, "this server takes uncompressed JSON with stream: true");
      return;
    }
    const reply = respond(request);
    if (reply.kind === "error") {
      sendError(res, reply.status, reply.message);
      return;
    }
    streamAnswer(res, reply, request.body);
  };
  const server = await startLoopbackServer((req, res) => {
    handler(req, res).catch((error: Error) => {
      if (!res.headersSent) sendError(res, 500, error.message);
      else res.destroy();
    });
  });
  return { url: `${server.url}/v1`, requests, close: server.close };
}

function streamAnswer(
  res: http.ServerResponse,
  reply: Extract<ResponsesReply, { kind: "answer" }>,
  body: any,
): void {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const send = (event: Record<string, unknown>) =>
    res.write(`event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`);
  const id = nextId("resp");
  send({ type: "response.created", response: { id, status: "in_progress", model: body.model } });
  const items: Record<string, unknown>[] = [];
  if (reply.text !== undefined) {
    items.push({
      type: "message",
      id: nextId("msg"),
      role: "assistant",
      status: "completed",
      content: [{ type: "output_text", text: reply.text, annotations: [] }],
    });
  }
  for (const command of reply.commands ?? []) {
    items.push({
      type: "function_call",
      id: nextId("fc"),
      call_id: nextId("call"),
      name: "exec_command",
      arguments: JSON.stringify(typeof command === "string" ? { cmd: command } : command),
      status: "completed",
    });
  }
  for (const [index, item] of items.entries()) {
    send({
      type: "response.output_item.added",
      output_index: index,
      item: { ...item, status: "in_progress" },
    });
    if (item.type === "message") {
      send({
        type: "response.output_text.delta",
        output_index: index,
        content_index: 0,
        item_id: item.id,
        delta: reply.text,
      });
    }
    send({ type: "response.output_item.done", output_index: index, item });
  }
  const usage = reply.usage ?? { input_tokens: 100, output_tokens: 10 };
  send({
    type: "response.completed",
    response: {
      id,
      status: "completed",
      model: body.model,
      output: items,
      usage: {
        input_tokens: usage.input_tokens,
        input_tokens_details: { cached_tokens: usage.cached_tokens ?? 0 },
        output_tokens: usage.output_tokens,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: usage.input_tokens + usage.output_tokens,
      },
    },
  });
  res.end();
}

function parseJson(raw: string): any {
  try {
    return JSON.parse(raw);
  } catch {
    return null;
  }
}

function sendError(res: http.ServerResponse, status: number, message: string): void {
  const body = JSON.stringify({ error: { message, type: "invalid_request_error", param: null, code: null } });
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
  res.end(body);
}
