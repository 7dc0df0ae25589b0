/**
 * The `baseline` input, resolved to the candidate reports (or the reason there are none): with
 * `auto`, the last `baseline-runs` base-branch runs' reports, to be pooled; with a path, that one
 * report, used as given. Pooling needs the head's scenarios, so it happens where those are known.
 */
import { stat } from "node:fs/promises";
import path from "node:path";
import type { ExcludedBaseline } from "../compare/pool-baselines.js";
import type { BaselineSource } from "../compare/types.js";
import { ConfigError, describeError } from "../errors.js";
import { type FoundBaseline, findBaselines } from "../github/find-baseline.js";
import type { ArtifactClient, GitHubClient } from "../github/types.js";
import { readReportFile } from "../results/read-report.js";
import type { Report } from "../results/types.js";
import type { RunContext } from "./context.js";
import type { ActionSettings } from "./inputs.js";

export type BaselineResolution =
  | {
      status: "found";
      /** Newest first. */
      candidates: FoundBaseline[];
      /** Pool them (auto), or use the single report as given (a path). */
      pool: boolean;
      /** Runs passed over on the way (no artifact, no usable report), each with the reason. */
      skipped: string[];
      /** The passed-over runs whose report was not valid data: listed among the pool's exclusions. */
      rejected?: ExcludedBaseline[];
    }
  | { status: "missing"; reason: string }
  | { status: "disabled" };

export interface BaselineClients {
  github: () => GitHubClient;
  artifacts: ArtifactClient;
  info: (message: string) => void;
}

export async function resolveBaseline(
  settings: Pick<ActionSettings, "baseline" | "baselineRuns" | "artifactName" | "githubToken">,
  context: RunContext,
  workDir: string,
  downloadDir: string,
  clients: BaselineClients,
): Promise<BaselineResolution> {
  const baseline = settings.baseline;
  if (baseline.kind === "none") return { status: "disabled" };
  if (baseline.kind === "path") {
    let file = path.resolve(workDir, baseline.path);
    // A downloaded artifact's folder will do as well as its report.json.
    if (
      await stat(file).then(
        (info) => info.isDirectory(),
        () => false,
      )
    )
      file = path.join(file, "report.json");
    let report: Report;
    try {
      report = await readReportFile(file);
    } catch (error) {
      throw new ConfigError(
        `input "baseline": ${describeError(error)} (expected "auto", "none" or the path of a report.json)`,
      );
    }
    const source: BaselineSource = {
      kind: "path",
      sha: report.run.git_sha,
      createdAt: report.run.started_at,
      runId: null,
      runNumber: null,
      runUrl: null,
      artifactId: null,
      matchesBaseSha: false,
      file: baseline.path,
    };
    return { status: "found", candidates: [{ report, source }], pool: false, skipped: [] };
  }
  const pr = context.pullRequest;
  if (!pr) {
    return {
      status: "missing",
      reason: `this is a \`${context.eventName || "unknown"}\` run, not a pull request; a push run's report is the baseline of later pull requests`,
    };
  }
  if (!context.repo || !context.runId) {
    return {
      status: "missing",
      reason: "GITHUB_REPOSITORY or GITHUB_RUN_ID is not set, so the base branch's runs cannot be searched",
    };
  }
  clients.info(
    `Looking for a baseline: the latest ${settings.baselineRuns} successful push run(s) of this workflow on ${pr.baseRef} (base commit ${pr.baseSha.slice(0, 7)} first).`,
  );
  const lookup = await findBaselines(clients.github(), clients.artifacts, {
    repo: context.repo,
    runId: context.runId,
    baseBranch: pr.baseRef,
    baseSha: pr.baseSha,
    artifactName: settings.artifactName,
    token: settings.githubToken,
    downloadDir,
    maxRuns: settings.baselineRuns,
  });
  if (lookup.status === "missing") return lookup;
  return {
    status: "found",
    candidates: lookup.baselines,
    pool: true,
    skipped: lookup.skipped,
    rejected: lookup.rejected,
  };
}
