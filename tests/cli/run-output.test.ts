/** What `run` tells the user besides the results: which agent ran and why, and how many scenarios. */
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { EXIT } from "../../src/cli/main.js";
import type { Report } from "../../src/results/types.js";
import { reportSchemaErrors } from "../support/report-schema.js";
import { makeTempDir } from "../support/temp-dirs.js";
import { ROOT, runMain, SUITE } from "./run-main.js";

const FALLBACK = "agent: oracle — no ANTHROPIC_API_KEY set; this run used no model";
const SCENARIO = path.join(SUITE, "extract-names.yaml");

async function readReport(dir: string): Promise<Report> {
  return JSON.parse(await readFile(path.join(dir, "report.json"), "utf8")) as Report;
}

describe("run: the agent it falls back to", () => {
  let dir: string;
  beforeAll(async () => {
    dir = makeTempDir("ltt-run-output-");
  });

  it("without a key and without --agent says so first and in the summary, and the report records why", async () => {
    const out = path.join(dir, "fallback");
    const result = await runMain(["run", SCENARIO, "--out", out]);
    expect(result.code).toBe(EXIT.ok);
    expect(result.stderr.split("\n")[0]).toBe(FALLBACK);
    const summaryEnd = result.stdout.indexOf(FALLBACK);
    expect(summaryEnd).toBeGreaterThan(result.stdout.indexOf("1/1 scenarios"));
    expect(result.stdout.indexOf("Report: ")).toBeGreaterThan(summaryEnd);
    const report = await readReport(out);
    expect(report.run.agent).toBe("oracle");
    expect(report.run.agent_reason).toBe("no ANTHROPIC_API_KEY set; this run used no model");
    expect(reportSchemaErrors(report)).toEqual([]);
  });

  it("says nothing of the kind when the oracle was asked for", async () => {
    const out = path.join(dir, "chosen");
    const result = await runMain(["run", SCENARIO, "--agent", "oracle", "--out", out]);
    expect(result.code).toBe(EXIT.ok);
    expect(`${result.stdout}${result.stderr}`).not.toContain("this run used no model");
    expect((await readReport(out)).run.agent_reason).toBeUndefined();
  });
});

describe("run: scenarios are counted as the report counts them", () => {
  it("counts a scenario once per variant in the progress header, as in the summary", async () => {
    const dir = makeTempDir("ltt-run-count-");
    await writeFile(path.join(dir, "a.md"), "Use jq.\n");
    await writeFile(path.join(dir, "b.md"), "Use jq -r.\n");
    const result = await runMain([
      "run",
      SUITE,
      "--agent",
      "oracle",
      "--variant",
      `a=${path.join(dir, "a.md")}`,
      "--variant",
      `b=${path.join(dir, "b.md")}`,
      "--trials",
      "1",
      "--out",
      path.join(dir, "out"),
    ]);
    // Two scenarios × two variants: four scenario@variant entries, as report.json has them.
    expect(result.stderr).toContain("Running 4 trial(s) of 4 scenario(s)");
    expect(result.stdout).toMatch(/\d\/4 scenarios/);
    expect((await readReport(path.join(dir, "out"))).scenarios).toHaveLength(4);
  });
});

describe("run: junit.xml", () => {
  it("names scenario files relative to the repository's root", async () => {
    const out = makeTempDir("ltt-run-junit-");
    // The tests run inside this repository's checkout: its root is ROOT.
    await runMain(["run", SCENARIO, "--agent", "oracle", "--out", out, "-q"], {
      cwd: path.join(ROOT, "tests"),
    });
    const xml = await readFile(path.join(out, "junit.xml"), "utf8");
    expect(xml).toContain(' file="tests/fixtures/e2e/suite/extract-names.yaml"');
    expect(xml).not.toContain(` file="${ROOT}`);
  });
});
