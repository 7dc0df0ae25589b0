import { readFile } from "node:fs/promises";
import path from "node:path";
import { Ajv } from "ajv";
import { beforeAll, describe, expect, it } from "vitest";
import type { Report } from "../../src/results/types.js";
import { loadScenarios, parseYamlFile } from "../../src/scenario/load.js";
import type { Scenario } from "../../src/scenario/types.js";
import { type CliResult, ROOT, runCli } from "../support/run-cli.js";
import { makeTempDir } from "../support/temp-dirs.js";

const SUITE = path.join(ROOT, "scenarios-example");
// No ANTHROPIC_API_KEY: the example suite must run green without one.
const ENV = { LANG: "C.UTF-8" };

describe("the example suite (scenarios-example)", () => {
  let scenarios: Scenario[];

  beforeAll(async () => {
    scenarios = await loadScenarios([SUITE]);
  });

  it("has the shape its README promises", async () => {
    expect(scenarios).toHaveLength(8);
    expect(new Set(scenarios.map((s) => s.category))).toEqual(new Set(["json", "database", "vcs", "text"]));
    expect(scenarios.filter((s) => s.tags.includes("smoke")).map((s) => s.id)).toEqual([
      "active_customers",
      "fix_typo_commit",
      "import_orders_csv",
    ]);
    for (const scenario of scenarios) {
      expect(scenario.solution?.length, scenario.id).toBeGreaterThan(0);
      expect(scenario.target.binary, scenario.id).toBeTruthy();
      expect(scenario.evaluation.gates.at(-1)?.type, scenario.id).toBe("no_transcript_errors");
    }
    const gateTypes = new Set(scenarios.flatMap((s) => s.evaluation.gates.map((g) => g.type)));
    for (const type of [
      "command_json_path",
      "command_output_contains",
      "command_output_matches",
      "command_succeeds",
      "file_exists",
      "file_contains",
      "file_matches",
      "script",
      "no_transcript_errors",
    ] as const) {
      expect(gateTypes, type).toContain(type);
    }
    const shop = path.join(SUITE, "fixtures/shop");
    expect(scenarios.filter((s) => s.fixture === shop).length).toBeGreaterThanOrEqual(2);
    expect(scenarios.filter((s) => s.setup.length > 0).length).toBeGreaterThanOrEqual(1);
    const judged = scenarios.filter((s) => s.evaluation.judge);
    expect(judged.map((s) => [s.id, s.evaluation.judge?.rubric.file])).toEqual([
      ["fix_typo_commit", path.join(SUITE, "rubrics/commit-quality.yaml")],
    ]);
    const varied = scenarios.filter((s) => s.variants.length > 0);
    expect(varied.map((s) => [s.id, s.variants.map((v) => v.name)])).toEqual([
      ["customers_by_country", ["terse", "detailed"]],
    ]);

    // What editors check through the `$schema` comment at the top of each file.
    const ajv = new Ajv({ allErrors: true, strict: true });
    const schema = async (name: string) =>
      JSON.parse(await readFile(path.join(ROOT, "schema", name), "utf8"));
    const validateScenario = ajv.compile(await schema("scenario.schema.json"));
    const validateRubric = ajv.compile(await schema("rubric.schema.json"));
    for (const scenario of scenarios) {
      expect(validateScenario(await parseYamlFile(scenario.source.file)), scenario.id).toBe(true);
    }
    expect(validateRubric(await parseYamlFile(path.join(SUITE, "rubrics/commit-quality.yaml")))).toBe(true);

    const readme = await readFile(path.join(SUITE, "README.md"), "utf8");
    for (const scenario of scenarios) expect(readme).toContain(`\`${scenario.id}\``);
  });

  describe("with the real CLI", () => {
    let out: string;
    let validate: CliResult;
    let run: CliResult;
    let report: Report;

    beforeAll(async () => {
      out = makeTempDir("ltt-example-");
      // One after the other: the machine is small, and each already runs several trials at once.
      validate = await runCli(["validate", "--oracle", "scenarios-example"], { env: ENV });
      // One trial each: the oracle's solutions are deterministic.
      run = await runCli(
        ["run", "scenarios-example", "--agent", "oracle", "--out", out, "-j", "4", "-q", "--trials", "1"],
        { env: ENV },
      );
      report = JSON.parse(await readFile(path.join(out, "report.json"), "utf8"));
    });

    it("validate --oracle exits 0 and reports every scenario ok", () => {
      expect(validate.stderr).toBe("");
      expect(validate.code, validate.stdout).toBe(0);
      expect(validate.stdout).toContain("8 scenario(s) (9 scenario@variant entries in a run) valid.");
      for (const scenario of scenarios) {
        expect(validate.stdout).toMatch(
          new RegExp(`^ok +${scenario.id}: solution passes; doing nothing fails$`, "m"),
        );
      }
      expect(validate.stdout).toContain("All checked scenarios are satisfiable and not vacuous (");
    });

    it("run --agent oracle exits 0 and the report says every trial passed", () => {
      expect(run.stderr).not.toMatch(/at .*\.js:\d+/);
      expect(run.code, run.stdout).toBe(0);
      expect(run.stdout).toContain("PASSED  9/9 trials passed (100%)");
      expect(report.summary).toMatchObject({ outcome: "pass", trials: 9, passed: 9, failed: 0, errors: 0 });
      expect(report.run.agent).toBe("oracle");
    });

    it("ran both guidance variants of customers_by_country", () => {
      const variants = report.scenarios.filter((s) => s.id === "customers_by_country");
      expect(variants.map((s) => s.variant).sort()).toEqual(["detailed", "terse"]);
      for (const variant of variants) expect(variant.trials.map((t) => t.outcome)).toEqual(["pass"]);
    });

    it("recorded the tools' real invocations through the shim, and no gate or judge was skipped", () => {
      for (const scenario of report.scenarios) {
        for (const trial of scenario.trials) {
          expect(trial.invocation_source, scenario.id).toBe("shim");
          expect(trial.interaction.total_commands, scenario.id).toBeGreaterThan(0);
          expect(trial.interaction.error_count, scenario.id).toBe(0);
          expect(
            trial.gates.every((g) => g.passed),
            scenario.id,
          ).toBe(true);
          expect(trial.judge_score, scenario.id).toBeNull();
        }
      }
      const fixTypo = report.scenarios.find((s) => s.id === "fix_typo_commit")?.trials[0];
      // git status, git add, git commit (sed is not git): gate and setup commands are not counted.
      expect(fixTypo?.interaction.total_commands).toBe(3);
    });

    it("reports the script gates' verdicts and metrics", () => {
      const scriptGates = report.scenarios.flatMap((s) =>
        s.trials.flatMap((t) =>
          t.gates.filter((g) => g.gate_type === "script").map((g) => [s.id, g.passed, g.metrics]),
        ),
      );
      expect(scriptGates).toEqual([
        ["top_customers_report", true, { matching_rows: 3 }],
        ["word_frequency", true, { correct_lines: 5 }],
      ]);
    });
  });
});
