/**
 * Hostile agent against the gates (issue #25, breaks 1-3): gates judge the agent, so nothing it
 * wrote but its work dir may reach them. File gates must not follow its links to host files
 * (`/proc/self/cwd/.git/config`, a secret beside the checkout) nor hang on a FIFO or read
 * `/dev/zero`; command gates must not load its `/etc/ld.so.preload`, `~/.jq` or `~/.sqliterc`.
 * Each trial runs through the real suite (runSuite, the oracle agent, real bash and bwrap), and every
 * file the run wrote is searched for the canary.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createAgent } from "../../src/agents/registry.js";
import { decideRun } from "../../src/compare/decide-run.js";
import type { GateResult, TrialReport } from "../../src/results/types.js";
import { defaultRunOptions } from "../../src/run/options.js";
import { createRunRedactor, runSuite } from "../../src/run/suite.js";
import { writeRunOutputs } from "../../src/run/write-outputs.js";
import type { GateSpec, SandboxMode } from "../../src/scenario/types.js";
import type { TrialEvent } from "../../src/transcript/events.js";
import { findBwrapProblem } from "../support/processes.js";
import { makeScenario } from "../support/scenario-factory.js";
import { eventsOf } from "../support/single-trial.js";
import { makeTempDir } from "../support/temp-dirs.js";

const bwrapProblem = findBwrapProblem();
const hasCompiler = commandWorks("gcc", ["--version"]);
const hasJq = commandWorks("jq", ["--version"]);
const hasSqlite = commandWorks("sqlite3", ["-version"]);
const modes: SandboxMode[] = bwrapProblem ? ["local"] : ["local", "bwrap"];

function commandWorks(file: string, args: string[]): boolean {
  try {
    execFileSync(file, args, { stdio: "pipe" });
    return true;
  } catch {
    return false;
  }
}

const originalCwd = process.cwd();
afterEach(() => {
  process.chdir(originalCwd);
});

function uniqueCanary(): string {
  return `CANARY${process.pid}x${Math.floor(Math.random() * 1e9)}`;
}

/** Every file under `dir`, as text. */
async function readTree(dir: string): Promise<string> {
  const parts: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) parts.push(await readFile(path.join(entry.parentPath, entry.name), "utf8"));
  }
  return parts.join("\n");
}

async function runGatedTrial(
  mode: SandboxMode,
  solution: string[],
  gates: GateSpec[],
  parentPath = process.env.PATH,
): Promise<{ trial: TrialReport; gates: GateResult[]; outputs: string; events: TrialEvent[] }> {
  const outDir = makeTempDir("ltt-gate-containment-out-");
  const scenario = makeScenario({ id: `gates-${mode}`, solution, evaluation: { gates } });
  const env = { PATH: parentPath, LANG: "C.UTF-8" };
  const { report } = await runSuite(
    [scenario],
    defaultRunOptions({ agent: "oracle", outDir, sandbox: mode, trials: 1, gateTimeoutMs: 20_000 }),
    { agent: createAgent("oracle", {}), env },
  );
  // Every output file a run writes, as the front ends write them after deciding.
  const decided = decideRun({ report, baseline: null, policy: { failOn: null, gateMetrics: [] } });
  await writeRunOutputs(report, decided, { outDir, redact: createRunRedactor([scenario], env) });
  const trial = report.scenarios[0]?.trials[0] as TrialReport;
  const events = (await readFile(path.join(outDir, trial.events_path as string), "utf8"))
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as TrialEvent);
  return { trial, gates: trial.gates, outputs: await readTree(outDir), events };
}

const w = { weight: 1 };

describe.each(modes)("file gates read only the agent's own files (%s)", (mode) => {
  it("a link to /proc/self/cwd/.git/config does not publish the harness checkout's token", async () => {
    const canary = uniqueCanary();
    // The harness's working directory, as on a CI runner: a checkout whose config holds the token.
    const checkout = makeTempDir("ltt-gate-checkout-");
    mkdirSync(path.join(checkout, ".git"));
    await writeFile(
      path.join(checkout, ".git", "config"),
      `[http "https://github.com/"]\n\textraheader = AUTHORIZATION: basic ${canary}\n`,
    );
    process.chdir(checkout);
    const { gates, outputs } = await runGatedTrial(
      mode,
      ["ln -s /proc/self/cwd/.git/config result.txt"],
      [
        { ...w, type: "file_contains", path: "result.txt", substring: "the answer" },
        { ...w, type: "file_matches", path: "result.txt", pattern: "answer" },
        { ...w, type: "file_line_regex", path: "result.txt", pattern: "^answer$" },
        { ...w, type: "file_exists", path: "result.txt" },
      ],
    );
    expect(gates.map((gate) => gate.passed)).toEqual([false, false, false, false]);
    expect(outputs).not.toContain(canary);
    for (const gate of gates) {
      expect(gate.message).toMatch(mode === "local" ? /points outside the work dir/ : /not found/);
    }
  });

  it("a link to a host file (a secret beside the checkout) puts none of its text in any report", async () => {
    const canary = uniqueCanary();
    const secretFile = path.join(makeTempDir("ltt-gate-secret-"), ".env");
    await writeFile(secretFile, `DEPLOY_SECRET=${canary}\n`);
    const { gates, outputs } = await runGatedTrial(
      mode,
      [`ln -s ${secretFile} result.txt; ln -s ../../../../../../../../../..${secretFile} relative.txt`],
      [
        { ...w, type: "file_contains", path: "result.txt", substring: "the answer" },
        { ...w, type: "file_contains", path: "relative.txt", substring: "the answer" },
        { ...w, type: "file_contains", path: secretFile, substring: "the answer" },
      ],
    );
    expect(gates.map((gate) => gate.passed)).toEqual([false, false, false]);
    expect(outputs).not.toContain(canary);
    expect(gates[1]?.message).toMatch(/leaves the sandbox through ".."/);
  });

  it("links that stay inside are followed: relative, and absolute as the agent's commands see them", async () => {
    const absolute = mode === "bwrap" ? "/home/eval/sub/real.txt" : '"$PWD/sub/real.txt"';
    const { gates } = await runGatedTrial(
      mode,
      [
        `mkdir sub && echo 'the answer' > sub/real.txt && ln -s sub/real.txt rel.txt && ln -s ${absolute} abs.txt`,
      ],
      [
        { ...w, type: "file_contains", path: "rel.txt", substring: "the answer" },
        { ...w, type: "file_contains", path: "abs.txt", substring: "the answer" },
      ],
    );
    expect(gates.map((gate) => [gate.passed, gate.message])).toEqual([
      [true, 'rel.txt (11 bytes) contains "the answer"'],
      [true, 'abs.txt (11 bytes) contains "the answer"'],
    ]);
  });

  it("a FIFO fails the gates at once, saying what it is, instead of hanging the harness", async () => {
    const { gates } = await runGatedTrial(
      mode,
      ["mkfifo result.txt"],
      [
        { ...w, type: "file_contains", path: "result.txt", substring: "x" },
        { ...w, type: "file_line_regex", path: "result.txt", pattern: "x" },
        { ...w, type: "file_exists", path: "result.txt" },
        { ...w, type: "dir_exists", path: "result.txt" },
      ],
    );
    expect(gates.map((gate) => [gate.passed, gate.message])).toEqual([
      [false, "result.txt: is a FIFO, not a regular file; file gates read only regular files"],
      [false, "result.txt: is a FIFO, not a regular file; file gates read only regular files"],
      [false, "result.txt: is a FIFO, not a regular file; file gates read only regular files"],
      [false, "result.txt: found a FIFO, not a directory"],
    ]);
  }, 20_000);

  it("/dev/zero behind a link is never read", async () => {
    const { gates } = await runGatedTrial(
      mode,
      ["ln -s /dev/zero result.txt"],
      [{ ...w, type: "file_contains", path: "result.txt", substring: "x" }],
    );
    expect(gates[0]?.passed).toBe(false);
    expect(gates[0]?.message).toBe(
      mode === "local"
        ? 'result.txt: the symbolic link result.txt points outside the work dir (to "/dev/zero"); file gates read only the agent\'s own files'
        : "result.txt: not found",
    );
  }, 20_000);
});

describe.each(modes)("command gates run in a clean room (%s)", (mode) => {
  it.skipIf(!hasJq)("a ~/.jq the agent wrote does not change what a gate's jq computes", async () => {
    const check = "jq -e '.items | length >= 3' result.json";
    const { gates, events } = await runGatedTrial(
      mode,
      [`echo 'def length: 3;' > ~/.jq && echo '{"items": [1]}' > result.json`, `${check} && echo SUBVERTED`],
      [{ ...w, type: "command_succeeds", command: check }],
    );
    // The agent's own jq was subverted: the attack is live.
    expect(eventsOf(events, "tool_result")[1]?.stdout).toContain("SUBVERTED");
    expect(gates[0]?.passed).toBe(false);
    expect(gates[0]?.message).toContain("exited 1");
  });

  it("a relative or empty entry of the parent's PATH does not run the agent's own programs", async () => {
    const { gates, events } = await runGatedTrial(
      mode,
      [
        "printf '#!/bin/sh\\nexit 0\\n' > jq && chmod +x jq && echo '{\"done\": false}' > result.json",
        "jq -e .done result.json && echo SUBVERTED",
      ],
      [{ ...w, type: "command_succeeds", command: "jq -e .done result.json" }],
      `.::${process.env.PATH}`,
    );
    // In local mode the agent's PATH is the parent's, so its own jq ran; bwrap's PATH is fixed.
    if (mode === "local") expect(eventsOf(events, "tool_result")[1]?.stdout).toContain("SUBVERTED");
    expect(gates[0]?.passed).toBe(false);
    expect(gates[0]?.message).toContain("exited 1");
  });

  it("HOME is a fresh empty folder and the work dir is the cwd", async () => {
    const { gates } = await runGatedTrial(
      mode,
      ["echo done > result.txt && touch ~/.agent-dotfile"],
      [
        {
          ...w,
          type: "command_succeeds",
          command:
            'test -f result.txt && test "$HOME" != "$PWD" && test -d "$HOME" && test -z "$(ls -A "$HOME")"',
        },
      ],
    );
    expect(gates[0]?.message).toMatch(/exited 0/);
    expect(gates[0]?.passed).toBe(true);
  });
});

describe.skipIf(bwrapProblem !== null)(
  "command gates in bwrap see the host image, not the agent's root",
  () => {
    it.skipIf(!hasCompiler || !hasJq)(
      "an /etc/ld.so.preload naming a library the agent built is not loaded by gates",
      async () => {
        const library = [
          "#include <string.h>",
          "#include <unistd.h>",
          "__attribute__((constructor)) static void hijack(void) {",
          '  char exe[256]; ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);',
          '  if (n > 3) { exe[n] = 0; if (strcmp(exe + n - 3, "/jq") == 0) _exit(0); }',
          "}",
        ].join("\n");
        const check = "jq -e '.done == true' result.json";
        const { gates, events } = await runGatedTrial(
          "bwrap",
          [
            `cat > hijack.c <<'EOF'\n${library}\nEOF\ngcc -shared -fPIC -o /home/eval/.hijack.so hijack.c && echo /home/eval/.hijack.so > /etc/ld.so.preload && echo '{"done": false}' > result.json`,
            `${check} && echo SUBVERTED`,
          ],
          [{ ...w, type: "command_succeeds", command: check }],
        );
        expect(eventsOf(events, "tool_result")[0]?.exit_code).toBe(0);
        expect(eventsOf(events, "tool_result")[1]?.stdout).toContain("SUBVERTED");
        expect(gates[0]?.passed).toBe(false);
        expect(gates[0]?.message).toContain("exited 1");
      },
    );

    it.skipIf(!hasSqlite)(
      "a ~/.sqliterc (found through /etc/passwd, whatever HOME says) is not read",
      async () => {
        const query = "sqlite3 data.db 'select count(*) from t'";
        const { gates, events } = await runGatedTrial(
          "bwrap",
          [
            `sqlite3 data.db 'create table t(x)' && echo 'create temp view t as select 1 union select 2 union select 3;' > ~/.sqliterc`,
            query,
          ],
          [{ ...w, type: "command_output_matches", command: query, pattern: "^3\\n$" }],
        );
        expect(eventsOf(events, "tool_result")[1]?.stdout).toBe("3\n");
        expect(gates[0]?.passed).toBe(false);
        expect(gates[0]?.message).toContain('stdout "0\\n"');
      },
    );

    it("a gate command does not see what the agent wrote outside the work dir", async () => {
      const { gates } = await runGatedTrial(
        "bwrap",
        [
          "echo planted > /etc/planted && mkdir -p /opt/agent && echo x > /opt/agent/x && echo ok > result.txt",
        ],
        [
          {
            ...w,
            type: "command_succeeds",
            command: "test ! -e /etc/planted && test ! -e /opt/agent/x && test -f result.txt",
          },
        ],
      );
      expect(gates[0]?.message).toMatch(/exited 0/);
      expect(gates[0]?.passed).toBe(true);
    });

    it("a work dir replaced by a link is not entered by gate commands", async () => {
      const canary = uniqueCanary();
      const hostDir = makeTempDir("ltt-gate-hostdir-");
      await writeFile(path.join(hostDir, "result.txt"), `${canary}\n`);
      const { gates, outputs } = await runGatedTrial(
        "bwrap",
        [`cd / && mv /home/eval /home/old && ln -s ${hostDir} /home/eval`],
        [
          { ...w, type: "command_succeeds", command: "cat result.txt" },
          { ...w, type: "file_contains", path: "result.txt", substring: "x" },
        ],
      );
      expect(gates.map((gate) => gate.passed)).toEqual([false, false]);
      expect(gates[0]?.message).toContain("the work dir is gone or was replaced");
      expect(outputs).not.toContain(canary);
    });
  },
);
