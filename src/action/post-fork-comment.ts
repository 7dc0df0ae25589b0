/**
 * `mode: post-fork-comment`: the comment of the fork's run that started this `workflow_run`, posted
 * on the pull request the payload and the API agree it ran for. The fork's report.json is the only
 * thing read from its artifact, validated like any downloaded report (fork-follow-up.ts); the
 * baseline is looked up here (the base branch's own artifacts), and the run is decided and the
 * comment rendered here, so no fork-provided Markdown or verdict is posted. The report's figures
 * are still the fork's claims: the comment marks them unverified, and a report claiming a model run
 * (which a fork's run, without secrets, cannot make) is refused.
 */
import { rm } from "node:fs/promises";
import path from "node:path";
import { ConfigError } from "../errors.js";
import { formatArtifactUrl, formatRunUrl } from "../github/artifact.js";
import { upsertComment } from "../github/comment.js";
import {
  downloadRunArtifact,
  type ForkPullRequest,
  type ForkRun,
  findForkPullRequest,
} from "../github/fork-run.js";
import { formatCommentMarker, renderComment } from "../render/pr-comment.js";
import { runPipeline } from "../run/pipeline.js";
import type { ActionRun } from "./action-run.js";
import { lookUpBaseline, noteBaseline, replayBaseline, settleActionBaseline } from "./baseline.js";
import type { RunContext } from "./context.js";
import { type ActionResult, decisionPolicyOf } from "./decide.js";
import {
  FORK_ARTIFACT_MAX_BYTES,
  readForkReport,
  readForkRunEvent,
  refuseForkModelClaim,
} from "./fork-follow-up.js";
import { findReplaySource } from "./fork-replay.js";
import { skip } from "./publish.js";

export async function postForkComment(run: ActionRun): Promise<ActionResult> {
  const { settings, context, deps, redact, log } = run;
  const event = readForkRunEvent(deps.env);
  if (event.kind === "not-a-pull-request")
    return skip(
      run,
      `The run that started this workflow was a "${event.event}" run, not a pull request's: no comment to post.`,
    );
  const { run: forkRun } = event;
  const repo = context.repo;
  if (!repo) throw new ConfigError("GITHUB_REPOSITORY is not set: the pull request cannot be found");
  const github = deps.createGitHubClient(settings.githubToken);
  const found = await findForkPullRequest(github, repo, forkRun);
  if (found.status === "missing") return skip(run, `Nothing posted: ${found.reason}.`);
  const pr = found.pullRequest;
  const downloadDir = path.join(
    context.tempDir,
    "llm-tool-test",
    `${settings.artifactName}-fork-run-${forkRun.id}`,
  );
  await rm(downloadDir, { recursive: true, force: true });
  const artifact = await downloadRunArtifact(github, deps.artifacts, {
    repo,
    runId: forkRun.id,
    name: settings.artifactName,
    token: settings.githubToken,
    dir: path.join(downloadDir, "fork"),
    maxBytes: FORK_ARTIFACT_MAX_BYTES,
  });
  if (artifact.status === "missing") return skip(run, `Nothing posted on #${pr.number}: ${artifact.reason}.`);
  const forkContext = forkRunContext(context, forkRun, pr);
  // The fork's run is not at hand: its report is the run, its design read from it; nothing is written.
  return runPipeline({
    produce: async () => {
      const report = await readForkReport(artifact.dir, forkRun.id);
      refuseForkModelClaim(report, forkRun.id);
      log.info(
        `Read the report of run ${forkRun.id} for pull request #${pr.number}: ${report.summary.trials} trial(s) over ${report.summary.scenarios} scenario(s), as the fork's run claims them (unverified).`,
      );
      const workDir = path.resolve(context.workspace, settings.workingDirectory);
      const looked = await lookUpBaseline(run, forkContext, {
        workDir,
        downloadDir: path.join(downloadDir, "base"),
      });
      // A replay is compared with the run it replayed, as the fork's run compared it; else the pool.
      const replayed = report.run.agent === "replay" ? await findReplaySource(looked, workDir) : null;
      const baseline = replayed?.status === "found" ? replayBaseline(replayed, false) : looked;
      const settled = settleActionBaseline(baseline, report, run);
      return { report, baseline, settled, redact };
    },
    policy: decisionPolicyOf(settings),
    output: null,
    present: async ({ report, baseline, settled }, decided): Promise<ActionResult> => {
      const body = redact(
        renderComment({
          key: settings.commentKey,
          report,
          comparison: decided.comparison,
          decision: decided.decision,
          baseline: noteBaseline(baseline, settled, decided, forkContext, run),
          runUrl: formatRunUrl(context.serverUrl, repo, forkRun.id),
          artifactUrl: formatArtifactUrl(context.serverUrl, repo, forkRun.id, artifact.artifact.id),
          headSha: forkRun.headSha,
          now: deps.now(),
          // The fork's run made every figure: shown as its claims.
          unverifiedFork: forkRun.headRepo,
        }),
      );
      const result = await upsertComment(
        github,
        repo,
        pr.number,
        formatCommentMarker(settings.commentKey),
        body,
      );
      log.info(
        `${result.action === "created" ? "Created" : "Updated"} the comment of pull request #${pr.number}: ${result.url}`,
      );
      deps.core.setOutput("comment-url", result.url);
      return { status: "passed", outputs: null, message: null };
    },
  });
}

/** This run's context as the fork's run saw it: its run (for the workflow's base-branch runs) and pull request. */
function forkRunContext(context: RunContext, forkRun: ForkRun, pr: ForkPullRequest): RunContext {
  return {
    ...context,
    eventName: "pull_request",
    runId: forkRun.id,
    pullRequest: {
      number: pr.number,
      baseRef: pr.baseRef,
      baseSha: pr.baseSha,
      headSha: pr.headSha,
      headRef: pr.headRef,
      headRepo: pr.headRepo,
      fromFork: true,
    },
  };
}
