/**
 * The write stage of a run, after it is decided (compare/decide-run.ts): every output file of the
 * report, its comparison and its decision, once, into the run's folder.
 */
import { writeFile } from "node:fs/promises";
import path from "node:path";
import type { DecidedRun } from "../compare/decide-run.js";
import { FORMAT_NAMES, type FormatInput, OUTPUT_FORMATS, type OutputFormat } from "../render/formats.js";
import { loadTrialEvents } from "../results/read-trial-events.js";
import type { Report } from "../results/types.js";

export interface OutputFolder {
  outDir: string;
  /** Applied to every file written (the run's secrets, createRunRedactor). */
  redact: (text: string) => string;
  /** What junit.xml's `file` attributes are relative to (the git root, or the working directory). */
  repositoryRoot?: string | undefined;
  /** The base-branch runs one by one: history.html is written when there are some. */
  baseRuns?: FormatInput["baseRuns"];
}

/**
 * Writes the decided run's files: its report's formats, and with a comparison the comparison's.
 * Returns the names of the files written (the comment says which the artifact holds).
 */
export async function writeRunOutputs(
  report: Report,
  { comparison, decision }: Pick<DecidedRun, "comparison" | "decision">,
  { outDir, redact, repositoryRoot, baseRuns }: OutputFolder,
): Promise<string[]> {
  return writeReportFiles(report, outDir, redact, {
    ...(comparison ? { comparison } : {}),
    decision,
    ...(repositoryRoot ? { repositoryRoot } : {}),
    ...(baseRuns ? { baseRuns } : {}),
  });
}

/**
 * Writes every output format that has a file (render/formats.ts) into `outDir`: report.json,
 * report.md, junit.xml, report.html (with the trials' events), given a comparison,
 * comparison.json and comparison.md, and given the base-branch runs, history.html.
 */
export async function writeReportFiles(
  report: Report,
  outDir: string,
  redact: (text: string) => string,
  options: Pick<FormatInput, "comparison" | "decision" | "repositoryRoot" | "baseRuns"> = {},
): Promise<string[]> {
  const input: FormatInput = { report, ...options };
  const written: string[] = [];
  for (const name of FORMAT_NAMES) {
    const format: OutputFormat = OUTPUT_FORMATS[name];
    if (format.file === null || (format.needsComparison && !options.comparison)) continue;
    if (format.needsBaseRuns && (options.baseRuns ?? []).length === 0) continue;
    if (format.needsEvents && input.events === undefined)
      input.events = await loadTrialEvents(report, outDir);
    await writeFile(path.join(outDir, format.file), redact(format.render(input)));
    written.push(format.file);
  }
  return written;
}
