import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { type DecidedRun, decideRun } from "../../compare/decide-run.js";
import { type Decision, judgeScenario, type ScenarioVerdict } from "../../compare/decision.js";
import type { Comparison } from "../../compare/types.js";
import { ConfigError } from "../../errors.js";
import { FORMAT_NAMES, OUTPUT_FORMATS, type OutputFormat } from "../../render/formats.js";
import { readReportFile } from "../../results/read-report.js";
import { loadTrialEvents } from "../../results/read-trial-events.js";
import type { Report } from "../../results/types.js";
import { checkOutputPath } from "../../run/output-path.js";
import { projectRootOf } from "../../scenario/repository-root.js";
import { parseCommandArgs, readChoice, readRepeated, readString } from "../args.js";
import { readDecisionBaselines } from "../baseline-files.js";
import { type CliCommand, type CliIo, EXIT } from "../command.js";
import {
  readToleranceGates,
  TOLERANCE_GATES_HELP,
  TOLERANCE_GATES_OPTION,
} from "../tolerance-gates-option.js";

const REPORT_HELP =
  `Usage: llm-tool-test report REPORT.json [--format ${FORMAT_NAMES.join("|")}] [--out FILE] [--baseline BASE.json ...] [--tolerance-gates LIST]\n\n` +
  "Re-renders a saved report. html is one self-contained file with charts and a transcript viewer\n" +
  "(run it from the report's folder so the transcripts are found); junit is JUnit XML for CI dashboards;\n" +
  "the comparison-* formats need --baseline, unless the run was compared: then the decision and\n" +
  "comparison it saved beside the report (comparison.json) are shown as they were. history is one\n" +
  "self-contained page of every --baseline run (repeat it; pooled for the decision, as `compare` does)\n" +
  "and this report, in the order they ran, with the tool's and the guidance's changes marked.\n\n" +
  TOLERANCE_GATES_HELP;

async function commandReport(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs("report", argv, {
    format: { type: "string", short: "f" },
    out: { type: "string", short: "o" },
    baseline: { type: "string", multiple: true },
    ...TOLERANCE_GATES_OPTION,
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
  const baseline = await readDecisionBaselines(readRepeated(values, "baseline"), report, io.cwd);
  const toleranceGates = readToleranceGates(values, { baseline: baseline !== null });
  if (format.needsBaseRuns && !baseline) {
    throw new ConfigError(
      `${name} shows the base-branch runs: add --baseline BASE.json, once for each run`,
      "--format",
    );
  }
  // A run that was compared saved its decision beside the report: shown as it was, not decided again
  // on the report alone. --baseline decides anew, through the decide stage a run goes through.
  const saved = baseline ? null : await readSavedDecision(path.dirname(file), report, io);
  if (format.needsComparison && !baseline && !saved) {
    throw new ConfigError(`${name} compares with a baseline: add --baseline BASE.json`, "--format");
  }
  const { comparison, decision } =
    saved ??
    decideRun({
      report,
      baseline: baseline?.decided ?? null,
      policy: { failOn: null, gateMetrics: [], toleranceGates },
      incomparable: "throw",
    });
  const text = format.render({
    report,
    ...(comparison ? { comparison } : {}),
    ...(baseline ? { baseRuns: baseline.runs } : {}),
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

/** The file a compared run writes beside report.json: the comparison, its decision inside. */
const SAVED_COMPARISON = "comparison.json";

/**
 * The decision and comparison a compared run saved beside its report, when they are this report's
 * (the comparison's head is this run); null when there is none. A file that is not one is said on
 * stderr, and the report is then decided on its own.
 */
async function readSavedDecision(
  dir: string,
  report: Report,
  io: CliIo,
): Promise<Pick<DecidedRun, "comparison" | "decision"> | null> {
  const file = path.join(dir, SAVED_COMPARISON);
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch {
    return null;
  }
  let saved: (Comparison & { decision?: Decision & { reason?: string } }) | null = null;
  try {
    saved = JSON.parse(text) as Comparison & { decision?: Decision & { reason?: string } };
  } catch {
    saved = null;
  }
  const decision = saved?.decision;
  if (!saved || typeof decision !== "object" || decision === null || !Array.isArray(decision.scenarios)) {
    io.stderr.write(`note: ${file} holds no saved decision; the report is decided on its own\n`);
    return null;
  }
  // Another run's comparison (a folder the report was copied into) is not this report's decision.
  if (saved.head?.run_id !== report.run.id) return null;
  const { decision: _, ...comparison } = saved;
  const { reason: _reason, ...rest } = decision;
  return { comparison, decision: withVerdicts(rest) };
}

/**
 * A decision saved by an earlier version, without per-scenario verdicts or improvements: its
 * verdicts from what it recorded (it tested no improvement), so every format can show them.
 */
function withVerdicts(decision: Decision): Decision {
  if (decision.suite_verdict !== undefined) return decision;
  const notCompared = new Set((decision.not_compared ?? []).map((s) => s.key));
  const verdictOf = (s: Decision["scenarios"][number]): ScenarioVerdict =>
    judgeScenario({
      notCompared: notCompared.has(s.key),
      regressed: s.regressed || (s.regressed_metrics ?? []).length > 0,
      improved: false,
      tested: s.tested,
    });
  return {
    ...decision,
    scenarios: decision.scenarios.map((s) => ({
      ...s,
      verdict: verdictOf(s),
      improved: false,
      improvement_p_value: null,
      improvement_adjusted_p: null,
    })),
    improved: [],
    suite_improved: false,
    suite_verdict: decision.suite_regressed ? "regressed" : decision.suite ? "no_clear_change" : "not_tested",
    improvement: null,
  };
}

export const reportCommand: CliCommand = {
  name: "report",
  args: "REPORT.json",
  summary: `re-render a saved report (--format ${FORMAT_NAMES.join("|")})`,
  run: commandReport,
};
