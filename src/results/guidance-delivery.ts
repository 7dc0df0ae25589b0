/**
 * How a scenario's guidance reaches an agent's model, from what the agent takes (GuidanceIntake)
 * and the guidance's mode. One answer for the report, the comment's warning and the harness, which
 * loads the work dir's AGENTS.md into the system prompt only where the answer says it does.
 */
import type { GuidanceIntake } from "../agents/types.js";
import type { GuidanceMode } from "../scenario/types.js";
import type { GuidanceDelivery, TrialReport } from "./types.js";

export function guidanceDelivery(intake: GuidanceIntake, mode: GuidanceMode): GuidanceDelivery {
  // In `system` and `both` modes the text is in the system prompt: shown to whoever gets that.
  if (mode !== "workdir" && intake.systemPrompt) return "system_prompt";
  // Only `system` mode keeps the file out of the work dir.
  if (mode === "system") return "not_shown";
  return WORK_DIR_FILE_DELIVERY[intake.workDirFile];
}

const WORK_DIR_FILE_DELIVERY: Record<GuidanceIntake["workDirFile"], GuidanceDelivery> = {
  harness: "system_prompt",
  cli: "cli_context_file",
  unknown: "work_dir_only",
  none: "not_shown",
};

/** Whether the harness puts the work dir's AGENTS.md in the system prompt: only for an agent it does that for, and not in `both` mode, where the same text is there already. */
export function harnessLoadsWorkDirGuidance(intake: GuidanceIntake, mode: GuidanceMode | null): boolean {
  return intake.workDirFile === "harness" && mode !== "both";
}

/**
 * The intake as the trials found it: an agent CLI that read a context file of the work dir's own
 * instead of AGENTS.md (a trial's `guidance_not_shown`) was not shown the work dir's file.
 */
export function intakeSeenInTrials(
  intake: GuidanceIntake,
  trials: readonly Pick<TrialReport, "guidance_not_shown">[],
): GuidanceIntake {
  return trials.some((trial) => trial.guidance_not_shown) ? { ...intake, workDirFile: "none" } : intake;
}
