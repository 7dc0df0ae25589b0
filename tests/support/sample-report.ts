/**
 * Hand-built reports for the HTML and JUnit renderers: trials written out by hand, summaries from
 * the real aggregator. The agent output carries markup and XML breakers on purpose.
 */
import { summarizeScenario } from "../../src/results/aggregate.js";
import type {
  ExecutionMetrics,
  Report,
  RunInfo,
  ScenarioReport,
  TrialReport,
} from "../../src/results/types.js";
import type { EventInput, TrialEvent } from "../../src/transcript/events.js";
import { createEventLog } from "./event-builder.js";
import {
  makeExecution,
  makeInteraction,
  makeReport,
  makeScenarioReport,
  makeTrial,
} from "./report-factory.js";

export const SCRIPT_PAYLOAD = "<script>alert(1)</script>";
export const CDATA_END = "]]>";
/** Markup in a field that the page renders server-side (a gate message). */
export const IMG_PAYLOAD = `<img src=x onerror="alert(2)">`;
/** A color code and a NUL, as tools print them: XML 1.0 cannot carry either. */
export const CONTROL_PAYLOAD = "\u001b[31mred\u001b[0m and a NUL \u0000 here";

/** The failing trial the tests open: create_and_link, trial 2. */
export const FAILING_EVENTS_PATH = "trials/create_and_link/2/events.jsonl";
export const PASSING_EVENTS_PATH = "trials/create_and_link/1/events.jsonl";

/** The sample run: a pull request's run of haiku, judged by sonnet. */
export const SAMPLE_RUN: RunInfo = {
  id: "run-2024-05-01-abc",
  started_at: "2024-05-01T10:00:00.000Z",
  ended_at: "2024-05-01T10:03:20.000Z",
  harness_version: "0.1.0",
  agent: "anthropic",
  model: "claude-haiku-4-5",
  judge_model: "claude-sonnet-4-5",
  git_sha: "0123456789abcdef0123456789abcdef01234567",
  git_ref: "refs/pull/7/merge",
  settings_hash: "sha256:feedface",
  price_table: {},
  incomplete: false,
  shard: null,
};

/** What a sample trial spent, unless it says otherwise. */
const SAMPLE_EXECUTION: Partial<ExecutionMetrics> = {
  turns: 3,
  tool_calls: 2,
  tool_calls_ok: 2,
  tool_calls_error: 0,
  tool_call_success_rate: 1,
  natural_stop: true,
  input_tokens: 1200,
  output_tokens: 300,
  duration_ms: 4200,
  cost_usd: 0.0031,
};

/** Where the sample reports' scenarios live, as the loader would record it. */
function sampleSource(id: string): ScenarioReport["source"] {
  return { file: `/repo/scenarios/${id}.yaml`, line: 1, format: "yaml" };
}

/** Two scenarios: one with a pass, a fail (gates and judge) and an error; one variant with passes and a skip. */
export function makeSampleReport(): Report {
  const createAndLink = makeScenarioReport({
    id: "create_and_link",
    source: sampleSource("create_and_link"),
    variant: null,
    category: "capture",
    description: "Capture two notes and <b>link</b> them",
    tags: ["smoke"],
    trials: [
      makeTrial({
        trial: 1,
        outcome: "pass",
        interaction: makeInteraction({
          total_commands: 2,
          unique_commands: 2,
          error_count: 0,
          error_rate: 0,
          retry_count: 0,
          retry_rate: 0,
          first_try_success_rate: 1,
          iteration_ratio: 1,
        }),
        execution: makeExecution(SAMPLE_EXECUTION),
        gates: [{ gate_type: "command_succeeds", passed: true, message: "exit 0", weight: 1 }],
        gates_passed: 1,
        gates_total: 1,
        score: 1,
        max_score: 1,
        events_path: PASSING_EVENTS_PATH,
        transcript_path: "trials/create_and_link/1/transcript.md",
      }),
      makeTrial({
        trial: 2,
        outcome: "fail",
        reason: "2 of 3 gates failed; judge score 0.4 < 0.7",
        interaction: makeInteraction({
          total_commands: 2,
          unique_commands: 2,
          error_count: 1,
          error_rate: 0.5,
          retry_count: 0,
          retry_rate: 0,
          first_try_success_rate: 0.5,
          iteration_ratio: 1,
        }),
        execution: makeExecution({
          ...SAMPLE_EXECUTION,
          tool_calls_ok: 1,
          tool_calls_error: 1,
          tool_call_success_rate: 0.5,
          duration_ms: 6500,
        }),
        gates: [
          { gate_type: "command_succeeds", passed: true, message: "exit 0", weight: 1 },
          {
            gate_type: "command_json_path",
            passed: false,
            message: `$.links: expected len >= 1, got 0 ${IMG_PAYLOAD}`,
            weight: 2,
            description: "the two notes are linked",
          },
          {
            gate_type: "file_contains",
            passed: false,
            message: `notes/cap.md does not contain "CAP" ${CONTROL_PAYLOAD} ${CDATA_END}`,
            weight: 1,
          },
        ],
        gates_passed: 1,
        gates_total: 3,
        score: 1,
        max_score: 4,
        judge_score: 0.4,
        judge_response: {
          scores: { correctness: 0.3, efficiency: 0.6 },
          weighted_score: 0.4,
          confidence: 0.8,
          issues: ["Never linked the notes", `Printed ${SCRIPT_PAYLOAD} to the user`],
          highlights: ["Created both notes"],
        },
        judge_usage: { model: "claude-sonnet-4-5", input_tokens: 900, output_tokens: 120, cost_usd: 0.004 },
        events_path: FAILING_EVENTS_PATH,
        transcript_path: "trials/create_and_link/2/transcript.md",
      }),
      makeTrial({
        trial: 3,
        outcome: "error",
        reason: "setup failed: `my-tool init` exited 127",
        end_reason: "infra_error",
        invocation_source: "none",
        execution: makeExecution({
          ...SAMPLE_EXECUTION,
          turns: 0,
          tool_calls: 0,
          tool_calls_ok: 0,
          duration_ms: 150,
          cost_usd: null,
        }),
        events_path: "trials/create_and_link/3/events.jsonl",
        transcript_path: "trials/create_and_link/3/transcript.md",
      }),
    ],
  });
  const search = makeScenarioReport({
    id: "search_notes",
    source: sampleSource("search_notes"),
    variant: "terse",
    category: "search",
    description: "Find notes by tag",
    trials: [1, 2]
      .map((n) =>
        makeTrial({
          trial: n,
          outcome: "pass",
          interaction: makeInteraction({
            total_commands: 1,
            unique_commands: 1,
            error_count: 0,
            error_rate: 0,
            retry_count: 0,
            retry_rate: 0,
            help_invocations: n === 2 ? 1 : 0,
            first_try_success_rate: 1,
            iteration_ratio: 1,
          }),
          execution: makeExecution({
            ...SAMPLE_EXECUTION,
            turns: 2,
            tool_calls: 1,
            tool_calls_ok: 1,
            duration_ms: 2000 + n * 100,
          }),
          gates: [{ gate_type: "command_output_contains", passed: true, message: "found", weight: 1 }],
          gates_passed: 1,
          gates_total: 1,
          score: 1,
          max_score: 1,
          events_path: `trials/search_notes@terse/${n}/events.jsonl`,
          transcript_path: `trials/search_notes@terse/${n}/transcript.md`,
        }),
      )
      .concat(
        makeTrial({
          trial: 3,
          outcome: "skipped",
          reason: "cancelled: the run's budget ran out",
          end_reason: "cancelled",
        }),
      ),
  });
  return makeReport([createAndLink, search], SAMPLE_RUN);
}

/** Stamps events as the writer would: one a second from the sample run's start. */
function stamp(inputs: EventInput[]): TrialEvent[] {
  const log = createEventLog({ startedAtMs: Date.parse(SAMPLE_RUN.started_at), firstMs: 0, stepMs: 1000 });
  for (const input of inputs) log.push(input);
  return log.events;
}

/** The failing trial: a command whose stdout carries a script tag and `]]>`, then a failing command. */
export function makeFailingTrialEvents(): TrialEvent[] {
  return stamp([
    {
      type: "trial_start",
      schema_version: 1,
      scenario_id: "create_and_link",
      variant: null,
      trial: 2,
      agent: "anthropic",
      model: "claude-haiku-4-5",
      work_dir: "/tmp/work",
      sandbox: "local",
    },
    { type: "model_request", turn: 1, model: "claude-haiku-4-5", message_count: 1 },
    {
      type: "model_response",
      turn: 1,
      stop_reason: "tool_use",
      usage: { input_tokens: 400, output_tokens: 80, cache_read_tokens: 0, cache_write_tokens: 0 },
      text: "I will create the first note.",
      tool_uses: [{ id: "c1", name: "bash", input: { command: 'my-tool create "CAP theorem"' } }],
      duration_ms: 900,
    },
    { type: "tool_call", call_id: "c1", turn: 1, command: 'my-tool create "CAP theorem"' },
    {
      type: "tool_result",
      call_id: "c1",
      stdout: `created note cap\n${SCRIPT_PAYLOAD}\n${CDATA_END}\n`,
      stderr: "",
      exit_code: 0,
      duration_ms: 35,
      truncated: false,
      timed_out: false,
    },
    {
      type: "model_response",
      turn: 2,
      stop_reason: "tool_use",
      usage: { input_tokens: 500, output_tokens: 90, cache_read_tokens: 0, cache_write_tokens: 0 },
      text: "Now I link them.",
      tool_uses: [{ id: "c2", name: "bash", input: { command: "my-tool link cap paxos" } }],
      duration_ms: 800,
    },
    { type: "tool_call", call_id: "c2", turn: 2, command: "my-tool link cap paxos" },
    {
      type: "tool_result",
      call_id: "c2",
      stdout: "",
      stderr: `error: no note named "paxos"\n${CONTROL_PAYLOAD}\n`,
      exit_code: 2,
      duration_ms: 20,
      truncated: false,
      timed_out: false,
    },
    {
      type: "model_response",
      turn: 3,
      stop_reason: "end_turn",
      usage: { input_tokens: 300, output_tokens: 130, cache_read_tokens: 0, cache_write_tokens: 0 },
      text: "Done: both notes exist.",
      tool_uses: [],
      duration_ms: 700,
    },
    {
      type: "target_invocation",
      argv: ["my-tool", "create", "CAP theorem"],
      exit_code: 0,
      duration_ms: 30,
      cwd: "/tmp/work",
      started_at_ms: 1714557601000,
    },
    {
      type: "target_invocation",
      argv: ["my-tool", "link", "cap", "paxos"],
      exit_code: 2,
      duration_ms: 15,
      cwd: "/tmp/work",
      started_at_ms: 1714557603000,
    },
    { type: "trial_end", reason: "natural_stop", error: null, turns: 3, duration_ms: 6500 },
  ]);
}

export function makePassingTrialEvents(): TrialEvent[] {
  return stamp([
    {
      type: "setup",
      command: "my-tool init",
      exit_code: 0,
      stdout: "initialised\n",
      stderr: "",
      duration_ms: 12,
    },
    {
      type: "model_response",
      turn: 1,
      stop_reason: "tool_use",
      usage: { input_tokens: 400, output_tokens: 80, cache_read_tokens: 0, cache_write_tokens: 0 },
      text: "",
      tool_uses: [{ id: "p1", name: "bash", input: { command: "my-tool create a && my-tool create b" } }],
      duration_ms: 600,
    },
    { type: "tool_call", call_id: "p1", turn: 1, command: "my-tool create a && my-tool create b" },
    {
      type: "tool_result",
      call_id: "p1",
      stdout: "created a\ncreated b\n",
      stderr: "",
      exit_code: 0,
      duration_ms: 40,
      truncated: false,
      timed_out: false,
    },
    { type: "trial_end", reason: "natural_stop", error: null, turns: 1, duration_ms: 4200 },
  ]);
}

/** Events keyed by events_path, as loadTrialEvents returns them. */
export function makeSampleEvents(): Record<string, TrialEvent[]> {
  return { [FAILING_EVENTS_PATH]: makeFailingTrialEvents(), [PASSING_EVENTS_PATH]: makePassingTrialEvents() };
}

/** The sample report as the baseline saw it: every trial of create_and_link passed. */
export function makeBaselineReport(): Report {
  const head = makeSampleReport();
  const scenarios = head.scenarios.map((scenario) => {
    const trials = scenario.trials.map((t) =>
      t.outcome === "fail" || t.outcome === "error"
        ? {
            ...t,
            outcome: "pass" as const,
            reason: null,
            end_reason: "natural_stop" as const,
            gates_passed: t.gates_total,
          }
        : t,
    );
    return { ...scenario, trials, summary: summarizeScenario(trials) };
  });
  return makeReport(scenarios, {
    ...SAMPLE_RUN,
    id: "run-base",
    git_ref: "refs/heads/main",
    git_sha: "fedcba9876543210fedcba9876543210fedcba98",
  });
}

/** A suite of the given size for the size checks: every fifth scenario flaky. */
export function makeLargeReport(scenarioCount: number, trialsPer: number): Report {
  const scenarios: ScenarioReport[] = [];
  for (let s = 0; s < scenarioCount; s++) {
    const trials: TrialReport[] = [];
    for (let t = 1; t <= trialsPer; t++) {
      const fail = s % 5 === 0 && t % 2 === 0;
      trials.push(
        makeTrial({
          trial: t,
          outcome: fail ? "fail" : "pass",
          reason: fail ? "1 of 2 gates failed" : null,
          interaction: makeInteraction({
            total_commands: 3,
            unique_commands: 3,
            error_count: fail ? 1 : 0,
            error_rate: fail ? 1 / 3 : 0,
          }),
          execution: makeExecution({
            ...SAMPLE_EXECUTION,
            duration_ms: 1000 + t,
          }),
          gates: [
            { gate_type: "command_succeeds", passed: true, message: "exit 0", weight: 1 },
            { gate_type: "file_exists", passed: !fail, message: fail ? "missing out.txt" : "ok", weight: 1 },
          ],
          gates_passed: fail ? 1 : 2,
          gates_total: 2,
          score: fail ? 1 : 2,
          max_score: 2,
          events_path: `trials/s${s}/${t}/events.jsonl`,
          transcript_path: `trials/s${s}/${t}/transcript.md`,
        }),
      );
    }
    const id = `scenario_${String(s).padStart(4, "0")}`;
    scenarios.push(
      makeScenarioReport({
        id,
        source: sampleSource(id),
        variant: null,
        category: `cat${s % 7}`,
        trials,
      }),
    );
  }
  return makeReport(scenarios, SAMPLE_RUN);
}
