import type { Scenario } from "../../src/scenario/types.js";
import type { EventInput, EventSink } from "../../src/transcript/events.js";
import { makeScenario as makeBaseScenario } from "../support/scenario-factory.js";

/** A minimal valid scenario; tests override what they exercise. */
export function makeScenario(overrides: Partial<Scenario> = {}): Scenario {
  return makeBaseScenario({
    id: "sandbox-test",
    category: "test",
    contentHash: "0".repeat(64),
    ...overrides,
  });
}

/** An EventSink that keeps what it is given. */
export function createEventRecorder(): EventSink & { events: EventInput[] } {
  const events: EventInput[] = [];
  return { events, emit: (event) => void events.push(event) };
}
