/**
 * `mode: post-fork-comment`, the `workflow_run` follow-up of a fork's pull request: its run had a
 * read-only token, so this run (the base branch's workflow, with a token that can write) posts the
 * comment. Everything from the fork's run is data: only its report.json is read, checked like any
 * downloaded report (shape, ranges, nesting, size), and the comment is rendered here from it, with
 * this action's own escaping; the fork's comment.md is never read. The run and pull request come
 * from the `workflow_run` payload, checked here.
 */
import { readFileSync } from "node:fs";
import { lstat } from "node:fs/promises";
import path from "node:path";
import { AGENTS, isAgentName } from "../agents/registry.js";
import { ConfigError, describeError } from "../errors.js";
import type { ForkRun } from "../github/fork-run.js";
import { readReportFile } from "../results/read-report.js";
import type { Report } from "../results/types.js";

/** A report artifact is a few MiB at most; this bounds a hostile zip before it is extracted. */
export const FORK_ARTIFACT_MAX_BYTES = 512 * 1024 * 1024;
/** report.json itself: read whole, so bounded. */
const FORK_REPORT_MAX_BYTES = 64 * 1024 * 1024;

const SHA = /^[0-9a-f]{40}$/;
const REPOSITORY = /^[A-Za-z0-9_.-]{1,100}\/[A-Za-z0-9_.-]{1,100}$/;
/** Git refuses control characters, spaces and most punctuation that matters here in branch names. */
const BRANCH = /^[^\s\u0000-\u001F\u007F~^:?*[\\]{1,255}$/;

type ReadText = (file: string) => string;

interface WorkflowRunPayload {
  workflow_run?: {
    id?: unknown;
    event?: unknown;
    head_sha?: unknown;
    head_branch?: unknown;
    head_repository?: { full_name?: unknown } | null;
    pull_requests?: { number?: unknown }[] | null;
  };
}

export type ForkRunEvent =
  | { kind: "fork-run"; run: ForkRun }
  /** A completed run that was not a pull request's (a push): nothing to post. */
  | { kind: "not-a-pull-request"; event: string };

function refuse(what: string): never {
  throw new ConfigError(
    `input "mode": post-fork-comment ${what} (see docs/action.md, "Pull requests from forks", for the workflow)`,
  );
}

/** The `workflow_run` payload's facts, each checked; anything else is a clear ConfigError. */
export function readForkRunEvent(
  env: Record<string, string | undefined>,
  readText: ReadText = (file) => readFileSync(file, "utf8"),
): ForkRunEvent {
  const eventName = env.GITHUB_EVENT_NAME ?? "";
  if (eventName !== "workflow_run") {
    refuse(`runs in a workflow started by "on: workflow_run", and this run's event is "${eventName}"`);
  }
  let payload: WorkflowRunPayload;
  try {
    payload = JSON.parse(readText(env.GITHUB_EVENT_PATH ?? "")) as WorkflowRunPayload;
  } catch (error) {
    return refuse(`could not read the event payload GITHUB_EVENT_PATH (${describeError(error)})`);
  }
  const run = payload?.workflow_run;
  if (!run || typeof run !== "object") refuse("found no workflow_run in the event payload");
  if (run.event !== "pull_request") return { kind: "not-a-pull-request", event: String(run.event) };
  const id = run.id;
  if (typeof id !== "number" || !Number.isSafeInteger(id) || id <= 0)
    refuse("found no valid workflow_run.id in the event payload");
  if (typeof run.head_sha !== "string" || !SHA.test(run.head_sha))
    refuse("found no valid workflow_run.head_sha in the event payload");
  if (typeof run.head_branch !== "string" || !BRANCH.test(run.head_branch))
    refuse("found no valid workflow_run.head_branch in the event payload");
  const headRepo = run.head_repository?.full_name;
  if (typeof headRepo !== "string" || !REPOSITORY.test(headRepo))
    refuse("found no valid workflow_run.head_repository in the event payload (a deleted fork?)");
  const pullRequests = (Array.isArray(run.pull_requests) ? run.pull_requests : [])
    .map((pull) => pull?.number)
    .filter((n): n is number => typeof n === "number" && Number.isSafeInteger(n) && n > 0);
  return {
    kind: "fork-run",
    run: { id, headSha: run.head_sha, headBranch: run.head_branch, headRepo, pullRequests },
  };
}

/**
 * The report.json of the fork run's artifact, read as data: a regular file (no link), bounded, and
 * valid as every downloaded report must be. A bad one is a ConfigError naming the run and why.
 */
export async function readForkReport(dir: string, runId: number): Promise<Report> {
  const file = path.join(dir, "report.json");
  const where = `the report artifact of run ${runId}`;
  const info = await lstat(file).catch(() => null);
  if (!info) throw new ConfigError(`${where} holds no report.json`);
  if (!info.isFile()) throw new ConfigError(`${where}: report.json is not a regular file`);
  if (info.size > FORK_REPORT_MAX_BYTES) {
    throw new ConfigError(`${where}: report.json is ${info.size} bytes, more than ${FORK_REPORT_MAX_BYTES}`);
  }
  try {
    return await readReportFile(file);
  } catch (error) {
    const message = describeError(error).replace(`${file}: `, "");
    throw new ConfigError(`${where} is not a valid report, so nothing was posted: ${message}`);
  }
}

/**
 * What a fork's run cannot have done, claimed by its report: a fork's `pull_request` run gets none
 * of the repository's secrets, so no agent that needs an API key ran and no model (agent or judge)
 * was paid for. Null for a report that claims none; else the first claim found, for the refusal.
 * (A replay's recorded figures, marked `recorded`, are the recording's, not claims of this run.)
 */
function findForkModelClaim(report: Report): string | null {
  const agents = [report.run.agent, ...(report.run.agents ?? [])];
  const keyed = agents.find((agent) => isAgentName(agent) && AGENTS[agent].needsApiKey);
  if (keyed !== undefined) return `it ran the ${keyed} agent, which needs an API key`;
  for (const scenario of report.scenarios) {
    for (const trial of scenario.trials) {
      const where = `trial ${trial.trial} of ${scenario.id}`;
      const execution = trial.execution;
      if (execution.recorded !== true) {
        const tokens = execution.input_tokens + execution.output_tokens;
        if (tokens > 0 || (execution.cost_usd ?? 0) > 0) {
          return `${where} used ${tokens} model token(s) at $${execution.cost_usd ?? 0}`;
        }
      }
      const judge = trial.judge_usage;
      if (judge && (judge.input_tokens + judge.output_tokens > 0 || (judge.cost_usd ?? 0) > 0)) {
        return `${where} was judged by a model`;
      }
    }
  }
  if (report.summary.judge_cost_usd > 0) return "it paid for a judge model";
  return null;
}

/** A ConfigError when the fork's report claims a model run (findForkModelClaim): nothing is posted. */
export function refuseForkModelClaim(report: Report, runId: number): void {
  const claim = findForkModelClaim(report);
  if (claim === null) return;
  throw new ConfigError(
    `the report artifact of run ${runId} claims a model run (${claim}), which a fork's pull_request run cannot make: it has none of this repository's secrets. ` +
      "The report was edited, or made elsewhere; nothing was posted. To measure a model on this pull request, run the scenarios on this repository's runner after reviewing it",
  );
}
