import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";
import type { TrialEvent } from "./events.js";

/** Reads an `events.jsonl` file line by line (a torn last line from a killed run is skipped). */
export async function readEvents(file: string): Promise<TrialEvent[]> {
  const events: TrialEvent[] = [];
  const lines = createInterface({
    input: createReadStream(file, "utf8"),
    crlfDelay: Number.POSITIVE_INFINITY,
  });
  for await (const line of lines) {
    if (!line.trim()) continue;
    try {
      events.push(JSON.parse(line) as TrialEvent);
    } catch {
      // A partial line is what an interrupted write leaves; everything before it is intact.
    }
  }
  return events;
}
