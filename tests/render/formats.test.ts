import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { compareReports } from "../../src/compare/compare.js";
import { decide } from "../../src/compare/decision.js";
import { renderComparisonMarkdown } from "../../src/render/comparison-markdown.js";
import { renderDecisionReason } from "../../src/render/decision.js";
import { OUTPUT_FORMATS } from "../../src/render/formats.js";
import { renderReportMarkdown } from "../../src/render/report-markdown.js";
import { writeReportFiles } from "../../src/run/write-outputs.js";
import { loadFixture } from "../support/report-fixtures.js";

describe("the output formats", () => {
  let dir: string | null = null;
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
    dir = null;
  });

  it("refuse to render a comparison format without a comparison", () => {
    expect(() => OUTPUT_FORMATS["comparison-md"].render({ report: loadFixture("head") })).toThrow(
      /comparison/,
    );
  });

  it("are what a run writes: every format with a file, the comparison's only when there is one", async () => {
    dir = await mkdtemp(path.join(tmpdir(), "ltt-formats-"));
    const report = loadFixture("head");
    await writeReportFiles(report, dir, (text) => text.replaceAll("claude-opus-4-1", "[model]"));
    // Which files each format writes: formats-contract.test.ts; here, what they hold.
    expect(await readFile(path.join(dir, "report.md"), "utf8")).toBe(
      renderReportMarkdown(report).replaceAll("claude-opus-4-1", "[model]"),
    );

    const comparison = compareReports(loadFixture("base"), report);
    await writeReportFiles(report, dir, (text) => text, { comparison });
    expect(await readFile(path.join(dir, "comparison.md"), "utf8")).toBe(
      renderComparisonMarkdown(comparison, null),
    );
    expect(JSON.parse(await readFile(path.join(dir, "comparison.json"), "utf8"))).toEqual(
      JSON.parse(JSON.stringify(comparison)),
    );
    expect(await readFile(path.join(dir, "report.html"), "utf8")).toContain('id="comparison"');

    // Given the base-branch runs one by one, the history page too.
    await writeReportFiles(report, dir, (text) => text, {
      comparison,
      baseRuns: [{ label: "run #7", report: loadFixture("base") }],
    });
    expect((await readdir(dir)).sort()).toContain("history.html");
    expect(await readFile(path.join(dir, "history.html"), "utf8")).toContain("run #7");
  });

  it("carry the decision: comparison.json as a top-level object with failed, regressed and reason, comparison.md on its first line", () => {
    const base = loadFixture("base");
    const head = loadFixture("head");
    const comparison = compareReports(base, head);
    const decision = decide({ head, baseline: base });
    const input = { report: head, comparison, decision };
    const json = JSON.parse(OUTPUT_FORMATS["comparison-json"].render(input));
    expect(json.decision).toMatchObject({ failed: true, regressed: ["create-note"], basis: "regression" });
    expect(json.decision.reason).toBe(renderDecisionReason(decision, { summary: head.summary }));
    expect(json.decision.reason).toMatch(/^Regression in create-note: 10\/10 → 0\/10/);
    expect(json.scenarios).toEqual(JSON.parse(JSON.stringify(comparison.scenarios)));
    // Without a decision, the comparison alone, as before.
    expect(
      JSON.parse(OUTPUT_FORMATS["comparison-json"].render({ report: head, comparison })).decision,
    ).toBeUndefined();

    const md = OUTPUT_FORMATS["comparison-md"].render(input);
    expect(md).toBe(renderComparisonMarkdown(comparison, decision));
    expect(md.split("\n")[0]).toMatch(/^### 🔴 Regression in `create-note`/u);
    expect(OUTPUT_FORMATS.md.render(input).split("\n")[0]).toMatch(/^# 🔴 Regression in `create-note`/u);
    expect(OUTPUT_FORMATS.terminal.render(input).split("\n")[0]).toBe(json.decision.reason);
    expect(OUTPUT_FORMATS.html.render(input)).toMatch(/<h1>🔴 Regression in <code>create-note<\/code>/u);
  });
});
