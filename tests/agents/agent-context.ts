/** A small harness stand-in for agent tests: real bash in a temp dir, events recorded in memory. */
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentContext } from "../../src/agents/types.js";
import type { ExecResult } from "../../src/sandbox/types.js";
import type { EventInput, TrialEventType } from "../../src/transcript/events.js";
import { createEventRecorder } from "../support/event-builder.js";
import { makeScenario } from "../support/scenario-factory.js";

/** Runs a command with real bash in `cwd`, as the sandbox would (minus isolation). */
function runBash(command: string, cwd: string): Promise<ExecResult> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn("bash", ["-c", command], { cwd, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    child.on("error", reject);
    child.on("close", (code, signal) => {
      resolve({
        stdout,
        stderr,
        exit_code: code ?? (signal ? 128 + 9 : 1),
        duration_ms: Math.round(performance.now() - started),
        timed_out: false,
        truncated: false,
      });
    });
  });
}

export interface TestContext {
  context: AgentContext;
  controller: AbortController;
  events: EventInput[];
  bashCalls: { command: string; turn: number; result: ExecResult }[];
  eventsOf<T extends TrialEventType>(type: T): Extract<EventInput, { type: T }>[];
  workDir: string;
  dispose(): Promise<void>;
}

export async function makeContext(
  overrides: Partial<Omit<AgentContext, "bash" | "events" | "signal">> & {
    bash?: (command: string, turn: number, workDir: string) => Promise<ExecResult>;
  } = {},
): Promise<TestContext> {
  const workDir = await mkdtemp(join(tmpdir(), "agents-test-"));
  const controller = new AbortController();
  const recorder = createEventRecorder();
  const { events } = recorder;
  const bashCalls: TestContext["bashCalls"] = [];
  const { bash: bashOverride, ...rest } = overrides;
  const bash = bashOverride ?? ((command: string, _turn: number, cwd: string) => runBash(command, cwd));
  const context: AgentContext = {
    scenario: makeScenario(),
    scenarioKey: "test-scenario",
    trial: 1,
    task: "do the thing",
    systemPrompt: "You are in a work dir.",
    model: "claude-test",
    maxTurns: 10,
    commandTimeoutMs: 30_000,
    workDir,
    ...rest,
    signal: controller.signal,
    events: recorder,
    bash: async (command, turn) => {
      const result = await bash(command, turn, workDir);
      bashCalls.push({ command, turn, result });
      return { ...result, call_id: `call_${bashCalls.length}` };
    },
  };
  return {
    context,
    controller,
    events,
    bashCalls,
    eventsOf: <T extends TrialEventType>(type: T) =>
      events.filter((event): event is Extract<EventInput, { type: T }> => event.type === type),
    workDir,
    dispose: () => rm(workDir, { recursive: true, force: true }),
  };
}
