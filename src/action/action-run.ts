/**
 * The one object an action run carries from stage to stage: its settings, its context, its side
 * effects, its redaction and its log. Each stage (action/*.ts) takes it instead of a row of
 * positional arguments.
 */
import type { ArtifactClient, GitHubClient } from "../github/types.js";
import type { ModelClient } from "../model/model-client.js";
import type { OpenAiApiChoice } from "../model/openai-client.js";
import type { ProviderName } from "../model/provider.js";
import type { ProducedRun as PipelineRun } from "../run/pipeline.js";
import type { ActionBaseline } from "./baseline.js";
import type { RunContext } from "./context.js";
import type { ActionSettings } from "./inputs.js";
import type { BaselineResolution } from "./resolve-baseline.js";
import type { RunProgram } from "./run-program.js";

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

interface ModelClientRequest {
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

/** The step's log, redacted. */
export interface Log {
  info(message: string): void;
  warn(message: string): void;
}

/** One action run: what every stage reads. `deps.env` holds the keys under names redaction knows. */
export interface ActionRun {
  settings: ActionSettings;
  context: RunContext;
  deps: ActionDeps;
  redact: (text: string) => string;
  log: Log;
}

/** Where the action works: the scenarios' folder, the report's (emptied) folder, the artifact's name. */
export interface ActionFolders {
  workDir: string;
  outDir: string;
  /** Where the baseline's and the shards' artifacts are downloaded. */
  downloadDir: string;
  artifactName: string;
  /** A shard of a matrix run (`shard: i/n`), merged and decided by a later job. */
  sharded: boolean;
}

/** A fork's (or Dependabot's) pull request replaying the baseline's transcripts instead of calling a model. */
export interface ForkReplay {
  sender: string;
  /** The baseline run replayed, as the summary names it. */
  label: string;
}

/** What the run stage (a run, a merge of shards) hands to the pipeline, with what is published of its baseline. */
export interface ProducedRun extends PipelineRun {
  /** The extra trials of the run's design (0 for merged shards: a sharded run gets none). */
  designExtraTrials: number;
  /** The baseline the report is compared with, as found (for the notes) and as settled. */
  baseline: BaselineResolution;
  settled: ActionBaseline | null;
  /** Merged replayed shards: the baseline run they replayed, which the summary names. */
  replayedLabel?: string;
}
