import { describe, expect, it } from "vitest";
import { compareReports } from "../../src/compare/compare.js";
import { decide } from "../../src/compare/decision.js";
import type { Comparison } from "../../src/compare/types.js";
import { renderComparisonMarkdown, renderComparisonTerminal } from "../../src/render/comparison-markdown.js";
import { markdownCode } from "../../src/render/escape.js";
import { createRng } from "../../src/stats/stats.js";
import { makeReport, makeScenarioReport, type TrialSpec, trialsFrom } from "../support/report-factory.js";
import { loadFixture } from "../support/report-fixtures.js";
import {
  adaptiveHead,
  decideAndCompare,
  pooledBaseline,
  repeat,
  scenarioWith,
  suiteOf,
} from "./decision-fixtures.js";

/** Eight base-branch runs of 3 trials, every scenario passing all: a design that can conclude. */
const EIGHT_RUNS = pooledBaseline(30, 8);
const CONCLUSIVE = { pooling: EIGHT_RUNS.pooling, extraTrials: 8 };

const base = loadFixture("base");
const head = loadFixture("head");
const comparison = compareReports(base, head);
const decision = decide({ head, baseline: base });

function firstLine(markdown: string): string {
  return markdown.split("\n")[0]!;
}

/** A large suite: 600 scenarios, a few of them broken, so the comment must be cut to fit. */
function buildLargeRuns() {
  const rng = createRng(11);
  const run = (broken: boolean) =>
    makeReport(
      Array.from({ length: 600 }, (_, i) =>
        makeScenarioReport({
          id: `scenario-with-a-longish-name-${String(i).padStart(3, "0")}`,
          trials: trialsFrom(
            Array.from(
              { length: 4 },
              (): TrialSpec => ({
                outcome: broken && i < 5 ? "fail" : rng() < 0.9 ? "pass" : "fail",
                total_commands: 3 + Math.floor(rng() * 4),
              }),
            ),
          ),
        }),
      ),
    );
  return { base: run(false), head: run(true) };
}

describe("renderComparisonMarkdown", () => {
  it("matches the snapshot for the fixture reports", async () => {
    await expect(renderComparisonMarkdown(comparison, decision)).toMatchFileSnapshot(
      "__snapshots__/fixtures-comparison.md.snap",
    );
  });

  it("states the decision on its first line, then what the run could detect", () => {
    const md = renderComparisonMarkdown(comparison, decision);
    expect(decision.regressed).toEqual(["create-note"]);
    expect(firstLine(md)).toMatch(
      /^### 🔴 Regression in `create-note`: 10\/10 → 0\/10 \(adjusted p [<=] 0\.\d+\)/u,
    );
    expect(md.split("\n")[1]).toMatch(/^9 scenarios × 5 trials against 1 baseline run/);
  });

  it("shows the suite's metrics, then only the scenarios that moved, the rest in one line", () => {
    const md = renderComparisonMarkdown(comparison, decision);
    const order = [
      "Not compared, no verdict (head results shown): changed since the base runs (1): `list-notes` 5/5; not in the base runs (2): `tag-notes-bulk` 3/3, `import` 3/3.",
      "> [!WARNING]",
      "| Suite (8 scenarios) | Base → head | Change (95% CI) |",
      "| Scenario | Passed (base → head) | Adjusted p | Notes |",
      "5 other scenarios without a clear change (a scenario is listed when its pass counts differ by Fisher's exact test at p ≤ 0.05, two-sided and unadjusted).",
      "<details><summary><code>create-note</code>",
      "<sub>Pass/fail:",
    ].map((s) => md.indexOf(s));
    for (const i of order) expect(i).toBeGreaterThan(0);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(md).toMatch(/\| `create-note` \| 10\/10 → 0\/10 \| [<\d.]+ \| 🔴 regressed · newly failing \|/);
    // 3/5 → 5/5 is noise by the bar (Fisher p = 0.44): no row, and no "now passing" anywhere.
    expect(md).not.toContain("| `link-notes` |");
    expect(md).not.toContain("now passing");
    expect(md).toContain("Renamed (1): `tag-notes` → `tag-notes-bulk`.");
    // Unchanged scenarios get no row, and the comparison's own verdicts are not shown.
    expect(md).not.toContain("| `search@agents-v1` |");
    expect(md).not.toMatch(/[❔➖🟢]|inconclusive|too few samples/u);
    // The decision's marks only: the headline, the regressed scenario's row and its details.
    expect(md.match(/🔴/gu)?.length).toBe(3);
  });

  it("marks a gate metric with the decision's verdict, and no other metric", () => {
    const baseline = makeReport([
      scenarioWith("noisy", 12, 12, { total_commands: 10, error_count: 0 }),
      scenarioWith("quiet", 12, 12),
    ]);
    const worse = makeReport([
      scenarioWith("noisy", 9, 9, { total_commands: 10, error_count: 8 }),
      scenarioWith("quiet", 3, 3),
    ]);
    const { decision: gated, comparison: c } = decideAndCompare(worse, baseline, {
      gateMetrics: ["error_rate"],
    });
    const md = renderComparisonMarkdown(c!, gated);
    expect(firstLine(md)).toMatch(/^### 🔴 Regression in `error_rate` of `noisy`/u);
    expect(md).toContain("| Suite (2 scenarios) | Base → head | Change (95% CI) | Gate |");
    expect(md).toMatch(/\| error rate \| 0% → 40% \| [^|]+ \| 🔴 regressed in `noisy` \|/);
    expect(md).toMatch(/\| `noisy` \| 12\/12 → 9\/9 \| [^|]+ \| 🔴 `error_rate` regressed \|/);
    // In the scenario's details the gate metric shows the decision's adjusted p, not an interval.
    expect(md).toMatch(/\| error rate \| 0% \| 80% \| \+80 pts, adjusted p [<=] [\d.]+ 🔴 regressed \|/);
  });

  it("says plainly when nothing regressed, with no scenario rows", () => {
    const { decision: same, comparison: c } = decideAndCompare(
      adaptiveHead(repeat(30, 3, 3)),
      EIGHT_RUNS.report,
      CONCLUSIVE,
    );
    const md = renderComparisonMarkdown(c!, same);
    expect(firstLine(md)).toMatch(
      /^### ✅ No regression detected — could see a 90% → 10% collapse in one scenario \(~\d+%\), not a 10-point drop across the suite \(~\d+%\)$/u,
    );
    expect(md).toContain("All 30 scenarios without a clear change (a scenario is listed when");
    expect(md).not.toContain("| Scenario |");
    expect(md).not.toContain("[!WARNING]");
  });

  it("says inconclusive, never ✅, and still shows the tests' p-values", () => {
    const head = suiteOf(repeat(10, 3, 3));
    head.scenarios[0] = scenarioWith("s0", 1, 3);
    const { decision: unsure, comparison: c } = decideAndCompare(head, suiteOf(repeat(10, 12, 12)));
    expect(unsure.basis).toBe("inconclusive");
    const md = renderComparisonMarkdown(c!, unsure);
    expect(firstLine(md)).toMatch(/^### 🟡 Inconclusive: no regression seen, but only 1 base-branch run/u);
    expect(md).not.toContain("✅");
    expect(md).toContain("| Scenario | Passed (base → head) | Adjusted p | Notes |");
    expect(md).toMatch(/\| `s0` \| 12\/12 → 1\/3 \| 0\.\d{3} \| no clear change · became flaky \|/);
  });

  it("lists as moved only changes past the stated bar, and labels only those (issue 24: 25 of 30 on noise)", () => {
    // Nothing changed: 22/24 → 3/3 would read "now passing", 24/24 → 2/3 "became flaky".
    const base = pooledBaseline(30, 8, 3, (i, r) => (i < 10 && r < 2 ? 2 : 3));
    const counts = repeat(30, 3, 3);
    counts[12] = [2, 3];
    counts[13] = [2, 3];
    const { decision: same, comparison: c } = decideAndCompare(adaptiveHead(counts), base.report, {
      pooling: base.pooling,
      extraTrials: 8,
    });
    expect(same.failed).toBe(false);
    const md = renderComparisonMarkdown(c!, same);
    expect(md).not.toContain("| Scenario |");
    expect(md).not.toMatch(/now passing|became flaky/);
    expect(md).toContain(
      "All 30 scenarios without a clear change (a scenario is listed when its pass counts differ by Fisher's exact test at p ≤ 0.05, two-sided and unadjusted).",
    );
    // A real move either way is listed and labelled: 24/24 → 0/3, and 5/24 → 3/3.
    const moved = repeat(30, 3, 3);
    moved[0] = [0, 3];
    const movedBase = pooledBaseline(30, 8, 3, (i, r) => (i === 1 ? (r < 5 ? 1 : 0) : 3));
    const result = decideAndCompare(adaptiveHead(moved), movedBase.report, {
      pooling: movedBase.pooling,
      extraTrials: 8,
    });
    const rows = renderComparisonMarkdown(result.comparison!, result.decision)
      .split("\n")
      .filter((line) => line.startsWith("| `"));
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatch(/^\| `s0` \| 24\/24 → 0\/3 \| [^|]+ \| [^|]*newly failing/);
    expect(rows[1]).toMatch(/^\| `s1` \| 5\/24 → 3\/3 \| [^|]+ \| no clear change · now passing \|$/);
  });

  it("prints a p-value that never contradicts the verdict (issue 24: 'adjusted p = 0.050' for 0.0504)", () => {
    const { decision: d, comparison: c } = decideAndCompare(
      suiteOf([[0, 3], ...repeat(9, 3, 3)]),
      suiteOf(repeat(10, 24, 24)),
    );
    const s0 = d.scenarios.find((s) => s.key === "s0")!;
    for (const [p, shown] of [
      [0.0504, "0.0504"],
      [0.050004, "0.050004"],
      [0.0500000001, "> 0.05"],
    ] as const) {
      const near = {
        ...d,
        failed: false,
        basis: "no_regression" as const,
        regressed: [],
        suite_regressed: false,
        scenarios: d.scenarios.map((s) => (s === s0 ? { ...s, adjusted_p: p, regressed: false } : s)),
      };
      const md = renderComparisonMarkdown(c!, near);
      expect(md).toContain(`| \`s0\` | 24/24 → 0/3 | ${shown} | newly failing |`);
      expect(md).toContain(
        `| pass rate | 24/24 | 0/3 | adjusted p ${shown.startsWith(">") ? shown : `= ${shown}`} |`,
      );
      expect(md).not.toMatch(/adjusted p = 0\.050?\b(?!\d)/);
    }
  });

  it("without a decision, describes and says that nothing was decided", () => {
    const md = renderComparisonMarkdown(comparison, null);
    expect(firstLine(md)).toBe("### Compared: 8 scenarios (described; no pass/fail decision)");
    expect(md).not.toContain("🔴");
    expect(md).not.toContain("Adjusted p");
  });

  it("respects maxChars by dropping detail, never the decision", () => {
    const full = renderComparisonMarkdown(comparison, decision);
    const title = full.split("\n\n")[0]!;
    for (const maxChars of [title.length, 600, 1500, 3000, 6000, full.length - 1]) {
      const md = renderComparisonMarkdown(comparison, decision, { maxChars });
      expect(md.length).toBeLessThanOrEqual(maxChars);
      expect(md.startsWith(title)).toBe(true);
    }
    const medium = renderComparisonMarkdown(comparison, decision, { maxChars: 4000 });
    expect(medium).toContain("| `create-note` |");
    expect(medium.split("<details>").length).toBeLessThan(full.split("<details>").length);
    expect(renderComparisonMarkdown(comparison, decision, { maxChars: full.length })).toBe(full);
  });

  it("keeps a large suite under GitHub's comment limit and names every regressed scenario first", () => {
    const runs = buildLargeRuns();
    const big = compareReports(runs.base, runs.head, { bootstrapResamples: 200, permutationResamples: 500 });
    const bigDecision = decide({ head: runs.head, baseline: runs.base });
    const md = renderComparisonMarkdown(big, bigDecision);
    expect(md.length).toBeLessThanOrEqual(60_000);
    for (const key of bigDecision.regressed) expect(firstLine(md)).toContain(markdownCode(key));
    expect(firstLine(md)).toMatch(/^### (🔴|✅|🟡)/u);
    const small = renderComparisonMarkdown(big, bigDecision, { maxChars: 2000 });
    expect(small.length).toBeLessThanOrEqual(2000);
    expect(firstLine(small)).toBe(firstLine(md));
  });

  it("keeps agent-controlled scenario names inert in rows and details", () => {
    const names = ["a`b|c", "</details><!-- x", "@octocat"];
    const h = makeReport(names.map((id) => scenarioWith(id, 0, 9)));
    const b = makeReport(names.map((id) => scenarioWith(id, 12, 12)));
    const { decision: d, comparison: c } = decideAndCompare(h, b);
    const md = renderComparisonMarkdown(c!, d);
    expect(md).toContain("| `` a`b\\|c `` | 12/12 → 0/9 |");
    // Inside code spans too, a zero-width space keeps the source free of the name's own tags and mentions.
    expect(md).toContain("| `<\u200B/details><\u200B!-- x` | 12/12 → 0/9 |");
    expect(md).toContain("| `@\u200Boctocat` | 12/12 → 0/9 |");
    expect(md).toContain("<summary><code>&lt;/details&gt;&lt;!-- x</code>");
    // Every </details> and <!-- in the source is our own.
    expect(md.match(/<\/details>/g)?.length).toBe(md.match(/<details>/g)?.length);
    expect(md).not.toContain("<!--");
    expect(md).not.toContain("@octocat");
  });
});

describe("renderComparisonTerminal", () => {
  it("prints the decision first, then the suite and the scenarios that moved, without ANSI codes by default", () => {
    const text = renderComparisonTerminal(comparison, decision);
    expect(text).not.toContain("\u001b[");
    expect(firstLine(text)).toMatch(
      /^Decision: Regression in create-note: 10\/10 → 0\/10 \(adjusted p [<=] 0\.\d+\)/,
    );
    expect(text).toMatch(/ {2}error rate +3\.6% -> 10% +\+6\.5 pts +\[-\d+(\.\d)?, \+\d+\] pts/);
    expect(text).toMatch(
      / {2}create-note +10\/10 -> 0\/10 +adjusted p [<=] 0\.\d+ +regressed, newly failing/,
    );
    expect(text).toContain("5 other scenarios without a clear change (a scenario is listed when");
    expect(text).toContain(
      "  Not compared, no verdict (head results shown): changed since the base runs (1): list-notes 5/5; not in the base runs (2): tag-notes-bulk 3/3, import 3/3.",
    );
    expect(text).not.toContain("added: import");
    expect(text).toContain("renamed: tag-notes -> tag-notes-bulk");
    expect(text).toContain("! The baseline used model");
    expect(text).not.toMatch(/inconclusive|improved/);
  });

  it("colours the decision only when asked", () => {
    expect(renderComparisonTerminal(comparison, decision, { color: true })).toContain("\u001b[31m");
    const same = decideAndCompare(adaptiveHead(repeat(30, 3, 3)), EIGHT_RUNS.report, CONCLUSIVE);
    expect(renderComparisonTerminal(same.comparison as Comparison, same.decision, { color: true })).toMatch(
      /^\u001b\[32mDecision: No regression detected — could see /,
    );
    // Inconclusive is not a pass: yellow, never green.
    const unsure = decideAndCompare(suiteOf(repeat(3, 3, 3)), suiteOf(repeat(3, 3, 3)));
    expect(unsure.decision.basis).toBe("inconclusive");
    expect(
      renderComparisonTerminal(unsure.comparison as Comparison, unsure.decision, { color: true }),
    ).toMatch(/^\u001b\[33mDecision: Inconclusive: no regression seen, but /);
  });
});
