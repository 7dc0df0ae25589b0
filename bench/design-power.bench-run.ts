/**
 * The decision's design line: what the configured design could detect (one scenario collapsing
 * 0.9 → 0.1, and dropping 0.9 → 0.5), computed on every decision. Before: the test asked table by
 * table along the rejection region's boundary (tests/support/detection-power-by-tables.ts); after:
 * the region found once per design (src/stats/rejection-region.ts). Timed side by side, each in fresh
 * module instances (empty caches, as in a CLI process that makes one decision), interleaved rounds.
 */
import { expect, it, vi } from "vitest";
import type { PowerDesign } from "../src/stats/detection-power.js";
import { adaptiveHead, pooledBaseline, repeat, suiteOf } from "../tests/render/decision-fixtures.js";
import { writeBenchmarkSection } from "./benchmarks-file.js";

type PowerFunction = (design: PowerDesign, baseRate: number, headRate: number) => number;

const LEVEL = 0.025 / 20; // Holm's first step over 20 scenarios at the default alpha split
const runsOf = (runs: number, trials: number) => Array.from({ length: runs }, () => trials);

interface Row {
  name: string;
  design: PowerDesign;
  rounds: number;
}

const ROWS: Row[] = [];
for (const [baseline, runTrials] of [
  ["8 runs × 3", runsOf(8, 3)],
  ["1 run × 96", runsOf(1, 96)],
] as const) {
  for (const [headTrials, extraTrials] of [
    [3, 8],
    [10, 10],
  ] as const) {
    for (const icc of [0, 0.05]) {
      ROWS.push({
        name: `${baseline}, head ${headTrials} + ${extraTrials}, ICC ${icc}`,
        design: { runTrials, headTrials, extraTrials, icc, level: LEVEL },
        rounds: 3,
      });
    }
  }
}
// What decide() asks when a single saved 96-trial report leaves it inconclusive: "would 16 runs do?"
ROWS.push({
  name: "16 runs × 96, head 10 + 10, ICC 0 (an inconclusive decision's projection)",
  design: { runTrials: runsOf(16, 96), headTrials: 10, extraTrials: 10, icc: 0, level: LEVEL },
  rounds: 1,
});

async function freshPower(kind: "before" | "after"): Promise<PowerFunction> {
  vi.resetModules();
  if (kind === "before") {
    return (await import("../tests/support/detection-power-by-tables.js")).detectionPowerByTables;
  }
  return (await import("../src/stats/detection-power.js")).detectionPower;
}

/** The design line's two figures, timed. */
async function timeDesignLine(kind: "before" | "after", design: PowerDesign) {
  const power = await freshPower(kind);
  const started = performance.now();
  const collapse = power(design, 0.9, 0.1);
  const half = power(design, 0.9, 0.5);
  return { ms: performance.now() - started, collapse, half };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

const ms = (x: number) => `${x.toFixed(0)} ms`;

it("the design line's power: table by table vs the rejection region found once", async () => {
  const lines: string[] = [];
  for (const row of ROWS) {
    const times: Record<"before" | "after", number[]> = { before: [], after: [] };
    const figures: Record<"before" | "after", { collapse: number; half: number } | null> = {
      before: null,
      after: null,
    };
    for (let round = 0; round < row.rounds; round++) {
      const order = round % 2 === 0 ? (["before", "after"] as const) : (["after", "before"] as const);
      for (const kind of order) {
        const { ms: elapsed, collapse, half } = await timeDesignLine(kind, row.design);
        times[kind].push(elapsed);
        figures[kind] = { collapse, half };
      }
    }
    // The same figures, to the last bit (tests/stats/rejection-region.test.ts proves it on a grid).
    expect(figures.after).toEqual(figures.before);
    const before = median(times.before);
    const after = median(times.after);
    lines.push(
      `| ${row.name} | ${(figures.after!.collapse * 100).toFixed(1)}% | ${ms(before)} | ${ms(after)} | ${(before / after).toFixed(1)}× | ${times.before.map((t) => t.toFixed(0)).join(", ")} / ${times.after.map((t) => t.toFixed(0)).join(", ")} |`,
    );
  }

  // The whole decision, after: 20 scenarios against a pooled baseline of 8 runs × 3 (the action's
  // defaults), and against one saved report of 96 trials (inconclusive: it projects more base runs).
  vi.resetModules();
  const { decide } = await import("../src/compare/decision.js");
  const decisions: string[] = [];
  for (const [name, baseline, headTrials, extraTrials] of [
    ["pooled 8 runs × 3, head 3 + 8", pooledBaseline(20, 8, 3), 3, 8],
    ["one saved report of 96 trials, head 10 + 10", { report: suiteOf(repeat(20, 96, 96)) }, 10, 10],
  ] as const) {
    const head = adaptiveHead(repeat(20, headTrials, headTrials), headTrials);
    head.run.extra_trials = extraTrials;
    const started = performance.now();
    const decision = decide({
      head,
      baseline: baseline.report,
      ...("pooling" in baseline ? { pooling: baseline.pooling } : {}),
    });
    decisions.push(`| ${name} | ${decision.basis} | ${ms(performance.now() - started)} |`);
  }

  await writeBenchmarkSection(
    "design-power",
    [
      "## The decision's design line: its power, computed once per design",
      "",
      `bench/design-power.bench-run.ts, Node ${process.version}, ${new Date().toISOString().slice(0, 10)}:`,
      "the comment's second line states what the configured design could detect (one scenario of 20",
      "collapsing 0.9 → 0.1, and dropping 0.9 → 0.5, at Holm's first step, α_P = 0.025), on every",
      "decision. Before: the per-scenario test asked table by table along its rejection region's",
      "boundary, one exact p-value per baseline total (tests/support/detection-power-by-tables.ts);",
      "after: the region as a threshold on Fisher's statistic, found with two or three exact p-values",
      "and cached per design (src/stats/rejection-region.ts). Both figures, each in fresh module",
      "instances (empty caches, as in a process that makes one decision); medians of interleaved",
      "rounds; the two give the same figures to the last bit. The gain grows with the trial counts:",
      "at the defaults one cold exact p-value and the table order are most of what is left. Before",
      "calls today's Boschloo test, which no longer overflows beyond ~1,000 trials (the old search",
      "read its NaN there as flagged).",
      "",
      "| Design (base, head first + extra trials, ICC) | 0.9 → 0.1 caught | Before | After | Speed-up | Runs (ms) before / after |",
      "|---|---:|---:|---:|---:|---|",
      ...lines,
      "",
      "The whole `decide()` after (20 scenarios, no regression), in fresh module instances:",
      "",
      "| Baseline and head | Decision | Time |",
      "|---|---|---:|",
      ...decisions,
    ].join("\n"),
  );
});
