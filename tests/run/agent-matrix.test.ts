/**
 * An agent matrix in the library: the plan is scenario × variant × (agent, model) entry × trial,
 * each agent with its own models (else the run's; once for an agent without a model), a pinned
 * model once per agent; runSuite runs each trial with its entry's agent and refuses a matrix whose
 * agents were not all given.
 */
import { describe, expect, it } from "vitest";
import { createNullAgent } from "../../src/agents/null.js";
import { createOracleAgent } from "../../src/agents/oracle.js";
import { ConfigError } from "../../src/errors.js";
import { defaultRunOptions } from "../../src/run/options.js";
import { planTrials, runEntries } from "../../src/run/plan.js";
import { runSuite } from "../../src/run/suite.js";
import { reportSchemaErrors } from "../support/report-schema.js";
import { makeScenario } from "../support/scenario-factory.js";
import { makeTempDir } from "../support/temp-dirs.js";

describe("planning an agent matrix", () => {
  const options = {
    agent: "anthropic" as const,
    agents: ["anthropic", "codex", "oracle"] as ("anthropic" | "codex" | "oracle")[],
    agentModels: { codex: ["openai:gpt-5.2", "openai:gpt-5-mini"] },
    model: "claude-haiku-4-5",
    models: [],
    trials: 1,
    shard: null,
  };

  it("gives each agent its own models, else the run's, and an agent without a model one entry", () => {
    expect(runEntries(options)).toEqual([
      { agent: "anthropic", model: "claude-haiku-4-5" },
      { agent: "codex", model: "openai:gpt-5.2" },
      { agent: "codex", model: "openai:gpt-5-mini" },
      { agent: "oracle", model: "claude-haiku-4-5" },
    ]);
    const keys = planTrials([makeScenario({ id: "s", variants: [{ name: "v1" }] })], options).map(
      (t) => t.key,
    );
    expect(keys).toEqual([
      "s@v1~anthropic/claude-haiku-4-5#1",
      "s@v1~codex/openai:gpt-5.2#1",
      "s@v1~codex/openai:gpt-5-mini#1",
      // The oracle talks to no model: its entry is the agent alone.
      "s@v1~oracle#1",
    ]);
  });

  it("runs a scenario's pinned model once per agent", () => {
    const pinned = makeScenario({ id: "p", agent: { model: "openai:gpt-5.2" } });
    expect(planTrials([pinned], options).map((t) => [t.agent, t.model, t.key])).toEqual([
      ["anthropic", "openai:gpt-5.2", "p~anthropic/openai:gpt-5.2#1"],
      ["codex", "openai:gpt-5.2", "p~codex/openai:gpt-5.2#1"],
      ["oracle", "openai:gpt-5.2", "p~oracle#1"],
    ]);
  });

  it("keeps a one-agent run's keys as they were", () => {
    const keys = planTrials([makeScenario({ id: "s" })], { ...options, agents: [] }).map((t) => t.key);
    expect(keys).toEqual(["s#1"]);
  });
});

describe("running an agent matrix", () => {
  const scenario = makeScenario({
    id: "write",
    task: "write ok",
    trials: 1,
    solution: ["echo ok > ok.txt"],
    evaluation: { gates: [{ type: "file_exists", path: "ok.txt", weight: 1 }] },
  });

  it("runs each trial with its entry's agent", async () => {
    const options = defaultRunOptions({
      outDir: makeTempDir("ltt-agents-"),
      agent: "oracle",
      agents: ["oracle", "null"],
      sandbox: "local",
    });
    const { report } = await runSuite([scenario], options, {
      agent: createOracleAgent(),
      agents: { oracle: createOracleAgent(), null: createNullAgent() },
      env: { PATH: process.env.PATH },
    });
    expect(report.run.agents).toEqual(["oracle", "null"]);
    expect(report.run.entries).toEqual([
      { agent: "oracle", model: null },
      { agent: "null", model: null },
    ]);
    expect(report.scenarios.map((s) => [s.agent, s.model, s.trials[0]?.outcome])).toEqual([
      ["oracle", undefined, "pass"],
      ["null", undefined, "fail"],
    ]);
    expect(report.model_matrix?.models).toEqual(["oracle", "null"]);
    expect(report.model_matrix?.counts.some_fail).toBe(1);
    // The published schema takes the matrix's fields.
    expect(reportSchemaErrors(JSON.parse(JSON.stringify(report)))).toEqual([]);
  });

  it("refuses a matrix whose agents were not all given", async () => {
    const options = defaultRunOptions({
      outDir: makeTempDir("ltt-agents-"),
      agent: "oracle",
      agents: ["oracle", "null"],
    });
    await expect(
      runSuite([scenario], options, { agent: createOracleAgent(), env: { PATH: process.env.PATH } }),
    ).rejects.toThrow(ConfigError);
  });
});
