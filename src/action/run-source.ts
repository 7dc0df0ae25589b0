/**
 * What an action run runs with, settled before anything runs: whether it can call a model (a pull
 * request without secrets replays the baseline's transcripts or is skipped), its folders, and the
 * baseline it is compared with (and, for a replay, the recordings it replays).
 */
import { mkdir, rm, stat } from "node:fs/promises";
import path from "node:path";
import { GEMINI_API_KEY_ENV } from "../agents/gemini-cli.js";
import { AGENTS, type AgentName, agentApiKeyVariable, describeMissingApiKey } from "../agents/registry.js";
import { ConfigError } from "../errors.js";
import { PROVIDER_LABELS, type ProviderName, parseModelId } from "../model/provider.js";
import { modelsOfAgent, runAgents } from "../run/plan.js";
import type { ActionFolders, ActionRun, ForkReplay } from "./action-run.js";
import { labelBaseline, lookUpBaseline, replayBaseline, SHARD_BASELINE } from "./baseline.js";
import type { RunContext } from "./context.js";
import { describeSecretlessSender, findReplaySource } from "./fork-replay.js";
import { type ActionSettings, actionKeyRemedy, KEY_INPUTS } from "./inputs.js";
import { formatShardArtifactName } from "./merge-shards.js";
import type { BaselineResolution } from "./resolve-baseline.js";

export type SecretsCheck =
  | { kind: "run" }
  | { kind: "skip"; reason: string }
  /** A pull request without secrets, with `fork-mode: replay`: `cause` says why it cannot call a model. */
  | { kind: "replay"; cause: string; sender: string };

/** The input of the gemini-cli agent's key. */
const GEMINI_KEY_INPUT = "gemini-api-key";

/**
 * A run that needs an API key and lacks one: on a pull request from a fork or Dependabot (which get
 * no secrets) the baseline's transcripts are replayed (`fork-mode: replay`) or the check is skipped
 * and passes; otherwise, when the action runs the scenarios, it is a configuration error naming
 * the input of the provider whose key is missing.
 */
export function checkSecrets(settings: ActionSettings, context: RunContext): SecretsCheck {
  // Every agent of the run (an agent matrix: each with its own models) needs its keys.
  const missingByAgent = runAgents(settings).map((agent) => ({
    agent,
    missing: missingKeys(agent, settings),
  }));
  const missing = [...new Set(missingByAgent.flatMap((entry) => entry.missing))];
  const [provider] = missing;
  if (!provider) return { kind: "run" };
  const agent = missingByAgent.find((entry) => entry.missing.includes(provider))?.agent ?? settings.agent;
  const pr = context.pullRequest;
  if (pr && (pr.fromFork || context.actor === "dependabot[bot]")) {
    const sender = describeSecretlessSender(pr.fromFork, pr.headRepo);
    const names = missing
      .map((p) => (p === GEMINI_KEY_INPUT ? "Gemini" : PROVIDER_LABELS[p as ProviderName]))
      .join(" or ");
    const cause = `This pull request comes from ${sender}, and GitHub gives such workflow runs no secrets, so there is no ${names} API key`;
    // A merge job replays nothing itself: it merges the shards that did.
    if (settings.forkMode === "replay") return { kind: "replay", cause, sender };
    return {
      kind: "skip",
      reason: `${cause}: the scenarios were not run, and the check passes. They run on pull requests from branches of this repository, and on the push to the base branch after merging.`,
    };
  }
  if (settings.mode === "run") {
    if (provider === GEMINI_KEY_INPUT) {
      throw new ConfigError(
        `input "${GEMINI_KEY_INPUT}" is empty, and ${describeMissingApiKey(agent, `add "${GEMINI_KEY_INPUT}: \${{ secrets.${GEMINI_API_KEY_ENV} }}" to the step (or use "agent: oracle" to try the scenarios without a model)`)}`,
      );
    }
    const name = provider as ProviderName;
    throw new ConfigError(
      `input "${KEY_INPUTS[name]}" is empty, and ${describeMissingApiKey(agent, actionKeyRemedy(name))}`,
    );
  }
  return { kind: "run" };
}

/** The key inputs one agent needs that are empty: its models' providers', or its own (gemini-cli's). */
function missingKeys(agent: AgentName, settings: ActionSettings): string[] {
  if (!AGENTS[agent].needsApiKey) return [];
  // An agent with its own key (gemini-cli) needs that key, whatever its model ids say.
  if (agentApiKeyVariable(agent) !== undefined) return settings.geminiApiKey ? [] : [GEMINI_KEY_INPUT];
  const keys: Record<ProviderName, string> = { anthropic: settings.apiKey, openai: settings.openaiApiKey };
  const providers = new Set(modelsOfAgent(agent, settings).map((model) => parseModelId(model).provider));
  return [...providers].filter((provider) => !keys[provider]);
}

/** The working directory checked, the report's folder emptied, the artifact named (a shard's own name). */
export async function prepareFolders(settings: ActionSettings, context: RunContext): Promise<ActionFolders> {
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
export type RunSource = RunFrom | { kind: "skip"; reason: string };

export interface RunFrom {
  kind: "run";
  baseline: BaselineResolution;
  /** The settings the run runs with: a replay's are the replay agent's, without extra trials. */
  runSettings: ActionSettings;
  replayFrom: string | null;
  forkReplay: ForkReplay | null;
}

export async function settleRunSource(
  run: ActionRun,
  folders: ActionFolders,
  secrets: Exclude<SecretsCheck, { kind: "skip" }>,
): Promise<RunSource> {
  const { settings, context, log } = run;
  const { sharded, workDir } = folders;
  // The baseline comes first: the budget's estimate uses its costs, and a broken lookup shows early.
  // A shard is compared once merged, but a replaying shard still needs the baseline's transcripts.
  const replaying = settings.mode === "run" && (secrets.kind === "replay" || settings.agent === "replay");
  const baseline: BaselineResolution =
    sharded && !replaying ? SHARD_BASELINE : await lookUpBaseline(run, context, folders);
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

async function isDirectory(file: string): Promise<boolean> {
  return stat(file).then(
    (info) => info.isDirectory(),
    () => false,
  );
}
