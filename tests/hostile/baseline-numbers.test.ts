/**
 * Baselines are data to validate (issue #25, break 8): one pooled base-branch report holding an
 * absurd number (`duration_ms: 1e200`) turned a real regression (exit 1) into "No baseline yet …
 * does not gate" (exit 0). Now a report out of range is left out of the pool, listed with why, and
 * the check gates on the good runs as it would without it.
 */
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { EXIT } from "../../src/cli/main.js";
import type { Report } from "../../src/results/types.js";
import { runMain, SUITE } from "../cli/run-main.js";
import { withEveryTrialPassing } from "../support/report-factory.js";
import { makeTempDir } from "../support/temp-dirs.js";

let dir: string;
let passing: Report;

beforeAll(async () => {
  dir = await makeTempDir("ltt-hostile-baseline-");
  const base = path.join(dir, "base");
  await runMain(["run", SUITE, "--agent", "oracle", "--trials", "2", "--out", base, "-q"]);
  passing = withEveryTrialPassing(
    JSON.parse(await readFile(path.join(base, "report.json"), "utf8")) as Report,
  );
});

/** Three good base-branch runs and, second, one `poison` made hostile. */
async function poolWith(name: string, poison: (report: Report) => void): Promise<string[]> {
  const files = ["a", "b", "c"].map((n) => path.join(dir, `${name}-${n}.json`));
  for (const file of files) await writeFile(file, JSON.stringify(passing));
  const bad = structuredClone(passing);
  poison(bad);
  const badFile = path.join(dir, `${name}-bad.json`);
  await writeFile(badFile, JSON.stringify(bad));
  return [files[0] as string, badFile, ...files.slice(1)];
}

async function runAgainst(files: string[], out: string) {
  return runMain([
    "run",
    SUITE,
    "--agent",
    "oracle",
    "--trials",
    "2",
    "--extra-trials",
    "0",
    ...files.flatMap((file) => ["--baseline", file]),
    "--out",
    path.join(dir, out),
  ]);
}

const firstTrial = (report: Report) => report.scenarios[0]?.trials[0] as Report["scenarios"][0]["trials"][0];

describe("a hostile report among the pooled baselines", () => {
  it("the control: four good runs against the collapsing head fail the check", async () => {
    const files = await poolWith("control", () => {});
    const result = await runAgainst(files, "control-head");
    expect(result.code, result.stderr).toBe(EXIT.failed);
    expect(result.stderr).toContain("note: the baseline pools 4 of 4 runs");
  });

  const poisons: [string, (report: Report) => void, string][] = [
    [
      "duration-1e200",
      (r) => Object.assign(firstTrial(r).execution, { duration_ms: 1e200 }),
      "execution.duration_ms",
    ],
    ["cost-1e300", (r) => Object.assign(firstTrial(r).execution, { cost_usd: 1e300 }), "execution.cost_usd"],
    [
      "tokens-1e20",
      (r) => Object.assign(firstTrial(r).execution, { input_tokens: 1e20 }),
      "execution.input_tokens",
    ],
    [
      "string-trial",
      (r) => (r.scenarios[0] as { trials: unknown[] }).trials.splice(0, 1, "pass"),
      "trials[0]",
    ],
    ["unknown-outcome", (r) => Object.assign(firstTrial(r), { outcome: "win" }), "outcome"],
    [
      "no-trials",
      (r) => Object.assign(r.scenarios[1] as object, { trials: undefined }),
      "scenarios[1].trials",
    ],
  ];

  it.each(poisons)(
    "%s: left out with its reason, and the regression still fails (exit 1)",
    async (name, poison, field) => {
      const files = await poolWith(name, poison);
      const result = await runAgainst(files, `${name}-head`);
      expect(result.code, result.stderr).toBe(EXIT.failed);
      expect(result.stderr).not.toContain("unexpected error");
      const note = result.stderr.split("\n").find((line) => line.includes(`${name}-bad.json`));
      expect(note, result.stderr).toMatch(
        /^note: left out of the baseline: .*-bad\.json: not a valid report: /,
      );
      expect(note).toContain(field);
      expect(result.stderr).toContain("note: the baseline pools 3 of 4 runs");
      const comparison = JSON.parse(
        await readFile(path.join(dir, `${name}-head`, "comparison.json"), "utf8"),
      );
      expect(comparison.decision.regressed).toEqual(["count_adults"]);
      expect(comparison.decision.baseline.excluded).toEqual([
        expect.objectContaining({ label: expect.stringContaining(`${name}-bad.json`), scenario: null }),
      ]);
    },
  );

  it("every --baseline file invalid: a clear error naming each, not a silent run without a baseline", async () => {
    const bad = structuredClone(passing);
    firstTrial(bad).execution.duration_ms = 1e200;
    const file = path.join(dir, "only-bad.json");
    await writeFile(file, JSON.stringify(bad));
    const result = await runAgainst([file], "only-bad-head");
    expect(result.code).toBe(EXIT.usage);
    expect(result.stderr).toContain("no --baseline file is a valid report");
    expect(result.stderr).toContain(
      "only-bad.json: not a valid report: scenarios[0].trials[0].execution.duration_ms",
    );
  });
});
