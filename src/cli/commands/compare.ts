import path from "node:path";
import { compareReports } from "../../compare/compare.js";
import { decide, parseFailOn } from "../../compare/decision.js";
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

const COMPARE_HELP = `Usage: llm-tool-test compare BASE.json HEAD.json [options]
       llm-tool-test compare HEAD.json --baseline A.json [--baseline B.json ...] [options]

  --baseline FILE        a baseline report; repeat it to pool several runs of the base branch
                         (only those of HEAD's agent, model, judge, harness major version and
                         settings; per scenario, only the same content: the rest is listed)
  --fail-on RULE         regression (default) | outcome | never | pass-rate<X: what makes the exit status 1
  --gate-metrics LIST    layer-1 metrics that also decide, e.g. error_rate,help_invocations
  -f, --format FMT       md | terminal | json (default terminal); json carries the decision as "decision"
  --alpha X              the chance of failing when nothing changed (default 0.05)

Exit status: 1 exactly when the decision fails, 3 when HEAD's run was incomplete, else 0.
The first line states the decision (docs/statistics.md says how it is made).
`;

interface ComparedReports {
  base: Report;
  head: Report;
  pooling?: BaselinePooling;
}

/** The base report: BASE.json as given, one --baseline as given, or several pooled. */
async function readBase(
  positionals: string[],
  baselineFiles: string[],
  io: CliIo,
): Promise<ComparedReports | null> {
  if (baselineFiles.length === 0) {
    if (positionals.length !== 2) return null;
    const [base, head] = await Promise.all(positionals.map((p) => readReportFile(path.resolve(io.cwd, p))));
    return { base: base as Report, head: head as Report };
  }
  if (positionals.length !== 1) return null;
  const head = await readReportFile(path.resolve(io.cwd, positionals[0] as string));
  const candidates = await readBaselineFiles(baselineFiles, io.cwd);
  const [only] = candidates;
  if (candidates.length === 1 && only) return { base: only.report, head };
  const pooled = poolBaselines(candidates, head);
  const excluded = describeExclusions(pooled.excluded);
  if (!pooled.report) {
    throw new ConfigError(
      `no --baseline report measured what ${positionals[0]} measures:\n- ${excluded.join("\n- ")}`,
    );
  }
  for (const line of excluded) io.stderr.write(`note: left out of the baseline: ${line}\n`);
  io.stderr.write(`note: the baseline pools ${pooled.used.length} of ${candidates.length} runs\n`);
  return { base: pooled.report, head, pooling: describePooling(pooled) };
}

async function commandCompare(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs("compare", argv, {
    baseline: { type: "string", multiple: true },
    format: { type: "string", short: "f" },
    alpha: { type: "string" },
    "fail-on": { type: "string" },
    "gate-metrics": { type: "string", multiple: true },
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
  const comparison = compareReports(reports.base, reports.head, alpha !== undefined ? { alpha } : {});
  const decision = decide({
    head: reports.head,
    baseline: reports.base,
    failOn: failOnText ? parseFailOn(failOnText, "--fail-on") : { kind: "regression" },
    gateMetrics: readList(values, "gate-metrics"),
    ...(reports.pooling ? { pooling: reports.pooling } : {}),
    ...(alpha !== undefined ? { alpha } : {}),
  });
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
