import { describe, expect, it } from "vitest";
import { renderDecisionHeadline, renderDecisionReason } from "../../src/render/decision.js";
import { escapeHtml } from "../../src/render/escape.js";
import { renderReportHtml } from "../../src/render/html.js";
import { renderJobSummary } from "../../src/render/job-summary.js";
import { type CommentInput, renderComment } from "../../src/render/pr-comment.js";
import { renderReportMarkdown } from "../../src/render/report-markdown.js";
import { renderTerminalSummary } from "../../src/render/terminal.js";
import { adaptiveHead, decideAndCompare, pooledBaseline, repeat, suiteOf } from "./decision-fixtures.js";

const baseline = suiteOf(repeat(10, 12, 12));
const collapsedCounts = repeat(10, 3, 3);
collapsedCounts[4] = [0, 9];
const collapsed = suiteOf(collapsedCounts);
const regression = decideAndCompare(collapsed, baseline).decision;

// Eight base runs and the adaptive design: a run that could have seen a regression, cut short.
const incomplete = adaptiveHead(repeat(10, 3, 3));
incomplete.run.incomplete = true;
const eightRuns = pooledBaseline(10, 8);
const incompleteDecision = decideAndCompare(incomplete, eightRuns.report, {
  pooling: eightRuns.pooling,
  extraTrials: 8,
}).decision;

function h1(html: string): string {
  return /<h1>([\s\S]*?)<\/h1>/.exec(html)?.[1] ?? "";
}

describe("report.md", () => {
  it("leads with the decision when given one", () => {
    const md = renderReportMarkdown(collapsed, { decision: regression });
    const [first, , design] = md.split("\n");
    expect(first).toBe(`# ${renderDecisionHeadline(regression, { summary: collapsed.summary })}`);
    expect(first).toMatch(/^# 🔴 Regression in `s4`/u);
    expect(design).toMatch(/^10 scenarios × 3 trials against 1 baseline run/);
  });

  it("says INCOMPLETE for an incomplete run, with or without a decision, never PASS", () => {
    const withDecision = renderReportMarkdown(incomplete, { decision: incompleteDecision });
    expect(withDecision.split("\n")[0]).toMatch(/^# ⚠️ INCOMPLETE — No regression detected/u);
    const alone = renderReportMarkdown(incomplete);
    expect(alone.split("\n")[0]).toBe("# llm-tool-test report ⚠️ INCOMPLETE");
    expect(alone).not.toMatch(/PASS/);
    const failing = suiteOf([[1, 3]], undefined, { incomplete: true });
    expect(renderReportMarkdown(failing).split("\n")[0]).toBe(
      "# llm-tool-test report ⚠️ INCOMPLETE · ❌ FAIL",
    );
    expect(renderReportMarkdown(baseline).split("\n")[0]).toBe("# llm-tool-test report ✅ PASS");
  });
});

describe("report.html", () => {
  it("leads with the decision when given one, names escaped", () => {
    const html = renderReportHtml({ report: collapsed, decision: regression });
    expect(h1(html)).toMatch(/^🔴 Regression in <code>s4<\/code>: 12\/12 → 0\/9/u);
    expect(html).toContain(
      `<title>llm-tool-test report · ${escapeHtml(renderDecisionReason(regression, { summary: collapsed.summary }))}`,
    );
    expect(html).toMatch(/<div class="label">Against baseline<\/div><div class="value">regression<\/div>/);
  });

  it("says incomplete for an incomplete run, never a plain pass", () => {
    const alone = renderReportHtml({ report: incomplete });
    expect(h1(alone)).toBe(`llm-tool-test report <span class="badge error">INCOMPLETE</span>`);
    expect(alone).toContain("<title>llm-tool-test report · INCOMPLETE (pass)");
    const decided = renderReportHtml({ report: incomplete, decision: incompleteDecision });
    expect(h1(decided)).toMatch(/^⚠️ INCOMPLETE — No regression detected/u);
  });
});

describe("the terminal summary", () => {
  it("leads with the decision in words and leaves the run's line without a verdict", () => {
    const text = renderTerminalSummary(collapsed, { decision: regression });
    const lines = text.split("\n");
    expect(lines[0]).toBe(renderDecisionReason(regression, { summary: collapsed.summary }));
    expect(lines[0]).toMatch(/^Regression in s4: 12\/12 → 0\/9/);
    expect(lines.at(-1)).toMatch(/^Run: {2}27\/36 trials passed/);
    expect(text).not.toMatch(/PASSED|FAILED/);
    expect(renderTerminalSummary(collapsed, { decision: regression, color: true })).toMatch(
      /^\u001b\[31mRegression/,
    );
  });

  it("says INCOMPLETE for an incomplete run, never PASSED", () => {
    expect(renderTerminalSummary(incomplete).split("\n").at(-1)).toMatch(
      /^INCOMPLETE {2}30\/30 trials passed/,
    );
    expect(renderTerminalSummary(incomplete, { decision: incompleteDecision }).split("\n")[0]).toMatch(
      /^INCOMPLETE: No regression detected/,
    );
    expect(renderTerminalSummary(incomplete)).not.toContain("PASSED");
  });

  it("paints inconclusive yellow, never green", () => {
    const unsure = decideAndCompare(suiteOf(repeat(10, 3, 3)), suiteOf(repeat(10, 3, 3))).decision;
    expect(unsure.basis).toBe("inconclusive");
    const text = renderTerminalSummary(suiteOf(repeat(10, 3, 3)), { decision: unsure, color: true });
    expect(text).toMatch(/^\u001b\[33mInconclusive: no regression seen, but /);
    expect(text).not.toContain("\u001b[32mInconclusive");
  });

  it("shows control characters in names as symbols, never as terminal escapes", () => {
    const hostile = suiteOf([[3, 3]], ["evil\u001b[2Jname"]);
    const text = renderTerminalSummary(hostile);
    expect(text).not.toContain("\u001b");
    expect(text).toContain("evil␛[2Jname");
  });
});

describe("an incomplete run in every rendering", () => {
  // A run that passed every trial it ran, then was cut: no rendering may call it a pass.
  const cut = suiteOf([[3, 3]], ["only"], { incomplete: true });
  const cases = [
    ["without a baseline", decideAndCompare(cut, null)],
    ["against a baseline", decideAndCompare(cut, suiteOf([[3, 3]], ["only"]))],
  ] as const;
  const commentInput = (
    decision: (typeof cases)[number][1]["decision"],
    comparison: (typeof cases)[number][1]["comparison"],
  ): CommentInput => ({
    key: "llm-tool-test",
    report: cut,
    decision,
    comparison,
    baseline: comparison ? { status: "disabled" } : { status: "missing", reason: "no run yet" },
    runUrl: null,
    artifactUrl: null,
    headSha: null,
    now: Date.parse("2025-01-02T00:00:00.000Z"),
  });

  it("the terminal's verdict line says INCOMPLETE", () => {
    expect(renderTerminalSummary(cut).split("\n").at(-1)).toMatch(/^INCOMPLETE /);
    for (const [, { decision }] of cases) {
      expect(renderTerminalSummary(cut, { decision }).split("\n")[0]).toMatch(/^INCOMPLETE: /);
    }
  });

  it("report.md's heading says INCOMPLETE", () => {
    expect(renderReportMarkdown(cut).split("\n")[0]).toBe("# llm-tool-test report ⚠️ INCOMPLETE");
    for (const [, { decision }] of cases) {
      expect(renderReportMarkdown(cut, { decision }).split("\n")[0]).toMatch(/^# ⚠️ INCOMPLETE — /u);
    }
  });

  it("report.html's heading and title say INCOMPLETE", () => {
    const alone = renderReportHtml({ report: cut });
    expect(h1(alone)).toContain("INCOMPLETE");
    expect(alone).toMatch(/<title>llm-tool-test report · INCOMPLETE/);
    for (const [, { decision }] of cases) {
      const html = renderReportHtml({ report: cut, decision });
      expect(h1(html)).toMatch(/^⚠️ INCOMPLETE — /u);
      expect(html).toMatch(/<title>llm-tool-test report · INCOMPLETE: /);
    }
  });

  it("the job summary's and the comment's headline say INCOMPLETE", () => {
    for (const [, { decision, comparison }] of cases) {
      const summary = renderJobSummary(commentInput(decision, comparison));
      expect(summary.split("\n")[0]).toMatch(/^## ⚠️ INCOMPLETE — /u);
      const comment = renderComment(commentInput(decision, comparison));
      expect(comment.split("\n")[1]).toMatch(/^## ⚠️ INCOMPLETE — /u);
      expect(comment).toContain("This run is **incomplete**");
    }
  });
});
