/**
 * The only way out of a bwrap sandbox without network: named ports of the host's loopback (the
 * credential proxy of an agent CLI), bridged into the sandbox's own network namespace.
 *
 * With the network off, bwrap gives every command a network namespace of its own with nothing but
 * a loopback interface, so nothing on the host (nor beyond it) can be reached by address. For each
 * port the agent must reach, the harness listens on a Unix socket in a folder bound read-only into
 * the sandbox and relays each connection to that port on the host's 127.0.0.1. Inside, a small
 * forwarder (FORWARDER_SCRIPT, run by the harness's own node) listens on the sandbox's 127.0.0.1 at
 * the same port, relays to the socket, and starts the agent once it listens: the agent's
 * `http://127.0.0.1:PORT` works unchanged, and every other address and port stays unreachable.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import path from "node:path";

/** Where the bridge's folder is bound inside the sandbox. */
export const SANDBOX_BRIDGE_DIR = "/run/llm-tool-test/net";
const FORWARDER_NAME = "forward.cjs";
/** sun_path holds 108 bytes on Linux (104 on macOS), the terminating NUL included. */
const MAX_SOCKET_PATH = 100;

export interface LoopbackBridge {
  /** Host folder to bind read-only at SANDBOX_BRIDGE_DIR. */
  dir: string;
  /** The argv that runs `file args` inside the sandbox behind the forwarder (`node` as seen inside). */
  wrap(node: string, file: string, args: readonly string[]): string[];
  close(): Promise<void>;
}

/**
 * Opens the host side of a bridge for `ports` in `<base>/net` (or, when that path is too long for
 * a socket, in a fresh folder under /tmp, removed on close).
 */
export async function openLoopbackBridge(base: string, ports: readonly number[]): Promise<LoopbackBridge> {
  for (const port of ports) {
    if (!Number.isInteger(port) || port < 1 || port > 65_535) {
      throw new Error(`cannot bridge port ${port}: not a TCP port`);
    }
  }
  const wanted = path.join(base, "net");
  const longest = path.join(wanted, `${Math.max(...ports)}.sock`);
  const ownDir = longest.length > MAX_SOCKET_PATH;
  const dir = ownDir ? mkdtempSync("/tmp/ltt-net-") : wanted;
  mkdirSync(dir, { recursive: true, mode: 0o755 });
  chmodSync(dir, 0o755);
  writeFileSync(path.join(dir, FORWARDER_NAME), FORWARDER_SCRIPT, { mode: 0o644 });
  const servers: net.Server[] = [];
  const sockets = new Set<net.Socket>();
  const track = (socket: net.Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => socket.destroy());
  };
  try {
    for (const port of new Set(ports)) {
      const server = net.createServer((inside) => {
        track(inside);
        const host = net.connect(port, "127.0.0.1");
        track(host);
        inside.pipe(host);
        host.pipe(inside);
        inside.on("close", () => host.destroy());
        host.on("close", () => inside.destroy());
      });
      servers.push(server);
      const socketPath = path.join(dir, `${port}.sock`);
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(socketPath, () => {
          server.off("error", reject);
          resolve();
        });
      });
      // The sandbox's user may be another uid than the harness's (no user namespace).
      chmodSync(socketPath, 0o666);
    }
  } catch (error) {
    await closeAll(servers, sockets);
    if (ownDir) rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const uniquePorts = [...new Set(ports)].map(String);
  return {
    dir,
    wrap: (node, file, args) => [
      node,
      path.posix.join(SANDBOX_BRIDGE_DIR, FORWARDER_NAME),
      SANDBOX_BRIDGE_DIR,
      ...uniquePorts,
      "--",
      file,
      ...args,
    ],
    close: async () => {
      await closeAll(servers, sockets);
      if (ownDir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function closeAll(servers: readonly net.Server[], sockets: Set<net.Socket>): Promise<void> {
  for (const socket of sockets) socket.destroy();
  await Promise.all(
    servers.map(
      (server) =>
        new Promise<void>((resolve) => (server.listening ? server.close(() => resolve()) : resolve())),
    ),
  );
}

/**
 * The forwarder inside the sandbox: `node forward.cjs DIR PORT... -- FILE ARGS...`. Listens on
 * 127.0.0.1:PORT for each port, relaying to DIR/PORT.sock; then runs FILE with stdin, stdout and
 * stderr its own, passes on SIGTERM, SIGINT and SIGHUP, and exits with its status (128+n when it
 * was killed by signal n). CommonJS without dependencies, so any node runs it.
 */
const FORWARDER_SCRIPT = `"use strict";
const net = require("node:net");
const { spawn } = require("node:child_process");
const argv = process.argv.slice(2);
const split = argv.indexOf("--");
if (split < 2 || split === argv.length - 1) {
  process.stderr.write("llm-tool-test forwarder: usage: forward.cjs DIR PORT... -- FILE ARGS...\\n");
  process.exit(125);
}
const dir = argv[0];
const ports = argv.slice(1, split);
const [file, ...args] = argv.slice(split + 1);
function listen(port) {
  return new Promise((resolve, reject) => {
    const server = net.createServer((inside) => {
      const host = net.connect(dir + "/" + port + ".sock");
      inside.on("error", () => host.destroy());
      host.on("error", () => inside.destroy());
      inside.pipe(host);
      host.pipe(inside);
    });
    server.once("error", reject);
    server.listen(Number(port), "127.0.0.1", () => resolve(server));
  });
}
Promise.all(ports.map(listen)).then(
  (servers) => {
    for (const server of servers) server.unref();
    const child = spawn(file, args, { stdio: "inherit" });
    for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"]) {
      process.on(signal, () => child.kill(signal));
    }
    child.on("error", (error) => {
      process.stderr.write("llm-tool-test forwarder: cannot start " + file + ": " + error.message + "\\n");
      process.exit(error.code === "ENOENT" ? 127 : 126);
    });
    child.on("exit", (code, signal) => {
      const numbers = require("node:os").constants.signals;
      process.exit(code === null ? 128 + (numbers[signal] || 0) : code);
    });
  },
  (error) => {
    process.stderr.write("llm-tool-test forwarder: cannot listen: " + error.message + "\\n");
    process.exit(125);
  },
);
`;
