import { describe, expect, it } from "vitest";
import { compareReports } from "../../src/compare/compare.js";
import type { Comparison } from "../../src/compare/types.js";
import { renderComparisonMarkdown, renderComparisonTerminal } from "../../src/render/comparison-markdown.js";
import { createRng } from "../../src/stats/stats.js";
import { makeReport, makeScenarioReport, type TrialSpec, trialsFrom } from "../support/report-factory.js";
import { loadFixture } from "../support/report-fixtures.js";

const comparison = compareReports(loadFixture("base"), loadFixture("head"));

function headlineOf(markdown: string): string {
  return markdown.split("\n\n")[0]!;
}

/** A large suite: 600 scenarios, a few of them broken, so the comment must be cut to fit. */
function buildLargeComparison(): Comparison {
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
  return compareReports(run(false), run(true), { bootstrapResamples: 200, permutationResamples: 500 });
}

describe("renderComparisonMarkdown", () => {
  it("matches the snapshot for the fixture reports", async () => {
    await expect(renderComparisonMarkdown(comparison)).toMatchFileSnapshot(
      "__snapshots__/fixtures-comparison.md.snap",
    );
  });

  it("puts the headline first, newly failing next, then warnings, table, details and the legend", () => {
    const md = renderComparisonMarkdown(comparison);
    expect(md.startsWith("### 🔴 1 scenario regressed, 2 newly failing\n")).toBe(true);
    const order = [
      "**🔴 Newly failing (2):**",
      "> [!WARNING]",
      "| Scenario | Pass rate |",
      "<details><summary>Suite level",
      "<details><summary><code>create-note</code>",
      "<sub>🔴 regressed",
    ].map((s) => md.indexOf(s));
    for (const i of order) expect(i).toBeGreaterThan(0);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    // The regressed scenario's row shows counts, the mark, the delta and its interval.
    expect(md).toContain("| `create-note`<br>newly failing | 10/10 → 0/10<br>🔴 −100 pts [−100, −61] pts |");
    expect(md).toContain("`single-shot` (1 trial each: may be noise)");
    expect(md).toContain("renamed from `tag-notes`");
    expect(md).toContain("⚠️ content changed");
    expect(md).toMatch(
      /Suite pass rate \(mean over 8 scenarios\): 95% → 75% \(−20 pts, 95% CI \[−\d+, \+\d+\] pts\) ❔ inconclusive\./,
    );
    expect(md).toContain("<details><summary>");
    expect(md).not.toContain("<details open>");
    expect(renderComparisonMarkdown(comparison, { detailsOpen: true })).toContain("<details open><summary>");
  });

  it("respects maxChars by dropping detail, never the headline", () => {
    const full = renderComparisonMarkdown(comparison);
    const headline = headlineOf(full);
    for (const maxChars of [headline.length, 600, 1500, 3000, 6000, full.length - 1]) {
      const md = renderComparisonMarkdown(comparison, { maxChars });
      expect(md.length).toBeLessThanOrEqual(maxChars);
      expect(md.startsWith(headline)).toBe(true);
    }
    // With a moderate budget the table stays and the per-scenario details go first.
    const medium = renderComparisonMarkdown(comparison, { maxChars: 4000 });
    expect(medium).toContain("| `create-note`");
    expect(medium).toContain("**🔴 Newly failing (2):**");
    expect(medium.split("<details>").length).toBeLessThan(full.split("<details>").length);
    expect(renderComparisonMarkdown(comparison, { maxChars: full.length })).toBe(full);
  });

  it("keeps a large suite under GitHub's comment limit and says what it left out", () => {
    const big = buildLargeComparison();
    const md = renderComparisonMarkdown(big);
    expect(md.length).toBeLessThanOrEqual(60_000);
    expect(md).toMatch(/^### 🔴/);
    expect(md).toMatch(/_… and \d+ more scenarios; the full comparison is in the report artifact\._/);
    // The broken scenarios come first in the table.
    const firstRow = md.split("\n").find((l) => l.startsWith("| `scenario-with"))!;
    expect(firstRow).toContain("scenario-with-a-longish-name-00");
    const small = renderComparisonMarkdown(big, { maxChars: 2000 });
    expect(small.length).toBeLessThanOrEqual(2000);
    expect(headlineOf(small)).toBe(headlineOf(md));
  });

  it("says plainly when nothing changed", () => {
    const same = compareReports(loadFixture("base"), loadFixture("base"));
    const md = renderComparisonMarkdown(same);
    expect(md.startsWith("### ⚪ No significant changes\n")).toBe(true);
    expect(md).not.toContain("[!WARNING]");
    expect(md).not.toContain("Newly failing");
  });
});

describe("renderComparisonTerminal", () => {
  it("prints plain text with per-scenario intervals and no ANSI codes by default", () => {
    const text = renderComparisonTerminal(comparison);
    expect(text).not.toContain("\u001b[");
    expect(text).toContain("Comparison: 1 scenario regressed, 2 newly failing");
    expect(text).toContain("newly failing: create-note, single-shot");
    expect(text).toContain("renamed: tag-notes -> tag-notes-bulk");
    expect(text).toMatch(/create-note \(newly failing, 10\/10 -> 0\/10 passed\)/);
    expect(text).toMatch(
      / {2}pass_rate +100% -> 0% +-100 pts +\[-100, -61\] pts +p=<0\.001 adj=<0\.001 +regressed/,
    );
    expect(text).toContain("! The baseline used model");
  });

  it("colours verdicts only when asked", () => {
    const text = renderComparisonTerminal(comparison, { color: true });
    expect(text).toContain("\u001b[31m");
  });
});
