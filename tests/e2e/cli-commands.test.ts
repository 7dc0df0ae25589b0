import { readFile } from "node:fs/promises";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { compareReports } from "../../src/compare/compare.js";
import { decide } from "../../src/compare/decision.js";
import { renderComparisonTerminal } from "../../src/render/comparison-markdown.js";
import { readReportFile } from "../../src/results/read-report.js";
import type { Report } from "../../src/results/types.js";
import { reportSchemaErrors } from "../support/report-schema.js";
import { ROOT, runCli } from "../support/run-cli.js";
import { makeTempDir } from "../support/temp-dirs.js";

const SUITE = path.join(ROOT, "tests/fixtures/e2e/suite");
const BASE = path.join(ROOT, "tests/fixtures/reports/base.json");
const HEAD = path.join(ROOT, "tests/fixtures/reports/head.json");

// The commands' behaviour is tested in process (tests/cli/); these prove the bin runs them.
describe("the CLI's other commands, as users run them", () => {
  let dir: string;
  beforeAll(async () => {
    dir = makeTempDir("ltt-commands-");
  });

  it("list prints the scenarios", async () => {
    const text = await runCli(["list", SUITE]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^count_adults {2}\[json\] {2}tier 1 · 2 gate\(s\)/m);
    expect(text.stdout).toContain("2 scenario(s)");
  });

  it("compare renders the comparison of two saved reports; an unreadable one exits 2", async () => {
    // The fixtures' head collapses a scenario: the decision fails and the exit status is 1.
    const text = await runCli(["compare", BASE, HEAD]);
    expect(text.code).toBe(1);
    const [base, head] = await Promise.all([readReportFile(BASE), readReportFile(HEAD)]);
    const decision = decide({ head, baseline: base });
    expect(text.stdout).toBe(`${renderComparisonTerminal(compareReports(base, head), decision)}\n`);
    const missing = await runCli(["compare", BASE, path.join(dir, "nope.json")]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("cannot read the report file");
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
