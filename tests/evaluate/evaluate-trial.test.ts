import { writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { evaluateTrial } from "../../src/evaluate/evaluate-trial.js";
import { JUDGE_TOOL_NAME } from "../../src/evaluate/judge.js";
import { createAnthropicClient } from "../../src/model/anthropic-client.js";
import { DEFAULT_PRICE_TABLE } from "../../src/model/pricing.js";
import type { JudgeSpec, Scenario } from "../../src/scenario/types.js";
import { createEventLog } from "../support/event-builder.js";
import { type ModelServer, startModelServer, toolUse } from "../support/model-server.js";
import { makeScenario } from "../support/scenario-factory.js";
import { type BashSandbox, createBashSandbox } from "./bash-sandbox.js";

let sandbox: BashSandbox;
let server: ModelServer;

const judgeSpec: JudgeSpec = {
  enabled: true,
  passThreshold: 0.7,
  rubric: { file: "/suite/r.yaml", criteria: [{ id: "task_completion", weight: 1, description: "Did it" }] },
};

beforeAll(async () => {
  sandbox = await createBashSandbox();
  await writeFile(path.join(sandbox.workDir, "a.md"), "CAP theorem\n");
  server = await startModelServer(() => ({
    kind: "message",
    content: [
      toolUse(
        { scores: { task_completion: 0.9 }, confidence: 0.7, issues: ["one retry"], highlights: [] },
        JUDGE_TOOL_NAME,
      ),
    ],
    usage: { input_tokens: 2000, output_tokens: 50 },
  }));
});

afterAll(async () => {
  await sandbox.dispose();
  await server.close();
});

function trialEvents(
  endReason: "natural_stop" | "turn_limit" | "infra_error" | "agent_crash" = "natural_stop",
) {
  const log = createEventLog();
  log.response(1, { input_tokens: 1000, output_tokens: 100 });
  log.call("my-tool create a", 0);
  log.shim(["my-tool", "create", "a"], 1);
  log.shim(["my-tool", "create", "a"], 0);
  log.response(2, { input_tokens: 1200, output_tokens: 80 });
  const errors: Partial<Record<typeof endReason, string>> = {
    infra_error: "setup `my-tool init` exited 1",
    agent_crash: "claude exited 1: segfault",
  };
  log.end(endReason, 2500, 2, errors[endReason] ?? null);
  return log.events;
}

function scenarioWith(overrides: Partial<Scenario["evaluation"]> = {}): Scenario {
  return makeScenario({
    target: { binary: "my-tool", commandPattern: "my-tool\\s+(\\S+)", env: {} },
    evaluation: {
      gates: [
        { weight: 2, type: "file_exists", path: "a.md" },
        { weight: 1, type: "command_succeeds", command: "test -f b.md" },
      ],
      ...overrides,
    },
  });
}

const common = {
  model: "claude-sonnet-4-5",
  prices: DEFAULT_PRICE_TABLE,
  transcript: "## Turn 1\nmy-tool create a",
  gateTimeoutMs: 10_000,
  scriptEnv: {},
};

describe("evaluateTrial", () => {
  it("computes every layer, the outcome and the composite", async () => {
    const client = createAnthropicClient({
      apiKey: "test-key-not-real",
      baseURL: server.url,
      maxAttempts: 1,
    });
    const result = await evaluateTrial({
      ...common,
      sandbox,
      scenario: scenarioWith({
        judge: judgeSpec,
        composite: { gateWeight: 0.5, judgeWeight: 0.3, interactionWeight: 0.2 },
      }),
      events: trialEvents(),
      judge: { client, model: "claude-haiku-4-5" },
    });
    expect(result.outcome).toBe("fail");
    expect(result.reason).toBe(
      "1 of 2 gates failed: command_succeeds (`test -f b.md` exited 1; stdout empty)",
    );
    expect(result.end_reason).toBe("natural_stop");
    expect(result.invocation_source).toBe("shim");
    expect(result.interaction).toEqual({
      total_commands: 2,
      unique_commands: 1,
      error_count: 1,
      error_rate: 0.5,
      retry_count: 1,
      retry_rate: 0.5,
      help_invocations: 0,
      first_try_success_rate: 0,
      iteration_ratio: 0.5,
      completed: true,
    });
    expect(Object.keys(result.by_subcommand)).toEqual(["create"]);
    expect(result.execution).toMatchObject({
      turns: 2,
      tool_calls: 1,
      tool_calls_ok: 1,
      input_tokens: 2200,
      output_tokens: 180,
      duration_ms: 2500,
      natural_stop: true,
    });
    // (2200 * 3 + 180 * 15) / 1e6
    expect(result.execution.cost_usd).toBeCloseTo(0.0093, 12);
    expect(result).toMatchObject({ gates_passed: 1, gates_total: 2, score: 2, max_score: 3 });
    expect(result.judge_score).toBe(0.9);
    expect(result.judge_response?.issues).toEqual(["one retry"]);
    // (2000 * 1 + 50 * 5) / 1e6
    expect(result.judge_usage).toEqual({
      model: "claude-haiku-4-5",
      input_tokens: 2000,
      output_tokens: 50,
      cost_usd: 0.00225,
    });
    // gates 2/3, judge 0.9, interaction mean(0.5, 0.5, 0, 0.5) = 0.375
    expect(result.composite_score).toBeCloseTo(0.5 * (2 / 3) + 0.3 * 0.9 + 0.2 * 0.375, 9);
  });

  it("is an error saying how to configure a judge when the scenario enables one and none is given", async () => {
    const result = await evaluateTrial({
      ...common,
      sandbox,
      scenario: scenarioWith({ judge: judgeSpec }),
      events: trialEvents(),
      judge: null,
    });
    expect(result.outcome).toBe("error");
    expect(result.reason).toMatch(
      /no judge is configured: provide an Anthropic API key .* and a judge model/,
    );
    expect(result.gates_total).toBe(2); // the gates still ran
    expect(result.judge_score).toBeNull();
  });

  it("skips gates and judge after an infrastructure error", async () => {
    const before = sandbox.commands.length;
    const result = await evaluateTrial({
      ...common,
      sandbox,
      scenario: scenarioWith({ judge: judgeSpec }),
      events: trialEvents("infra_error"),
      judge: null,
    });
    expect(result).toMatchObject({
      outcome: "error",
      reason: "infrastructure error: setup `my-tool init` exited 1",
      gates: [],
      gates_total: 0,
      composite_score: null,
    });
    expect(sandbox.commands.length).toBe(before);
  });

  it("still judges a turn-limited trial by its gates", async () => {
    const result = await evaluateTrial({
      ...common,
      sandbox,
      scenario: scenarioWith({
        gates: [{ weight: 1, type: "file_contains", path: "a.md", substring: "CAP" }],
      }),
      events: trialEvents("turn_limit"),
    });
    expect(result).toMatchObject({ outcome: "pass", reason: null, composite_score: null });
    expect(result.interaction.completed).toBe(false);
    expect(result.execution.natural_stop).toBe(false);
  });

  it("passes a crashed agent whose gates pass, with completed false and the crash beside", async () => {
    const result = await evaluateTrial({
      ...common,
      sandbox,
      scenario: scenarioWith({
        gates: [{ weight: 1, type: "file_contains", path: "a.md", substring: "CAP" }],
      }),
      events: trialEvents("agent_crash"),
    });
    expect(result).toMatchObject({
      outcome: "pass",
      end_reason: "agent_crash",
      reason: "passed, but the agent did not complete: it crashed: claude exited 1: segfault",
    });
    expect(result.interaction.completed).toBe(false);
  });

  it("counts a call by absolute path that the shim did not see, and no_transcript_errors fails on it", async () => {
    const log = createEventLog();
    log.response(1);
    log.call("/abs/path/to/my-tool fail", 1); // bypasses the PATH shim
    log.call("my-tool ok", 0);
    const okCall = log.events.findLast((event) => event.type === "tool_call");
    log.push({
      type: "target_invocation",
      argv: ["my-tool", "ok"],
      exit_code: 0,
      duration_ms: 2,
      cwd: null,
      started_at_ms: Date.parse(okCall?.ts ?? "") + 2,
    });
    log.end("natural_stop", 1000, 1);
    const result = await evaluateTrial({
      ...common,
      sandbox,
      scenario: scenarioWith({ gates: [{ weight: 1, type: "no_transcript_errors" }] }),
      events: log.events,
    });
    expect(result.interaction).toMatchObject({ total_commands: 2, error_count: 1, error_rate: 0.5 });
    expect(result).toMatchObject({ invocation_source: "shim", outcome: "fail" });
    expect(result.gates[0]?.message).toBe(
      '1 of 2 target invocations failed: "/abs/path/to/my-tool fail" → 1; 1 ran around the shim',
    );
  });
});
