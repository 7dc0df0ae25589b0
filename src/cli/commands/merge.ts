import { mkdir } from "node:fs/promises";
import path from "node:path";
import { decideRun } from "../../compare/decide-run.js";
import { exitCodeForReport } from "../../compare/exit-status.js";
import { renderTerminalSummary } from "../../render/terminal.js";
import { mergeShardReports } from "../../results/merge.js";
import { copyShardTrialFolders } from "../../results/merge-trial-files.js";
import { readReportFile } from "../../results/read-report.js";
import { checkOutputPath } from "../../run/output-path.js";
import { writeRunOutputs } from "../../run/write-outputs.js";
import { projectRootOf } from "../../scenario/repository-root.js";
import { parseCommandArgs, readString } from "../args.js";
import { type CliCommand, type CliIo, displayPath, EXIT } from "../command.js";

const MERGE_HELP =
  "Usage: llm-tool-test merge REPORT.json... --out DIR\n\n" +
  "Combines the shard reports of one run (--shard i/n) into one report in DIR, with every shard's\n" +
  "trial folders (events, transcripts) copied next to it so report.html shows the transcripts.\n";

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
  const outDir = await checkOutputPath(out, io.cwd, { flag: "--out", kind: "folder" });
  const inputs = await Promise.all(
    positionals.map(async (p) => {
      const file = path.resolve(io.cwd, p);
      return { file: p, dir: path.dirname(file), report: await readReportFile(file) };
    }),
  );
  const merged = mergeShardReports(inputs);
  await mkdir(outDir, { recursive: true });
  await copyShardTrialFolders(inputs, outDir);
  // No baseline here (`compare` compares the merged report): the run's own outcome decides, and a
  // sharded run had no adaptive design.
  const decided = decideRun({
    report: merged,
    baseline: null,
    policy: { failOn: null, gateMetrics: [] },
    designExtraTrials: 0,
  });
  // The shards' outputs were redacted when they were written.
  await writeRunOutputs(merged, decided, {
    outDir,
    redact: (text) => text,
    repositoryRoot: await projectRootOf(io.cwd),
  });
  io.stdout.write(`${renderTerminalSummary(merged, { color: Boolean(io.stdout.isTTY) })}\n`);
  io.stdout.write(
    `Merged ${inputs.length} report(s) into ${displayPath(io.cwd, path.join(outDir, "report.json"))}\n`,
  );
  return exitCodeForReport(merged);
}

export const mergeCommand: CliCommand = {
  name: "merge",
  args: "REPORT.json... --out DIR",
  summary: "combine the shard reports of one run",
  run: commandMerge,
};
