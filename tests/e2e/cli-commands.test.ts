import { mkdtemp, readFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { compareReports } from "../../src/compare/compare.js";
import { planTrialsNeeded, renderTrialPlan } from "../../src/compare/planning.js";
import type { Comparison } from "../../src/compare/types.js";
import { renderComparisonTerminal } from "../../src/render/comparison-markdown.js";
import { readReportFile } from "../../src/results/read-report.js";
import type { Report } from "../../src/results/types.js";
import { reportSchemaErrors } from "../support/report-schema.js";
import { ROOT, runCli } from "../support/run-cli.js";

const SUITE = path.join(ROOT, "tests/fixtures/e2e/suite");
const BASE = path.join(ROOT, "tests/fixtures/reports/base.json");
const HEAD = path.join(ROOT, "tests/fixtures/reports/head.json");

describe("the CLI's other commands, as users run them", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "ltt-commands-"));
  });

  it("list prints the scenarios, also as JSON", async () => {
    const text = await runCli(["list", SUITE]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^count_adults {2}\[json\] {2}tier 1 · 2 gate\(s\)/m);
    expect(text.stdout).toContain("2 scenario(s)");
    const json = await runCli(["list", SUITE, "--json", "--tags", "smoke"]);
    expect(JSON.parse(json.stdout).map((s: { id: string }) => s.id)).toEqual(["extract_names"]);
  });

  it("compare renders the comparison of two saved reports as Markdown, JSON or text", async () => {
    const md = await runCli(["compare", BASE, HEAD, "--format", "md"]);
    expect(md.code).toBe(0);
    expect(md.stdout).toContain("Newly failing");
    const json = await runCli(["compare", BASE, HEAD, "--format", "json"]);
    const comparison = JSON.parse(json.stdout) as Comparison;
    expect(comparison.added.length + comparison.removed.length).toBeGreaterThan(0);
    expect(comparison.warnings.some((w) => /model/i.test(JSON.stringify(w)))).toBe(true);
    const text = await runCli(["compare", BASE, HEAD]);
    expect(text.code).toBe(0);
    const [base, head] = await Promise.all([readReportFile(BASE), readReportFile(HEAD)]);
    expect(text.stdout).toBe(`${renderComparisonTerminal(compareReports(base, head))}\n`);
    const missing = await runCli(["compare", BASE, path.join(dir, "nope.json")]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("cannot read the report file");
  });

  it("run --baseline compares the finished run with it: comparison files, HTML section, terminal verdicts", async () => {
    const base = path.join(dir, "base");
    await runCli(["run", SUITE, "--agent", "oracle", "--trials", "2", "--out", base, "-q"]);
    const head = path.join(dir, "head");
    const result = await runCli([
      "run",
      SUITE,
      "--agent",
      "oracle",
      "--trials",
      "2",
      "--out",
      head,
      "--baseline",
      path.join(base, "report.json"),
      "-q",
    ]);
    expect(result.code).toBe(1);
    const comparison = JSON.parse(await readFile(path.join(head, "comparison.json"), "utf8")) as Comparison;
    expect(comparison.scenarios.map((s) => s.key).sort()).toEqual(["count_adults", "extract_names"]);
    expect(await readFile(path.join(head, "comparison.md"), "utf8")).toContain("extract_names");
    expect(await readFile(path.join(head, "report.html"), "utf8")).toContain("<h2>Against the baseline</h2>");
    expect(await readFile(path.join(base, "report.html"), "utf8")).not.toContain(
      "<h2>Against the baseline</h2>",
    );
    expect(result.stdout).toContain("count_adults");
    expect(result.stderr).not.toContain("could not be compared");
  });

  it("plan says how many trials a given effect needs", async () => {
    const result = await runCli(["plan", HEAD, "--effect", "0.2", "--metric", "pass_rate"]);
    expect(result.code).toBe(0);
    const plan = planTrialsNeeded(await readReportFile(HEAD), { effect: 0.2, metric: "pass_rate" });
    expect(plan.suite.trials_per_scenario).toBeGreaterThan(1);
    expect(result.stdout).toBe(`${renderTrialPlan(plan)}\n`);
    expect(result.stdout).toContain(`≈ ${plan.suite.trials_per_scenario} trials per scenario`);
  });

  it("--shard i/n runs a share; merge combines the shards into one report like the unsharded run", async () => {
    const shards = [];
    for (const index of [1, 2]) {
      const out = path.join(dir, `shard-${index}`);
      await runCli([
        "run",
        SUITE,
        "--agent",
        "oracle",
        "--trials",
        "2",
        "--shard",
        `${index}/2`,
        "--out",
        out,
        "-q",
      ]);
      shards.push(path.join(out, "report.json"));
    }
    const merged = await runCli(["merge", ...shards, "--out", path.join(dir, "merged")]);
    expect(merged.code).toBe(1); // count_adults fails, as in the unsharded run
    const report = JSON.parse(await readFile(path.join(dir, "merged/report.json"), "utf8")) as Report;
    expect(reportSchemaErrors(report)).toEqual([]);
    expect(report.summary).toMatchObject({ trials: 4, passed: 2, failed: 2 });
    expect(report.run.shard).toBeNull();
    const overlap = await runCli([
      "merge",
      shards[0] as string,
      shards[0] as string,
      "--out",
      path.join(dir, "bad"),
    ]);
    expect(overlap.code).toBe(2);
    expect(overlap.stderr).toContain("again");
  });
});
