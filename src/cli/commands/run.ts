import { readdir } from "node:fs/promises";
import path from "node:path";
import { GEMINI_API_KEY_ENV } from "../../agents/gemini-cli.js";
import {
  AGENT_APIS,
  AGENT_NAMES,
  AGENTS,
  type AgentApi,
  type AgentName,
  agentApiKeyVariable,
  apiKeyRemedy,
  describeMissingApiKey,
  describeModelRefusal,
  describeUnknownAgent,
  resolveAgentName,
} from "../../agents/registry.js";
import type { DecidedRun, DecisionPolicy } from "../../compare/decide-run.js";
import { checkGateMetrics, parseFailOn } from "../../compare/decision.js";
import { exitCodeForDecision, exitCodeForReport } from "../../compare/exit-status.js";
import { describeExclusions, type PoolTarget } from "../../compare/pool-baselines.js";
import { ConfigError } from "../../errors.js";
import { OPENAI_APIS, type OpenAiApiChoice } from "../../model/openai-client.js";
import { loadPriceTable } from "../../model/pricing.js";
import { API_KEY_VARIABLES, parseModelId } from "../../model/provider.js";
import { renderComparisonTerminal } from "../../render/comparison-markdown.js";
import { renderTerminalSummary } from "../../render/terminal.js";
import type { Report } from "../../results/types.js";
import {
  type AgentEndpoints,
  endpointsByAgent,
  parseScoped,
  type ScopedValue,
  type SettledBaseUrl,
  settleScopedBaseUrl,
  settleScopedModels,
} from "../../run/agent-scope.js";
import { type RunBaseline, settleBaseline } from "../../run/baseline.js";
import { DEFAULT_MODEL } from "../../run/options.js";
import { checkOutputPath } from "../../run/output-path.js";
import { type FrontEndPorts, produceSuiteRun, runPipeline } from "../../run/pipeline.js";
import { settleModels } from "../../run/plan.js";
import {
  chooseDefaultAgent,
  createRunModelClient,
  type GuidanceVariantFile,
  type PreparedRun,
  prepareRun,
  type RunOptionSettings,
} from "../../run/prepare.js";
import { CLI_SETTING_NAMES } from "../../run/setting-names.js";
import { runProcess } from "../../sandbox/exec.js";
import { parseBashkitHome } from "../../scenario/bashkit-home.js";
import { SANDBOX_SETTINGS } from "../../scenario/keys.js";
import { parseYamlText } from "../../scenario/load.js";
import { projectRootOf } from "../../scenario/repository-root.js";
import {
  COMMON_OPTIONS,
  type OptionSpec,
  type ParsedArgs,
  parseCommandArgs,
  readChoice,
  readDurationMs,
  readInteger,
  readList,
  readNumber,
  readRepeated,
  readShard,
  readString,
} from "../args.js";
import { type BaselineFiles, readBaselineFiles } from "../baseline-files.js";
import { type CliCommand, type CliIo, displayPath, EXIT } from "../command.js";
import { createProgressReporter } from "../progress.js";
import { FILTER_OPTIONS, readFilterFlags, readScenarioPatterns } from "../scenario-selection.js";
import {
  readToleranceGates,
  TOLERANCE_GATES_HELP,
  TOLERANCE_GATES_OPTION,
} from "../tolerance-gates-option.js";

const RUN_OPTIONS: OptionSpec = {
  ...COMMON_OPTIONS,
  ...FILTER_OPTIONS,
  agent: { type: "string", multiple: true },
  model: { type: "string", multiple: true },
  "judge-model": { type: "string" },
  "force-judge": { type: "boolean" },
  "max-turns": { type: "string" },
  trials: { type: "string" },
  timeout: { type: "string" },
  "command-timeout": { type: "string" },
  "gate-timeout": { type: "string" },
  "model-timeout": { type: "string" },
  out: { type: "string", short: "o" },
  force: { type: "boolean" },
  "base-url": { type: "string", multiple: true },
  "openai-base-url": { type: "string", multiple: true },
  "gemini-base-url": { type: "string", multiple: true },
  "openai-api": { type: "string" },
  concurrency: { type: "string", short: "j" },
  sandbox: { type: "string" },
  "keep-workdirs": { type: "boolean" },
  prices: { type: "string" },
  shard: { type: "string" },
  "max-cost-usd": { type: "string" },
  baseline: { type: "string", multiple: true },
  "extra-trials": { type: "string" },
  "fail-on": { type: "string" },
  "gate-metrics": { type: "string", multiple: true },
  ...TOLERANCE_GATES_OPTION,
  resume: { type: "string" },
  variant: { type: "string", multiple: true },
  "agent-command": { type: "string" },
  "replay-from": { type: "string", multiple: true },
  "bashkit-home": { type: "string" },
  quiet: { type: "boolean", short: "q" },
};

/** One line per agent of the registry, under `--agent`. */
function describeAgents(): string {
  const width = Math.max(...AGENT_NAMES.map((name) => name.length)) + 2;
  return AGENT_NAMES.map((name) => {
    const key = AGENTS[name].needsApiKey ? " (API key)" : "";
    return `                         ${name.padEnd(width)}${AGENTS[name].description}${key}\n`;
  }).join("");
}

const RUN_HELP = `Usage: llm-tool-test run [paths...] [options]

Paths are scenario YAML files, folders of them, or bashkit-eval .jsonl datasets (default: ./scenarios);
quoted globs ('scenarios/**/*.yaml') and exclusions ('!scenarios/slow/**') work as in the action.

  --agent NAME           the agent under test (default: anthropic when the model's key is set,
                         else oracle); those marked (API key) need ANTHROPIC_API_KEY
                         (OPENAI_API_KEY for openai: models; gemini-cli: GEMINI_API_KEY,
                         Gemini model ids as the CLI takes them, e.g. gemini-2.5-flash):
${describeAgents()}                         repeat it (or a,b) for an agent matrix: every scenario runs with
                         each agent and each of its models; AGENT=VALUE gives --model and the
                         base URLs to one agent alone (--model codex=openai:gpt-5), a value
                         without AGENT= is every agent's that uses it
  --agent-command TPL    the command agent's command, with {prompt}, {workdir}, {model}, {system}
                         placeholders (shell-quoted), e.g. 'my-agent --model {model} {prompt}'
  --replay-from PATH     the replay agent's recordings: a run's output folder or a bashkit-eval results .json;
                         repeat it (one recorded run per model) to replay them as one model matrix;
                         a bashkit-eval run's tasks start where that bashkit version started them
  --bashkit-home L       where bashkit dataset tasks start and what HOME is: current, the default
                         (bashkit-home-created: cwd /home/user, HOME /home/eval made), bashkit-home-missing
                         (2026-02-24 to 06-28: HOME /home/eval absent), bashkit-home-unset (before:
                         no HOME), or a date (the bashkit at that moment, UTC); default for a replayed
                         bashkit-eval run: its recording date's
  --model [AGENT=]ID     model under test (default claude-haiku-4-5; a scenario's agent.model wins);
                         PROVIDER:MODEL for others: openai:gpt-5.2 (any OpenAI-compatible server);
                         repeat it (or a,b) for a model matrix: every scenario runs with each
  --judge-model ID       judge model for scenarios with a judge (or LLM_TOOL_TEST_JUDGE)
  --force-judge          allow the judge to be the tested model
  --trials K             trials per scenario (default 3; a scenario's trials wins)
  --max-turns N          model turns per trial (default 20)
  --timeout D            whole-trial timeout, e.g. 300s, 5m, 1m30s (default 300s)
  --command-timeout D    one bash call (default 60s)
  --gate-timeout D       one gate command (default 60s)
  --model-timeout D      one attempt of a model call; a hung attempt is retried (default 120s)
  --tags a,b             only scenarios with any of these tags
  --tier N               only scenarios with tier <= N
  -j, --concurrency N    trials in flight at once (default 1)
  --sandbox MODE         auto | local | bwrap (default: the scenario's, else auto: bwrap where it
                         works here, else local with a warning that the agent was not isolated;
                         with CI set, an error instead: choose local explicitly to run there)
  --out DIR              output folder (default .llm-tool-test/run-<timestamp>); one that already
                         holds files is refused unless --force (or --resume DIR finishes the run in it)
  --force                write into an --out folder that already holds files
  --base-url [AGENT=]URL
                         Messages API base URL (or ANTHROPIC_BASE_URL), for gateways and proxies
  --openai-base-url [AGENT=]URL
                         OpenAI-compatible API base URL for openai: models (or OPENAI_BASE_URL),
                         e.g. http://localhost:11434/v1 for Ollama, a vLLM or LiteLLM server
  --gemini-base-url [AGENT=]URL
                         gemini-cli's Gemini API base URL (or GOOGLE_GEMINI_BASE_URL)
  --openai-api API       auto | chat | responses: how openai: models are called (default auto:
                         the Responses API for the models only it serves, else Chat Completions)
  --prices FILE          price table (JSON/YAML, USD per million tokens) merged over the defaults
  --shard i/n            run only shard i of n (stable split)
  --max-cost-usd X       start no trial once spend plus the in-flight estimate would pass X
  --baseline FILE        a report to compare against at the end (and to estimate cost from);
                         repeat it to pool several runs (only those of the same agent, model,
                         judge, harness major version and settings; per scenario, the same
                         measurement: a changed guidance or tool build is compared)
  --extra-trials M       with a baseline, scenarios whose first trials pass less often than the
                         baseline's get M more (default 8; 0 turns it off)
  --fail-on RULE         regression (the default with --baseline) | outcome | never | pass-rate<X;
                         without --baseline or --fail-on the exit status is the run's own (below)
  --gate-metrics LIST    with --baseline: layer-1 metrics that also decide, e.g. error_rate
${TOLERANCE_GATES_HELP}  --variant NAME=FILE    run every scenario once per guidance file (repeat: --variant v1=AGENTS.md
                         --variant v2=AGENTS-new.md); report.md compares them side by side
  --resume DIR           finish the interrupted run in DIR (same scenarios and flags)
  --keep-workdirs        keep each trial's work dir for inspection
  -q, --quiet            no progress output
  --debug                stack traces on errors
`;

function timestampFolder(now: Date): string {
  return `.llm-tool-test/run-${now.toISOString().replace(/[:.]/g, "-").replace(/Z$/, "")}`;
}

/** The commit and branch the run tested, from the CI environment or git (through the process runners). */
async function readGit(
  cwd: string,
  env: Record<string, string | undefined>,
): Promise<{ sha: string | null; ref: string | null }> {
  const run = async (args: string[]) => {
    try {
      const result = await runProcess({
        file: "git",
        args,
        cwd,
        env: { PATH: env.PATH ?? "/usr/bin:/bin" },
        timeoutMs: 10_000,
        outputCapBytes: 64 * 1024,
      });
      return result.exit_code === 0 ? result.stdout.trim() || null : null;
    } catch {
      return null;
    }
  };
  return {
    sha: env.GITHUB_SHA ?? (await run(["rev-parse", "HEAD"])),
    ref: env.GITHUB_REF ?? (await run(["rev-parse", "--abbrev-ref", "HEAD"])),
  };
}

/** `--variant name=file`, repeatable. */
function readVariantFlags(values: ParsedArgs["values"], cwd: string): GuidanceVariantFile[] {
  const raw = values.variant;
  const list = Array.isArray(raw) ? raw : [];
  return list.map((entry) => {
    const match = /^([A-Za-z0-9][A-Za-z0-9._-]*)=(.+)$/.exec(entry);
    if (!match)
      throw new ConfigError(`--variant must look like NAME=FILE (e.g. v2=docs/AGENTS.md), got "${entry}"`);
    return { name: match[1] as string, file: path.resolve(cwd, match[2] as string) };
  });
}

function definedEntries<T extends Record<string, unknown>>(
  object: T,
): Partial<{ [K in keyof T]: Exclude<T[K], undefined> }> {
  return Object.fromEntries(Object.entries(object).filter(([, v]) => v !== undefined)) as never;
}

/** The flags that become RunOptions (agent and judge model are settled by prepareRun). */
async function readRunOptionFlags(
  values: ParsedArgs["values"],
  io: CliIo,
  outDir: string,
  models: Partial<Pick<RunOptionSettings, "model" | "models" | "agents" | "agentModels">>,
): Promise<RunOptionSettings> {
  const pricesFile = readString(values, "prices");
  return {
    outDir,
    ...definedEntries({
      ...models,
      maxTurns: readInteger(values, "max-turns", 1),
      trials: readInteger(values, "trials", 1),
      extraTrials: readInteger(values, "extra-trials", 0),
      trialTimeoutMs: readDurationMs(values, "timeout"),
      commandTimeoutMs: readDurationMs(values, "command-timeout"),
      gateTimeoutMs: readDurationMs(values, "gate-timeout"),
      modelTimeoutMs: readDurationMs(values, "model-timeout"),
      concurrency: readInteger(values, "concurrency", 1),
      sandbox: readChoice(values, "sandbox", SANDBOX_SETTINGS),
      shard: readShard(values, "shard"),
      maxCostUsd: readNumber(values, "max-cost-usd", 0),
      prices: pricesFile
        ? await loadPriceTable(path.resolve(io.cwd, pricesFile), { parseYaml: parseYamlText })
        : undefined,
    }),
    forceJudge: Boolean(values["force-judge"]),
    keepWorkDirs: Boolean(values["keep-workdirs"]),
    resume: readString(values, "resume") !== undefined,
    agentCommand: readString(values, "agent-command") ?? null,
    replayFrom: readReplaySources(values).map((source) => path.resolve(io.cwd, source)),
    ...readBashkitHome(values),
  };
}

async function commandRun(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs("run", argv, RUN_OPTIONS);
  if (values.help) {
    io.stdout.write(RUN_HELP);
    return EXIT.ok;
  }
  const requested = readAgentFlags(values);
  const scoped = readScopedFlags(values);
  const { agent, agentReason } = chooseAgent(values, readModelAccess(io, scoped), requested, scoped);
  const agents = requested.length > 1 ? requested : [agent];
  const matrix = settleMatrixFlags(scoped, agents);
  const access = readModelAccess(io, scoped, matrix);
  // Loud, first and last: a run that fell back to the oracle must not pass for a model's.
  const fallbackLine = agent === "oracle" && agentReason ? `agent: oracle — ${agentReason}\n` : "";
  io.stderr.write(fallbackLine);

  const resumeDir = readString(values, "resume");
  const outGiven = readString(values, "out");
  const outDir = await checkOutputPath(resumeDir ?? outGiven ?? timestampFolder(new Date()), io.cwd, {
    flag: resumeDir !== undefined ? "--resume" : "--out",
    kind: "folder",
  });
  if (resumeDir === undefined && outGiven !== undefined && !values.force)
    await refuseUsedFolder(outDir, outGiven);
  const baselineFiles = await readBaselineFiles(readRepeated(values, "baseline"), io.cwd);
  const failOnText = readString(values, "fail-on");
  const failOn = failOnText ? parseFailOn(failOnText, "--fail-on") : null;
  const gateMetrics = checkGateMetrics(readList(values, "gate-metrics"), "--gate-metrics");
  const toleranceGates = readToleranceGates(values);
  const policy: DecisionPolicy = { failOn, gateMetrics, toleranceGates };

  // The pipeline (run/pipeline.ts): prepare → settle → run → decide → write, then printed here.
  // A baseline or an explicit --fail-on makes the decision govern; otherwise the run's own result does.
  return runPipeline({
    produce: () =>
      produceSuiteRun<RunBaseline>({
        prepare: () => prepareCliRun(values, positionals, io, access, matrix, { agent, agentReason }, outDir),
        settle: (target) => {
          if (io.environmentWarning) io.stderr.write(`warning: ${io.environmentWarning}\n`);
          return settleBaselineFlags(baselineFiles, target, io);
        },
        ports: () => suitePortsUntilSignalled(io, Boolean(values.quiet)),
      }),
    policy,
    output: async () => ({ outDir, repositoryRoot: await projectRootOf(io.cwd) }),
    present: ({ report }, decided) => {
      const governs = decided.comparison !== null || failOn !== null;
      writeRunResult(report, decided, { governs, fallbackLine, outDir }, io);
      writeResumeHint(report, outDir, io);
      return governs ? exitCodeForDecision(decided.decision) : exitCodeForReport(report);
    },
  });
}

/**
 * `--out` onto a folder that already holds files (an earlier run's, most likely) is refused: the new
 * run would mix its files with the old ones, or overwrite a run the user meant to keep.
 */
async function refuseUsedFolder(outDir: string, given: string): Promise<void> {
  const entries = await readdir(outDir).catch(() => []);
  if (entries.length === 0) return;
  throw new ConfigError(
    `${JSON.stringify(given)} already holds files (an earlier run's?): choose a new folder, finish an interrupted run there with --resume ${given}, or pass --force to write into it`,
    "--out",
  );
}

/** After a run that stopped before all its trials ran: how to finish it. */
function writeResumeHint(report: Report, outDir: string, io: CliIo): void {
  const notRun = report.summary.skipped;
  if (!report.run.incomplete || notRun === 0) return;
  io.stderr.write(
    `note: ${notRun} trial(s) did not run. To finish this run, repeat the command with --resume ${displayPath(io.cwd, outDir)} (in place of --out): the trials that finished are kept.\n`,
  );
}

/** The model providers' keys and base URLs, from the flags and the environment. */
interface ModelAccess {
  apiKey: string | undefined;
  baseURL: string | undefined;
  openaiApiKey: string | undefined;
  openaiBaseURL: string | undefined;
  openaiApi: OpenAiApiChoice | undefined;
  geminiApiKey: string | undefined;
  geminiBaseURL: string | undefined;
}

/**
 * The keys from the environment, the base URLs every agent shares from the flags (`matrix`: once
 * settled against the run's agents; before that, the unscoped values) or the environment.
 */
function readModelAccess(io: CliIo, scoped: ScopedFlags, matrix?: MatrixFlags): ModelAccess {
  const shared = (api: AgentApi) =>
    matrix ? (matrix.baseUrls[api] ?? undefined) : scoped.baseUrls[api].find((v) => v.agent === null)?.value;
  return {
    apiKey: io.env.ANTHROPIC_API_KEY || undefined,
    baseURL: shared("anthropic") ?? (io.env.ANTHROPIC_BASE_URL || undefined),
    // Read once here, like Anthropic's: the key never reaches an agent's environment.
    openaiApiKey: io.env.OPENAI_API_KEY || undefined,
    openaiBaseURL: shared("openai") ?? (io.env.OPENAI_BASE_URL || undefined),
    openaiApi: scoped.openaiApi,
    // The gemini-cli agent's, under the variables Gemini CLI itself reads.
    geminiApiKey: io.env[GEMINI_API_KEY_ENV] || undefined,
    geminiBaseURL: shared("gemini") ?? (io.env.GOOGLE_GEMINI_BASE_URL || undefined),
  };
}

/** `--agent a --agent b` (or `--agent a,b`), each an agent of the registry, duplicates dropped. */
function readAgentFlags(values: ParsedArgs["values"]): AgentName[] {
  const names: AgentName[] = [];
  for (const typed of readList(values, "agent")) {
    const name = resolveAgentName(typed);
    if (!name) throw new ConfigError(describeUnknownAgent(typed), "--agent");
    if (!names.includes(name)) names.push(name);
  }
  return names;
}

/** The flags that may name one agent (`AGENT=VALUE`), as given. */
interface ScopedFlags {
  models: ScopedValue[];
  baseUrls: Record<AgentApi, ScopedValue[]>;
  openaiApi: OpenAiApiChoice | undefined;
}

function readScopedFlags(values: ParsedArgs["values"]): ScopedFlags {
  const read = (flag: string) => readRepeated(values, flag).map((raw) => parseScoped(raw, `--${flag}`));
  return {
    models: read("model"),
    baseUrls: {
      anthropic: read("base-url"),
      openai: read("openai-base-url"),
      gemini: read("gemini-base-url"),
    },
    openaiApi: readChoice(values, "openai-api", ["auto", ...OPENAI_APIS] as const),
  };
}

/** The scoped flags settled against the run's agents: the run's models and base URLs, and each agent's own. */
interface MatrixFlags {
  models: Partial<Pick<RunOptionSettings, "model" | "models" | "agents" | "agentModels">>;
  /** The base URL every agent that calls the API shares (null: the environment's, else the provider's). */
  baseUrls: Record<AgentApi, string | null>;
  /** Base URLs of one agent alone (an agent matrix only). */
  agentEndpoints: AgentEndpoints;
}

/**
 * One agent: a value scoped to it is the same as one without a scope (giving both is ambiguous).
 * Several agents: the unscoped values are every agent's, the scoped ones their agent's alone.
 */
function settleMatrixFlags(scoped: ScopedFlags, agents: readonly AgentName[]): MatrixFlags {
  const matrix = agents.length > 1;
  const { models, agentModels } = settleScopedModels(scoped.models, agents, "--model");
  const baseUrls = {} as Record<AgentApi, string | null>;
  const settled: Partial<Record<AgentApi, SettledBaseUrl>> = {};
  for (const api of AGENT_APIS) {
    const one = settleScopedBaseUrl(api, scoped.baseUrls[api], agents);
    const own = Object.values(one.perAgent)[0];
    if (!matrix && own !== undefined && one.shared !== null) {
      throw new ConfigError(
        `${CLI_SETTING_NAMES.baseUrl[api]} is given twice for ${agents[0]} (with and without ${agents[0]}=): give it once`,
      );
    }
    baseUrls[api] = matrix ? one.shared : (own ?? one.shared);
    if (matrix) settled[api] = one;
  }
  if (!matrix) {
    const ids = [...models, ...Object.values(agentModels).flat()];
    return { models: ids.length > 0 ? settleModels(ids) : {}, baseUrls, agentEndpoints: {} };
  }
  return {
    models: { ...(models.length > 0 ? settleModels(models) : {}), agents: [...agents], agentModels },
    baseUrls,
    agentEndpoints: endpointsByAgent(settled),
  };
}

/** The agent asked for (`--agent`, or replay for `--replay-from`), else the default for the keys given. */
function chooseAgent(
  values: ParsedArgs["values"],
  access: ModelAccess,
  requested: readonly AgentName[],
  scoped: ScopedFlags,
): { agent: AgentName; agentReason: string | null } {
  // The first model decides the default agent; prepareRun checks every model's provider and key.
  // --replay-from alone means the replay agent; with another agent it is a mistake worth saying.
  const replaying = readReplaySources(values).length > 0;
  // Several agents: prepareRun checks each one's models and keys.
  if (requested.length > 1 && !replaying) return { agent: requested[0] as AgentName, agentReason: null };
  const chosen = requested[0] ?? (replaying ? "replay" : undefined);
  if (chosen && agentApiKeyVariable(chosen)) {
    // An agent with its own key (gemini-cli): its model ids are its own, not a provider's.
    return { agent: chosen, agentReason: null };
  }
  const firstModel = scoped.models[0]?.value.split(",")[0]?.trim() || DEFAULT_MODEL;
  const { provider } = parseModelId(firstModel, "--model");
  const modelKey = provider === "openai" ? access.openaiApiKey : access.apiKey;
  if (replaying && (chosen !== "replay" || requested.length > 1)) {
    throw new ConfigError(
      `--replay-from is for the replay agent alone, not ${requested.join(", ")}: drop --agent or pass --agent replay`,
    );
  }
  const { agent, reason }: { agent: AgentName; reason: string | null } = chosen
    ? { agent: chosen, reason: null }
    : chooseDefaultAgent(modelKey, provider);
  const refusal = describeModelRefusal(agent, scoped.models.length > 0 ? firstModel : null);
  if (refusal) throw new ConfigError(refusal, "--model");
  if (AGENTS[agent].needsApiKey && !modelKey) {
    throw new ConfigError(describeMissingApiKey(agent, apiKeyRemedy(provider)));
  }
  return { agent, agentReason: reason };
}

/** The flags as the run's settings, then the setup the CLI shares with the action. */
async function prepareCliRun(
  values: ParsedArgs["values"],
  positionals: string[],
  io: CliIo,
  access: ModelAccess,
  matrix: MatrixFlags,
  { agent, agentReason }: { agent: AgentName; agentReason: string | null },
  outDir: string,
): Promise<PreparedRun> {
  const { apiKey, baseURL, openaiApiKey, openaiBaseURL, openaiApi, geminiApiKey, geminiBaseURL } = access;
  return prepareRun(
    {
      ...(await readScenarioPatterns(positionals, io.cwd)),
      cwd: io.cwd,
      ...readFilterFlags(values),
      variants: readVariantFlags(values, io.cwd),
      agent,
      agentReason,
      apiKey: apiKey ?? null,
      baseURL: baseURL ?? null,
      openai: { apiKey: openaiApiKey ?? null, baseURL: openaiBaseURL ?? null },
      gemini: { apiKey: geminiApiKey ?? null, baseURL: geminiBaseURL ?? null },
      agentEndpoints: matrix.agentEndpoints,
      judgeModel: readString(values, "judge-model") ?? null,
      options: await readRunOptionFlags(values, io, outDir, matrix.models),
      describeNoMatch: () => "no scenario matches the given paths and filters",
    },
    {
      env: io.env,
      createModelClient: (key, concurrency, attemptTimeoutMs, provider, agentBaseURL) =>
        createRunModelClient({
          provider,
          apiKey: key,
          baseURL: agentBaseURL ?? (provider === "openai" ? openaiBaseURL : baseURL),
          concurrency,
          attemptTimeoutMs,
          keySource: API_KEY_VARIABLES[provider],
          ...(openaiApi ? { openaiApi } : {}),
          proxyEnv: io.env,
        }),
      note: (note) => io.stderr.write(`note: ${note}\n`),
      warn: (warning) => io.stderr.write(`warning: ${warning}\n`),
    },
  );
}

/**
 * Progress on stderr (unless quiet), the commit read from here; Ctrl-C or SIGTERM stops the suite
 * and keeps what ran.
 */
async function suitePortsUntilSignalled(io: CliIo, quiet: boolean): Promise<FrontEndPorts> {
  const git = await readGit(io.cwd, io.env);
  const progress = createProgressReporter(io.stderr);
  const abort = new AbortController();
  const onSignal = () => abort.abort("cancelled");
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  return {
    signal: abort.signal,
    git,
    ...(quiet ? {} : { onProgress: progress.onProgress }),
    release: () => {
      progress.finish();
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
    },
  };
}

/** The summary (and the comparison) on stdout, then where the report is. */
function writeRunResult(
  report: Report,
  { comparison, comparisonError, decision }: DecidedRun,
  how: { governs: boolean; fallbackLine: string; outDir: string },
  io: CliIo,
): void {
  const color = Boolean(io.stdout.isTTY);
  io.stdout.write(
    `${renderTerminalSummary(report, { color, ...(how.governs ? { decision } : {}) })}\n${how.fallbackLine}`,
  );
  if (comparison) io.stdout.write(`\n${renderComparisonTerminal(comparison, decision, { color })}\n`);
  if (comparisonError) io.stderr.write(`warning: the baseline could not be compared: ${comparisonError}\n`);
  io.stdout.write(
    `Report: ${displayPath(io.cwd, path.join(how.outDir, "report.md"))} (in a browser: ${displayPath(io.cwd, path.join(how.outDir, "report.html"))})\n`,
  );
}

/**
 * One `--baseline` or several, pooled alike (run/baseline.ts). What was left out of the pool
 * (invalid files included) is said; with nothing usable the run goes on without a baseline.
 */
function settleBaselineFlags(
  { candidates, rejected }: BaselineFiles,
  target: PoolTarget,
  io: CliIo,
): RunBaseline | null {
  if (candidates.length === 0) return null;
  const baseline = settleBaseline(candidates, target, { pool: true, rejected });
  for (const line of describeExclusions(baseline.excluded))
    io.stderr.write(`note: left out of the baseline: ${line}\n`);
  if (!baseline.report) {
    io.stderr.write("note: no --baseline report measured what this run measures: the run is not compared\n");
  }
  const named = candidates.length + rejected.length;
  if (named > 1) io.stderr.write(`note: the baseline pools ${baseline.used.length} of ${named} runs\n`);
  return baseline;
}

export const runCommand: CliCommand = {
  name: "run",
  args: "[paths...]",
  summary: "run scenarios (YAML files, folders, .jsonl datasets) and evaluate them",
  run: commandRun,
};

/** Each `--replay-from` as given (a path may hold a comma, so no splitting as for --model). */
function readReplaySources(values: ParsedArgs["values"]): string[] {
  const value = values["replay-from"];
  return (Array.isArray(value) ? value : typeof value === "string" ? [value] : []).filter(
    (source): source is string => typeof source === "string" && source !== "",
  );
}

/** `--bashkit-home`: a layout's name, `current` or a date, as the layout's name. */
function readBashkitHome(values: ParsedArgs["values"]): { bashkitHome?: string } {
  const given = readString(values, "bashkit-home");
  return given === undefined ? {} : { bashkitHome: parseBashkitHome(given).name };
}
