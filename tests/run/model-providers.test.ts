/**
 * Issue 18, item 2: each model the run calls (the built-in agent's and the judge's) names a known
 * provider whose key was given, checked before any trial; the judge may be an OpenAI model.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { AGENT_NAMES, AGENTS } from "../../src/agents/registry.js";
import { ConfigError } from "../../src/errors.js";
import { JUDGE_TOOL_NAME } from "../../src/evaluate/judge.js";
import type { Report } from "../../src/results/types.js";
import { checkModelProviders } from "../../src/run/prepare.js";
import type { Scenario } from "../../src/scenario/types.js";
import { runMain } from "../cli/run-main.js";
import { writeJudgedSuite } from "../support/judged-suite.js";
import {
  type OpenAiServer,
  openAiBashCall,
  openAiText,
  startOpenAiServer,
} from "../support/openai-server.js";
import { makeScenario } from "../support/scenario-factory.js";

function scenario(id: string, fields: { agentModel?: string; judgeModel?: string } = {}): Scenario {
  return makeScenario({
    id,
    agent: fields.agentModel ? { model: fields.agentModel } : {},
    evaluation: {
      gates: [],
      ...(fields.judgeModel
        ? {
            judge: {
              enabled: true,
              passThreshold: 0.5,
              rubric: { file: "/rubric.yaml", criteria: [{ id: "done", weight: 1, description: "did it" }] },
              model: fields.judgeModel,
            },
          }
        : {}),
    },
  });
}

const onlyOpenAi = { anthropic: null, openai: "sk-proj-test" };

describe("checkModelProviders", () => {
  it("accepts models whose provider has a key", () => {
    expect(() =>
      checkModelProviders(
        [scenario("a", { judgeModel: "openai:gpt-5-nano" })],
        ["openai:gpt-5-mini"],
        "anthropic",
        onlyOpenAi,
      ),
    ).not.toThrow();
  });

  it("names the missing key of a scenario's own model and of a judge", () => {
    expect(() =>
      checkModelProviders(
        [scenario("pinned", { agentModel: "claude-haiku-4-5" })],
        ["openai:gpt-5-mini"],
        "anthropic",
        onlyOpenAi,
      ),
    ).toThrow(
      new ConfigError(
        "the anthropic agent needs an API key: set ANTHROPIC_API_KEY in the environment (never in a scenario file), or run with --agent oracle to try the scenarios without a model",
        "pinned: agent.model",
      ),
    );
    expect(() =>
      checkModelProviders(
        [scenario("judged", { judgeModel: "claude-haiku-4-5" })],
        ["openai:gpt-5-mini"],
        "oracle",
        onlyOpenAi,
      ),
    ).toThrow(/^judged: the judge: the judge model "claude-haiku-4-5" needs ANTHROPIC_API_KEY/);
  });

  it("leaves the models of agents that call no model with a key to them (command, oracle, every keyless agent)", () => {
    const noKeys = { anthropic: null, openai: null };
    // The command agent hands {model} to its own CLI, which may name providers this harness does not know.
    for (const agent of AGENT_NAMES.filter((name) => !AGENTS[name].needsApiKey)) {
      expect(() => checkModelProviders([scenario("a")], ["ollama:qwen3"], agent, noKeys)).not.toThrow();
    }
    expect(() => checkModelProviders([scenario("a")], ["ollama:qwen3"], "anthropic", noKeys)).toThrow(
      /unknown provider "ollama"/,
    );
  });

  it("checks every model of a model matrix", () => {
    expect(() =>
      checkModelProviders(
        [scenario("a")],
        ["openai:gpt-5-mini", "claude-haiku-4-5"],
        "anthropic",
        onlyOpenAi,
      ),
    ).toThrow(/the anthropic agent needs an API key: set ANTHROPIC_API_KEY/);
  });

  it("refuses an unknown provider, and an OpenAI model for claude-code or opencode", () => {
    expect(() => checkModelProviders([scenario("a")], ["openia:gpt-5"], "anthropic", onlyOpenAi)).toThrow(
      /--model: unknown provider "openia".*did you mean "openai:gpt-5"/,
    );
    expect(() =>
      checkModelProviders([scenario("a")], ["openai:gpt-5"], "claude-code", { anthropic: "k", openai: "k" }),
    ).toThrow('--model: the claude-code agent runs Anthropic models only, not "openai:gpt-5"');
    expect(() =>
      checkModelProviders([scenario("a")], ["claude-haiku-4-5", "openai:gpt-5"], "opencode", {
        anthropic: "k",
        openai: "k",
      }),
    ).toThrow('--model: the opencode agent runs Anthropic models only, not "openai:gpt-5"');
    expect(() =>
      checkModelProviders([scenario("a")], ["claude-haiku-4-5"], "opencode", {
        anthropic: null,
        openai: "k",
      }),
    ).toThrow(/the opencode agent needs an API key: set ANTHROPIC_API_KEY/);
  });

  it("takes gemini-cli's model ids as written and asks for its own key, not a provider's", () => {
    const noKeys = { anthropic: null, openai: null };
    const models = ["gemini-2.5-flash", "gemini-2.5-pro"];
    expect(() =>
      checkModelProviders([scenario("a")], models, "gemini-cli", noKeys, undefined, {
        agentKey: "AIza-test",
      }),
    ).not.toThrow();
    expect(() =>
      checkModelProviders([scenario("a")], models, "gemini-cli", { anthropic: "k", openai: "k" }),
    ).toThrow(/the gemini-cli agent needs an API key: set GEMINI_API_KEY/);
  });
});

describe("an OpenAI agent judged by an OpenAI judge", () => {
  let server: OpenAiServer | undefined;
  afterEach(async () => server?.close());

  it("runs both through the OpenAI client and prices both", async () => {
    const dir = await writeJudgedSuite("ltt-openai-judge-", { name: "judged" });
    server = await startOpenAiServer((request) => {
      const body = request.body;
      if (body.tool_choice?.function?.name === JUDGE_TOOL_NAME) {
        return {
          kind: "answer",
          toolCalls: [
            {
              name: JUDGE_TOOL_NAME,
              arguments: { scores: { done: 1 }, confidence: 1, issues: [], highlights: [] },
            },
          ],
          usage: { prompt_tokens: 2000, completion_tokens: 100 },
        };
      }
      return body.messages.some((m: { role: string }) => m.role === "tool")
        ? openAiText("done")
        : openAiBashCall("echo hi > x.txt");
    });
    const out = path.join(dir, "out");
    const result = await runMain(
      [
        "run",
        dir,
        "--model",
        "openai:gpt-5-mini",
        "--judge-model",
        "openai:gpt-5-nano",
        "--trials",
        "1",
        "--out",
        out,
        "-q",
      ],
      { env: { OPENAI_API_KEY: "sk-proj-test-judge", OPENAI_BASE_URL: server.url } },
    );
    // Nothing but the local sandbox's standing warning.
    expect(
      result.stderr.split("\n").filter((line) => line && !line.startsWith("warning: local sandbox:")),
    ).toEqual([]);
    expect(result.code).toBe(0);
    const report = JSON.parse(await readFile(path.join(out, "report.json"), "utf8")) as Report;
    const trial = report.scenarios[0]?.trials[0];
    expect(trial?.judge_model).toBe("openai:gpt-5-nano");
    expect(trial?.judge_usage).toMatchObject({ model: "openai:gpt-5-nano", input_tokens: 2000 });
    // gpt-5-nano: $0.05 input, $0.40 output per million tokens.
    expect(trial?.judge_usage?.cost_usd).toBeCloseTo((2000 * 0.05 + 100 * 0.4) / 1e6, 12);
    expect(server.requests.map((r) => r.body.model).sort()).toEqual([
      "gpt-5-mini",
      "gpt-5-mini",
      "gpt-5-nano",
    ]);
  });
});
