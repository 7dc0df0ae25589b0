type ScenarioIdentity = {
  id: string;
  variant: string | null | undefined;
  model?: string | null | undefined;
};

/**
 * A scenario's key in reports, plans and comparisons: `id`, or `id@variant` when it ran a named
 * variant, then `~model` in a run across several models (a model matrix), so each model's trials
 * are a scenario of their own and compare with the same model's baseline.
 */
export function scenarioKey(scenario: ScenarioIdentity): string {
  return joinIdentity(scenario, "@", "~");
}

/** The same key spaced for a reader of report.md: `id @ variant ~ model`. */
export function scenarioName(scenario: ScenarioIdentity): string {
  return joinIdentity(scenario, " @ ", " ~ ");
}

function joinIdentity(scenario: ScenarioIdentity, variantMark: string, modelMark: string): string {
  const base = scenario.variant ? `${scenario.id}${variantMark}${scenario.variant}` : scenario.id;
  return scenario.model ? `${base}${modelMark}${scenario.model}` : base;
}
