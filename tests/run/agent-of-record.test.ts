/** The report names the agent that ran, whatever `options.agent` said (the library's papercut). */
import { afterEach, expect, it } from "vitest";
import { createAnthropicAgent } from "../../src/agents/anthropic.js";
import { createAnthropicClient } from "../../src/model/anthropic-client.js";
import { defaultRunOptions } from "../../src/run/options.js";
import { runSuite } from "../../src/run/suite.js";
import {
  bashCall,
  finalText,
  type ModelServer,
  scriptByTurn,
  startModelServer,
} from "../support/model-server.js";
import { makeScenario } from "../support/scenario-factory.js";
import { makeTempDir } from "../support/temp-dirs.js";

let server: ModelServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

it("records the agent of the ports, and its model, when the options name another agent", async () => {
  server = await startModelServer(scriptByTurn([bashCall("echo hi"), finalText("done")]));
  const client = createAnthropicClient({ apiKey: "sk-ant-test-record", baseURL: server.url });
  // defaultRunOptions names the oracle (here with a fallback's reason); the agent that runs is the anthropic one.
  const options = defaultRunOptions({
    outDir: makeTempDir("ltt-record-"),
    model: "claude-haiku-4-5",
    agentReason: "no ANTHROPIC_API_KEY set; this run used no model",
  });
  expect(options.agent).toBe("oracle");
  const { report } = await runSuite([makeScenario({ id: "say-hi", task: "say hi", trials: 1 })], options, {
    agent: createAnthropicAgent(client),
    env: { PATH: process.env.PATH },
  });
  expect(report.run.agent).toBe("anthropic");
  // The oracle's reason is not the anthropic agent's.
  expect(report.run.agent_reason).toBeUndefined();
  expect(report.run.model).toBe("claude-haiku-4-5");
  expect(report.summary.trials).toBe(1);
  expect(server.requests.length).toBe(2);
});
