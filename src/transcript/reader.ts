import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";
import { ConfigError } from "../errors.js";
import { describeExcessNesting, findExcessNesting } from "../json-nesting.js";
import type { TrialEvent } from "./events.js";

/**
 * Reads an `events.jsonl` file line by line (a torn last line from a killed run is skipped). A line
 * nesting deeper than any event does is a ConfigError naming the file and line, not a stack
 * overflow later in whatever walks the events.
 */
export async function readEvents(file: string): Promise<TrialEvent[]> {
  const events: TrialEvent[] = [];
  const lines = createInterface({
    input: createReadStream(file, "utf8"),
    crlfDelay: Number.POSITIVE_INFINITY,
  });
  let lineNumber = 0;
  for await (const line of lines) {
    lineNumber += 1;
    if (!line.trim()) continue;
    if (findExcessNesting(line) !== null) {
      lines.close();
      throw new ConfigError(describeExcessNesting(), `${file}:${lineNumber}`);
    }
    try {
      events.push(JSON.parse(line) as TrialEvent);
    } catch {
      // A partial line is what an interrupted write leaves; everything before it is intact.
    }
  }
  return events;
}
