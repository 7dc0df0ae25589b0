/**
 * A Messages call the bare way, as most harnesses make it: node:http with a keep-alive agent,
 * the request JSON.stringify'd and the answer JSON.parse'd. One definition for bench/bare-loop.mjs
 * and bench/cpu-probe.mjs, so both measure the same bare call; its node:http request is also the
 * transport of bench/sdk-over-node-http.mjs.
 */
import http from "node:http";

/** node:http on a keep-alive agent: one request, resolved with its status, raw headers and whole body. */
export function createNodeHttpClient() {
  const agent = new http.Agent({ keepAlive: true });
  function request(url, { method, headers, body }) {
    return new Promise((resolve, reject) => {
      const outgoing = http.request(url, { method, headers, agent }, (response) => {
        const chunks = [];
        response.on("data", (chunk) => chunks.push(chunk));
        response.on("error", reject);
        response.on("end", () =>
          resolve({
            status: response.statusCode ?? 0,
            rawHeaders: response.rawHeaders,
            body: Buffer.concat(chunks),
          }),
        );
      });
      outgoing.on("error", reject);
      outgoing.end(body);
    });
  }
  return { request, close: () => agent.destroy() };
}

export function createBareMessagesCall(baseUrl) {
  const client = createNodeHttpClient();
  const url = new URL("/v1/messages", baseUrl);
  async function call(params) {
    const body = JSON.stringify(params);
    const answer = await client.request(url, {
      method: "POST",
      headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
      body,
    });
    return JSON.parse(answer.body.toString("utf8"));
  }
  return { call, close: client.close };
}
