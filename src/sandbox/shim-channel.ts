/**
 * Where the target shim's records go: a FIFO the harness reads as they come, instead of a file the
 * agent could rewrite.
 *
 * Trust model. The agent runs as code we do not control, in the same sandbox as the shim, so it can
 * do whatever the shim does: records can always be *added* (it can write a line to the FIFO).
 * What the channel takes away is rewriting and removing them: every record is read into the
 * harness's memory as soon as it is written, so truncating, editing or deleting afterwards changes
 * nothing. The FIFO is opened by the harness, then made write-only (mode 0222):
 * - bwrap: its folder is bound read-only, so the agent can neither read it (steal records), nor
 *   chmod, replace or remove it;
 * - local: the agent runs as the harness's user and can chmod, read or replace it; records it
 *   steals or diverts are then missing, which evaluate/invocations.ts flags against the tool calls.
 * Added records are what the cross-check (evaluate/invocations.ts) is for: a record no tool call
 * explains is flagged, and counts in the metrics only when it reports a failure, so forging can
 * never improve them.
 */
import { chmodSync, mkdirSync, readSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { makeFifos, openFifo } from "./fifos.js";
import { parseShimRecords } from "./shim.js";
import type { TargetInvocationRecord } from "./types.js";

/**
 * Records beyond this much text are dropped (an agent flooding the channel): missing like the
 * records an agent steals in local mode, and flagged the same way where the cross-check can.
 */
const MAX_CHANNEL_BYTES = 16 * 1024 * 1024;
const FIFO_NAME = "records";

export interface ShimChannel {
  /** Host path of the FIFO. */
  file: string;
  /** Every record received so far (whatever is waiting in the pipe included), in start order. */
  read(): TargetInvocationRecord[];
  close(): void;
}

/** Makes `<dir>/records` (a FIFO) and starts reading it. */
export async function openShimChannel(dir: string, searchPath: string): Promise<ShimChannel> {
  mkdirSync(dir, { recursive: true, mode: 0o755 });
  const file = path.join(dir, FIFO_NAME);
  await makeFifos([file], { mode: "0622", cwd: dir, searchPath, what: `the shim's record channel ${file}` });
  const fd = openFifo(file);
  // Write-only from now on: this descriptor stays the only reader.
  chmodSync(file, 0o222);
  let text = "";
  const append = (chunk: string) => {
    if (text.length + chunk.length <= MAX_CHANNEL_BYTES) text += chunk;
  };
  const socket = new net.Socket({ fd, readable: true, writable: false });
  socket.setEncoding("latin1");
  socket.on("data", (chunk: string) => append(chunk));
  socket.on("error", () => undefined);
  let closed = false;

  /** What the event loop has not read yet (the last command's records, just written). */
  const drain = () => {
    const buffer = Buffer.alloc(64 * 1024);
    for (;;) {
      let count = 0;
      try {
        count = readSync(fd, buffer);
      } catch {
        return; // EAGAIN: empty
      }
      if (count <= 0) return;
      append(buffer.subarray(0, count).toString("latin1"));
    }
  };

  return {
    file,
    read() {
      if (!closed) drain();
      return parseShimRecords(text);
    },
    close() {
      if (closed) return;
      drain();
      closed = true;
      // The socket owns the descriptor and closes it.
      socket.destroy();
    },
  };
}
