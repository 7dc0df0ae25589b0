import { summarizeRun } from "../results/aggregate.js";
import { matrixEntryLabel } from "../results/scenario-key.js";
import type { Report, ScenarioReport } from "../results/types.js";
import { compareReports } from "./compare.js";
import type { CompareOptions, Comparison } from "./types.js";

export interface VariantComparison {
  base: string;
  head: string;
  /**
   * In a matrix, the entry both variants ran with (each entry's variants are compared apart): the
   * model, or `agent · model` in an agent matrix; else null.
   */
  model: string | null;
  comparison: Comparison;
}

/** A scenario's matrix entry (its model, or `agent · model` in an agent matrix); null outside a matrix. */
function entryOf(scenario: ScenarioReport): string | null {
  if (!scenario.agent && !scenario.model) return null;
  return matrixEntryLabel({ agent: scenario.agent ?? null, model: scenario.model ?? null });
}

/**
 * The part of a report that ran one variant (with one entry, in a matrix), with the variant folded
 * into the scenario id's place, and the run naming that one agent and model.
 */
function variantSlice(report: Report, variant: string, entry: string | null, ids: Set<string>): Report {
  const slice = report.scenarios.filter(
    (s) => s.variant === variant && entryOf(s) === entry && ids.has(s.id),
  );
  const scenarios = slice.map(({ agent: _agent, model: _model, ...s }) => ({ ...s, variant: null }));
  const { models: _models, agents: _agents, entries: _entries, ...run } = report.run;
  const first = slice[0];
  return {
    ...report,
    run: entry ? { ...run, agent: first?.agent ?? run.agent, model: first?.model ?? null } : report.run,
    scenarios,
    summary: summarizeRun(scenarios),
  };
}

/**
 * Guidance variants of one run, side by side with the same statistics as a baseline comparison:
 * each scenario's first variant is the reference, every other variant is compared with it over
 * the scenarios that ran both. In a model matrix each model's variants are compared apart, so a
 * comparison never sets a model (or a variant) against itself.
 */
export function compareVariants(report: Report, options: CompareOptions = {}): VariantComparison[] {
  const variantsByScenario = new Map<string, { id: string; model: string | null; variants: string[] }>();
  for (const scenario of report.scenarios) {
    if (scenario.variant === null) continue;
    const model = entryOf(scenario);
    const key = `${scenario.id}\u0000${model ?? ""}`;
    const entry = variantsByScenario.get(key) ?? { id: scenario.id, model, variants: [] };
    if (!entry.variants.includes(scenario.variant)) entry.variants.push(scenario.variant);
    variantsByScenario.set(key, entry);
  }
  const pairs = new Map<string, { base: string; head: string; model: string | null; ids: Set<string> }>();
  for (const { id, model, variants } of variantsByScenario.values()) {
    const [reference, ...others] = variants;
    if (reference === undefined) continue;
    for (const other of others) {
      const key = `${reference}\u0000${other}\u0000${model ?? ""}`;
      const pair = pairs.get(key) ?? { base: reference, head: other, model, ids: new Set<string>() };
      pair.ids.add(id);
      pairs.set(key, pair);
    }
  }
  return [...pairs.values()].map(({ base, head, model, ids }) => ({
    base,
    head,
    model,
    comparison: compareReports(
      variantSlice(report, base, model, ids),
      variantSlice(report, head, model, ids),
      {
        ...options,
        sources: { base: `variant ${base}`, head: `variant ${head}` },
      },
    ),
  }));
}
