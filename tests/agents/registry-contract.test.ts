/**
 * The contract every agent of the registry keeps, run against each entry, so adding an agent is
 * its descriptor and its own file: nothing here names an agent.
 */
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { readActionSettings } from "../../src/action/inputs.js";
import {
  AGENT_NAMES,
  AGENTS,
  type AgentDescriptor,
  agentApiKeyVariable,
  createAgent,
  describeModelRefusal,
  resolveAgentName,
} from "../../src/agents/registry.js";
import type { ModelClient } from "../../src/model/model-client.js";
import { API_KEY_VARIABLES, PROVIDERS } from "../../src/model/provider.js";
import { checkModelProviders } from "../../src/run/prepare.js";
import { configErrorOf } from "../support/config-error.js";
import { markdownTableRows, readRepositoryFile, readUserDocs } from "../support/docs-text.js";
import { makeScenario } from "../support/scenario-factory.js";

/** A model client the agents are built with and never call here. */
const unusedModelClient: ModelClient = {
  createMessage: async () => {
    throw new Error("not called");
  },
};
const descriptorOf = (name: (typeof AGENT_NAMES)[number]): AgentDescriptor => AGENTS[name];
const docs = readUserDocs();
/** The README's "## Agents" section: a newcomer's list of every agent. */
const readmeAgents = /^## Agents\n([\s\S]*?)^## /m.exec(readRepositoryFile("README.md"))?.[1] ?? "";
const agentInput = (parse(readRepositoryFile("action.yml")) as { inputs: { agent: { description: string } } })
  .inputs.agent.description;

describe.each(AGENT_NAMES)("the agent %s", (name) => {
  const descriptor = descriptorOf(name);

  it("describes itself in one short line and answers to its name and aliases, which no other agent takes", () => {
    expect(descriptor.description.length).toBeGreaterThan(0);
    expect(descriptor.description.length).toBeLessThanOrEqual(60);
    for (const typed of [name, name.toUpperCase(), ...(descriptor.aliases ?? [])])
      expect(resolveAgentName(typed), typed).toBe(name);
  });

  it("is consistent: no model means no key, no API and no providers; its own key means it needs one", () => {
    if (!descriptor.usesModel) {
      expect(descriptor.needsApiKey).toBe(false);
      expect(descriptor.apis).toEqual([]);
      expect(descriptor.providers).toBeUndefined();
    }
    if (descriptor.apiKeyVariable !== undefined) {
      expect(descriptor.needsApiKey).toBe(true);
      expect(descriptor.providers).toBeUndefined();
    }
  });

  it("without what it needs, says so in a ConfigError naming the flag or the key", () => {
    let created: unknown;
    try {
      created = createAgent(name, { env: { PATH: "/nonexistent" } });
    } catch (error) {
      const message = configErrorOf(() => {
        throw error;
      }).message;
      if (descriptor.needsApiKey) {
        const providers = descriptor.providers ?? PROVIDERS;
        const variables = [agentApiKeyVariable(name) ?? providers.map((p) => API_KEY_VARIABLES[p])].flat();
        expect(message).toContain(`the ${name} agent needs an API key`);
        expect(
          variables.some((variable) => message.includes(variable)),
          message,
        ).toBe(true);
      } else {
        expect(message).toMatch(/--[a-z-]+/);
      }
      return;
    }
    // Only an agent that needs nothing is built from nothing.
    expect(descriptor.needsApiKey).toBe(false);
    expect((created as { name: string }).name).toBe(name);
  });

  it("is built from the harness's model client alone exactly when its descriptor says it calls models through it", () => {
    if (!descriptor.needsApiKey) return;
    const fromClient = () =>
      createAgent(name, { modelClient: unusedModelClient, env: { PATH: "/nonexistent" } });
    if (descriptor.harnessModelClient) expect(fromClient().name).toBe(name);
    else expect(fromClient).toThrow(`the ${name} agent needs an API key`);
  });

  it("runs the models of its providers and refuses the others' with a clear error", () => {
    const keys = { anthropic: "k", openai: "k" };
    const scenario = makeScenario({ id: "s" });
    for (const provider of PROVIDERS) {
      const model = `${provider}:some-model`;
      const runs = descriptor.providers === undefined || descriptor.providers.includes(provider);
      const refusal = describeModelRefusal(name, model);
      if (runs || descriptor.apiKeyVariable !== undefined || !descriptor.needsApiKey) {
        if (runs) expect(refusal, provider).toBeNull();
        continue;
      }
      expect(refusal, provider).toContain(`the ${name} agent runs`);
      expect(() => checkModelProviders([scenario], [model], name, keys), provider).toThrow(
        `--model: ${refusal}`,
      );
    }
  });

  it("is offered by the action's agent input and its description", () => {
    const read = (command: string) =>
      readActionSettings((input) => (input === "agent" ? name : input === "agent-command" ? command : ""));
    let settings: ReturnType<typeof readActionSettings>;
    try {
      settings = read("");
    } catch {
      // An agent built from a command template asks for the agent-command input, by name.
      expect(configErrorOf(() => read("")).message).toContain("agent-command");
      settings = read("my-agent {prompt}");
    }
    expect(settings.agent).toBe(name);
    expect(agentInput).toContain(`\`${name}\``);
  });

  it("is documented: in the CLI's --agent list, the action's agent input row and the guidance table", () => {
    expect(docs).toContain(`--agent ${AGENT_NAMES.join("|")}`);
    const agentRow = markdownTableRows(docs, "input").find((row) => row[0] === "`agent`");
    expect(agentRow?.join("|")).toContain(`\`${name}\``);
    const guidanceRows = markdownTableRows(docs, "agent").map((row) => row[0] ?? "");
    expect(guidanceRows.some((cell) => cell.includes(`\`${name}\``))).toBe(true);
  });

  it("is named in the README's Agents section", () => {
    expect(readmeAgents.length, 'no "## Agents" section in README.md').toBeGreaterThan(0);
    expect(readmeAgents).toContain(`\`${name}\``);
  });
});
