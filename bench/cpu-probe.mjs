/**
 * CPU time per step of a turn, the harness's way and the bare way, side by side: CPU time, unlike
 * wall time, hardly moves when other work shares the machine. Linux only (it reads /proc).
 *
 *   node bench/cpu-probe.mjs BASE_URL
 *
 * Prints JSON, milliseconds of CPU per step (medians over interleaved rounds of 8 at once):
 * { "clientCallMs": a Messages call through the harness's client (lib/, the SDK over undici),
 *   "bareCallMs": the same call with node:http,
 *   "sdkUndiciCallMs" / "sdkNodeHttpCallMs": the same call through the SDK alone, over the
 *     harness's transport (undici) and over node:http (bench/sdk-over-node-http.mjs),
 *   "runnerCommandMs": a `bash -c 'echo N'` through the process runners (this process, the
 *     runners and their children),
 *   "bareCommandMs": the same command spawned from this process (it and its children) }
 */
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { createAnthropicClient } from "../lib/model/anthropic-client.js";
import { runShell, warmProcessRunners } from "../lib/sandbox/exec.js";
import { createBareMessagesCall } from "./bare-messages-call.mjs";
import { createSdkMessagesCall } from "./sdk-over-node-http.mjs";

const [baseUrl] = process.argv.slice(2);
const CONCURRENCY = 8;
const ROUNDS = 9;
const BURSTS = 8;
const TICK_MS = 1000 / 100; // /proc times are in clock ticks of 10 ms

const params = {
  model: "claude-bench",
  max_tokens: 1024,
  messages: [{ role: "user", content: "probe" }],
};
const client = createAnthropicClient({ apiKey: "sk-bench-key", baseURL: baseUrl, maxAttempts: 1 });
const messagesCall = createBareMessagesCall(baseUrl);
const sdkOverUndici = createSdkMessagesCall(baseUrl, "undici");
const sdkOverNodeHttp = createSdkMessagesCall(baseUrl, "node-http");
const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: "/tmp" };

function bareCommand(index) {
  return new Promise((resolve) => {
    const child = spawn("bash", ["-c", `echo ${index}`], {
      env,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stdout.resume();
    child.stderr.resume();
    child.on("close", resolve);
  });
}

const runnerCommand = (index) =>
  runShell({ command: `echo ${index}`, cwd: "/tmp", env, timeoutMs: 60_000, outputCapBytes: 1 << 20 });

/** utime + stime (+ the waited-for children's) of a process, in ms. */
function procCpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) * TICK_MS;
}

/** This process's CPU with its children's, in ms: precise for itself, ticks for the children. */
function ownAndChildrenCpuMs() {
  const own = process.cpuUsage();
  const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1].split(" ");
  return (own.user + own.system) / 1000 + (Number(fields[13]) + Number(fields[14])) * TICK_MS;
}

/** The process runners: this process's node children. */
function runnerPids() {
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        return Number(readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ")[1]) === process.pid;
      } catch {
        return false;
      }
    });
}

async function cpuPerStep(step, cpuMs) {
  const before = cpuMs();
  for (let burst = 0; burst < BURSTS; burst++) {
    await Promise.all(Array.from({ length: CONCURRENCY }, (_, index) => step(index)));
  }
  return (cpuMs() - before) / (BURSTS * CONCURRENCY);
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

warmProcessRunners();
// Start-up and the first calls (compiling each path) are not what is measured.
await new Promise((resolve) => setTimeout(resolve, 1500));
const runners = runnerPids();
const ownCpuMs = () => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
};
const withRunnersCpuMs = () => ownCpuMs() + runners.reduce((sum, pid) => sum + procCpuMs(pid), 0);
const steps = {
  clientCallMs: [() => client.createMessage(params), ownCpuMs],
  bareCallMs: [() => messagesCall.call(params), ownCpuMs],
  sdkUndiciCallMs: [() => sdkOverUndici.call(params), ownCpuMs],
  sdkNodeHttpCallMs: [() => sdkOverNodeHttp.call(params), ownCpuMs],
  runnerCommandMs: [runnerCommand, withRunnersCpuMs],
  bareCommandMs: [bareCommand, ownAndChildrenCpuMs],
};
for (const [step] of Object.values(steps)) await cpuPerStep(step, ownCpuMs);
const samples = Object.fromEntries(Object.keys(steps).map((name) => [name, []]));
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, [step, cpuMs]] of Object.entries(steps))
    samples[name].push(await cpuPerStep(step, cpuMs));
}
process.stdout.write(
  `${JSON.stringify(Object.fromEntries(Object.entries(samples).map(([name, values]) => [name, median(values)])))}\n`,
);
messagesCall.close();
sdkOverNodeHttp.close();
process.exit(0);
