import { createHash } from "node:crypto";
import { cp, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { loadScenarios, parseYamlFile, parseYamlText } from "../../src/scenario/load.js";
import type { Scenario } from "../../src/scenario/types.js";
import { configErrorOf, makeTree } from "./helpers.js";

const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../fixtures/scenarios");
const FULL = path.join(FIXTURES, "full");
const ROOT = path.resolve(FIXTURES, "../../..");

describe("a full valid scenario", () => {
  test("every field is normalised", async () => {
    const [scenario] = await loadScenarios(["full/full.yaml"], { cwd: FIXTURES });
    const { contentHash, measurementHash, treatment, ...rest } = scenario as Scenario;
    expect(contentHash).toMatch(/^[0-9a-f]{64}$/);
    expect(measurementHash).toMatch(/^[0-9a-f]{64}$/);
    expect(measurementHash).not.toBe(contentHash);
    // The treatment: each guidance file by its path from the repository root and its contents.
    const sha256 = async (file: string) =>
      createHash("sha256")
        .update(await readFile(path.join(FULL, file)))
        .digest("hex");
    const fromRoot = (file: string) => path.relative(ROOT, path.join(FULL, file)).split(path.sep).join("/");
    expect(treatment).toEqual({
      guidance: {
        path: fromRoot("guidance/AGENTS.md"),
        sha256: await sha256("guidance/AGENTS.md"),
        mode: "both",
      },
      variants: {
        v1: null,
        v2: {
          path: fromRoot("guidance/AGENTS-v2.md"),
          sha256: await sha256("guidance/AGENTS-v2.md"),
          mode: "workdir",
        },
      },
      // `sort` is looked up on PATH: its build cannot be known.
      tool: null,
    });
    expect(rest).toEqual({
      id: "sort_names",
      description: "Sort a list of names and summarise it as JSON",
      category: "text",
      tags: ["smoke", "sort"],
      tier: 2,
      task: 'Sort the names in names.txt alphabetically into sorted.txt, then write\nsummary.json with {"count": <number of names>, "names": [<sorted names>]}.\n',
      system: "You are careful and check your work.",
      fixture: path.join(FULL, "fixtures/project"),
      files: { "config/settings.ini": "mode = strict\n", "EMPTY.txt": "" },
      setup: ["mkdir -p out", "test -f names.txt"],
      guidance: { file: path.join(FULL, "guidance/AGENTS.md"), mode: "both" },
      variants: [
        { name: "v1" },
        {
          name: "v2",
          guidance: { file: path.join(FULL, "guidance/AGENTS-v2.md"), mode: "workdir" },
          env: { SORT_HINTS: "2" },
        },
      ],
      target: {
        binary: "sort",
        commandPattern: "\\bsort\\s+(\\S+)",
        globalOptions: ["-o", "--output", "-k", "--key", "-t"],
        env: { LC_ALL: "C" },
      },
      agent: { model: "claude-haiku-4-5", maxTurns: 12, timeoutMs: 300_000, commandTimeoutMs: 1500 },
      solution: [
        "sort names.txt > sorted.txt",
        `printf '{"count": 3, "names": ["ada", "bob", "cy"]}\\n' > summary.json\n`,
      ],
      evaluation: {
        gates: [
          { type: "command_succeeds", command: "test -s sorted.txt", weight: 1 },
          {
            type: "command_output_contains",
            command: "head -n 1 sorted.txt",
            substring: "ada",
            weight: 1,
            description: "first name is ada",
          },
          {
            type: "command_output_matches",
            command: "cat sorted.txt",
            pattern: "(?m)^ada\\nbob\\ncy$",
            weight: 1,
          },
          {
            type: "command_json_path",
            command: "cat summary.json",
            path: "$.names",
            assertion: "len == 3",
            parsed: { kind: "len", op: "==", n: 3 },
            weight: 2,
          },
          {
            type: "command_json_path",
            command: "cat summary.json",
            path: "$.count",
            assertion: "equals 3",
            parsed: { kind: "equals", value: 3 },
            weight: 1,
          },
          { type: "file_exists", path: "summary.json", weight: 1 },
          { type: "file_contains", path: "sorted.txt", substring: "bob", weight: 1 },
          { type: "file_matches", path: "sorted.txt", pattern: "^ada", weight: 1 },
          { type: "no_transcript_errors", weight: 0.5 },
          {
            type: "script",
            command: '[ "$(wc -l < sorted.txt)" -eq 3 ]',
            weight: 1,
            description: "three lines sorted",
          },
          {
            type: "file_contains",
            path: "sorted.txt",
            substring: "cy",
            weight: 1,
            description: "file_contains:sorted.txt:cy",
          },
          { type: "exit_code", code: 0, weight: 0, description: "exit_code:0" },
        ],
        judge: {
          enabled: true,
          rubric: {
            file: path.join(FULL, "rubrics/quality.yaml"),
            criteria: [
              { id: "task_completion", weight: 0.5, description: "Sorted the names and wrote the summary" },
              { id: "efficiency", weight: 0.3, description: "No unnecessary commands or dead ends" },
              {
                id: "command_correctness",
                weight: 0.2,
                description: "Used sort with correct syntax on the first try",
              },
            ],
          },
          passThreshold: 0.8,
          model: "claude-sonnet-4-5",
        },
        composite: { gateWeight: 0.5, judgeWeight: 0.3, interactionWeight: 0.2 },
      },
      trials: 3,
      sandbox: "local",
      network: false,
      source: { file: path.join(FULL, "full.yaml"), line: 1, format: "yaml" },
    });
  });

  test("a solution given as one string is one bash call, a block scalar included", async () => {
    const dir = await makeTree({
      "one.yaml": "task: t\nsolution: echo hi > a.txt && ls\n",
      "block.yaml": "task: t\nsolution: |\n  echo hi > a.txt\n  ls\n",
    });
    const scenarios = await loadScenarios([dir]);
    const solutions = Object.fromEntries(scenarios.map((s) => [s.id, s.solution]));
    expect(solutions).toEqual({ one: ["echo hi > a.txt && ls"], block: ["echo hi > a.txt\nls\n"] });
    const empty = await makeTree({ "s.yaml": 'task: t\nsolution: ""\n' });
    expect(await configErrorOf(() => loadScenarios([empty]))).toContain(
      "s.yaml:2: solution: must not be empty",
    );
  });

  test("the basic echo scenario has a real target, a solution and gates", async () => {
    const [echo] = await loadScenarios(["basic/echo.yaml"], { cwd: FIXTURES });
    expect(echo?.id).toBe("echo");
    expect(echo?.target.binary).toBe("ls");
    expect(echo?.solution).toEqual(['echo "hello world" > hello.txt', "ls"]);
    expect(echo?.evaluation.gates.map((gate) => gate.type)).toEqual([
      "file_exists",
      "file_contains",
      "command_output_contains",
      "no_transcript_errors",
    ]);
  });
});

describe("defaults and shorthands", () => {
  test("a minimal scenario gets the documented defaults", async () => {
    const dir = await makeTree({ "minimal-one.yaml": "task: Do the thing\n" });
    const [scenario] = await loadScenarios(["minimal-one.yaml"], { cwd: dir });
    expect(scenario).toEqual({
      id: "minimal-one",
      category: "uncategorized",
      tags: [],
      tier: 1,
      task: "Do the thing",
      files: {},
      setup: [],
      variants: [],
      target: { env: {} },
      agent: {},
      evaluation: { gates: [] },
      source: { file: path.join(dir, "minimal-one.yaml"), line: 1, format: "yaml" },
      contentHash: expect.stringMatching(/^[0-9a-f]{64}$/),
      measurementHash: expect.stringMatching(/^[0-9a-f]{64}$/),
      treatment: { guidance: null, variants: {}, tool: null },
    });
  });

  test("guidance as a plain path, durations in every form, judge defaults, check gates", async () => {
    const dir = await makeTree({
      "s.yml": [
        "name: short",
        "task: t",
        "guidance: docs/AGENTS.md",
        "target:",
        "  binary: ./bin/tool",
        "agent:",
        "  timeout: 90",
        "  command_timeout: 1m30s",
        "evaluation:",
        "  gates:",
        "    - check: stdout_regex:(?i)done",
        "      weight: 2",
        "    - check: llm_judge:was it tidy?",
        "    - {type: tool_calls_max, count: 4, description: few calls}",
        "  judge:",
        "    rubric: r.yaml",
        "sandbox: bwrap",
        "files:",
        "  /etc/app.conf: 'x=1'",
        "",
      ].join("\n"),
      "docs/AGENTS.md": "# guide\n",
      "r.yaml": "criteria:\n  - {id: only, weight: 1, description: all of it}\n",
    });
    const [scenario] = await loadScenarios(["s.yml"], { cwd: dir });
    expect(scenario?.guidance).toEqual({ file: path.join(dir, "docs/AGENTS.md"), mode: "workdir" });
    expect(scenario?.target).toEqual({ binary: path.join(dir, "bin/tool"), env: {} });
    expect(scenario?.agent).toEqual({ timeoutMs: 90_000, commandTimeoutMs: 90_000 });
    expect(scenario?.files).toEqual({ "/etc/app.conf": "x=1" });
    expect(scenario?.evaluation.gates).toEqual([
      { type: "stdout_regex", pattern: "(?i)done", weight: 2, description: "stdout_regex:(?i)done" },
      { type: "llm_judge", prompt: "was it tidy?", weight: 0, description: "llm_judge:was it tidy?" },
      { type: "tool_calls_max", count: 4, weight: 1, description: "few calls" },
    ]);
    expect(scenario?.evaluation.judge).toEqual({
      enabled: true,
      passThreshold: 0.7,
      rubric: {
        file: path.join(dir, "r.yaml"),
        criteria: [{ id: "only", weight: 1, description: "all of it" }],
      },
    });
  });

  test("a disabled judge without a rubric is no judge", async () => {
    const dir = await makeTree({ "s.yaml": "task: t\nevaluation:\n  judge: {enabled: false}\n" });
    const [scenario] = await loadScenarios(["s.yaml"], { cwd: dir });
    expect(scenario?.evaluation).toEqual({ gates: [] });
  });
});

describe("directories", () => {
  test("finds scenarios recursively, skipping fixtures, node_modules, hidden folders and non-scenario YAML", async () => {
    const dir = await makeTree({
      "suite/a.yaml": "name: zeta\ntask: t\n",
      "suite/nested/b.yml": "name: alpha\ntask: t\n",
      "suite/nested/deeper/c.yaml": "task: t\n",
      "suite/rubrics/r.yaml": "criteria:\n  - {id: a, weight: 1, description: x}\n",
      "suite/config.yaml": "settings: {a: 1}\n",
      "suite/notes.txt": "not yaml",
      "suite/fixtures/f.yaml": "name: in_fixtures\ntask: t\n",
      "suite/node_modules/m.yaml": "name: in_node_modules\ntask: t\n",
      "suite/.hidden/h.yaml": "name: hidden\ntask: t\n",
      "suite/.dot.yaml": "name: dotfile\ntask: t\n",
    });
    const scenarios = await loadScenarios(["suite"], { cwd: dir });
    expect(scenarios.map((scenario) => scenario.id)).toEqual(["alpha", "c", "zeta"]);
  });

  test("a file given twice, directly and through its directory, loads once", async () => {
    const dir = await makeTree({ "suite/a.yaml": "name: a\ntask: t\n" });
    const scenarios = await loadScenarios(["suite", "suite/a.yaml", "./suite/a.yaml"], { cwd: dir });
    expect(scenarios.map((scenario) => scenario.id)).toEqual(["a"]);
  });

  test("an explicit YAML file without task is an error even though a directory scan would skip it", async () => {
    const dir = await makeTree({ "suite/r.yaml": "criteria: []\n" });
    expect(await configErrorOf(() => loadScenarios(["suite/r.yaml"], { cwd: dir }))).toBe(
      "suite/r.yaml:1: criteria: unknown key `criteria` (expected one of: name, description, category, tags, tier, task, system, fixture, files, setup, guidance, variants, target, agent, solution, evaluation, tolerance_gates, trials, sandbox, network)\n" +
        "suite/r.yaml:1: task: missing required key `task` (the message given to the agent)",
    );
  });

  test("the shared fixture directory loads: YAML scenarios only, sorted by id", async () => {
    const scenarios = await loadScenarios(["."], { cwd: FIXTURES });
    expect(scenarios.map((scenario) => scenario.id)).toEqual(["echo", "sort_names"]);
  });

  test("YAML and JSONL mix, sorted by id", async () => {
    const dir = await makeTree({
      "m.yaml": "name: m_yaml\ntask: t\n",
      "d.jsonl":
        '{"id":"z_task","category":"c","description":"d","prompt":"p","expectations":[]}\n{"id":"a_task","category":"c","description":"d","prompt":"p","expectations":[]}\n',
    });
    const scenarios = await loadScenarios(["d.jsonl", "m.yaml"], { cwd: dir });
    expect(scenarios.map((scenario) => scenario.id)).toEqual(["a_task", "m_yaml", "z_task"]);
  });
});

describe("contentHash", () => {
  test("is the same for a copy elsewhere and changes with any referenced file", async () => {
    const [original] = await loadScenarios(["full/full.yaml"], { cwd: FIXTURES });
    const copy = await makeTree({});
    await cp(FULL, copy, { recursive: true });
    const load = async () => (await loadScenarios(["full.yaml"], { cwd: copy }))[0]?.contentHash;
    expect(await load()).toBe(original?.contentHash);

    const edits: Array<[string, string]> = [
      ["fixtures/project/names.txt", "cy\nada\nbob\ndan\n"],
      ["guidance/AGENTS.md", "# changed\n"],
      ["guidance/AGENTS-v2.md", "# changed\n"],
      [
        "rubrics/quality.yaml",
        "# a comment changes the file\ncriteria:\n  - {id: a, weight: 1, description: x}\n",
      ],
      ["full.yaml", (await readFile(path.join(FULL, "full.yaml"), "utf8")).replace("tier: 2", "tier: 3")],
    ];
    // Comments and formatting are not part of the scenario: they leave the hash alone.
    const text = await readFile(path.join(copy, "full.yaml"), "utf8");
    await writeFile(path.join(copy, "full.yaml"), `${text}\n# trailing comment\n`);
    expect(await load()).toBe(original?.contentHash);
    await writeFile(path.join(copy, "full.yaml"), text);

    const seen = new Set([original?.contentHash]);
    for (const [file, content] of edits) {
      await writeFile(path.join(copy, file), content);
      const hash = await load();
      expect(seen.has(hash), `editing ${file} must change the hash`).toBe(false);
      seen.add(hash);
    }
  });

  test("a new file in the fixture tree changes the hash", async () => {
    const dir = await makeTree({ "s.yaml": "task: t\nfixture: data\n", "data/a.txt": "a" });
    const before = (await loadScenarios(["s.yaml"], { cwd: dir }))[0]?.contentHash;
    await writeFile(path.join(dir, "data/b.txt"), "");
    const after = (await loadScenarios(["s.yaml"], { cwd: dir }))[0]?.contentHash;
    expect(after).not.toBe(before);
  });
});

describe("parseYamlText / parseYamlFile", () => {
  test("parse plain data", async () => {
    expect(parseYamlText("a: [1, two]\nb: {c: null}\n")).toEqual({ a: [1, "two"], b: { c: null } });
    const dir = await makeTree({ "p.yaml": "x: &anchor {y: 1}\nz: *anchor\n" });
    expect(await parseYamlFile("p.yaml", { cwd: dir })).toEqual({ x: { y: 1 }, z: { y: 1 } });
  });

  test("syntax errors name the file and line", async () => {
    expect(await configErrorOf(async () => parseYamlText("a: 1\nb: [\n", "prices.yaml", { cwd: "/" }))).toBe(
      "prices.yaml:3: YAML syntax error: Flow sequence in block collection must be sufficiently indented and end with a ]",
    );
    const dir = await makeTree({});
    expect(await configErrorOf(() => parseYamlFile("none.yaml", { cwd: dir }))).toBe(
      "none.yaml: cannot read the file (ENOENT)",
    );
  });
});
