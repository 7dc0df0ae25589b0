/**
 * The publish stage: the artifact, the job summary and (on a pull request) the comment, then the
 * step's outputs. Publishing comes before the check's status, and a publishing step that fails is a
 * warning: the run's result is what matters.
 */
import { writeFile } from "node:fs/promises";
import path from "node:path";
import type { DecidedRun } from "../compare/decide-run.js";
import { describeError } from "../errors.js";
import { formatArtifactUrl, formatRunUrl, uploadReportArtifact } from "../github/artifact.js";
import { upsertComment } from "../github/comment.js";
import { describeHttpError } from "../github/describe-http-error.js";
import { renderJobSummary, renderSkippedSummary, SUMMARY_MAX_BYTES } from "../render/job-summary.js";
import {
  type ArtifactHistory,
  type BaselineNote,
  formatCommentMarker,
  renderComment,
} from "../render/pr-comment.js";
import type { Report } from "../results/types.js";
import type { ActionCore, ActionFolders, ActionRun, ForkReplay, Log } from "./action-run.js";
import type { ActionResult } from "./decide.js";
import { FORK_COMMENT_FILE, renderReplayPreamble } from "./fork-replay.js";
import { type ActionOutputs, buildOutputs, buildSkippedOutputs } from "./outputs.js";

/** What a decided run publishes. */
export interface Publication {
  report: Report;
  decided: DecidedRun;
  baselineNote: BaselineNote;
  folders: ActionFolders;
  forkReplay: ForkReplay | null;
  /** The history page written into the artifact (only when there were base runs). */
  history: ArtifactHistory | null;
}

/** Publishes the report and sets the outputs, which link to what was published. */
export async function publish(run: ActionRun, what: Publication): Promise<ActionOutputs> {
  const { settings, context, deps, redact, log } = run;
  const { report } = what;
  const { comparison, decision } = what.decided;
  const { artifactName, outDir, sharded } = what.folders;
  const pr = context.pullRequest;
  const runUrl =
    context.repo && context.runId ? formatRunUrl(context.serverUrl, context.repo, context.runId) : null;
  const commenting = pr !== null && settings.comment && !sharded;
  // What the comment and the job summary show; the artifact's URL is known once it is uploaded.
  const viewWith = (artifactUrl: string | null) => ({
    report,
    comparison,
    decision,
    baseline: what.baselineNote,
    runUrl,
    artifactUrl,
    history: what.history,
    headSha: pr?.headSha ?? context.sha,
    now: deps.now(),
  });
  const renderCommentWith = (artifactUrl: string | null) =>
    redact(renderComment({ ...viewWith(artifactUrl), key: settings.commentKey }));
  // A fork's token cannot comment: the artifact carries the comment for a workflow_run follow-up.
  if (commenting && pr?.fromFork)
    await writeFile(path.join(outDir, FORK_COMMENT_FILE), renderCommentWith(null));
  let artifactId: number | null = null;
  try {
    const uploaded = await uploadReportArtifact(deps.artifacts, artifactName, outDir);
    artifactId = uploaded.id;
    log.info(
      `Uploaded ${uploaded.files} file(s) as the artifact "${artifactName}" (id ${artifactId ?? "unknown"}).`,
    );
  } catch (error) {
    log.warn(`The report artifact "${artifactName}" could not be uploaded: ${describeError(error)}`);
  }
  const artifactUrl =
    context.repo && context.runId && artifactId !== null
      ? formatArtifactUrl(context.serverUrl, context.repo, context.runId, artifactId)
      : null;
  const view = viewWith(artifactUrl);
  const commentUrl = commenting ? await postComment(run, renderCommentWith(artifactUrl)) : null;
  const preamble = what.forkReplay
    ? renderReplayPreamble({
        sender: what.forkReplay.sender,
        replayed: what.forkReplay.label,
        commented: commentUrl !== null,
      })
    : "";
  const summary = renderJobSummary({ ...view, maxBytes: SUMMARY_MAX_BYTES - Buffer.byteLength(preamble) });
  await writeSummarySafely(run, redact(`${preamble}${preamble ? "\n" : ""}${summary}`));

  const outputs = buildOutputs({
    report,
    reportPath: path.join(outDir, "report.json"),
    comparison,
    decision,
    baseline: what.baselineNote,
    artifactId,
    artifactUrl,
    commentUrl,
    replay: what.forkReplay ? { replayed: what.forkReplay.label } : null,
  });
  setOutputs(deps.core, outputs);
  return outputs;
}

async function postComment(
  { settings, context, deps, log }: ActionRun,
  body: string,
): Promise<string | null> {
  const pr = context.pullRequest;
  if (!pr) return null;
  if (!context.repo) {
    log.warn("GITHUB_REPOSITORY is not set: the pull request comment was skipped.");
    return null;
  }
  try {
    const github = deps.createGitHubClient(settings.githubToken);
    const result = await upsertComment(
      github,
      context.repo,
      pr.number,
      formatCommentMarker(settings.commentKey),
      body,
    );
    log.info(
      `${result.action === "created" ? "Created" : "Updated"} the pull request comment: ${result.url}`,
    );
    return result.url;
  } catch (error) {
    if (pr.fromFork) {
      // Expected, not a fault: GitHub gives a fork's `pull_request` run a read-only token.
      log.info(
        `The pull request comment was not posted (${describeHttpError(error)}): a pull request from a fork gets a read-only token. The result is in the job summary and the step's outputs; a workflow_run follow-up with "mode: post-fork-comment" posts it (docs/action.md: "Pull requests from forks").`,
      );
      return null;
    }
    log.warn(
      `The pull request comment could not be posted (${describeHttpError(error)}). The workflow needs "permissions: pull-requests: write" for it.`,
    );
    return null;
  }
}

/** A run that did not happen: said in the log, the summary and the outputs; the check passes. */
export async function skip(run: Pick<ActionRun, "deps" | "log">, reason: string): Promise<ActionResult> {
  run.log.info(reason);
  await writeSummarySafely(run, renderSkippedSummary(reason));
  const outputs = buildSkippedOutputs(reason);
  setOutputs(run.deps.core, outputs);
  return { status: "skipped", outputs, message: reason };
}

function setOutputs(core: ActionCore, outputs: ActionOutputs): void {
  for (const [name, value] of Object.entries(outputs)) core.setOutput(name, value);
}

async function writeSummarySafely(
  { deps, log }: { deps: Pick<ActionRun["deps"], "writeSummary">; log: Log },
  markdown: string,
): Promise<void> {
  try {
    await deps.writeSummary(markdown);
  } catch (error) {
    log.warn(`The job summary could not be written: ${describeError(error)}`);
  }
}
