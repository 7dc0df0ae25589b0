/**
 * The Anthropic SDK over a minimal node:http `fetch` (keep-alive, the answer read whole), next to
 * the SDK over the harness's transport (undici, src/model/http-dispatcher.ts): the two differ only
 * in the transport, so bench/cpu-probe.mjs can say what undici costs apart from the SDK's own work.
 * Bench only: it follows no redirect and no proxy, and sends only string bodies.
 */
import http from "node:http";
import Anthropic from "@anthropic-ai/sdk";
import { createHttpDispatcher, createHttpFetch } from "../lib/model/http-dispatcher.js";

function createNodeHttpFetch() {
  const agent = new http.Agent({ keepAlive: true });
  const fetch = (input, init = {}) =>
    new Promise((resolve, reject) => {
      const headers = Object.fromEntries(new Headers(init.headers));
      const request = http.request(
        new URL(String(input)),
        { method: init.method, headers, agent },
        (response) => {
          const chunks = [];
          response.on("data", (chunk) => chunks.push(chunk));
          response.on("error", reject);
          response.on("end", () => {
            const answerHeaders = new Headers();
            for (let i = 0; i + 1 < response.rawHeaders.length; i += 2) {
              answerHeaders.append(response.rawHeaders[i], response.rawHeaders[i + 1]);
            }
            const status = response.statusCode ?? 0;
            resolve(new Response(Buffer.concat(chunks), { status, headers: answerHeaders }));
          });
        },
      );
      request.on("error", (error) => reject(new TypeError("fetch failed", { cause: error })));
      request.end(init.body ?? undefined);
    });
  return { fetch, close: () => agent.destroy() };
}

/** `messages.create` through the SDK over the given transport: `undici` (the harness's) or `node-http`. */
export function createSdkMessagesCall(baseUrl, transport) {
  const nodeHttp = transport === "node-http" ? createNodeHttpFetch() : null;
  const client = new Anthropic({
    apiKey: "sk-bench-key",
    baseURL: baseUrl,
    maxRetries: 0,
    logLevel: "off",
    fetch: nodeHttp ? nodeHttp.fetch : createHttpFetch(createHttpDispatcher({})),
  });
  return { call: (params) => client.messages.create(params), close: () => nodeHttp?.close() };
}
