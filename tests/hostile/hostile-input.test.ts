/**
 * Hostile input (issue #16, break 7): each case runs the real CLI in process and must end within
 * seconds in a ConfigError (exit 2) that names the file (and line or field where known), with no
 * stack trace and nothing of a file's content that the scenario should not have been able to read.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, statfsSync } from "node:fs";
import { mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { EXIT } from "../../src/cli/main.js";
import { BASE_REPORT, HEAD_REPORT, type MainResult, runMain } from "../cli/run-main.js";
import { makeTempDir } from "../support/temp-dirs.js";

const CANARY = "Zq7-canary-hostile-input-4f1d9e";
const STACK_FRAME = /\n\s+at /;

async function tempDir(prefix: string): Promise<string> {
  return makeTempDir(`ltt-hostile-${prefix}-`);
}

/** Runs the CLI and asserts the clean ConfigError every hostile input must end in. */
async function expectConfigError(argv: string[], options: { withinMs?: number } = {}): Promise<MainResult> {
  const started = Date.now();
  const result = await runMain(argv);
  const elapsed = Date.now() - started;
  expect(result.code, result.stderr).toBe(EXIT.usage);
  expect(result.stderr).not.toMatch(STACK_FRAME);
  expect(result.stderr).not.toContain("unexpected error");
  expect(`${result.stdout}${result.stderr}`).not.toContain(CANARY);
  expect(elapsed).toBeLessThan(options.withinMs ?? 5_000);
  return result;
}

/** A folder holding one scenario file (and whatever else the case needs). */
async function scenarioFolder(prefix: string, yaml: string): Promise<string> {
  const dir = await tempDir(prefix);
  await writeFile(path.join(dir, "s.yaml"), yaml);
  return dir;
}

const BOMB = [
  "task: boom",
  'a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]',
  ...Array.from({ length: 9 }, (_, i) => `a${i + 1}: &a${i + 1} [${Array(10).fill(`*a${i}`).join(", ")}]`),
  "",
].join("\n");

describe("a scenario file built to exhaust the loader", () => {
  it("an alias bomb (billion laughs) ends in a located error within 5 s", async () => {
    const dir = await scenarioFolder("bomb", BOMB);
    const result = await expectConfigError(["validate", dir], { withinMs: 5_000 });
    expect(result.stderr).toMatch(/s\.yaml:\d+: .*more than 100000 values once its aliases are expanded/);
  });

  it("flow collections nested 50 000 deep end in a located error", async () => {
    const depth = 50_000;
    const dir = await scenarioFolder(
      "deep-flow",
      `task: t\nsystem: ${"[".repeat(depth)}${"]".repeat(depth)}\n`,
    );
    const result = await expectConfigError(["validate", dir]);
    expect(result.stderr).toMatch(/s\.yaml:\d+: the document nests more than 200 levels deep/);
  });

  it("block collections nested past the limit end in a located error", async () => {
    const lines = Array.from({ length: 300 }, (_, i) => `${" ".repeat(i + 1)}- `).join("\n");
    const dir = await scenarioFolder("deep-block", `task: t\nsetup:\n${lines}x\n`);
    const result = await expectConfigError(["validate", dir]);
    expect(result.stderr).toMatch(/s\.yaml:\d+: the document nests more than 200 levels deep/);
  });

  it("a scenario path that is a FIFO is refused instead of blocking the read", async () => {
    const dir = await tempDir("fifo");
    execFileSync("mkfifo", [path.join(dir, "s.yaml")]);
    const result = await expectConfigError(["validate", path.join(dir, "s.yaml")]);
    expect(result.stderr).toContain("s.yaml: cannot read the file (not a regular file)");
  });

  it("a deeply nested line of a bashkit-eval dataset names the file and line", async () => {
    const dir = await tempDir("dataset");
    const task = JSON.stringify({ id: "t", category: "c", description: "d", prompt: "p", expectations: [] });
    await writeFile(path.join(dir, "d.jsonl"), `${task}\n${"[".repeat(100_000)}${"]".repeat(100_000)}\n`);
    const result = await expectConfigError(["validate", path.join(dir, "d.jsonl")]);
    expect(result.stderr).toContain("d.jsonl:2: a JSON value nests more than 100 levels deep");
  });
});

describe("JSON written to nest deeper than any report or event", () => {
  const deepLine = `{"type":"agent_output","text":${"[".repeat(200_000)}${"]".repeat(200_000)}}`;

  it("a deep line in events.jsonl: `report --format html` names the file and line", async () => {
    const dir = await tempDir("deep-events");
    await writeFile(path.join(dir, "report.json"), await readFile(BASE_REPORT, "utf8"));
    await mkdir(path.join(dir, "trials/t1"), { recursive: true });
    const first = JSON.stringify({ type: "agent_output", text: "hello", t: 0 });
    await writeFile(path.join(dir, "trials/t1/events.jsonl"), `${first}\n${first}\n${deepLine}\n`);
    const result = await expectConfigError(["report", path.join(dir, "report.json"), "--format", "html"]);
    expect(result.stderr).toContain(
      `${path.join(dir, "trials/t1/events.jsonl")}:3: a JSON value nests more than 100 levels deep`,
    );
  });

  it("a deep report.json: report, compare and merge name the file and line", async () => {
    const dir = await tempDir("deep-report");
    const base = await readFile(BASE_REPORT, "utf8");
    const deep = base.replace('"message":"found"', `"message":${"[".repeat(200_000)}${"]".repeat(200_000)}`);
    expect(deep).not.toBe(base);
    const file = path.join(dir, "report.json");
    await writeFile(file, deep);
    const line = base.slice(0, base.indexOf('"message":"found"')).split("\n").length;
    const expected = `${file}:${line}: a JSON value nests more than 100 levels deep`;
    for (const argv of [
      ["report", file],
      ["compare", BASE_REPORT, file],
      ["merge", file, "--out", path.join(dir, "merged")],
    ]) {
      expect((await expectConfigError(argv)).stderr, argv[0]).toContain(expected);
    }
  });
});

describe("a report's lists the renderers go through are shape-checked when it is read", () => {
  it.each([
    [
      "command_pattern_misses",
      "x",
      'scenarios[0].trials[0].command_pattern_misses: expected a list of strings, found "x"',
    ],
    [
      "shim_disagreements",
      [1],
      "scenarios[0].trials[0].shim_disagreements[0]: expected a string, found a number",
    ],
    [
      "possible_global_options",
      [{ option: "-f" }],
      "scenarios[0].trials[0].possible_global_options[0].command: expected a string, found nothing",
    ],
    [
      "possible_global_options",
      ["-f"],
      'scenarios[0].trials[0].possible_global_options[0]: expected an object with option and command, found "-f"',
    ],
    [
      "behaviour",
      { options: { "--icsv": "all" }, shapes: {}, first_failure: null },
      'scenarios[0].trials[0].behaviour.options["--icsv"]: expected a count, found "all"',
    ],
    [
      "behaviour",
      { options: {}, shapes: {}, first_failure: { command: "mlr cat", exit_code: 1 } },
      "scenarios[0].trials[0].behaviour.first_failure.stderr: expected a string or null, found nothing",
    ],
  ])("%s: %j is an error naming the field, not a crash", async (field, value, message) => {
    const dir = await tempDir("lists");
    const report = JSON.parse(await readFile(BASE_REPORT, "utf8"));
    report.scenarios[0].trials[0][field] = value;
    const file = path.join(dir, "report.json");
    await writeFile(file, JSON.stringify(report));
    for (const format of ["md", "html"]) {
      const result = await expectConfigError(["report", file, "--format", format]);
      expect(result.stderr).toContain(message);
    }
  });
});

describe("an agent matrix's fields are shape-checked when a report is read", () => {
  it.each([
    [["run", "entries"], "x", 'run.entries: expected a list of {agent, model}, found "x"'],
    [
      ["run", "entries"],
      [{ agent: 1, model: null }],
      "run.entries[0].agent: expected a string, found a number",
    ],
    [
      ["run", "entries"],
      [{ agent: "codex" }],
      "run.entries[0].model: expected a string or null, found nothing",
    ],
    [["run", "agents"], ["codex", 2], "run.agents[1]: expected a string, found a number"],
    [["scenarios", 0, "agent"], 7, "scenarios[0].agent: expected a string or null, found a number"],
  ])("%j: %j is an error naming the field, not a crash", async (where, value, message) => {
    const dir = await tempDir("entries");
    const report = JSON.parse(await readFile(BASE_REPORT, "utf8"));
    let holder = report;
    for (const step of where.slice(0, -1)) holder = holder[step];
    holder[where[where.length - 1] as string] = value;
    const file = path.join(dir, "report.json");
    await writeFile(file, JSON.stringify(report));
    for (const argv of [
      ["report", file, "--format", "md"],
      ["report", file, "--format", "junit"],
      ["compare", file, BASE_REPORT],
    ]) {
      const result = await expectConfigError(argv);
      expect(result.stderr, argv.join(" ")).toContain(message);
    }
  });
});

describe("baseline numbers are range-checked when a report is read", () => {
  it.each([
    [
      '"error_rate":0,',
      '"error_rate":7,',
      "scenarios[0].trials[0].interaction.error_rate: expected a rate between 0 and 1 (or null), found 7",
    ],
    [
      '"scenarios_passed": 8',
      '"scenarios_passed": -8',
      "summary.scenarios_passed: expected a whole number >= 0, found -8",
    ],
    ['"trials":5,', '"trials":2.5,', "scenarios[1].summary.trials: expected a whole number >= 0, found 2.5"],
    [
      '"cost_usd":0.041',
      '"cost_usd":1e999',
      "scenarios[0].trials[0].execution.cost_usd: expected a finite number, found Infinity",
    ],
  ])("%s → %s is an error naming the file and field", async (from, to, message) => {
    const dir = await tempDir("range");
    const text = await readFile(BASE_REPORT, "utf8");
    expect(text).toContain(from);
    const file = path.join(dir, "baseline.json");
    await writeFile(file, text.replace(from, to));
    for (const argv of [
      ["compare", file, HEAD_REPORT],
      ["report", HEAD_REPORT, "--baseline", file],
    ]) {
      const result = await expectConfigError(argv);
      expect(result.stderr, argv[0]).toContain(`${file}: `);
      expect(result.stderr, argv[0]).toContain(message);
      expect(result.stdout, argv[0]).not.toContain("700");
    }
  });
});

function isTmpfs(folder: string): boolean {
  try {
    return statfsSync(folder).type === 0x01021994;
  } catch {
    return false;
  }
}

describe("output paths on pseudo-filesystems are refused, not hung on", () => {
  it.each([
    [["run", "SUITE", "--agent", "oracle", "--out", "/proc/self/x"], '--out: "/proc/self/x" is under /proc'],
    [["run", "SUITE", "--agent", "oracle", "--out", "/sys/kernel/x"], '--out: "/sys/kernel/x" is under /sys'],
    [["merge", "BASE", "--out", "/proc/self/fd/x"], '--out: "/proc/self/fd/x" is under /proc'],
    [["report", "BASE", "--out", "/dev/full"], '--out: "/dev/full" is under /dev'],
  ])("%j", async (argv, message) => {
    const args = argv.map((arg) =>
      arg === "SUITE"
        ? path.join(import.meta.dirname, "../fixtures/e2e/suite")
        : arg === "BASE"
          ? BASE_REPORT
          : arg,
    );
    const result = await expectConfigError(args);
    expect(result.stderr).toContain(message);
  });

  it.runIf(isTmpfs("/dev/shm"))("/dev/shm, a tmpfs, is an ordinary folder for results", async () => {
    const out = mkdtempSync("/dev/shm/ltt-shm-out-");
    try {
      const result = await runMain(["merge", BASE_REPORT, "--out", path.join(out, "merged")]);
      expect(result.stderr).not.toContain("is under /dev");
      expect(existsSync(path.join(out, "merged", "report.json"))).toBe(true);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });

  it("a symbolic link into /proc is followed before the check", async () => {
    const dir = await tempDir("out-link");
    await symlink("/proc/self", path.join(dir, "results"));
    const result = await expectConfigError(["merge", BASE_REPORT, "--out", path.join(dir, "results", "x")]);
    expect(result.stderr).toContain("is under /proc (it resolves to /proc/");
  });
});

describe("zero and negative durations are refused", () => {
  it.each([
    ["--timeout", "0s"],
    ["--timeout", "0"],
    ["--command-timeout", "-5s"],
    ["--gate-timeout", "0ms"],
  ])("%s %s", async (flag, value) => {
    const suite = path.join(import.meta.dirname, "../fixtures/e2e/suite");
    const result = await expectConfigError(["run", suite, "--agent", "oracle", `${flag}=${value}`]);
    expect(result.stderr).toContain(`${flag} must be a positive duration`);
  });

  it("in a scenario", async () => {
    const dir = await scenarioFolder("zero", "task: t\nagent:\n  timeout: 0s\n");
    const result = await expectConfigError(["validate", dir]);
    expect(result.stderr).toContain('s.yaml:3: agent.timeout: expected a positive duration, found "0s"');
  });
});

describe("files a scenario names stay in its repository or folder", () => {
  /** A secret outside the scenario's folder, holding the canary. */
  async function outsideSecret(): Promise<string> {
    const dir = await tempDir("secret");
    const file = path.join(dir, "secret.md");
    await writeFile(file, `criteria: [${CANARY}]\n${CANARY}\n`);
    return file;
  }

  it("guidance: {file: /etc/shadow} is refused without reading it", async () => {
    const dir = await scenarioFolder("shadow", "task: t\nguidance:\n  file: /etc/shadow\n");
    const result = await expectConfigError(["validate", dir]);
    expect(result.stderr).toContain(
      `s.yaml:3: guidance.file: guidance file "/etc/shadow" is outside the scenario's folder (${dir})`,
    );
  });

  it("guidance and rubric paths leaving the folder, written or through a link, are refused", async () => {
    const secret = await outsideSecret();
    const dir = await tempDir("escape");
    await symlink(secret, path.join(dir, "linked.md"));
    const relative = path.relative(dir, secret);
    await writeFile(
      path.join(dir, "s.yaml"),
      [
        "task: t",
        `guidance: ${relative}`,
        "variants:",
        "  - {name: linked, guidance: linked.md}",
        "evaluation:",
        `  judge: {rubric: ${secret}}`,
        "",
      ].join("\n"),
    );
    const result = await expectConfigError(["validate", dir]);
    expect(result.stderr).toContain(
      `s.yaml:2: guidance: guidance file ${JSON.stringify(relative)} is outside`,
    );
    expect(result.stderr).toContain(
      's.yaml:4: variants[0].guidance: guidance file "linked.md" leads outside the scenario\'s folder',
    );
    expect(result.stderr).toContain(
      `s.yaml:6: evaluation.judge.rubric: rubric file ${JSON.stringify(secret)} is outside`,
    );
  });

  it("a symbolic link inside a fixture that points outside it is refused", async () => {
    const secret = await outsideSecret();
    // Absolute; climbing out; climbing out and back in (inside here, outside in a work dir's copy).
    for (const target of [secret, "../../outside.txt", "../../fixture/data.txt"]) {
      const dir = await scenarioFolder("fixture-link", "task: t\nfixture: fixture\n");
      await mkdir(path.join(dir, "fixture/sub"), { recursive: true });
      await writeFile(path.join(dir, "fixture/data.txt"), "data");
      await symlink(target, path.join(dir, "fixture/sub/link"));
      const result = await expectConfigError(["validate", dir]);
      expect(result.stderr, target).toContain(
        's.yaml:2: fixture: the fixture holds a symbolic link that points outside it ("sub/link")',
      );
    }
  });

  it("links that stay inside the fixture are fine", async () => {
    const dir = await scenarioFolder("fixture-ok", "task: t\nfixture: fixture\n");
    await mkdir(path.join(dir, "fixture/sub"), { recursive: true });
    await writeFile(path.join(dir, "fixture/data.txt"), "data");
    await symlink("../data.txt", path.join(dir, "fixture/sub/link"));
    const result = await runMain(["validate", dir]);
    expect(result.code, result.stderr).toBe(EXIT.ok);
  });
});
