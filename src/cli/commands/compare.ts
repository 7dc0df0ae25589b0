import path from "node:path";
import { compareReports } from "../../compare/compare.js";
import { decideRun } from "../../compare/decide-run.js";
import { parseFailOn } from "../../compare/decision.js";
import { exitCodeForDecision } from "../../compare/exit-status.js";
import {
  type BaselinePooling,
  describeExclusions,
  describePooling,
  poolBaselines,
} from "../../compare/pool-baselines.js";
import { ConfigError } from "../../errors.js";
import { renderComparisonMarkdown, renderComparisonTerminal } from "../../render/comparison-markdown.js";
import { buildComparisonJson } from "../../render/formats.js";
import { readReportFile } from "../../results/read-report.js";
import type { Report } from "../../results/types.js";
import { parseCommandArgs, readChoice, readList, readNumber, readRepeated, readString } from "../args.js";
import { readBaselineFiles } from "../baseline-files.js";
import { type CliCommand, type CliIo, EXIT } from "../command.js";
import {
  readToleranceGates,
  TOLERANCE_GATES_HELP,
  TOLERANCE_GATES_OPTION,
} from "../tolerance-gates-option.js";

const COMPARE_HELP = `Usage: llm-tool-test compare BASE.json HEAD.json [options]
       llm-tool-test compare HEAD.json --baseline A.json [--baseline B.json ...] [options]

  --baseline FILE        a baseline report; one or several, pooled alike: only runs of HEAD's agent,
                         model, judge, harness major version and settings count (the rest is
                         listed). BASE.json is compared whatever agent or model made it.
  --fail-on RULE         regression (default) | outcome | never | pass-rate<X: what makes the exit status 1
  --gate-metrics LIST    layer-1 metrics that also decide, e.g. error_rate,help_invocations
${TOLERANCE_GATES_HELP}  -f, --format FMT       md | terminal | json (default terminal); json carries the decision as "decision"
  --alpha X              the chance of failing when nothing changed (default 0.05)

Scenarios are compared only where the measurement is HEAD's (task, files, gates, rubric, limits,
target); a changed or new scenario is listed as not compared, with HEAD's results. A change of
guidance or of the tool's build is what is compared, and is named.
Exit status: 1 exactly when the decision fails, 3 when HEAD's run was incomplete, else 0.
The first line states the decision (docs/statistics.md says how it is made).
`;

interface ComparedReports {
  /** What the decision compares with: the pooled baseline; null when no scenario could be. */
  base: Report | null;
  /** What the descriptive comparison shows: the pooled baseline, else the newest report given. */
  described: Report;
  head: Report;
  pooling: BaselinePooling;
}

/**
 * BASE.json or the --baseline files, one or several alike, pooled per scenario over what measured
 * what HEAD measures (BASE.json: whatever agent or model made it).
 */
async function readBase(
  positionals: string[],
  baselineFiles: string[],
  io: CliIo,
): Promise<ComparedReports | null> {
  const given = baselineFiles.length === 0;
  if (given ? positionals.length !== 2 : positionals.length !== 1) return null;
  const headFile = positionals[positionals.length - 1] as string;
  const head = await readReportFile(path.resolve(io.cwd, headFile));
  const { candidates, rejected } = await readBaselineFiles(
    given ? [positionals[0] as string] : baselineFiles,
    io.cwd,
  );
  const pooled = poolBaselines(candidates, head, { matchRun: !given });
  // Invalid files first, as `run` lists them.
  pooled.excluded.unshift(...rejected);
  const excluded = describeExclusions(pooled.excluded);
  const runLevelOnly = pooled.excluded.every((e) => e.scenario === null);
  if (!given && !pooled.report && pooled.excluded.length === 0) {
    throw new ConfigError(`no --baseline report has a scenario that ${headFile} ran: check the files`);
  }
  if (!given && !pooled.report && runLevelOnly) {
    throw new ConfigError(
      `no --baseline report measured what ${headFile} measures:\n- ${excluded.join("\n- ")}`,
    );
  }
  for (const line of excluded) io.stderr.write(`note: left out of the baseline: ${line}\n`);
  if (candidates.length + rejected.length > 1) {
    io.stderr.write(
      `note: the baseline pools ${pooled.used.length} of ${candidates.length + rejected.length} runs\n`,
    );
  }
  const newest = candidates[0]?.report as Report;
  // One report is described as it is (its removed and renamed scenarios too); the decision compares
  // only what measured the same thing (compare/pairing.ts). BASE.json is used whatever it holds.
  const single = given || (candidates.length === 1 && pooled.report !== null);
  return {
    base: single ? newest : pooled.report,
    described: single ? newest : (pooled.report ?? newest),
    head,
    pooling: describePooling(pooled),
  };
}

async function commandCompare(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs("compare", argv, {
    baseline: { type: "string", multiple: true },
    format: { type: "string", short: "f" },
    alpha: { type: "string" },
    "fail-on": { type: "string" },
    "gate-metrics": { type: "string", multiple: true },
    ...TOLERANCE_GATES_OPTION,
    help: { type: "boolean", short: "h" },
    debug: { type: "boolean" },
  });
  const reports = values.help ? null : await readBase(positionals, readRepeated(values, "baseline"), io);
  if (!reports) {
    io.stdout.write(COMPARE_HELP);
    return values.help ? EXIT.ok : EXIT.usage;
  }
  const alpha = readNumber(values, "alpha", 0);
  const failOnText = readString(values, "fail-on");
  const compareOptions = alpha !== undefined ? { alpha } : {};
  // The decide stage a run goes through; `compare` fails on a regression unless told otherwise.
  const decided = decideRun({
    report: reports.head,
    baseline: { report: reports.base, pooling: reports.pooling },
    policy: {
      failOn: failOnText ? parseFailOn(failOnText, "--fail-on") : { kind: "regression" },
      gateMetrics: readList(values, "gate-metrics"),
      toleranceGates: readToleranceGates(values),
      compareOptions,
    },
    incomparable: "throw",
  });
  const decision = decided.decision;
  // With nothing the decision could compare, the newest report is still shown beside HEAD.
  const comparison = decided.comparison ?? compareReports(reports.described, reports.head, compareOptions);
  const format = readChoice(values, "format", ["md", "terminal", "json"] as const) ?? "terminal";
  io.stdout.write(
    format === "md"
      ? renderComparisonMarkdown(comparison, decision)
      : format === "json"
        ? `${JSON.stringify(buildComparisonJson(comparison, decision, reports.head), null, 2)}\n`
        : `${renderComparisonTerminal(comparison, decision, { color: Boolean(io.stdout.isTTY) })}\n`,
  );
  return exitCodeForDecision(decision);
}

export const compareCommand: CliCommand = {
  name: "compare",
  args: "BASE.json HEAD.json | HEAD.json --baseline FILE...",
  summary: "compare reports with significance tests (a baseline pooled from several runs)",
  run: commandCompare,
};
