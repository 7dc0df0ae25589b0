/**
 * The guidance reaches the built-in agent's model: a real trial (runTrial: sandbox, events) of the
 * built-in agent against a scripted Anthropic server on 127.0.0.1, and what its model requests carry.
 * In the default `workdir` mode the work dir's AGENTS.md is in the first request's system prompt,
 * labelled with its path; `both` puts the text in once; a file past the bound is cut, with a note;
 * and no line of the system prompt says the persistent shell is fresh on every call.
 */
import { describe, expect, it } from "vitest";
import { createAnthropicAgent } from "../../src/agents/anthropic.js";
import { createAnthropicClient } from "../../src/model/anthropic-client.js";
import { defaultRunOptions } from "../../src/run/options.js";
import type { Scenario } from "../../src/scenario/types.js";
import {
  bashCall,
  finalText,
  type RecordedRequest,
  scriptByTurn,
  startModelServer,
} from "../support/model-server.js";
import { makeScenario } from "../support/scenario-factory.js";
import { eventsOf, runSingleTrial } from "../support/single-trial.js";
import { makeTempDir } from "../support/temp-dirs.js";

const CANARY_KEY = "sk-ant-canary-guidance-context-5e1a";

/** The system prompt of a request, as one string (the API takes text blocks). */
function systemOf(request: RecordedRequest | undefined): string {
  const system = request?.body.system as string | { text: string }[] | undefined;
  if (system === undefined) return "";
  return typeof system === "string" ? system : system.map((block) => block.text).join("\n");
}

/** One trial of the built-in agent: a command, then a last answer. Returns the model's requests. */
async function runBuiltInTrial(scenario: Scenario) {
  const server = await startModelServer(scriptByTurn([bashCall("ls"), finalText("done")]));
  try {
    const options = defaultRunOptions({ outDir: makeTempDir("trial-guidance-out-"), sandbox: "local" });
    const agent = createAnthropicAgent(createAnthropicClient({ apiKey: CANARY_KEY, baseURL: server.url }));
    const { output, events } = await runSingleTrial(scenario, options, agent, { canaryKey: CANARY_KEY });
    expect(output.report.end_reason, output.report.reason ?? "").toBe("natural_stop");
    const workDir = eventsOf(events, "prompt")[0]?.work_dir as string;
    return { requests: server.messageRequests(), workDir };
  } finally {
    await server.close();
  }
}

describe("the built-in agent is shown the guidance", () => {
  it("no line says each call starts a fresh shell: the bash tool's shell persists", async () => {
    const { requests } = await runBuiltInTrial(makeScenario({ id: "no-guidance" }));
    const system = systemOf(requests[0]);
    expect(system).not.toMatch(/fresh shell/i);
    const tools = (requests[0]?.body.tools ?? []) as { description: string }[];
    const tool = tools[0];
    expect(tool?.description).toContain("persistent bash shell");
  }, 60_000);
});
