/**
 * Every key the scenario and rubric formats accept. The loader validates against these lists and a
 * test checks that schema/scenario.schema.json and schema/rubric.schema.json name exactly the same
 * keys, so the published schema cannot drift from the loader.
 */
import { GATES, type GateParamKind } from "../evaluate/gates.js";
import type { GateType } from "./types.js";

export const SCENARIO_KEYS = [
  "name",
  "description",
  "category",
  "tags",
  "tier",
  "task",
  "system",
  "fixture",
  "files",
  "setup",
  "guidance",
  "variants",
  "target",
  "agent",
  "solution",
  "evaluation",
  "trials",
  "sandbox",
  "network",
] as const;

export const GUIDANCE_KEYS = ["file", "mode"] as const;
export const GUIDANCE_MODES = ["workdir", "system", "both"] as const;
export const VARIANT_KEYS = ["name", "guidance", "env"] as const;
export const TARGET_KEYS = ["binary", "command_pattern", "global_options", "env"] as const;
export const AGENT_KEYS = ["model", "max_turns", "timeout", "command_timeout"] as const;
export const EVALUATION_KEYS = ["gates", "judge", "composite"] as const;
export const JUDGE_KEYS = ["enabled", "rubric", "pass_threshold", "model"] as const;
export const COMPOSITE_KEYS = ["gate_weight", "judge_weight", "interaction_weight"] as const;
export const SANDBOX_SETTINGS = ["auto", "local", "bwrap"] as const;

/** Keys every `type:` gate accepts besides its own parameters. */
export const GATE_COMMON_KEYS = ["type", "weight", "description"] as const;
/** A bashkit-style gate written in YAML: `{check: "exit_code:0", weight?, description?}`. */
export const CHECK_GATE_KEYS = ["check", "weight", "description"] as const;

export type { GateParamKind };

/** The parameters of each gate type, all required (defined with each gate's evaluator). */
export const GATE_PARAMS = Object.fromEntries(
  Object.entries(GATES).map(([type, definition]) => [type, definition.params]),
) as Record<GateType, Readonly<Record<string, GateParamKind>>>;

export const GATE_TYPES = Object.keys(GATE_PARAMS) as GateType[];

/** bashkit-eval check types (`type:value` strings), each mapped to the gate of the same name. */
export const BASHKIT_CHECK_TYPES = [
  "exit_code",
  "stdout_contains",
  "stdout_regex",
  "stderr_empty",
  "file_exists",
  "dir_exists",
  "file_contains",
  "file_line_regex",
  "tool_calls_min",
  "tool_calls_max",
  "llm_judge",
] as const;

export const RUBRIC_KEYS = ["criteria", "output"] as const;
export const CRITERION_KEYS = ["id", "weight", "description"] as const;

/** bashkit-eval JSONL task keys: required ones first, then the optional ones this loader maps. */
export const BASHKIT_TASK_KEYS = [
  "id",
  "category",
  "description",
  "system",
  "prompt",
  "files",
  "expectations",
  "mode",
  "difficulty",
  "max_turns",
  "setup",
] as const;
export const BASHKIT_EXPECTATION_KEYS = ["check", "weight"] as const;
