/**
 * The why of a regression end to end, through the CLI: a small bash script stands in for Miller
 * (`mlr`, on PATH), the oracle runs the scenario's solution, which passes the options the guidance
 * file lists. The base runs' guidance says `--icsv --ojson`; the head's (a guidance-only PR) says
 * `--ojson` only, so every head call fails. `run --baseline` then shows, in comparison.json,
 * report.md, report.html and the comment, that `--icsv` went from 100% to 0% of calls and what the
 * failing call printed.
 */
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { EXIT } from "../../src/cli/main.js";
import type { Decision } from "../../src/compare/decision.js";
import type { Comparison } from "../../src/compare/types.js";
import { renderComment } from "../../src/render/pr-comment.js";
import type { Report } from "../../src/results/types.js";
import type { TrialEvent } from "../../src/transcript/events.js";
import { reportSchemaErrors } from "../support/report-schema.js";
import { makeTempDir } from "../support/temp-dirs.js";
import { type MainResult, runMain } from "./run-main.js";

const MLR = `#!/bin/bash
# A stand-in for Miller: reads CSV only when told so with --icsv.
icsv=0; sub=""; file=""
for arg in "$@"; do
  case "$arg" in
    --icsv) icsv=1 ;;
    -*) ;;
    *) if [ -z "$sub" ]; then sub="$arg"; else file="$arg"; fi ;;
  esac
done
if [ "$icsv" != 1 ]; then
  echo "mlr: data does not parse as JSON: $(head -n 1 "$file")" >&2
  exit 1
fi
echo '[{"a": 1, "b": 2}]'
`;

const SCENARIO = `name: csv_to_json
task: Convert data.csv to JSON in out.json with mlr.
files: {data.csv: "a,b\\n1,2\\n"}
guidance: {file: AGENTS.md}
target: {binary: mlr}
solution:
  - mlr $(cat AGENTS.md) cat data.csv > out.json
evaluation:
  gates: [{type: file_contains, path: out.json, substring: '"a": 1'}]
`;

describe("run --baseline: what the agent did differently in a regressed scenario", () => {
  let dir: string;
  let env: Record<string, string>;
  let head: string;
  let result: MainResult;
  let base: Report;

  beforeAll(async () => {
    dir = makeTempDir("ltt-why-");
    await mkdir(path.join(dir, "bin"));
    await writeFile(path.join(dir, "bin", "mlr"), MLR);
    await chmod(path.join(dir, "bin", "mlr"), 0o755);
    const suite = path.join(dir, "suite");
    await mkdir(suite);
    await writeFile(path.join(suite, "csv.yaml"), SCENARIO);
    env = { PATH: `${path.join(dir, "bin")}:${process.env.PATH ?? "/usr/bin:/bin"}` };
    const common = ["run", suite, "--agent", "oracle", "--trials", "2", "--sandbox", "local", "-q"];

    await writeFile(path.join(suite, "AGENTS.md"), "--icsv --ojson\n");
    const baseOut = path.join(dir, "base");
    const baseRun = await runMain([...common, "--out", baseOut], { env });
    expect(baseRun.code, baseRun.stderr).toBe(EXIT.ok);
    base = JSON.parse(await readFile(path.join(baseOut, "report.json"), "utf8")) as Report;
    // Four base runs (the same one, as the pooled-baseline test of run.test.ts does): 8/8 passed.
    const files = ["a", "b", "c", "d"].map((name) => path.join(dir, `base-${name}.json`));
    for (const file of files) await writeFile(file, JSON.stringify(base));

    await writeFile(path.join(suite, "AGENTS.md"), "--ojson\n");
    head = path.join(dir, "head");
    result = await runMain(
      [...common, "--extra-trials", "0", "--out", head, ...files.flatMap((file) => ["--baseline", file])],
      { env },
    );
  }, 120_000);

  it("records each call's options before the subcommand, in the events and the report", async () => {
    expect(reportSchemaErrors(base)).toEqual([]);
    const trial = base.scenarios[0]?.trials[0];
    const events = (await readFile(path.join(dir, "base", trial?.events_path ?? ""), "utf8"))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as TrialEvent);
    const calls = events.filter((e) => e.type === "target_invocation");
    expect(calls.map((e) => [e.argv, e.subcommand, e.options])).toEqual([
      [["mlr", "--icsv", "--ojson", "cat", "data.csv"], "cat", ["--icsv", "--ojson"]],
    ]);
    expect(events[0]).toMatchObject({ type: "trial_start", schema_version: 2 });
    expect(trial?.behaviour).toEqual({
      options: { "--icsv": 1, "--ojson": 1 },
      shapes: { "cat --icsv --ojson": 1 },
      first_failure: null,
    });
  });

  it("fails on the regression, and the decision says `--icsv` went from 100% to 0% of calls", async () => {
    expect(result.code, result.stderr).toBe(EXIT.failed);
    const comparison = JSON.parse(
      await readFile(path.join(head, "comparison.json"), "utf8"),
    ) as Comparison & {
      decision: Decision;
    };
    expect(comparison.decision.regressed).toEqual(["csv_to_json"]);
    expect(comparison.decision.behaviour?.[0]).toMatchObject({
      key: "csv_to_json",
      base_available: true,
      base_calls: 8,
      head_calls: 2,
      shares: [{ kind: "option", name: "--icsv", base: 1, head: 0 }],
      new_commands: [{ shape: "cat --ojson", calls: 2 }],
      first_failure: {
        trial: 1,
        exit_code: 1,
        stderr: "mlr: data does not parse as JSON: a,b",
      },
    });
    expect(comparison.decision.behaviour?.[0]?.first_failure?.command).toMatch(/^mlr --ojson cat data\.csv/);
  });

  it("shows it in report.md, report.html and the comment's bullet", async () => {
    const md = await readFile(path.join(head, "report.md"), "utf8");
    expect(md).toContain("| `--icsv` (option), share of calls | 100% | 0% |");
    const html = await readFile(path.join(head, "report.html"), "utf8");
    expect(html).toContain(
      '<tr><td><code>--icsv</code> (option), share of calls</td><td class="num">100%</td><td class="num">0%</td></tr>',
    );
    const report = JSON.parse(await readFile(path.join(head, "report.json"), "utf8")) as Report;
    const { decision, ...comparison } = JSON.parse(
      await readFile(path.join(head, "comparison.json"), "utf8"),
    ) as Comparison & { decision: Decision };
    const body = renderComment({
      key: "llm-tool-test",
      report,
      decision,
      comparison,
      baseline: { status: "disabled" },
      runUrl: null,
      artifactUrl: null,
      headSha: null,
      now: 0,
    });
    const top = body.slice(0, body.indexOf("<details"));
    expect(top).toContain("  - Calls vs the base runs: `--icsv` in 100% → 0% of calls;");
    expect(top).toMatch(
      / {2}- First failed call \(trial 1, exit 1\): `mlr --ojson cat data\.csv[^`]*`: `mlr: data does not parse as JSON: a,b`/,
    );
  });
});
