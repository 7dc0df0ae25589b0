/**
 * The published JSON Schemas (schema/scenario.schema.json, schema/rubric.schema.json) built from the
 * formats' one definition (format.ts). `npm run schemas`
 * writes them; tests/scenario/schema.test.ts fails when the committed files differ.
 */
import {
  AGENT,
  CHECK_GATE,
  COMPOSITE,
  DURATION,
  ENV_MAP,
  EVALUATION,
  GATE_SCHEMAS,
  GATE_TYPES,
  GUIDANCE,
  JUDGE,
  RUBRIC,
  SCENARIO,
  TARGET,
  TOLERANCE_GATES,
  VARIANT,
} from "./format.js";

const JSON_SCHEMA_DRAFT = "http://json-schema.org/draft-07/schema#";
const SCHEMA_BASE = "https://github.com/llm-tool-test/llm-tool-test/schema";

function buildScenarioSchema(): Record<string, unknown> {
  const gates = Object.fromEntries(GATE_TYPES.map((type) => [`gate_${type}`, GATE_SCHEMAS[type]]));
  return {
    $schema: JSON_SCHEMA_DRAFT,
    $id: `${SCHEMA_BASE}/scenario.schema.json`,
    title: "llm-tool-test scenario",
    description:
      "One scenario: a task for an agent using a command-line tool, and how to evaluate it. Paths are relative to the scenario file.",
    ...SCENARIO,
    definitions: {
      ...gates,
      gate_check: CHECK_GATE,
      gate: {
        description:
          "A gate (layer 2): `type` with its parameters, or a bashkit-eval `check` string. All gates run after the agent stops, in order.",
        oneOf: [...Object.keys(gates), "gate_check"].map((name) => ({ $ref: `#/definitions/${name}` })),
      },
      duration: DURATION,
      env: ENV_MAP,
      guidance: GUIDANCE,
      variant: VARIANT,
      target: TARGET,
      agent: AGENT,
      judge: JUDGE,
      composite: COMPOSITE,
      evaluation: EVALUATION,
      tolerance_gates: TOLERANCE_GATES,
    },
  };
}

function buildRubricSchema(): Record<string, unknown> {
  return {
    $schema: JSON_SCHEMA_DRAFT,
    $id: `${SCHEMA_BASE}/rubric.schema.json`,
    title: "llm-tool-test judge rubric",
    description: "Weighted criteria for the LLM judge; weights must sum to 1.",
    ...RUBRIC,
  };
}

/** The files `npm run schemas` writes, relative to the repository root, with their content. */
export function buildSchemaFiles(): Record<string, Record<string, unknown>> {
  return {
    "schema/scenario.schema.json": buildScenarioSchema(),
    "schema/rubric.schema.json": buildRubricSchema(),
  };
}
