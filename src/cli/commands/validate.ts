import { describeNoGates, describePatternWarning, validateWithOracle } from "../../run/validate-oracle.js";
import { SANDBOX_SETTINGS } from "../../scenario/keys.js";
import { COMMON_OPTIONS, parseCommandArgs, readChoice } from "../args.js";
import { type CliCommand, type CliIo, displayPath, EXIT } from "../command.js";
import { describeScenarioCount, FILTER_OPTIONS, loadSelected } from "../scenario-selection.js";

const VALIDATE_HELP =
  "Usage: llm-tool-test validate [paths...] [--oracle] [--tags a,b] [--tier N] [--sandbox auto|local|bwrap]\n\n" +
  "Checks every scenario file, and warns about a scenario without gates (any agent passes it). With\n" +
  "--oracle, runs each scenario's solution (all gates must pass) and the null agent (at least one\n" +
  "gate must fail), and names unsatisfiable or vacuous scenarios; one without gates fails.\n";

/** The last line: never "all satisfiable" when nothing was checked. */
function describeOracleVerdict(findings: { status: string }[], problems: number): string {
  if (problems > 0) return `${problems} problem(s).`;
  const checked = findings.filter((f) => f.status === "ok").length;
  const skipped = findings.length - checked;
  const skips = skipped > 0 ? ` ${skipped} skipped: no solution to run.` : "";
  if (checked === 0) {
    return `No scenario was checked:${skips} Add a \`solution\` to prove a scenario's gates can pass and can fail.`;
  }
  return `All checked scenarios are satisfiable and not vacuous (${checked} checked).${skips}`;
}

async function commandValidate(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs("validate", argv, {
    ...COMMON_OPTIONS,
    ...FILTER_OPTIONS,
    oracle: { type: "boolean" },
    sandbox: { type: "string" },
  });
  if (values.help) {
    io.stdout.write(VALIDATE_HELP);
    return EXIT.ok;
  }
  const { all, selected } = await loadSelected(positionals, values, io);
  for (const scenario of all) {
    if (scenario.evaluation.gates.length > 0) continue;
    const where = `${displayPath(io.cwd, scenario.source.file)}${scenario.source.format === "yaml" ? "" : `:${scenario.source.line}`}`;
    io.stderr.write(`warning: ${where}: scenario ${scenario.id} has ${describeNoGates(scenario)}\n`);
  }
  for (const scenario of all) {
    const warning = describePatternWarning(scenario);
    if (warning)
      io.stderr.write(
        `warning: ${displayPath(io.cwd, scenario.source.file)}: scenario ${scenario.id}: ${warning}\n`,
      );
  }
  io.stdout.write(`${describeScenarioCount(all)} valid.\n`);
  if (!values.oracle) return EXIT.ok;
  const sandbox = readChoice(values, "sandbox", SANDBOX_SETTINGS) ?? null;
  if (io.environmentWarning) io.stderr.write(`warning: ${io.environmentWarning}\n`);
  const findings = await validateWithOracle(selected, { env: io.env, sandbox });
  let problems = 0;
  for (const finding of findings) {
    // A scenario without gates fails: an oracle cannot prove anything of it.
    const mark = finding.status === "ok" ? "ok  " : finding.status === "no_solution" ? "skip" : "FAIL";
    if (finding.status !== "ok" && finding.status !== "no_solution") problems += 1;
    io.stdout.write(`${mark} ${finding.id}: ${finding.message}\n`);
  }
  io.stdout.write(`${describeOracleVerdict(findings, problems)}\n`);
  return problems === 0 ? EXIT.ok : EXIT.failed;
}

export const validateCommand: CliCommand = {
  name: "validate",
  args: "[paths...]",
  summary: "check scenario files; --oracle also proves the gates can pass and can fail",
  run: commandValidate,
};
