import path from "node:path";
import { compareReports } from "../../compare/compare.js";
import { describeExclusions, poolBaselines } from "../../compare/pool-baselines.js";
import { ConfigError } from "../../errors.js";
import { renderComparisonMarkdown, renderComparisonTerminal } from "../../render/comparison-markdown.js";
import { readReportFile } from "../../results/read-report.js";
import type { Report } from "../../results/types.js";
import { parseCommandArgs, readChoice, readNumber, readRepeated } from "../args.js";
import { readBaselineFiles } from "../baseline-files.js";
import { type CliCommand, type CliIo, EXIT } from "../command.js";

const COMPARE_HELP = `Usage: llm-tool-test compare BASE.json HEAD.json [options]
       llm-tool-test compare HEAD.json --baseline A.json [--baseline B.json ...] [options]

  --baseline FILE        a baseline report; repeat it to pool several runs of the base branch
                         (only those of HEAD's agent, model, judge, harness major version and
                         settings; per scenario, only the same content: the rest is listed)
  -f, --format FMT       md | terminal | json (default terminal)
  --alpha X              significance level (default 0.05)
`;

/** The base report: BASE.json as given, one --baseline as given, or several pooled. */
async function readBase(
  positionals: string[],
  baselineFiles: string[],
  io: CliIo,
): Promise<{ base: Report; head: Report } | null> {
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
  return { base: pooled.report, head };
}

async function commandCompare(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs("compare", argv, {
    baseline: { type: "string", multiple: true },
    format: { type: "string", short: "f" },
    alpha: { type: "string" },
    help: { type: "boolean", short: "h" },
    debug: { type: "boolean" },
  });
  const reports = values.help ? null : await readBase(positionals, readRepeated(values, "baseline"), io);
  if (!reports) {
    io.stdout.write(COMPARE_HELP);
    return values.help ? EXIT.ok : EXIT.usage;
  }
  const alpha = readNumber(values, "alpha", 0);
  const comparison = compareReports(reports.base, reports.head, alpha !== undefined ? { alpha } : {});
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

export const compareCommand: CliCommand = {
  name: "compare",
  args: "BASE.json HEAD.json | HEAD.json --baseline FILE...",
  summary: "compare reports with significance tests (a baseline pooled from several runs)",
  run: commandCompare,
};
