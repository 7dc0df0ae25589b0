/**
 * Issue 15, item 2: the judge cannot grade itself. The judge model is resolved per scenario (its
 * own evaluation.judge.model, then --judge-model / LLM_TOOL_TEST_JUDGE, then the default); a judge
 * equal to the model that scenario tests refuses the run before any model call, naming the
 * scenario, unless --force-judge; each trial records the model that judged it.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { AgentName } from "../../src/agents/types.js";
import { EXIT } from "../../src/cli/main.js";
import { ConfigError } from "../../src/errors.js";
import { JUDGE_TOOL_NAME } from "../../src/evaluate/judge.js";
import type { Report } from "../../src/results/types.js";
import { setUpJudge } from "../../src/run/prepare.js";
import type { Scenario } from "../../src/scenario/types.js";
import { runMain } from "../cli/run-main.js";
import { writeJudgedSuite } from "../support/judged-suite.js";
import { bashCall, finalText, type ModelServer, startModelServer, toolUse } from "../support/model-server.js";
import { makeScenario } from "../support/scenario-factory.js";

function judged(id: string, fields: { agentModel?: string; judgeModel?: string } = {}): Scenario {
  return makeScenario({
    id,
    agent: fields.agentModel ? { model: fields.agentModel } : {},
    evaluation: {
      gates: [],
      judge: {
        enabled: true,
        passThreshold: 0.5,
        rubric: { file: "/rubric.yaml", criteria: [{ id: "done", weight: 1, description: "did it" }] },
        ...(fields.judgeModel ? { model: fields.judgeModel } : {}),
      },
    },
  });
}

const setUp = (scenarios: Scenario[], input: { flag?: string; env?: string; force?: boolean } = {}) =>
  setUpJudge(scenarios, {
    flag: input.flag ?? null,
    env: input.env ?? null,
    testedModel: "claude-sonnet-4-5",
    force: input.force ?? false,
    hasApiKey: true,
    agents: ["anthropic"],
  });

const judgeModels = (scenarios: Scenario[]) => scenarios.map((s) => s.evaluation.judge?.model);

describe("setUpJudge: the judge model per scenario", () => {
  it("lets the scenario's judge.model win over --judge-model and LLM_TOOL_TEST_JUDGE", () => {
    const setup = setUp([judged("own", { judgeModel: "claude-opus-4-5" }), judged("plain")], {
      flag: "claude-haiku-4-5",
      env: "claude-opus-4-1",
    });
    expect(judgeModels(setup.scenarios)).toEqual(["claude-opus-4-5", "claude-haiku-4-5"]);
    // The run records the default it started from.
    expect(setup.judgeModel).toBe("claude-haiku-4-5");
  });

  it("takes LLM_TOOL_TEST_JUDGE without a flag, then the built-in default", () => {
    expect(judgeModels(setUp([judged("a")], { env: "claude-opus-4-5" }).scenarios)).toEqual([
      "claude-opus-4-5",
    ]);
    expect(judgeModels(setUp([judged("a")]).scenarios)).toEqual(["claude-haiku-4-5"]);
  });

  it("refuses a scenario whose own judge is the model it tests, naming the scenario", () => {
    const scenarios = [
      judged("fine"),
      judged("self-graded", { agentModel: "claude-opus-4-5", judgeModel: "claude-opus-4-5" }),
    ];
    expect(() => setUp(scenarios)).toThrow(ConfigError);
    expect(() => setUp(scenarios)).toThrow(
      /scenario self-graded: the judge model claude-opus-4-5 is the model under test/,
    );
    expect(judgeModels(setUp(scenarios, { force: true }).scenarios)).toEqual([
      "claude-haiku-4-5",
      "claude-opus-4-5",
    ]);
  });

  it("checks the flag against the model each scenario tests, not only the run's", () => {
    // The run tests sonnet; one scenario tests haiku, which the flag names as the judge.
    const scenarios = [judged("run-model"), judged("haiku-agent", { agentModel: "claude-haiku-4-5" })];
    expect(() => setUp(scenarios, { flag: "claude-haiku-4-5" })).toThrow(/scenario haiku-agent: /);
  });

  it("falls back from the default judge when a scenario tests the default judge's model", () => {
    const setup = setUp([judged("haiku-agent", { agentModel: "claude-haiku-4-5-20251001" })]);
    expect(judgeModels(setup.scenarios)).toEqual(["claude-sonnet-4-5"]);
    // The run records the judge that judged, not the default it started from.
    expect(setup.judgeModel).toBe("claude-sonnet-4-5");
  });
});

describe("setUpJudge: the run's judge_model names only a judge that judged", () => {
  it("is null when every judged scenario has its own judge", () => {
    const setup = setUp([judged("own", { judgeModel: "claude-opus-4-5" })], { flag: "claude-haiku-4-5" });
    expect(judgeModels(setup.scenarios)).toEqual(["claude-opus-4-5"]);
    expect(setup.judgeModel).toBeNull();
  });

  it("is null when no scenario is judged, whatever --judge-model says", () => {
    const plain = makeScenario({ id: "plain", evaluation: { gates: [] } });
    expect(setUp([plain], { flag: "claude-opus-4-5" }).judgeModel).toBeNull();
  });

  it("with --force-judge is the model that judged the scenarios without their own", () => {
    const setup = setUp([judged("own", { judgeModel: "claude-opus-4-1" }), judged("plain")], {
      flag: "claude-opus-4-5",
      force: true,
    });
    expect(setup.judgeModel).toBe("claude-opus-4-5");
  });
});

describe("run: a self-judging scenario through the CLI", () => {
  let server: ModelServer | null = null;
  afterEach(async () => {
    await server?.close();
    server = null;
  });

  const suiteWithSelfJudge = () =>
    writeJudgedSuite("ltt-self-judge-", {
      name: "self_graded",
      agentModel: "claude-opus-4-5",
      judgeModel: "claude-opus-4-5",
    });

  async function run(dir: string, extra: string[]) {
    server = await startModelServer((request) => {
      if (request.body.tool_choice?.name === JUDGE_TOOL_NAME) {
        return {
          kind: "message",
          content: [
            toolUse({ scores: { done: 1 }, confidence: 1, issues: [], highlights: [] }, JUDGE_TOOL_NAME),
          ],
          stop_reason: "tool_use",
        };
      }
      return request.body.messages.length === 1 ? bashCall("echo hi > x.txt") : finalText("done");
    });
    const outDir = path.join(dir, "out");
    const result = await runMain(["run", dir, "--agent", "anthropic", "--out", outDir, ...extra], {
      env: { ANTHROPIC_API_KEY: "sk-ant-test-self-judge", ANTHROPIC_BASE_URL: server.url },
    });
    return { result, outDir };
  }

  it("exits 2 before any model call, naming the scenario, although --judge-model names another model", async () => {
    // The scenario's own judge.model wins over the flag, so the flag cannot hide the self-grading.
    const { result } = await run(await suiteWithSelfJudge(), ["--judge-model", "claude-haiku-4-5"]);
    expect(result.code).toBe(EXIT.usage);
    expect(result.stderr).toContain(
      "scenario self_graded: the judge model claude-opus-4-5 is the model under test",
    );
    expect(server?.messageRequests()).toHaveLength(0);
  });

  it("runs with --force-judge and records the model that judged each trial", async () => {
    const { result, outDir } = await run(await suiteWithSelfJudge(), [
      "--force-judge",
      "--judge-model",
      "claude-haiku-4-5",
    ]);
    expect(result.stderr).not.toContain("model under test");
    const report = JSON.parse(await readFile(path.join(outDir, "report.json"), "utf8")) as Report;
    // The scenario's own judge judged every trial: --judge-model judged nothing, and the run says so.
    expect(report.run.judge_model).toBeNull();
    const trials = report.scenarios[0]?.trials ?? [];
    expect(trials.length).toBeGreaterThan(0);
    for (const trial of trials) {
      expect(trial.judge_model).toBe("claude-opus-4-5");
      expect(trial.judge_usage?.model).toBe("claude-opus-4-5");
    }
    const judgeRequests = server
      ?.messageRequests()
      .filter((r) => r.body.tool_choice?.name === JUDGE_TOOL_NAME);
    expect(judgeRequests?.map((r) => r.body.model)).toEqual(trials.map(() => "claude-opus-4-5"));
  });
});

describe("setUpJudge in a model matrix", () => {
  const matrix = (models: string[], input: { flag?: string; force?: boolean } = {}) =>
    setUpJudge([judged("a")], {
      flag: input.flag ?? null,
      env: null,
      testedModel: models[0] as string,
      testedModels: models,
      force: input.force ?? false,
      hasApiKey: true,
      agents: ["anthropic"],
    });

  it("picks a default judge that is none of the models under test", () => {
    expect(judgeModels(matrix(["claude-haiku-4-5", "claude-opus-4-5"]).scenarios)).toEqual([
      "claude-sonnet-4-5",
    ]);
    expect(judgeModels(matrix(["claude-opus-4-5", "claude-opus-4-1"]).scenarios)).toEqual([
      "claude-haiku-4-5",
    ]);
  });

  it("refuses when every default judge is a model under test, or the flag names one of them", () => {
    expect(() => matrix(["claude-haiku-4-5", "claude-sonnet-4-5"])).toThrow(
      /the default judge models are among the models under test \(claude-haiku-4-5, claude-sonnet-4-5\)/,
    );
    expect(() => matrix(["claude-opus-4-5", "claude-sonnet-4-5"], { flag: "claude-sonnet-4-5" })).toThrow(
      /the judge model claude-sonnet-4-5 is the model under test/,
    );
    expect(judgeModels(matrix(["claude-haiku-4-5", "claude-sonnet-4-5"], { force: true }).scenarios)).toEqual(
      ["claude-sonnet-4-5"],
    );
  });
});

describe("run without any model API key: the judge is skipped, and the note says for whom", () => {
  async function runWithoutKeys(agents: string, extra: Record<string, string> = {}) {
    const dir = await writeJudgedSuite("ltt-judge-skipped-", { name: "judged" });
    const outDir = path.join(dir, "out");
    const result = await runMain(
      ["run", dir, "--agent", agents, "--trials", "1", "--sandbox", "local", "--out", outDir],
      { env: extra },
    );
    const skipped = result.stderr.split("\n").filter((line) => line.includes("is skipped"));
    return { result, outDir, skipped };
  }

  it("names the one agent of a single-agent run, as before", async () => {
    const { skipped } = await runWithoutKeys("null");
    expect(skipped).toEqual([
      "note: the judge of 1 scenario(s) is skipped: it needs a model API key, ANTHROPIC_API_KEY or OPENAI_API_KEY (the null agent needs none)",
    ]);
  });

  it("in an agent matrix, says the judge is skipped for every agent and names them all", async () => {
    const { result, outDir, skipped } = await runWithoutKeys("null,oracle");
    expect(skipped).toEqual([
      "note: the judge of 1 scenario(s) is skipped for every agent of the run: it needs a model API key, ANTHROPIC_API_KEY or OPENAI_API_KEY (the null and oracle agents need none)",
    ]);
    // What the note says is what happened: no trial of either agent was judged.
    const report = JSON.parse(await readFile(path.join(outDir, "report.json"), "utf8")) as Report;
    expect(report.scenarios.map((scenario) => scenario.agent).sort()).toEqual(["null", "oracle"]);
    const trials = report.scenarios.flatMap((scenario) => scenario.trials);
    expect(trials).toHaveLength(2);
    for (const trial of trials) expect(trial.judge_model ?? null).toBeNull();
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });
});

describe("setUpJudge without a model API key", () => {
  const withoutKey = (agents: AgentName[]) =>
    setUpJudge([judged("a"), judged("b")], {
      flag: null,
      env: null,
      testedModel: "claude-sonnet-4-5",
      force: false,
      hasApiKey: false,
      agents,
    });

  it("removes every judge and says which agents ran without one", () => {
    const setup = withoutKey(["oracle", "null", "command"]);
    expect(judgeModels(setup.scenarios)).toEqual([undefined, undefined]);
    expect(setup.judgeModel).toBeNull();
    expect(setup.note).toBe(
      "the judge of 2 scenario(s) is skipped for every agent of the run: it needs a model API key, ANTHROPIC_API_KEY or OPENAI_API_KEY (the oracle, null and command agents need none)",
    );
  });

  it("does not say an agent with a key of its own needs none: its key is not a judge's", () => {
    expect(withoutKey(["gemini-cli"]).note).toBe(
      "the judge of 2 scenario(s) is skipped: it needs a model API key, ANTHROPIC_API_KEY or OPENAI_API_KEY (the gemini-cli agent's GEMINI_API_KEY is not one)",
    );
    expect(withoutKey(["oracle", "gemini-cli"]).note).toBe(
      "the judge of 2 scenario(s) is skipped for every agent of the run: it needs a model API key, ANTHROPIC_API_KEY or OPENAI_API_KEY (the oracle agent needs none; the gemini-cli agent's GEMINI_API_KEY is not one)",
    );
  });
});
