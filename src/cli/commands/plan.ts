import path from "node:path";
import { planCost } from "../../compare/cost-plan.js";
import { planDesign, planTrialsNeeded, renderDesignPlan, renderTrialPlan } from "../../compare/planning.js";
import { DEFAULT_BASELINE_RUNS } from "../../compare/pool-baselines.js";
import { ConfigError } from "../../errors.js";
import { renderCostPlan } from "../../render/cost-plan.js";
import { readReportFile } from "../../results/read-report.js";
import type { Report } from "../../results/types.js";
import { DEFAULT_EXTRA_TRIALS, DEFAULT_TRIALS } from "../../run/options.js";
import { parseCommandArgs, readInteger, readNumber, readString } from "../args.js";
import { type CliCommand, type CliIo, EXIT } from "../command.js";

const PLAN_HELP =
  "Usage: llm-tool-test plan [REPORT.json] [--scenarios N] [--trials N] [--extra-trials M] [--baseline-runs K] [--icc R] [--alpha 0.05]\n" +
  "       llm-tool-test plan REPORT.json --effect 0.1 [--metric first_try_success_rate] [--alpha 0.05] [--power 0.8]\n\n" +
  "The design: what the decision can detect with N scenarios × N trials (+M extra for screened ones)\n" +
  `against K pooled baseline runs — the exact chance to flag one scenario dropping 90% → 10%, 90% → 50%\n` +
  "and 100% → 70%, the head trials spent per PR, and the baseline runs that reach 90% power on the\n" +
  `collapse. Defaults: the action's (--trials ${DEFAULT_TRIALS}, --extra-trials ${DEFAULT_EXTRA_TRIALS}, --baseline-runs ${DEFAULT_BASELINE_RUNS}); with a\n` +
  "REPORT.json, its scenario count and trials per scenario, and what a PR and a base-branch run cost\n" +
  "at the design, from its trials' costs (95% ranges). Needs REPORT.json or --scenarios.\n" +
  "--icc R plans for runs that vary from day to day with intra-run correlation R (what a PR comment\n" +
  "reports as the base runs' ICC; default 0, independent trials).\n\n" +
  "With --effect: from the variance observed in a report, how many trials per scenario are needed to\n" +
  "detect a change of the given size (rates in 0..1: 0.1 = 10 points; other metrics in their own unit).\n";

const DESIGN_FLAGS = ["scenarios", "trials", "extra-trials", "baseline-runs", "icc"] as const;

/** A report's first trials per scenario (the median), as the run planned them. */
function firstTrialsOf(report: Report): number {
  const counts = report.scenarios
    .map((s) => s.first_trials ?? s.trials.length)
    .filter((n) => n > 0)
    .sort((a, b) => a - b);
  return counts[Math.floor((counts.length - 1) / 2)] ?? DEFAULT_TRIALS;
}

async function commandPlan(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs("plan", argv, {
    effect: { type: "string" },
    metric: { type: "string" },
    alpha: { type: "string" },
    power: { type: "string" },
    scenarios: { type: "string" },
    trials: { type: "string" },
    "extra-trials": { type: "string" },
    "baseline-runs": { type: "string" },
    icc: { type: "string" },
    help: { type: "boolean", short: "h" },
    debug: { type: "boolean" },
  });
  const effect = readNumber(values, "effect", 0);
  const scenarios = readInteger(values, "scenarios", 1);
  const usage = positionals.length > 1 || (positionals.length === 0 && scenarios === undefined);
  if (values.help || usage) {
    io.stdout.write(PLAN_HELP);
    return values.help ? EXIT.ok : EXIT.usage;
  }
  const report = positionals[0] ? await readReportFile(path.resolve(io.cwd, positionals[0])) : null;
  const alpha = readNumber(values, "alpha", 0);

  if (effect !== undefined) {
    const designFlag = DESIGN_FLAGS.find((name) => values[name] !== undefined);
    if (designFlag)
      throw new ConfigError("plans the design; leave out --effect (or this flag)", `--${designFlag}`);
    if (!report) throw new ConfigError("needs a REPORT.json to measure the variance from", "--effect");
    const metric = readString(values, "metric");
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

  for (const name of ["metric", "power"] as const) {
    if (values[name] !== undefined) throw new ConfigError("goes with --effect", `--${name}`);
  }
  const icc = readNumber(values, "icc", 0);
  if (icc !== undefined && !(icc < 1)) throw new ConfigError(`must be in [0, 1), got ${icc}`, "--icc");
  const plan = planDesign({
    scenarios: scenarios ?? report?.scenarios.length ?? 0,
    trials: readInteger(values, "trials", 1) ?? (report ? firstTrialsOf(report) : DEFAULT_TRIALS),
    extraTrials: readInteger(values, "extra-trials", 0) ?? DEFAULT_EXTRA_TRIALS,
    baselineRuns: readInteger(values, "baseline-runs", 1) ?? DEFAULT_BASELINE_RUNS,
    ...(alpha !== undefined ? { alpha } : {}),
    ...(icc !== undefined ? { icc } : {}),
  });
  io.stdout.write(`${renderDesignPlan(plan)}\n`);
  // Dollars need a past run's costs: from REPORT.json's trials.
  if (report && positionals[0])
    io.stdout.write(`\n${renderCostPlan(planCost(report, plan), positionals[0])}\n`);
  return EXIT.ok;
}

export const planCommand: CliCommand = {
  name: "plan",
  args: "[REPORT.json] [--scenarios N] [--effect 0.1]",
  summary: "what a design can detect and costs per PR; with --effect, the trials a change needs",
  run: commandPlan,
};
