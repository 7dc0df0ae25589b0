/**
 * A forward HTTP proxy on 127.0.0.1 for tests: CONNECT tunnels (how https:// goes through a proxy)
 * and absolute-URI requests (how plain http:// does), recording both. It reaches only loopback
 * targets and refuses any other, so a test can never leave the machine through it.
 */
import { once } from "node:events";
import http from "node:http";
import net, { type AddressInfo } from "node:net";

export interface ConnectProxy {
  /** http://127.0.0.1:PORT, for HTTPS_PROXY / HTTP_PROXY. */
  url: string;
  /** CONNECT targets as host:port, in arrival order. */
  connects: string[];
  /** Absolute-URI requests forwarded, as "METHOD URL". */
  forwarded: string[];
  /** TCP connections clients opened to the proxy. */
  connections(): number;
  close(): Promise<void>;
}

/** Hop-by-hop headers, which a proxy does not pass on. */
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-authorization",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
]);

function isLoopbackHost(host: string): boolean {
  return host === "127.0.0.1" || host === "localhost" || host === "[::1]" || host === "::1";
}

function withoutHopByHop(headers: http.IncomingHttpHeaders): http.OutgoingHttpHeaders {
  const kept: http.OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(name.toLowerCase())) kept[name] = value;
  }
  return kept;
}

export async function startConnectProxy(): Promise<ConnectProxy> {
  const connects: string[] = [];
  const forwarded: string[] = [];
  const tunnels = new Set<net.Socket>();
  let connections = 0;

  const server = http.createServer((req, res) => {
    const target = URL.canParse(req.url ?? "") ? new URL(req.url as string) : null;
    if (target?.protocol !== "http:") {
      res.writeHead(400).end("this proxy forwards only absolute http:// URLs");
      return;
    }
    forwarded.push(`${req.method} ${req.url}`);
    if (!isLoopbackHost(target.hostname)) {
      res.writeHead(403).end("this proxy reaches only 127.0.0.1");
      return;
    }
    const upstream = http.request(
      {
        hostname: target.hostname,
        port: target.port || 80,
        method: req.method,
        path: `${target.pathname}${target.search}`,
        headers: withoutHopByHop(req.headers),
      },
      (upstreamRes) => {
        res.writeHead(upstreamRes.statusCode ?? 502, withoutHopByHop(upstreamRes.headers));
        upstreamRes.pipe(res);
      },
    );
    upstream.on("error", () => {
      if (res.headersSent) res.destroy();
      else res.writeHead(502).end("upstream unreachable");
    });
    req.pipe(upstream);
  });

  server.on("connection", () => {
    connections += 1;
  });

  server.on("connect", (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    const target = req.url ?? "";
    connects.push(target);
    tunnels.add(client);
    client.on("close", () => tunnels.delete(client));
    client.on("error", () => client.destroy());
    const separator = target.lastIndexOf(":");
    const host = target.slice(0, separator);
    const port = Number(target.slice(separator + 1));
    if (separator < 0 || !isLoopbackHost(host) || !Number.isInteger(port)) {
      client.end("HTTP/1.1 403 Forbidden\r\n\r\n");
      return;
    }
    let established = false;
    const upstream = net.connect(port, host.replace(/^\[|\]$/g, ""), () => {
      established = true;
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    tunnels.add(upstream);
    upstream.on("close", () => {
      tunnels.delete(upstream);
      if (established) client.destroy();
    });
    upstream.on("error", () => {
      if (!established) client.end("HTTP/1.1 502 Bad Gateway\r\n\r\n");
    });
    client.on("close", () => upstream.destroy());
  });

  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    connects,
    forwarded,
    connections: () => connections,
    close: async () => {
      // Tunnels left the server's hands at CONNECT; it does not close them itself.
      for (const socket of tunnels) socket.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
