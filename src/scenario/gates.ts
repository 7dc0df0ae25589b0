/** Gate specs from YAML (`{type, ...params}` or bashkit-style `{check: "type:value"}`) and bashkit check strings. */

import { suggestKey } from "../did-you-mean.js";
import { describeError } from "../errors.js";
import { GATES, type GateDefinition } from "../evaluate/gates.js";
import { jsonPathSyntaxError, parseJsonPathAssertion } from "../evaluate/json-path.js";
import { patternSyntaxError } from "../evaluate/regex.js";
import {
  BASHKIT_CHECK_TYPES,
  CHECK_GATE,
  GATE_COMMON,
  GATE_PARAM_SCHEMAS,
  GATE_SCHEMAS,
  GATE_TYPES,
  OPTION_NAME_PATTERN,
} from "./format.js";
import { GATE_PARAMS, type GateParamKind } from "./keys.js";
import { describeBlank, type NodeReader } from "./node-reader.js";
import { indexField, joinField } from "./problems.js";
import type { GateSpec, GateType } from "./types.js";
import type { YamlNode } from "./yaml-node.js";

const DEFAULT_WEIGHT = 1;

/** What a gate's reading needs to know of the rest of the scenario. */
export interface GateReadingContext {
  /** The scenario names `target.binary` (the shim records the target's calls). */
  hasTargetBinary: boolean;
}

/** Reads one entry of `evaluation.gates`; records problems on the reader and returns undefined when invalid. */
export function readGate(
  reader: NodeReader,
  node: YamlNode,
  field: string,
  scenario: GateReadingContext,
): GateSpec | undefined {
  if (node.kind !== "map") return reader.expected(node, field, "a gate mapping with a `type` (or a `check`)");
  const hasType = node.entries.some((entry) => entry.key === "type");
  const hasCheck = node.entries.some((entry) => entry.key === "check");
  if (hasType && hasCheck) {
    reader.report(node.line, field, "a gate has either `type` (with its parameters) or `check`, not both");
    return undefined;
  }
  if (hasCheck) return readCheckGate(reader, node, field);
  if (!hasType) {
    reader.report(node.line, field, `missing required key \`type\` (one of: ${GATE_TYPES.join(", ")})`);
    return undefined;
  }
  const typeEntry = node.entries.find((entry) => entry.key === "type");
  const typeField = joinField(field, "type");
  const typeName = typeEntry ? reader.readString(typeEntry.value, typeField) : undefined;
  if (typeName === undefined || !typeEntry) return undefined;
  if (!(GATE_TYPES as string[]).includes(typeName)) {
    const suggestion = suggestKey(typeName, GATE_TYPES);
    const detail = suggestion
      ? `did you mean \`${suggestion}\`?`
      : `expected one of: ${GATE_TYPES.join(", ")}`;
    reader.report(typeEntry.value.line, typeField, `unknown gate type \`${typeName}\` (${detail})`);
    return undefined;
  }
  const type = typeName as GateType;
  const before = reader.problems.length;
  const entries = reader.readObject(node, field, GATE_SCHEMAS[type], { owner: `a \`${type}\` gate` });
  if (!entries) return undefined;
  const gate: Record<string, unknown> = { type };
  for (const [name, kind] of Object.entries(GATE_PARAMS[type])) {
    const entry = entries.get(name);
    if (!entry) continue; // reported by readObject when required
    const value = readGateParam(reader, entry.value, joinField(field, name), kind);
    if (value === undefined) continue;
    gate[name] = value;
    if (kind === "assertion") gate.parsed = parseJsonPathAssertion(value as string);
  }
  const definition = GATES[type] as GateDefinition<GateType>;
  const atLeastOne: readonly string[] = definition.atLeastOne ?? [];
  if (atLeastOne.length > 0 && !atLeastOne.some((name) => entries.has(name))) {
    const names = atLeastOne.map((name) => `\`${name}\``).join(", ");
    reader.report(node.line, field, `a \`${type}\` gate needs at least one of ${names}`);
  }
  if (definition.needsShim && !scenario.hasTargetBinary) {
    reader.report(
      typeEntry.value.line,
      typeField,
      `a \`${type}\` gate judges the shim's record of the target's calls: name the tool in \`target.binary\``,
    );
  }
  const weight = readWeight(reader, entries.get("weight")?.value, joinField(field, "weight"));
  if (type === "llm_judge" && weight !== undefined && weight !== 0) {
    const line = entries.get("weight")?.value.line;
    reader.report(
      line,
      joinField(field, "weight"),
      "an `llm_judge` gate is bashkit-eval's stub (it always passes) and has weight 0; use `evaluation.judge` for a real judge",
    );
  }
  gate.weight = type === "llm_judge" ? 0 : (weight ?? DEFAULT_WEIGHT);
  const descriptionNode = entries.get("description")?.value;
  if (descriptionNode) {
    const description = reader.read(
      descriptionNode,
      joinField(field, "description"),
      GATE_COMMON.description,
    );
    if (description !== undefined) gate.description = description;
  }
  return reader.problems.length === before ? (gate as unknown as GateSpec) : undefined;
}

function readCheckGate(reader: NodeReader, node: YamlNode, field: string): GateSpec | undefined {
  const entries = reader.readObject(node, field, CHECK_GATE, { owner: "a `check` gate" });
  const checkNode = entries?.get("check")?.value;
  if (!entries || !checkNode) return undefined;
  const before = reader.problems.length;
  const check = reader.readString(checkNode, joinField(field, "check"));
  const weight = readWeight(reader, entries.get("weight")?.value, joinField(field, "weight"));
  const descriptionNode = entries.get("description")?.value;
  const description = descriptionNode
    ? reader.read(descriptionNode, joinField(field, "description"), GATE_COMMON.description)
    : undefined;
  if (check === undefined || reader.problems.length !== before) return undefined;
  try {
    const gate = createCheckGate(check, weight ?? DEFAULT_WEIGHT);
    return description === undefined ? gate : { ...gate, description };
  } catch (error) {
    reader.report(checkNode.line, joinField(field, "check"), describeError(error));
    return undefined;
  }
}

function readWeight(reader: NodeReader, node: YamlNode | undefined, field: string): number | undefined {
  if (!node) return undefined;
  return reader.read(node, field, GATE_COMMON.weight);
}

function readGateParam(reader: NodeReader, node: YamlNode, field: string, kind: GateParamKind): unknown {
  if (kind === "count_map") return readCountMap(reader, node, field);
  if (kind === "subcommands" || kind === "options" || kind === "regexes") {
    return readGateList(reader, node, field, kind);
  }
  const text = reader.read(node, field, GATE_PARAM_SCHEMAS[kind]);
  if (typeof text !== "string") return text;
  const problem = checkGateText(kind, text);
  if (problem) {
    reader.report(node.line, field, problem);
    return undefined;
  }
  return text;
}

/** A list parameter: at least one entry, none blank; option names as a tool spells them; regexes compile. */
function readGateList(
  reader: NodeReader,
  node: YamlNode,
  field: string,
  kind: "subcommands" | "options" | "regexes",
): string[] | undefined {
  const before = reader.problems.length;
  const list = reader.read(node, field, GATE_PARAM_SCHEMAS[kind]);
  if (list === undefined || node.kind !== "seq") return undefined;
  if (list.length === 0) {
    const what = { subcommands: "subcommand", options: "option name", regexes: "pattern" }[kind];
    reader.report(node.line, field, `expected at least one ${what} (or leave the key out)`);
  }
  node.items.forEach((item, index) => {
    const value = item.kind === "scalar" ? item.value : undefined;
    if (typeof value !== "string") return; // reported by read
    const problem =
      kind === "regexes"
        ? patternSyntaxError(value)
        : kind === "options" && !OPTION_NAME_PATTERN.test(value)
          ? `${JSON.stringify(value)} is not an option name: write it as the tool spells it, with its dashes and without a value (e.g. \`--force\`, \`-f\`)`
          : null;
    if (problem) reader.report(item.line, indexField(field, index), problem);
  });
  return reader.problems.length === before ? list : undefined;
}

/** `{name: count}`: at least one entry, each name not blank, each count an integer >= 0. */
function readCountMap(reader: NodeReader, node: YamlNode, field: string): Record<string, number> | undefined {
  if (node.kind !== "map")
    return reader.expected(node, field, "a mapping of subcommands to counts, e.g. {sort: 3}");
  if (node.entries.length === 0) {
    reader.report(node.line, field, "expected at least one subcommand with its count, e.g. {sort: 3}");
    return undefined;
  }
  const before = reader.problems.length;
  const counts: Record<string, number> = {};
  for (const entry of node.entries) {
    const entryField = joinField(field, entry.key);
    const blank = describeBlank(entry.key, "a subcommand");
    if (blank) reader.report(entry.keyLine, entryField, blank);
    const count = reader.readInteger(entry.value, entryField, 0);
    if (count !== undefined) counts[entry.key] = count;
  }
  return reader.problems.length === before ? counts : undefined;
}

/** Load-time checks of a text parameter: regexes compile, JSONPaths and assertions parse. */
function checkGateText(kind: GateParamKind, text: string): string | null {
  if (kind === "regex") return patternSyntaxError(text);
  if (kind === "jsonpath") {
    const error = jsonPathSyntaxError(text);
    return error ? `invalid JSONPath ${JSON.stringify(text)}: ${error}` : null;
  }
  if (kind === "assertion") {
    try {
      parseJsonPathAssertion(text);
      return null;
    } catch (error) {
      return describeError(error);
    }
  }
  return null;
}

/**
 * A bashkit-eval check string as a gate, with bashkit-eval's meaning: `file_contains:/path:text` and
 * `file_line_regex:/path:pattern` split at the first `:` after the path; `llm_judge` is a stub of
 * weight 0. The original string becomes the gate's description. Throws an Error on a malformed check.
 */
export function createCheckGate(check: string, weight: number): GateSpec {
  const type = checkTypeOf(check);
  const value = check.slice(type.length + 1);
  const base = { weight, description: check };
  const need = (what: string): string => {
    if (value === "")
      throw new Error(`\`${type}\` needs ${what}, e.g. \`${type}:${what.replace(/^an? /, "")}\``);
    return value;
  };
  const splitPath = (second: string): [string, string] => {
    const at = value.indexOf(":");
    if (at <= 0 || at === value.length - 1) {
      throw new Error(`expected \`${type}:/path:${second}\`, found ${JSON.stringify(check)}`);
    }
    return [value.slice(0, at), value.slice(at + 1)];
  };
  const regex = (pattern: string): string => {
    const problem = patternSyntaxError(pattern);
    if (problem) throw new Error(problem);
    return pattern;
  };
  const integer = (min: number, max: number, what: string): number => {
    if (!/^-?\d+$/.test(value) || Number(value) < min || Number(value) > max) {
      throw new Error(`\`${type}\` needs ${what}, found ${JSON.stringify(value)}`);
    }
    return Number(value);
  };
  switch (type) {
    case "exit_code":
      return { ...base, type, code: integer(0, 255, "an exit code (an integer from 0 to 255)") };
    case "stdout_contains":
      return { ...base, type, substring: need("a text") };
    case "stdout_regex":
      return { ...base, type, pattern: regex(need("a pattern")) };
    case "stderr_empty":
      if (value !== "") throw new Error(`\`stderr_empty\` takes no value, found ${JSON.stringify(value)}`);
      return { ...base, type };
    case "file_exists":
      return { ...base, type, path: need("a path") };
    case "dir_exists":
      return { ...base, type, path: need("a path") };
    case "file_contains": {
      const [path, substring] = splitPath("text");
      return { ...base, type, path, substring };
    }
    case "file_line_regex": {
      const [path, pattern] = splitPath("pattern");
      return { ...base, type, path, pattern: regex(pattern) };
    }
    case "tool_calls_min":
      return { ...base, type, count: integer(0, Number.MAX_SAFE_INTEGER, "a non-negative integer") };
    case "tool_calls_max":
      return { ...base, type, count: integer(0, Number.MAX_SAFE_INTEGER, "a non-negative integer") };
    case "llm_judge":
      return { ...base, weight: 0, type, prompt: value };
    default:
      throw new Error(describeUnknownCheck(check));
  }
}

/** The type of a check string: what comes before the first `:`. */
export function checkTypeOf(check: string): string {
  const colon = check.indexOf(":");
  return colon === -1 ? check : check.slice(0, colon);
}

export function isKnownCheckType(type: string): boolean {
  return (BASHKIT_CHECK_TYPES as readonly string[]).includes(type);
}

/** `unknown check type \`x\` in "x:1" (did you mean …? / expected one of: …)` */
export function describeUnknownCheck(check: string): string {
  const type = checkTypeOf(check);
  const suggestion = suggestKey(type, BASHKIT_CHECK_TYPES);
  const detail = suggestion
    ? `did you mean \`${suggestion}\`?`
    : `expected one of: ${BASHKIT_CHECK_TYPES.join(", ")}`;
  return `unknown check type \`${type}\` in ${JSON.stringify(check)} (${detail})`;
}
