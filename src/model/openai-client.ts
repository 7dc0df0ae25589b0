/**
 * The real ModelClient for OpenAI and any OpenAI-compatible server (vLLM, Ollama, LiteLLM,
 * gateways): a thin adapter over the official `openai` SDK (the only module importing it).
 * Retries, deadlines and the limiter are the shared retry loop's (`retrying-call.ts`); the
 * translation to the wire formats is `openai-wire.ts`. Chat Completions by default; the Responses
 * API for the models only it serves, or for every model when asked to.
 */
import OpenAI, {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
  type ClientOptions,
} from "openai";
import { createHttpDispatcher, createHttpFetch, type ProxyEnv } from "./http-dispatcher.js";
import type { CreateMessageParams, ModelClient, ModelResponse } from "./model-client.js";
import { fromChatCompletion, fromResponse, toChatParams, toResponsesParams } from "./openai-wire.js";
import {
  callWithRetries,
  type RetryingClientOptions,
  resolveRetrySettings,
  type SdkFailure,
} from "./retrying-call.js";

const DEFAULT_OPENAI_BASE_URL = "https://api.openai.com/v1";

/** The two OpenAI APIs a model can be called through. */
export const OPENAI_APIS = ["chat", "responses"] as const;
export type OpenAiApi = (typeof OPENAI_APIS)[number];
/** `auto`: the Responses API for RESPONSES_ONLY_MODELS, Chat Completions for every other model. */
export type OpenAiApiChoice = "auto" | OpenAiApi;

/**
 * OpenAI models served by the Responses API only (the pro, codex, deep-research and
 * computer-use models); any other model goes to Chat Completions, which every OpenAI-compatible
 * server speaks. Matched at the start of the id, so dated ids (`-2025-10-06`) match too.
 */
const RESPONSES_ONLY_MODELS =
  /^(o1-pro|o3-pro|gpt-5(\.\d+)?-pro|gpt-5(\.\d+)?-codex|codex-mini|o3-deep-research|o4-mini-deep-research|computer-use-preview)/;

/** The API `model` is called through under `choice`. */
export function openAiApiFor(model: string, choice: OpenAiApiChoice = "auto"): OpenAiApi {
  if (choice !== "auto") return choice;
  const id = model.slice(model.lastIndexOf("/") + 1).toLowerCase();
  return RESPONSES_ONLY_MODELS.test(id) ? "responses" : "chat";
}

export interface OpenAiClientOptions extends RetryingClientOptions {
  /** Default `auto` (see openAiApiFor). */
  api?: OpenAiApiChoice;
  /** Where HTTPS_PROXY / HTTP_PROXY / NO_PROXY are read; defaults to process.env. */
  proxyEnv?: ProxyEnv;
}

export function createOpenAiClient(options: OpenAiClientOptions): ModelClient {
  const settings = resolveRetrySettings("createOpenAiClient", options, {
    baseURL: DEFAULT_OPENAI_BASE_URL,
    keySource: "OPENAI_API_KEY",
  });
  const sdk = createSdk(
    settings.apiKey,
    settings.baseURL,
    settings.requestTimeoutMs,
    options.proxyEnv ?? process.env,
  );
  const choice = options.api ?? "auto";
  return {
    createMessage: (params, callOptions = {}) =>
      callWithRetries(
        settings,
        {
          model: params.model,
          send: (signal) => send(sdk, openAiApiFor(params.model, choice), params, signal),
          classify: classifyError,
        },
        callOptions,
      ),
  };
}

async function send(
  sdk: OpenAI,
  api: OpenAiApi,
  params: CreateMessageParams,
  signal: AbortSignal,
): Promise<ModelResponse> {
  if (api === "responses")
    return fromResponse(await sdk.responses.create(toResponsesParams(params), { signal }));
  return fromChatCompletion(await sdk.chat.completions.create(toChatParams(params), { signal }));
}

function createSdk(apiKey: string, baseURL: string, requestTimeoutMs: number, proxyEnv: ProxyEnv): OpenAI {
  return new OpenAI({
    // Every option that would otherwise fall back to an OPENAI_* variable is given here: the key,
    // the base URL (never OPENAI_BASE_URL behind the front end's back), no organization, project
    // or admin key; and the headers below win over OPENAI_CUSTOM_HEADERS, so no ambient
    // credential can ride along with (or replace) the key we were given.
    apiKey,
    adminAPIKey: null,
    organization: null,
    project: null,
    webhookSecret: null,
    baseURL,
    defaultHeaders: {
      Authorization: `Bearer ${apiKey}`,
      "OpenAI-Organization": null,
      "OpenAI-Project": null,
    },
    maxRetries: 0,
    timeout: requestTimeoutMs,
    // The events are the record; the SDK must not print request bodies (OPENAI_LOG).
    logLevel: "off",
    // As in the Anthropic client: undici's request API on this client's dispatcher (keep-alive,
    // the proxy from proxyEnv); Node's global fetch ignores proxy settings, and undici's fetch
    // layer costs more CPU per call (http-dispatcher.ts).
    fetch: createHttpFetch(createHttpDispatcher(proxyEnv)) as unknown as ClientOptions["fetch"],
  });
}

/** The SDK's error classes, sorted for the retry loop. */
function classifyError(error: unknown): SdkFailure {
  if (error instanceof APIUserAbortError) return { kind: "aborted" };
  if (error instanceof APIConnectionTimeoutError) return { kind: "timeout" };
  if (error instanceof APIConnectionError) return { kind: "connection", cause: error.cause };
  if (error instanceof APIError && typeof error.status === "number") {
    const body = error.error as { message?: unknown } | undefined;
    return {
      kind: "status",
      status: error.status,
      headers: error.headers,
      apiMessage: typeof body?.message === "string" ? body.message : error.message,
    };
  }
  return { kind: "other", error };
}
