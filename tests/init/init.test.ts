import { execFileSync } from "node:child_process";
import { chmod, mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Ajv } from "ajv";
import { afterEach, describe, expect, it } from "vitest";
import { ConfigError } from "../../src/errors.js";
import { scaffoldScenarios, WORKFLOW_PATH } from "../../src/init/init.js";
import { ACTION_REF, SCHEMA_BASE_URL, WORKFLOW_INPUTS } from "../../src/init/templates.js";
import { validateWithOracle } from "../../src/run/validate-oracle.js";
import { loadScenarios, parseYamlFile } from "../../src/scenario/load.js";

const ROOT = path.resolve(import.meta.dirname, "../..");
const created: string[] = [];

async function makeTempDir(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "ltt-init-"));
  created.push(dir);
  return dir;
}

async function makeRepository(branch = "main"): Promise<string> {
  const dir = await makeTempDir();
  execFileSync("git", ["init", "-q", "-b", branch], { cwd: dir });
  return dir;
}

afterEach(async () => {
  for (const dir of created.splice(0)) await rm(dir, { recursive: true, force: true });
});

describe("scaffoldScenarios", () => {
  it("writes a scenario, fixture, rubric, AGENTS.md and the workflow at the repository root", async () => {
    const repo = await makeRepository();
    const result = await scaffoldScenarios({ binary: "git", dir: "tools/scenarios", cwd: repo });

    const dir = path.join(repo, "tools/scenarios");
    expect(result.files).toEqual([
      path.join(dir, "git-version.yaml"),
      path.join(dir, "fixtures/sample/README.md"),
      path.join(dir, "rubrics/quality.yaml"),
      path.join(dir, "AGENTS.md"),
      path.join(repo, WORKFLOW_PATH),
      path.join(repo, ".gitignore"),
    ]);
    expect(result.workflow).toBe(path.join(repo, ".github/workflows/llm-tool-test.yml"));
    expect(result.warnings).toEqual([]);
    for (const file of result.files) expect((await stat(file)).isFile()).toBe(true);

    const text = await readFile(path.join(dir, "git-version.yaml"), "utf8");
    expect(text.split("\n")[0]).toBe(
      `# yaml-language-server: $schema=${SCHEMA_BASE_URL}/scenario.schema.json`,
    );
    expect(await readFile(path.join(dir, "AGENTS.md"), "utf8")).toContain("`git --help`");
    // Runs write under .llm-tool-test/: ignored once, not twice.
    expect(await readFile(path.join(repo, ".gitignore"), "utf8")).toBe(
      "# llm-tool-test runs (reports, transcripts)\n.llm-tool-test/\n",
    );
    const again = await scaffoldScenarios({ binary: "git", dir: "more", cwd: repo, force: true });
    expect(again.files).not.toContain(path.join(repo, ".gitignore"));

    // The files validate against the schemas their `$schema` comments name.
    const ajv = new Ajv({ allErrors: true, strict: true });
    const schema = async (name: string) =>
      JSON.parse(await readFile(path.join(ROOT, "schema", name), "utf8"));
    const validateScenario = ajv.compile(await schema("scenario.schema.json"));
    const validateRubric = ajv.compile(await schema("rubric.schema.json"));
    expect(validateScenario(await parseYamlFile(path.join(dir, "git-version.yaml")))).toBe(true);
    expect(validateRubric(await parseYamlFile(path.join(dir, "rubrics/quality.yaml")))).toBe(true);
    expect(await readFile(path.join(dir, "rubrics/quality.yaml"), "utf8")).toContain(
      `$schema=${SCHEMA_BASE_URL}/rubric.schema.json`,
    );
  });

  it("names the installed package's schemas by a relative path when the package is installed in the project", async () => {
    const repo = await makeRepository();
    const installed = path.join(repo, "node_modules/llm-tool-test/schema");
    await mkdir(installed, { recursive: true });
    for (const name of ["scenario.schema.json", "rubric.schema.json"]) {
      await writeFile(path.join(installed, name), await readFile(path.join(ROOT, "schema", name)));
    }
    const result = await scaffoldScenarios({
      binary: "git",
      dir: "scenarios",
      cwd: repo,
      installedSchemas: installed,
    });
    const scenarioFile = result.files[0] as string;
    const rubricFile = path.join(repo, "scenarios/rubrics/quality.yaml");
    const reference = async (file: string) =>
      /\$schema=(\S+)/.exec((await readFile(file, "utf8")).split("\n")[0] as string)?.[1] as string;
    expect(await reference(scenarioFile)).toBe("../node_modules/llm-tool-test/schema/scenario.schema.json");
    expect(await reference(rubricFile)).toBe("../../node_modules/llm-tool-test/schema/rubric.schema.json");
    // An editor resolves them relative to the file.
    for (const file of [scenarioFile, rubricFile]) {
      expect((await stat(path.resolve(path.dirname(file), await reference(file)))).isFile()).toBe(true);
    }
  });

  it("writes a scenario that loads at once, with the binary, solution, gates, fixture, guidance and rubric", async () => {
    const repo = await makeRepository();
    const result = await scaffoldScenarios({ binary: "git", dir: "scenarios", cwd: repo });
    const dir = path.join(repo, "scenarios");

    const scenarios = await loadScenarios([dir]);
    expect(scenarios).toHaveLength(1);
    const scenario = scenarios[0]!;
    expect(scenario.id).toBe(result.scenarioId);
    expect(scenario.id).toBe("git_version");
    expect(scenario.target.binary).toBe("git");
    expect(scenario.solution).toEqual(["git --version > version.txt"]);
    expect(scenario.task).toContain("version.txt");
    expect(scenario.fixture).toBe(path.join(dir, "fixtures/sample"));
    expect(scenario.guidance).toEqual({ file: path.join(dir, "AGENTS.md"), mode: "workdir" });
    expect(scenario.evaluation.gates.map((gate) => gate.type)).toEqual([
      "file_exists",
      "command_succeeds",
      "no_transcript_errors",
      "no_loops",
    ]);
    expect(scenario.evaluation.judge?.enabled).toBe(false);
    expect(scenario.evaluation.judge?.rubric.criteria.map((c) => c.weight).reduce((a, b) => a + b)).toBe(1);
    expect(scenario.tags).toEqual(["smoke"]);
  });

  it("passes validate --oracle with the real binary: the solution passes and doing nothing fails", async () => {
    const repo = await makeRepository();
    await scaffoldScenarios({ binary: "git", dir: "scenarios", cwd: repo });
    const scenarios = await loadScenarios([path.join(repo, "scenarios")]);
    const findings = await validateWithOracle(scenarios, { env: process.env, sandbox: null });
    expect(findings).toEqual([
      { id: "git_version", status: "ok", message: "solution passes; doing nothing fails" },
    ]);
  });

  it("falls back to --help for a tool whose --version fails, and takes a path to the binary", async () => {
    const repo = await makeRepository();
    await mkdir(path.join(repo, "bin"));
    const tool = path.join(repo, "bin/greet");
    await writeFile(
      tool,
      // biome-ignore lint/suspicious/noTemplateCurlyInString: bash parameter expansion
      '#!/usr/bin/env bash\ncase "${1:-}" in --help) echo "usage: greet NAME";; *) echo "unknown option" >&2; exit 2;; esac\n',
    );
    await chmod(tool, 0o755);

    const result = await scaffoldScenarios({ binary: "./bin/greet", dir: "scenarios", cwd: repo });
    expect(result.warnings).toEqual([]);
    const dir = path.join(repo, "scenarios");
    expect(result.files[0]).toBe(path.join(dir, "greet-help.yaml"));
    expect(await readFile(path.join(dir, "greet-help.yaml"), "utf8")).toContain("  binary: ../bin/greet\n");

    const scenarios = await loadScenarios([dir]);
    expect(scenarios[0]?.target.binary).toBe(tool);
    expect(scenarios[0]?.solution).toEqual(["greet --help > help.txt"]);
    const findings = await validateWithOracle(scenarios, { env: process.env, sandbox: null });
    expect(findings.map((f) => f.status)).toEqual(["ok"]);
  });

  it("warns, and still writes a valid scaffold, when the binary is not on PATH", async () => {
    const repo = await makeRepository();
    const result = await scaffoldScenarios({
      binary: "ltt-no-such-tool",
      dir: "scenarios",
      cwd: repo,
      searchPath: "/usr/bin:/bin",
    });
    expect(result.warnings).toEqual([
      "ltt-no-such-tool is not on PATH: install it before running the scenarios (the solution runs `ltt-no-such-tool --version`)",
    ]);
    const scenarios = await loadScenarios([path.join(repo, "scenarios")]);
    expect(scenarios.map((s) => [s.id, s.target.binary, s.solution])).toEqual([
      ["ltt-no-such-tool_version", "ltt-no-such-tool", ["ltt-no-such-tool --version > version.txt"]],
    ]);
  });

  it("warns when neither --version nor --help exits 0", async () => {
    const repo = await makeRepository();
    const probed: string[][] = [];
    const result = await scaffoldScenarios({
      binary: "git",
      dir: "scenarios",
      cwd: repo,
      probe: async (file, args) => {
        probed.push([path.basename(file), ...args]);
        return 1;
      },
    });
    expect(probed).toEqual([
      ["git", "--version"],
      ["git", "--help"],
    ]);
    expect(result.warnings).toEqual([
      "neither `git --version` nor `git --help` exits 0: edit the scenario's solution and gates before validating with --oracle",
    ]);
  });

  it("refuses to overwrite an existing file, naming it, and writes nothing", async () => {
    const repo = await makeRepository();
    await mkdir(path.join(repo, ".github/workflows"), { recursive: true });
    await writeFile(path.join(repo, WORKFLOW_PATH), "name: mine\n");

    const attempt = scaffoldScenarios({ binary: "git", dir: "scenarios", cwd: repo });
    await expect(attempt).rejects.toBeInstanceOf(ConfigError);
    await expect(attempt).rejects.toThrow(
      /^\.github\/workflows\/llm-tool-test\.yml: already exists; .*pass --force to overwrite$/,
    );
    expect(await readFile(path.join(repo, WORKFLOW_PATH), "utf8")).toBe("name: mine\n");
    await expect(stat(path.join(repo, "scenarios"))).rejects.toThrow(/ENOENT/);
  });

  it("refuses a second scaffold into the same folder, naming the scenario file", async () => {
    const repo = await makeRepository();
    await scaffoldScenarios({ binary: "git", dir: "scenarios", cwd: repo });
    const scenarioFile = path.join(repo, "scenarios/git-version.yaml");
    await writeFile(scenarioFile, "# edited by the user\n");
    await expect(scaffoldScenarios({ binary: "git", dir: "scenarios", cwd: repo })).rejects.toThrow(
      "scenarios/git-version.yaml: already exists",
    );
    expect(await readFile(scenarioFile, "utf8")).toBe("# edited by the user\n");
  });

  it("overwrites existing files with force", async () => {
    const repo = await makeRepository();
    await scaffoldScenarios({ binary: "git", dir: "scenarios", cwd: repo });
    const scenarioFile = path.join(repo, "scenarios/git-version.yaml");
    await writeFile(scenarioFile, "# edited by the user\n");
    const result = await scaffoldScenarios({ binary: "git", dir: "scenarios", cwd: repo, force: true });
    expect(result.files).toContain(scenarioFile);
    expect(await readFile(scenarioFile, "utf8")).toContain("name: git_version");
    expect(await loadScenarios([path.join(repo, "scenarios")])).toHaveLength(1);
  });

  it("writes a workflow with both triggers, the permissions, the secret and only inputs action.yml declares", async () => {
    const repo = await makeRepository();
    execFileSync("git", ["symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/trunk"], {
      cwd: repo,
    });
    const result = await scaffoldScenarios({ binary: "git", dir: "checks/agents", cwd: repo });
    const workflow = (await parseYamlFile(result.workflow)) as {
      on: { push: { branches: string[] }; pull_request: unknown };
      permissions: Record<string, string>;
      jobs: Record<string, { steps: { uses?: string; with?: Record<string, unknown> }[] }>;
    };
    expect(workflow.on.push.branches).toEqual(["trunk"]);
    expect(Object.keys(workflow.on)).toEqual(["push", "pull_request"]);
    expect(workflow.permissions).toEqual({
      contents: "read",
      "pull-requests": "write",
      actions: "read",
    });
    const steps = Object.values(workflow.jobs)[0]?.steps ?? [];
    const step = steps.find((s) => s.uses === ACTION_REF);
    expect(step?.with).toMatchObject({
      scenarios: "checks/agents",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub Actions expression
      "anthropic-api-key": "${{ secrets.ANTHROPIC_API_KEY }}",
    });
    expect(Object.keys(step?.with ?? {})).toEqual([...WORKFLOW_INPUTS]);

    const action = (await parseYamlFile(path.join(ROOT, "action.yml"))) as {
      inputs: Record<string, unknown>;
    };
    for (const input of Object.keys(step?.with ?? {})) expect(Object.keys(action.inputs)).toContain(input);
    expect(await readFile(result.workflow, "utf8")).toMatch(
      /forks get no secrets: the action then replays the base branch.s recorded calls/,
    );
  });

  it("puts the workflow in the scaffold folder, with a warning, outside a git repository", async () => {
    const base = await makeTempDir();
    const result = await scaffoldScenarios({ binary: "git", dir: "scenarios", cwd: base });
    const dir = path.join(base, "scenarios");
    expect(result.workflow).toBe(path.join(dir, WORKFLOW_PATH));
    expect(result.warnings).toEqual([
      "scenarios is not inside a git repository: the workflow was written to scenarios/.github/workflows/llm-tool-test.yml; move it to .github/workflows/llm-tool-test.yml at your repository's root",
    ]);
    // The workflow (a YAML file with `name:`) sits in a hidden folder, so it is not taken for a scenario.
    expect((await loadScenarios([dir])).map((s) => s.id)).toEqual(["git_version"]);
  });

  it("rejects a binary that is not a command name, and a folder that is a file", async () => {
    const repo = await makeRepository();
    for (const binary of ["", "my tool", "rm -rf", "--help", "tool;ls"]) {
      await expect(scaffoldScenarios({ binary, dir: "scenarios", cwd: repo })).rejects.toThrow(
        /^binary: .* is not a command name/,
      );
    }
    await writeFile(path.join(repo, "notes"), "");
    await expect(scaffoldScenarios({ binary: "git", dir: "notes", cwd: repo })).rejects.toThrow(
      "notes: is a file; give a folder for the scenarios",
    );
  });
});
