import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { decideRun } from "../../compare/decide-run.js";
import { ConfigError } from "../../errors.js";
import { FORMAT_NAMES, OUTPUT_FORMATS, type OutputFormat } from "../../render/formats.js";
import { readReportFile } from "../../results/read-report.js";
import { loadTrialEvents } from "../../results/read-trial-events.js";
import { checkOutputPath } from "../../run/output-path.js";
import { projectRootOf } from "../../scenario/repository-root.js";
import { parseCommandArgs, readChoice, readString } from "../args.js";
import { type CliCommand, type CliIo, EXIT } from "../command.js";

const REPORT_HELP =
  `Usage: llm-tool-test report REPORT.json [--format ${FORMAT_NAMES.join("|")}] [--out FILE] [--baseline BASE.json]\n\n` +
  "Re-renders a saved report. html is one self-contained file with charts and a transcript viewer\n" +
  "(run it from the report's folder so the transcripts are found); junit is JUnit XML for CI dashboards;\n" +
  "the comparison-* formats need --baseline.\n";

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
  const outText = readString(values, "out");
  const out = outText ? await checkOutputPath(outText, io.cwd, { flag: "--out", kind: "file" }) : undefined;
  const report = await readReportFile(file);
  const name = readChoice(values, "format", FORMAT_NAMES) ?? "md";
  const format: OutputFormat = OUTPUT_FORMATS[name];
  const baselineFile = readString(values, "baseline");
  if (format.needsComparison && !baselineFile) {
    throw new ConfigError(`${name} compares with a baseline: add --baseline BASE.json`, "--format");
  }
  const baseline = baselineFile ? await readReportFile(path.resolve(io.cwd, baselineFile)) : null;
  // The decide stage a run goes through, with these inputs: the same decision, re-rendered.
  const { comparison, decision } = decideRun({
    report,
    baseline: baseline && { report: baseline },
    policy: { failOn: null, gateMetrics: [] },
    incomparable: "throw",
  });
  const text = format.render({
    report,
    ...(comparison ? { comparison } : {}),
    decision,
    ...(format.needsEvents ? { events: await loadTrialEvents(report, path.dirname(file)) } : {}),
    color: Boolean(io.stdout.isTTY),
    repositoryRoot: await projectRootOf(io.cwd),
  });
  if (out) {
    await mkdir(path.dirname(out), { recursive: true });
    await writeFile(out, text);
  } else {
    io.stdout.write(text);
  }
  return EXIT.ok;
}

export const reportCommand: CliCommand = {
  name: "report",
  args: "REPORT.json",
  summary: `re-render a saved report (--format ${FORMAT_NAMES.join("|")})`,
  run: commandReport,
};
