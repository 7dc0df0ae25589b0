/**
 * The facts of the workflow run the action is in, from the runner's environment and the event
 * payload file: which repository, run and event, and for a pull request its base and head.
 */
import { readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { RepoRef } from "../github/types.js";

interface PullRequestInfo {
  number: number;
  baseRef: string;
  baseSha: string;
  headSha: string;
  headRef: string;
  /** `owner/name` of the head repository; null when the fork was deleted. */
  headRepo: string | null;
  /** From another repository: its workflows get no secrets. */
  fromFork: boolean;
}

export interface RunContext {
  eventName: string;
  repo: RepoRef | null;
  runId: number | null;
  serverUrl: string;
  sha: string | null;
  ref: string | null;
  actor: string | null;
  /** GITHUB_WORKSPACE, else the process's working directory. */
  workspace: string;
  /** RUNNER_TEMP, else the system's temp folder. */
  tempDir: string;
  pullRequest: PullRequestInfo | null;
}

const PULL_REQUEST_EVENTS = new Set(["pull_request", "pull_request_target"]);

interface PullRequestPayload {
  number?: number;
  base?: { ref?: string; sha?: string; repo?: { full_name?: string } | null };
  head?: { ref?: string; sha?: string; repo?: { full_name?: string; fork?: boolean } | null };
}

export function readRunContext(
  env: Record<string, string | undefined>,
  cwd: string,
  readText: (file: string) => string = (file) => readFileSync(file, "utf8"),
): RunContext {
  const eventName = env.GITHUB_EVENT_NAME ?? "";
  let payload: { pull_request?: PullRequestPayload } = {};
  if (env.GITHUB_EVENT_PATH) {
    try {
      payload = JSON.parse(readText(env.GITHUB_EVENT_PATH));
    } catch {
      payload = {};
    }
  }
  const [owner, name] = (env.GITHUB_REPOSITORY ?? "").split("/");
  const runId = Number(env.GITHUB_RUN_ID);
  return {
    eventName,
    repo: owner && name ? { owner, repo: name } : null,
    runId: Number.isSafeInteger(runId) && runId > 0 ? runId : null,
    serverUrl: (env.GITHUB_SERVER_URL || "https://github.com").replace(/\/+$/, ""),
    sha: env.GITHUB_SHA || null,
    ref: env.GITHUB_REF || null,
    actor: env.GITHUB_ACTOR || null,
    workspace: path.resolve(cwd, env.GITHUB_WORKSPACE || "."),
    tempDir: path.resolve(cwd, env.RUNNER_TEMP || os.tmpdir()),
    pullRequest: PULL_REQUEST_EVENTS.has(eventName) ? readPullRequest(payload.pull_request) : null,
  };
}

function readPullRequest(pr: PullRequestPayload | undefined): PullRequestInfo | null {
  if (!pr || typeof pr.number !== "number" || !pr.base?.sha || !pr.head?.sha) return null;
  const headRepo = pr.head.repo?.full_name ?? null;
  const baseRepo = pr.base.repo?.full_name ?? null;
  return {
    number: pr.number,
    baseRef: pr.base.ref ?? "",
    baseSha: pr.base.sha,
    headSha: pr.head.sha,
    headRef: pr.head.ref ?? "",
    headRepo,
    fromFork:
      pr.head.repo?.fork === true || headRepo === null || (baseRepo !== null && headRepo !== baseRepo),
  };
}
