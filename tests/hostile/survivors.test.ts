/**
 * Hostile agent: its commands start processes meant to outlive the trial (a `setsid` session, a
 * `nohup` daemon, a double fork, one that clears its own environment and so loses the trial's
 * marker). None may survive the trial, in either sandbox mode.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createAgent } from "../../src/agents/registry.js";
import { defaultRunOptions } from "../../src/run/options.js";
import { runSuite } from "../../src/run/suite.js";
import { findCgroupParent } from "../../src/sandbox/trial-cgroup.js";
import type { SandboxMode } from "../../src/scenario/types.js";
import type { TrialEvent } from "../../src/transcript/events.js";
import { findBwrapProblem, findLiveProcesses } from "../support/processes.js";
import { makeScenario } from "../support/scenario-factory.js";
import { eventsOf } from "../support/single-trial.js";

const bwrapProblem = findBwrapProblem();
const cgroupAvailable = (await findCgroupParent()) !== null;
const folders: string[] = [];

afterEach(async () => {
  await Promise.all(folders.splice(0).map((folder) => rm(folder, { recursive: true, force: true })));
});

/** Sleep durations no other process on the machine uses: the processes are found by them. */
function uniqueSleeps(): Record<string, string> {
  const tag = `${process.pid}${Math.floor(Math.random() * 1e6)}`;
  return {
    setsid: `300.${tag}1`,
    nohup: `300.${tag}2`,
    doubleFork: `300.${tag}3`,
    clearedEnvironment: `300.${tag}4`,
  };
}

function escapeCommands(sleeps: Record<string, string>): string {
  return [
    `setsid sh -c 'sleep ${sleeps.setsid}' >/dev/null 2>&1 &`,
    `nohup sleep ${sleeps.nohup} >/dev/null 2>&1 &`,
    `( ( sleep ${sleeps.doubleFork} >/dev/null 2>&1 & ) & )`,
    `env -i setsid sleep ${sleeps.clearedEnvironment} >/dev/null 2>&1 &`,
  ].join("\n");
}

async function runEscapingTrial(mode: SandboxMode, sleeps: Record<string, string>) {
  const outDir = await mkdtemp(path.join(os.tmpdir(), "llm-tool-test-survivors-"));
  folders.push(outDir);
  // One call starts them and counts them from inside (so the test knows they ran); a second call
  // counts those still alive once the first call has ended.
  const count = `pgrep -f '^sleep (${Object.values(sleeps).join("|").replace(/\./g, "\\.")})$' | wc -l`;
  const scenario = makeScenario({
    id: `survivors-${mode}`,
    solution: [`${escapeCommands(sleeps)}\nsleep 0.3; ${count}`, count],
    evaluation: { gates: [] },
  });
  const { report } = await runSuite(
    [scenario],
    defaultRunOptions({ agent: "oracle", outDir, sandbox: mode, trials: 1 }),
    { agent: createAgent("oracle", {}), env: { PATH: process.env.PATH, LANG: "C.UTF-8" } },
  );
  const trial = report.scenarios[0]!.trials[0]!;
  const events = (await readFile(path.join(outDir, trial.events_path!), "utf8"))
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as TrialEvent);
  const counts = eventsOf(events, "tool_result").map((event) => Number(event.stdout.trim()));
  return { trial, counts };
}

describe("processes started by a trial's commands", () => {
  it("local mode: none outlives the trial, even one that cleared its environment", async () => {
    const sleeps = uniqueSleeps();
    const { trial, counts } = await runEscapingTrial("local", sleeps);
    expect(trial.sandbox).toBe("local");
    // All four ran, and outlived the call that started them: only the trial's end can stop them.
    expect(counts).toEqual([4, 4]);
    const survivors = Object.entries(sleeps).filter(([, sleep]) => findLiveProcesses(sleep).length > 0);
    // Without a writable cgroup the marker sweep is all there is, and `env -i` escapes it (documented).
    expect(survivors.map(([name]) => name)).toEqual(cgroupAvailable ? [] : ["clearedEnvironment"]);
    for (const [, sleep] of survivors)
      for (const pid of findLiveProcesses(sleep)) process.kill(pid, "SIGKILL");
  });

  it.skipIf(bwrapProblem !== null)("bwrap mode: none outlives the trial", async () => {
    const sleeps = uniqueSleeps();
    const { trial, counts } = await runEscapingTrial("bwrap", sleeps);
    expect(trial.sandbox).toBe("bwrap");
    expect(counts[0]).toBe(4);
    expect(Object.values(sleeps).flatMap((sleep) => findLiveProcesses(sleep))).toEqual([]);
  });
});
