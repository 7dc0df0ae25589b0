import { summarizeRun } from "../results/aggregate.js";
import type { Report } from "../results/types.js";
import { compareReports } from "./compare.js";
import type { CompareOptions, Comparison } from "./types.js";

export interface VariantComparison {
  base: string;
  head: string;
  /** In a model matrix, the model both variants ran with (each model's variants are compared apart); else null. */
  model: string | null;
  comparison: Comparison;
}

/**
 * The part of a report that ran one variant (with one model, in a matrix), with the variant folded
 * into the scenario id's place, and the run naming that one model.
 */
function variantSlice(report: Report, variant: string, model: string | null, ids: Set<string>): Report {
  const scenarios = report.scenarios
    .filter((s) => s.variant === variant && (s.model ?? null) === model && ids.has(s.id))
    .map((s) => ({ ...s, variant: null }));
  const { models: _models, ...run } = report.run;
  return {
    ...report,
    run: model ? { ...run, model } : report.run,
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
    const model = scenario.model ?? null;
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
