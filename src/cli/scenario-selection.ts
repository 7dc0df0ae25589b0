/** The scenario paths and filters that run, list and validate read the same way. */
import { filterScenarios } from "../scenario/filter.js";
import { loadScenarios } from "../scenario/load.js";
import { expandScenarioPatterns, type ScenarioPatterns } from "../scenario/patterns.js";
import type { Scenario } from "../scenario/types.js";
import { type OptionSpec, type ParsedArgs, readInteger, readList } from "./args.js";
import type { CliIo } from "./command.js";

/** `--tags` and `--tier`, the filters of every command that selects scenarios. */
export const FILTER_OPTIONS: OptionSpec = {
  tags: { type: "string", multiple: true },
  tier: { type: "string" },
};

/**
 * The positional paths, globs and `!pattern` exclusions, expanded as the action's `scenarios`
 * input is (relative to `cwd`); ./scenarios when none is given.
 */
export function readScenarioPatterns(positionals: string[], cwd: string): Promise<ScenarioPatterns> {
  return expandScenarioPatterns(positionals, cwd, "the scenario paths");
}

/** `--tags a,b` (repeatable) and `--tier N`. */
export function readFilterFlags(values: ParsedArgs["values"]): { tags: string[]; tier: number | null } {
  return { tags: readList(values, "tags"), tier: readInteger(values, "tier", 0) ?? null };
}

/**
 * "N scenario(s)", and with variants how many a run counts: a run (its progress, summary, report
 * and comment) counts each scenario@variant as one scenario.
 */
export function describeScenarioCount(scenarios: Scenario[]): string {
  const entries = scenarios.reduce((n, s) => n + Math.max(1, s.variants.length), 0);
  const perVariant = entries === scenarios.length ? "" : ` (${entries} scenario@variant entries in a run)`;
  return `${scenarios.length} scenario(s)${perVariant}`;
}

export async function loadSelected(
  positionals: string[],
  values: ParsedArgs["values"],
  io: CliIo,
): Promise<{ all: Scenario[]; selected: Scenario[] }> {
  const { paths, exclude } = await readScenarioPatterns(positionals, io.cwd);
  const all = await loadScenarios(paths, {
    cwd: io.cwd,
    exclude,
    onWarning: (message) => io.stderr.write(`warning: ${message}\n`),
  });
  const { tags, tier } = readFilterFlags(values);
  const selected = filterScenarios(all, {
    ...(tags.length ? { tags } : {}),
    ...(tier !== null ? { tier } : {}),
  });
  return { all, selected };
}
