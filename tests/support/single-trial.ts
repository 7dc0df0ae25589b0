import { readFile } from "node:fs/promises";
import path from "node:path";
import type { Agent } from "../../src/agents/types.js";
import type { RunOptions } from "../../src/run/options.js";
import type { PlannedTrial } from "../../src/run/plan.js";
import { runTrial, type TrialOutput } from "../../src/run/trial.js";
import { createSecretRedactor } from "../../src/sandbox/secrets.js";
import type { Scenario } from "../../src/scenario/types.js";
import type { TrialEvent } from "../../src/transcript/events.js";

/**
 * One trial through the real harness (runTrial: sandbox, shim, events, gates), with a canary API
 * key in the parent environment, as the suite would run it.
 */
export async function runSingleTrial(
  scenario: Scenario,
  options: RunOptions,
  agent: Agent,
  extras: { canaryKey: string; signal?: AbortSignal; env?: Record<string, string> },
): Promise<{ output: TrialOutput; events: TrialEvent[]; eventsText: string }> {
  const planned: PlannedTrial = {
    key: `${scenario.id}#1`,
    scenarioKey: scenario.id,
    scenario,
    variant: null,
    model: scenario.agent.model ?? options.model,
    agent: agent.name,
    inMatrix: false,
    inAgentMatrix: false,
    trial: 1,
  };
  const output = await runTrial(planned, options, {
    agent,
    judgeClient: null,
    parentEnv: {
      PATH: process.env.PATH,
      LANG: "C.UTF-8",
      ANTHROPIC_API_KEY: extras.canaryKey,
      ...extras.env,
    },
    redact: createSecretRedactor([extras.canaryKey]),
    now: () => Date.now(),
    signal: extras.signal ?? new AbortController().signal,
  });
  await output.cleanedUp;
  const eventsText = await readFile(path.join(options.outDir, output.folder, "events.jsonl"), "utf8");
  const events = eventsText
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as TrialEvent);
  return { output, events, eventsText };
}

export function eventsOf<T extends TrialEvent["type"]>(events: readonly TrialEvent[], type: T) {
  return events.filter((event): event is Extract<TrialEvent, { type: T }> => event.type === type);
}
