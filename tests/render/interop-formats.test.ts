/**
 * `report --format atif` and `--format otel-json`: each trial as an ATIF-v1.4 trajectory (Harbor's
 * RFC 0001) and as OpenTelemetry GenAI spans in OTLP/JSON, one span per command with its exit
 * status. The shapes are checked against the specs' required fields; a real run (the oracle, real
 * bash, a command that fails) is exported through the CLI.
 */
import { chmod, mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { AGENT_NAMES, agentApiKeyVariable } from "../../src/agents/registry.js";
import { ATIF_SCHEMA_VERSION, type AtifTrajectory, buildAtifTrajectory } from "../../src/render/atif.js";
import { exportedModel } from "../../src/render/genai-model.js";
import { buildTrialSpans, type OtlpSpan } from "../../src/render/otel-json.js";
import type { EventOf, TrialEvent } from "../../src/transcript/events.js";
import { runMain } from "../cli/run-main.js";
import { atifErrors } from "../support/atif-schema.js";
import { semconvReport, semconvViolations, WELL_KNOWN_PROVIDERS } from "../support/genai-semconv.js";
import { makeReport, makeScenarioReport, makeTrial } from "../support/report-factory.js";
import { makeTempDir } from "../support/temp-dirs.js";

const T0 = "2026-01-01T00:00:00.000Z";
const at = (ms: number) => new Date(Date.parse(T0) + ms).toISOString();

/** A built-in agent's trial: two model turns, the first running two commands (one fails). */
const EVENTS: TrialEvent[] = [
  {
    type: "trial_start",
    ts: at(0),
    t_ms: 0,
    schema_version: 1,
    scenario_id: "s",
    variant: null,
    trial: 1,
    agent: "anthropic",
    model: "claude-haiku-4-5",
    work_dir: null,
    sandbox: "bwrap",
  },
  { type: "prompt", ts: at(5), t_ms: 5, task: "list the files", system_prompt: "You are in /home/eval." },
  {
    type: "model_response",
    ts: at(100),
    t_ms: 100,
    turn: 1,
    stop_reason: "tool_use",
    usage: { input_tokens: 100, output_tokens: 20, cache_read_tokens: 50, cache_write_tokens: 10 },
    text: "Listing.",
    tool_uses: [],
    duration_ms: 90,
  },
  { type: "tool_call", ts: at(110), t_ms: 110, call_id: "c1", turn: 1, command: "ls" },
  {
    type: "tool_result",
    ts: at(130),
    t_ms: 130,
    call_id: "c1",
    stdout: "a\n",
    stderr: "",
    exit_code: 0,
    duration_ms: 20,
    truncated: false,
    timed_out: false,
  },
  { type: "tool_call", ts: at(140), t_ms: 140, call_id: "c2", turn: 1, command: "cat missing" },
  {
    type: "tool_result",
    ts: at(150),
    t_ms: 150,
    call_id: "c2",
    stdout: "",
    stderr: "cat: missing: No such file",
    exit_code: 1,
    duration_ms: 10,
    truncated: false,
    timed_out: false,
  },
  {
    type: "model_response",
    ts: at(300),
    t_ms: 300,
    turn: 2,
    stop_reason: "end_turn",
    usage: { input_tokens: 200, output_tokens: 5, cache_read_tokens: 0, cache_write_tokens: 0 },
    text: "Done.",
    tool_uses: [],
    duration_ms: 100,
  },
  {
    type: "trial_end",
    ts: at(310),
    t_ms: 310,
    reason: "natural_stop",
    error: null,
    turns: 2,
    duration_ms: 310,
  },
];

/** ATIF-v1.4's required fields and their types (RFC 0001 §II), and its cross-references. */
function expectAtifShape(trajectory: AtifTrajectory): void {
  expect(atifErrors(trajectory)).toEqual([]);
  expect(trajectory.schema_version).toBe("ATIF-v1.4");
  expect(typeof trajectory.session_id).toBe("string");
  expect(typeof trajectory.agent.name).toBe("string");
  expect(typeof trajectory.agent.version).toBe("string");
  trajectory.steps.forEach((step, index) => {
    expect(step.step_id).toBe(index + 1);
    expect(["system", "user", "agent"]).toContain(step.source);
    expect(typeof step.message).toBe("string");
    if (step.source !== "agent") {
      expect(step.tool_calls, "only agent steps call tools").toBeUndefined();
      expect(step.metrics).toBeUndefined();
    }
    const ids = new Set((step.tool_calls ?? []).map((call) => call.tool_call_id));
    for (const call of step.tool_calls ?? []) {
      expect(typeof call.function_name).toBe("string");
      expect(call.arguments).toBeTypeOf("object");
      expect(Array.isArray(call.arguments)).toBe(false);
    }
    for (const result of step.observation?.results ?? []) expect(ids.has(result.source_call_id)).toBe(true);
    for (const n of Object.values(step.metrics ?? {}))
      if (typeof n === "number") expect(n).toBeGreaterThanOrEqual(0);
  });
  expect(trajectory.final_metrics.total_steps).toBe(trajectory.steps.length);
}

/**
 * OTLP/JSON span shape: hex ids, nanosecond strings, a parent that exists, GenAI operation names;
 * and the GenAI semantic conventions (required attributes, types, span kinds, status).
 */
function expectSpanShape(spans: OtlpSpan[]): void {
  expect(semconvReport(spans)).toEqual({});
  const ids = new Set(spans.map((span) => span.spanId));
  for (const span of spans) {
    expect(span.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(span.spanId).toMatch(/^[0-9a-f]{16}$/);
    if (span.parentSpanId) expect(ids.has(span.parentSpanId)).toBe(true);
    expect(span.startTimeUnixNano).toMatch(/^\d+$/);
    expect(BigInt(span.endTimeUnixNano) >= BigInt(span.startTimeUnixNano)).toBe(true);
    const operation = span.attributes.find((a) => a.key === "gen_ai.operation.name")?.value;
    expect(["invoke_agent", "chat", "execute_tool"]).toContain(
      (operation as { stringValue: string }).stringValue,
    );
  }
}

const attribute = (span: OtlpSpan | undefined, key: string) =>
  span?.attributes.find((a) => a.key === key)?.value;

describe("ATIF trajectories", () => {
  const scenario = makeScenarioReport({ id: "s", trials: [] });
  const trial = makeTrial({ trial: 1, outcome: "pass", score: 1, max_score: 1 });
  const report = makeReport([{ ...scenario, trials: [trial] }]);

  it("map the prompt, each model turn, its commands and their results", () => {
    const trajectory = buildAtifTrajectory(report, scenario, trial, EVENTS);
    expectAtifShape(trajectory);
    expect(trajectory.schema_version).toBe(ATIF_SCHEMA_VERSION);
    expect(trajectory.steps.map((s) => s.source)).toEqual(["system", "user", "agent", "agent"]);
    const first = trajectory.steps[2];
    expect(first?.tool_calls).toEqual([
      { tool_call_id: "c1", function_name: "bash", arguments: { command: "ls" } },
      { tool_call_id: "c2", function_name: "bash", arguments: { command: "cat missing" } },
    ]);
    expect(first?.observation?.results[1]).toEqual({
      source_call_id: "c2",
      content: "[stderr]\ncat: missing: No such file",
    });
    const toolResults = (first?.extra?.tool_results ?? []) as { exit_code: number }[];
    expect(toolResults.map((r) => r.exit_code)).toEqual([0, 1]);
    // ATIF's prompt_tokens include the cached ones.
    expect(first?.metrics).toMatchObject({ prompt_tokens: 160, completion_tokens: 20, cached_tokens: 50 });
    expect(trajectory.final_metrics).toMatchObject({
      total_prompt_tokens: 360,
      total_completion_tokens: 25,
      total_cached_tokens: 50,
    });
    expect(trajectory.agent.model_name).toBe("claude-haiku-4-5");
  });
});

describe("ATIF of a replayed trial whose recording kept times, tokens and a system prompt", () => {
  const RECORDED_AT = "2025-12-01T09:00:00.000Z";
  const usage = { input_tokens: 10, output_tokens: 4, cache_read_tokens: 1000, cache_write_tokens: 200 };
  const replayed: TrialEvent[] = [
    { ...(EVENTS[0] as EventOf<"trial_start">), agent: "replay", model: "openai:gpt-5.2" },
    // The replay's own prompt: the harness's system prompt, which the recorded model never saw.
    EVENTS[1] as TrialEvent,
    {
      type: "recorded_transcript",
      ts: at(6),
      t_ms: 6,
      system_prompt: "You are the recorded agent.",
      turns: [
        { turn: 1, text: "Listing.", ts: RECORDED_AT, usage },
        { turn: 2, text: "There is one file, a.", ts: "2025-12-01T09:00:05.000Z", usage },
      ],
    },
    { type: "tool_call", ts: at(110), t_ms: 110, call_id: "r1", turn: 1, command: "ls" },
    { ...(EVENTS[4] as EventOf<"tool_result">), call_id: "r1", stdout: "a\nb\n" },
    {
      type: "replay_check",
      ts: at(131),
      t_ms: 131,
      call_id: "r1",
      index: 1,
      recorded_calls: 1,
      recorded_exit_code: 0,
      exit_code: 0,
      differences: ["stdout"],
    },
  ];
  const scenario = makeScenarioReport({ id: "s", agent: "replay", trials: [] });
  const trial = makeTrial({ trial: 1, outcome: "pass" });

  it("is the recorded model's: its system prompt, its turns with their times and tokens, the replay's outputs marked", () => {
    const trajectory = buildAtifTrajectory(makeReport([]), scenario, trial, replayed);
    expectAtifShape(trajectory);
    expect(trajectory.steps.map((s) => [s.source, s.message])).toEqual([
      ["system", "You are the recorded agent."],
      ["user", "list the files"],
      ["agent", "Listing."],
      ["agent", "There is one file, a."],
    ]);
    const [, , first, last] = trajectory.steps;
    expect(first?.timestamp).toBe(RECORDED_AT);
    expect(first?.model_name).toBe("gpt-5.2");
    expect(trajectory.agent.model_name).toBe("gpt-5.2");
    expect(first?.metrics).toEqual({
      prompt_tokens: 1210,
      completion_tokens: 4,
      cached_tokens: 1000,
      extra: { cache_creation_input_tokens: 200 },
    });
    expect(first?.tool_calls?.map((c) => c.arguments)).toEqual([{ command: "ls" }]);
    expect(first?.extra?.tool_results).toEqual([
      expect.objectContaining({ call_id: "r1", recorded_output: "differs", differences: ["stdout"] }),
    ]);
    expect(last?.tool_calls).toBeUndefined();
    expect(trajectory.notes).toContain("1 of 1 observation(s) differ from what the recorded model saw");
    expect(trajectory.notes).not.toContain("no system prompt");
  });
});

describe("OpenTelemetry GenAI spans", () => {
  const scenario = makeScenarioReport({ id: "s", trials: [] });
  const trial = makeTrial({ trial: 1, outcome: "pass", score: 1, max_score: 1 });
  const report = makeReport([{ ...scenario, trials: [trial] }]);

  it("give the trial a root span, one chat span a turn and one execute_tool span a command with its exit status", () => {
    const spans = buildTrialSpans(report, scenario, trial, EVENTS);
    expectSpanShape(spans);
    expect(spans.map((s) => s.name)).toEqual([
      "invoke_agent anthropic",
      "chat claude-haiku-4-5",
      "execute_tool bash",
      "execute_tool bash",
      "chat claude-haiku-4-5",
    ]);
    const [ok, failed] = spans.filter((s) => s.name === "execute_tool bash");
    expect(attribute(ok, "process.exit.code")).toEqual({ intValue: "0" });
    expect(ok?.status).toEqual({ code: 0 });
    expect(attribute(ok, "error.type")).toBeUndefined();
    expect(attribute(failed, "process.exit.code")).toEqual({ intValue: "1" });
    expect(attribute(failed, "error.type")).toEqual({ stringValue: "nonzero_exit" });
    expect(failed?.status.code).toBe(2);
    // Input tokens count the cached ones: 100 uncached + 50 read + 10 written.
    expect(attribute(spans[1], "gen_ai.usage.input_tokens")).toEqual({ intValue: "160" });
    expect(attribute(spans[1], "gen_ai.usage.cache_read.input_tokens")).toEqual({ intValue: "50" });
    expect(attribute(spans[1], "gen_ai.provider.name")).toEqual({ stringValue: "anthropic" });
    expect(attribute(spans[0], "gen_ai.provider.name")).toEqual({ stringValue: "anthropic" });
    // A trial that passed leaves its status UNSET.
    expect(spans[0]?.status).toEqual({ code: 0 });
    // The same report gives the same ids.
    expect(buildTrialSpans(report, scenario, trial, EVENTS)[0]?.traceId).toBe(spans[0]?.traceId);
  });
});

describe("OpenTelemetry spans against the GenAI semantic conventions", () => {
  const withModel = (agent: string, model: string) => {
    const scenario = makeScenarioReport({ id: "s", agent, model, trials: [] });
    const events = EVENTS.map((e) => (e.type === "trial_start" ? { ...e, agent, model } : e));
    return { scenario, events };
  };
  const passed = makeTrial({ trial: 1, outcome: "pass", score: 1, max_score: 1 });

  it("find what a span breaks: the check can fail", () => {
    const [root] = buildTrialSpans(
      makeReport([]),
      makeScenarioReport({ id: "s", trials: [] }),
      passed,
      EVENTS,
    );
    const broken: OtlpSpan = {
      ...(root as OtlpSpan),
      attributes: (root as OtlpSpan).attributes
        .filter((a) => a.key !== "gen_ai.provider.name")
        .map((a) =>
          a.key === "gen_ai.usage.input_tokens" ? { key: a.key, value: { stringValue: "160" } } : a,
        ),
      status: { code: 1 as 0 },
    };
    expect(semconvViolations(broken)).toEqual([
      'gen_ai.usage.input_tokens must be int, is {"stringValue":"160"}',
      "invoke_agent: gen_ai.provider.name is required",
      "status OK set by instrumentation (leave it UNSET)",
    ]);
  });

  it("name the provider and the provider's own model id, never the harness's prefix", () => {
    const cases: Array<[string, string, string, string]> = [
      ["codex", "openai:gpt-5.2", "openai", "gpt-5.2"],
      ["anthropic", "openai:gpt-5-mini", "openai", "gpt-5-mini"],
      ["claude-code", "anthropic:claude-sonnet-4-5", "anthropic", "claude-sonnet-4-5"],
      ["opencode", "claude-haiku-4-5", "anthropic", "claude-haiku-4-5"],
      ["gemini-cli", "gemini-2.5-flash", "gcp.gemini", "gemini-2.5-flash"],
    ];
    for (const [agent, model, provider, id] of cases) {
      const { scenario, events } = withModel(agent, model);
      const spans = buildTrialSpans(makeReport([]), scenario, passed, events);
      expectSpanShape(spans);
      for (const span of spans.filter((s) => !s.name.startsWith("execute_tool"))) {
        expect(attribute(span, "gen_ai.provider.name"), agent).toEqual({ stringValue: provider });
        expect(attribute(span, "gen_ai.request.model"), agent).toEqual({ stringValue: id });
      }
      expect(spans[1]?.name).toBe(`chat ${id}`);
    }
  });

  it("know the provider of every agent whose model ids are its own (the registry's own-key agents)", () => {
    const ownKey = AGENT_NAMES.filter((name) => agentApiKeyVariable(name) !== undefined);
    expect(ownKey.length).toBeGreaterThan(0);
    for (const name of ownKey) {
      expect(WELL_KNOWN_PROVIDERS, name).toContain(exportedModel(name, "some-model").provider);
      expect(exportedModel(name, "some-model").provider, name).not.toBe("anthropic");
    }
  });

  it("give a failed trial status ERROR and an error.type: its gates failed, or why it stopped", () => {
    const failed = makeTrial({ trial: 1, outcome: "fail", reason: "gate failed" });
    const [root] = buildTrialSpans(
      makeReport([]),
      makeScenarioReport({ id: "s", trials: [] }),
      failed,
      EVENTS,
    );
    expect(root?.status).toEqual({ code: 2, message: "gate failed" });
    expect(attribute(root, "error.type")).toEqual({ stringValue: "fail" });
    const timedOut = makeTrial({ trial: 1, outcome: "error", end_reason: "timeout", reason: "timed out" });
    const spans = buildTrialSpans(
      makeReport([]),
      makeScenarioReport({ id: "s", trials: [] }),
      timedOut,
      EVENTS,
    );
    expect(attribute(spans[0], "error.type")).toEqual({ stringValue: "timeout" });
    expectSpanShape(spans);
  });
});

describe("report --format atif|otel-json on a real run", () => {
  let dir: string;
  let out: string;
  beforeAll(async () => {
    dir = makeTempDir("ltt-interop-");
    await mkdir(path.join(dir, "bin"));
    await writeFile(
      path.join(dir, "bin", "tool"),
      '#!/bin/sh\n[ "$1" = ok ] && echo fine || { echo bad >&2; exit 3; }\n',
    );
    await chmod(path.join(dir, "bin", "tool"), 0o755);
    const scenario = path.join(dir, "scenario.yaml");
    await writeFile(
      scenario,
      "name: two-calls\ntask: run tool ok, then tool nope\ntarget:\n  binary: tool\nsolution:\n  - tool ok\n  - tool nope || true\n  - tool nope\nevaluation:\n  gates:\n    - type: command_succeeds\n      command: tool ok\n",
    );
    out = path.join(dir, "out");
    const result = await runMain(
      ["run", scenario, "--agent", "oracle", "--sandbox", "local", "--trials", "1", "--out", out],
      { cwd: dir, env: { PATH: `${path.join(dir, "bin")}:${process.env.PATH}` } },
    );
    expect([0, 1], result.stderr).toContain(result.code);
  }, 120_000);

  it("prints one ATIF trajectory a line, with the run's commands", async () => {
    const result = await runMain(["report", path.join(out, "report.json"), "--format", "atif"], { cwd: dir });
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trim().split("\n");
    expect(lines).toHaveLength(1);
    const trajectory = JSON.parse(lines[0] as string) as AtifTrajectory;
    expectAtifShape(trajectory);
    const calls = trajectory.steps.flatMap((s) => s.tool_calls ?? []);
    expect(calls.map((c) => c.arguments.command)).toEqual(["tool ok", "tool nope || true", "tool nope"]);
  });

  it("prints OTLP/JSON with one execute_tool span a command and its exit status", async () => {
    const result = await runMain(["report", path.join(out, "report.json"), "--format", "otel-json"], {
      cwd: dir,
    });
    expect(result.code, result.stderr).toBe(0);
    const request = JSON.parse(result.stdout) as {
      resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[];
    };
    const spans = request.resourceSpans[0]?.scopeSpans[0]?.spans ?? [];
    expectSpanShape(spans);
    const tools = spans.filter((s) => s.name === "execute_tool bash");
    expect(tools.map((s) => attribute(s, "process.exit.code"))).toEqual([
      { intValue: "0" },
      { intValue: "0" },
      { intValue: "3" },
    ]);
    expect(tools.map((s) => s.status.code)).toEqual([0, 0, 2]);
  });
});

describe("an agent matrix's trials in ATIF and OpenTelemetry", () => {
  // The oracle's entry beside the built-in agent's: its trial talked to no model.
  const report = makeReport([], {
    agent: "anthropic",
    agents: ["anthropic", "oracle"],
    entries: [
      { agent: "anthropic", model: "claude-haiku-4-5" },
      { agent: "oracle", model: null },
    ],
    model: "claude-haiku-4-5",
  });
  const trial = makeTrial({ trial: 1, outcome: "pass" });
  const oracle = makeScenarioReport({ id: "s", agent: "oracle", trials: [trial] });
  const oracleStart: TrialEvent = {
    ...(EVENTS[0] as TrialEvent),
    agent: "oracle",
    model: null,
  } as TrialEvent;

  it("name each trial's own agent, and no model for the oracle's", () => {
    for (const events of [[oracleStart], []]) {
      const trajectory = buildAtifTrajectory(report, oracle, trial, events);
      expect(trajectory.agent.name).toBe("oracle");
      expect(trajectory.agent.model_name).toBeUndefined();
      const [root] = buildTrialSpans(report, oracle, trial, events);
      expect(root?.name).toBe("invoke_agent oracle");
      const attributes = Object.fromEntries((root?.attributes ?? []).map((a) => [a.key, a.value]));
      expect(attributes["gen_ai.agent.name"]).toEqual({ stringValue: "oracle" });
      expect(attributes["gen_ai.request.model"]).toBeUndefined();
    }
  });
});
