/**
 * The scenario and rubric file formats, defined once: every mapping's keys, each with its JSON
 * Schema (type, bounds, choices, pattern, description). The loader takes from here the keys it
 * accepts, the keys it requires and every bound and choice it checks (`NodeReader.read`);
 * `npm run schemas` writes schema/scenario.schema.json and schema/rubric.schema.json from it
 * (schema-document.ts), and a test fails when the committed files differ. What JSON Schema cannot
 * say (a file that must exist inside the repository, a regex that must compile, weights that must
 * sum to 1, a duration's value) the loader checks beside (yaml-scenario.ts, gates.ts, rubric.ts).
 */
import { DEFAULT_LOOP_REPEATS, GATES, type GateDefinition, type GateParamKind } from "../evaluate/gates.js";
import { TOLERANCE_METRICS, TOLERANCE_PATTERN } from "../results/tolerance-gates.js";
import type { GateType } from "./types.js";

/** The part of JSON Schema (draft-07) the formats use. */
export interface FieldSchema {
  description?: string;
  type?: "string" | "integer" | "number" | "boolean" | "object" | "array";
  minLength?: number;
  pattern?: string;
  enum?: readonly string[];
  const?: string | number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  default?: string | number | boolean;
  items?: FieldSchema;
  minItems?: number;
  uniqueItems?: boolean;
  properties?: Readonly<Record<string, FieldSchema>>;
  required?: readonly string[];
  additionalProperties?: boolean | FieldSchema;
  propertyNames?: FieldSchema;
  minProperties?: number;
  oneOf?: readonly FieldSchema[];
  anyOf?: readonly FieldSchema[];
  $ref?: string;
}

/** A mapping: its keys are exactly those of `properties`. */
export interface ObjectSchema extends FieldSchema {
  type: "object";
  properties: Readonly<Record<string, FieldSchema>>;
  additionalProperties: false;
}

/** A reference to one of the scenario schema's definitions (schema-document.ts lists them). */
const ref = (name: string, description?: string): FieldSchema =>
  description === undefined
    ? { $ref: `#/definitions/${name}` }
    : { $ref: `#/definitions/${name}`, description };

/** Scenario ids and variant names name output folders, so they stay filesystem-safe. */
export const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
/** An option's name as the tool spells it: `-f`, `--file`, `-config`; no value, no space. */
export const OPTION_NAME_PATTERN = /^--?[A-Za-z0-9?@][A-Za-z0-9_.?@-]*$/;
/**
 * An environment variable name a shell can set (POSIX's portable names, lowercase allowed): an
 * empty name, an `=` or a NUL would corrupt the environment the agent gets.
 */
export const ENV_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Criterion ids become property names in the judge's forced tool call, so they must be plain. */
export const CRITERION_ID_PATTERN = /^[A-Za-z0-9_.-]{1,64}$/;
/** What duration.ts accepts, for editors (duration.ts says why a value is refused). */
const DURATION_PATTERN = /^\s*(\d+(\.\d+)?|(\d+(\.\d+)?(ms|s|m|h))+)\s*$/;
/** What parseJsonPathAssertion accepts, for editors (the loader parses it and says what is wrong). */
const ASSERTION_PATTERN = /^\s*(exists|equals\s+.+|contains\s+.+|len\s*(>=|==|>|<=|<)\s*\d+)\s*$/;

export const DEFAULT_CATEGORY = "uncategorized";
export const DEFAULT_TIER = 1;
const DEFAULT_PASS_THRESHOLD = 0.7;

/**
 * What a string that must not be empty has to contain: the loader refuses one of only whitespace
 * (NodeReader.readString), and the schema says the same with this pattern beside `minLength: 1`.
 */
export const NOT_BLANK = /\S/;
/** A string with something in it besides whitespace (the loader's and the schema's one rule). */
const NON_BLANK_STRING = { type: "string", minLength: 1, pattern: NOT_BLANK.source } as const;

const text = (description: string) => ({ description, ...NON_BLANK_STRING }) as const;
const weight = (description: string) => ({ description, type: "number", minimum: 0 }) as const;

export const DURATION = {
  description: 'A duration: "1500ms", "300s", "5m", "1h", "1m30s", or a number of seconds.',
  oneOf: [
    {
      type: "string",
      pattern: DURATION_PATTERN.source,
      description: "A duration with a unit (ms, s, m, h), e.g. 300s or 5m.",
    },
    { type: "number", exclusiveMinimum: 0, description: "Seconds." },
  ],
} as const satisfies FieldSchema;

export const ENV_MAP = {
  type: "object",
  description:
    "Environment variables: name -> value (quote numbers). Names are letters, digits and _, not starting with a digit.",
  propertyNames: { type: "string", pattern: ENV_NAME_PATTERN.source },
  additionalProperties: { type: "string" },
} as const satisfies FieldSchema;

export const GUIDANCE_OBJECT = {
  type: "object",
  additionalProperties: false,
  required: ["file"],
  properties: {
    file: text("Path of the guidance file (AGENTS.md, a skill...), relative to the scenario file."),
    mode: {
      description:
        "workdir: copied into the work dir as AGENTS.md (the agent CLIs load it; the built-in agent is shown it in its system prompt); system: appended to the system prompt; both: both, the built-in agent shown the text once.",
      type: "string",
      enum: ["workdir", "system", "both"],
      default: "workdir",
    },
  },
} as const satisfies ObjectSchema;

export const GUIDANCE = {
  description:
    "Documentation under test: a file path (copied into the work dir as AGENTS.md), or {file, mode}.",
  oneOf: [text("Path of the guidance file, relative to the scenario file; mode workdir."), GUIDANCE_OBJECT],
} as const satisfies FieldSchema;

export const VARIANT = {
  type: "object",
  description: "A named variant run with the same trials, compared side by side.",
  additionalProperties: false,
  required: ["name"],
  properties: {
    name: {
      description: "Variant name (letters, digits, ., _ and -); unique within the scenario.",
      type: "string",
      pattern: ID_PATTERN.source,
    },
    guidance: ref("guidance", "Guidance used by this variant instead of the scenario's."),
    env: ref("env", "Extra environment for the target, merged over target.env."),
  },
} as const satisfies ObjectSchema;

export const TARGET = {
  type: "object",
  description: "The command-line tool under test.",
  additionalProperties: false,
  properties: {
    binary: text(
      "Binary intercepted by a PATH shim that records argv, exit code and duration of every invocation (a name on PATH, or a path relative to the scenario file that stays inside the repository holding the scenario, or in /usr, /bin or /sbin).",
    ),
    command_pattern: text(
      "Regex finding target invocations in the transcript when no shim record exists; group 1 is the subcommand.",
    ),
    global_options: {
      description:
        'The tool\'s options that take a value in the next argument, as the tool spells them (e.g. ["-f", "--file"]), so the value is not taken for the subcommand: `hledger -f main.journal balance` is `balance`. Without the list, the subcommand is the first argument that does not start with `-`.',
      type: "array",
      items: { type: "string", pattern: OPTION_NAME_PATTERN.source },
      uniqueItems: true,
    },
    env: ref("env", "Environment variables for the agent's commands and the gates."),
  },
} as const satisfies ObjectSchema;

export const AGENT = {
  type: "object",
  description: "Agent settings; defaults come from command-line flags / action inputs.",
  additionalProperties: false,
  properties: {
    model: text("Model id, e.g. claude-haiku-4-5."),
    max_turns: { description: "Maximum model turns.", type: "integer", minimum: 1 },
    timeout: ref("duration", "Timeout of the whole trial."),
    command_timeout: ref("duration", "Timeout of one bash call."),
  },
} as const satisfies ObjectSchema;

export const JUDGE = {
  type: "object",
  description: "LLM-as-judge (layer 3) with a rubric.",
  additionalProperties: false,
  properties: {
    enabled: {
      description: "Whether the judge runs (default true when this block is present).",
      type: "boolean",
      default: true,
    },
    rubric: text("Rubric YAML file (criteria with weights summing to 1), relative to the scenario file."),
    pass_threshold: {
      description: "The judge passes when its weighted score is >= this (default 0.7).",
      type: "number",
      minimum: 0,
      maximum: 1,
      default: DEFAULT_PASS_THRESHOLD,
    },
    model: text("Judge model; must differ from the tested model."),
  },
} as const satisfies ObjectSchema;

export const COMPOSITE = {
  type: "object",
  description: "Optional single score: non-negative weights summing to 1.",
  additionalProperties: false,
  minProperties: 1,
  properties: {
    gate_weight: weight("Weight of the gate score."),
    judge_weight: weight("Weight of the judge score."),
    interaction_weight: weight("Weight of the interaction score."),
  },
} as const satisfies ObjectSchema;

export const EVALUATION = {
  type: "object",
  description: "How a trial is evaluated: gates, an optional judge, an optional composite score.",
  additionalProperties: false,
  properties: {
    gates: {
      type: "array",
      description: "Deterministic checks (layer 2), run in order after the agent stops; none short-circuits.",
      items: ref("gate"),
    },
    judge: ref("judge"),
    composite: ref("composite"),
  },
} as const satisfies ObjectSchema;

export const TOLERANCE_GATES = {
  type: "object",
  description:
    'Tolerance gates (opt-in): the largest increase over the base runs\' mean this scenario may show, e.g. `input_tokens: "+20%"`. The check fails when the one-sided bound shows the increase exceeds it (docs/statistics.md, "Tolerance gates"). Over the suite\'s `tolerance-gates`, metric by metric.',
  additionalProperties: false,
  minProperties: 1,
  properties: Object.fromEntries(
    TOLERANCE_METRICS.map((metric) => [
      metric,
      {
        description: `Largest increase of the mean ${metric.replaceAll("_", " ")} over the base's, in percent ("+20%").`,
        type: "string",
        pattern: TOLERANCE_PATTERN.source,
      },
    ]),
  ),
} as const satisfies ObjectSchema;

export const SCENARIO = {
  type: "object",
  additionalProperties: false,
  required: ["task"],
  properties: {
    name: {
      description:
        "Unique scenario id (letters, digits, ., _ and -; names the output folder). Default: the file name.",
      type: "string",
      pattern: ID_PATTERN.source,
    },
    description: text("What the scenario checks."),
    category: text(`Category for per-category aggregation (default ${DEFAULT_CATEGORY}).`),
    tags: {
      description: "Tags for --tags selection.",
      type: "array",
      items: NON_BLANK_STRING,
    },
    tier: {
      description: "Tier for --tier N selection (scenarios with tier <= N run); default 1.",
      type: "integer",
      minimum: 0,
      default: DEFAULT_TIER,
    },
    task: text("The user message given to the agent."),
    system: text("Extra system prompt."),
    fixture: text("Directory copied into the fresh work dir; must be inside the scenario's folder."),
    files: {
      type: "object",
      description:
        "Inline files written into the work dir: path -> content. Absolute paths need sandbox: bwrap.",
      propertyNames: NON_BLANK_STRING,
      additionalProperties: { type: "string" },
    },
    setup: {
      description: "Shell commands run before the agent; a failure is an infrastructure error of the trial.",
      type: "array",
      items: NON_BLANK_STRING,
    },
    guidance: ref("guidance"),
    variants: {
      description: "Variants of the scenario (e.g. two guidance versions), each run with the same trials.",
      type: "array",
      items: ref("variant"),
    },
    target: ref("target"),
    agent: ref("agent"),
    solution: {
      description:
        "Reference solution for the oracle agent: one entry = one bash call; a single string is one call.",
      oneOf: [NON_BLANK_STRING, { type: "array", minItems: 1, items: NON_BLANK_STRING }],
    },
    evaluation: ref("evaluation"),
    tolerance_gates: ref("tolerance_gates"),
    trials: {
      description: "Trials per scenario (default from the command line / action).",
      type: "integer",
      minimum: 1,
    },
    sandbox: {
      description:
        "auto (default): bwrap where it works on this machine, else local with a warning in the log, report and comment that the agent was not isolated (in CI an error instead); local: a temporary work dir on the host, commands run as a user of their own where the harness runs as root, else as the harness's user; bwrap: bubblewrap with the work dir as / (an error when bwrap cannot run here).",
      type: "string",
      enum: ["auto", "local", "bwrap"],
    },
    network: { description: "Network access inside the bwrap sandbox (default false).", type: "boolean" },
  },
} as const satisfies ObjectSchema;

// ---- Gates: the common keys, each parameter kind's schema, and what each gate and parameter means.

/** Keys every `type:` gate accepts besides its own parameters (`type` is each gate's own). */
export const GATE_COMMON = {
  weight: weight("Weight in the partial score (default 1)."),
  description: text("Label shown in reports."),
} as const satisfies Record<string, FieldSchema>;

/** How each kind of gate parameter (the GATES registry's `params`) is written. */
export const GATE_PARAM_SCHEMAS = {
  command: NON_BLANK_STRING,
  text: NON_BLANK_STRING,
  path: NON_BLANK_STRING,
  regex: NON_BLANK_STRING,
  jsonpath: NON_BLANK_STRING,
  assertion: { type: "string", minLength: 1, pattern: ASSERTION_PATTERN.source },
  exit_code: { type: "integer", minimum: 0, maximum: 255 },
  count: { type: "integer", minimum: 0 },
  subcommands: { type: "array", items: NON_BLANK_STRING, minItems: 1 },
  options: { type: "array", items: { type: "string", pattern: OPTION_NAME_PATTERN.source }, minItems: 1 },
  regexes: { type: "array", items: NON_BLANK_STRING, minItems: 1 },
  count_map: {
    type: "object",
    propertyNames: NON_BLANK_STRING,
    additionalProperties: { type: "integer", minimum: 0 },
    minProperties: 1,
  },
  repeats: { type: "integer", minimum: 2, default: DEFAULT_LOOP_REPEATS },
} as const satisfies Record<GateParamKind, FieldSchema>;

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

/** A bashkit-style gate written in YAML: `{check: "type:value", weight?, description?}`. */
export const CHECK_GATE = {
  type: "object",
  description:
    "A bashkit-eval check string as a gate, e.g. exit_code:0, stdout_contains:text, file_contains:/path:text.",
  required: ["check"],
  additionalProperties: false,
  properties: {
    check: {
      description: `bashkit-eval check: type:value with type one of ${BASHKIT_CHECK_TYPES.join(", ")}.`,
      type: "string",
      pattern: `^(${BASHKIT_CHECK_TYPES.join("|")})(:.*)?$`,
    },
    ...GATE_COMMON,
  },
} as const satisfies ObjectSchema;

/** Each gate type's mapping: `type` as a constant, the common keys, then its own parameters. */
function gateSchema(type: GateType): ObjectSchema {
  const definition = GATES[type] as GateDefinition<GateType>;
  const doc = definition.docs;
  const descriptions: Readonly<Record<string, string>> = doc.params;
  const properties: Record<string, FieldSchema> = {
    type: { description: doc.description, const: type },
    ...GATE_COMMON,
  };
  // bashkit-eval's llm_judge is a stub that cannot count (the loader says so for any other weight).
  if (type === "llm_judge")
    properties.weight = { description: "Always 0 for this stub.", type: "number", const: 0 };
  const params = definition.params as Readonly<Record<string, GateParamKind>>;
  for (const [name, kind] of Object.entries(params)) {
    properties[name] = { description: descriptions[name], ...GATE_PARAM_SCHEMAS[kind] };
  }
  const optional: readonly string[] = definition.optional ?? [];
  const atLeastOne: readonly string[] = definition.atLeastOne ?? [];
  return {
    type: "object",
    description: doc.description,
    required: ["type", ...Object.keys(params).filter((name) => !optional.includes(name))],
    additionalProperties: false,
    properties,
    // Each branch names its key in `properties` too, as strict validators (Ajv's strictRequired) ask.
    ...(atLeastOne.length > 0
      ? { anyOf: atLeastOne.map((name) => ({ required: [name], properties: { [name]: {} } })) }
      : {}),
  };
}

/** The gate types in the registry's order (the order error messages list them in). */
export const GATE_TYPES = Object.keys(GATES) as GateType[];

export const GATE_SCHEMAS = Object.fromEntries(GATE_TYPES.map((type) => [type, gateSchema(type)])) as Record<
  GateType,
  ObjectSchema
>;

// ---- Rubrics (judge rubric files).

export const CRITERION = {
  type: "object",
  additionalProperties: false,
  required: ["id", "weight", "description"],
  description: "One criterion.",
  properties: {
    id: {
      description: "Criterion id (letters, digits, _, . or -; at most 64); a field of the judge's answer.",
      type: "string",
      pattern: CRITERION_ID_PATTERN.source,
    },
    weight: {
      description: "Weight in the weighted score (> 0).",
      type: "number",
      exclusiveMinimum: 0,
      maximum: 1,
    },
    description: text("What the judge looks for."),
  },
} as const satisfies ObjectSchema;

export const RUBRIC = {
  type: "object",
  additionalProperties: false,
  required: ["criteria"],
  properties: {
    criteria: {
      type: "array",
      minItems: 1,
      description: "The criteria the judge scores from 0 to 1; ids unique, weights > 0 summing to 1.",
      items: CRITERION,
    },
    output: {
      type: "object",
      description: "Accepted for compatibility with the original rubric format; not used.",
    },
  },
} as const satisfies ObjectSchema;

/** A mapping's keys, in the order the schema lists them (error messages list them so). */
export function keysOf<S extends ObjectSchema>(schema: S): Array<keyof S["properties"] & string> {
  return Object.keys(schema.properties) as Array<keyof S["properties"] & string>;
}
