/** The `--baseline FILE` flags of `run` and `compare`: each file read as a report to pool. */
import path from "node:path";
import type { BaselineCandidate } from "../compare/pool-baselines.js";
import { readReportFile } from "../results/read-report.js";
import { displayPath } from "./command.js";

/** In the order given: the first file counts as the newest run (its run facts label the pool). */
export async function readBaselineFiles(files: readonly string[], cwd: string): Promise<BaselineCandidate[]> {
  return Promise.all(
    files.map(async (file) => {
      const absolute = path.resolve(cwd, file);
      return { label: displayPath(cwd, absolute), report: await readReportFile(absolute) };
    }),
  );
}
