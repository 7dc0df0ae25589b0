/**
 * Replays a recorded bashkit-eval run (tests/fixtures/bashkit-eval/replay/, see its SOURCE.md)
 * through the real harness: the tasks load from the dataset embedded in that run, a loopback
 * Messages-API server answers each trial with the recorded assistant turns (matched by the task's
 * prompt, then by turn), the anthropic agent from the registry runs the recorded commands in the
 * bwrap sandbox, and every gate's verdict is set beside the verdict bashkit-eval's scorer recorded.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createAgent } from "../../src/agents/registry.js";
import { createAnthropicClient } from "../../src/model/anthropic-client.js";
import type { Report, TrialReport } from "../../src/results/types.js";
import { defaultRunOptions } from "../../src/run/options.js";
import { runSuite } from "../../src/run/suite.js";
import { bashkitHomeAt } from "../../src/scenario/bashkit-home.js";
import { loadScenarios } from "../../src/scenario/load.js";
import type { HomeLayout } from "../../src/scenario/types.js";
import {
  firstUserText,
  type ScriptedBlock,
  type ScriptedReply,
  startModelServer,
  turnOf,
} from "./model-server.js";

const REPLAY_DIR = path.resolve(import.meta.dirname, "../fixtures/bashkit-eval/replay");

interface RecordedBlock {
  type: "text" | "tool_use";
  text?: string;
  id?: string;
  name?: string;
  input?: { commands?: string };
}

interface RecordedTask {
  id: string;
  /** Assistant messages, in order. */
  turns: RecordedBlock[][];
  metrics: {
    turns: number;
    tool_calls: number;
    natural_stop: boolean;
    input_tokens: number;
    output_tokens: number;
  };
  score: { score: number; max_score: number; checks: { check: string; passed: boolean; detail: string }[] };
}

interface RecordedRun {
  model: string;
  max_turns: number;
  tasks: RecordedTask[];
}

/** One check on which the harness and bashkit-eval's recorded score differ. */
export interface Disagreement {
  task: string;
  check: string;
  bashkit: boolean;
  harness: boolean;
  /** The harness's gate message, to say why. */
  message: string;
}

export interface ReplayResult {
  recorded: RecordedRun;
  report: Report;
  /** The harness's trial per task id. */
  trials: Map<string, TrialReport>;
  disagreements: Disagreement[];
  /** Tasks on which every check agrees. */
  agreeingTasks: number;
  agreeingChecks: number;
  totalChecks: number;
}

/** bashkit's tool takes `{commands}`; the harness's takes `{command}`. Usage: the task's recorded
 * totals on its first turn, so the trial's totals can be compared with the recorded ones. */
function toReply(task: RecordedTask, turn: number): ScriptedReply {
  const recorded = task.turns[turn];
  if (!recorded)
    return { kind: "error", status: 400, message: `no recorded turn ${turn + 1} for ${task.id}` };
  const content: ScriptedBlock[] = recorded.map((block) =>
    block.type === "tool_use"
      ? {
          type: "tool_use",
          name: block.name ?? "bash",
          input: { command: block.input?.commands ?? "" },
          ...(block.id ? { id: block.id } : {}),
        }
      : { type: "text", text: block.text ?? "" },
  );
  const usage =
    turn === 0
      ? { input_tokens: task.metrics.input_tokens, output_tokens: task.metrics.output_tokens }
      : { input_tokens: 0, output_tokens: 0 };
  return { kind: "message", content, usage };
}

/** When each recording was made (its results file's `timestamp`): its bashkit's home layout. */
const RECORDED_AT: Record<string, string> = {
  "haiku-4-5": "2026-05-26T01:25:23Z",
  "opus-4-7": "2026-05-26T02:07:42Z",
};

export interface ReplayOptions {
  /** Only these tasks (default all). */
  only?: string[];
  /**
   * Where each task starts and what HOME is: `recorded`, the layout of the bashkit that made the
   * recording (by its date, as a replay of its results file gets); `current`, the current
   * bashkit's (a dataset run live); `harness`, none (the work dir /home/eval as HOME and cwd, as
   * every bashkit task ran before the layouts were kept).
   */
  home?: "recorded" | "current" | "harness";
}

/** Runs the recording `name` (e.g. "haiku-4-5") with `concurrency` trials at once. */
export async function replayRecordedRun(
  name: string,
  concurrency: number,
  replay: ReplayOptions = {},
): Promise<ReplayResult> {
  const recorded = JSON.parse(
    await readFile(path.join(REPLAY_DIR, `${name}.replay.json`), "utf8"),
  ) as RecordedRun;
  const home = replay.home ?? "recorded";
  const loaded = (await loadScenarios([path.join(REPLAY_DIR, `${name}.tasks.jsonl`)])).filter(
    (scenario) => !replay.only || replay.only.includes(scenario.id),
  );
  const scenarios =
    home === "harness"
      ? loaded.map(({ machine, ...scenario }) => {
          const { home: _home, ...rest } = machine ?? {};
          return { ...scenario, machine: rest };
        })
      : loaded;
  recorded.tasks = recorded.tasks.filter((task) => !replay.only || replay.only.includes(task.id));
  const byId = new Map(recorded.tasks.map((task) => [task.id, task]));
  const byPrompt = new Map(scenarios.map((scenario) => [scenario.task, byId.get(scenario.id)]));

  const server = await startModelServer((request) => {
    const task = byPrompt.get(firstUserText(request));
    if (!task) return { kind: "error", status: 400, message: "no recorded task has this prompt" };
    return toReply(task, turnOf(request));
  });
  const outDir = await mkdtemp(path.join(os.tmpdir(), `ltt-replay-${name}-`));
  try {
    const client = createAnthropicClient({
      apiKey: "sk-ant-replay-0000",
      baseURL: server.url,
      maxAttempts: 1,
    });
    const { report } = await runSuite(
      scenarios,
      defaultRunOptions({
        agent: "anthropic",
        model: recorded.model,
        outDir,
        concurrency,
        ...(home === "recorded"
          ? { bashkitHome: (bashkitHomeAt(RECORDED_AT[name] as string) as HomeLayout).name }
          : {}),
      }),
      { agent: createAgent("anthropic", { modelClient: client }), env: { PATH: process.env.PATH } },
    );
    return compare(recorded, report);
  } finally {
    await server.close();
    await rm(outDir, { recursive: true, force: true });
  }
}

function compare(recorded: RecordedRun, report: Report): ReplayResult {
  const trials = new Map(
    report.scenarios.flatMap((scenario) =>
      scenario.trials[0] ? [[scenario.id, scenario.trials[0]] as const] : [],
    ),
  );
  const disagreements: Disagreement[] = [];
  let agreeingTasks = 0;
  let totalChecks = 0;
  for (const task of recorded.tasks) {
    const gates = trials.get(task.id)?.gates ?? [];
    let agrees = true;
    task.score.checks.forEach((check, index) => {
      totalChecks += 1;
      const gate = gates[index];
      const harness = gate !== undefined && gate.description === check.check && gate.passed;
      if (gate?.description === check.check && harness === check.passed) return;
      agrees = false;
      disagreements.push({
        task: task.id,
        check: check.check,
        bashkit: check.passed,
        harness,
        message: gate ? gate.message : "no such gate",
      });
    });
    if (agrees) agreeingTasks += 1;
  }
  return {
    recorded,
    report,
    trials,
    disagreements,
    agreeingTasks,
    agreeingChecks: totalChecks - disagreements.length,
    totalChecks,
  };
}
