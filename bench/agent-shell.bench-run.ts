/**
 * The agent's persistent shell (src/sandbox/persistent-shell.ts) against a sandbox per command,
 * side by side in one run: the same trials (a sandbox, four `echo N` calls, the sandbox's end),
 * each call in the trial's one shell or in a fresh `bash -c` of its own (bwrap: a sandbox of its
 * own, as every call ran before), in both sandbox modes, one trial at a time and eight at once.
 * Prints a table and writes its section of BENCHMARKS.md.
 *
 *   npx vitest run --config bench/vitest.config.ts bench/agent-shell.bench-run.ts
 */
import { execFileSync } from "node:child_process";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { it } from "vitest";
import { createTrialSandbox } from "../src/sandbox/trial-sandbox.js";
import type { TrialSandbox } from "../src/sandbox/types.js";
import type { SandboxMode } from "../src/scenario/types.js";
import { createEventRecorder } from "../tests/support/event-builder.js";
import { makeScenario } from "../tests/support/scenario-factory.js";
import { writeBenchmarkSection } from "./benchmarks-file.js";

const CALLS_PER_TRIAL = 4;
const TRIALS = 16;
const ROUNDS = 3;
const TICK_MS = 10; // /proc times are in clock ticks of 10 ms

type Style = "one shell per trial" | "a sandbox per command";
const STYLES: Style[] = ["one shell per trial", "a sandbox per command"];

function bwrapWorks(): boolean {
  try {
    execFileSync("bwrap", ["--ro-bind", "/", "/", "true"], { stdio: "pipe" });
    return true;
  } catch {
    return false;
  }
}

/** utime + stime and the waited-for children's, of a process, in ms (clock ticks). */
async function procCpuMs(pid: string | number): Promise<number> {
  const fields = (await readFile(`/proc/${pid}/stat`, "utf8")).split(") ")[1]?.split(" ") ?? [];
  return (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) * TICK_MS;
}

/**
 * CPU of this process and every process it started, in ms: its own (precise), its reaped
 * children's, and its live children's (the process runners) with theirs. A runner reaps the
 * commands and shells it ran, bwrap what ran inside: once a trial's sandbox is gone, all of its
 * CPU is in here.
 */
async function treeCpuMs(): Promise<number> {
  const own = process.cpuUsage();
  const self = (await readFile("/proc/self/stat", "utf8")).split(") ")[1]?.split(" ") ?? [];
  let total = (own.user + own.system) / 1000 + (Number(self[13]) + Number(self[14])) * TICK_MS;
  for (const name of await readdir("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = await readFile(`/proc/${name}/stat`, "utf8");
      if (Number(stat.split(") ")[1]?.split(" ")[1]) === process.pid) total += await procCpuMs(name);
    } catch {
      // Gone meanwhile: its CPU is now in our reaped children's.
    }
  }
  return total;
}

async function oneTrial(mode: SandboxMode, style: Style, dir: string, index: number): Promise<number> {
  const sandbox: TrialSandbox = await createTrialSandbox({
    scenario: makeScenario(),
    mode,
    trialDir: path.join(dir, "out", `trial-${index}`),
    parentEnv: { PATH: process.env.PATH ?? "/usr/bin:/bin", LANG: "C.UTF-8" },
    events: createEventRecorder(),
    tmpRoot: path.join(dir, "tmp"),
  });
  try {
    const started = performance.now();
    for (let call = 0; call < CALLS_PER_TRIAL; call++) {
      const run = { timeoutMs: 60_000 };
      const result =
        style === "one shell per trial"
          ? await sandbox.runAgentCommand(`echo ${call}`, run)
          : await sandbox.runAgentCommandAlone(`echo ${call}`, run);
      if (result.stdout !== `${call}\n`) throw new Error(`unexpected output: ${JSON.stringify(result)}`);
    }
    return performance.now() - started;
  } finally {
    await sandbox.endAgentProcesses();
    await sandbox.dispose();
  }
}

interface Sample {
  /** Wall time of a call, from the agent's side (the trials' call times ÷ their calls). */
  callMs: number;
  /** CPU per call of everything the trials ran, sandbox set-up and end included. */
  cpuPerCallMs: number;
  /** Wall time of the whole batch ÷ its calls. */
  batchMs: number;
}

async function measure(mode: SandboxMode, style: Style, concurrency: number, dir: string): Promise<Sample> {
  const cpuBefore = await treeCpuMs();
  const started = performance.now();
  const callTimes: number[] = [];
  for (let first = 0; first < TRIALS; first += concurrency) {
    const batch = Array.from({ length: Math.min(concurrency, TRIALS - first) }, (_, offset) =>
      oneTrial(mode, style, dir, first + offset),
    );
    callTimes.push(...(await Promise.all(batch)));
  }
  const calls = TRIALS * CALLS_PER_TRIAL;
  return {
    callMs: callTimes.reduce((sum, ms) => sum + ms, 0) / calls,
    cpuPerCallMs: ((await treeCpuMs()) - cpuBefore) / calls,
    batchMs: (performance.now() - started) / calls,
  };
}

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

it("the agent's shell: one per trial against a sandbox per command", async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), "ltt-bench-shell-"));
  const modes: SandboxMode[] = bwrapWorks() ? ["bwrap", "local"] : ["local"];
  const rows: string[] = [];
  try {
    // Warm-up: the runners, bwrap's first start and each code path, untimed.
    for (const mode of modes) for (const style of STYLES) await oneTrial(mode, style, dir, -1);
    for (const mode of modes) {
      for (const concurrency of [1, 8]) {
        const samples: Record<Style, Sample[]> = { "one shell per trial": [], "a sandbox per command": [] };
        // Interleaved rounds: both styles see the same machine, whatever else runs on it.
        for (let round = 0; round < ROUNDS; round++) {
          for (const style of STYLES) samples[style].push(await measure(mode, style, concurrency, dir));
        }
        const summary = (style: Style) => ({
          callMs: median(samples[style].map((sample) => sample.callMs)),
          cpuMs: median(samples[style].map((sample) => sample.cpuPerCallMs)),
          batchMs: median(samples[style].map((sample) => sample.batchMs)),
        });
        const shell = summary("one shell per trial");
        const alone = summary("a sandbox per command");
        const row = `| ${mode} | ${concurrency} | ${alone.callMs.toFixed(1)} ms | ${shell.callMs.toFixed(1)} ms | ${(alone.callMs / shell.callMs).toFixed(1)}× | ${alone.cpuMs.toFixed(1)} ms | ${shell.cpuMs.toFixed(1)} ms | ${alone.batchMs.toFixed(1)} ms | ${shell.batchMs.toFixed(1)} ms |`;
        rows.push(row);
        process.stdout.write(`${row}\n`);
      }
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }

  const lines = [
    "## The agent's shell: one per trial, or a sandbox per command",
    "",
    `bench/agent-shell.bench-run.ts, Node ${process.version}, ${new Date().toISOString().slice(0, 10)}.`,
    "",
    `${TRIALS} trials of ${CALLS_PER_TRIAL} calls (\`echo N\`) each, their calls in the trial's persistent shell or`,
    "each in a `bash -c` of its own (in bwrap, a sandbox of its own: how every call ran before the",
    `persistent shell), timed side by side in ${ROUNDS} interleaved rounds (medians), one trial at a time and`,
    "eight at once. A call's time is the agent's wait for it; the CPU per call is everything the trials",
    "ran (the harness, its process runners, bwrap, bash), sandbox set-up and end included, ÷ the calls;",
    "the batch time is the whole run's wall time ÷ its calls.",
    "",
    "| Sandbox | At once | Call, sandbox per command | Call, one shell | Ratio | CPU/call, sandbox per command | CPU/call, one shell | Batch/call, sandbox per command | Batch/call, one shell |",
    "|---|---|---|---|---|---|---|---|---|",
    ...rows,
    "",
    "- The first call of a trial starts its shell (in bwrap, its sandbox) and pays what every call paid",
    "  before; the calls after it are a write to a FIFO and the command itself. A trial's set-up (its",
    "  folders, the fixture, bwrap's probe of the host) is the same in both and is in the CPU column.",
    "- The shell needs a `mkfifo` per shell and four FIFOs read by the harness's event loop: a trial",
    "  of one call pays a little more than before, a trial of two or more calls less.",
    "",
  ];
  await writeBenchmarkSection("agent-shell", lines.join("\n"));
});
