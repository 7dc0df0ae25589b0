import { spawnSync } from "node:child_process";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readEvents } from "../../src/transcript/reader.js";
import { createEventWriter } from "../../src/transcript/writer.js";
import { makeTempDir } from "../support/temp-dirs.js";

const ROOT = path.resolve(import.meta.dirname, "../..");
const TSX = path.join(ROOT, "node_modules/.bin/tsx");

describe("the event writer off the event loop", () => {
  it("keeps the order of emission, in bursts and across turns of the loop, in the file and in memory", async () => {
    const dir = makeTempDir("ltt-events-order-");
    const file = path.join(dir, "events.jsonl");
    const writer = await createEventWriter(file, { startedAtMs: 0, now: () => 0 });
    let turn = 0;
    for (let burst = 0; burst < 20; burst += 1) {
      // Lines of different lengths, some with multi-byte characters: offsets are counted in bytes.
      for (let i = 0; i < 50; i += 1) {
        writer.emit({
          type: "tool_call",
          call_id: `c${turn}`,
          turn,
          command: `${"é".repeat(turn % 7)}echo ${turn}`,
        });
        turn += 1;
      }
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    await writer.close();
    const events = await readEvents(file);
    expect(events.map((event) => (event as { turn: number }).turn)).toEqual(
      Array.from({ length: 1000 }, (_, i) => i),
    );
    expect(events).toEqual(writer.events);
  });

  it("a process that exits right after emitting still leaves every event in the file, in order", async () => {
    const dir = makeTempDir("ltt-events-exit-");
    const file = path.join(dir, "events.jsonl");
    // The child emits, awaits nothing and exits: the writes are still queued when "exit" fires.
    const script = [
      `import { createEventWriter } from ${JSON.stringify(path.join(ROOT, "src/transcript/writer.ts"))};`,
      `createEventWriter(${JSON.stringify(file)}, { startedAtMs: 0, now: () => 0 }).then((writer) => {`,
      "  for (let turn = 0; turn < 500; turn++) writer.emit({ type: 'tool_call', call_id: 'c', turn, command: 'x'.repeat(turn) });",
      "  process.exit(3);",
      "});",
    ].join("\n");
    const child = spawnSync(TSX, ["--eval", script], {
      cwd: ROOT,
      encoding: "utf8",
      timeout: 120_000,
      // tsx keeps its cache in TMPDIR: the test's own folder, removed with it.
      env: { ...process.env, TMPDIR: dir },
    });
    expect(child.stderr).toBe("");
    expect(child.status).toBe(3);
    const lines = (await readFile(file, "utf8")).trim().split("\n");
    expect(lines.map((line) => (JSON.parse(line) as { turn: number }).turn)).toEqual(
      Array.from({ length: 500 }, (_, i) => i),
    );
  });
});
