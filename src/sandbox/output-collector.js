// @ts-check
/**
 * Output kept within a cap while it streams: the head and the tail, the middle counted and marked
 * as cut. Shared by the process runners (process-runner.js) and the agent's persistent shell
 * (persistent-shell.ts), which reads its commands' output itself. Plain JavaScript with only
 * `node:` imports, so that both can load it (see process-runner-protocol.js).
 */

/** @typedef {import("./process-runner-protocol.js").CappedOutput} CappedOutput */
/** @typedef {import("./process-runner-protocol.js").StreamRest} StreamRest */

/**
 * Keeps the first `headCapBytes` (default: half of `capBytes`) and the last rest of `capBytes` of a
 * byte stream, counting what falls in between; memory stays within capBytes plus one chunk.
 * `push` returns how many bytes of the chunk went to the head (the streamed part, see below);
 * with `discardHead` the head is only counted, not kept (it was streamed: see finishAfterHead).
 * @param {number} capBytes
 * @param {number} [headCapBytes]
 * @param {boolean} [discardHead]
 * @returns {{ push(chunk: Buffer): number; finish(): CappedOutput; finishAfterHead(): StreamRest }}
 */
export function createOutputCollector(capBytes, headCapBytes, discardHead = false) {
  const headCap = Math.max(0, Math.min(capBytes, headCapBytes ?? Math.floor(capBytes / 2)));
  const tailCap = Math.max(0, capBytes - headCap);
  /** @type {Buffer[]} */
  const head = [];
  let headBytes = 0;
  /** @type {Buffer[]} */
  const tail = [];
  let tailBytes = 0;
  let dropped = 0;

  return {
    push(chunk) {
      let rest = chunk;
      let taken = 0;
      if (headBytes < headCap) {
        taken = Math.min(headCap - headBytes, rest.length);
        if (!discardHead) head.push(rest.subarray(0, taken));
        headBytes += taken;
        rest = rest.subarray(taken);
      }
      if (rest.length === 0) return taken;
      // Copy: a subarray would keep the whole (possibly large) chunk alive.
      tail.push(Buffer.from(rest));
      tailBytes += rest.length;
      while (tail.length > 1 && tailBytes - /** @type {Buffer} */ (tail[0]).length >= tailCap) {
        const first = /** @type {Buffer} */ (tail.shift());
        tailBytes -= first.length;
        dropped += first.length;
      }
      return taken;
    },
    finish() {
      const headBuffer = Buffer.concat(head);
      const tailBuffer = trimTail();
      if (dropped === 0) {
        return {
          text: decodeUtf8(Buffer.concat([headBuffer, tailBuffer])),
          truncated: false,
          droppedBytes: 0,
        };
      }
      // Cut on character boundaries so no multi-byte character is split.
      const headEnd = findUtf8BoundaryBefore(headBuffer, headBuffer.length);
      const tailStart = findUtf8BoundaryAfter(tailBuffer, 0);
      const totalDropped = dropped + (headBuffer.length - headEnd) + tailStart;
      const text =
        decodeUtf8(headBuffer.subarray(0, headEnd)) +
        `\n[... ${formatBytes(totalDropped)} cut by llm-tool-test ...]\n` +
        decodeUtf8(tailBuffer.subarray(tailStart));
      return { text, truncated: true, droppedBytes: totalDropped };
    },
    // What followed the head (already streamed): the tail as raw bytes, so that it decodes as the
    // continuation of the head; when the middle was dropped, the tail from a character start.
    finishAfterHead() {
      const tailBuffer = trimTail();
      if (dropped === 0) return { droppedBytes: 0, tail: new Uint8Array(tailBuffer) };
      const tailStart = findUtf8BoundaryAfter(tailBuffer, 0);
      return { droppedBytes: dropped + tailStart, tail: new Uint8Array(tailBuffer.subarray(tailStart)) };
    },
  };

  /** The tail, cut to its cap (counting what is cut as dropped). */
  function trimTail() {
    let tailBuffer = Buffer.concat(tail);
    if (tailBuffer.length > tailCap) {
      dropped += tailBuffer.length - tailCap;
      tailBuffer = tailBuffer.subarray(tailBuffer.length - tailCap);
      tail.length = 0;
      tail.push(tailBuffer);
      tailBytes = tailBuffer.length;
    }
    return tailBuffer;
  }
}

/** @param {Buffer} buffer */
function decodeUtf8(buffer) {
  return new TextDecoder("utf-8", { fatal: false }).decode(buffer);
}

/** @param {number | undefined} byte */
function isContinuationByte(byte) {
  return byte !== undefined && (byte & 0xc0) === 0x80;
}

/**
 * Largest index <= end that does not split a UTF-8 sequence.
 * @param {Buffer} buffer
 * @param {number} end
 */
function findUtf8BoundaryBefore(buffer, end) {
  let index = end;
  // Step back over at most 3 continuation bytes to the lead byte.
  let back = 0;
  while (back < 3 && index - back - 1 >= 0 && isContinuationByte(buffer[index - back - 1])) back += 1;
  const leadIndex = index - back - 1;
  if (leadIndex < 0) return index;
  const lead = /** @type {number} */ (buffer[leadIndex]);
  const length = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  if (length > back + 1) index = leadIndex;
  return index;
}

/**
 * Smallest index >= start at a character start (skips at most 3 continuation bytes).
 * @param {Buffer} buffer
 * @param {number} start
 */
function findUtf8BoundaryAfter(buffer, start) {
  let index = start;
  while (index < start + 3 && index < buffer.length && isContinuationByte(buffer[index])) index += 1;
  return index;
}

/** @param {number} bytes */
function formatBytes(bytes) {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  if (bytes < 1024 * 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
  return `${(bytes / (1024 * 1024 * 1024)).toFixed(1)} GB`;
}
