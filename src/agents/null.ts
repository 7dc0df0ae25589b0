import type { Agent } from "./types.js";

/** Does nothing: a scenario whose gates pass with this agent is not testing the agent. */
export function createNullAgent(): Agent {
  return { name: "null", run: async () => ({ reason: "natural_stop", turns: 0 }) };
}
