/** Selecting scenarios for a run: `--tags` (any of), `--tier N` (tier <= N), explicit ids. */
import type { Scenario } from "./types.js";

export interface ScenarioFilter {
  /** Keep scenarios with at least one of these tags. */
  tags?: string[];
  /** Keep scenarios whose tier is <= this. */
  tier?: number;
  /** Keep only these ids. */
  ids?: string[];
}

export function filterScenarios(scenarios: Scenario[], filter: ScenarioFilter): Scenario[] {
  const tags = filter.tags && filter.tags.length > 0 ? new Set(filter.tags) : undefined;
  const ids = filter.ids && filter.ids.length > 0 ? new Set(filter.ids) : undefined;
  return scenarios.filter(
    (scenario) =>
      (!tags || scenario.tags.some((tag) => tags.has(tag))) &&
      (filter.tier === undefined || scenario.tier <= filter.tier) &&
      (!ids || ids.has(scenario.id)),
  );
}
