/**
 * The GitHub Action: read the inputs, then the pipeline every front end shares (run/pipeline.ts),
 * presented by publishing (artifact, job summary, PR comment, outputs) before the check's status:
 * a publishing step that fails is a warning, the run's result is what matters.
 *
 * `run(deps)` takes its side effects as arguments; called without them (as the bundle's entry and
 * `@github/local-action` do) it wires the real `@actions/core`, Octokit and artifact client.
 */
import { appendFile, mkdir } from "node:fs/promises";
import path from "node:path";
import { DefaultArtifactClient } from "@actions/artifact";
import * as actionsCore from "@actions/core";
import { getOctokit } from "@actions/github";
import { GEMINI_API_KEY_ENV } from "../agents/gemini-cli.js";
import { describeError, isConfigError } from "../errors.js";
import { OUTPUT_FORMATS } from "../render/formats.js";
import type { Report } from "../results/types.js";
import { runPipeline } from "../run/pipeline.js";
import { createRunModelClient } from "../run/prepare.js";
import { collectSecretValues, createSecretRedactor } from "../sandbox/secrets.js";
import { projectRootOf } from "../scenario/repository-root.js";
import type { ActionDeps, ActionRun, ProducedRun } from "./action-run.js";
import { labelBaseline, noteBaseline } from "./baseline.js";
import { readRunContext } from "./context.js";
import { type ActionResult, decisionPolicyOf, exitFromDecision } from "./decide.js";
import { KEY_INPUTS, readActionSettings } from "./inputs.js";
import { mergeShards } from "./merge-run.js";
import { postForkComment } from "./post-fork-comment.js";
import { publish, skip } from "./publish.js";
import { createProgramRunner } from "./run-program.js";
import { runScenarios } from "./run-scenarios.js";
import { checkSecrets, prepareFolders, settleRunSource } from "./run-source.js";
import { createInputReader, lendServiceVariables, withServiceVariablesSync } from "./runner-environment.js";

export type { ActionCore, ActionDeps } from "./action-run.js";
export type { ActionResult } from "./decide.js";

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
    for (const secret of [
      settings.apiKey,
      settings.openaiApiKey,
      settings.geminiApiKey,
      settings.githubToken,
    ])
      if (secret) core.setSecret(secret);
    // The secrets under names the redaction recognises; the other inputs are not secrets (the
    // value of `comment-key` must not be redacted just because the input's name ends in KEY).
    const env = {
      ...ambient,
      ...(settings.apiKey ? { ANTHROPIC_API_KEY: settings.apiKey } : {}),
      ...(settings.openaiApiKey ? { OPENAI_API_KEY: settings.openaiApiKey } : {}),
      ...(settings.geminiApiKey ? { [GEMINI_API_KEY_ENV]: settings.geminiApiKey } : {}),
      ...(settings.githubToken ? { GITHUB_TOKEN: settings.githubToken } : {}),
    };
    redact = createSecretRedactor(collectSecretValues(env));
    const context = readRunContext(deps.env, deps.cwd);
    const log = {
      info: (message: string) => core.info(redact(message)),
      warn: (message: string) => core.warning(redact(message)),
    };
    return await runAction({ settings, context, deps: { ...deps, env }, redact, log });
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

/** Secrets → folders → baseline (and replay), then the pipeline: run or merge → decide → write → publish. */
async function runAction(run: ActionRun): Promise<ActionResult> {
  const { settings, deps, log } = run;
  if (settings.mode === "post-fork-comment") return postForkComment(run);
  const secrets = checkSecrets(settings, run.context);
  if (secrets.kind === "skip") return skip(run, secrets.reason);
  if (deps.environmentWarning && settings.mode === "run") log.warn(deps.environmentWarning);
  const folders = await prepareFolders(settings, run.context);
  const source = await settleRunSource(run, folders, secrets);
  if (source.kind === "skip") return skip(run, source.reason);
  return runPipeline({
    // Run (or merge), with the baseline settled for what it measures.
    produce: () =>
      settings.mode === "merge"
        ? mergeShards(run, folders, source.baseline)
        : runScenarios(run, source, folders),
    policy: decisionPolicyOf(settings),
    // history.html is written only with base runs.
    output: async (produced) => ({
      outDir: folders.outDir,
      repositoryRoot: await projectRootOf(settings.mode === "merge" ? deps.cwd : folders.workDir),
      baseRuns: baseRunsOf(produced),
    }),
    present: async (produced, decided, written) => {
      const { report, settled } = produced;
      const historyFile = OUTPUT_FORMATS.history.file;
      const history =
        historyFile !== null && written.includes(historyFile)
          ? { file: historyFile, baseRuns: baseRunsOf(produced).length }
          : null;
      const baselineNote = noteBaseline(produced.baseline, settled, decided, run.context, run);
      const forkReplay =
        produced.replayedLabel && secrets.kind === "replay"
          ? { sender: secrets.sender, label: produced.replayedLabel }
          : source.forkReplay;
      const outputs = await publish(run, { report, decided, baselineNote, folders, forkReplay, history });
      if (folders.sharded) {
        // A failing shard would keep the merge job (`needs:`) from running: the merge decides.
        log.info(`Shard done (${report.summary.outcome}); the merge job decides the check's status.`);
        return { status: "passed", outputs, message: null };
      }
      return exitFromDecision(run, { decision: decided.decision, report, baseline: baselineNote, outputs });
    },
  });
}

/** The base-branch runs `baseline: auto` downloaded, one by one: history.html in the artifact. */
function baseRunsOf({ baseline }: ProducedRun): { label: string; report: Report }[] {
  return baseline.status === "found" && baseline.pool
    ? baseline.candidates.map((c) => ({ label: labelBaseline(c.source), report: c.report }))
    : [];
}

/** The environment without the runner's INPUT_* variables (the inputs are read into settings). */
function dropInputs(env: Record<string, string | undefined>): Record<string, string | undefined> {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !name.startsWith("INPUT_")));
}
