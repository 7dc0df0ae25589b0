import type { Scenario } from "../../src/scenario/types.js";

/** A minimal valid Scenario for unit tests that do not go through the loader. */
export function makeScenario(overrides: Partial<Scenario> = {}): Scenario {
  const id = overrides.id ?? "demo";
  return {
    id,
    category: "general",
    tags: [],
    tier: 1,
    task: "do the thing",
    files: {},
    setup: [],
    variants: [],
    target: { env: {} },
    agent: {},
    evaluation: { gates: [] },
    source: { file: `/scenarios/${id}.yaml`, line: 1, format: "yaml" },
    contentHash: `hash-${id}`,
    measurementHash: `measurement-${id}`,
    treatment: { guidance: null, variants: {}, tool: null },
    ...overrides,
  };
}
