import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { evaluateGates } from "../../src/evaluate/gates.js";
import { createCheckGate } from "../../src/scenario/gates.js";
import { loadScenarios } from "../../src/scenario/load.js";
import type { GateSpec } from "../../src/scenario/types.js";
import { configErrorOf, makeTree } from "./helpers.js";

const PEERS = path.resolve(import.meta.dirname, "../fixtures/bashkit-eval");
const EVAL_TASKS = path.join(PEERS, "eval-tasks.jsonl");
const SMOKE = path.join(PEERS, "smoke-test.jsonl");

describe("bashkit-eval peer datasets", () => {
  test("ship unchanged in examples/bashkit-eval, with a README crediting their source", async () => {
    const examples = path.resolve(import.meta.dirname, "../../examples/bashkit-eval");
    for (const name of ["eval-tasks.jsonl", "smoke-test.jsonl"]) {
      expect(await readFile(path.join(examples, name), "utf8"), name).toBe(
        await readFile(path.join(PEERS, name), "utf8"),
      );
    }
    expect(await readFile(path.join(examples, "README.md"), "utf8")).toMatch(/everruns\/bashkit.*MIT/s);
    expect(await loadScenarios([path.join(examples, "smoke-test.jsonl")])).toHaveLength(3);
  });

  test("the 58-task dataset loads: categories, gates, weights", async () => {
    const scenarios = await loadScenarios([EVAL_TASKS]);
    expect(scenarios).toHaveLength(58);
    const byCategory = new Map<string, number>();
    for (const scenario of scenarios)
      byCategory.set(scenario.category, (byCategory.get(scenario.category) ?? 0) + 1);
    expect(Object.fromEntries([...byCategory].sort())).toEqual({
      archive_operations: 2,
      build_simulation: 2,
      code_search: 2,
      complex_tasks: 6,
      config_management: 2,
      data_transformation: 6,
      database_operations: 2,
      environment: 2,
      error_recovery: 2,
      file_operations: 4,
      json_processing: 8,
      pipelines: 5,
      scripting: 7,
      system_info: 2,
      text_processing: 6,
    });
    const gates = scenarios.flatMap((scenario) => scenario.evaluation.gates);
    expect(gates).toHaveLength(314);
    const types = new Map<string, number>();
    for (const gate of gates) types.set(gate.type, (types.get(gate.type) ?? 0) + 1);
    expect(Object.fromEntries([...types].sort())).toEqual({
      dir_exists: 3,
      exit_code: 58,
      file_contains: 74,
      file_exists: 43,
      file_line_regex: 4,
      stdout_contains: 122,
      stdout_regex: 10,
    });
    // Every gate keeps its original check string; weights default to 1, two are 0.5 and one is 2.
    expect(
      gates.every((gate) => typeof gate.description === "string" && gate.description.includes(":")),
    ).toBe(true);
    expect(gates.filter((gate) => gate.weight !== 1).map((gate) => [gate.description, gate.weight])).toEqual([
      ["file_exists:/output/notes.txt", 2],
      ["file_contains:/doc/README.md:Installation", 0.5],
      ["file_contains:/doc/README.md:Contributing", 0.5],
    ]);
    for (const scenario of scenarios) {
      expect(scenario.sandbox).toBe("bwrap");
      expect(scenario.source).toEqual({
        file: EVAL_TASKS,
        line: expect.any(Number),
        format: "bashkit-jsonl",
      });
      expect(scenario.task.length).toBeGreaterThan(0);
    }
  });

  test("tasks keep their line, prompt, description and absolute files", async () => {
    const lines = (await readFile(EVAL_TASKS, "utf8")).split("\n");
    const scenarios = await loadScenarios([EVAL_TASKS]);
    const backup = scenarios.find((scenario) => scenario.id === "file_ops_backup_rename");
    const raw = JSON.parse(lines[(backup?.source.line ?? 0) - 1] ?? "{}");
    expect(raw.id).toBe("file_ops_backup_rename");
    expect(backup).toMatchObject({
      category: "file_operations",
      description: "Backup a config file then modify the original",
      task: raw.prompt,
      files: { "/data/config.yaml": "version: 1\nmode: production\nretries: 3\n" },
      tags: [],
      tier: 1,
      setup: [],
    });
    expect(backup?.evaluation.gates).toEqual([
      {
        type: "file_exists",
        path: "/data/config.yaml.bak",
        weight: 1,
        description: "file_exists:/data/config.yaml.bak",
      },
      {
        type: "file_contains",
        path: "/data/config.yaml.bak",
        substring: "version: 1",
        weight: 1,
        description: "file_contains:/data/config.yaml.bak:version: 1",
      },
      {
        type: "file_contains",
        path: "/data/config.yaml",
        substring: "updated: true",
        weight: 1,
        description: "file_contains:/data/config.yaml:updated: true",
      },
      {
        type: "file_contains",
        path: "/data/config.yaml",
        substring: "version: 1",
        weight: 1,
        description: "file_contains:/data/config.yaml:version: 1",
      },
      { type: "exit_code", code: 0, weight: 1, description: "exit_code:0" },
    ]);
  });

  test("regex checks with Rust inline flags and CSV line patterns are kept verbatim", async () => {
    const scenarios = await loadScenarios([EVAL_TASKS]);
    const patterns = scenarios
      .flatMap((scenario) => scenario.evaluation.gates)
      .flatMap((gate) => (gate.type === "stdout_regex" || gate.type === "file_line_regex" ? [gate] : []));
    expect(patterns.find((gate) => gate.pattern.startsWith("(?i)files?"))).toEqual({
      type: "stdout_regex",
      pattern: "(?i)files? modified.*3|3.*files? modified",
      weight: 1,
      description: "stdout_regex:(?i)files? modified.*3|3.*files? modified",
    });
    expect(patterns.find((gate) => gate.type === "file_line_regex")).toEqual({
      type: "file_line_regex",
      path: "/data/employees.csv",
      pattern: '^(?:"Alice Chen"|Alice Chen),(?:"Engineering"|Engineering),(?:"120000"|120000)$',
      weight: 1,
      description:
        'file_line_regex:/data/employees.csv:^(?:"Alice Chen"|Alice Chen),(?:"Engineering"|Engineering),(?:"120000"|120000)$',
    });
  });

  test("the 3-task smoke dataset loads", async () => {
    const scenarios = await loadScenarios([SMOKE]);
    expect(scenarios.map((scenario) => [scenario.id, scenario.category, scenario.source.line])).toEqual([
      ["smoke_echo", "basic", 1],
      ["smoke_file_create", "basic", 2],
      ["smoke_grep", "basic", 3],
    ]);
    expect(scenarios[2]?.files).toEqual({
      "/var/log/test.log": "INFO: started\nERROR: failed\nWARN: slow\nerror: bad input\nINFO: done\n",
    });
    expect(scenarios[2]?.evaluation.gates).toEqual([
      { type: "stdout_contains", substring: "2", weight: 1, description: "stdout_contains:2" },
      { type: "exit_code", code: 0, weight: 1, description: "exit_code:0" },
    ]);
  });

  test("both datasets load together without id clashes", async () => {
    expect(await loadScenarios([EVAL_TASKS, SMOKE])).toHaveLength(61);
  });
});

describe("check strings", () => {
  test.each([
    ["exit_code:0", { type: "exit_code", code: 0 }],
    ["exit_code:2", { type: "exit_code", code: 2 }],
    ["stdout_contains:a:b c", { type: "stdout_contains", substring: "a:b c" }],
    ["stdout_regex:\\d+ files", { type: "stdout_regex", pattern: "\\d+ files" }],
    ["stderr_empty", { type: "stderr_empty" }],
    ["file_exists:/a/b", { type: "file_exists", path: "/a/b" }],
    ["dir_exists:/a", { type: "dir_exists", path: "/a" }],
    [
      "file_contains:/etc/x.conf:key: value",
      { type: "file_contains", path: "/etc/x.conf", substring: "key: value" },
    ],
    ["file_line_regex:/d.csv:^a,b$", { type: "file_line_regex", path: "/d.csv", pattern: "^a,b$" }],
    ["tool_calls_min:2", { type: "tool_calls_min", count: 2 }],
    ["tool_calls_max:10", { type: "tool_calls_max", count: 10 }],
  ])("%s", (check, expected) => {
    expect(createCheckGate(check, 1.5)).toEqual({ ...expected, weight: 1.5, description: check });
  });

  test("llm_judge is a stub with weight 0", () => {
    expect(createCheckGate("llm_judge:Is it good?", 3)).toEqual({
      type: "llm_judge",
      prompt: "Is it good?",
      weight: 0,
      description: "llm_judge:Is it good?",
    });
  });

  test.each([
    ["exit_code:abc", '`exit_code` needs an exit code (an integer from 0 to 255), found "abc"'],
    ["exit_code:", '`exit_code` needs an exit code (an integer from 0 to 255), found ""'],
    ["stdout_contains:", "`stdout_contains` needs a text, e.g. `stdout_contains:text`"],
    ["stdout_regex:(", 'invalid regex "(": missing closing ) in `(`'],
    ["stdout_regex:(?x)a b", 'invalid regex "(?x)a b": invalid or unsupported Perl syntax in `(?x`'],
    ["stderr_empty:yes", '`stderr_empty` takes no value, found "yes"'],
    ["file_contains:/path-only", 'expected `file_contains:/path:text`, found "file_contains:/path-only"'],
    ["file_contains:/path:", 'expected `file_contains:/path:text`, found "file_contains:/path:"'],
    ["file_line_regex:/p:[", 'invalid regex "[": missing closing ] in `[`'],
    ["tool_calls_min:-1", '`tool_calls_min` needs a non-negative integer, found "-1"'],
    ["dir_exists", "`dir_exists` needs a path, e.g. `dir_exists:path`"],
    ["files_exist:/a", 'unknown check type `files_exist` in "files_exist:/a" (did you mean `file_exists`?)'],
    [
      "frobnicate:1",
      'unknown check type `frobnicate` in "frobnicate:1" (expected one of: exit_code, stdout_contains, stdout_regex, stderr_empty, file_exists, dir_exists, file_contains, file_line_regex, tool_calls_min, tool_calls_max, llm_judge)',
    ],
  ])("rejects %s", (check, message) => {
    expect(() => createCheckGate(check, 1)).toThrowError(new Error(message));
  });
});

describe("malformed datasets", () => {
  const task = (fields: Record<string, unknown>) =>
    JSON.stringify({
      id: "t",
      category: "c",
      description: "d",
      prompt: "p",
      files: {},
      expectations: [],
      ...fields,
    });

  test("a check of an unknown type loads as a failing gate, with a warning naming the file and line", async () => {
    const dir = await makeTree({
      "d.jsonl": [
        task({ id: "ok" }),
        "",
        "# a comment line",
        task({
          id: "odd",
          expectations: [{ check: "exit_code:0" }, { check: "stdout_matches:x", weight: 2 }],
        }),
        "",
      ].join("\n"),
    });
    const warnings: string[] = [];
    const scenarios = await loadScenarios(["d.jsonl"], {
      cwd: dir,
      onWarning: (message) => warnings.push(message),
    });
    expect(scenarios.map((scenario) => scenario.id)).toEqual(["odd", "ok"]);
    expect(warnings).toEqual([
      'd.jsonl:4: expectations[1].check: unknown check type `stdout_matches` in "stdout_matches:x" (expected one of: exit_code, stdout_contains, stdout_regex, stderr_empty, file_exists, dir_exists, file_contains, file_line_regex, tool_calls_min, tool_calls_max, llm_judge): the check fails in every trial, as in bashkit-eval',
    ]);
    const gates = scenarios[0]?.evaluation.gates ?? [];
    expect(gates[1]).toEqual({
      type: "unsupported_check",
      check: "stdout_matches:x",
      weight: 2,
      description: "stdout_matches:x",
    });
    const [result] = await evaluateGates([gates[1] as GateSpec], {
      sandbox: {
        runGateCommand: () => Promise.reject(new Error("not used")),
        gateFiles: { root: "/nonexistent", workDir: "/nonexistent", absoluteLinks: "host" },
      },
      events: [],
      invocations: [],
      invocationSource: "none",
      recordedCalls: [],
      scriptEnv: {},
      gateTimeoutMs: 1000,
    });
    expect(result).toMatchObject({
      gate_type: "unsupported_check",
      passed: false,
      weight: 2,
      description: "stdout_matches:x",
    });
    expect(result?.message).toContain("unsupported check type `stdout_matches`");
  });

  test("a known check type that is malformed still rejects the dataset", async () => {
    const dir = await makeTree({ "d.jsonl": task({ expectations: [{ check: "exit_code:zero" }] }) });
    expect(await configErrorOf(() => loadScenarios(["d.jsonl"], { cwd: dir }))).toBe(
      'd.jsonl:1: expectations[0].check: `exit_code` needs an exit code (an integer from 0 to 255), found "zero"',
    );
  });

  test("tasks run as in bashkit-eval: 10 turns, hostname bashkit-eval, writable system folders, the current bashkit's home", async () => {
    const dir = await makeTree({ "d.jsonl": task({}) });
    const [scenario] = await loadScenarios(["d.jsonl"], { cwd: dir });
    expect(scenario?.agent).toEqual({ maxTurns: 10 });
    expect(scenario?.machine).toEqual({
      hostname: "bashkit-eval",
      writableSystemDirs: true,
      home: {
        name: "bashkit-home-created",
        workDir: "/home/user",
        home: "/home/eval",
        homeExists: true,
        passwdHome: "/home/eval",
      },
    });
    expect(scenario?.sandbox).toBe("bwrap");
  });

  test("every malformed line is reported", async () => {
    const dir = await makeTree({
      "d.jsonl": [
        "{not json",
        "[1, 2]",
        JSON.stringify({ id: "x", category: "c", description: "d", expectations: [] }),
        task({ id: "y", expectations: [{ check: "exit_code:0", weight: -1 }], extra: true }),
        task({ id: "z", files: { "/a": 1 } }),
        task({ id: "w", verify: "true" }),
        task({ id: "has space" }),
        task({ id: "v", files: { "": "x", " ": "y" } }),
      ].join("\n"),
    });
    const message = await configErrorOf(() => loadScenarios(["d.jsonl"], { cwd: dir }));
    const lines = message.split("\n");
    expect(lines[0]).toMatch(/^d\.jsonl:1: invalid JSON: ./);
    expect(lines.slice(1)).toEqual([
      "d.jsonl:2: expected a JSON object (one bashkit-eval task), found a list",
      "d.jsonl:3: prompt: missing required key `prompt`",
      "d.jsonl:4: extra: unknown key `extra` for a bashkit-eval task (expected one of: id, category, description, system, prompt, files, expectations, mode, difficulty, max_turns, setup)",
      "d.jsonl:4: expectations[0].weight: expected a number >= 0, found a number (-1)",
      'd.jsonl:5: files["/a"]: expected a string, found a number (1); quote it: "1"',
      "d.jsonl:6: verify: unknown key `verify` for a bashkit-eval task (bashkit-eval `verify` scripts are not supported; express the check as an expectation)",
      'd.jsonl:7: id: expected letters, digits, `.`, `_` and `-` (it names the output folder), found "has space"',
      'd.jsonl:8: files[""]: a file name must not be empty',
      'd.jsonl:8: files[" "]: a file name must not be blank: it holds only whitespace (" ")',
    ]);
  });

  test("duplicate ids within a dataset name both lines", async () => {
    const dir = await makeTree({ "d.jsonl": `${task({ id: "same" })}\n${task({ id: "same" })}\n` });
    expect(await configErrorOf(() => loadScenarios(["d.jsonl"], { cwd: dir }))).toBe(
      "d.jsonl:2: id: duplicate scenario id `same`, also used by d.jsonl:1",
    );
  });

  test("an empty dataset is an error", async () => {
    const dir = await makeTree({ "d.jsonl": "\n# nothing\n" });
    expect(await configErrorOf(() => loadScenarios(["d.jsonl"], { cwd: dir }))).toBe(
      "d.jsonl: the dataset has no tasks (expected one JSON object a line)",
    );
  });

  test("optional bashkit fields map to tags, max turns and setup", async () => {
    const dir = await makeTree({
      "d.jsonl": task({
        mode: "runtime",
        difficulty: "hard",
        max_turns: 4,
        setup: "git init -q",
        system: "Be brief.",
      }),
    });
    const [scenario] = await loadScenarios(["d.jsonl"], { cwd: dir });
    expect(scenario).toMatchObject({
      tags: ["runtime", "hard"],
      agent: { maxTurns: 4 },
      setup: ["git init -q"],
      system: "Be brief.",
      description: "d",
    });
  });
});
