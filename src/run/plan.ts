import { createHash } from "node:crypto";
import { agentUsesModel } from "../agents/registry.js";
import type { AgentName } from "../agents/types.js";
import { scenarioKey } from "../results/scenario-key.js";
import type { Scenario, Variant } from "../scenario/types.js";
import { DEFAULT_MODEL, type RunOptions } from "./options.js";

/** One trial to run: a scenario, one of its variants (or none), its agent and model, and the trial number (1-based). */
export interface PlannedTrial {
  /** `id`, `id@variant`, `~model` in a model matrix or `~agent/model` in an agent matrix, then `#n`: unique within a run, stable across runs. */
  key: string;
  scenarioKey: string;
  scenario: Scenario;
  variant: Variant | null;
  /** The agent that runs it: the run's one agent, or one of an agent matrix's. */
  agent: AgentName;
  /** The model the agent is given: the scenario's pinned `agent.model`, else one of the run's (or its agent's) models. */
  model: string;
  /** Whether the run is a matrix (several models or agents): the key and the report name the entry. */
  inMatrix: boolean;
  /** Whether the run is an agent matrix (several agents): the key and the report name the agent too. */
  inAgentMatrix: boolean;
  trial: number;
}

/** One entry of a matrix: an agent and a model it runs with. */
export interface MatrixEntry {
  agent: AgentName;
  model: string;
}

/**
 * The model settings of a list of model ids as given (`--model` repeated, the action's `models`):
 * duplicates dropped, the first is the run's model, two or more make a matrix. Empty: the default.
 */
export function settleModels(ids: readonly string[]): Pick<RunOptions, "model" | "models"> {
  const unique = [...new Set(ids)];
  return { model: unique[0] ?? DEFAULT_MODEL, models: unique.length > 1 ? unique : [] };
}

/** The run's models: `--model` given several times makes a matrix; none given, the default. */
export function runModels(options: Partial<Pick<RunOptions, "model" | "models">>): string[] {
  return options.models && options.models.length > 0 ? options.models : [options.model ?? DEFAULT_MODEL];
}

/** The run's agents: an agent matrix's, else its one agent. */
export function runAgents(
  options: Pick<RunOptions, "agent"> & Partial<Pick<RunOptions, "agents">>,
): AgentName[] {
  return options.agents && options.agents.length > 1 ? options.agents : [options.agent];
}

/** Whether the run is an agent matrix (two or more agents). */
export function isAgentMatrix(options: Partial<Pick<RunOptions, "agents">>): boolean {
  return (options.agents?.length ?? 0) > 1;
}

/**
 * The models one agent of the run is given: its own (an agent matrix's `--model AGENT=ID`), else
 * the run's. In an agent matrix an agent without a model (the oracle) runs once, with the first.
 */
export function modelsOfAgent(
  agent: AgentName,
  options: Partial<Pick<RunOptions, "model" | "models" | "agents" | "agentModels">>,
): string[] {
  const own = options.agentModels?.[agent];
  const models = own && own.length > 0 ? own : runModels(options);
  return isAgentMatrix(options) && !agentUsesModel(agent) ? models.slice(0, 1) : models;
}

/** Every (agent, model) entry of the run, in the order given: agents first, then each agent's models. */
export function runEntries(
  options: Pick<RunOptions, "agent"> &
    Partial<Pick<RunOptions, "agents" | "agentModels" | "model" | "models">>,
): MatrixEntry[] {
  return runAgents(options).flatMap((agent) =>
    modelsOfAgent(agent, options).map((model) => ({ agent, model })),
  );
}

/**
 * scenario × variant × entry (agent, model) × trial, every combination with the same trials (a
 * scenario whose `agent.model` pins a model runs with that one only, once per agent); with a
 * shard, a stable balanced share.
 */
export function planTrials(
  scenarios: Scenario[],
  options: Pick<RunOptions, "trials" | "shard"> &
    Partial<Pick<RunOptions, "agent" | "agents" | "agentModels" | "model" | "models">>,
): PlannedTrial[] {
  const agentMatrix = isAgentMatrix(options);
  const entries = runEntries({ ...options, agent: options.agent ?? "oracle" });
  const inMatrix = agentMatrix || runModels(options).length > 1;
  const all: PlannedTrial[] = [];
  for (const scenario of scenarios) {
    const variants: (Variant | null)[] = scenario.variants.length > 0 ? scenario.variants : [null];
    const count = scenario.trials ?? options.trials;
    const pinned = scenario.agent.model;
    const scenarioEntries = pinned ? pinnedEntries(entries, pinned) : entries;
    for (const variant of variants) {
      for (const { agent, model } of scenarioEntries) {
        const key = scenarioKey({
          id: scenario.id,
          variant: variant?.name,
          model: inMatrix && (!agentMatrix || agentUsesModel(agent)) ? model : null,
          agent: agentMatrix ? agent : null,
        });
        for (let trial = 1; trial <= count; trial++) {
          all.push({
            key: `${key}#${trial}`,
            scenarioKey: key,
            scenario,
            variant,
            agent,
            model,
            inMatrix,
            inAgentMatrix: agentMatrix,
            trial,
          });
        }
      }
    }
  }
  if (!options.shard) return all;
  const { index, count } = options.shard;
  // Order by a hash of the key, then deal round-robin: balanced to within one trial, and
  // independent of file order, so every shard of a matrix computes the same split.
  const ranked = [...all].sort((a, b) => compareStrings(hashKey(a.key), hashKey(b.key)));
  const mine = new Set(ranked.filter((_, i) => i % count === index - 1).map((t) => t.key));
  return all.filter((t) => mine.has(t.key));
}

/** A pinned model replaces the run's: each agent runs it once. */
function pinnedEntries(entries: readonly MatrixEntry[], model: string): MatrixEntry[] {
  const agents = [...new Set(entries.map((entry) => entry.agent))];
  return agents.map((agent) => ({ agent, model }));
}

function hashKey(key: string): string {
  return createHash("sha256").update(key).digest("hex");
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A folder name for a scenario key that is safe on every filesystem. */
export function folderNameFor(scenarioKey: string): string {
  return scenarioKey.replace(/[^A-Za-z0-9._@-]+/g, "_");
}
