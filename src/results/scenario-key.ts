/**
 * A scenario's key in reports, plans and comparisons: `id`, or `id@variant` when it ran a named
 * variant, then `~model` in a run across several models (a model matrix), so each model's trials
 * are a scenario of their own and compare with the same model's baseline.
 */
export function scenarioKey(scenario: {
  id: string;
  variant: string | null | undefined;
  model?: string | null | undefined;
}): string {
  const base = scenario.variant ? `${scenario.id}@${scenario.variant}` : scenario.id;
  return scenario.model ? `${base}~${scenario.model}` : base;
}
