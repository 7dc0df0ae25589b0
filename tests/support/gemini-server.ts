// biome-ignore-all lint/suspicious/noExplicitAny: request bodies are whatever JSON the client sent.
/**
 * A scripted Gemini API server on 127.0.0.1, speaking the wire format of the Gen AI SDK that
 * Gemini CLI uses: `POST /v1beta/models/MODEL:streamGenerateContent?alt=sse` answered with
 * server-sent events (`data: {GenerateContentResponse}`, the candidate's parts split over several
 * events as the API streams them, usageMetadata on the last), `:generateContent` and
 * `:countTokens` with JSON, and errors in Google's format (`{"error":{"code","message","status"}}`).
 * Tests point the real `gemini` CLI at it (through the credential proxy).
 */
import type http from "node:http";
import { startLoopbackServer } from "./loopback-server.js";
import { readRequestBody } from "./model-server.js";

export interface GeminiRecordedRequest {
  method: string;
  /** Path without the query. */
  path: string;
  query: string;
  headers: http.IncomingHttpHeaders;
  body: any;
  /** The model in the path (`models/MODEL:method`), or null. */
  model: string | null;
  /** generateContent, streamGenerateContent, countTokens... or null for other paths. */
  method_name: string | null;
}

export interface GeminiScriptedUsage {
  promptTokenCount?: number;
  candidatesTokenCount?: number;
  cachedContentTokenCount?: number;
  thoughtsTokenCount?: number;
}

type GeminiPart = { text: string } | { functionCall: { name: string; args: Record<string, unknown> } };

export type GeminiScriptedReply =
  | { kind: "answer"; parts: GeminiPart[]; finishReason?: string; usage?: GeminiScriptedUsage }
  | { kind: "error"; status: number; message?: string };

export type GeminiResponder = (
  request: GeminiRecordedRequest,
) => GeminiScriptedReply | Promise<GeminiScriptedReply>;

export interface GeminiServer {
  url: string;
  requests: GeminiRecordedRequest[];
  /** The generateContent requests (streamed or not). */
  generateRequests(): GeminiRecordedRequest[];
  close(): Promise<void>;
}

const DEFAULT_GEMINI_USAGE: Required<GeminiScriptedUsage> = {
  promptTokenCount: 1000,
  candidatesTokenCount: 40,
  cachedContentTokenCount: 0,
  thoughtsTokenCount: 0,
};

export function geminiText(text: string, usage?: GeminiScriptedUsage): GeminiScriptedReply {
  return { kind: "answer", parts: [{ text }], ...(usage ? { usage } : {}) };
}

export function geminiShellCall(
  command: string,
  options: { text?: string; usage?: GeminiScriptedUsage } = {},
): GeminiScriptedReply {
  return {
    kind: "answer",
    parts: [
      ...(options.text ? [{ text: options.text }] : []),
      { functionCall: { name: "run_shell_command", args: { command } } },
    ],
    ...(options.usage ? { usage: options.usage } : {}),
  };
}

/** Model turns already in the conversation: the turn this request asks for. */
export function geminiTurnOf(request: GeminiRecordedRequest): number {
  const contents: { role?: string }[] = request.body?.contents ?? [];
  return contents.filter((content) => content.role === "model").length;
}

/** Whether the request offers the shell tool (the agent's main loop, not a side request). */
export function offersShell(request: GeminiRecordedRequest): boolean {
  const tools: { functionDeclarations?: { name?: string }[] }[] = request.body?.tools ?? [];
  return tools.some((tool) => (tool.functionDeclarations ?? []).some((f) => f.name === "run_shell_command"));
}

const STATUS_NAMES: Record<number, string> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  429: "RESOURCE_EXHAUSTED",
  500: "INTERNAL",
  503: "UNAVAILABLE",
};

const ENDPOINT = /^\/[^/]+\/models\/([^/:]+):([A-Za-z]+)$/;

export async function startGeminiServer(respond: GeminiResponder): Promise<GeminiServer> {
  const requests: GeminiRecordedRequest[] = [];
  let responseCounter = 0;
  const server = await startLoopbackServer((req, res) => {
    void (async () => {
      const raw = await readRequestBody(req);
      const target = req.url ?? "/";
      const queryAt = target.indexOf("?");
      const pathOnly = queryAt === -1 ? target : target.slice(0, queryAt);
      const match = ENDPOINT.exec(pathOnly);
      let body: any = null;
      try {
        body = raw ? JSON.parse(raw) : null;
      } catch {
        body = raw;
      }
      const request: GeminiRecordedRequest = {
        method: req.method ?? "GET",
        path: pathOnly,
        query: queryAt === -1 ? "" : target.slice(queryAt + 1),
        headers: req.headers,
        body,
        model: match ? (match[1] as string) : null,
        method_name: match ? (match[2] as string) : null,
      };
      requests.push(request);
      if (!match || req.method !== "POST") return sendError(res, 404, `no such endpoint ${pathOnly}`);
      if (request.method_name === "countTokens") {
        return sendJson(res, 200, { totalTokens: Math.ceil(raw.length / 4) });
      }
      if (request.method_name !== "generateContent" && request.method_name !== "streamGenerateContent") {
        return sendError(res, 404, `no such method ${request.method_name}`);
      }
      const reply = await respond(request);
      if (reply.kind === "error") return sendError(res, reply.status, reply.message ?? "scripted error");
      responseCounter += 1;
      const usage = { ...DEFAULT_GEMINI_USAGE, ...reply.usage };
      const usageMetadata = {
        promptTokenCount: usage.promptTokenCount,
        candidatesTokenCount: usage.candidatesTokenCount,
        cachedContentTokenCount: usage.cachedContentTokenCount,
        thoughtsTokenCount: usage.thoughtsTokenCount,
        totalTokenCount: usage.promptTokenCount + usage.candidatesTokenCount + usage.thoughtsTokenCount,
      };
      const base = { modelVersion: request.model, responseId: `resp-${responseCounter}` };
      const finishReason = reply.finishReason ?? "STOP";
      if (request.method_name === "generateContent") {
        return sendJson(res, 200, {
          candidates: [{ content: { role: "model", parts: reply.parts }, finishReason, index: 0 }],
          usageMetadata,
          ...base,
        });
      }
      // Streamed as the API does: one event per part, the finish reason and usage on the last.
      res.writeHead(200, { "content-type": "text/event-stream" });
      reply.parts.forEach((part, index) => {
        const last = index === reply.parts.length - 1;
        const chunk = {
          candidates: [
            { content: { role: "model", parts: [part] }, index: 0, ...(last ? { finishReason } : {}) },
          ],
          ...(last ? { usageMetadata } : {}),
          ...base,
        };
        res.write(`data: ${JSON.stringify(chunk)}\r\n\r\n`);
      });
      res.end();
    })().catch((error: Error) => {
      if (!res.headersSent) sendError(res, 500, error.message);
      else res.destroy();
    });
  });
  return {
    url: server.url,
    requests,
    generateRequests: () => requests.filter((r) => r.method_name?.endsWith("enerateContent")),
    close: server.close,
  };
}

function sendJson(res: http.ServerResponse, status: number, body: unknown): void {
  const payload = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(payload) });
  res.end(payload);
}

function sendError(res: http.ServerResponse, status: number, message: string): void {
  sendJson(res, status, { error: { code: status, message, status: STATUS_NAMES[status] ?? "UNKNOWN" } });
}
