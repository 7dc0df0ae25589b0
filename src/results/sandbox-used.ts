/**
 * The sandboxes a run's trials really ran in (`auto` resolved): part of what a run measured, so a
 * run that fell back to the local sandbox is never pooled with bwrap runs.
 */
import type { SandboxMode } from "../scenario/types.js";
import type { RunInfo, ScenarioReport, TrialReport } from "./types.js";

/** The distinct sandboxes of these trials, sorted; trials that never got one do not count. */
export function collectSandboxesUsed(trials: Iterable<Pick<TrialReport, "sandbox">>): SandboxMode[] {
  const modes = new Set<SandboxMode>();
  for (const trial of trials) if (trial.sandbox) modes.add(trial.sandbox);
  return [...modes].sort();
}

/** `sandbox_used` for a RunInfo: absent when no trial got a sandbox (nothing to say). */
export function sandboxUsedField(modes: SandboxMode[]): { sandbox_used?: SandboxMode[] } {
  return modes.length > 0 ? { sandbox_used: modes } : {};
}

/**
 * What a run (or a planned run) says about its sandboxes: `run.sandbox_used`, else its trials'
 * `sandbox` (reports written before the field); null when unknown (older reports: compatible).
 */
export function readSandboxesUsed(source: {
  run: Pick<RunInfo, "sandbox_used">;
  scenarios?: readonly Pick<ScenarioReport, "trials">[] | readonly object[];
}): SandboxMode[] | null {
  if (source.run.sandbox_used && source.run.sandbox_used.length > 0)
    return [...source.run.sandbox_used].sort();
  const trials = (source.scenarios ?? []).flatMap((scenario) =>
    "trials" in scenario ? (scenario as Pick<ScenarioReport, "trials">).trials : [],
  );
  const modes = collectSandboxesUsed(trials);
  return modes.length > 0 ? modes : null;
}
