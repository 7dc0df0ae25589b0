import { createHash } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { createAgent } from "../agents/create-agent.js";
import type { AgentName } from "../agents/types.js";
import { compareReports } from "../compare/compare.js";
import { planTrialsNeeded, renderTrialPlan } from "../compare/planning.js";
import type { Comparison } from "../compare/types.js";
import { suggestKey } from "../did-you-mean.js";
import { ConfigError, describeError, isConfigError } from "../errors.js";
import { scaffoldScenarios } from "../init/init.js";
import { loadPriceTable } from "../model/pricing.js";
import { renderComparisonMarkdown, renderComparisonTerminal } from "../render/comparison-markdown.js";
import { renderReportHtml } from "../render/html.js";
import { renderJunitXml } from "../render/junit.js";
import { renderReportMarkdown } from "../render/report-markdown.js";
import { renderTerminalSummary } from "../render/terminal.js";
import { mergeShardReports } from "../results/merge.js";
import { readReportFile } from "../results/read-report.js";
import { loadTrialEvents } from "../results/read-trial-events.js";
import type { Report } from "../results/types.js";
import { defaultRunOptions, type RunOptions } from "../run/options.js";
import { checkSandbox, checkTargetBinaries } from "../run/preflight.js";
import { createRunModelClient, setUpJudge } from "../run/prepare.js";
import { runSuite, type SuiteResult, writeReportFiles } from "../run/suite.js";
import { validateWithOracle } from "../run/validate-oracle.js";
import { runProcess, warmProcessRunners } from "../sandbox/exec.js";
import { filterScenarios } from "../scenario/filter.js";
import { loadScenarios, parseYamlText } from "../scenario/load.js";
import type { Scenario } from "../scenario/types.js";
import { HARNESS_VERSION } from "../version.js";
import {
  type OptionSpec,
  parseCommandArgs,
  readChoice,
  readDurationMs,
  readInteger,
  readList,
  readNumber,
  readShard,
  readString,
} from "./args.js";
import { createProgressReporter } from "./progress.js";

export const EXIT = { ok: 0, failed: 1, usage: 2, incomplete: 3 } as const;

const AGENTS = ["anthropic", "oracle", "null", "claude-code", "command"] as const;
const SANDBOXES = ["local", "bwrap"] as const;

export interface CliIo {
  stdout: { write(text: string): unknown; isTTY?: boolean; columns?: number };
  stderr: { write(text: string): unknown; isTTY?: boolean; columns?: number };
  env: Record<string, string | undefined>;
  cwd: string;
}

const defaultIo = (): CliIo => ({
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  cwd: process.cwd(),
});

const HELP = `llm-tool-test ${HARNESS_VERSION} — measure how well LLM agents use a command-line tool

Usage:
  llm-tool-test run [paths...]        run scenarios (YAML files, folders, .jsonl datasets) and evaluate them
  llm-tool-test validate [paths...]   check scenario files; --oracle also proves the gates can pass and can fail
  llm-tool-test list [paths...]       list the scenarios that would run
  llm-tool-test report REPORT.json    re-render a saved report (--format md|terminal|json|html|junit)
  llm-tool-test compare BASE.json HEAD.json   compare two reports with significance tests
  llm-tool-test merge REPORT.json... --out DIR   combine the shard reports of one run
  llm-tool-test plan REPORT.json --effect 0.1    trials needed to detect a change of that size
  llm-tool-test init BINARY [--dir DIR]   scaffold a scenario folder (scenario, fixture, rubric, AGENTS.md, workflow)

Run 'llm-tool-test <command> --help' for a command's options.
Exit status: 0 all passed, 1 a scenario failed, 2 configuration or usage error, 3 infrastructure errors left the result incomplete.
`;

const FILTER_OPTIONS: OptionSpec = {
  tags: { type: "string", multiple: true },
  tier: { type: "string" },
  help: { type: "boolean", short: "h" },
  debug: { type: "boolean" },
};

const RUN_OPTIONS: OptionSpec = {
  ...FILTER_OPTIONS,
  agent: { type: "string" },
  model: { type: "string" },
  "judge-model": { type: "string" },
  "force-judge": { type: "boolean" },
  "max-turns": { type: "string" },
  trials: { type: "string" },
  timeout: { type: "string" },
  "command-timeout": { type: "string" },
  "gate-timeout": { type: "string" },
  out: { type: "string", short: "o" },
  "base-url": { type: "string" },
  concurrency: { type: "string", short: "j" },
  sandbox: { type: "string" },
  "keep-workdirs": { type: "boolean" },
  prices: { type: "string" },
  shard: { type: "string" },
  "max-cost-usd": { type: "string" },
  baseline: { type: "string" },
  resume: { type: "string" },
  variant: { type: "string", multiple: true },
  "agent-command": { type: "string" },
  quiet: { type: "boolean", short: "q" },
};

const RUN_HELP = `Usage: llm-tool-test run [paths...] [options]

Paths are scenario YAML files, folders of them, or bashkit-eval .jsonl datasets (default: ./scenarios).

  --agent NAME           anthropic | oracle | null | claude-code | command (default: anthropic when
                         ANTHROPIC_API_KEY is set, else oracle)
  --agent-command TPL    the command agent's command, with {prompt}, {workdir}, {model}, {system}
                         placeholders (shell-quoted), e.g. 'my-agent --model {model} {prompt}'
  --model ID             model under test (default claude-haiku-4-5; a scenario's agent.model wins)
  --judge-model ID       judge model for scenarios with a judge (or LLM_TOOL_TEST_JUDGE)
  --force-judge          allow the judge to be the tested model
  --trials K             trials per scenario (default 1; a scenario's trials wins)
  --max-turns N          model turns per trial (default 20)
  --timeout D            whole-trial timeout, e.g. 300s, 5m (default 300s)
  --command-timeout D    one bash call (default 60s)
  --gate-timeout D       one gate command (default 60s)
  --tags a,b             only scenarios with any of these tags
  --tier N               only scenarios with tier <= N
  -j, --concurrency N    trials in flight at once (default 1)
  --sandbox MODE         local | bwrap (default: the scenario's, else local)
  --out DIR              output folder (default .llm-tool-test/run-<timestamp>)
  --base-url URL         Messages API base URL (or ANTHROPIC_BASE_URL), for gateways and proxies
  --prices FILE          price table (JSON/YAML, USD per million tokens) merged over the defaults
  --shard i/n            run only shard i of n (stable split)
  --max-cost-usd X       start no trial once spend plus the in-flight estimate would pass X
  --baseline FILE        a report to compare against at the end (and to estimate cost from)
  --variant NAME=FILE    run every scenario once per guidance file (repeat: --variant v1=AGENTS.md
                         --variant v2=AGENTS-new.md); report.md compares them side by side
  --resume DIR           finish the interrupted run in DIR (same scenarios and flags)
  --keep-workdirs        keep each trial's work dir for inspection
  -q, --quiet            no progress output
  --debug                stack traces on errors
`;

function parseTier(values: Record<string, unknown>): number | undefined {
  return readInteger(values as never, "tier", 0);
}

async function loadSelected(
  paths: string[],
  values: Record<string, unknown>,
  io: CliIo,
): Promise<{ all: Scenario[]; selected: Scenario[] }> {
  const inputs = paths.length > 0 ? paths : ["scenarios"];
  const all = await loadScenarios(
    inputs.map((p) => path.resolve(io.cwd, p)),
    { cwd: io.cwd },
  );
  const tags = readList(values as never, "tags");
  const tier = parseTier(values);
  const selected = filterScenarios(all, {
    ...(tags.length ? { tags } : {}),
    ...(tier !== undefined ? { tier } : {}),
  });
  return { all, selected };
}

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

async function commandRun(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs("run", argv, RUN_OPTIONS);
  if (values.help) {
    io.stdout.write(RUN_HELP);
    return EXIT.ok;
  }
  // Their start-up overlaps with loading the scenarios instead of delaying the first commands.
  warmProcessRunners();
  const apiKey = io.env.ANTHROPIC_API_KEY || undefined;
  const baseURL = readString(values, "base-url") ?? (io.env.ANTHROPIC_BASE_URL || undefined);
  const agentName: AgentName = readChoice(values, "agent", AGENTS) ?? (apiKey ? "anthropic" : "oracle");
  if ((agentName === "anthropic" || agentName === "claude-code") && !apiKey) {
    throw new ConfigError(
      `the ${agentName} agent needs an API key: set ANTHROPIC_API_KEY in the environment (never in a scenario file), or run with --agent oracle to try the scenarios without a model`,
    );
  }
  const loaded = await loadSelected(positionals, values, io);
  if (loaded.selected.length === 0) throw new ConfigError("no scenario matches the given paths and filters");
  const selected = await applyGuidanceVariants(loaded.selected, readVariantFlags(values, io.cwd));

  const model = readString(values, "model") ?? defaultRunOptions({ outDir: "" }).model;
  const judge = setUpJudge(selected, {
    flag: readString(values, "judge-model"),
    env: io.env.LLM_TOOL_TEST_JUDGE,
    testedModel: model,
    force: Boolean(values["force-judge"]),
    hasApiKey: Boolean(apiKey),
    agent: agentName,
  });
  if (judge.note) io.stderr.write(`note: ${judge.note}\n`);
  const { scenarios, judgeModel } = judge;
  const pricesFile = readString(values, "prices");
  const resumeDir = readString(values, "resume");
  const outDir = path.resolve(io.cwd, resumeDir ?? readString(values, "out") ?? timestampFolder(new Date()));
  const baselineFile = readString(values, "baseline");
  const baseline = baselineFile ? await readReportFile(path.resolve(io.cwd, baselineFile)) : null;

  const options: RunOptions = defaultRunOptions({
    agent: agentName,
    model,
    judgeModel,
    forceJudge: Boolean(values["force-judge"]),
    outDir,
    ...definedEntries({
      maxTurns: readInteger(values, "max-turns", 1),
      trials: readInteger(values, "trials", 1),
      trialTimeoutMs: readDurationMs(values, "timeout"),
      commandTimeoutMs: readDurationMs(values, "command-timeout"),
      gateTimeoutMs: readDurationMs(values, "gate-timeout"),
      concurrency: readInteger(values, "concurrency", 1),
      sandbox: readChoice(values, "sandbox", SANDBOXES),
      shard: readShard(values, "shard"),
      maxCostUsd: readNumber(values, "max-cost-usd", 0),
      prices: pricesFile
        ? await loadPriceTable(path.resolve(io.cwd, pricesFile), { parseYaml: parseYamlText })
        : undefined,
    }),
    keepWorkDirs: Boolean(values["keep-workdirs"]),
    resume: resumeDir !== undefined,
    agentCommand: readString(values, "agent-command") ?? null,
  });

  await checkTargetBinaries(scenarios, io.env.PATH ?? "");
  await checkSandbox(scenarios, options.sandbox, io.env.PATH ?? "");
  const modelClient = apiKey
    ? createRunModelClient({
        apiKey,
        baseURL,
        concurrency: options.concurrency,
        keySource: "ANTHROPIC_API_KEY",
      })
    : null;
  const agent = createAgent(agentName, {
    ...(modelClient ? { modelClient } : {}),
    ...(apiKey ? { apiKey } : {}),
    ...(baseURL ? { baseURL } : {}),
    agentCommand: options.agentCommand,
    env: io.env,
  });
  const quiet = Boolean(values.quiet);
  const progress = createProgressReporter(io.stderr);
  const abort = new AbortController();
  const onSignal = () => abort.abort("cancelled");
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  let result: SuiteResult;
  try {
    result = await runSuite(scenarios, options, {
      agent,
      judgeClient: modelClient,
      env: io.env,
      signal: abort.signal,
      git: await readGit(io.cwd, io.env),
      baseline,
      ...(quiet ? {} : { onProgress: progress.onProgress }),
    });
  } finally {
    progress.finish();
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
  const { report, comparison, comparisonError } = result;
  io.stdout.write(`${renderTerminalSummary(report, { color: Boolean(io.stdout.isTTY) })}\n`);
  if (comparison) io.stdout.write(`\n${renderComparisonTerminal(comparison)}\n`);
  if (comparisonError) io.stderr.write(`warning: the baseline could not be compared: ${comparisonError}\n`);
  io.stdout.write(`Report: ${displayPath(io.cwd, path.join(outDir, "report.md"))}\n`);
  return exitCodeFor(report);
}

/** `--variant name=file`, repeatable. */
function readVariantFlags(values: Record<string, unknown>, cwd: string): { name: string; file: string }[] {
  const raw = values.variant;
  const list = Array.isArray(raw) ? (raw as string[]) : [];
  return list.map((entry) => {
    const match = /^([A-Za-z0-9][A-Za-z0-9._-]*)=(.+)$/.exec(entry);
    if (!match)
      throw new ConfigError(`--variant must look like NAME=FILE (e.g. v2=docs/AGENTS.md), got "${entry}"`);
    return { name: match[1] as string, file: path.resolve(cwd, match[2] as string) };
  });
}

/**
 * Command-line guidance variants replace each scenario's own: every scenario runs once per file,
 * with the scenario's guidance mode (default workdir). The files' contents join the scenario's
 * content hash, so a resumed run or a comparison notices when they change.
 */
async function applyGuidanceVariants(scenarios: Scenario[], variants: { name: string; file: string }[]) {
  if (variants.length === 0) return scenarios;
  const names = new Set<string>();
  const hash = createHash("sha256");
  for (const variant of variants) {
    if (names.has(variant.name)) throw new ConfigError(`--variant ${variant.name} is given twice`);
    names.add(variant.name);
    try {
      hash.update(variant.name).update(await readFile(variant.file));
    } catch {
      throw new ConfigError(`cannot read the guidance file of --variant ${variant.name}: ${variant.file}`);
    }
  }
  const digest = hash.digest("hex");
  return scenarios.map((scenario) => ({
    ...scenario,
    variants: variants.map((v) => ({
      name: v.name,
      guidance: { file: v.file, mode: scenario.guidance?.mode ?? ("workdir" as const) },
    })),
    contentHash: createHash("sha256").update(scenario.contentHash).update(digest).digest("hex"),
  }));
}

function displayPath(cwd: string, file: string): string {
  const relative = path.relative(cwd, file);
  return relative.startsWith("..") ? file : relative;
}

export function exitCodeFor(report: Report): number {
  if (report.summary.failed > 0) return EXIT.failed;
  if (report.summary.errors > 0 || report.run.incomplete) return EXIT.incomplete;
  return EXIT.ok;
}

function definedEntries<T extends Record<string, unknown>>(
  object: T,
): Partial<{ [K in keyof T]: Exclude<T[K], undefined> }> {
  return Object.fromEntries(Object.entries(object).filter(([, v]) => v !== undefined)) as never;
}

async function commandValidate(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs("validate", argv, {
    ...FILTER_OPTIONS,
    oracle: { type: "boolean" },
    sandbox: { type: "string" },
  });
  if (values.help) {
    io.stdout.write(
      "Usage: llm-tool-test validate [paths...] [--oracle] [--tags a,b] [--tier N] [--sandbox local|bwrap]\n\n" +
        "Checks every scenario file. With --oracle, runs each scenario's solution (all gates must pass)\n" +
        "and the null agent (at least one gate must fail), and names unsatisfiable or vacuous scenarios.\n",
    );
    return EXIT.ok;
  }
  const { all, selected } = await loadSelected(positionals, values, io);
  io.stdout.write(`${all.length} scenario(s) valid.\n`);
  if (!values.oracle) return EXIT.ok;
  const sandbox = readChoice(values, "sandbox", SANDBOXES) ?? null;
  const findings = await validateWithOracle(selected, { env: io.env, sandbox });
  let problems = 0;
  for (const finding of findings) {
    const mark = finding.status === "ok" ? "ok  " : finding.status === "no_solution" ? "skip" : "FAIL";
    if (finding.status !== "ok" && finding.status !== "no_solution") problems += 1;
    io.stdout.write(`${mark} ${finding.id}: ${finding.message}\n`);
  }
  io.stdout.write(
    problems === 0 ? "All checked scenarios are satisfiable and not vacuous.\n" : `${problems} problem(s).\n`,
  );
  return problems === 0 ? EXIT.ok : EXIT.failed;
}

async function commandList(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs("list", argv, {
    ...FILTER_OPTIONS,
    json: { type: "boolean" },
  });
  if (values.help) {
    io.stdout.write("Usage: llm-tool-test list [paths...] [--tags a,b] [--tier N] [--json]\n");
    return EXIT.ok;
  }
  const { selected } = await loadSelected(positionals, values, io);
  if (values.json) {
    const rows = selected.map((s) => ({
      id: s.id,
      category: s.category,
      tags: s.tags,
      tier: s.tier,
      variants: s.variants.map((v) => v.name),
      gates: s.evaluation.gates.length,
      judge: Boolean(s.evaluation.judge?.enabled),
      file: path.relative(io.cwd, s.source.file),
    }));
    io.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
    return EXIT.ok;
  }
  for (const s of selected) {
    const extras = [
      `tier ${s.tier}`,
      s.tags.length ? `tags ${s.tags.join(",")}` : "",
      `${s.evaluation.gates.length} gate(s)`,
      s.evaluation.judge?.enabled ? "judge" : "",
      s.variants.length ? `variants ${s.variants.map((v) => v.name).join(",")}` : "",
    ].filter(Boolean);
    io.stdout.write(
      `${s.id}  [${s.category}]  ${extras.join(" · ")}  (${path.relative(io.cwd, s.source.file)}:${s.source.line})\n`,
    );
  }
  io.stdout.write(`${selected.length} scenario(s)\n`);
  return EXIT.ok;
}

const REPORT_FORMATS = ["md", "terminal", "json", "html", "junit"] as const;

async function renderReportAs(
  format: (typeof REPORT_FORMATS)[number],
  report: Report,
  context: { file: string; comparison: Comparison | undefined; color: boolean },
): Promise<string> {
  switch (format) {
    case "md":
      return renderReportMarkdown(report);
    case "json":
      return `${JSON.stringify(report, null, 2)}\n`;
    case "junit":
      return renderJunitXml(report);
    case "html": {
      const events = await loadTrialEvents(report, path.dirname(context.file));
      return renderReportHtml({
        report,
        events,
        ...(context.comparison ? { comparison: context.comparison } : {}),
      });
    }
    case "terminal":
      return `${renderTerminalSummary(report, { color: context.color })}\n`;
  }
}

async function commandReport(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs("report", argv, {
    format: { type: "string", short: "f" },
    out: { type: "string", short: "o" },
    baseline: { type: "string" },
    help: { type: "boolean", short: "h" },
    debug: { type: "boolean" },
  });
  if (values.help || positionals.length !== 1) {
    io.stdout.write(
      "Usage: llm-tool-test report REPORT.json [--format md|terminal|json|html|junit] [--out FILE] [--baseline BASE.json]\n\n" +
        "Re-renders a saved report. html is one self-contained file with charts and a transcript viewer\n" +
        "(run it from the report's folder so the transcripts are found); junit is JUnit XML for CI dashboards.\n",
    );
    return values.help ? EXIT.ok : EXIT.usage;
  }
  const file = path.resolve(io.cwd, positionals[0] as string);
  const report = await readReportFile(file);
  const format = readChoice(values, "format", REPORT_FORMATS) ?? "md";
  const baselineFile = readString(values, "baseline");
  const comparison = baselineFile
    ? compareReports(await readReportFile(path.resolve(io.cwd, baselineFile)), report)
    : undefined;
  const text = await renderReportAs(format, report, { file, comparison, color: Boolean(io.stdout.isTTY) });
  const out = readString(values, "out");
  if (out) {
    await mkdir(path.dirname(path.resolve(io.cwd, out)), { recursive: true });
    await writeFile(path.resolve(io.cwd, out), text);
  } else {
    io.stdout.write(text);
  }
  return EXIT.ok;
}

async function commandCompare(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs("compare", argv, {
    format: { type: "string", short: "f" },
    alpha: { type: "string" },
    help: { type: "boolean", short: "h" },
    debug: { type: "boolean" },
  });
  if (values.help || positionals.length !== 2) {
    io.stdout.write(
      "Usage: llm-tool-test compare BASE.json HEAD.json [--format md|terminal|json] [--alpha 0.05]\n",
    );
    return values.help ? EXIT.ok : EXIT.usage;
  }
  const [base, head] = await Promise.all(positionals.map((p) => readReportFile(path.resolve(io.cwd, p))));
  const alpha = readNumber(values, "alpha", 0);
  const comparison = compareReports(base as Report, head as Report, alpha !== undefined ? { alpha } : {});
  const format = readChoice(values, "format", ["md", "terminal", "json"] as const) ?? "terminal";
  io.stdout.write(
    format === "md"
      ? renderComparisonMarkdown(comparison)
      : format === "json"
        ? `${JSON.stringify(comparison, null, 2)}\n`
        : `${renderComparisonTerminal(comparison)}\n`,
  );
  return EXIT.ok;
}

async function commandMerge(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs("merge", argv, {
    out: { type: "string", short: "o" },
    help: { type: "boolean", short: "h" },
    debug: { type: "boolean" },
  });
  const out = readString(values, "out");
  if (values.help || positionals.length === 0 || !out) {
    io.stdout.write(
      "Usage: llm-tool-test merge REPORT.json... --out DIR\n\nCombines the shard reports of one run (--shard i/n) into one report.\n",
    );
    return values.help ? EXIT.ok : EXIT.usage;
  }
  const inputs = await Promise.all(
    positionals.map(async (p) => ({ file: p, report: await readReportFile(path.resolve(io.cwd, p)) })),
  );
  const merged = mergeShardReports(inputs);
  const outDir = path.resolve(io.cwd, out);
  await mkdir(outDir, { recursive: true });
  await writeReportFiles(merged, outDir, (text) => text);
  io.stdout.write(`${renderTerminalSummary(merged, { color: Boolean(io.stdout.isTTY) })}\n`);
  io.stdout.write(
    `Merged ${inputs.length} report(s) into ${displayPath(io.cwd, path.join(outDir, "report.json"))}\n`,
  );
  return exitCodeFor(merged);
}

async function commandInit(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs("init", argv, {
    dir: { type: "string" },
    binary: { type: "string" },
    force: { type: "boolean" },
    help: { type: "boolean", short: "h" },
    debug: { type: "boolean" },
  });
  const binary = readString(values, "binary") ?? positionals[0];
  if (values.help || !binary) {
    io.stdout.write(INIT_HELP);
    return values.help ? EXIT.ok : EXIT.usage;
  }
  const result = await scaffoldScenarios({
    binary,
    dir: path.resolve(io.cwd, readString(values, "dir") ?? "scenarios"),
    force: Boolean(values.force),
    cwd: io.cwd,
    ...(io.env.PATH ? { searchPath: io.env.PATH } : {}),
  });
  for (const file of result.files) io.stdout.write(`wrote ${displayPath(io.cwd, file)}\n`);
  for (const warning of result.warnings) io.stderr.write(`warning: ${warning}\n`);
  io.stdout.write(`Next: llm-tool-test validate --oracle ${readString(values, "dir") ?? "scenarios"}\n`);
  return EXIT.ok;
}

const INIT_HELP = `Usage: llm-tool-test init BINARY [--dir scenarios] [--force]

Writes a starter suite for BINARY (a command on PATH, or a path to one) into DIR (default ./scenarios):
a scenario whose solution runs \`BINARY --version\` (or --help), a fixture folder, a judge rubric, an
AGENTS.md stub, and .github/workflows/llm-tool-test.yml at the root of the enclosing git repository
(inside DIR when there is none). Existing files are not overwritten unless --force.
Next: llm-tool-test validate --oracle DIR
`;

async function commandPlan(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs("plan", argv, {
    effect: { type: "string" },
    metric: { type: "string" },
    alpha: { type: "string" },
    power: { type: "string" },
    help: { type: "boolean", short: "h" },
    debug: { type: "boolean" },
  });
  const effect = readNumber(values, "effect", 0);
  if (values.help || positionals.length !== 1 || effect === undefined) {
    io.stdout.write(
      "Usage: llm-tool-test plan REPORT.json --effect 0.1 [--metric first_try_success_rate] [--alpha 0.05] [--power 0.8]\n\n" +
        "From the variance observed in a report, how many trials per scenario are needed to detect a change\n" +
        "of the given size (rates in 0..1: 0.1 = 10 points; other metrics in their own unit).\n",
    );
    return values.help ? EXIT.ok : EXIT.usage;
  }
  const report = await readReportFile(path.resolve(io.cwd, positionals[0] as string));
  const metric = readString(values, "metric");
  const alpha = readNumber(values, "alpha", 0);
  const power = readNumber(values, "power", 0);
  const plan = planTrialsNeeded(report, {
    effect,
    ...(metric ? { metric } : {}),
    ...(alpha !== undefined ? { alpha } : {}),
    ...(power !== undefined ? { power } : {}),
  });
  io.stdout.write(`${renderTrialPlan(plan)}\n`);
  return EXIT.ok;
}

const COMMANDS: Record<string, (argv: string[], io: CliIo) => Promise<number>> = {
  init: commandInit,
  plan: commandPlan,
  merge: commandMerge,
  run: commandRun,
  validate: commandValidate,
  list: commandList,
  report: commandReport,
  compare: commandCompare,
};

/** The CLI's entry: returns the exit status; never throws. */
export async function main(argv: string[], io: CliIo = defaultIo()): Promise<number> {
  const debug = argv.includes("--debug");
  const [command, ...rest] = argv;
  if (!command || command === "--help" || command === "-h" || command === "help") {
    io.stdout.write(HELP);
    return command ? EXIT.ok : EXIT.usage;
  }
  if (command === "--version" || command === "-v") {
    io.stdout.write(`${HARNESS_VERSION}\n`);
    return EXIT.ok;
  }
  const handler = COMMANDS[command];
  if (!handler) {
    const suggestion = suggestKey(command, Object.keys(COMMANDS));
    io.stderr.write(
      `llm-tool-test: unknown command "${command}"${suggestion ? ` (did you mean "${suggestion}"?)` : ""}. Run 'llm-tool-test --help'.\n`,
    );
    return EXIT.usage;
  }
  try {
    return await handler(rest, io);
  } catch (error) {
    if (isConfigError(error)) {
      io.stderr.write(`llm-tool-test: ${error.message}\n`);
      if (debug && error.stack) io.stderr.write(`${error.stack}\n`);
      return EXIT.usage;
    }
    io.stderr.write(`llm-tool-test: unexpected error: ${describeError(error)}\n`);
    io.stderr.write(
      debug && error instanceof Error && error.stack
        ? `${error.stack}\n`
        : "Run again with --debug for the stack trace, and please report it.\n",
    );
    return EXIT.incomplete;
  }
}
