import path from "node:path";
import { compareReports } from "../../compare/compare.js";
import { renderComparisonMarkdown, renderComparisonTerminal } from "../../render/comparison-markdown.js";
import { readReportFile } from "../../results/read-report.js";
import type { Report } from "../../results/types.js";
import { parseCommandArgs, readChoice, readNumber } from "../args.js";
import { type CliCommand, type CliIo, EXIT } from "../command.js";

const COMPARE_HELP =
  "Usage: llm-tool-test compare BASE.json HEAD.json [--format md|terminal|json] [--alpha 0.05]\n";

async function commandCompare(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs("compare", argv, {
    format: { type: "string", short: "f" },
    alpha: { type: "string" },
    help: { type: "boolean", short: "h" },
    debug: { type: "boolean" },
  });
  if (values.help || positionals.length !== 2) {
    io.stdout.write(COMPARE_HELP);
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

export const compareCommand: CliCommand = {
  name: "compare",
  args: "BASE.json HEAD.json",
  summary: "compare two reports with significance tests",
  run: commandCompare,
};
