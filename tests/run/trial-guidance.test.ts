/**
 * The guidance reaches the built-in agent's model: a real trial (runTrial: sandbox, events) of the
 * built-in agent against a scripted Anthropic server on 127.0.0.1, and what its model requests carry.
 * In the default `workdir` mode the work dir's AGENTS.md is in the first request's system prompt,
 * labelled with its path; `both` puts the text in once; a file past the bound is cut, with a note;
 * and no line of the system prompt says the persistent shell is fresh on every call.
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createAnthropicAgent } from "../../src/agents/anthropic.js";
import type { Agent } from "../../src/agents/types.js";
import { createAnthropicClient } from "../../src/model/anthropic-client.js";
import { createOpenAiClient } from "../../src/model/openai-client.js";
import { defaultRunOptions } from "../../src/run/options.js";
import { MAX_WORK_DIR_GUIDANCE_BYTES } from "../../src/run/trial.js";
import type { GuidanceMode, Scenario } from "../../src/scenario/types.js";
import { bashCall, finalText, scriptByTurn, startModelServer, systemOf } from "../support/model-server.js";
import {
  openAiBashCall,
  openAiScriptByTurn,
  openAiText,
  startOpenAiServer,
} from "../support/openai-server.js";
import { makeScenario } from "../support/scenario-factory.js";
import { eventsOf, runSingleTrial } from "../support/single-trial.js";
import { makeTempDir } from "../support/temp-dirs.js";

const CANARY_KEY = "sk-ant-canary-guidance-context-5e1a";
const GUIDANCE = "# Using mytool\n\nAlways pass --json to mytool; it has no `list` subcommand.\n";

async function guidanceScenario(mode: GuidanceMode, text = GUIDANCE): Promise<Scenario> {
  const dir = makeTempDir("trial-guidance-scenario-");
  const file = path.join(dir, "docs/AGENTS.md");
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, text);
  return makeScenario({ id: `guided-${mode}`, task: "Use mytool.", guidance: { file, mode } });
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

const occurrences = (text: string, part: string) => text.split(part).length - 1;

describe("the built-in agent is shown the guidance", () => {
  it("workdir mode (the default): the first request's system prompt has AGENTS.md's text, labelled with its path", async () => {
    const { requests, workDir } = await runBuiltInTrial(await guidanceScenario("workdir"));
    const system = systemOf(requests[0]);
    expect(system).toContain("Always pass --json to mytool; it has no `list` subcommand.");
    expect(system).toContain(`${workDir}/AGENTS.md`);
    // The prompt cache's prefix: every turn sends the same system prompt.
    expect(requests).toHaveLength(2);
    expect(systemOf(requests[1])).toBe(system);
  }, 60_000);

  it("the built-in agent with an OpenAI model: the first Chat Completions request carries it too", async () => {
    const server = await startOpenAiServer(openAiScriptByTurn([openAiBashCall("ls"), openAiText("done")]));
    try {
      const options = defaultRunOptions({
        outDir: makeTempDir("trial-guidance-out-"),
        sandbox: "local",
        model: "gpt-4.1-mini",
      });
      const client = createOpenAiClient({ apiKey: CANARY_KEY, baseURL: server.url });
      const { output } = await runSingleTrial(
        await guidanceScenario("workdir"),
        options,
        createAnthropicAgent(client),
        { canaryKey: CANARY_KEY },
      );
      expect(output.report.end_reason, output.report.reason ?? "").toBe("natural_stop");
      const first = server.requests.find((request) => request.api === "chat");
      const system = JSON.stringify(
        ((first?.body.messages ?? []) as { role: string }[]).filter(
          (m) => m.role === "system" || m.role === "developer",
        ),
      );
      expect(system).toContain("Always pass --json to mytool");
      expect(system).toContain("/AGENTS.md");
    } finally {
      await server.close();
    }
  }, 60_000);

  it("both mode: the text is in the system prompt once", async () => {
    const { requests } = await runBuiltInTrial(await guidanceScenario("both"));
    expect(occurrences(systemOf(requests[0]), "Always pass --json to mytool")).toBe(1);
  }, 60_000);

  it("a file past the bound is cut, and the prompt says so and where the rest is", async () => {
    const long = `${GUIDANCE}${"filler line for a long guidance file\n".repeat(2000)}THE END\n`;
    expect(Buffer.byteLength(long)).toBeGreaterThan(MAX_WORK_DIR_GUIDANCE_BYTES);
    const { requests, workDir } = await runBuiltInTrial(await guidanceScenario("workdir", long));
    const system = systemOf(requests[0]);
    expect(system).toContain("Always pass --json to mytool");
    expect(system).not.toContain("THE END");
    expect(system).toContain(
      `only its first ${MAX_WORK_DIR_GUIDANCE_BYTES} bytes are shown here of ${Buffer.byteLength(long)}; read ${workDir}/AGENTS.md for the rest`,
    );
  }, 60_000);

  it("an agent CLI loads AGENTS.md itself: the harness does not put it in its system prompt too", async () => {
    let systemPrompt = "";
    // A stand-in for the claude-code agent: what its CLI would be given.
    const cliAgent: Agent = {
      name: "claude-code",
      run: async (context) => {
        systemPrompt = context.systemPrompt;
        return { reason: "natural_stop", turns: 0 };
      },
    };
    const options = defaultRunOptions({ outDir: makeTempDir("trial-guidance-out-"), sandbox: "local" });
    await runSingleTrial(await guidanceScenario("workdir"), options, cliAgent, { canaryKey: CANARY_KEY });
    expect(systemPrompt).toContain("You are working in a sandboxed directory");
    expect(systemPrompt).not.toContain("Always pass --json to mytool");
  }, 60_000);

  it("no line says each call starts a fresh shell: the bash tool's shell persists", async () => {
    const { requests } = await runBuiltInTrial(makeScenario({ id: "no-guidance" }));
    const system = systemOf(requests[0]);
    expect(system).not.toMatch(/fresh shell/i);
    const tools = (requests[0]?.body.tools ?? []) as { description: string }[];
    const tool = tools[0];
    expect(tool?.description).toContain("persistent bash shell");
  }, 60_000);
});
