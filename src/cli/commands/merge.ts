import { mkdir } from "node:fs/promises";
import path from "node:path";
import { renderTerminalSummary } from "../../render/terminal.js";
import { mergeShardReports } from "../../results/merge.js";
import { readReportFile } from "../../results/read-report.js";
import { writeReportFiles } from "../../run/suite.js";
import { parseCommandArgs, readString } from "../args.js";
import { type CliCommand, type CliIo, displayPath, EXIT, exitCodeFor } from "../command.js";

const MERGE_HELP =
  "Usage: llm-tool-test merge REPORT.json... --out DIR\n\nCombines the shard reports of one run (--shard i/n) into one report.\n";

async function commandMerge(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs("merge", argv, {
    out: { type: "string", short: "o" },
    help: { type: "boolean", short: "h" },
    debug: { type: "boolean" },
  });
  const out = readString(values, "out");
  if (values.help || positionals.length === 0 || !out) {
    io.stdout.write(MERGE_HELP);
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

export const mergeCommand: CliCommand = {
  name: "merge",
  args: "REPORT.json... --out DIR",
  summary: "combine the shard reports of one run",
  run: commandMerge,
};
