import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { afterAll, describe, expect, it } from "vitest";
import { InfraError } from "../../src/errors.js";
import {
  createProcessGroupRegistry,
  killAllProcessGroups,
  runProcess,
  runShell,
  warmProcessRunners,
} from "../../src/sandbox/exec.js";
import { createOutputCollector } from "../../src/sandbox/output-collector.js";
import {
  findLiveProcesses,
  findRunnerPids,
  isProcessGone,
  peakResidentBytes,
  waitForProcessGone,
} from "../support/processes.js";

const cwd = mkdtempSync(path.join(os.tmpdir(), "exec-test-"));
const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", LANG: "C.UTF-8" };
const base = { cwd, env, timeoutMs: 10_000, outputCapBytes: 1024 * 1024 };

afterAll(async () => {
  await killAllProcessGroups();
  rmSync(cwd, { recursive: true, force: true });
});

describe("runShell", () => {
  it("runs commands 4 nicer than the harness, whose event loop carries every trial", async () => {
    const result = await runShell({ ...base, command: "nice" });
    expect(Number(result.stdout.trim())).toBe(Math.min(19, os.getPriority() + 4));
  });

  it("returns stdout, stderr and the exit code", async () => {
    const result = await runShell({ ...base, command: "echo out; echo err >&2; exit 7" });
    expect(result).toMatchObject({
      stdout: "out\n",
      stderr: "err\n",
      exit_code: 7,
      timed_out: false,
      truncated: false,
    });
    expect(result.duration_ms).toBeGreaterThanOrEqual(0);
  });

  it("passes exactly the given environment", async () => {
    process.env.EXEC_TEST_PARENT_ONLY = "parent-value-123";
    try {
      const result = await runShell({ ...base, env: { ...env, ONLY_THIS: "yes" }, command: "env" });
      expect(result.stdout).toContain("ONLY_THIS=yes");
      expect(result.stdout).not.toContain("EXEC_TEST_PARENT_ONLY");
      expect(result.stdout).not.toContain("parent-value-123");
      const names = result.stdout
        .trim()
        .split("\n")
        .map((line) => line.split("=")[0]);
      // bash adds PWD, SHLVL and _ itself; nothing else may appear.
      expect(names.sort()).toEqual(["LANG", "ONLY_THIS", "PATH", "PWD", "SHLVL", "_"]);
    } finally {
      delete process.env.EXEC_TEST_PARENT_ONLY;
    }
  });

  it("runs in the given cwd and feeds stdin when given, /dev/null otherwise", async () => {
    const withInput = await runShell({ ...base, command: "pwd; cat", stdin: "from stdin\n" });
    expect(withInput.stdout).toBe(`${cwd}\nfrom stdin\n`);
    const without = await runShell({ ...base, command: "cat; echo done" });
    expect(without.stdout).toBe("done\n");
  });

  it("copes with a command that does not read the stdin it was given", async () => {
    const result = await runShell({ ...base, command: "exit 0", stdin: "x".repeat(4 * 1024 * 1024) });
    expect(result.exit_code).toBe(0);
  });

  it("kills the whole process group on timeout, well within the limit", async () => {
    const started = Date.now();
    const result = await runShell({ ...base, timeoutMs: 500, command: "sleep 100.0101 & echo $!; wait" });
    const elapsed = Date.now() - started;
    expect(result.exit_code).toBe(124);
    expect(result.timed_out).toBe(true);
    expect(elapsed).toBeLessThan(5_000);
    const sleepPid = Number(result.stdout.trim());
    expect(sleepPid).toBeGreaterThan(0);
    expect(await waitForProcessGone(sleepPid, 3_000)).toBe(true);
    expect(findLiveProcesses("sleep 100.0101")).toEqual([]);
  });

  it("kills a child that ignores SIGTERM with SIGKILL after the grace", async () => {
    const started = Date.now();
    const result = await runShell({
      ...base,
      timeoutMs: 300,
      command: "bash -c 'trap \"\" TERM; echo $$; sleep 100.0202 & wait' & wait",
    });
    expect(result.timed_out).toBe(true);
    expect(Date.now() - started).toBeLessThan(5_000);
    const innerPid = Number(result.stdout.trim());
    expect(await waitForProcessGone(innerPid, 3_000)).toBe(true);
    expect(findLiveProcesses("sleep 100.0202")).toEqual([]);
  });

  it("returns promptly when a background child keeps stdout open, and tracks it for later", async () => {
    const registry = createProcessGroupRegistry();
    const started = Date.now();
    const result = await runShell({
      ...base,
      processGroups: registry,
      command: "sleep 100.0303 & echo $!; echo bye",
    });
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(result.exit_code).toBe(0);
    expect(result.timed_out).toBe(false);
    expect(result.stdout).toContain("bye\n");
    const sleepPid = Number(result.stdout.split("\n")[0]);
    expect(isProcessGone(sleepPid)).toBe(false);
    expect(registry.list()).toHaveLength(1);
    await killAllProcessGroups(registry);
    expect(await waitForProcessGone(sleepPid, 3_000)).toBe(true);
    expect(registry.list()).toEqual([]);
  });

  it("forgets a group once it has no members left", async () => {
    const registry = createProcessGroupRegistry();
    await runShell({ ...base, processGroups: registry, command: "true" });
    expect(registry.list()).toEqual([]);
  });

  it("reports 128+n when bash is killed by signal n", async () => {
    const result = await runShell({ ...base, command: "kill -TERM $$" });
    expect(result.exit_code).toBe(143);
    expect(result.timed_out).toBe(false);
  });

  it("ends the process group when the abort signal fires", async () => {
    const controller = new AbortController();
    const started = Date.now();
    setTimeout(() => controller.abort(), 200);
    const result = await runShell({ ...base, signal: controller.signal, command: "sleep 100.0404 & wait" });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(result.timed_out).toBe(false);
    expect(result.exit_code).toBe(143);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(findLiveProcesses("sleep 100.0404")).toEqual([]);
  });

  it("ends a child that left the group after the kill began, its leader gone at once (bwrap's sandbox init)", async () => {
    // As bwrap's init when the kill lands during its setup: it ignores SIGTERM (a pid namespace's
    // init does), its leader (bwrap's monitor) dies of it, and only then it leaves the group
    // (--new-session) and starts the command; its --die-with-parent was not yet armed.
    const child =
      "trap '' TERM; echo $$; while kill -0 \"$1\" 2>/dev/null; do sleep 0.01; done; exec setsid sleep 100.0505";
    const controller = new AbortController();
    let childPid = 0;
    const result = await runProcess({
      ...base,
      env: { ...env, CHILD: child },
      file: "bash",
      args: ["-c", 'bash -c "$CHILD" child $$ & wait'],
      signal: controller.signal,
      onStdoutLine: (line) => {
        childPid = Number(line);
        controller.abort();
      },
    });
    try {
      expect(result.exit_code).toBe(143);
      expect(childPid).toBeGreaterThan(0);
      expect(await waitForProcessGone(childPid, 5_000)).toBe(true);
    } finally {
      if (!isProcessGone(childPid)) process.kill(childPid, "SIGKILL");
    }
  });

  it("caps 200 MB of output, keeping head and tail, without holding it in memory", async () => {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    // The output streams through a process runner: it must not hold it either.
    warmProcessRunners();
    const runners = findRunnerPids(process.pid);
    expect(runners.length).toBeGreaterThan(0);
    const runnerPeaksBefore = runners.map(peakResidentBytes);
    gc();
    const before = process.memoryUsage();
    const cap = 64 * 1024;
    const result = await runShell({
      ...base,
      timeoutMs: 60_000,
      outputCapBytes: cap,
      // 200 MiB: a head marker, 'x' lines, a tail marker.
      command:
        "echo HEAD-START; yes xxxxxxxxxxxxxxx | head -c 209715200; echo; echo TAIL-END; echo err-tail >&2",
    });
    const retained = result.stdout;
    // Pipe buffers are released asynchronously: collect, let a macrotask run, collect again.
    gc();
    await new Promise((resolve) => setImmediate(resolve));
    gc();
    const after = process.memoryUsage();
    expect(result.exit_code).toBe(0);
    expect(result.truncated).toBe(true);
    expect(retained.startsWith("HEAD-START\nxxxxxxxxxxxxxxx\n")).toBe(true);
    expect(retained.endsWith("xxxxxxxxxxxxxxx\n\nTAIL-END\n")).toBe(true);
    expect(retained).toMatch(/\n\[\.\.\. 199\.\d MB cut by llm-tool-test \.\.\.\]\n/);
    expect(Buffer.byteLength(retained)).toBeLessThan(cap + 200);
    expect(result.stderr).toBe("err-tail\n");
    // Loose, as memory figures are noisy: buffering the stream would retain 200+ MB.
    const growth = after.heapUsed + after.arrayBuffers - (before.heapUsed + before.arrayBuffers);
    expect(growth).toBeLessThan(35 * 1024 * 1024);
    const runnerPeakGrowth = Math.max(
      ...runners.map((pid, i) => peakResidentBytes(pid) - runnerPeaksBefore[i]!),
    );
    // A fresh runner's peak grows by about 60 MB for a flood of 50 or 200 MiB alike (pipe chunks
    // awaiting collection); holding the flood would take 200+ MB.
    expect(runnerPeakGrowth).toBeLessThan(100 * 1024 * 1024);
  });

  it("never splits a multi-byte character at the cut", async () => {
    const result = await runShell({
      ...base,
      outputCapBytes: 1001,
      command: "for i in $(seq 1 2000); do printf 'é€😀'; done",
    });
    expect(result.truncated).toBe(true);
    expect(result.stdout).not.toContain("\uFFFD");
    const [head, tail] = result.stdout.split(/\n\[\.\.\. .* cut by llm-tool-test \.\.\.\]\n/);
    expect(head && /^(é€😀)+(é|é€)?$/u.test(head)).toBe(true);
    expect(tail && /^(€|😀|€😀)?(é€😀)+$/u.test(tail)).toBe(true);
  });
});

describe("runProcess", () => {
  it("streams stdout lines to onStdoutLine as they arrive, and still returns the output", async () => {
    const lines: string[] = [];
    const result = await runProcess({
      ...base,
      file: "bash",
      args: ["-c", 'printf \'{"a":1}\\n{"b":"é"}\\r\\nlast-without-newline\''],
      onStdoutLine: (line) => lines.push(line),
    });
    expect(lines).toEqual(['{"a":1}', '{"b":"é"}', "last-without-newline"]);
    expect(result.stdout).toContain('{"a":1}');
  });

  it("streams only the first streamCapBytes of a flood, then marks the cut and gives the tail", async () => {
    const lines: string[] = [];
    const cuts: number[] = [];
    const result = await runProcess({
      ...base,
      outputCapBytes: 8 * 1024,
      streamCapBytes: 16 * 1024,
      file: "bash",
      // 20 MB in one line without a newline, then a last line.
      args: ["-c", "printf HEAD; head -c 20000000 /dev/zero | tr '\\0' a; printf '\\nTAIL-END\\n'"],
      onStdoutLine: (line) => lines.push(line),
      onStdoutCut: (droppedBytes) => cuts.push(droppedBytes),
    });
    expect(result.truncated).toBe(true);
    expect(cuts).toHaveLength(1);
    const streamed = lines.reduce((sum, line) => sum + line.length, 0);
    // The streamed head, then the tail (half the output cap): never the flood.
    expect(streamed).toBeLessThanOrEqual(16 * 1024 + 4 * 1024);
    expect(lines[0]?.startsWith("HEAD")).toBe(true);
    expect(lines.at(-1)).toBe("TAIL-END");
    // Every byte is streamed or counted as cut (the two newlines of the tail are not in its lines).
    expect(cuts[0]).toBe(4 + 20_000_000 + 10 - streamed - 2);
  });

  it("without onStdoutCut the cut is a line of its own; under the cap nothing is cut", async () => {
    const lines: string[] = [];
    const flooded = await runProcess({
      ...base,
      outputCapBytes: 1024,
      streamCapBytes: 1024,
      file: "bash",
      args: ["-c", "seq 1 100000"],
      onStdoutLine: (line) => lines.push(line),
    });
    expect(flooded.truncated).toBe(true);
    expect(lines.filter((line) => line.includes("cut by llm-tool-test"))).toHaveLength(1);
    expect(lines.at(-1)).toBe("100000");
    const small: string[] = [];
    const whole = await runProcess({
      ...base,
      outputCapBytes: 1024,
      streamCapBytes: 1024,
      file: "bash",
      // Over the streamed head but within head and tail: every line arrives, none cut.
      args: ["-c", "seq 1 350"],
      onStdoutLine: (line) => small.push(line),
    });
    // (result.stdout itself is capped at outputCapBytes, as without streaming.)
    expect(whole.stdout).toContain("cut by llm-tool-test");
    expect(small).toEqual(Array.from({ length: 350 }, (_, index) => String(index + 1)));
  });

  it("throws InfraError when the binary does not exist", async () => {
    await expect(runProcess({ ...base, file: "/nonexistent/agent-cli", args: [] })).rejects.toBeInstanceOf(
      InfraError,
    );
    await expect(runProcess({ ...base, file: "/nonexistent/agent-cli", args: [] })).rejects.toThrow(
      /could not start "\/nonexistent\/agent-cli"/,
    );
  });
});

describe("createOutputCollector", () => {
  it("keeps everything when under the cap", () => {
    const collector = createOutputCollector(10);
    collector.push(Buffer.from("abc"));
    collector.push(Buffer.from("defgh"));
    expect(collector.finish()).toEqual({ text: "abcdefgh", truncated: false, droppedBytes: 0 });
  });

  it("keeps the first and last half of the cap and counts the rest", () => {
    const collector = createOutputCollector(10);
    for (const chunk of ["0123", "4567", "89ab", "cdef"]) collector.push(Buffer.from(chunk));
    const output = collector.finish();
    expect(output.truncated).toBe(true);
    expect(output.droppedBytes).toBe(6);
    expect(output.text).toBe("01234\n[... 6 bytes cut by llm-tool-test ...]\nbcdef");
  });
});
