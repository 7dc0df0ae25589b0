import {
  appendFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InfraError } from "../../src/errors.js";
import { extractInvocations } from "../../src/evaluate/invocations.js";
import { computeInteraction } from "../../src/evaluate/metrics.js";
import { killAllProcessGroups, runShell } from "../../src/sandbox/exec.js";
import { readShimLog, resolveRealBinary, writeShim } from "../../src/sandbox/shim.js";
import type { TrialEvent } from "../../src/transcript/events.js";
import { FAKE_TOOL } from "./fake-tool.js";

const dir = mkdtempSync(path.join(os.tmpdir(), "shim-test-"));
const toolDir = path.join(dir, "real-bin");
const shimDir = path.join(dir, "shim");
const workDir = path.join(dir, "work");
const logDir = path.join(dir, "log");
const logFile = path.join(logDir, "invocations.log");
const hostPath = process.env.PATH ?? "/usr/bin:/bin";
const env = { PATH: `${shimDir}:${toolDir}:${hostPath}`, LANG: "C.UTF-8", HOME: workDir };

beforeAll(async () => {
  mkdirSync(toolDir, { recursive: true });
  mkdirSync(workDir, { recursive: true });
  mkdirSync(logDir, { recursive: true });
  writeFileSync(path.join(toolDir, "fake-tool"), FAKE_TOOL, { mode: 0o755 });
  const realPath = await resolveRealBinary("fake-tool", `${toolDir}:${hostPath}`);
  const bash = await resolveRealBinary("bash", hostPath);
  await writeShim({ binary: "fake-tool", realPath, shimDir, logFile, bash });
});

afterAll(async () => {
  await killAllProcessGroups();
  rmSync(dir, { recursive: true, force: true });
});

/** Run a command through the shim and return its result with the invocations it recorded. */
async function runRecorded(command: string, stdin?: string) {
  rmSync(logDir, { recursive: true, force: true });
  mkdirSync(logDir, { recursive: true });
  const result = await runShell({
    command,
    cwd: workDir,
    env,
    timeoutMs: 20_000,
    outputCapBytes: 1024 * 1024,
    ...(stdin !== undefined ? { stdin } : {}),
  });
  const records = await readShimLog(logFile);
  return { result, records, calls: records.map((record) => [record.argv, record.exit_code]) };
}

describe("target shim", () => {
  it("records && and || chains with exact argv and exit codes, and stays transparent", async () => {
    const { result, calls } = await runRecorded(
      "fake-tool echo a && fake-tool fail 4 || fake-tool echo recovered; echo status=$?",
    );
    expect(result.stdout).toBe("a\nrecovered\nstatus=0\n");
    expect(result.stderr).toBe("failing with 4\n");
    expect(calls).toEqual([
      [["fake-tool", "echo", "a"], 0],
      [["fake-tool", "fail", "4"], 4],
      [["fake-tool", "echo", "recovered"], 0],
    ]);
  });

  it("records every stage of a pipe; a stage that reads stdin gets it", async () => {
    const { result, calls } = await runRecorded(
      "printf 'hello\\nworld\\n' | fake-tool upper | fake-tool upper",
    );
    expect(result.stdout).toBe("HELLO\nWORLD\n");
    expect(calls).toEqual([
      [["fake-tool", "upper"], 0],
      [["fake-tool", "upper"], 0],
    ]);
  });

  it("passes the command's own stdin through", async () => {
    const { result, calls } = await runRecorded("fake-tool upper", "from the agent\n");
    expect(result.stdout).toBe("FROM THE AGENT\n");
    expect(calls).toEqual([[["fake-tool", "upper"], 0]]);
  });

  it("records invocations in subshells, command substitutions and script files, with their cwd", async () => {
    writeFileSync(
      path.join(workDir, "script.sh"),
      "#!/usr/bin/env bash\nfake-tool echo from-script\nexit 0\n",
      {
        mode: 0o755,
      },
    );
    mkdirSync(path.join(workDir, "sub dir"), { recursive: true });
    const { result, records, calls } = await runRecorded(
      '(fake-tool echo in-subshell); x=$(fake-tool echo substituted); echo "$x"; ./script.sh; bash script.sh; cd "sub dir" && fake-tool echo there',
    );
    expect(result.exit_code).toBe(0);
    expect(result.stdout).toBe("in-subshell\nsubstituted\nfrom-script\nfrom-script\nthere\n");
    expect(calls).toEqual([
      [["fake-tool", "echo", "in-subshell"], 0],
      [["fake-tool", "echo", "substituted"], 0],
      [["fake-tool", "echo", "from-script"], 0],
      [["fake-tool", "echo", "from-script"], 0],
      [["fake-tool", "echo", "there"], 0],
    ]);
    expect(records[0]!.cwd).toBe(workDir);
    expect(records[4]!.cwd).toBe(path.join(workDir, "sub dir"));
  });

  it("keeps arguments with spaces, quotes, newlines, tabs, unicode and empty strings exactly", async () => {
    const args = [
      "two words",
      'it\'s "quoted"',
      "line1\nline2",
      "tab\there",
      "ünïcødé ✓ 😀",
      "",
      "-n",
      "$HOME",
      "*",
      "back\\slash",
      "100%25 %0A %",
    ];
    const quoted = args.map((arg) => `'${arg.replaceAll("'", "'\\''")}'`).join(" ");
    const { result, calls } = await runRecorded(`fake-tool echo ${quoted}`);
    expect(result.stdout).toBe(`${args.join("\n")}\n`);
    expect(calls).toEqual([[["fake-tool", "echo", ...args], 0]]);
  });

  it("records without starting a process of its own: only bash and env on PATH", async () => {
    const onlyDir = path.join(dir, "only-bash-env");
    mkdirSync(onlyDir, { recursive: true });
    for (const name of ["bash", "env"]) {
      symlinkSync(await resolveRealBinary(name, hostPath), path.join(onlyDir, name));
    }
    rmSync(logDir, { recursive: true, force: true });
    mkdirSync(logDir, { recursive: true });
    const result = await runShell({
      command: "fake-tool echo 'a\tb' && cd / && fake-tool",
      cwd: workDir,
      env: { PATH: `${shimDir}:${toolDir}:${onlyDir}`, LANG: "C.UTF-8" },
      timeoutMs: 20_000,
      outputCapBytes: 1024 * 1024,
    });
    expect(result.stdout).toBe("a\tb\nok \n");
    const records = await readShimLog(logFile);
    expect(records.map((record) => [record.argv, record.cwd])).toEqual([
      [["fake-tool", "echo", "a\tb"], workDir],
      [["fake-tool"], "/"],
    ]);
  });

  it("records an invocation without arguments", async () => {
    const { calls } = await runRecorded("fake-tool");
    expect(calls).toEqual([[["fake-tool"], 0]]);
  });

  it("reports 128+n when the real binary dies from a signal", async () => {
    const { result, calls } = await runRecorded(
      "fake-tool die KILL; echo kill=$?; fake-tool die TERM; echo term=$?",
    );
    expect(result.stdout).toBe("kill=137\nterm=143\n");
    expect(calls).toEqual([
      [["fake-tool", "die", "KILL"], 137],
      [["fake-tool", "die", "TERM"], 143],
    ]);
  });

  it("records a target killed by SIGPIPE as 141, which layer 1 does not count as an error", async () => {
    // More output than the pipe holds: once head has its lines and exits, the writer gets SIGPIPE.
    const { result, records } = await runRecorded(
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a bash ${...}, on purpose
      'fake-tool echo $(seq 1 50000) | head -3; echo "status=${PIPESTATUS[0]}"',
    );
    expect(result.stdout).toBe("1\n2\n3\nstatus=141\n");
    expect(records.map((record) => record.exit_code)).toEqual([141]);
    const events = records.map(
      (record): TrialEvent => ({ type: "target_invocation", ts: "", t_ms: 0, ...record }),
    );
    const { invocations } = extractInvocations(events, { binary: "fake-tool", env: {} });
    expect(computeInteraction(invocations, true)).toMatchObject({
      total_commands: 1,
      error_count: 0,
      error_rate: 0,
      first_try_success_rate: 1,
    });
  });

  it("forwards SIGTERM and SIGINT to the real binary and keeps its exit code", async () => {
    const { result, calls } = await runRecorded(
      [
        "set -m",
        "fake-tool wait-signal > term.out & pid=$!",
        "until grep -q ready term.out 2>/dev/null; do sleep 0.05; done",
        "kill -TERM $pid; wait $pid; echo term-exit=$?",
        "fake-tool wait-signal > int.out & pid=$!",
        "until grep -q ready int.out 2>/dev/null; do sleep 0.05; done",
        "kill -INT $pid; wait $pid; echo int-exit=$?",
        "cat term.out int.out",
      ].join("\n"),
    );
    expect(result.stdout).toBe("term-exit=42\nint-exit=43\nready\ngot-term\nready\ngot-int\n");
    expect(calls).toEqual([
      [["fake-tool", "wait-signal"], 42],
      [["fake-tool", "wait-signal"], 43],
    ]);
  });

  it("records start time and duration from the shell's clock", async () => {
    const before = Date.now();
    const { records } = await runRecorded("fake-tool nap 0.3");
    const after = Date.now();
    expect(records).toHaveLength(1);
    const record = records[0]!;
    expect(record.started_at_ms).toBeGreaterThanOrEqual(before - 5);
    expect(record.started_at_ms).toBeLessThanOrEqual(after);
    expect(record.duration_ms).toBeGreaterThanOrEqual(300);
    expect(record.duration_ms).toBeLessThan(after - before + 5);
  });

  it("records huge arguments of concurrent invocations intact, in start order", async () => {
    const big = "y".repeat(6000);
    const { calls } = await runRecorded(
      `fake-tool echo first; fake-tool echo ${big} | fake-tool echo ${big}z`,
    );
    expect(calls).toHaveLength(3);
    expect(calls[0]).toEqual([["fake-tool", "echo", "first"], 0]);
    const bigOnes = calls.slice(1).map((call) => (call[0] as string[])[2]);
    expect(bigOnes.sort()).toEqual([big, `${big}z`]);
  });

  it("skips a torn last line of the log", async () => {
    const { records } = await runRecorded("fake-tool echo whole");
    const lines = readFileSync(logFile, "utf8");
    const whole = lines.trim();
    appendFileSync(logFile, whole.slice(0, whole.length - 6));
    const again = await readShimLog(logFile);
    expect(again).toEqual(records);
    expect(again).toHaveLength(1);
  });

  it("returns no invocations when the log does not exist", async () => {
    expect(await readShimLog(path.join(dir, "missing", "invocations.log"))).toEqual([]);
  });
});

describe("resolveRealBinary", () => {
  it("finds a bare name on the given PATH, skipping non-executables", async () => {
    const other = path.join(dir, "not-exec");
    mkdirSync(other, { recursive: true });
    writeFileSync(path.join(other, "fake-tool"), "#!/bin/sh\n", { mode: 0o644 });
    expect(await resolveRealBinary("fake-tool", `${other}:${toolDir}`)).toBe(path.join(toolDir, "fake-tool"));
  });

  it("says how to fix a missing target binary", async () => {
    const missing = resolveRealBinary("no-such-tool-xyz", "/nonexistent:/also-missing");
    await expect(missing).rejects.toBeInstanceOf(InfraError);
    await expect(resolveRealBinary("no-such-tool-xyz", "/nonexistent")).rejects.toThrow(
      'target binary "no-such-tool-xyz" was not found on PATH (/nonexistent): install it or fix target.binary',
    );
  });

  it("accepts a path, relative to the given directory", async () => {
    expect(await resolveRealBinary("./real-bin/fake-tool", "", dir)).toBe(path.join(toolDir, "fake-tool"));
  });
});
