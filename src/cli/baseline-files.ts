/** The `--baseline FILE` flags of `run`, `compare`, `report` and `merge`: each file read as a report to pool. */
import { access, constants } from "node:fs/promises";
import path from "node:path";
import type { DecisionBaseline } from "../compare/decide-run.js";
import type { BaselineCandidate, ExcludedBaseline } from "../compare/pool-baselines.js";
import { ConfigError, isConfigError } from "../errors.js";
import { readReportFile } from "../results/read-report.js";
import type { Report } from "../results/types.js";
import { settleBaseline } from "../run/baseline.js";
import { decisionBaselineOf } from "../run/pipeline.js";
import { displayPath } from "./command.js";

export interface BaselineFiles {
  /** In the order given: the first file counts as the newest run (its run facts label the pool). */
  candidates: BaselineCandidate[];
  /**
   * Files that are not valid reports (a misshapen field, a number out of range): left out with the
   * reason, as a pool leaves out a run that measured something else, so one bad file among good ones
   * cannot change what the check decides.
   */
  rejected: ExcludedBaseline[];
}

/**
 * A file that cannot be read is the user's typo (a ConfigError); one that reads but is not a valid
 * report is left out with why. When every file is left out, nothing is left to compare with: a
 * ConfigError saying why each was refused.
 */
export async function readBaselineFiles(files: readonly string[], cwd: string): Promise<BaselineFiles> {
  const read = await Promise.all(
    files.map(async (file): Promise<BaselineCandidate | ExcludedBaseline> => {
      const absolute = path.resolve(cwd, file);
      const label = displayPath(cwd, absolute);
      try {
        await access(absolute, constants.R_OK);
      } catch {
        throw new ConfigError("cannot read the report file: check the path", absolute);
      }
      try {
        return { label, report: await readReportFile(absolute) };
      } catch (error) {
        if (!isConfigError(error)) throw error;
        const reason = `not a valid report: ${error.message.replace(`${absolute}: `, "")}`;
        return { label, scenario: null, reason };
      }
    }),
  );
  const candidates = read.filter((entry): entry is BaselineCandidate => "report" in entry);
  const rejected = read.filter((entry): entry is ExcludedBaseline => "reason" in entry);
  if (candidates.length === 0 && rejected.length > 0) {
    throw new ConfigError(
      `no --baseline file is a valid report:\n${rejected.map((r) => `- ${r.label}: ${r.reason}`).join("\n")}`,
    );
  }
  return { candidates, rejected };
}

export interface DecisionBaselines {
  /** What the decision compares with: one file as given, several pooled. */
  decided: DecisionBaseline;
  /** Each file's run, for the history page. */
  runs: BaselineCandidate[];
}

/**
 * The --baseline files: one is compared as given (whatever agent or model made it); several are
 * pooled over the runs that measured what the report measures, as `compare` and `run` pool them.
 */
export async function readDecisionBaselines(
  files: string[],
  report: Report,
  cwd: string,
): Promise<DecisionBaselines | null> {
  if (files.length === 0) return null;
  if (files.length === 1) {
    const absolute = path.resolve(cwd, files[0] as string);
    const base = await readReportFile(absolute);
    return { decided: { report: base }, runs: [{ label: displayPath(cwd, absolute), report: base }] };
  }
  const { candidates, rejected } = await readBaselineFiles(files, cwd);
  const settled = settleBaseline(candidates, report, { pool: true, rejected });
  return { decided: decisionBaselineOf(settled), runs: candidates };
}
