import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { evaluateGates } from "../src/evaluate/gates.js";
import {
  findOptionCapture,
  type Invocation,
  quoteShellWord,
  readTargetCall,
} from "../src/evaluate/invocations.js";
import { applyJsonPathAssertion, parseJsonPathAssertion, queryJsonPath } from "../src/evaluate/json-path.js";
import { loadScenarios } from "../src/scenario/load.js";
import { readUserDocs } from "./support/docs-text.js";
import { ROOT, runCli, runCommand } from "./support/run-cli.js";
import { makeTempDir } from "./support/temp-dirs.js";

const readme = await readFile(path.join(ROOT, "README.md"), "utf8");
/** The README then docs/*.md: the reference's examples moved from the README into the docs pages. */
const userDocs = readUserDocs();
const action = parse(await readFile(path.join(ROOT, "action.yml"), "utf8")) as {
  inputs: Record<string, unknown>;
};

function codeBlocks(language: string, text = userDocs): string[] {
  return [...text.matchAll(new RegExp("```" + language + "\\n([\\s\\S]*?)```", "g"))].map(
    (m) => m[1] as string,
  );
}

describe("the examples of the README and docs/ work", () => {
  it("their workflows use only inputs that action.yml declares; the README's first has the permissions the action needs", () => {
    const workflows = codeBlocks("yaml").filter((block) => block.includes("uses: llm-tool-test/"));
    expect(workflows.length).toBeGreaterThanOrEqual(2);
    for (const text of workflows) {
      const workflow = parse(text) as {
        jobs: Record<string, { steps: { uses?: string; with?: Record<string, unknown> }[] }>;
      };
      for (const job of Object.values(workflow.jobs)) {
        for (const step of job.steps.filter((s) => s.uses?.startsWith("llm-tool-test/"))) {
          for (const input of Object.keys(step.with ?? {}))
            expect(Object.keys(action.inputs)).toContain(input);
        }
      }
    }
    const main = parse(
      codeBlocks("yaml", readme).find((block) => block.includes("uses: llm-tool-test/")) as string,
    ) as {
      on: Record<string, unknown>;
      permissions: Record<string, string>;
    };
    expect(Object.keys(main.on)).toEqual(["push", "pull_request"]);
    expect(main.permissions).toEqual({ contents: "read", "pull-requests": "write", actions: "read" });
  });

  it("docs/scenarios.md's scenario example, with every field, loads", async () => {
    const example = codeBlocks("yaml").find((block) => block.includes("name: create_and_link")) as string;
    const dir = makeTempDir("ltt-readme-");
    await mkdir(path.join(dir, "fixtures/empty-store"), { recursive: true });
    await mkdir(path.join(dir, "docs"), { recursive: true });
    await mkdir(path.join(dir, "rubrics"), { recursive: true });
    for (const doc of ["AGENTS.md", "AGENTS-terse.md", "AGENTS-detailed.md"]) {
      await writeFile(path.join(dir, "docs", doc), "# my-tool\n");
    }
    await writeFile(
      path.join(dir, "rubrics/capture.yaml"),
      "criteria:\n  - {id: complete, weight: 1, description: Did it all}\n",
    );
    await writeFile(
      path.join(dir, "scenario.yaml"),
      example.replace("gates: [...]", "gates: [{type: no_transcript_errors}]"),
    );
    const [scenario] = await loadScenarios([path.join(dir, "scenario.yaml")]);
    expect(scenario?.id).toBe("create_and_link");
    // Its command_pattern skips options before the subcommand: `validate` has nothing to warn of.
    expect(scenario && findOptionCapture(scenario.target, scenario.solution)).toBeNull();
    expect(scenario?.variants.map((v) => v.name)).toEqual(["terse", "detailed"]);
    expect(scenario?.evaluation.composite).toEqual({
      gateWeight: 0.5,
      judgeWeight: 0.3,
      interactionWeight: 0.2,
    });
    expect(scenario?.agent).toEqual({
      model: "claude-haiku-4-5",
      maxTurns: 20,
      timeoutMs: 300_000,
      commandTimeoutMs: 60_000,
    });
  });

  it("docs/cli.md lists every CLI command with the synopses its --help gives", async () => {
    const cli = codeBlocks("text").find((block) => block.includes("llm-tool-test run")) as string;
    const lines = cli.trim().split("\n");
    const commands = [...new Set(lines.map((line) => /^llm-tool-test (\w+)/.exec(line)?.[1]))];
    expect(commands).toEqual(["run", "validate", "list", "report", "compare", "merge", "plan", "init"]);
    const overview = await runCli(["--help"]);
    const fromHelp: string[] = [];
    for (const command of commands) {
      const result = await runCli([command as string, "--help"]);
      expect(result.code, command).toBe(0);
      // "Usage: llm-tool-test ...", and any further forms on the lines under it.
      const usage = /^Usage: (llm-tool-test .*(?:\n {2,}llm-tool-test .*)*)/m.exec(result.stdout)?.[1] ?? "";
      fromHelp.push(...usage.split("\n").map((line) => line.trim()));
      // The overview names every command too.
      expect(overview.stdout).toContain(`llm-tool-test ${command} `);
    }
    expect(lines).toEqual(fromHelp);
    const ci = await readFile(path.join(ROOT, ".ci/run"), "utf8");
    expect(ci).toContain("npm test");
  });

  it("the README's comment example reads like the renderer's comment: the decision, the design, the suite, what moved", () => {
    const block =
      /<!-- comment-example:start -->\n([\s\S]*?)<!-- comment-example:end -->/.exec(readme)?.[1] ?? "";
    const lines = block.split("\n").map((line) => line.replace(/^> ?/, ""));
    expect(lines[0]).toMatch(
      /^## (🔴 Regression|✅ No regression detected|🟡 Inconclusive|⚪ No baseline yet)/u,
    );
    // Line two: the configured design's power and the run-to-run variation of the base runs.
    expect(lines[1]).toMatch(
      /^\d+ scenarios × \d+( \(\+\d+\))? trials against \d+ baseline runs? \(\d+ trials a scenario(; each scenario's own test pools the newest \d+ runs)?\): .*\. Run-to-run variation: \d+ base runs?, /,
    );
    expect(lines).toContain("| Suite (9 scenarios) | Base → head | Change (95% CI) |");
    expect(
      lines.some((line) =>
        /^\d+ other scenarios without a clear change \(a scenario is listed when .*\)\. This run: /.test(
          line,
        ),
      ),
    ).toBe(true);
    // No per-metric verdicts over everything, and above the collapsed blocks only.
    expect(block).not.toMatch(/[❔➖🟢]|inconclusive|<details/u);
    expect(block).toContain("`scripts/readme-comment-example.mjs` regenerates it");
  });

  it("the README stays an overview a newcomer reads in ten minutes: at most 400 lines, the reference in docs/", () => {
    expect(readme.trimEnd().split("\n").length).toBeLessThanOrEqual(400);
  });

  it("the README's quick start installs the package and then uses only its CLI, in at most five commands", () => {
    // tests/e2e/installed-package.test.ts runs these very lines against the packed package.
    const section = readme.slice(readme.indexOf("## Quick start"));
    const quickStart = (/```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? "").trim().split("\n");
    expect(quickStart[0]).toBe("npm install --save-dev llm-tool-test");
    expect(quickStart.length).toBeLessThanOrEqual(5);
    for (const line of quickStart.slice(1)) expect(line).toMatch(/^npx llm-tool-test (init|validate|run)\b/);
  });

  it("the README's minimal scenario is sound: in a repository with an AGENTS.md, the real jq passes `validate --oracle`", async () => {
    const section = readme.slice(readme.indexOf("## A minimal scenario"));
    const example = codeBlocks("yaml", section)[0] as string;
    const file = /^# (scenarios\/[\w-]+\.yaml)$/m.exec(example)?.[1] as string;
    expect(file).toBeDefined();
    const dir = makeTempDir("ltt-readme-minimal-");
    const git = await runCommand("git", ["init", "-q"], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir },
    });
    expect(git.code, git.stderr).toBe(0);
    await writeFile(path.join(dir, "AGENTS.md"), "# jq\n");
    await mkdir(path.join(dir, "scenarios"));
    await writeFile(path.join(dir, file), example);
    const result = await runCli(["validate", "--oracle", file], { cwd: dir });
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toContain("All checked scenarios are satisfiable and not vacuous (1 checked).");
  });

  it("docs/scenarios.md's behaviour gates example loads and means what it says about recorded calls", async () => {
    const example = codeBlocks("yaml").find((block) => block.includes("type: forbidden_commands")) as string;
    const dir = makeTempDir("ltt-readme-behaviour-");
    await writeFile(path.join(dir, "scenario.yaml"), `task: t\n${example}`);
    const [scenario] = await loadScenarios([path.join(dir, "scenario.yaml")]);
    const gates = scenario?.evaluation.gates ?? [];
    expect(gates.map((gate) => gate.type)).toEqual(["forbidden_commands", "max_invocations", "no_loops"]);
    const call = (line: string, exit = 0): Invocation => {
      const argv = line.split(" ");
      return {
        command: argv.map(quoteShellWord).join(" "),
        argv,
        ...readTargetCall(argv, { binary: "mlr", env: {} }),
        exit_code: exit,
        duration_ms: 1,
      };
    };
    const verdicts = async (calls: Invocation[]) =>
      (
        await evaluateGates(gates, {
          sandbox: {
            runGateCommand: () => Promise.reject(new Error("not used")),
            gateFiles: { root: dir, workDir: dir, absoluteLinks: "host" },
          },
          events: [],
          invocations: calls,
          invocationSource: "shim",
          recordedCalls: calls,
          scriptEnv: {},
          gateTimeoutMs: 1000,
        })
      ).map((result) => result.passed);
    expect(await verdicts([call("mlr --icsv --ocsv sort -f a x.csv")])).toEqual([true, true, true]);
    expect(await verdicts([call("mlr --icsv --ojson cat x.csv")])).toEqual([false, true, true]);
    expect(await verdicts(Array.from({ length: 4 }, () => call("mlr sort -f a x.csv")))).toEqual([
      true,
      false,
      true,
    ]);
    expect(await verdicts(Array.from({ length: 3 }, () => call("mlr cat missing.csv", 1)))).toEqual([
      true,
      true,
      false,
    ]);
  });

  it("docs/scenarios.md's JSONPath example means what it says: a filter yields a list, a plain path one value", () => {
    const example = codeBlocks("yaml").find((block) => block.includes("type: command_json_path")) as string;
    const gates = parse(example) as { path: string; assertion: string }[];
    const output = {
      name: "Work",
      projects: [
        { name: "Work", status: "active" },
        { name: "Home", status: "done" },
      ],
    };
    for (const gate of gates) {
      const verdict = applyJsonPathAssertion(
        queryJsonPath(output, gate.path),
        parseJsonPathAssertion(gate.assertion),
        gate.path,
      );
      expect(verdict.passed, `${gate.path} ${gate.assertion}: ${verdict.message}`).toBe(true);
    }
    const [filter] = gates;
    const single = applyJsonPathAssertion(
      queryJsonPath(output, filter?.path as string),
      parseJsonPathAssertion('equals "Work"'),
      filter?.path,
    );
    expect(single.passed).toBe(false);
  });
});
