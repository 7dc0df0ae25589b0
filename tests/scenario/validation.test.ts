/**
 * Malformed scenarios, each with the exact error the loader must produce: file, 1-based line,
 * field path, and what was expected. Problems in a file are reported together, one per line.
 */
import path from "node:path";
import { describe, expect, test } from "vitest";
import { GATE_TYPES } from "../../src/scenario/format.js";
import { loadRubric, loadScenarios } from "../../src/scenario/load.js";
import { configErrorOf, makeTree } from "./helpers.js";

const GATES = `evaluation:
  gates:
    - type: file_exists
      path: out.txt
`;

interface Case {
  name: string;
  files: Record<string, string>;
  /** Paths given to loadScenarios (default: s.yaml). */
  paths?: string[];
  /** The whole error message; `<dir>` stands for the temporary directory. */
  error: string;
}

const cases: Case[] = [
  {
    name: "unknown key with a did-you-mean, reported with the missing task",
    files: { "s.yaml": "name: a\ntsk: do it\n" },
    error: [
      "s.yaml:1: task: missing required key `task` (the message given to the agent)",
      "s.yaml:2: tsk: unknown key `tsk` (did you mean `task`?)",
    ].join("\n"),
  },
  {
    name: "unknown nested key with a did-you-mean",
    files: { "s.yaml": "task: t\nagent:\n  max_turn: 3\n" },
    error: "s.yaml:3: agent.max_turn: unknown key `max_turn` for agent (did you mean `max_turns`?)",
  },
  {
    name: "unknown key far from any known key lists the known keys",
    files: { "s.yaml": "task: t\ntarget:\n  zzzzzz: 1\n" },
    error:
      "s.yaml:3: target.zzzzzz: unknown key `zzzzzz` for target (expected one of: binary, command_pattern, global_options, env)",
  },
  {
    name: "tolerance gates: an unknown metric, a bare number and a decrease, each named",
    files: {
      "s.yaml": 'task: t\ntolerance_gates:\n  input_token: "+20%"\n  turns: 0.2\n  cost_usd: "-5%"\n',
    },
    error: [
      "s.yaml:3: tolerance_gates.input_token: unknown key `input_token` (did you mean `input_tokens`?)",
      "s.yaml:4: tolerance_gates.turns: expected a string, found a number (0.2)",
      's.yaml:5: tolerance_gates.cost_usd: expected an increase in percent such as "+20%", got "-5%"',
    ].join("\n"),
  },
  {
    name: "a key from another format gets a hint",
    files: { "s.yaml": "name: a\nprompt: do it\n" },
    error: [
      "s.yaml:1: task: missing required key `task` (the message given to the agent)",
      "s.yaml:2: prompt: unknown key `prompt` (the message given to the agent is written `task`)",
    ].join("\n"),
  },
  {
    name: "missing task",
    files: { "s.yaml": "# a comment first\nname: a\ncategory: c\n" },
    error: "s.yaml:2: task: missing required key `task` (the message given to the agent)",
  },
  {
    name: "wrong type: integer expected",
    files: { "s.yaml": "task: t\ntier: high\n" },
    error: 's.yaml:2: tier: expected an integer >= 0, found a string ("high")',
  },
  {
    name: "wrong type: string expected",
    files: { "s.yaml": "task:\n  - a\n  - b\n" },
    error: "s.yaml:2: task: expected a string, found a list",
  },
  {
    name: "wrong type: mapping expected",
    files: { "s.yaml": "task: t\nagent: fast\n" },
    error: 's.yaml:2: agent: expected a mapping, found a string ("fast")',
  },
  {
    name: "wrong type: env values must be strings",
    files: { "s.yaml": "task: t\ntarget:\n  env:\n    PORT: 8080\n" },
    error: 's.yaml:4: target.env.PORT: expected a string, found a number (8080); quote it: "8080"',
  },
  {
    name: "empty file",
    files: { "s.yaml": "# nothing here\n" },
    error: "s.yaml:1: expected a mapping of scenario fields (at least `task`), found nothing (null)",
  },
  {
    name: "empty task",
    files: { "s.yaml": 'task: ""\n' },
    error: "s.yaml:1: task: must not be empty",
  },
  {
    name: "a task of only whitespace is told apart from an empty one",
    files: { "s.yaml": 'task: " \\t "\n' },
    error: 's.yaml:1: task: must not be blank: it holds only whitespace (" \\t ")',
  },
  {
    name: "inline file names that are empty or only whitespace",
    files: { "s.yaml": 'task: t\nfiles:\n  "": x\n  "  ": y\n' },
    error: [
      's.yaml:3: files[""]: a file name must not be empty',
      's.yaml:4: files["  "]: a file name must not be blank: it holds only whitespace ("  ")',
    ].join("\n"),
  },
  {
    name: "environment variable names that are empty, blank or not names, in target.env and a variant's env",
    files: {
      "s.yaml":
        'task: t\ntarget:\n  env:\n    "": a\n    " ": b\n    "A=B": c\n    "A\\0B": d\n    1X: e\n    OK_1: f\nvariants:\n  - name: v\n    env: {"x-y": g}\n',
    },
    error: [
      's.yaml:4: target.env[""]: an environment variable name must not be empty',
      's.yaml:5: target.env[" "]: an environment variable name must not be blank: it holds only whitespace (" ")',
      's.yaml:6: target.env["A=B"]: "A=B" is not an environment variable name: use letters, digits and _, not starting with a digit',
      's.yaml:7: target.env["A\\u0000B"]: "A\\u0000B" is not an environment variable name: use letters, digits and _, not starting with a digit',
      's.yaml:8: target.env["1X"]: "1X" is not an environment variable name: use letters, digits and _, not starting with a digit',
      's.yaml:12: variants[0].env.x-y: "x-y" is not an environment variable name: use letters, digits and _, not starting with a digit',
    ].join("\n"),
  },
  {
    name: "invalid id",
    files: { "s.yaml": "name: my scenario\ntask: t\n" },
    error:
      's.yaml:1: name: expected letters, digits, `.`, `_` and `-`, starting with a letter or digit (it names the output folder), found "my scenario"',
  },
  {
    name: "fixture escaping the scenario's folder",
    files: { "suite/s.yaml": "task: t\nfixture: ../outside\n", "outside/": "" },
    paths: ["suite/s.yaml"],
    error:
      'suite/s.yaml:2: fixture: "../outside" is outside the scenario\'s folder; a fixture must be a directory next to the scenario file',
  },
  {
    name: "fixture missing",
    files: { "s.yaml": "task: t\nfixture: fixtures/nope\n" },
    error: 's.yaml:2: fixture: directory "fixtures/nope" does not exist (looked for <dir>/fixtures/nope)',
  },
  {
    name: "fixture is a file",
    files: { "s.yaml": "task: t\nfixture: data.txt\n", "data.txt": "x" },
    error:
      's.yaml:2: fixture: "data.txt" is a file; a fixture must be a directory (its contents are copied into the work dir)',
  },
  {
    name: "invalid regex in a gate",
    files: {
      "s.yaml":
        "task: t\nevaluation:\n  gates:\n    - type: command_output_matches\n      command: ls\n      pattern: 'a('\n",
    },
    error: 's.yaml:6: evaluation.gates[0].pattern: invalid regex "a(": missing closing ) in `a(`',
  },
  {
    name: "invalid regex in target.command_pattern",
    files: { "s.yaml": "task: t\ntarget:\n  command_pattern: 'tool\\s+([a-z'\n" },
    error: 's.yaml:3: target.command_pattern: invalid regex "tool\\\\s+([a-z": missing closing ] in `[a-z`',
  },
  {
    name: "target.global_options: not a list, a value given with the option, a name twice",
    files: {
      "s.yaml": "task: t\ntarget:\n  global_options: -f\n",
      "t.yaml":
        "task: t\ntarget:\n  global_options:\n    - -f\n    - --file main.journal\n    - file\n    - -f\n    - 3\n",
    },
    paths: ["s.yaml", "t.yaml"],
    error: [
      's.yaml:3: target.global_options: expected a list of option names such as [-f, --file], found a string ("-f")',
      't.yaml:5: target.global_options[1]: "--file main.journal" is not an option name: write it as the tool spells it, without its value (`-f`, `--file`), one option per item',
      't.yaml:6: target.global_options[2]: "file" is not an option name: write it as the tool spells it, without its value (`-f`, `--file`), one option per item',
      't.yaml:7: target.global_options[3]: "-f" is listed twice',
      "t.yaml:8: target.global_options[4]: expected a string, found a number (3)",
    ].join("\n"),
  },
  {
    name: "a regex that needs backtracking (lookahead)",
    files: { "s.yaml": "task: t\nevaluation:\n  gates:\n    - {type: stdout_regex, pattern: 'a(?=b)'}\n" },
    error:
      's.yaml:4: evaluation.gates[0].pattern: invalid regex "a(?=b)": lookahead `(?=` is not supported: gate regexes run in linear time (RE2), which cannot express it',
  },
  {
    name: "invalid JSONPath",
    files: {
      "s.yaml":
        "task: t\nevaluation:\n  gates:\n    - type: command_json_path\n      command: cat x.json\n      path: $.items[\n      assertion: exists\n",
    },
    error: 's.yaml:6: evaluation.gates[0].path: invalid JSONPath "$.items[": unclosed `[` at character 8',
  },
  {
    name: "bad assertion",
    files: {
      "s.yaml":
        "task: t\nevaluation:\n  gates:\n    - type: command_json_path\n      command: cat x.json\n      path: $.items\n      assertion: len => 3\n",
    },
    error:
      "s.yaml:7: evaluation.gates[0].assertion: invalid length assertion `len => 3`: expected `len <op> N` with <op> one of >=, ==, >, <=, < and N a non-negative integer",
  },
  {
    name: "bad duration",
    files: { "s.yaml": "task: t\nagent:\n  timeout: 5 minutes\n" },
    error:
      's.yaml:3: agent.timeout: expected a duration like "300s", "5m", "1500ms", "1h" or a number of seconds, found "5 minutes"',
  },
  {
    name: "zero duration",
    files: { "s.yaml": "task: t\nagent:\n  command_timeout: 0\n" },
    error: "s.yaml:3: agent.command_timeout: expected a positive duration, found 0",
  },
  {
    name: "composite weights not summing to 1",
    files: {
      "s.yaml": `task: t\n${GATES}  composite:\n    gate_weight: 0.5\n    interaction_weight: 0.4\n`,
    },
    error:
      "s.yaml:6: evaluation.composite: weights must sum to 1, found 0.9 (gate_weight 0.5 + interaction_weight 0.4)",
  },
  {
    name: "composite judge weight without a judge",
    files: { "s.yaml": `task: t\n${GATES}  composite: {gate_weight: 0.7, judge_weight: 0.3}\n` },
    error:
      "s.yaml:6: evaluation.composite.judge_weight: a judge weight of 0.3 needs an enabled judge: configure `evaluation.judge` or set it to 0",
  },
  {
    name: "negative composite weight",
    files: { "s.yaml": `task: t\n${GATES}  composite: {gate_weight: 1.5, interaction_weight: -0.5}\n` },
    error: "s.yaml:6: evaluation.composite.interaction_weight: expected a number >= 0, found a number (-0.5)",
  },
  {
    name: "rubric weights not summing to 1 (the error names the rubric file)",
    files: {
      "s.yaml": `task: t\n${GATES}  judge:\n    rubric: r.yaml\n`,
      "r.yaml":
        "criteria:\n  - id: a\n    weight: 0.5\n    description: first\n  - id: b\n    weight: 0.4\n    description: second\n",
    },
    error: "r.yaml:1: criteria: weights must sum to 1, found 0.9 (a 0.5 + b 0.4)",
  },
  {
    name: "judge without a rubric",
    files: { "s.yaml": `task: t\n${GATES}  judge:\n    pass_threshold: 0.5\n` },
    error:
      "s.yaml:7: evaluation.judge.rubric: missing required key `rubric` (a rubric YAML file with `criteria`)",
  },
  {
    name: "judge threshold out of range and rubric missing",
    files: { "s.yaml": `task: t\n${GATES}  judge:\n    rubric: nope.yaml\n    pass_threshold: 70\n` },
    error: [
      's.yaml:7: evaluation.judge.rubric: rubric file "nope.yaml" does not exist (looked for <dir>/nope.yaml)',
      "s.yaml:8: evaluation.judge.pass_threshold: expected a number from 0 to 1, found a number (70)",
    ].join("\n"),
  },
  {
    name: "duplicate ids across files",
    files: { "a.yaml": "name: same\ntask: t\n", "b.yaml": "name: same\ntask: u\n" },
    paths: ["."],
    error: "b.yaml:1: name: duplicate scenario id `same`, also used by a.yaml:1",
  },
  {
    name: "unknown gate type with a did-you-mean",
    files: { "s.yaml": "task: t\nevaluation:\n  gates:\n    - type: comand_succeeds\n      command: ls\n" },
    error:
      "s.yaml:4: evaluation.gates[0].type: unknown gate type `comand_succeeds` (did you mean `command_succeeds`?)",
  },
  {
    name: "unknown gate parameter",
    files: {
      "s.yaml":
        "task: t\nevaluation:\n  gates:\n    - type: file_exists\n      path: a\n      substring: b\n",
    },
    error:
      "s.yaml:6: evaluation.gates[0].substring: unknown key `substring` for a `file_exists` gate (expected one of: type, weight, description, path)",
  },
  {
    name: "missing gate parameter and a misspelt one",
    files: {
      "s.yaml":
        "task: t\nevaluation:\n  gates:\n    - type: file_contains\n      path: a\n      substrng: b\n",
    },
    error: [
      "s.yaml:4: evaluation.gates[0].substring: missing required key `substring` for a `file_contains` gate",
      "s.yaml:6: evaluation.gates[0].substrng: unknown key `substrng` for a `file_contains` gate (did you mean `substring`?)",
    ].join("\n"),
  },
  {
    name: "gate without a type",
    files: { "s.yaml": "task: t\nevaluation:\n  gates:\n    - command: ls\n" },
    error: `s.yaml:4: evaluation.gates[0]: missing required key \`type\` (one of: ${GATE_TYPES.join(", ")})`,
  },
  {
    name: "a behaviour gate without target.binary (only the shim's record can judge it)",
    files: {
      "s.yaml": "task: t\nevaluation:\n  gates:\n    - type: forbidden_commands\n      options: [--force]\n",
    },
    error:
      "s.yaml:4: evaluation.gates[0].type: a `forbidden_commands` gate judges the shim's record of the target's calls: name the tool in `target.binary`",
  },
  {
    name: "behaviour gates with bad parameters: none given, an empty list, not an option name, a regex RE2 refuses, bad counts",
    files: {
      "s.yaml": [
        "task: t",
        "target: {binary: mlr}",
        "evaluation:",
        "  gates:",
        "    - type: forbidden_commands",
        "    - type: forbidden_commands",
        "      subcommands: []",
        '      options: [force, "--ojson=x", --ok]',
        '      patterns: ["^mlr (?=x)", "ok"]',
        "    - type: max_invocations",
        "      total: -1",
        '      subcommands: {sort: 2.5, "": 1, cat: many}',
        "    - type: max_invocations",
        "      subcommands: {}",
        "    - type: no_loops",
        "      repeats: 1",
        "    - {type: no_loops, repeat: 3}",
        "",
      ].join("\n"),
    },
    error: [
      "s.yaml:5: evaluation.gates[0]: a `forbidden_commands` gate needs at least one of `subcommands`, `options`, `patterns`",
      "s.yaml:7: evaluation.gates[1].subcommands: expected at least one subcommand (or leave the key out)",
      's.yaml:8: evaluation.gates[1].options[0]: "force" is not an option name: write it as the tool spells it, with its dashes and without a value (e.g. `--force`, `-f`)',
      's.yaml:8: evaluation.gates[1].options[1]: "--ojson=x" is not an option name: write it as the tool spells it, with its dashes and without a value (e.g. `--force`, `-f`)',
      's.yaml:9: evaluation.gates[1].patterns[0]: invalid regex "^mlr (?=x)": lookahead `(?=` is not supported: gate regexes run in linear time (RE2), which cannot express it',
      "s.yaml:11: evaluation.gates[2].total: expected an integer >= 0, found a number (-1)",
      "s.yaml:12: evaluation.gates[2].subcommands.sort: expected an integer >= 0, found a number (2.5)",
      's.yaml:12: evaluation.gates[2].subcommands[""]: a subcommand must not be empty',
      's.yaml:12: evaluation.gates[2].subcommands.cat: expected an integer >= 0, found a string ("many")',
      "s.yaml:14: evaluation.gates[3].subcommands: expected at least one subcommand with its count, e.g. {sort: 3}",
      "s.yaml:16: evaluation.gates[4].repeats: expected an integer >= 2, found a number (1)",
      "s.yaml:17: evaluation.gates[5].repeat: unknown key `repeat` for a `no_loops` gate (did you mean `repeats`?)",
    ].join("\n"),
  },
  {
    name: "negative gate weight",
    files: { "s.yaml": "task: t\nevaluation:\n  gates:\n    - {type: file_exists, path: a, weight: -1}\n" },
    error: "s.yaml:4: evaluation.gates[0].weight: expected a number >= 0, found a number (-1)",
  },
  {
    name: "bashkit-style check gate with an unknown check type",
    files: { "s.yaml": "task: t\nevaluation:\n  gates:\n    - check: stdout_contain:hello\n" },
    error:
      's.yaml:4: evaluation.gates[0].check: unknown check type `stdout_contain` in "stdout_contain:hello" (did you mean `stdout_contains`?)',
  },
  {
    name: "bashkit-style file_contains check without text",
    files: { "s.yaml": "task: t\nevaluation:\n  gates:\n    - check: file_contains:/tmp/x\n" },
    error:
      's.yaml:4: evaluation.gates[0].check: expected `file_contains:/path:text`, found "file_contains:/tmp/x"',
  },
  {
    name: "llm_judge gates have weight 0",
    files: {
      "s.yaml": "task: t\nevaluation:\n  gates:\n    - {type: llm_judge, prompt: nice?, weight: 2}\n",
    },
    error:
      "s.yaml:4: evaluation.gates[0].weight: an `llm_judge` gate is bashkit-eval's stub (it always passes) and has weight 0; use `evaluation.judge` for a real judge",
  },
  {
    name: "exit code out of range",
    files: { "s.yaml": "task: t\nevaluation:\n  gates:\n    - {type: exit_code, code: 300}\n" },
    error: "s.yaml:4: evaluation.gates[0].code: expected an integer from 0 to 255, found a number (300)",
  },
  {
    name: "enum value with a did-you-mean",
    files: { "s.yaml": "task: t\nsandbox: bwarp\n" },
    error:
      's.yaml:2: sandbox: expected one of `auto`, `local`, `bwrap`, found a string ("bwarp") (did you mean `bwrap`?)',
  },
  {
    name: "guidance file missing and a bad mode",
    files: { "s.yaml": "task: t\nguidance:\n  file: AGENTS.md\n  mode: workdr\n" },
    error: [
      's.yaml:3: guidance.file: guidance file "AGENTS.md" does not exist (looked for <dir>/AGENTS.md)',
      's.yaml:4: guidance.mode: expected one of `workdir`, `system`, `both`, found a string ("workdr") (did you mean `workdir`?)',
    ].join("\n"),
  },
  {
    name: "a variant without a name, guidance without a file (the keys format.ts requires)",
    files: { "s.yaml": "task: t\nvariants:\n  - env: {A: b}\nguidance:\n  mode: system\n" },
    error: [
      "s.yaml:3: variants[0].name: missing required key `name` for a variant",
      "s.yaml:5: guidance.file: missing required key `file` (the guidance document, e.g. AGENTS.md)",
    ].join("\n"),
  },
  {
    name: "duplicate variant names",
    files: { "s.yaml": "task: t\nvariants:\n  - name: v1\n  - name: v1\n" },
    error: "s.yaml:4: variants[1].name: duplicate variant name `v1` (first used on line 3)",
  },
  {
    name: "absolute inline file without bwrap, and a path leaving the work dir",
    files: { "s.yaml": "task: t\nfiles:\n  /etc/app.conf: x\n  ../up.txt: y\n" },
    error: [
      's.yaml:3: files["/etc/app.conf"]: an absolute path needs `sandbox: bwrap` (only there is the work dir the root); otherwise use a path relative to the work dir',
      's.yaml:4: files["../up.txt"]: the path leaves the work dir; use a path inside it',
    ].join("\n"),
  },
  {
    name: "empty solution",
    files: { "s.yaml": "task: t\nsolution: []\n" },
    error: "s.yaml:2: solution: expected at least one command (or remove `solution`)",
  },
  {
    name: "trials must be at least 1",
    files: { "s.yaml": "task: t\ntrials: 0\n" },
    error: "s.yaml:2: trials: expected an integer >= 1, found a number (0)",
  },
  {
    name: "YAML syntax error with its line",
    files: { "s.yaml": "task: t\nsetup: [a, b\nname: x\n" },
    error:
      "s.yaml:3: YAML syntax error: Flow sequence in block collection must be sufficiently indented and end with a ]",
  },
  {
    name: "YAML duplicate key",
    files: { "s.yaml": "task: t\nname: a\ntask: u\n" },
    error: "s.yaml:3: YAML syntax error: a key is written twice in the same mapping",
  },
  {
    name: "problems in several files are reported together",
    files: { "a.yaml": "task: t\ntier: -1\n", "b.yaml": "task: t\ntrials: many\n" },
    paths: ["a.yaml", "b.yaml"],
    error: [
      "a.yaml:2: tier: expected an integer >= 0, found a number (-1)",
      'b.yaml:2: trials: expected an integer >= 1, found a string ("many")',
    ].join("\n"),
  },
  {
    name: "a path that matches nothing",
    files: { "s.yaml": "task: t\n" },
    paths: ["missing/*.yaml"],
    error: 'missing/*.yaml: "missing/*.yaml" matches no file or directory',
  },
  {
    name: "a file that is not a scenario",
    files: { "notes.txt": "hello" },
    paths: ["notes.txt"],
    error:
      "notes.txt: not a scenario file: expected a .yaml/.yml scenario, a .jsonl bashkit-eval dataset, or a directory",
  },
  {
    name: "a directory without scenarios",
    files: { "suite/rubric.yaml": "criteria: []\n", "suite/fixtures/x.yaml": "task: hidden\n" },
    paths: ["suite"],
    error:
      "suite: no scenarios found: no .yaml/.yml file with a top-level `task` or `name` key (folders named fixtures, node_modules and hidden folders are skipped)",
  },
];

describe("malformed scenarios", () => {
  test.each(cases)("$name", async ({ files, paths, error }) => {
    const dir = await makeTree(files);
    const message = await configErrorOf(() => loadScenarios(paths ?? ["s.yaml"], { cwd: dir }));
    expect(message).toBe(error.replaceAll("<dir>", dir));
  });

  test("paths outside cwd are shown absolute", async () => {
    const dir = await makeTree({ "s.yaml": "task: t\ntier: x\n" });
    const message = await configErrorOf(() => loadScenarios([path.join(dir, "s.yaml")], { cwd: "/" }));
    expect(message).toBe(`${dir.slice(1)}/s.yaml:2: tier: expected an integer >= 0, found a string ("x")`);
    const elsewhere = await makeTree({});
    const shown = await configErrorOf(() => loadScenarios([path.join(dir, "s.yaml")], { cwd: elsewhere }));
    expect(shown).toBe(`${dir}/s.yaml:2: tier: expected an integer >= 0, found a string ("x")`);
  });

  test("a fixture reached through a symbolic link that leaves the folder is rejected", async () => {
    const { symlink } = await import("node:fs/promises");
    const dir = await makeTree({ "suite/s.yaml": "task: t\nfixture: link\n", "outside/file.txt": "x" });
    await symlink(path.join(dir, "outside"), path.join(dir, "suite", "link"));
    const message = await configErrorOf(() => loadScenarios(["suite/s.yaml"], { cwd: dir }));
    expect(message).toBe(
      'suite/s.yaml:2: fixture: "link" leads outside the scenario\'s folder through a symbolic link',
    );
  });
});

describe("rubrics", () => {
  const rubricCases: Array<{ name: string; text: string; error: string }> = [
    {
      name: "weights not summing to 1",
      text: "criteria:\n  - {id: a, weight: 0.6, description: x}\n  - {id: b, weight: 0.6, description: y}\n",
      error: "r.yaml:1: criteria: weights must sum to 1, found 1.2 (a 0.6 + b 0.6)",
    },
    {
      name: "duplicate ids",
      text: "criteria:\n  - {id: a, weight: 0.5, description: x}\n  - {id: a, weight: 0.5, description: y}\n",
      error: "r.yaml:3: criteria[1].id: duplicate criterion id `a` (first used on line 2)",
    },
    {
      name: "zero weight, missing description, bad id",
      text: "criteria:\n  - {id: 'has space', weight: 1, description: x}\n  - id: b\n    weight: 0\n",
      error: [
        'r.yaml:2: criteria[0].id: expected letters, digits, `_`, `.` or `-` (at most 64), found "has space"',
        "r.yaml:3: criteria[1].description: missing required key `description` for a rubric criterion",
        "r.yaml:4: criteria[1].weight: expected a weight > 0 (remove the criterion instead)",
      ].join("\n"),
    },
    {
      name: "unknown key",
      text: "criterion:\n  - {id: a, weight: 1, description: x}\n",
      error: [
        "r.yaml:1: criterion: unknown key `criterion` for a rubric (did you mean `criteria`?)",
        "r.yaml:1: criteria: missing required key `criteria` (a list of {id, weight, description})",
      ].join("\n"),
    },
    {
      name: "empty criteria",
      text: "criteria: []\n",
      error: "r.yaml:1: criteria: expected a non-empty list of {id, weight, description}, found a list",
    },
  ];

  test.each(rubricCases)("$name", async ({ text, error }) => {
    const dir = await makeTree({ "r.yaml": text });
    expect(await configErrorOf(() => loadRubric("r.yaml", { cwd: dir }))).toBe(error);
  });

  test("a valid rubric, with an output block, within the weight tolerance", async () => {
    const dir = await makeTree({
      "r.yaml":
        "criteria:\n  - {id: a, weight: 0.1, description: x}\n  - {id: b, weight: 0.2, description: y}\n  - {id: c, weight: 0.7, description: z}\noutput:\n  format: json\n",
    });
    expect(await loadRubric("r.yaml", { cwd: dir })).toEqual({
      file: path.join(dir, "r.yaml"),
      criteria: [
        { id: "a", weight: 0.1, description: "x" },
        { id: "b", weight: 0.2, description: "y" },
        { id: "c", weight: 0.7, description: "z" },
      ],
    });
  });
});
