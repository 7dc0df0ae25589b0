import { createHash } from "node:crypto";
import { scenarioKey } from "../results/scenario-key.js";
import type { Scenario, Variant } from "../scenario/types.js";
import { DEFAULT_MODEL, type RunOptions } from "./options.js";

/** One trial to run: a scenario, one of its variants (or none), its model, and the trial number (1-based). */
export interface PlannedTrial {
  /** `id`, `id@variant`, `~model` in a matrix, then `#n`: unique within a run, stable across runs. */
  key: string;
  scenarioKey: string;
  scenario: Scenario;
  variant: Variant | null;
  /** The model the agent is given: the scenario's pinned `agent.model`, else one of the run's models. */
  model: string;
  /** Whether the run is a model matrix (several models): the key and the report name the model. */
  inMatrix: boolean;
  trial: number;
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

/**
 * scenario × variant × model × trial, every combination with the same trials (a scenario whose
 * `agent.model` pins a model runs with that one only); with a shard, a stable balanced share.
 */
export function planTrials(
  scenarios: Scenario[],
  options: Pick<RunOptions, "trials" | "shard"> & Partial<Pick<RunOptions, "model" | "models">>,
): PlannedTrial[] {
  const models = runModels(options);
  const inMatrix = models.length > 1;
  const all: PlannedTrial[] = [];
  for (const scenario of scenarios) {
    const variants: (Variant | null)[] = scenario.variants.length > 0 ? scenario.variants : [null];
    const count = scenario.trials ?? options.trials;
    const scenarioModels = scenario.agent.model ? [scenario.agent.model] : models;
    for (const variant of variants) {
      for (const model of scenarioModels) {
        const key = scenarioKey({ id: scenario.id, variant: variant?.name, model: inMatrix ? model : null });
        for (let trial = 1; trial <= count; trial++) {
          all.push({ key: `${key}#${trial}`, scenarioKey: key, scenario, variant, model, inMatrix, trial });
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
