/**
 * Issue 14's evidence: the regression decision at the defaults, simulated (seeded; about a minute).
 * Prints the false-failure and power tables, with head trials spent per PR.
 */
import { afterAll, expect, it } from "vitest";
import { formatDecisionSimulation, runDecisionSimulation } from "../src/stats/decision-simulation.js";
import { writeBenchmarkSection } from "./benchmarks-file.js";

const sections: string[] = [];

afterAll(async () => {
  await writeBenchmarkSection(
    "decision",
    [
      "## The regression decision (seeded simulation)",
      "",
      "bench/decision-simulation.bench-run.ts: 1,000 simulated PRs a cell through the project's own decision",
      "procedure (src/stats/regression-decision.ts); docs/statistics.md explains the design. The action's",
      "default pools 8 base-branch runs (24 baseline trials a scenario); the 12-trial tables show why.",
      "",
      ...sections,
    ].join("\n"),
  );
});

// The defaults of issue 14 (a baseline of 4 runs × 3 trials), then a baseline of 8 runs.
it.each([12, 24])(
  "regression decision: false failures and power, %i baseline trials per scenario",
  (baseTrials) => {
    const tables = runDecisionSimulation({ runs: 1000, baseTrials });
    const text = formatDecisionSimulation(tables);
    process.stdout.write(`\n${text}\n`);
    const cells = [...tables.falseFailures, ...tables.power];
    // The adaptive design may only drop flags of the fixed design that ran every extra trial.
    expect(cells.every((c) => c.adaptiveOnlyFlags === 0)).toBe(true);
    const worst = Math.max(...tables.falseFailures.map((c) => c.failedRate));
    const collapse = tables.power.find((c) => c.label.includes("0.9 → 0.1"))!;
    const broad = tables.power.find((c) => c.label.includes("all 20: 0.9 → 0.8"))!;
    const verdicts: string[] = [];
    const line = (ok: boolean, said: string) => {
      verdicts.push(`- ${ok ? "met" : "MISSED"}: ${said}`);
      process.stdout.write(`${ok ? "ok  " : "MISS"} ${said}\n`);
    };
    line(worst <= 0.05, `worst false-failure rate ${(100 * worst).toFixed(1)}% (target ≤ 5%)`);
    line(
      collapse.failedRate >= 0.9 && collapse.headTrialsPerPr <= 100,
      `one of 20 collapsing 0.9 → 0.1 caught ${(100 * collapse.failedRate).toFixed(1)}% for ` +
        `${collapse.headTrialsPerPr.toFixed(1)} head trials per PR (target ≥ 90% for ≤ 100)`,
    );
    line(
      broad.failedRate >= 0.5,
      `every scenario −10 points caught ${(100 * broad.failedRate).toFixed(1)}% (target ≥ 50%)`,
    );
    sections.push(`### ${baseTrials} baseline trials per scenario`, "", text, "", ...verdicts, "");
  },
);
