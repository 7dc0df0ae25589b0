/**
 * The real ModelClient for Anthropic: a thin adapter over `@anthropic-ai/sdk` (the only module
 * importing it). Retries, deadlines and the limiter are the shared retry loop's
 * (`retrying-call.ts`); this module builds the SDK, sends one request and maps the answer.
 */

import { format } from "node:util";
import Anthropic, {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
  type ClientOptions,
} from "@anthropic-ai/sdk";
import { createHttpDispatcher, createHttpFetch, type ProxyEnv } from "./http-dispatcher.js";
import type {
  CreateMessageParams,
  ModelClient,
  ModelResponse,
  TextBlock,
  ToolUseBlock,
} from "./model-client.js";
import {
  callWithRetries,
  type RetryingClientOptions,
  resolveRetrySettings,
  type SdkFailure,
} from "./retrying-call.js";

const DEFAULT_BASE_URL = "https://api.anthropic.com";

export interface AnthropicClientOptions extends RetryingClientOptions {
  /** Where HTTPS_PROXY / HTTP_PROXY / NO_PROXY are read; defaults to process.env. */
  proxyEnv?: ProxyEnv;
}

export function createAnthropicClient(options: AnthropicClientOptions): ModelClient {
  const settings = resolveRetrySettings("createAnthropicClient", options, {
    baseURL: DEFAULT_BASE_URL,
    keySource: "ANTHROPIC_API_KEY (the action's anthropic-api-key input)",
  });
  const sdk = createSdk(
    settings.apiKey,
    settings.baseURL,
    settings.requestTimeoutMs,
    options.proxyEnv ?? process.env,
  );
  const warnOnce = createOnceWarner();
  return {
    createMessage: (params, callOptions = {}) =>
      callWithRetries(
        settings,
        {
          model: params.model,
          send: async (signal) =>
            fromSdkMessage(
              await withSdkWarnings(warnOnce, () => sdk.messages.create(toSdkParams(params), { signal })),
            ),
          classify: classifyError,
        },
        callOptions,
      ),
  };
}

function createSdk(apiKey: string, baseURL: string, requestTimeoutMs: number, proxyEnv: ProxyEnv): Anthropic {
  return new Anthropic({
    // Every option that would otherwise fall back to an ANTHROPIC_* variable or a profile on disk
    // is given here: an explicit apiKey turns off the SDK's credential chain, baseURL is never
    // left to ANTHROPIC_BASE_URL, and the headers below win over ANTHROPIC_CUSTOM_HEADERS so no
    // ambient credential can ride along with (or replace) the key we were given.
    apiKey,
    authToken: null,
    webhookKey: null,
    baseURL,
    defaultHeaders: { Authorization: `Bearer ${apiKey}`, "X-Api-Key": null },
    maxRetries: 0,
    timeout: requestTimeoutMs,
    // The events are the record; the SDK must not print request bodies (ANTHROPIC_LOG) or
    // export message content as traces.
    logLevel: "off",
    openTelemetry: false,
    // undici on this client's dispatcher (keep-alive, the proxy from proxyEnv): Node's global
    // fetch ignores proxy settings. Its request API rather than its fetch, for the CPU (see there).
    fetch: createHttpFetch(createHttpDispatcher(proxyEnv)) as ClientOptions["fetch"],
  });
}

/** Passes each distinct warning on to the console once (per client, so once per run). */
function createOnceWarner(): (message: string) => void {
  const seen = new Set<string>();
  return (message) => {
    if (seen.has(message)) return;
    seen.add(message);
    console.warn(message);
  };
}

/**
 * Runs `call` with the SDK's warnings sent to `warn`. The SDK warns about a deprecated model (and
 * a deprecated thinking setting) with console.warn on every request, not through its logger, so
 * `logLevel` cannot quiet it: a run printed the same two lines 65 times. Its checks run
 * synchronously at the start of `messages.create`, before the request is sent, so replacing
 * console.warn for that synchronous part catches them and nothing else (no other code runs meanwhile).
 */
function withSdkWarnings<T>(warn: (message: string) => void, call: () => T): T {
  const original = console.warn;
  const caught: string[] = [];
  console.warn = (...args: unknown[]) => caught.push(format(...args));
  try {
    return call();
  } finally {
    console.warn = original;
    for (const message of caught) warn(message);
  }
}

/** The SDK's error classes, sorted for the retry loop. */
function classifyError(error: unknown): SdkFailure {
  if (error instanceof APIUserAbortError) return { kind: "aborted" };
  if (error instanceof APIConnectionTimeoutError) return { kind: "timeout" };
  if (error instanceof APIConnectionError) return { kind: "connection", cause: error.cause };
  if (error instanceof APIError && typeof error.status === "number") {
    return {
      kind: "status",
      status: error.status,
      headers: error.headers,
      apiMessage: error.apiMessage ?? error.message,
    };
  }
  return { kind: "other", error };
}

function toSdkParams(params: CreateMessageParams): Anthropic.MessageCreateParamsNonStreaming {
  const body: Record<string, unknown> = {
    model: params.model,
    max_tokens: params.max_tokens,
    messages: params.messages,
  };
  if (params.system !== undefined) body.system = params.system;
  if (params.tools !== undefined) body.tools = params.tools;
  if (params.tool_choice !== undefined) body.tool_choice = params.tool_choice;
  if (params.temperature !== undefined) body.temperature = params.temperature;
  return body as unknown as Anthropic.MessageCreateParamsNonStreaming;
}

function fromSdkMessage(message: Anthropic.Message): ModelResponse {
  const content: (TextBlock | ToolUseBlock)[] = [];
  for (const block of message.content) {
    if (block.type === "text") content.push({ type: "text", text: block.text });
    else if (block.type === "tool_use") {
      content.push({ type: "tool_use", id: block.id, name: block.name, input: block.input });
    }
  }
  const usage = message.usage;
  return {
    id: message.id,
    model: message.model,
    stop_reason: message.stop_reason ?? null,
    content,
    usage: {
      input_tokens: usage?.input_tokens ?? 0,
      output_tokens: usage?.output_tokens ?? 0,
      cache_read_input_tokens: usage?.cache_read_input_tokens ?? 0,
      cache_creation_input_tokens: usage?.cache_creation_input_tokens ?? 0,
    },
  };
}
