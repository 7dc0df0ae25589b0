/** The `baseline` input, resolved to a report (or the reason there is none). */
import { stat } from "node:fs/promises";
import path from "node:path";
import { ConfigError, describeError } from "../errors.js";
import { type BaselineLookup, findBaseline } from "../github/find-baseline.js";
import type { ArtifactClient, GitHubClient } from "../github/types.js";
import { readReportFile } from "../results/read-report.js";
import type { Report } from "../results/types.js";
import type { RunContext } from "./context.js";
import type { ActionSettings } from "./inputs.js";

export type BaselineResolution = BaselineLookup | { status: "disabled" };

export interface BaselineClients {
  github: () => GitHubClient;
  artifacts: ArtifactClient;
  info: (message: string) => void;
}

export async function resolveBaseline(
  settings: Pick<ActionSettings, "baseline" | "artifactName" | "githubToken">,
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
    return {
      status: "found",
      report,
      source: {
        kind: "path",
        sha: report.run.git_sha,
        createdAt: report.run.started_at,
        runId: null,
        runNumber: null,
        runUrl: null,
        artifactId: null,
        matchesBaseSha: false,
        file: baseline.path,
      },
    };
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
    `Looking for a baseline: the latest successful push run of this workflow on ${pr.baseRef} (base commit ${pr.baseSha.slice(0, 7)}).`,
  );
  return findBaseline(clients.github(), clients.artifacts, {
    repo: context.repo,
    runId: context.runId,
    baseBranch: pr.baseRef,
    baseSha: pr.baseSha,
    artifactName: settings.artifactName,
    token: settings.githubToken,
    downloadDir,
  });
}
