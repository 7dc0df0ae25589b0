/**
 * A Messages call the bare way, as most harnesses make it: node:http with a keep-alive agent,
 * the request JSON.stringify'd and the answer JSON.parse'd. One definition for bench/bare-loop.mjs
 * and bench/cpu-probe.mjs, so both measure the same bare call.
 */
import http from "node:http";

export function createBareMessagesCall(baseUrl) {
  const agent = new http.Agent({ keepAlive: true });
  const url = new URL("/v1/messages", baseUrl);
  function call(params) {
    const body = JSON.stringify(params);
    return new Promise((resolve, reject) => {
      const request = http.request(
        url,
        {
          method: "POST",
          agent,
          headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
        },
        (response) => {
          let text = "";
          response.setEncoding("utf8");
          response.on("data", (chunk) => {
            text += chunk;
          });
          response.on("end", () => resolve(JSON.parse(text)));
        },
      );
      request.on("error", reject);
      request.end(body);
    });
  }
  return { call, close: () => agent.destroy() };
}
