/**
 * Baseline `auto`: the report artifact of the most recent successful push run of the same workflow
 * on the pull request's base branch. A missing baseline is not an error: the caller gets the reason
 * and says it in the comment.
 */
import { mkdir } from "node:fs/promises";
import path from "node:path";
import type { ExcludedBaseline } from "../compare/pool-baselines.js";
import type { BaselineSource } from "../compare/types.js";
import { describeError } from "../errors.js";
import { readReportFile } from "../results/read-report.js";
import type { Report } from "../results/types.js";
import { describeHttpError } from "./describe-http-error.js";
import type { ArtifactClient, ArtifactData, GitHubClient, RepoRef, WorkflowRunData } from "./types.js";

export interface BaselineQuery {
  repo: RepoRef;
  /** This run: its workflow is the one searched. */
  runId: number;
  baseBranch: string;
  /** The pull request's base commit: a run of exactly this commit is preferred. */
  baseSha: string;
  artifactName: string;
  /** For the cross-run artifact download. */
  token: string;
  /** Where artifacts are extracted (one sub-folder per run). */
  downloadDir: string;
}

export interface FoundBaseline {
  report: Report;
  source: BaselineSource;
}

export type BaselinesLookup =
  | {
      status: "found";
      /** Newest usable first (the base commit's own runs before all others), at most `maxRuns`. */
      baselines: FoundBaseline[];
      /** Runs passed over on the way (no artifact, no usable report), each with the reason. */
      skipped: string[];
      /** The runs among them whose report was not valid data: left out of the pool, with why. */
      rejected: ExcludedBaseline[];
    }
  | { status: "missing"; reason: string };

export type BaselineLookup =
  | { status: "found"; report: Report; source: BaselineSource }
  | { status: "missing"; reason: string };

/** Runs tried beyond the ones wanted: the newest runs may lack an artifact (still running, cancelled). */
const EXTRA_CANDIDATES = 5;

/**
 * Baseline `auto` with pooling: the report artifacts of up to `maxRuns` successful push runs of
 * this workflow on the base branch, the run of the PR's base commit first, then newest first.
 */
export async function findBaselines(
  github: GitHubClient,
  artifacts: ArtifactClient,
  query: BaselineQuery & { maxRuns: number },
): Promise<BaselinesLookup> {
  const { owner, repo } = query.repo;
  let runs: WorkflowRunData[];
  try {
    const current = await github.rest.actions.getWorkflowRun({ owner, repo, run_id: query.runId });
    const listed = await github.rest.actions.listWorkflowRuns({
      owner,
      repo,
      workflow_id: current.data.workflow_id,
      branch: query.baseBranch,
      event: "push",
      status: "success",
      // The API's largest page: `baseline-runs` and the spare candidates come from it (30, the old
      // size, could not fill a pool of 30 or more).
      per_page: 100,
    });
    runs = listed.data.workflow_runs.filter((run) => run.id !== query.runId && run.conclusion === "success");
  } catch (error) {
    return {
      status: "missing",
      reason: `the workflow runs could not be listed (${describeHttpError(error)})`,
    };
  }
  if (runs.length === 0) {
    return {
      status: "missing",
      reason: `no successful push run of this workflow on \`${query.baseBranch}\` yet (the workflow must also run on push to \`${query.baseBranch}\` to produce the baseline)`,
    };
  }

  const baselines: FoundBaseline[] = [];
  const skipped: string[] = [];
  const rejected: ExcludedBaseline[] = [];
  for (const run of orderCandidates(runs, query.baseSha).slice(0, query.maxRuns + EXTRA_CANDIDATES)) {
    const attempt = await tryRun(github, artifacts, query, run);
    if (attempt.status === "found") {
      baselines.push({ report: attempt.report, source: attempt.source });
      if (baselines.length >= query.maxRuns) break;
      continue;
    }
    skipped.push(attempt.reason);
    if (attempt.invalid && attempt.label)
      rejected.push({ label: attempt.label, scenario: null, reason: attempt.invalid });
    if (attempt.final) break;
  }
  if (baselines.length === 0) return { status: "missing", reason: skipped[0] ?? "no baseline found" };
  return { status: "found", baselines, skipped, rejected };
}

/** The single newest baseline (the base commit's run first). */
export async function findBaseline(
  github: GitHubClient,
  artifacts: ArtifactClient,
  query: BaselineQuery,
): Promise<BaselineLookup> {
  const lookup = await findBaselines(github, artifacts, { ...query, maxRuns: 1 });
  if (lookup.status === "missing") return lookup;
  const [first] = lookup.baselines as [FoundBaseline];
  return { status: "found", report: first.report, source: first.source };
}

/** The run of the base commit first, then newest first. */
export function orderCandidates(runs: WorkflowRunData[], baseSha: string): WorkflowRunData[] {
  const newestFirst = [...runs].sort(
    (a, b) => Date.parse(b.created_at) - Date.parse(a.created_at) || b.id - a.id,
  );
  const exact = newestFirst.filter((run) => run.head_sha === baseSha);
  return [...exact, ...newestFirst.filter((run) => run.head_sha !== baseSha)];
}

type Attempt =
  | { status: "found"; report: Report; source: BaselineSource }
  /** `invalid`: the artifact's report is not valid data (why), with the run's `label`. */
  | { status: "missing"; reason: string; final: boolean; invalid?: string; label?: string };

async function tryRun(
  github: GitHubClient,
  artifacts: ArtifactClient,
  query: BaselineQuery,
  run: WorkflowRunData,
): Promise<Attempt> {
  const { owner, repo } = query.repo;
  const label = `run #${run.run_number} (\`${run.head_sha.slice(0, 7)}\`)`;
  let found: ArtifactData | undefined;
  try {
    const listed = await github.rest.actions.listWorkflowRunArtifacts({
      owner,
      repo,
      run_id: run.id,
      name: query.artifactName,
      per_page: 100,
    });
    found = listed.data.artifacts.find((artifact) => artifact.name === query.artifactName);
  } catch (error) {
    return {
      status: "missing",
      reason: `the artifacts of ${label} could not be listed (${describeHttpError(error)})`,
      final: true,
    };
  }
  if (!found) {
    return {
      status: "missing",
      reason: `${label} on \`${query.baseBranch}\` has no artifact \`${query.artifactName}\``,
      final: false,
    };
  }
  // Older runs' artifacts expire before newer ones: no point looking further.
  if (found.expired) {
    return { status: "missing", reason: `the baseline artifact of ${label} has expired`, final: true };
  }
  const dir = path.join(query.downloadDir, `run-${run.id}`);
  try {
    await mkdir(dir, { recursive: true });
    await artifacts.downloadArtifact(found.id, {
      path: dir,
      findBy: { token: query.token, workflowRunId: run.id, repositoryOwner: owner, repositoryName: repo },
    });
  } catch (error) {
    const status = (error as { status?: number }).status;
    if (status === 410 || /\b410\b|expired/i.test(describeError(error))) {
      return { status: "missing", reason: `the baseline artifact of ${label} has expired`, final: true };
    }
    return {
      status: "missing",
      reason: `the baseline artifact of ${label} could not be downloaded (${describeHttpError(error)})`,
      final: true,
    };
  }
  const file = path.join(dir, "report.json");
  let report: Report;
  try {
    report = await readReportFile(file);
  } catch (error) {
    const why = describeError(error).replace(`${file}: `, "");
    return {
      status: "missing",
      reason: `the baseline artifact of ${label} holds no usable report.json (${describeError(error)})`,
      final: false,
      invalid: `not a valid report: ${why}`,
      label,
    };
  }
  return {
    status: "found",
    report,
    source: {
      kind: "auto",
      sha: run.head_sha,
      createdAt: run.created_at,
      runId: run.id,
      runNumber: run.run_number,
      runUrl: run.html_url,
      artifactId: found.id,
      matchesBaseSha: run.head_sha === query.baseSha,
      file,
    },
  };
}
