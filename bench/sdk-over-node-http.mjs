/**
 * The Anthropic SDK over a minimal node:http `fetch` (keep-alive, the answer read whole), next to
 * the SDK over the harness's transport (undici, src/model/http-dispatcher.ts): the two differ only
 * in the transport, so bench/cpu-probe.mjs can say what undici costs apart from the SDK's own work.
 * Bench only: it follows no redirect and no proxy, and sends only string bodies.
 */
import Anthropic from "@anthropic-ai/sdk";
import { createHttpDispatcher, createHttpFetch } from "../lib/model/http-dispatcher.js";
import { createNodeHttpClient } from "./bare-messages-call.mjs";

/** A `fetch` over bench/bare-messages-call.mjs's node:http request, failing as fetch fails. */
function createNodeHttpFetch() {
  const client = createNodeHttpClient();
  const fetch = async (input, init = {}) => {
    let answer;
    try {
      answer = await client.request(new URL(String(input)), {
        method: init.method,
        headers: Object.fromEntries(new Headers(init.headers)),
        body: init.body ?? undefined,
      });
    } catch (error) {
      throw new TypeError("fetch failed", { cause: error });
    }
    const headers = new Headers();
    for (let i = 0; i + 1 < answer.rawHeaders.length; i += 2) {
      headers.append(answer.rawHeaders[i], answer.rawHeaders[i + 1]);
    }
    return new Response(answer.body, { status: answer.status, headers });
  };
  return { fetch, close: client.close };
}

/** `messages.create` through the SDK over the given transport: `undici` (the harness's) or `node-http`. */
export function createSdkMessagesCall(baseUrl, transport) {
  const nodeHttp = transport === "node-http" ? createNodeHttpFetch() : null;
  const client = new Anthropic({
    apiKey: "sk-bench-key",
    baseURL: baseUrl,
    maxRetries: 0,
    logLevel: "off",
    // As the harness's client (src/model/anthropic-client.ts) builds it: tracing costs CPU per call.
    openTelemetry: false,
    fetch: nodeHttp ? nodeHttp.fetch : createHttpFetch(createHttpDispatcher({})),
  });
  return { call: (params) => client.messages.create(params), close: () => nodeHttp?.close() };
}
