type ScenarioIdentity = {
  id: string;
  variant: string | null | undefined;
  model?: string | null | undefined;
  /** The agent, in a run across several agents (an agent matrix); absent otherwise. */
  agent?: string | null | undefined;
};

/**
 * A scenario's key in reports, plans and comparisons: `id`, or `id@variant` when it ran a named
 * variant, then `~model` in a run across several models (a model matrix), or `~agent/model` in a
 * run across several agents (`~agent` alone for an agent without a model, the oracle's), so each
 * matrix entry's trials are a scenario of their own and compare with the same entry's baseline.
 * Agent names hold no `/`, so the first `/` after the `~` always ends the agent.
 */
export function scenarioKey(scenario: ScenarioIdentity): string {
  return joinIdentity(scenario, "@", "~", "/");
}

/** The same key spaced for a reader of report.md: `id @ variant ~ model`, `id ~ agent · model`. */
export function scenarioName(scenario: ScenarioIdentity): string {
  return joinIdentity(scenario, " @ ", " ~ ", " · ");
}

/**
 * A matrix entry's name as every report shows it: the model in a model matrix, `agent · model`
 * (or the agent alone, for one without a model) in an agent matrix.
 */
export function matrixEntryLabel(entry: { agent?: string | null; model?: string | null }): string {
  if (!entry.agent) return entry.model ?? "";
  return entry.model ? `${entry.agent} · ${entry.model}` : entry.agent;
}

function joinIdentity(
  scenario: ScenarioIdentity,
  variantMark: string,
  entryMark: string,
  agentMark: string,
): string {
  const base = scenario.variant ? `${scenario.id}${variantMark}${scenario.variant}` : scenario.id;
  if (scenario.agent) {
    const entry = scenario.model ? `${scenario.agent}${agentMark}${scenario.model}` : scenario.agent;
    return `${base}${entryMark}${entry}`;
  }
  return scenario.model ? `${base}${entryMark}${scenario.model}` : base;
}
