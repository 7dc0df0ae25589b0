/**
 * The GitHub Action: read the inputs, produce a report (run the suite with the core, or merge the
 * shards of a matrix), publish it (artifact, job summary, PR comment, outputs), then decide the
 * check's status from `fail-on`. Publishing comes before failing, and a publishing step that fails
 * is a warning: the run's result is what matters.
 *
 * `run(deps)` takes its side effects as arguments; called without them (as the bundle's entry and
 * `@github/local-action` do) it wires the real `@actions/core`, Octokit and artifact client.
 */
import { appendFile, mkdir, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { DefaultArtifactClient } from "@actions/artifact";
import * as actionsCore from "@actions/core";
import { getOctokit } from "@actions/github";
import { AGENTS, describeMissingApiKey } from "../agents/registry.js";
import type { Decision } from "../compare/decision.js";
import { describeExclusions, type PoolTarget } from "../compare/pool-baselines.js";
import type { BaselineSource, CompareOptions } from "../compare/types.js";
import { ConfigError, describeError, isConfigError } from "../errors.js";
import { formatArtifactUrl, formatRunUrl, uploadReportArtifact } from "../github/artifact.js";
import { upsertComment } from "../github/comment.js";
import { describeHttpError } from "../github/describe-http-error.js";
import type { FoundBaseline } from "../github/find-baseline.js";
import {
  downloadRunArtifact,
  type ForkPullRequest,
  type ForkRun,
  findForkPullRequest,
} from "../github/fork-run.js";
import type { ArtifactClient, GitHubClient } from "../github/types.js";
import type { ModelClient } from "../model/model-client.js";
import type { OpenAiApiChoice } from "../model/openai-client.js";
import { API_KEY_VARIABLES, type ProviderName, parseModelId } from "../model/provider.js";
import { renderDecisionReason } from "../render/decision.js";
import { formatUsd } from "../render/format.js";
import { renderJobSummary, renderSkippedSummary, SUMMARY_MAX_BYTES } from "../render/job-summary.js";
import { type BaselineNote, formatCommentMarker, renderComment } from "../render/pr-comment.js";
import type { Report, TrialReport } from "../results/types.js";
import { type RunBaseline, settleBaseline } from "../run/baseline.js";
import { runModels } from "../run/plan.js";
import {
  createRunModelClient,
  type PreparedRun,
  poolTargetOfPrepared,
  prepareRun,
  runPrepared,
} from "../run/prepare.js";
import {
  compareAndDecide,
  type DecisionSettings,
  type ProgressEvent,
  type SuiteResult,
  writeRunOutputs,
} from "../run/suite.js";
import { collectSecretValues, createSecretRedactor } from "../sandbox/secrets.js";
import { expandScenarioPatterns } from "../scenario/patterns.js";
import { projectRootOf } from "../scenario/repository-root.js";
import { provideClaudeCode } from "./claude-code-cli.js";
import { type RunContext, readRunContext } from "./context.js";
import { FORK_ARTIFACT_MAX_BYTES, readForkReport, readForkRunEvent } from "./fork-follow-up.js";
import {
  describeSecretlessSender,
  FORK_COMMENT_FILE,
  findReplaySource,
  type ReplaySource,
  renderReplayPreamble,
} from "./fork-replay.js";
import { type ActionSettings, readActionSettings } from "./inputs.js";
import { formatShardArtifactName, mergeShardArtifacts } from "./merge-shards.js";
import { type ActionOutputs, buildOutputs, buildSkippedOutputs } from "./outputs.js";
import { type BaselineResolution, resolveBaseline } from "./resolve-baseline.js";
import { createProgramRunner, type RunProgram } from "./run-program.js";
import { createInputReader, lendServiceVariables, withServiceVariablesSync } from "./runner-environment.js";
import { restoreSandboxSetup, setUpSandboxFor } from "./sandbox-setup.js";

/** The slice of `@actions/core` the action uses. */
export interface ActionCore {
  getInput(name: string): string;
  setSecret(secret: string): void;
  setOutput(name: string, value: string): void;
  setFailed(message: string): void;
  info(message: string): void;
  warning(message: string): void;
  debug(message: string): void;
}

export interface ActionDeps {
  core: ActionCore;
  /** Appends Markdown to the job summary. */
  writeSummary(markdown: string): Promise<void>;
  env: Record<string, string | undefined>;
  cwd: string;
  now: () => number;
  createGitHubClient(token: string): GitHubClient;
  artifacts: ArtifactClient;
  /** One provider's client (prepareRun asks for one per provider with a key). */
  createModelClient(request: ModelClientRequest): ModelClient;
  /** Runs a program to its end: npm installing Claude Code, the commands that make bwrap work (sandbox-setup.ts). */
  runProgram: RunProgram;
  /** Aborted when the workflow is cancelled: the run stops and publishes what it has. */
  signal?: AbortSignal;
  /** Set when the process's environment block still holds the inputs and tokens (warned before trials). */
  environmentWarning?: string | undefined;
}

export interface ModelClientRequest {
  provider: ProviderName;
  apiKey: string;
  /** Bounds the calls in flight (lowered on rate limits). */
  concurrency: number;
  attemptTimeoutMs: number;
  /** The provider's base URL; null: the API's own. */
  baseURL: string | null;
  /** How `openai:` models are called. */
  openaiApi: OpenAiApiChoice;
}

/** The input that gives each provider's key. */
const KEY_INPUTS: Readonly<Record<ProviderName, string>> = {
  anthropic: "anthropic-api-key",
  openai: "openai-api-key",
};

/** What happened, for tests and logs; the runner sees the outputs and the exit status. */
export interface ActionResult {
  status: "passed" | "failed" | "skipped" | "config_error" | "crashed";
  outputs: ActionOutputs | null;
  message: string | null;
}

function createDefaultDeps(overrides: Partial<ActionDeps>): ActionDeps {
  const env = overrides.env ?? process.env;
  return {
    // core.getInput reads process.env, which the entry emptied: the inputs come from `env`.
    core: { ...actionsCore, getInput: createInputReader(env) },
    writeSummary: async (markdown) => {
      // The runner creates the file; a local run (local-action, .env) may only name it.
      const file = env.GITHUB_STEP_SUMMARY;
      if (file) {
        await mkdir(path.dirname(path.resolve(file)), { recursive: true });
        await appendFile(file, "");
      }
      await actionsCore.summary.addRaw(markdown, true).write();
    },
    env,
    cwd: process.cwd(),
    now: Date.now,
    createGitHubClient: (token) =>
      withServiceVariablesSync(env, () =>
        getOctokit(token, env.GITHUB_API_URL ? { baseUrl: env.GITHUB_API_URL } : {}),
      ),
    artifacts: lendServiceVariables(new DefaultArtifactClient(), env),
    createModelClient: (request) =>
      createRunModelClient({
        provider: request.provider,
        openaiApi: request.openaiApi,
        apiKey: request.apiKey,
        baseURL: request.baseURL ?? undefined,
        concurrency: request.concurrency,
        attemptTimeoutMs: request.attemptTimeoutMs,
        keySource: `the action's "${KEY_INPUTS[request.provider]}" input`,
        proxyEnv: env,
      }),
    runProgram: createProgramRunner(),
    ...overrides,
  };
}

/** The action's entry. Never throws: every failure ends in `core.setFailed` with a clear message. */
export async function run(overrides: Partial<ActionDeps> = {}): Promise<ActionResult> {
  const deps = createDefaultDeps(overrides);
  const { core } = deps;
  const ambient = dropInputs(deps.env);
  let redact = createSecretRedactor(collectSecretValues(ambient));
  try {
    const settings = readActionSettings((name) => core.getInput(name));
    for (const secret of [settings.apiKey, settings.openaiApiKey, settings.githubToken])
      if (secret) core.setSecret(secret);
    // The secrets under names the redaction recognises; the other inputs are not secrets (the
    // value of `comment-key` must not be redacted just because the input's name ends in KEY).
    const env = {
      ...ambient,
      ...(settings.apiKey ? { ANTHROPIC_API_KEY: settings.apiKey } : {}),
      ...(settings.openaiApiKey ? { OPENAI_API_KEY: settings.openaiApiKey } : {}),
      ...(settings.githubToken ? { GITHUB_TOKEN: settings.githubToken } : {}),
    };
    redact = createSecretRedactor(collectSecretValues(env));
    const context = readRunContext(deps.env, deps.cwd);
    return await runAction(settings, context, { ...deps, env }, redact);
  } catch (error) {
    if (isConfigError(error)) {
      const message = redact(error.message);
      core.setFailed(message);
      return { status: "config_error", outputs: null, message };
    }
    const message = redact(`llm-tool-test failed unexpectedly: ${describeError(error)}`);
    if (error instanceof Error && error.stack) core.debug(redact(error.stack));
    core.setFailed(message);
    return { status: "crashed", outputs: null, message };
  }
}

/** How to give the action `provider`'s key, for the one "needs an API key" message. */
export function actionKeyRemedy(provider: ProviderName): string {
  const secret = API_KEY_VARIABLES[provider];
  return `add "${KEY_INPUTS[provider]}: \${{ secrets.${secret} }}" to the step (or use "agent: oracle" to try the scenarios without a model)`;
}

interface Log {
  info(message: string): void;
  warn(message: string): void;
}

/** A fork's (or Dependabot's) pull request replaying the baseline's transcripts instead of calling a model. */
interface ForkReplay {
  sender: string;
  /** The baseline run replayed, as the summary names it. */
  label: string;
}

/** Secrets → folders → baseline (and replay) → sandbox → report → publish → the check's status. */
async function runAction(
  settings: ActionSettings,
  context: RunContext,
  deps: ActionDeps,
  redact: (text: string) => string,
): Promise<ActionResult> {
  const { core } = deps;
  const log: Log = {
    info: (message) => core.info(redact(message)),
    warn: (message) => core.warning(redact(message)),
  };

  if (settings.mode === "post-fork-comment") return postForkComment(settings, context, deps, redact, log);
  const secrets = checkSecrets(settings, context);
  if (secrets.kind === "skip") return skip(secrets.reason, deps, log);
  if (deps.environmentWarning && settings.mode === "run") log.warn(deps.environmentWarning);

  const folders = await prepareFolders(settings, context);
  const source = await settleRunSource(settings, context, deps, folders, secrets, log);
  if (source.kind === "skip") return skip(source.reason, deps, log);
  const produced =
    settings.mode === "merge"
      ? await produceMergedReport(settings, deps, folders, redact, log, source.baseline)
      : await produceRunReport(source, context, deps, folders, log);
  // Merged replayed shards are compared with the run they replayed (produceMergedReport).
  const { replayed } = produced;
  const baseline = replayed?.baseline ?? source.baseline;
  const forkReplay =
    replayed && secrets.kind === "replay"
      ? { sender: secrets.sender, label: replayed.label }
      : source.forkReplay;
  const baselineNote = noteBaseline(baseline, produced, context, log);

  const outputs = await publish(settings, context, deps, redact, log, {
    produced,
    baselineNote,
    folders,
    forkReplay,
  });
  setOutputs(core, outputs);
  if (folders.sharded) {
    // A failing shard would keep the merge job (`needs:`) from running: the merge decides.
    log.info(`Shard done (${produced.report.summary.outcome}); the merge job decides the check's status.`);
    return { status: "passed", outputs, message: null };
  }
  return decideExit(produced.decision, produced.report, baselineNote, core, log, redact, outputs);
}

/**
 * `mode: post-fork-comment`: the comment of the fork's run that started this `workflow_run`, posted
 * on the pull request the payload and the API agree it ran for. The fork's report.json is the only
 * thing read from its artifact, validated like any downloaded report; the baseline is looked up
 * here (the base branch's own artifacts), and the comparison, decision and comment are computed
 * and rendered here, so no fork-provided Markdown or verdict is posted.
 */
async function postForkComment(
  settings: ActionSettings,
  context: RunContext,
  deps: ActionDeps,
  redact: (text: string) => string,
  log: Log,
): Promise<ActionResult> {
  const event = readForkRunEvent(deps.env);
  if (event.kind === "not-a-pull-request")
    return skip(
      `The run that started this workflow was a "${event.event}" run, not a pull request's: no comment to post.`,
      deps,
      log,
    );
  const { run: forkRun } = event;
  if (!context.repo) throw new ConfigError("GITHUB_REPOSITORY is not set: the pull request cannot be found");
  const github = deps.createGitHubClient(settings.githubToken);
  const found = await findForkPullRequest(github, context.repo, forkRun);
  if (found.status === "missing") return skip(`Nothing posted: ${found.reason}.`, deps, log);
  const pr = found.pullRequest;
  const downloadDir = path.join(
    context.tempDir,
    "llm-tool-test",
    `${settings.artifactName}-fork-run-${forkRun.id}`,
  );
  await rm(downloadDir, { recursive: true, force: true });
  const artifact = await downloadRunArtifact(github, deps.artifacts, {
    repo: context.repo,
    runId: forkRun.id,
    name: settings.artifactName,
    token: settings.githubToken,
    dir: path.join(downloadDir, "fork"),
    maxBytes: FORK_ARTIFACT_MAX_BYTES,
  });
  if (artifact.status === "missing")
    return skip(`Nothing posted on #${pr.number}: ${artifact.reason}.`, deps, log);
  const report = await readForkReport(artifact.dir, forkRun.id);
  log.info(
    `Read the report of run ${forkRun.id} for pull request #${pr.number}: ${report.summary.trials} trial(s) over ${report.summary.scenarios} scenario(s).`,
  );

  const forkContext = forkRunContext(context, forkRun, pr);
  const workDir = path.resolve(context.workspace, settings.workingDirectory);
  const looked = await lookUpBaseline(
    settings,
    forkContext,
    deps,
    workDir,
    path.join(downloadDir, "base"),
    log,
  );
  // A replay is compared with the run it replayed, as the fork's run compared it; else the pool.
  const replayed = report.run.agent === "replay" ? await findReplaySource(looked, workDir) : null;
  const baseline = replayed?.status === "found" ? replayBaseline(replayed, false) : looked;
  const settled = settleActionBaseline(baseline, report, log);
  const compared = compareAndDecide(
    report,
    settled?.report ?? null,
    compareOptionsOf(settings),
    decisionSettingsOf(settings, settled),
  );
  const produced: ProducedReport = { report, ...compared, settled };
  const baselineNote = noteBaseline(baseline, produced, forkContext, log);
  const body = redact(
    renderComment({
      key: settings.commentKey,
      report,
      comparison: compared.comparison,
      decision: compared.decision,
      baseline: baselineNote,
      runUrl: formatRunUrl(context.serverUrl, context.repo, forkRun.id),
      artifactUrl: formatArtifactUrl(context.serverUrl, context.repo, forkRun.id, artifact.artifact.id),
      headSha: forkRun.headSha,
      now: deps.now(),
    }),
  );
  const result = await upsertComment(
    github,
    context.repo,
    pr.number,
    formatCommentMarker(settings.commentKey),
    body,
  );
  log.info(
    `${result.action === "created" ? "Created" : "Updated"} the comment of pull request #${pr.number}: ${result.url}`,
  );
  deps.core.setOutput("comment-url", result.url);
  return { status: "passed", outputs: null, message: null };
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

/** Where the action works: the scenarios' folder, the report's (emptied) folder, the artifact's name. */
interface ActionFolders {
  workDir: string;
  outDir: string;
  /** Where the baseline's and the shards' artifacts are downloaded. */
  downloadDir: string;
  artifactName: string;
  /** A shard of a matrix run (`shard: i/n`), merged and decided by a later job. */
  sharded: boolean;
}

async function prepareFolders(settings: ActionSettings, context: RunContext): Promise<ActionFolders> {
  const workDir = path.resolve(context.workspace, settings.workingDirectory);
  if (!(await isDirectory(workDir))) {
    throw new ConfigError(
      `input "working-directory": the folder ${JSON.stringify(settings.workingDirectory)} does not exist (resolved to ${workDir})`,
    );
  }
  const sharded = settings.mode === "run" && settings.shard !== null;
  const artifactName =
    sharded && settings.shard
      ? formatShardArtifactName(settings.artifactName, settings.shard)
      : settings.artifactName;
  const outDir = path.join(context.tempDir, "llm-tool-test", artifactName);
  const downloadDir = path.join(context.tempDir, "llm-tool-test", `${artifactName}-downloads`);
  await rm(outDir, { recursive: true, force: true });
  await mkdir(outDir, { recursive: true });
  return { workDir, outDir, downloadDir, artifactName, sharded };
}

/**
 * The baseline to compare with and, when the run replays it (`agent: replay`, or a fork's pull
 * request with `fork-mode: replay`), the recordings and the settings it replays with.
 */
type RunSource = RunFrom | { kind: "skip"; reason: string };

interface RunFrom {
  kind: "run";
  baseline: BaselineResolution;
  runSettings: ActionSettings;
  replayFrom: string | null;
  forkReplay: ForkReplay | null;
}

async function settleRunSource(
  settings: ActionSettings,
  context: RunContext,
  deps: ActionDeps,
  folders: ActionFolders,
  secrets: Exclude<SecretsCheck, { kind: "skip" }>,
  log: Log,
): Promise<RunSource> {
  const { sharded, workDir } = folders;
  // The baseline comes first: the budget's estimate uses its costs, and a broken lookup shows early.
  // A shard is compared once merged, but a replaying shard still needs the baseline's transcripts.
  const replaying = settings.mode === "run" && (secrets.kind === "replay" || settings.agent === "replay");
  const baseline: BaselineResolution =
    sharded && !replaying
      ? SHARD_BASELINE
      : await lookUpBaseline(settings, context, deps, workDir, folders.downloadDir, log);
  if (!replaying) return { kind: "run", baseline, runSettings: settings, replayFrom: null, forkReplay: null };

  const source = await findReplaySource(baseline, workDir);
  if (source.status === "missing") {
    if (secrets.kind !== "replay") {
      throw new ConfigError(
        `input "agent": the replay agent replays the baseline's recorded calls, and there are none: ${source.reason}`,
      );
    }
    return {
      kind: "skip",
      reason: `${secrets.cause}, and fork-mode replay found nothing to replay: ${source.reason}. The scenarios were not run, and the check passes.`,
    };
  }
  const label = labelBaseline(source.candidate.source);
  log.info(
    `Replaying the recorded calls of ${label} (${source.scenarios} scenario(s) with transcripts) against this build, without a model.`,
  );
  return {
    kind: "run",
    baseline: replayBaseline(source, sharded),
    // A replay is deterministic: extra trials would only repeat the same recordings.
    runSettings: { ...settings, agent: "replay", extraTrials: 0 },
    replayFrom: source.replayFrom,
    forkReplay: secrets.kind === "replay" ? { sender: secrets.sender, label } : null,
  };
}

/** How the report is compared with the baseline, and how the comparison names the two. */
function compareOptionsOf(settings: ActionSettings): CompareOptions {
  return {
    alpha: settings.alpha,
    sources: { base: "the baseline report", head: "this run's report" },
  };
}

/** A shard has no baseline of its own: the merge job compares the merged report. */
const SHARD_BASELINE: BaselineResolution = {
  status: "missing",
  reason: "a shard is compared with the baseline after the merge",
};

/**
 * A replay is compared with the run whose calls it replays, used as given (its agent was a model's,
 * so pooling would leave every run out). A shard is compared after the merge.
 */
function replayBaseline(source: ReplaySource & { status: "found" }, sharded: boolean): BaselineResolution {
  if (sharded) return SHARD_BASELINE;
  return { status: "found", candidates: [source.candidate], pool: false, skipped: [] };
}

type SecretsCheck =
  | { kind: "run" }
  | { kind: "skip"; reason: string }
  /** A pull request without secrets, with `fork-mode: replay`: `cause` says why it cannot call a model. */
  | { kind: "replay"; cause: string; sender: string };

/**
 * A run that needs an API key and lacks one: on a pull request from a fork or Dependabot (which get
 * no secrets) the baseline's transcripts are replayed (`fork-mode: replay`) or the check is skipped
 * and passes; otherwise, when the action runs the scenarios, it is a configuration error naming
 * the input of the provider whose key is missing.
 */
function checkSecrets(settings: ActionSettings, context: RunContext): SecretsCheck {
  if (!AGENTS[settings.agent].needsApiKey) return { kind: "run" };
  const keys: Record<ProviderName, string> = { anthropic: settings.apiKey, openai: settings.openaiApiKey };
  const missing = [...new Set(runModels(settings).map((model) => parseModelId(model).provider))].filter(
    (provider) => !keys[provider],
  );
  const [provider] = missing;
  if (!provider) return { kind: "run" };
  const pr = context.pullRequest;
  if (pr && (pr.fromFork || context.actor === "dependabot[bot]")) {
    const sender = describeSecretlessSender(pr.fromFork, pr.headRepo);
    const names = missing.map((p) => PROVIDER_LABELS[p]).join(" or ");
    const cause = `This pull request comes from ${sender}, and GitHub gives such workflow runs no secrets, so there is no ${names} API key`;
    // A merge job replays nothing itself: it merges the shards that did.
    if (settings.forkMode === "replay") return { kind: "replay", cause, sender };
    return {
      kind: "skip",
      reason: `${cause}: the scenarios were not run, and the check passes. They run on pull requests from branches of this repository, and on the push to the base branch after merging.`,
    };
  }
  if (settings.mode === "run") {
    throw new ConfigError(
      `input "${KEY_INPUTS[provider]}" is empty, and ${describeMissingApiKey(settings.agent, actionKeyRemedy(provider))}`,
    );
  }
  return { kind: "run" };
}

const PROVIDER_LABELS: Readonly<Record<ProviderName, string>> = { anthropic: "Anthropic", openai: "OpenAI" };

/** A run that did not happen: said in the log, the summary and the outputs; the check passes. */
async function skip(reason: string, deps: ActionDeps, log: Log): Promise<ActionResult> {
  log.info(reason);
  await writeSummarySafely(deps, renderSkippedSummary(reason), log);
  const outputs = buildSkippedOutputs(reason);
  setOutputs(deps.core, outputs);
  return { status: "skipped", outputs, message: reason };
}

/** Finds the baseline report(s) for `baseline:` and logs what was found, passed over or missing. */
async function lookUpBaseline(
  settings: ActionSettings,
  context: RunContext,
  deps: ActionDeps,
  workDir: string,
  downloadDir: string,
  log: Log,
): Promise<BaselineResolution> {
  const baseline = await resolveBaseline(settings, context, workDir, path.join(downloadDir, "baseline"), {
    github: () => deps.createGitHubClient(settings.githubToken),
    artifacts: deps.artifacts,
    info: log.info,
  });
  if (baseline.status === "found") {
    for (const reason of baseline.skipped) log.info(`Passed over for the baseline: ${reason}.`);
    log.info(
      `Baseline: ${baseline.candidates.map((c) => labelBaseline(c.source)).join(", ")}${baseline.pool ? " (pooled where they measured what this run measures)" : ""}.`,
    );
  } else if (baseline.status === "missing") {
    log.info(`No baseline: ${baseline.reason}.`);
  }
  return baseline;
}

/** What the summary, comment and outputs say about the baseline this run was compared with. */
function noteBaseline(
  baseline: BaselineResolution,
  produced: ProducedReport,
  context: RunContext,
  log: Log,
): BaselineNote {
  const { comparison, comparisonError, settled } = produced;
  const pr = context.pullRequest;
  const [newest, ...older] = settled?.used ?? [];
  if (baseline.status !== "found") return baseline;
  if (!newest) {
    return {
      status: "missing",
      reason: `no base-branch run measured what this run measures (${describeExclusions(settled?.excluded ?? []).join("; ")})`,
    };
  }
  if (comparison) {
    return {
      status: "found",
      source: newest.source,
      baseRef: pr?.baseRef ?? null,
      baseSha: pr?.baseSha ?? null,
      moreRuns: older.length,
    };
  }
  log.warn(`The baseline report could not be compared: ${comparisonError}`);
  return {
    status: "missing",
    reason: `the baseline report could not be compared (${comparisonError})`,
  };
}

/**
 * Publishes the report: the artifact, the job summary and (on a pull request) the comment. Each
 * failure is a warning. Returns the action's outputs, which link to what was published.
 */
async function publish(
  settings: ActionSettings,
  context: RunContext,
  deps: ActionDeps,
  redact: (text: string) => string,
  log: Log,
  what: {
    produced: ProducedReport;
    baselineNote: BaselineNote;
    folders: ActionFolders;
    forkReplay: ForkReplay | null;
  },
): Promise<ActionOutputs> {
  const { report, comparison, decision } = what.produced;
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
  const commentUrl = commenting
    ? await postComment(settings, context, deps, renderCommentWith(artifactUrl), log)
    : null;
  const preamble = what.forkReplay
    ? renderReplayPreamble({
        sender: what.forkReplay.sender,
        replayed: what.forkReplay.label,
        commented: commentUrl !== null,
      })
    : "";
  const summary = renderJobSummary({ ...view, maxBytes: SUMMARY_MAX_BYTES - Buffer.byteLength(preamble) });
  await writeSummarySafely(deps, redact(`${preamble}${preamble ? "\n" : ""}${summary}`), log);

  return buildOutputs({
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
}

/**
 * The report, its comparison, and the baseline it was compared with (null without one); a merge of
 * replayed shards also says which baseline run they replayed.
 */
type ProducedReport = SuiteResult & {
  settled: ActionBaseline | null;
  replayed?: { baseline: BaselineResolution; label: string };
};

/** The baseline as settled for this run's scenarios, with the reports it is made of. */
interface ActionBaseline extends Omit<RunBaseline, "used"> {
  /** The runs in `report`, newest first. */
  used: FoundBaseline[];
}

/** "run #12 (`abc1234`)", or the file of a `baseline: <path>`. */
function labelBaseline(source: BaselineSource): string {
  if (source.kind === "path") return source.file;
  return `run #${source.runNumber ?? source.runId ?? "?"} (\`${(source.sha ?? "unknown").slice(0, 7)}\`)`;
}

/**
 * Pools `auto`'s reports for the head (or takes a path's report as given), and logs what was left
 * out. Null without a baseline.
 */
function settleActionBaseline(
  baseline: BaselineResolution,
  target: PoolTarget,
  log: Log,
): ActionBaseline | null {
  if (baseline.status !== "found") return null;
  const byLabel = new Map(baseline.candidates.map((c) => [labelBaseline(c.source), c]));
  const settled = settleBaseline(
    [...byLabel].map(([label, c]) => ({ label, report: c.report })),
    target,
    // Runs whose report was not valid data were passed over (logged as such) and are listed too.
    { pool: baseline.pool, rejected: baseline.rejected ?? [] },
  );
  // The rejected runs were logged as passed over already: only the pool's own exclusions here.
  const pooledOut = settled.excluded.slice(baseline.rejected?.length ?? 0);
  for (const line of describeExclusions(pooledOut)) log.info(`Left out of the baseline: ${line}.`);
  if (baseline.pool && settled.report) {
    log.info(
      `The baseline pools ${settled.used.length} of ${baseline.candidates.length} base-branch run(s).`,
    );
  }
  return { ...settled, used: settled.used.map((label) => byLabel.get(label) as FoundBaseline) };
}

/** The runner's sandbox set up, the run prepared, then the suite run and compared with the baseline. */
async function produceRunReport(
  { runSettings: settings, baseline, replayFrom }: RunFrom,
  context: RunContext,
  deps: ActionDeps,
  folders: ActionFolders,
  log: Log,
): Promise<ProducedReport> {
  const machine = { runProgram: deps.runProgram, env: deps.env };
  const setup = await setUpSandboxFor(settings, machine, log);
  try {
    return await runWithSandboxSetUp(
      { runSettings: settings, baseline, replayFrom },
      context,
      deps,
      folders,
      log,
    );
  } finally {
    // The runner's AppArmor and sysctl as they were, whatever happened to the run.
    await restoreSandboxSetup(setup, machine, log);
  }
}

async function runWithSandboxSetUp(
  { runSettings: settings, baseline, replayFrom }: Pick<RunFrom, "runSettings" | "baseline" | "replayFrom">,
  context: RunContext,
  deps: ActionDeps,
  folders: ActionFolders,
  log: Log,
): Promise<ProducedReport> {
  const prepared = await prepareActionRun(settings, context, deps, folders, log, replayFrom);
  const settled = settleActionBaseline(baseline, poolTargetOfPrepared(prepared), log);
  log.info(describeRunStart(settings, prepared.scenarios.length, Boolean(settled?.report)));
  // prepared.ports.env holds the key and token under secret names: the sandbox keeps them out, redaction covers them.
  const result = await runPrepared(prepared, settled, {
    now: deps.now,
    ...(deps.signal ? { signal: deps.signal } : {}),
    git: { sha: context.sha, ref: context.ref },
    compareOptions: compareOptionsOf(settings),
    decision: decisionSettingsOf(settings, settled),
    repositoryRoot: await projectRootOf(folders.workDir),
    onProgress: createProgressLog(settings, log),
  });
  return { ...result, settled };
}

/** The inputs as the run's settings, Claude Code installed when it is the agent, then the shared setup. */
async function prepareActionRun(
  settings: ActionSettings,
  context: RunContext,
  deps: ActionDeps,
  folders: ActionFolders,
  log: Log,
  replayFrom: string | null,
): Promise<PreparedRun> {
  // The input, else the environment's, as the CLI's --base-url: for the agent, claude-code's proxy and the judge.
  const baseURL = settings.baseURL ?? (deps.env.ANTHROPIC_BASE_URL || null);
  const baseURLs: Record<ProviderName, string | null> = {
    anthropic: baseURL,
    openai: settings.openaiBaseURL ?? (deps.env.OPENAI_BASE_URL || null),
  };
  // Before a possible install: a pattern that matches nothing should not wait for npm.
  const patterns = await expandScenarioPatterns(settings.scenarios, folders.workDir, 'input "scenarios"');
  const claudeBinary =
    settings.agent === "claude-code"
      ? await provideClaudeCode({
          env: deps.env,
          installDir: path.join(context.tempDir, "llm-tool-test", "claude-code"),
          runProgram: deps.runProgram,
          log: log.info,
        })
      : null;
  return prepareRun(
    {
      ...patterns,
      cwd: folders.workDir,
      tags: settings.tags,
      tier: settings.tier,
      agent: settings.agent,
      apiKey: settings.apiKey || null,
      baseURL,
      openai: { apiKey: settings.openaiApiKey || null },
      ...(claudeBinary ? { claudeBinary } : {}),
      judgeModel: settings.judgeModel,
      // The action always runs in CI: `auto` never falls back to running agents unsandboxed.
      failClosed: true,
      options: {
        model: settings.model,
        models: settings.models,
        replayFrom: replayFrom ? [replayFrom] : [],
        outDir: folders.outDir,
        trials: settings.trials,
        extraTrials: settings.extraTrials,
        concurrency: settings.concurrency,
        sandbox: settings.sandbox,
        shard: settings.shard,
        maxCostUsd: settings.maxCostUsd,
        agentCommand: settings.agentCommand,
        ...(settings.modelTimeoutMs !== undefined ? { modelTimeoutMs: settings.modelTimeoutMs } : {}),
      },
      describeNoMatch: (loaded) =>
        `no scenario left to run: ${loaded} loaded from input "scenarios", none matching` +
        `${settings.tags.length ? ` tags ${settings.tags.join(", ")}` : ""}${settings.tier !== null ? ` tier <= ${settings.tier}` : ""}`,
    },
    {
      env: deps.env,
      createModelClient: (apiKey, concurrency, attemptTimeoutMs, provider) =>
        deps.createModelClient({
          provider,
          apiKey,
          concurrency,
          attemptTimeoutMs,
          baseURL: baseURLs[provider],
          openaiApi: settings.openaiApi,
        }),
      keyRemedy: actionKeyRemedy,
      note: (note) => log.info(`Note: ${note}.`),
      warn: (warning) => log.warn(warning),
    },
  );
}

/** The log's line before the first trial: how many scenarios, with what, how many trials. */
function describeRunStart(settings: ActionSettings, scenarios: number, hasBaselineCounts: boolean): string {
  const shard = settings.shard ? `, shard ${settings.shard.index}/${settings.shard.count}` : "";
  const extra =
    hasBaselineCounts && settings.extraTrials > 0
      ? `, up to ${settings.extraTrials} more for scenarios that do worse than the baseline`
      : "";
  return `Running ${scenarios} scenario(s) with the ${settings.agent} agent (${settings.trials} trial(s) each unless a scenario says otherwise${extra}, ${settings.concurrency} at once${shard}).`;
}

/** The run's progress as log lines: the plan, each trial's end, early stops, notes and extra trials. */
function createProgressLog(settings: ActionSettings, log: Log): (event: ProgressEvent) => void {
  return (event) => {
    if (event.type === "plan") {
      const estimate =
        event.estimatedCostUsd === null
          ? "no cost estimate yet (no baseline costs)"
          : `estimated cost ${formatUsd(event.estimatedCostUsd)}`;
      const cap = settings.maxCostUsd === null ? "" : `, budget ${formatUsd(settings.maxCostUsd)}`;
      log.info(`Planned ${event.trials} trial(s) over ${event.scenarios} scenario(s): ${estimate}${cap}.`);
    }
    if (event.type === "trial_end")
      log.info(describeTrialEnd(event.key, event.report, event.done, event.total));
    if (event.type === "stopping")
      log.warn(`Stopping early: ${event.reason}. Trials not started are reported as skipped.`);
    if (event.type === "note") log.info(`Note: ${event.message}.`);
    if (event.type === "extended") {
      log.info(
        `Extra trials: ${event.scenarioKey} gets ${event.trials} more (its first trials passed less often than the baseline's); ${event.total} trial(s) planned now.`,
      );
    }
  };
}

async function produceMergedReport(
  settings: ActionSettings,
  deps: ActionDeps,
  { workDir, downloadDir, outDir }: ActionFolders,
  redact: (text: string) => string,
  log: Log,
  baseline: BaselineResolution,
): Promise<ProducedReport> {
  const merged = await mergeShardArtifacts(
    deps.artifacts,
    settings.artifactName,
    path.join(downloadDir, "shards"),
    outDir,
    log.info,
  );
  if (merged.missing.length > 0) {
    log.warn(
      `The shard artifacts ${merged.missing.map((i) => formatShardArtifactName(settings.artifactName, { index: i, count: merged.found.length + merged.missing.length })).join(", ")} are missing: the merged report is incomplete.`,
    );
  }
  // Replayed shards compare with the run they replayed, as a replay run does.
  const replayed = merged.report.run.agent === "replay" ? await findReplaySource(baseline, workDir) : null;
  const replayedBaseline =
    replayed?.status === "found"
      ? {
          baseline: replayBaseline(replayed, false),
          label: labelBaseline(replayed.candidate.source),
        }
      : null;
  const settled = settleActionBaseline(replayedBaseline?.baseline ?? baseline, merged.report, log);
  const compared = await writeRunOutputs(
    merged.report,
    outDir,
    redact,
    settled?.report ?? null,
    compareOptionsOf(settings),
    decisionSettingsOf(settings, settled, true),
    await projectRootOf(deps.cwd),
  );
  log.info(
    `Merged ${merged.found.length} shard(s): ${merged.report.summary.trials} trial(s) over ${merged.report.summary.scenarios} scenario(s).`,
  );
  return {
    report: merged.report,
    ...compared,
    settled,
    ...(replayedBaseline ? { replayed: replayedBaseline } : {}),
  };
}

async function postComment(
  settings: ActionSettings,
  context: RunContext,
  deps: ActionDeps,
  body: string,
  log: Log,
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
        `The pull request comment was not posted (${describeHttpError(error)}): a pull request from a fork gets a read-only token. The result is in the job summary and the step's outputs; a workflow_run follow-up with "mode: post-fork-comment" posts it (README: "Pull requests from forks").`,
      );
      return null;
    }
    log.warn(
      `The pull request comment could not be posted (${describeHttpError(error)}). The workflow needs "permissions: pull-requests: write" for it.`,
    );
    return null;
  }
}

/** The check follows the decision (compare/decision.ts), which the comment and summary rendered too. */
function decideExit(
  decision: Decision,
  report: Report,
  baseline: BaselineNote,
  core: ActionCore,
  log: Log,
  redact: (text: string) => string,
  outputs: ActionOutputs,
): ActionResult {
  const reason = renderDecisionReason(decision, {
    summary: report.summary,
    ...(baseline.status === "missing" ? { noBaselineReason: baseline.reason } : {}),
  });
  if (decision.failed) {
    const message = redact(`llm-tool-test: ${reason} See the job summary and the report artifact.`);
    core.setFailed(message);
    return { status: "failed", outputs, message };
  }
  log.info(redact(`llm-tool-test: ${reason}`));
  return { status: "passed", outputs, message: null };
}

/**
 * What decides the check: `fail-on`, `gate-metrics`, what the pooled baseline is made of (each
 * run's counts, for the run-to-run variation), and, for merged shards, the design they ran: a
 * sharded run gets no extra trials (a single run's design is set by the run itself).
 */
function decisionSettingsOf(
  settings: ActionSettings,
  settled: ActionBaseline | null,
  merged = false,
): DecisionSettings {
  return {
    failOn: settings.failOn,
    gateMetrics: settings.gateMetrics,
    // Also without a usable report: the scenarios left out because they changed are then listed.
    ...(settled
      ? {
          pooling: {
            runs: settled.used.map((found) => labelBaseline(found.source)),
            excluded: settled.excluded,
            ...(settled.runCounts ? { runCounts: settled.runCounts } : {}),
          },
        }
      : {}),
    ...(merged ? { extraTrials: 0 } : {}),
  };
}

function describeTrialEnd(key: string, trial: TrialReport, done: number, total: number): string {
  const mark =
    trial.outcome === "pass" ? "✓" : trial.outcome === "fail" ? "✗" : trial.outcome === "error" ? "!" : "-";
  const why = trial.reason ? `: ${trial.reason.split("\n")[0]}` : "";
  return `[${done}/${total}] ${mark} ${key} ${trial.outcome}${why}`;
}

function setOutputs(core: ActionCore, outputs: ActionOutputs): void {
  for (const [name, value] of Object.entries(outputs)) core.setOutput(name, value);
}

async function writeSummarySafely(deps: ActionDeps, markdown: string, log: Log) {
  try {
    await deps.writeSummary(markdown);
  } catch (error) {
    log.warn(`The job summary could not be written: ${describeError(error)}`);
  }
}

/** The environment without the runner's INPUT_* variables (the inputs are read into settings). */
function dropInputs(env: Record<string, string | undefined>): Record<string, string | undefined> {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !name.startsWith("INPUT_")));
}

async function isDirectory(file: string): Promise<boolean> {
  return stat(file).then(
    (info) => info.isDirectory(),
    () => false,
  );
}
