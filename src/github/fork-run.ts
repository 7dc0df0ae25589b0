/**
 * What `mode: post-fork-comment` asks of GitHub about the fork's workflow run that started it: the
 * pull request it ran for, and its report artifact. The pull request is found from the
 * `workflow_run` payload (GitHub's, not the fork's) and cross-checked against the pull request
 * itself: open, in this repository, its head the run's repository, branch and commit. Nothing the
 * artifact says chooses where the comment goes.
 */
import { mkdir } from "node:fs/promises";
import { describeError } from "../errors.js";
import { describeHttpError } from "./describe-http-error.js";
import type { ArtifactClient, ArtifactData, GitHubClient, PullRequestData, RepoRef } from "./types.js";

/** The facts of the `workflow_run` payload the follow-up relies on, validated. */
export interface ForkRun {
  id: number;
  headSha: string;
  headBranch: string;
  /** `owner/name` of the head repository. */
  headRepo: string;
  /** Pull request numbers GitHub listed in the payload (empty for a fork's run, as GitHub leaves it). */
  pullRequests: number[];
}

export interface ForkPullRequest {
  number: number;
  baseRef: string;
  baseSha: string;
  headRef: string;
  headSha: string;
  headRepo: string;
}

export type ForkPullRequestLookup =
  | { status: "found"; pullRequest: ForkPullRequest }
  | { status: "missing"; reason: string };

const sameName = (a: string | undefined | null, b: string) => (a ?? "").toLowerCase() === b.toLowerCase();

/** Why `pull` is not the run's pull request, or null when it is. */
function describePullMismatch(pull: PullRequestData, run: ForkRun, repo: RepoRef): string | null {
  if (pull.state !== "open") return `#${pull.number} is ${pull.state}`;
  if (!sameName(pull.base.repo?.full_name, `${repo.owner}/${repo.repo}`))
    return `#${pull.number} is not a pull request into ${repo.owner}/${repo.repo}`;
  if (!sameName(pull.head.repo?.full_name, run.headRepo))
    return `#${pull.number}'s head is not in ${run.headRepo}`;
  if (pull.head.ref !== run.headBranch) return `#${pull.number}'s head is not the branch the run ran on`;
  if (pull.head.sha !== run.headSha)
    return `#${pull.number}'s head is now ${pull.head.sha.slice(0, 7)}, not the run's ${run.headSha.slice(0, 7)} (pushed again since)`;
  return null;
}

/**
 * The one open pull request whose head is the run's repository, branch and commit: the payload's
 * numbers and the open pull requests from `owner:branch`, each read back and checked.
 */
export async function findForkPullRequest(
  github: GitHubClient,
  repo: RepoRef,
  run: ForkRun,
): Promise<ForkPullRequestLookup> {
  const numbers = new Set(run.pullRequests);
  try {
    const owner = run.headRepo.split("/")[0] ?? "";
    const { data } = await github.rest.pulls.list({
      ...repo,
      head: `${owner}:${run.headBranch}`,
      state: "open",
      per_page: 100,
    });
    for (const pull of data) numbers.add(pull.number);
  } catch (error) {
    return {
      status: "missing",
      reason: `the pull requests could not be listed (${describeHttpError(error)})`,
    };
  }
  const matches: ForkPullRequest[] = [];
  const refused: string[] = [];
  for (const number of numbers) {
    let pull: PullRequestData;
    try {
      ({ data: pull } = await github.rest.pulls.get({ ...repo, pull_number: number }));
    } catch (error) {
      refused.push(`#${number} could not be read (${describeHttpError(error)})`);
      continue;
    }
    const mismatch = describePullMismatch(pull, run, repo);
    if (mismatch) {
      refused.push(mismatch);
      continue;
    }
    matches.push({
      number: pull.number,
      baseRef: pull.base.ref,
      baseSha: pull.base.sha,
      headRef: pull.head.ref,
      headSha: pull.head.sha,
      headRepo: run.headRepo,
    });
  }
  const why = refused.length > 0 ? ` (${refused.join("; ")})` : "";
  const [only, ...others] = matches;
  if (!only) {
    return {
      status: "missing",
      reason: `no open pull request into ${repo.owner}/${repo.repo} has the run's head ${run.headRepo}@${run.headSha.slice(0, 7)}${why}`,
    };
  }
  if (others.length > 0) {
    return {
      status: "missing",
      reason: `several open pull requests (${matches.map((m) => `#${m.number}`).join(", ")}) have the run's head: which one the run was for is not known`,
    };
  }
  return { status: "found", pullRequest: only };
}

export type RunArtifactDownload =
  | { status: "found"; artifact: ArtifactData; dir: string }
  | { status: "missing"; reason: string };

/** The run's artifact `name` extracted into `dir`, unless it is missing, expired or larger than `maxBytes`. */
export async function downloadRunArtifact(
  github: GitHubClient,
  artifacts: ArtifactClient,
  query: { repo: RepoRef; runId: number; name: string; token: string; dir: string; maxBytes: number },
): Promise<RunArtifactDownload> {
  const { repo, runId, name } = query;
  let found: ArtifactData | undefined;
  try {
    const listed = await github.rest.actions.listWorkflowRunArtifacts({
      ...repo,
      run_id: runId,
      name,
      per_page: 100,
    });
    found = listed.data.artifacts.find((artifact) => artifact.name === name);
  } catch (error) {
    return {
      status: "missing",
      reason: `the artifacts of run ${runId} could not be listed (${describeHttpError(error)})`,
    };
  }
  if (!found) return { status: "missing", reason: `run ${runId} has no artifact "${name}"` };
  if (found.expired)
    return { status: "missing", reason: `the artifact "${name}" of run ${runId} has expired` };
  if (!(found.size_in_bytes <= query.maxBytes)) {
    return {
      status: "missing",
      reason: `the artifact "${name}" of run ${runId} is ${found.size_in_bytes} bytes, more than a report's ${query.maxBytes}`,
    };
  }
  try {
    await mkdir(query.dir, { recursive: true });
    await artifacts.downloadArtifact(found.id, {
      path: query.dir,
      findBy: {
        token: query.token,
        workflowRunId: runId,
        repositoryOwner: repo.owner,
        repositoryName: repo.repo,
      },
    });
  } catch (error) {
    return {
      status: "missing",
      reason: `the artifact "${name}" of run ${runId} could not be downloaded (${describeError(error)})`,
    };
  }
  return { status: "found", artifact: found, dir: query.dir };
}
