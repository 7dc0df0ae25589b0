/**
 * What the CLI's positional paths and the action's `scenarios` input both take: paths, globs
 * (`scenarios/**\/*.yaml`, `suites/{a,b}`) and `!pattern` exclusions (`!scenarios/slow/**`),
 * expanded by tinyglobby. Paths are kept as given (the loader walks folders); globs become the
 * files and folders they match; exclusions become the files the loader leaves out wherever they
 * came from, a folder named by path included. The one owner of tinyglobby.
 */
import { stat } from "node:fs/promises";
import path from "node:path";
import { glob, isDynamicPattern } from "tinyglobby";
import { ConfigError } from "../errors.js";

/** What both front ends run when no path is given (or only exclusions are). */
const DEFAULT_SCENARIO_PATH = "scenarios";

/** Never worth walking, and never scenarios. */
const ALWAYS_IGNORED = ["**/node_modules", "**/.git"];

export interface ScenarioPatterns {
  /** Paths as given and the globs' matches (absolute), for loadScenarios. */
  paths: string[];
  /** Absolute files the exclusions match: loadScenarios leaves them out. */
  exclude: string[];
}

/**
 * Expands `entries` relative to `cwd`. `source` names where they came from in the error when a
 * glob matches nothing (`input "scenarios"`, `the scenario paths`).
 */
export async function expandScenarioPatterns(
  entries: readonly string[],
  cwd: string,
  source: string,
): Promise<ScenarioPatterns> {
  const exclusions = entries.filter((entry) => entry.startsWith("!")).map((entry) => entry.slice(1));
  const given = entries.filter((entry) => !entry.startsWith("!"));
  const includes = given.length > 0 ? given : [DEFAULT_SCENARIO_PATH];
  const paths: string[] = [];
  for (const pattern of includes) {
    // A file whose name only looks like a glob (`a[1].yaml`) is that file.
    if (!isDynamicPattern(pattern) || (await exists(path.resolve(cwd, pattern)))) {
      paths.push(pattern);
      continue;
    }
    const matches = await glob(pattern, {
      cwd,
      absolute: true,
      onlyFiles: false,
      expandDirectories: false,
      ignore: [...exclusions, ...ALWAYS_IGNORED],
    });
    if (matches.length === 0) {
      const after =
        exclusions.length > 0 ? ` once ${exclusions.map((e) => `"!${e}"`).join(", ")} left out` : "";
      throw new ConfigError(
        `${source}: the pattern ${JSON.stringify(pattern)} matches no file under ${cwd}${after}`,
      );
    }
    paths.push(...matches.map(withoutTrailingSlash).sort());
  }
  const exclude =
    exclusions.length === 0
      ? []
      : // A folder excludes everything in it (expandDirectories), as it does in `ignore` above.
        await glob(exclusions, { cwd, absolute: true, dot: true, ignore: ALWAYS_IGNORED });
  return { paths, exclude: exclude.sort() };
}

function withoutTrailingSlash(file: string): string {
  return file.length > 1 && file.endsWith("/") ? file.slice(0, -1) : file;
}

async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  );
}
