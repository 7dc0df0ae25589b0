/** A scenario's key in reports, plans and comparisons: `id`, or `id@variant` when it ran a named variant. */
export function scenarioKey(scenario: { id: string; variant: string | null | undefined }): string {
  return scenario.variant ? `${scenario.id}@${scenario.variant}` : scenario.id;
}
