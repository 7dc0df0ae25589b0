import { afterEach, describe, expect, it } from "vitest";
import { ConfigError } from "../../src/errors.js";
import {
  buildJudgePrompt,
  JUDGE_TOOL_NAME,
  resolveJudgeModel,
  runJudge,
  TRANSCRIPT_BUDGET_CHARS,
  truncateMiddle,
} from "../../src/evaluate/judge.js";
import { createAnthropicClient } from "../../src/model/anthropic-client.js";
import type { GateResult } from "../../src/results/types.js";
import type { Rubric } from "../../src/scenario/types.js";
import { type ModelServer, type ScriptedReply, startModelServer, toolUse } from "../support/model-server.js";
import { makeScenario } from "../support/scenario-factory.js";

const rubric: Rubric = {
  file: "/suite/rubrics/capture.yaml",
  criteria: [
    { id: "command_correctness", weight: 0.4, description: "Uses valid CLI commands with correct syntax" },
    { id: "task_completion", weight: 0.6, description: "Completes all aspects of the assigned task" },
  ],
};
const scenario = makeScenario({
  evaluation: { gates: [], judge: { enabled: true, rubric, passThreshold: 0.7 } },
});
const gates: GateResult[] = [
  {
    gate_type: "command_succeeds",
    passed: true,
    message: "`my-tool doctor` exited 0; stdout empty",
    weight: 1,
  },
  { gate_type: "file_exists", passed: false, message: "notes/b.md: not found", weight: 1 },
];
const transcript = '## Turn 1\n\n```bash\nmy-tool create "CAP theorem"\n```\n\nexit 0';

let server: ModelServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

function verdict(input: unknown, usage = { input_tokens: 1000, output_tokens: 100 }): ScriptedReply {
  return {
    kind: "message",
    content: [toolUse(input, JUDGE_TOOL_NAME, "toolu_judge")],
    stop_reason: "tool_use",
    usage,
  };
}

async function judgeWith(reply: ScriptedReply | ScriptedReply[], extra: { transcript?: string } = {}) {
  const replies = Array.isArray(reply) ? reply : [reply];
  let index = 0;
  server = await startModelServer(() => replies[Math.min(index++, replies.length - 1)] as ScriptedReply);
  const client = createAnthropicClient({
    apiKey: "test-key-not-real",
    baseURL: server.url,
    maxAttempts: 2,
    sleep: async () => {},
  });
  return runJudge({
    client,
    model: "claude-haiku-4-5",
    rubric,
    scenario,
    transcript: extra.transcript ?? transcript,
    gates,
  });
}

describe("runJudge against the scripted Messages API", () => {
  it("accepts a well-formed verdict, recomputes the weighted score and prices the judge's tokens", async () => {
    const result = await judgeWith(
      verdict({
        scores: { command_correctness: 0.9, task_completion: 0.6 },
        weighted_score: 0.72,
        confidence: 0.8,
        issues: ["Forgot the second note"],
        highlights: ["Correct create syntax"],
      }),
    );
    expect(result).toEqual({
      ok: true,
      response: {
        scores: { command_correctness: 0.9, task_completion: 0.6 },
        weighted_score: 0.72,
        confidence: 0.8,
        issues: ["Forgot the second note"],
        highlights: ["Correct create syntax"],
      },
      passed: true,
      threshold: 0.7,
      // (1000 * $1 + 100 * $5) / 1e6
      usage: { model: "claude-haiku-4-5", input_tokens: 1000, output_tokens: 100, cost_usd: 0.0015 },
      notes: [],
    });

    const [request] = server?.messageRequests() ?? [];
    expect(request?.body.tool_choice).toEqual({ type: "tool", name: JUDGE_TOOL_NAME });
    expect(request?.body.model).toBe("claude-haiku-4-5");
    const tool = request?.body.tools[0];
    expect(tool.name).toBe(JUDGE_TOOL_NAME);
    expect(tool.input_schema.properties.scores.required).toEqual(["command_correctness", "task_completion"]);
    expect(tool.input_schema.properties.scores.properties.task_completion).toMatchObject({
      type: "number",
      minimum: 0,
      maximum: 1,
    });
    expect(tool.input_schema.required).toEqual(["scores", "confidence", "issues", "highlights"]);
    const prompt: string = request?.body.messages[0].content;
    expect(prompt).toContain(scenario.task);
    expect(prompt).toContain('my-tool create "CAP theorem"');
    expect(prompt).toMatch(
      /- FAIL file_exists:\n<untrusted-[0-9a-f]{16} gate message>\nnotes\/b\.md: not found\n/,
    );
    expect(prompt).toContain("- `task_completion` (weight 0.6): Completes all aspects of the assigned task");
    expect(prompt).toMatch(/Score each criterion from 0 to 1/);
  });

  it("replaces a wrong weighted score by the recomputed one and notes it", async () => {
    const result = await judgeWith(
      verdict({
        scores: { command_correctness: 0.5, task_completion: 0.5 },
        weighted_score: 0.95,
        confidence: 0.9,
        issues: [],
        highlights: [],
      }),
    );
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.response.weighted_score).toBe(0.5);
    expect(result.passed).toBe(false);
    expect(result.notes).toEqual([
      "the judge's own weighted_score 0.95 was replaced by 0.5, recomputed from the criterion scores",
    ]);
  });

  it("is a judge error when a criterion is missing, keeping the usage", async () => {
    const result = await judgeWith(
      verdict({ scores: { command_correctness: 1 }, confidence: 1, issues: [], highlights: [] }),
    );
    expect(result).toEqual({
      ok: false,
      error: 'judge claude-haiku-4-5: criterion "task_completion" has no score',
      usage: { model: "claude-haiku-4-5", input_tokens: 1000, output_tokens: 100, cost_usd: 0.0015 },
    });
  });

  it("is a judge error when a score is not a number or outside 0..1", async () => {
    const text = await judgeWith(
      verdict({
        scores: { command_correctness: "high", task_completion: 1 },
        confidence: 1,
        issues: [],
        highlights: [],
      }),
    );
    expect(text).toMatchObject({
      ok: false,
      error: 'judge claude-haiku-4-5: criterion "command_correctness" has a non-numeric score "high"',
    });
    const scale = await judgeWith(
      verdict({
        scores: { command_correctness: 8, task_completion: 1 },
        confidence: 1,
        issues: [],
        highlights: [],
      }),
    );
    expect(scale).toMatchObject({
      ok: false,
      error: 'judge claude-haiku-4-5: criterion "command_correctness" score 8 is outside 0..1',
    });
  });

  it("is a judge error (not a fail) when the API keeps failing", async () => {
    const result = await judgeWith({
      kind: "error",
      status: 500,
      message: "internal trouble",
      retryAfterMs: 1,
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.usage).toBeNull();
    expect(result.error).toMatch(/^judge call to claude-haiku-4-5 failed: /);
    expect(server?.messageRequests().length).toBe(2);
  });

  it("is a judge error when the model answers without the tool", async () => {
    const result = await judgeWith({
      kind: "message",
      content: [{ type: "text", text: "Looks good" }],
      stop_reason: "end_turn",
    });
    expect(result).toMatchObject({
      ok: false,
      error: `judge claude-haiku-4-5 did not call ${JUDGE_TOOL_NAME}`,
    });
  });

  it("truncates a long transcript in the middle", async () => {
    const long = `START${"x".repeat(200_000)}END`;
    const result = await judgeWith(
      verdict({
        scores: { command_correctness: 1, task_completion: 1 },
        confidence: 1,
        issues: [],
        highlights: [],
      }),
      { transcript: long },
    );
    expect(result.ok).toBe(true);
    const prompt: string = server?.messageRequests()[0]?.body.messages[0].content;
    expect(prompt).toContain("START");
    expect(prompt).toContain("END");
    expect(prompt).toMatch(/\[… \d+ characters omitted …\]/);
    expect(prompt.length).toBeLessThan(TRANSCRIPT_BUDGET_CHARS + 5_000);
  });
});

describe("judge prompt and truncation", () => {
  it("keeps short text whole and cuts long text to the budget plus a marker", () => {
    expect(truncateMiddle("short", 100)).toBe("short");
    const cut = truncateMiddle("a".repeat(50) + "b".repeat(50), 30);
    expect(cut).toBe(`${"a".repeat(10)}\n\n[… 70 characters omitted …]\n\n${"b".repeat(20)}`);
  });

  it("says when there are no gates", () => {
    expect(buildJudgePrompt({ rubric, scenario, transcript: "t", gates: [] })).toContain(
      "# Automatic checks run after the agent stopped\n\n(none)",
    );
  });
});

describe("resolveJudgeModel", () => {
  it("prefers the scenario's judge.model, then the flag, then LLM_TOOL_TEST_JUDGE", () => {
    expect(resolveJudgeModel({ flag: "a", scenario: "b", env: "c", testedModel: "m" })).toBe("b");
    expect(resolveJudgeModel({ flag: "a", env: "c", testedModel: "m" })).toBe("a");
    expect(resolveJudgeModel({ env: "c", testedModel: "m" })).toBe("c");
  });

  it("defaults to haiku, or sonnet when haiku is under test", () => {
    expect(resolveJudgeModel({ testedModel: "claude-sonnet-4-5" })).toBe("claude-haiku-4-5");
    expect(resolveJudgeModel({ testedModel: "claude-haiku-4-5-20251001" })).toBe("claude-sonnet-4-5");
  });

  it("refuses a judge equal to the tested model unless forced", () => {
    const error = (() => {
      try {
        resolveJudgeModel({ flag: "claude-haiku-4-5", testedModel: "claude-haiku-4-5-20251001" });
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).where).toBe("--judge-model");
    expect((error as Error).message).toMatch(/is the model under test/);
    expect(() => resolveJudgeModel({ env: "claude-opus-4-5", testedModel: "claude-opus-4-5" })).toThrow(
      /^LLM_TOOL_TEST_JUDGE: /,
    );
    expect(
      resolveJudgeModel({ flag: "claude-haiku-4-5", testedModel: "claude-haiku-4-5", force: true }),
    ).toBe("claude-haiku-4-5");
  });
});
