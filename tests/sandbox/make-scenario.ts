import type { Scenario } from "../../src/scenario/types.js";
import type { EventInput, EventSink } from "../../src/transcript/events.js";

/** A minimal valid scenario; tests override what they exercise. */
export function makeScenario(overrides: Partial<Scenario> = {}): Scenario {
  return {
    id: "sandbox-test",
    category: "test",
    tags: [],
    tier: 1,
    task: "do the thing",
    files: {},
    setup: [],
    variants: [],
    target: { env: {} },
    agent: {},
    evaluation: { gates: [] },
    source: { file: "/scenarios/sandbox-test.yaml", line: 1, format: "yaml" },
    contentHash: "0".repeat(64),
    ...overrides,
  };
}

/** An EventSink that keeps what it is given. */
export function createEventRecorder(): EventSink & { events: EventInput[] } {
  const events: EventInput[] = [];
  return { events, emit: (event) => void events.push(event) };
}
