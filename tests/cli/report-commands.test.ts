import { mkdtemp, readFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { EXIT } from "../../src/cli/main.js";
import { compareReports } from "../../src/compare/compare.js";
import { planTrialsNeeded, renderTrialPlan } from "../../src/compare/planning.js";
import type { Comparison } from "../../src/compare/types.js";
import { renderComparisonTerminal } from "../../src/render/comparison-markdown.js";
import { renderJunitXml } from "../../src/render/junit.js";
import { renderReportMarkdown } from "../../src/render/report-markdown.js";
import { readReportFile } from "../../src/results/read-report.js";
import { BASE_REPORT, HEAD_REPORT, runMain } from "./run-main.js";

describe("report", () => {
  it("re-renders a saved report in the chosen format, to stdout or a file", async () => {
    const head = await readReportFile(HEAD_REPORT);
    expect((await runMain(["report", HEAD_REPORT])).stdout).toBe(renderReportMarkdown(head));
    expect((await runMain(["report", HEAD_REPORT, "-f", "junit"])).stdout).toBe(renderJunitXml(head));
    expect(JSON.parse((await runMain(["report", HEAD_REPORT, "--format", "json"])).stdout)).toEqual(head);
    const out = path.join(await mkdtemp(path.join(os.tmpdir(), "ltt-report-")), "deep/report.md");
    const written = await runMain(["report", HEAD_REPORT, "--out", out]);
    expect(written).toEqual({ code: EXIT.ok, stdout: "", stderr: "" });
    expect(await readFile(out, "utf8")).toBe(renderReportMarkdown(head));
  });

  it("refuses an unknown format, naming the formats", async () => {
    const result = await runMain(["report", HEAD_REPORT, "--format", "htm"]);
    expect(result.code).toBe(EXIT.usage);
    expect(result.stderr).toBe(
      'llm-tool-test: --format must be one of json, md, junit, html, terminal, comparison-json, comparison-md; got "htm" (did you mean html?)\n',
    );
  });

  it("renders the comparison formats from the same registry, and asks for --baseline when it is missing", async () => {
    const missing = await runMain(["report", HEAD_REPORT, "--format", "comparison-md"]);
    expect(missing.code).toBe(EXIT.usage);
    expect(missing.stderr).toContain(
      "--format: comparison-md compares with a baseline: add --baseline BASE.json",
    );
    const compared = await runMain([
      "report",
      HEAD_REPORT,
      "--format",
      "comparison-json",
      "--baseline",
      HEAD_REPORT,
    ]);
    expect(compared.code).toBe(EXIT.ok);
    expect(JSON.parse(compared.stdout).scenarios.length).toBeGreaterThan(0);
  });
});

describe("compare", () => {
  it("renders the comparison of two saved reports as Markdown, JSON or text", async () => {
    const md = await runMain(["compare", BASE_REPORT, HEAD_REPORT, "--format", "md"]);
    expect(md.code).toBe(EXIT.ok);
    expect(md.stdout).toContain("Newly failing");
    const json = await runMain(["compare", BASE_REPORT, HEAD_REPORT, "--format", "json"]);
    const comparison = JSON.parse(json.stdout) as Comparison;
    expect(comparison.added.length + comparison.removed.length).toBeGreaterThan(0);
    expect(comparison.warnings.some((w) => /model/i.test(JSON.stringify(w)))).toBe(true);
    const text = await runMain(["compare", BASE_REPORT, HEAD_REPORT]);
    expect(text.code).toBe(EXIT.ok);
    const [base, head] = await Promise.all([readReportFile(BASE_REPORT), readReportFile(HEAD_REPORT)]);
    expect(text.stdout).toBe(`${renderComparisonTerminal(compareReports(base, head))}\n`);
  });

  it("exits 2 when a report cannot be read", async () => {
    const missing = await runMain(["compare", BASE_REPORT, path.join(os.tmpdir(), "no-such-report.json")]);
    expect(missing.code).toBe(EXIT.usage);
    expect(missing.stderr).toContain("cannot read the report file");
  });
});

describe("plan", () => {
  it("says how many trials a given effect needs", async () => {
    const result = await runMain(["plan", HEAD_REPORT, "--effect", "0.2", "--metric", "pass_rate"]);
    expect(result.code).toBe(EXIT.ok);
    const plan = planTrialsNeeded(await readReportFile(HEAD_REPORT), { effect: 0.2, metric: "pass_rate" });
    expect(plan.suite.trials_per_scenario).toBeGreaterThan(1);
    expect(result.stdout).toBe(`${renderTrialPlan(plan)}\n`);
    expect(result.stdout).toContain(`≈ ${plan.suite.trials_per_scenario} trials per scenario`);
  });

  it("needs --effect", async () => {
    const result = await runMain(["plan", HEAD_REPORT]);
    expect(result.code).toBe(EXIT.usage);
    expect(result.stdout).toMatch(/^Usage: llm-tool-test plan REPORT\.json --effect/);
  });
});

describe("merge", () => {
  it("refuses a report that is not a shard of the others", async () => {
    const out = await mkdtemp(path.join(os.tmpdir(), "ltt-merge-"));
    const result = await runMain(["merge", HEAD_REPORT, HEAD_REPORT, "--out", out]);
    expect(result.code).toBe(EXIT.usage);
    expect(result.stderr).toMatch(/^llm-tool-test: /);
  });
});
