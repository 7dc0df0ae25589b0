/** A loaded Scenario for tests, with only what a test sets differing from plain defaults. */
import type { Scenario } from "../../src/scenario/types.js";

export function buildScenario(overrides: Partial<Scenario> = {}): Scenario {
  return {
    id: "create_and_link",
    category: "capture",
    tags: [],
    tier: 1,
    task: "Create two notes about distributed systems and link them.",
    files: {},
    setup: [],
    variants: [],
    target: { binary: "my-tool", commandPattern: "my-tool\\s+(\\S+)", env: {} },
    agent: {},
    evaluation: { gates: [] },
    source: { file: "/suite/create_and_link.yaml", line: 1, format: "yaml" },
    contentHash: "0".repeat(64),
    ...overrides,
  };
}
