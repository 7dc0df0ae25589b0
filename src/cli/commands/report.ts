import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { compareReports } from "../../compare/compare.js";
import type { Comparison } from "../../compare/types.js";
import { loadTrialEvents, renderReportHtml } from "../../render/html.js";
import { renderJunitXml } from "../../render/junit.js";
import { renderReportMarkdown } from "../../render/report-markdown.js";
import { renderTerminalSummary } from "../../render/terminal.js";
import { readReportFile } from "../../results/read-report.js";
import type { Report } from "../../results/types.js";
import { parseCommandArgs, readChoice, readString } from "../args.js";
import { type CliCommand, type CliIo, EXIT } from "../command.js";

const REPORT_FORMATS = ["md", "terminal", "json", "html", "junit"] as const;
type ReportFormat = (typeof REPORT_FORMATS)[number];

const REPORT_HELP =
  `Usage: llm-tool-test report REPORT.json [--format ${REPORT_FORMATS.join("|")}] [--out FILE] [--baseline BASE.json]\n\n` +
  "Re-renders a saved report. html is one self-contained file with charts and a transcript viewer\n" +
  "(run it from the report's folder so the transcripts are found); junit is JUnit XML for CI dashboards.\n";

/** The one place that maps a format to its renderer (to be replaced by render/'s format registry). */
async function renderReportAs(
  format: ReportFormat,
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
    io.stdout.write(REPORT_HELP);
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

export const reportCommand: CliCommand = {
  name: "report",
  args: "REPORT.json",
  summary: `re-render a saved report (--format ${REPORT_FORMATS.join("|")})`,
  run: commandReport,
};
