/**
 * Benchmarks of issue 7, measured side by side in one run (these machines are noisy; ratios
 * mean more than absolute times). Prints a table and writes BENCHMARKS.md.
 */

import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { expect, it } from "vitest";
import { createAnthropicAgent } from "../src/agents/anthropic.js";
import { evaluateGates } from "../src/evaluate/gates.js";
import { extractInvocations } from "../src/evaluate/invocations.js";
import { computeExecution, computeInteraction } from "../src/evaluate/metrics.js";
import { createAnthropicClient } from "../src/model/anthropic-client.js";
import { renderReportMarkdown } from "../src/render/report-markdown.js";
import { buildScenarioReport, scenarioMetaOf, summarizeRun } from "../src/results/aggregate.js";
import type { Report, TrialReport } from "../src/results/types.js";
import { defaultRunOptions } from "../src/run/options.js";
import { runSuite } from "../src/run/suite.js";
import type { TrialEvent } from "../src/transcript/events.js";
import { readEvents } from "../src/transcript/reader.js";
import { bashCall, finalText, scriptByTurn, startModelServer } from "../tests/support/model-server.js";
import { makeInteraction, makeTrial } from "../tests/support/report-factory.js";
import { runCli } from "../tests/support/run-cli.js";
import { makeScenario } from "../tests/support/scenario-factory.js";
import { writeBenchmarkSection } from "./benchmarks-file.js";

const rows: { name: string; value: string; target: string; ok: boolean }[] = [];
function record(name: string, value: string, target: string, ok: boolean) {
  rows.push({ name, value, target, ok });
  process.stdout.write(`${ok ? "ok  " : "MISS"} ${name}: ${value} (target ${target})\n`);
}

const LATENCY_MS = 100;
const TURNS = 5;
const TRIALS = 64;

const SCRIPT = scriptByTurn([
  ...Array.from({ length: TURNS - 1 }, (_, i) => bashCall(`echo ${i}`)),
  finalText("done"),
]);

/** The scripted server, its code paths compiled before anything is timed against it. */
async function startWarmServer(latencyMs: number) {
  const server = await startModelServer(SCRIPT, { latencyMs });
  for (let i = 0; i < 20; i++) {
    await fetch(`${server.url}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        model: "warm-up",
        max_tokens: 1,
        messages: [{ role: "user", content: "warm up" }],
      }),
    }).then((response) => response.text());
  }
  return server;
}

/**
 * The harness as users run it: the real CLI in its own process (so the scripted model server in
 * this process does not compete with it for the event loop), timed by the run's own clock in
 * report.json (from the first trial's start to the report, without Node's start-up).
 * The efficiency rows run in the local sandbox, as every earlier run of this bench did, so their
 * ratios compare across versions; the default sandbox (auto: bwrap where it works) adds a bwrap
 * start-up to every trial's shell, timed in its own row.
 */
async function timeSuite(
  concurrency: number,
  trials = TRIALS,
  latencyMs = LATENCY_MS,
  sandbox: "local" | "auto" = "local",
): Promise<number> {
  const server = await startWarmServer(latencyMs);
  const dir = await mkdtemp(path.join(os.tmpdir(), "ltt-bench-"));
  try {
    await mkdir(path.join(dir, "suite"));
    for (let i = 0; i < trials; i++) {
      await writeFile(
        path.join(dir, "suite", `s${i}.yaml`),
        `name: bench_${i}\ntask: task ${i}\nevaluation: {gates: []}\n`,
      );
    }
    const out = path.join(dir, "out");
    await runCli(
      [
        "run",
        path.join(dir, "suite"),
        "--agent",
        "anthropic",
        "--model",
        "claude-bench",
        "-j",
        String(concurrency),
        // One trial a scenario: the suite is sized in trials (the default is 3 per scenario).
        "--trials",
        "1",
        "--sandbox",
        sandbox,
        "--out",
        out,
        "--quiet",
      ],
      {
        env: { ANTHROPIC_API_KEY: "sk-bench-key", ANTHROPIC_BASE_URL: server.url },
      },
    );
    const report = JSON.parse(await readFile(path.join(out, "report.json"), "utf8")) as Report;
    expect(report.summary.passed).toBe(trials);
    return Date.parse(report.run.ended_at) - Date.parse(report.run.started_at);
  } finally {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * A script of bench/ in its own process too, against a warm scripted server of `latencyMs`, with
 * `args` after the server's URL; its stdout, trimmed.
 */
async function runBenchScript(script: string, args: string[], latencyMs: number): Promise<string> {
  const server = await startWarmServer(latencyMs);
  try {
    const child = spawn(process.execPath, [path.join(import.meta.dirname, script), server.url, ...args], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let output = "";
    child.stdout.on("data", (chunk) => {
      output += chunk;
    });
    const [code] = (await once(child, "close")) as [number | null];
    expect(code).toBe(0);
    return output.trim();
  } finally {
    await server.close();
  }
}

/** bench/bare-loop.mjs with these arguments after the server's URL. */
const runBareLoop = (args: string[]) => runBenchScript("bare-loop.mjs", args, LATENCY_MS);

/** bench/cpu-probe.mjs against a scripted server of short latency (CPU is what it measures). */
const runCpuProbe = () => runBenchScript("cpu-probe.mjs", [], 10);

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

it("harness efficiency and sequential vs concurrent", async () => {
  const walls: Record<number, number> = {};
  const samples: Record<number, number[]> = {};
  // Concurrency 8, the target, is timed five times and its median kept: one run is 4-5 s on a
  // shared machine, where a single sample moves by a few percent. The bare loop (below) is timed
  // right after each, so that the two medians compare like with like.
  const bareRuns: number[] = [];
  for (const concurrency of [1, 8, 8, 8, 8, 8, 32]) {
    samples[concurrency] = [...(samples[concurrency] ?? []), await timeSuite(concurrency)];
    if (concurrency === 8) bareRuns.push(Number(await runBareLoop([String(TRIALS), "8", String(TURNS)])));
  }
  for (const concurrency of [1, 8, 32]) {
    const runs = samples[concurrency] as number[];
    walls[concurrency] = median(runs);
    const ideal = Math.ceil(TRIALS / concurrency) * TURNS * LATENCY_MS;
    const ratio = (walls[concurrency] as number) / ideal;
    const spread =
      runs.length > 1 ? `; runs ${runs.map((wall) => (wall / ideal).toFixed(3)).join(", ")}` : "";
    record(
      `harness efficiency at concurrency ${concurrency} (${TRIALS} trials × ${TURNS} turns, ${LATENCY_MS} ms/response): wall ÷ ideal${runs.length > 1 ? `, median of ${runs.length}` : ""}`,
      `${ratio.toFixed(3)} (${(walls[concurrency] as number).toFixed(0)} ms vs ${ideal} ms${spread})`,
      concurrency === 8 ? "≤ 1.10" : "report",
      concurrency === 8 ? ratio <= 1.1 : true,
    );
  }
  const speedup = (walls[1] as number) / (walls[8] as number);
  record("sequential ÷ concurrent (1 vs 8)", `${speedup.toFixed(2)}×`, "≥ 7×", speedup >= 7);
  // What a trial cannot go below on this machine: its model calls' round trips and its commands'
  // run times, each timed bare (one at a time, from a small process), side by side.
  const probe = JSON.parse(await runBareLoop(["probe"])) as { modelCallMs: number; commandMs: number };
  const floorPerTrial = TURNS * probe.modelCallMs + (TURNS - 1) * probe.commandMs;
  const floor1 = TRIALS * floorPerTrial;
  record(
    `  the floor at concurrency 1: ${TRIALS} × (${TURNS} bare model calls of ${probe.modelCallMs.toFixed(1)} ms + ${TURNS - 1} bare commands of ${probe.commandMs.toFixed(1)} ms) ÷ ideal`,
    `${(floor1 / (TRIALS * TURNS * LATENCY_MS)).toFixed(3)}`,
    "report",
    true,
  );
  record(
    "  the harness at concurrency 1 ÷ that floor (its own overhead)",
    `${((walls[1] as number) / floor1).toFixed(3)}`,
    "report",
    true,
  );
  // The same model calls and commands done by the shortest loop (no sandbox, events or evaluation,
  // bash spawned from its own event loop), side by side: what a plain design gets.
  const bare = median(bareRuns);
  const idealAt8 = Math.ceil(TRIALS / 8) * TURNS * LATENCY_MS;
  record(
    `  the same calls as a bare loop spawning from its event loop, concurrency 8 (bench/bare-loop.mjs): wall ÷ ideal, median of ${bareRuns.length}`,
    `${(bare / idealAt8).toFixed(3)} (${bare} ms; runs ${bareRuns.map((wall) => (wall / idealAt8).toFixed(3)).join(", ")})`,
    "report",
    true,
  );
  record(
    "  the harness at concurrency 8 ÷ that bare loop (medians)",
    `${((walls[8] as number) / bare).toFixed(3)}`,
    "report",
    true,
  );
  // The CPU each step costs, the harness's way and the bare way (bench/cpu-probe.mjs): unlike the
  // wall times above it hardly moves when other work shares the machine. Linux only (/proc).
  if (process.platform === "linux") {
    const cpu = JSON.parse(await runCpuProbe()) as Record<
      | "clientCallMs"
      | "bareCallMs"
      | "sdkUndiciCallMs"
      | "sdkNodeHttpCallMs"
      | "runnerCommandMs"
      | "bareCommandMs",
      number
    >;
    record(
      "  CPU per model call, 8 at once: the harness's client (the SDK over undici) ÷ node:http (bench/cpu-probe.mjs)",
      `${(cpu.clientCallMs / cpu.bareCallMs).toFixed(2)}× (${cpu.clientCallMs.toFixed(2)} ms vs ${cpu.bareCallMs.toFixed(2)} ms)`,
      "report",
      true,
    );
    record(
      "  the transport alone: the SDK over undici (the harness's transport) ÷ the same SDK over node:http (bench/sdk-over-node-http.mjs)",
      `${(cpu.sdkUndiciCallMs / cpu.sdkNodeHttpCallMs).toFixed(2)}× (${cpu.sdkUndiciCallMs.toFixed(2)} ms vs ${cpu.sdkNodeHttpCallMs.toFixed(2)} ms)`,
      "report",
      true,
    );
    record(
      "  CPU per command, 8 at once: through the process runners (execa; runners and bash included) ÷ spawned bare",
      `${(cpu.runnerCommandMs / cpu.bareCommandMs).toFixed(2)}× (${cpu.runnerCommandMs.toFixed(2)} ms vs ${cpu.bareCommandMs.toFixed(2)} ms)`,
      "report",
      true,
    );
  }
  // The default sandbox: auto, which is bwrap on this machine (a bwrap start-up per trial's shell).
  const inDefault = await timeSuite(8, TRIALS, LATENCY_MS, "auto");
  record(
    "  the same at concurrency 8 in the default sandbox (auto: bwrap here, one bwrap start-up per trial's shell): wall ÷ ideal",
    `${(inDefault / idealAt8).toFixed(3)} (${inDefault.toFixed(0)} ms)`,
    "report",
    true,
  );
  // With a model's real latency (a second or more per call) the same per-step overhead vanishes.
  const slow = await timeSuite(8, 16, 1000);
  const slowIdeal = (16 / 8) * TURNS * 1000;
  record(
    "harness efficiency at concurrency 8 with 1 s/response (16 trials × 5 turns): wall ÷ ideal",
    `${(slow / slowIdeal).toFixed(3)} (${slow} ms vs ${slowIdeal} ms)`,
    "≤ 1.10",
    slow / slowIdeal <= 1.1,
  );
});

function syntheticEvents(count: number): TrialEvent[] {
  const events: TrialEvent[] = [];
  const epoch = Date.parse("2026-01-01T00:00:00.000Z");
  const at = (ms: number) => ({ ts: new Date(ms).toISOString(), t_ms: ms - epoch });
  let i = 0;
  while (events.length < count) {
    const turn = Math.floor(i / 2) + 1;
    // Each call gets its own 10 ms: the shim's record falls inside its call, as a real one does.
    const start = epoch + i * 10;
    const base = at(start);
    events.push({
      ...base,
      type: "model_response",
      turn,
      stop_reason: "tool_use",
      usage: { input_tokens: 100, output_tokens: 20, cache_read_tokens: 80, cache_write_tokens: 10 },
      text: "",
      tool_uses: [],
      duration_ms: 5,
    });
    events.push({
      ...base,
      type: "tool_call",
      call_id: `c${i}`,
      turn,
      command: `tool sub${i % 7} --flag ${i % 13}`,
    });
    events.push({
      ...at(start + 5),
      type: "tool_result",
      call_id: `c${i}`,
      stdout: `output ${i}\n`,
      stderr: i % 5 === 0 ? "warning\n" : "",
      exit_code: i % 9 === 0 ? 1 : 0,
      duration_ms: 3,
      truncated: false,
      timed_out: false,
    });
    events.push({
      ...base,
      type: "target_invocation",
      argv: ["tool", `sub${i % 7}`, "--flag", String(i % 13)],
      exit_code: i % 9 === 0 ? 1 : 0,
      duration_ms: 2,
      cwd: "/w",
      started_at_ms: start + 1,
    });
    i += 1;
  }
  return events.slice(0, count);
}

it("analysis: layer 1 and gates over 100,000 events", async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), "ltt-bench-events-"));
  const file = path.join(dir, "events.jsonl");
  await writeFile(
    file,
    `${syntheticEvents(100_000)
      .map((e) => JSON.stringify(e))
      .join("\n")}\n`,
  );
  const heapBefore = process.memoryUsage().heapUsed;
  const rawStart = performance.now();
  const { readFile } = await import("node:fs/promises");
  const raw = (await readFile(file, "utf8"))
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line));
  const rawMs = performance.now() - rawStart;
  expect(raw).toHaveLength(100_000);

  const started = performance.now();
  const events = await readEvents(file);
  const target = { binary: "tool", env: {} };
  const { source, invocations } = extractInvocations(events, target);
  const interaction = computeInteraction(invocations, true);
  computeExecution(events, { prices: {}, model: "claude-haiku-4-5" });
  const gates = await evaluateGates(
    [
      { type: "no_transcript_errors", weight: 1 },
      { type: "stdout_contains", substring: "output 99999", weight: 1 },
      { type: "stdout_regex", pattern: "output 4\\d{4}$", weight: 1 },
      { type: "stderr_empty", weight: 1 },
      { type: "tool_calls_min", count: 10, weight: 1 },
    ],
    {
      sandbox: {
        runGateCommand: async () => {
          throw new Error("not used");
        },
        gateFiles: { root: "/nonexistent", workDir: "/nonexistent", absoluteLinks: "host" },
      },
      events,
      invocations,
      invocationSource: source,
      recordedCalls: invocations,
      scriptEnv: {},
      gateTimeoutMs: 1000,
    },
  );
  const elapsed = performance.now() - started;
  const heapGrowth = (process.memoryUsage().heapUsed - heapBefore) / 1024 / 1024;
  expect(interaction.total_commands).toBe(25_000);
  expect(gates).toHaveLength(5);
  record("layer 1 + gates over 100,000 events", `${elapsed.toFixed(0)} ms`, "< 1000 ms", elapsed < 1000);
  record(
    "  … ÷ plain read + JSON.parse of the same file",
    `${(elapsed / rawMs).toFixed(2)}×`,
    "report",
    true,
  );
  record(
    "  heap growth (events held in memory)",
    `${heapGrowth.toFixed(0)} MB`,
    "bounded (< 300 MB)",
    heapGrowth < 300,
  );
  await rm(dir, { recursive: true, force: true });
});

/**
 * A trial of `count` calls of one command a second apart, every third failing, each call and its
 * result stamped `lateMs` after its command ran (as an agent CLI that stamps at answer arrival).
 */
function lateStampedEvents(count: number, lateMs: number): TrialEvent[] {
  const epoch = Date.parse("2026-01-01T00:00:00.000Z");
  const at = (ms: number) => ({ ts: new Date(epoch + ms).toISOString(), t_ms: ms });
  const events: TrialEvent[] = [];
  for (let i = 0; i < count; i += 1) {
    const start = i * 1000;
    const exitCode = i % 3 === 0 ? 1 : 0;
    events.push({
      ...at(start + lateMs),
      type: "tool_call",
      call_id: `c${i}`,
      turn: i + 1,
      command: "tool check",
    });
    events.push({
      ...at(start + 300 + lateMs),
      type: "tool_result",
      call_id: `c${i}`,
      stdout: "",
      stderr: "",
      exit_code: exitCode,
      duration_ms: 300,
      truncated: false,
      timed_out: false,
    });
    events.push({
      ...at(start + 302),
      type: "target_invocation",
      argv: ["tool", "check"],
      exit_code: exitCode,
      duration_ms: 298,
      cwd: "/w",
      started_at_ms: epoch + start + 1,
    });
  }
  return events;
}

it("layer 1: shim records matched to 20,000 calls of one command, stamped late", () => {
  const target = { binary: "tool", env: {} };
  const timeMatching = (events: TrialEvent[]) => {
    const times: number[] = [];
    for (let round = 0; round < 5; round += 1) {
      const started = performance.now();
      const { invocations, disagreements } = extractInvocations(events, target);
      times.push(performance.now() - started);
      expect(invocations).toHaveLength(20_000);
      expect(disagreements).toBeUndefined();
    }
    return times.sort((a, b) => a - b)[2] as number;
  };
  // 900 ms late: each call's window holds its neighbour's record, its own lies before it.
  const late = timeMatching(lateStampedEvents(20_000, 900));
  const onTime = timeMatching(lateStampedEvents(20_000, 0));
  record(
    "layer 1 over 20,000 calls of one command stamped 900 ms late (median of 5)",
    `${late.toFixed(0)} ms`,
    "report",
    true,
  );
  record(
    "  … ÷ the same calls stamped on time (records within their own calls)",
    `${(late / onTime).toFixed(2)}×`,
    "≤ 1.5",
    late / onTime <= 1.5,
  );
});

it("report.json → Markdown for 1,000 scenarios × 5 trials", () => {
  const scenarios = Array.from({ length: 1000 }, (_, i) => {
    const trials: TrialReport[] = Array.from({ length: 5 }, (_, t) =>
      makeTrial({
        trial: t + 1,
        outcome: (i + t) % 7 === 0 ? "fail" : "pass",
        score: 1,
        max_score: 2,
        interaction: makeInteraction({ total_commands: 5, error_rate: 0.2, first_try_success_rate: 0.8 }),
        gates: [{ gate_type: "file_exists", passed: (i + t) % 7 !== 0, message: "x.txt missing", weight: 1 }],
      }),
    );
    return buildScenarioReport(
      scenarioMetaOf(makeScenario({ id: `s${i}`, category: `c${i % 10}` }), null),
      trials,
    );
  });
  const report = {
    schema_version: 1,
    run: {
      id: "bench",
      started_at: "",
      ended_at: "",
      harness_version: "0",
      agent: "anthropic",
      model: "m",
      judge_model: null,
      git_sha: null,
      git_ref: null,
      settings_hash: "",
      price_table: {},
      incomplete: false,
      shard: null,
    },
    scenarios,
    summary: summarizeRun(scenarios),
  } as Report;
  const jsonStart = performance.now();
  const json = JSON.stringify(report);
  const jsonMs = performance.now() - jsonStart;
  const started = performance.now();
  const markdown = renderReportMarkdown(JSON.parse(json) as Report);
  const elapsed = performance.now() - started;
  expect(markdown).toContain("s999");
  record("report.json → Markdown, 1,000 × 5", `${elapsed.toFixed(0)} ms`, "report", true);
  record("  … ÷ JSON.stringify of the same report", `${(elapsed / jsonMs).toFixed(2)}×`, "report", true);
});

it("prompt caching: billed-equivalent input tokens of a 10-turn trial", async () => {
  const script = scriptByTurn([
    ...Array.from({ length: 9 }, (_, i) => bashCall(`seq 1 ${20 + i}`)),
    finalText("done"),
  ]);
  const server = await startModelServer(script, { simulatePromptCache: true });
  const outDir = await mkdtemp(path.join(os.tmpdir(), "ltt-bench-cache-"));
  try {
    const client = createAnthropicClient({ apiKey: "sk-bench", baseURL: server.url });
    const { report } = await runSuite(
      [makeScenario({ id: "cache", task: "count", system: "Guidance. ".repeat(400) })],
      defaultRunOptions({ agent: "anthropic", model: "claude-haiku-4-5", outDir, maxTurns: 10 }),
      { agent: createAnthropicAgent(client), env: { PATH: process.env.PATH } },
    );
    const execution = report.scenarios[0]?.trials[0]?.execution;
    expect(execution?.turns).toBe(10);
    const input = execution?.input_tokens ?? 0;
    const read = execution?.cache_read_tokens ?? 0;
    const write = execution?.cache_write_tokens ?? 0;
    // Published price ratios: cache reads bill at 0.1× input, 5-minute cache writes at 1.25×.
    const cached = input + 0.1 * read + 1.25 * write;
    const uncached = input + read + write;
    record(
      "prompt caching: billed-equivalent input tokens, cached ÷ uncached (10 turns)",
      `${(cached / uncached).toFixed(3)} (${Math.round(cached)} vs ${uncached})`,
      "< 0.5",
      cached / uncached < 0.5,
    );
  } finally {
    await server.close();
    await rm(outDir, { recursive: true, force: true });
  }
});

it("writes BENCHMARKS.md", async () => {
  const lines = [
    "## The harness",
    "",
    `bench/harness.bench-run.ts, Node ${process.version}, ${new Date().toISOString().slice(0, 10)}.`,
    "",
    "| Measure | Result | Target | Met |",
    "|---|---|---|---|",
    ...rows.map((r) => `| ${r.name} | ${r.value} | ${r.target} | ${r.ok ? "yes" : "no"} |`),
    "",
    "### Where the harness's time goes",
    "",
    "The harness runs as the real CLI in its own process, timed by its own clock (report.json's",
    "`started_at` → `ended_at`, so Node's start-up and module loading are outside), against the",
    "scripted Messages-API server in the benchmark's process, which answers each request 100 ms",
    "after it arrived. Each trial is 5 model calls with an `echo N` bash call between them.",
    "",
    "- The ideal bound counts neither the commands nor the HTTP round trips. The floor rows time both",
    "  bare, one at a time from a small process: on these VMs a `bash -c` call takes 3-4 ms (an exec",
    "  alone about 1.5 ms) and a model call about a millisecond over its latency. A sequential trial",
    "  cannot go below that floor; the harness's own overhead is the ratio to it at concurrency 1.",
    "- At concurrency 8 the trials share two cores: when their model answers arrive together, so do",
    "  their commands, and each waits for the others' process starts. That contention is most of the",
    "  distance from the concurrency-1 figure; the runs of the median show how much it varies.",
    "- The harness never spawns from its own event loop, which every trial in flight shares: a spawn",
    "  from a large Node process forks it and waits for the child's exec, milliseconds during which",
    "  every other trial's model traffic stalls. Small process runners spawn the commands instead,",
    "  with execa (docs/architecture.md). The bare-loop row shows what spawning from the event loop",
    "  costs: that loop has no sandbox, events or evaluation.",
    "- Model calls go through undici with keep-alive connections (and through HTTPS_PROXY when set),",
    "  by its request API under the SDK rather than its fetch: on the one event loop that every trial",
    "  shares, fetch's WHATWG streams cost about half a millisecond more CPU per call. The CPU rows",
    "  (bench/cpu-probe.mjs) compare each step with its bare form, warm: what a model call costs over",
    "  node:http is mostly the SDK's own work, and the transport row is undici's part.",
    "- What undici costs at this row, measured side by side through the CLI on 2026-11-24 (this harness",
    "  with its transport swapped for the node:http client it had before issue #13; 8 to 10",
    "  interleaved rounds, five times): concurrency 8 at 1.115-1.139 over undici, 1.093-1.107 over",
    "  node:http. Two things make it. Before it writes a request on a reused keep-alive socket, undici",
    "  waits one turn of the event loop (a check against response smuggling, GHSA-35p6-xmwp-9g52),",
    "  and on a loop busy with seven other trials that delays every call: with the check patched out,",
    "  for the measurement only, the row gave back about half (1.105). The rest is its CPU while its",
    "  code is still cold (over the first few hundred calls about 1.0 ms a call, against 0.6 ms for",
    "  node:http under the same SDK). A handler without body streams, or a plain Agent without the",
    "  proxy layer, changed nothing measurable. At a real model's latency this is within noise.",
    "- The runners spawn with execa, about a millisecond more CPU per command than a bare spawn; no",
    "  execa option (buffer, encoding, lines, verbose, ipc) and no V8 flag of the runner measurably",
    "  lowers it. Before issue #13 (node:http, a hand-written spawner) this row measured 1.098; side",
    "  by side with that code on 2026-11-24 it measured 1.089-1.099, and the swapped-transport runs",
    "  above put nearly all of the difference on the transport.",
    "- The runners, and every process they start, run 4 nicer than the harness: at concurrency 8 on",
    "  two cores, each wake-up of a runner or a command took the CPU from the one event loop that",
    "  every trial waits on. Side by side through the CLI (4 rounds each) that was 1.164 without and",
    "  1.097 with; the commands of all trials keep one priority among themselves. Running them",
    "  SCHED_BATCH as well (no wake-up preemption) measured no better (1.146 against 1.128).",
    "- Containment (issue #16): in the local sandbox, where the harness can make a cgroup (as root",
    "  here), each trial's processes are born in the trial's own cgroup, spawned by a process runner",
    "  of the trial's own that waits there, so that `cgroup.kill` ends whatever they leave. When each",
    "  command moved itself into the cgroup instead, every move waited about 12 ms for the kernel's",
    "  cgroup lock (an RCU grace period, paid whenever moves are sparse) and this row measured 1.26;",
    "  now one move per trial remains, in the background (the runner moves to a fresh cgroup for the",
    "  next trial). The price is a runner per trial in flight: a Node start-up each (the runner is",
    "  bundled with execa into one file, 40-50 ms of CPU) and some 50 MB. So there are at most",
    "  four per core; the trials beyond them have each command join the cgroup as before, which is",
    "  what the concurrency-32 row pays (8 runners here, 24 trials joining; without the bound, 32",
    "  start-ups on two cores measured 2.6). The default sandbox, auto (bwrap here), needs no cgroup:",
    "  its pid namespace ends everything when the trial's shell ends, and its row pays a bwrap start-up",
    "  per trial instead (per command before the persistent shell: bench/agent-shell.bench-run.ts",
    "  compares the two). The runners' start-ups overlap the first trials; holding the run until",
    "  all were up measured the same (1.127 against 1.128).",
    "- These VMs drift: on one day (2026-11-24) the concurrency-8 median of the same code moved",
    "  between 1.10 and 1.15 from run to run of the bench, and the bare loop's with it (1.11 to 1.15);",
    "  the ratio of the two medians, timed side by side, is the steadier figure.",
    "- With a real model's latency (a second or more per call) all of this is a percent or two (the",
    "  1 s/response row).",
    "",
  ];
  await writeBenchmarkSection("harness", lines.join("\n"));
});
