import { summarizeRun } from "../results/aggregate.js";
import type { Report } from "../results/types.js";
import { compareReports } from "./compare.js";
import type { CompareOptions, Comparison } from "./types.js";

export interface VariantComparison {
  base: string;
  head: string;
  comparison: Comparison;
}

/** The part of a report that ran one variant, with the variant folded into the scenario id's place. */
function variantSlice(report: Report, variant: string, ids: Set<string>): Report {
  const scenarios = report.scenarios
    .filter((s) => s.variant === variant && ids.has(s.id))
    .map((s) => ({ ...s, variant: null }));
  return { ...report, scenarios, summary: summarizeRun(scenarios) };
}

/**
 * Guidance variants of one run, side by side with the same statistics as a baseline comparison:
 * each scenario's first variant is the reference, every other variant is compared with it over
 * the scenarios that ran both.
 */
export function compareVariants(report: Report, options: CompareOptions = {}): VariantComparison[] {
  const variantsById = new Map<string, string[]>();
  for (const scenario of report.scenarios) {
    if (scenario.variant === null) continue;
    const list = variantsById.get(scenario.id) ?? [];
    list.push(scenario.variant);
    variantsById.set(scenario.id, list);
  }
  const pairs = new Map<string, { base: string; head: string; ids: Set<string> }>();
  for (const [id, variants] of variantsById) {
    const [reference, ...others] = variants;
    if (reference === undefined) continue;
    for (const other of others) {
      const key = `${reference}\u0000${other}`;
      const pair = pairs.get(key) ?? { base: reference, head: other, ids: new Set<string>() };
      pair.ids.add(id);
      pairs.set(key, pair);
    }
  }
  return [...pairs.values()].map(({ base, head, ids }) => ({
    base,
    head,
    comparison: compareReports(variantSlice(report, base, ids), variantSlice(report, head, ids), {
      ...options,
      sources: { base: `variant ${base}`, head: `variant ${head}` },
    }),
  }));
}
