/** Reads the trials' events next to a report, for the HTML page's transcript viewer. */
import path from "node:path";
import type { TrialEvent } from "../transcript/events.js";
import { readEvents } from "../transcript/reader.js";
import type { Report } from "./types.js";

function isInside(folder: string, file: string): boolean {
  const relative = path.relative(folder, file);
  return relative !== "" && !relative.startsWith("..") && !path.isAbsolute(relative);
}

/**
 * Reads each trial's events.jsonl (paths relative to the report's folder), keyed by `events_path`.
 * Trials whose file is missing are left out, so the page shows them without a transcript. Paths
 * that point outside the report's folder are ignored: a report from an artifact is data, and must
 * not pull other files of the machine into the page.
 */
export async function loadTrialEvents(
  report: Report,
  reportDir: string,
): Promise<Record<string, TrialEvent[]>> {
  const folder = path.resolve(reportDir);
  const out: Record<string, TrialEvent[]> = {};
  for (const scenario of report.scenarios) {
    for (const trial of scenario.trials) {
      const relative = trial.events_path;
      if (typeof relative !== "string" || Object.hasOwn(out, relative)) continue;
      const file = path.resolve(folder, relative);
      if (!isInside(folder, file)) continue;
      try {
        out[relative] = await readEvents(file);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code !== "ENOENT" && code !== "ENOTDIR" && code !== "EISDIR") throw error;
      }
    }
  }
  return out;
}
