import path from "node:path";
import { planTrialsNeeded, renderTrialPlan } from "../../compare/planning.js";
import { readReportFile } from "../../results/read-report.js";
import { parseCommandArgs, readNumber, readString } from "../args.js";
import { type CliCommand, type CliIo, EXIT } from "../command.js";

const PLAN_HELP =
  "Usage: llm-tool-test plan REPORT.json --effect 0.1 [--metric first_try_success_rate] [--alpha 0.05] [--power 0.8]\n\n" +
  "From the variance observed in a report, how many trials per scenario are needed to detect a change\n" +
  "of the given size (rates in 0..1: 0.1 = 10 points; other metrics in their own unit).\n";

async function commandPlan(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs("plan", argv, {
    effect: { type: "string" },
    metric: { type: "string" },
    alpha: { type: "string" },
    power: { type: "string" },
    help: { type: "boolean", short: "h" },
    debug: { type: "boolean" },
  });
  const effect = readNumber(values, "effect", 0);
  if (values.help || positionals.length !== 1 || effect === undefined) {
    io.stdout.write(PLAN_HELP);
    return values.help ? EXIT.ok : EXIT.usage;
  }
  const report = await readReportFile(path.resolve(io.cwd, positionals[0] as string));
  const metric = readString(values, "metric");
  const alpha = readNumber(values, "alpha", 0);
  const power = readNumber(values, "power", 0);
  const plan = planTrialsNeeded(report, {
    effect,
    ...(metric ? { metric } : {}),
    ...(alpha !== undefined ? { alpha } : {}),
    ...(power !== undefined ? { power } : {}),
  });
  io.stdout.write(`${renderTrialPlan(plan)}\n`);
  return EXIT.ok;
}

export const planCommand: CliCommand = {
  name: "plan",
  args: "REPORT.json --effect 0.1",
  summary: "trials needed to detect a change of that size",
  run: commandPlan,
};
