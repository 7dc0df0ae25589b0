// biome-ignore-all lint/suspicious/noExplicitAny: request bodies are whatever JSON the client sent.
/**
 * A scripted Anthropic Messages-API server on 127.0.0.1, speaking the real wire format:
 * JSON responses, server-sent events when the request asks for `stream: true` (as the Claude Code
 * CLI does), error bodies with `retry-after-ms` / `retry-after` headers, requests that hang (before
 * or after the headers) and connections reset without an answer.
 * Tests point the real `@anthropic-ai/sdk` (or the real `claude` binary) at it.
 */
import { createHash } from "node:crypto";
import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface RecordedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: any;
  /** Index among /v1/messages requests. */
  index: number;
}

export interface ScriptedUsage {
  input_tokens?: number;
  output_tokens?: number;
  cache_read_input_tokens?: number;
  cache_creation_input_tokens?: number;
}

export type ScriptedBlock =
  | { type: "text"; text: string }
  | { type: "tool_use"; id?: string; name: string; input: unknown };

export type ScriptedReply =
  | { kind: "message"; content: ScriptedBlock[]; stop_reason?: string; usage?: ScriptedUsage; model?: string }
  | {
      kind: "error";
      status: number;
      type?: string;
      message?: string;
      retryAfterMs?: number;
      retryAfterSeconds?: number;
    }
  /** Never answers; the connection stays open until the client gives up or the server closes. */
  | { kind: "hang" }
  /** Sends the headers and half a body, then nothing more (the SDK's own timeout stops at headers). */
  | { kind: "stall" }
  /** Destroys the connection without an answer, as a crashed proxy or a network reset does. */
  | { kind: "reset" };

export type Responder = (request: RecordedRequest) => ScriptedReply | Promise<ScriptedReply>;

export interface ModelServerOptions {
  /** Time from a request's arrival to its answer (a model's latency; the server's own work is part of it). */
  latencyMs?: number;
  /** Default usage when a reply gives none; `input_tokens` defaults to a rough count of the request. */
  usage?: ScriptedUsage;
  /**
   * Report input usage the way the API's prompt cache does: the prompt (tools, system, messages)
   * up to the last `cache_control` breakpoint is written to the cache, the longest prefix cached
   * by an earlier request is read from it, and only what follows the breakpoint is plain input.
   * Tokens are approximated as JSON characters / 4.
   */
  simulatePromptCache?: boolean;
}

export interface ModelServer {
  url: string;
  requests: RecordedRequest[];
  /** Only the /v1/messages requests. */
  messageRequests(): RecordedRequest[];
  /** TCP connections clients opened (keep-alive clients reuse one). */
  connections(): number;
  close(): Promise<void>;
}

function text(value: string): ScriptedBlock {
  return { type: "text", text: value };
}

export function toolUse(input: unknown, name = "bash", id?: string): ScriptedBlock {
  return id === undefined ? { type: "tool_use", name, input } : { type: "tool_use", name, input, id };
}

/** A reply whose content is a bash tool call. */
export function bashCall(
  command: string,
  options: { name?: string; usage?: ScriptedUsage } = {},
): ScriptedReply {
  return {
    kind: "message",
    content: [toolUse({ command }, options.name ?? "bash")],
    stop_reason: "tool_use",
    ...(options.usage ? { usage: options.usage } : {}),
  };
}

export function finalText(value: string, usage?: ScriptedUsage): ScriptedReply {
  return { kind: "message", content: [text(value)], stop_reason: "end_turn", ...(usage ? { usage } : {}) };
}

/**
 * What every agent CLI on the Messages API shares in its test wire (agent-cli-trials' AgentCliWire)
 * when its shell tool is `shellTool`: the scripted server, the main loop told by that tool, replies
 * by turn there and "ok" to any other request (title, warm-up), the key from `x-api-key`.
 */
export function messagesApiWire(shellTool: string) {
  const isMainLoop = (request: RecordedRequest) =>
    (request.body?.tools ?? []).some((tool: { name?: string }) => tool.name === shellTool);
  return {
    startServer: (respond: Responder) => startModelServer(respond),
    isMainLoop,
    script: (replies: ScriptedReply[]) => (request: RecordedRequest) =>
      isMainLoop(request) ? (replies[turnOf(request)] ?? finalText("(script exhausted)")) : finalText("ok"),
    shell: (command: string) => bashCall(command, { name: shellTool }),
    text: (value: string) => finalText(value),
    keyOf: (request: RecordedRequest) => request.headers["x-api-key"] as string | undefined,
  };
}

export function apiError(status: number, retryAfterMs = 1): ScriptedReply {
  return { kind: "error", status, retryAfterMs };
}

/** The number of assistant turns already in the conversation: the turn this request asks for. */
export function turnOf(request: RecordedRequest): number {
  const messages: { role: string }[] = request.body?.messages ?? [];
  return messages.filter((m) => m.role === "assistant").length;
}

/**
 * Answers each conversation from its own script, by turn, so concurrent trials do not interleave.
 * `pick` chooses the script for a request (e.g. by the task text); defaults to the only one.
 */
export function scriptByTurn(
  scripts: ScriptedReply[] | Record<string, ScriptedReply[]>,
  pick?: (request: RecordedRequest) => string,
): Responder {
  return (request) => {
    const script = Array.isArray(scripts) ? scripts : scripts[pick ? pick(request) : ""];
    if (!script) return { kind: "error", status: 400, type: "invalid_request_error", message: "no script" };
    const reply = script[turnOf(request)];
    return reply ?? finalText("(script exhausted)");
  };
}

/** The system prompt of a request, as one string (the API takes text blocks). */
export function systemOf(request: RecordedRequest | undefined): string {
  const system = request?.body.system as string | { text: string }[] | undefined;
  if (system === undefined) return "";
  return typeof system === "string" ? system : system.map((block) => block.text).join("\n");
}

/** The first user message's text: a handy key for `scriptByTurn`. */
export function firstUserText(request: RecordedRequest): string {
  const first = request.body?.messages?.[0];
  if (!first) return "";
  if (typeof first.content === "string") return first.content;
  return (first.content as { type: string; text?: string }[])
    .filter((b) => b.type === "text")
    .map((b) => b.text ?? "")
    .join("");
}

/** Answers the scripted replies in order, then the last one forever. */
export function inOrder<Reply>(...replies: Reply[]): () => Reply {
  let index = 0;
  return () => replies[Math.min(index++, replies.length - 1)] as Reply;
}

/** The `retry-after-ms` / `retry-after` headers a scripted error asks for. */
export function retryAfterHeaders(reply: {
  retryAfterMs?: number;
  retryAfterSeconds?: number;
}): Record<string, string> {
  const headers: Record<string, string> = {};
  if (reply.retryAfterMs !== undefined) headers["retry-after-ms"] = String(reply.retryAfterMs);
  if (reply.retryAfterSeconds !== undefined) headers["retry-after"] = String(reply.retryAfterSeconds);
  return headers;
}

let idCounter = 0;
function nextId(prefix: string): string {
  idCounter += 1;
  return `${prefix}_${String(idCounter).padStart(24, "0")}`;
}

function estimateInputTokens(body: unknown): number {
  return Math.max(1, Math.ceil(JSON.stringify(body ?? "").length / 4));
}

function errorTypeFor(status: number): string {
  if (status === 429) return "rate_limit_error";
  if (status === 529) return "overloaded_error";
  if (status === 401) return "authentication_error";
  if (status === 404) return "not_found_error";
  if (status >= 500) return "api_error";
  return "invalid_request_error";
}

/** A request's whole body, as text (for the scripted servers of tests/support). */
export async function readRequestBody(req: http.IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

function sendJson(
  res: http.ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) {
  const payload = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(payload),
    "request-id": nextId("req"),
    ...headers,
  });
  res.end(payload);
}

/** The prompt as the cache sees it: a flat list of blocks, each with its tokens and breakpoint. */
function promptBlocks(body: any): { key: string; tokens: number; breakpoint: boolean }[] {
  const blocks: unknown[] = [];
  for (const tool of body?.tools ?? []) blocks.push(tool);
  const system = body?.system;
  if (typeof system === "string") blocks.push({ type: "text", text: system });
  else for (const block of system ?? []) blocks.push(block);
  for (const message of body?.messages ?? []) {
    if (typeof message.content === "string") blocks.push({ role: message.role, text: message.content });
    else for (const block of message.content) blocks.push({ role: message.role, ...block });
  }
  return blocks.map((block) => {
    const { cache_control, ...rest } = block as { cache_control?: unknown };
    const key = JSON.stringify(rest);
    return { key, tokens: Math.max(1, Math.ceil(key.length / 4)), breakpoint: cache_control !== undefined };
  });
}

function createPromptCache() {
  const cached = new Set<string>();
  return (body: any): ScriptedUsage => {
    const blocks = promptBlocks(body);
    const prefixes: string[] = [];
    let running = "";
    for (const block of blocks) {
      running = createHash("sha256").update(running).update(block.key).digest("hex");
      prefixes.push(running);
    }
    const last = blocks.map((b) => b.breakpoint).lastIndexOf(true);
    const total = blocks.reduce((sum, b) => sum + b.tokens, 0);
    if (last < 0) return { input_tokens: total, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };
    let hit = -1;
    for (let i = last; i >= 0; i--) {
      if (cached.has(prefixes[i] as string)) {
        hit = i;
        break;
      }
    }
    const upTo = (end: number) => blocks.slice(0, end + 1).reduce((sum, b) => sum + b.tokens, 0);
    const read = hit >= 0 ? upTo(hit) : 0;
    const written = upTo(last) - read;
    blocks.forEach((block, i) => {
      if (block.breakpoint) cached.add(prefixes[i] as string);
    });
    return {
      input_tokens: total - read - written,
      cache_read_input_tokens: read,
      cache_creation_input_tokens: written,
    };
  };
}

function buildMessage(
  reply: Extract<ScriptedReply, { kind: "message" }>,
  body: any,
  defaults: ScriptedUsage,
) {
  const content = reply.content.map((block) =>
    block.type === "tool_use"
      ? { type: "tool_use", id: block.id ?? nextId("toolu"), name: block.name, input: block.input }
      : block,
  );
  const usage = {
    input_tokens: reply.usage?.input_tokens ?? defaults.input_tokens ?? estimateInputTokens(body),
    output_tokens: reply.usage?.output_tokens ?? defaults.output_tokens ?? 20,
    cache_creation_input_tokens:
      reply.usage?.cache_creation_input_tokens ?? defaults.cache_creation_input_tokens ?? 0,
    cache_read_input_tokens: reply.usage?.cache_read_input_tokens ?? defaults.cache_read_input_tokens ?? 0,
  };
  return {
    id: nextId("msg"),
    type: "message",
    role: "assistant",
    model: reply.model ?? body?.model ?? "claude-test",
    content,
    stop_reason: reply.stop_reason ?? (content.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn"),
    stop_sequence: null,
    usage,
  };
}

function writeSse(res: http.ServerResponse, event: string, data: unknown) {
  res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

/** Streams a message the way the API does: message_start, content blocks with deltas, message_delta, message_stop. */
function streamMessage(res: http.ServerResponse, message: ReturnType<typeof buildMessage>) {
  res.writeHead(200, {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    connection: "keep-alive",
    "request-id": nextId("req"),
  });
  writeSse(res, "message_start", {
    type: "message_start",
    message: { ...message, content: [], stop_reason: null, usage: { ...message.usage, output_tokens: 1 } },
  });
  writeSse(res, "ping", { type: "ping" });
  message.content.forEach((block, index) => {
    if (block.type === "text") {
      writeSse(res, "content_block_start", {
        type: "content_block_start",
        index,
        content_block: { type: "text", text: "" },
      });
      writeSse(res, "content_block_delta", {
        type: "content_block_delta",
        index,
        delta: { type: "text_delta", text: (block as { text: string }).text },
      });
    } else {
      const tool = block as { id: string; name: string; input: unknown };
      writeSse(res, "content_block_start", {
        type: "content_block_start",
        index,
        content_block: { type: "tool_use", id: tool.id, name: tool.name, input: {} },
      });
      const json = JSON.stringify(tool.input);
      const half = Math.floor(json.length / 2);
      for (const part of [json.slice(0, half), json.slice(half)]) {
        writeSse(res, "content_block_delta", {
          type: "content_block_delta",
          index,
          delta: { type: "input_json_delta", partial_json: part },
        });
      }
    }
    writeSse(res, "content_block_stop", { type: "content_block_stop", index });
  });
  writeSse(res, "message_delta", {
    type: "message_delta",
    delta: { stop_reason: message.stop_reason, stop_sequence: null },
    usage: { output_tokens: message.usage.output_tokens },
  });
  writeSse(res, "message_stop", { type: "message_stop" });
  res.end();
}

export async function startModelServer(
  respond: Responder,
  options: ModelServerOptions = {},
): Promise<ModelServer> {
  const requests: RecordedRequest[] = [];
  const hanging = new Set<http.ServerResponse>();
  let messageIndex = 0;
  const promptCache = options.simulatePromptCache ? createPromptCache() : null;

  const server = http.createServer(async (req, res) => {
    const arrivedAt = performance.now();
    const raw = await readRequestBody(req);
    let body: unknown = null;
    try {
      body = raw ? JSON.parse(raw) : null;
    } catch {
      sendJson(res, 400, {
        type: "error",
        error: { type: "invalid_request_error", message: "body is not JSON" },
      });
      return;
    }
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    const isMessages = req.method === "POST" && path === "/v1/messages";
    const recorded: RecordedRequest = {
      method: req.method ?? "GET",
      path,
      headers: req.headers,
      body,
      index: isMessages ? messageIndex++ : -1,
    };
    requests.push(recorded);

    if (req.method === "POST" && path === "/v1/messages/count_tokens") {
      sendJson(res, 200, { input_tokens: estimateInputTokens(body) });
      return;
    }
    if (!isMessages) {
      sendJson(res, 404, { type: "error", error: { type: "not_found_error", message: `no route ${path}` } });
      return;
    }

    const reply = await respond(recorded);
    const message =
      reply.kind === "message"
        ? buildMessage(reply, body, { ...options.usage, ...(promptCache ? promptCache(body) : {}) })
        : null;
    const waitMs = (options.latencyMs ?? 0) - (performance.now() - arrivedAt);
    if (waitMs > 0) await new Promise((resolve) => setTimeout(resolve, waitMs));
    if (reply.kind === "reset") {
      req.socket.destroy();
      return;
    }
    if (reply.kind === "hang" || reply.kind === "stall") {
      hanging.add(res);
      res.on("close", () => hanging.delete(res));
      if (reply.kind === "stall") {
        res.writeHead(200, { "content-type": "application/json", "request-id": nextId("req") });
        res.write('{"id":"msg_stalled","type":"message",');
      }
      return;
    }
    if (reply.kind === "error") {
      const headers = retryAfterHeaders(reply);
      // The SDK decides whether to retry from this header when present; the API leaves it out.
      sendJson(
        res,
        reply.status,
        {
          type: "error",
          error: {
            type: reply.type ?? errorTypeFor(reply.status),
            message: reply.message ?? `scripted ${reply.status}`,
          },
        },
        headers,
      );
      return;
    }
    if (!message) return;
    if ((body as { stream?: boolean } | null)?.stream) streamMessage(res, message);
    else sendJson(res, 200, message);
  });

  let connections = 0;
  server.on("connection", () => {
    connections += 1;
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    messageRequests: () => requests.filter((r) => r.index >= 0),
    connections: () => connections,
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
