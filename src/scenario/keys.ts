/**
 * Lists other modules take from the formats: the sandbox settings (the CLI's and the action's
 * choices), each gate type's parameters, and the keys of a bashkit-eval JSONL task. The YAML
 * formats' own keys are format.ts's.
 */
import { GATES, type GateParamKind } from "../evaluate/gates.js";
import { SCENARIO } from "./format.js";
import type { GateType } from "./types.js";

export const SANDBOX_SETTINGS = SCENARIO.properties.sandbox.enum;

export type { GateParamKind };

/** The parameters of each gate type, all required (defined with each gate's evaluator). */
export const GATE_PARAMS = Object.fromEntries(
  Object.entries(GATES).map(([type, definition]) => [type, definition.params]),
) as Record<GateType, Readonly<Record<string, GateParamKind>>>;

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
