import { mkdir } from "node:fs/promises";
import path from "node:path";
import { decideRun } from "../../compare/decide-run.js";
import { exitCodeForDecision, exitCodeForReport } from "../../compare/exit-status.js";
import { renderDecisionReason } from "../../render/decision.js";
import { renderTerminalSummary } from "../../render/terminal.js";
import { mergeShardReports } from "../../results/merge.js";
import { copyShardTrialFolders } from "../../results/merge-trial-files.js";
import { readReportFile } from "../../results/read-report.js";
import { checkOutputPath } from "../../run/output-path.js";
import { writeRunOutputs } from "../../run/write-outputs.js";
import { projectRootOf } from "../../scenario/repository-root.js";
import { parseCommandArgs, readRepeated, readString } from "../args.js";
import { readDecisionBaselines } from "../baseline-files.js";
import { type CliCommand, type CliIo, displayPath, EXIT } from "../command.js";
import {
  readToleranceGates,
  TOLERANCE_GATES_HELP,
  TOLERANCE_GATES_OPTION,
} from "../tolerance-gates-option.js";

const MERGE_HELP =
  "Usage: llm-tool-test merge REPORT.json... --out DIR [--baseline BASE.json ...] [--tolerance-gates LIST]\n\n" +
  "Combines the shard reports of one run (--shard i/n) into one report in DIR, with every shard's\n" +
  "trial folders (events, transcripts) copied next to it so report.html shows the transcripts.\n" +
  "With --baseline (repeat it to pool several runs, as `run` does) the merged run is decided against\n" +
  "it like a run: comparison.json, comparison.md and history.html are written, and the exit status\n" +
  "is the decision's (fail on a regression).\n\n" +
  TOLERANCE_GATES_HELP;

async function commandMerge(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs("merge", argv, {
    out: { type: "string", short: "o" },
    baseline: { type: "string", multiple: true },
    ...TOLERANCE_GATES_OPTION,
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
  const baseline = await readDecisionBaselines(readRepeated(values, "baseline"), merged, io.cwd);
  const toleranceGates = readToleranceGates(values, { baseline: baseline !== null });
  // Without a baseline the run's own outcome decides; with one, a regression fails, as in `run`.
  // A sharded run had no adaptive design.
  const decided = decideRun({
    report: merged,
    baseline: baseline?.decided ?? null,
    policy: { failOn: baseline ? { kind: "regression" } : null, gateMetrics: [], toleranceGates },
    designExtraTrials: 0,
    incomparable: "throw",
  });
  // The shards' outputs were redacted when they were written.
  await writeRunOutputs(merged, decided, {
    outDir,
    redact: (text) => text,
    repositoryRoot: await projectRootOf(io.cwd),
    ...(baseline ? { baseRuns: baseline.runs } : {}),
  });
  io.stdout.write(`${renderTerminalSummary(merged, { color: Boolean(io.stdout.isTTY) })}\n`);
  io.stdout.write(
    `Merged ${inputs.length} report(s) into ${displayPath(io.cwd, path.join(outDir, "report.json"))}\n`,
  );
  if (!baseline) return exitCodeForReport(merged);
  io.stdout.write(`Decision: ${renderDecisionReason(decided.decision, { summary: merged.summary })}\n`);
  return exitCodeForDecision(decided.decision);
}

export const mergeCommand: CliCommand = {
  name: "merge",
  args: "REPORT.json... --out DIR",
  summary: "combine the shard reports of one run",
  run: commandMerge,
};
