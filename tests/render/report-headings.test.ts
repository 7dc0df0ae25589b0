import { describe, expect, it } from "vitest";
import { renderDecisionHeadline, renderDecisionReason } from "../../src/render/decision.js";
import { escapeHtml } from "../../src/render/escape.js";
import { renderReportHtml } from "../../src/render/html.js";
import { renderReportMarkdown } from "../../src/render/report-markdown.js";
import { renderTerminalSummary } from "../../src/render/terminal.js";
import { decideAndCompare, repeat, suiteOf } from "./decision-fixtures.js";

const baseline = suiteOf(repeat(10, 12, 12));
const collapsedCounts = repeat(10, 3, 3);
collapsedCounts[4] = [0, 9];
const collapsed = suiteOf(collapsedCounts);
const regression = decideAndCompare(collapsed, baseline).decision;

const incomplete = suiteOf(repeat(10, 3, 3), undefined, { incomplete: true });
const incompleteDecision = decideAndCompare(incomplete, baseline).decision;

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
    expect(h1(alone)).toBe(`llm-tool-test report <span class="badge error">incomplete</span>`);
    expect(alone).toContain("<title>llm-tool-test report · incomplete (pass)");
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

  it("shows control characters in names as symbols, never as terminal escapes", () => {
    const hostile = suiteOf([[3, 3]], ["evil\u001b[2Jname"]);
    const text = renderTerminalSummary(hostile);
    expect(text).not.toContain("\u001b");
    expect(text).toContain("evil␛[2Jname");
  });
});
