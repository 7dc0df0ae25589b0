/** A bare HTTP server on 127.0.0.1 whose handler the test writes (an upstream, a trap). */
import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface LoopbackServer {
  /** http://127.0.0.1:PORT */
  url: string;
  server: http.Server;
  /** Ends its open connections and stops it; later calls wait for the first. */
  close(): Promise<void>;
}

export async function startLoopbackServer(handler: http.RequestListener): Promise<LoopbackServer> {
  const server = http.createServer(handler);
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  let closing: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    server,
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
      return closing;
    },
  };
}
