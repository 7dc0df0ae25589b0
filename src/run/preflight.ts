import { ConfigError } from "../errors.js";
import type { SandboxSelector } from "../sandbox/sandbox-selection.js";
import { resolveRealBinary } from "../sandbox/shim.js";
import type { SandboxSetting, Scenario } from "../scenario/types.js";
import { sandboxSettingOf } from "./options.js";

/**
 * Before anything runs: every target named by a bare command name must be on PATH, or every trial
 * of its scenarios would end in the same infrastructure error. (Targets given as paths may be
 * built by the scenario's setup, so they are checked per trial.)
 */
export async function checkTargetBinaries(scenarios: Scenario[], searchPath: string): Promise<void> {
  const missing = new Map<string, Scenario[]>();
  for (const scenario of scenarios) {
    const binary = scenario.target.binary;
    if (!binary || binary.includes("/")) continue;
    if (missing.has(binary)) {
      missing.get(binary)?.push(scenario);
      continue;
    }
    try {
      await resolveRealBinary(binary, searchPath);
    } catch {
      missing.set(binary, [scenario]);
    }
  }
  const problems = [...missing.entries()];
  if (problems.length === 0) return;
  const lines = problems.map(
    ([binary, list]) =>
      `target binary "${binary}" is not on PATH (needed by ${list.map((s) => `${s.id} in ${s.source.file}`).join(", ")})`,
  );
  throw new ConfigError(
    `${lines.join("; ")}. Install it, put it on PATH, or fix target.binary in the scenario; the shim records the tool's real invocations, so it must exist before the run starts.`,
  );
}

/**
 * bwrap is probed once before a run that needs it: an explicit `bwrap` that cannot work is one
 * clear error; `auto` settles here whether it runs in bwrap. Returns the selections' warnings (an
 * `auto` that fell back to the local sandbox), for the log.
 */
export async function checkSandbox(
  scenarios: Scenario[],
  override: SandboxSetting | null,
  selector: SandboxSelector,
): Promise<string[]> {
  const settings = new Set(scenarios.map((scenario) => sandboxSettingOf(scenario, override)));
  if (settings.has("bwrap")) {
    await selector.requireBwrap();
  }
  for (const setting of settings) await selector.select(setting);
  return selector.warnings();
}
