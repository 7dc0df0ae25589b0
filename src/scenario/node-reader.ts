/** Typed reads from a located YAML tree that record a problem (with line and field) instead of throwing. */

import { suggestKey } from "../did-you-mean.js";
import { type FieldSchema, NOT_BLANK, type ObjectSchema } from "./format.js";
import { indexField, joinField, type Problem } from "./problems.js";
import { describeYamlNode, type YamlEntry, type YamlNode } from "./yaml-node.js";

export interface ReadMapOptions {
  /** Keys users write by mistake, with what to say instead of a generic "unknown key". */
  hints?: Record<string, string>;
  /** Describes the mapping in unknown-key messages, e.g. "a `file_exists` gate". */
  owner?: string;
  /** What a required key holds, said instead of the owner when it is missing. */
  requiredHints?: Record<string, string>;
}

/** The value a schema (format.ts) describes, as `NodeReader.read` returns it. */
export type ValueOf<S> = S extends { enum: readonly (infer E)[] }
  ? E
  : S extends { type: "integer" | "number" }
    ? number
    : S extends { type: "boolean" }
      ? boolean
      : S extends { type: "array" }
        ? string[]
        : string;

/** The keys of a mapping's schema whose values `NodeReader.read` reads: scalars and lists of strings. */
export type ScalarKey<S extends ObjectSchema> = {
  [K in keyof S["properties"]]: S["properties"][K] extends
    | { type: "string" | "integer" | "number" | "boolean" }
    | { type: "array"; items: { type: "string" } }
    ? K
    : never;
}[keyof S["properties"]] &
  string;

/**
 * What is wrong with a value that must hold text, or null when it does: an empty value and one of
 * only whitespace (shown escaped, so a tab or a newline is seen) are told apart. `subject` names
 * what the value is when the field does not ("a file name").
 */
export function describeBlank(value: string, subject?: string): string | null {
  if (NOT_BLANK.test(value)) return null;
  const what = subject ? `${subject} ` : "";
  return value === ""
    ? `${what}must not be empty`
    : `${what}must not be blank: it holds only whitespace (${JSON.stringify(value)})`;
}

export class NodeReader {
  readonly problems: Problem[] = [];

  constructor(readonly file: string) {}

  report(line: number | undefined, field: string, message: string, file = this.file): void {
    this.problems.push({ file, line, field, message });
  }

  expected(node: YamlNode, field: string, what: string): undefined {
    this.report(node.line, field, `expected ${what}, found ${describeYamlNode(node)}`);
    return undefined;
  }

  /** The mapping's entries by key, after reporting keys not in `known`. */
  readMap(
    node: YamlNode,
    field: string,
    known: readonly string[],
    options: ReadMapOptions = {},
  ): Map<string, YamlEntry> | undefined {
    if (node.kind !== "map") return this.expected(node, field, "a mapping");
    const entries = new Map<string, YamlEntry>();
    for (const entry of node.entries) {
      if (known.includes(entry.key)) {
        entries.set(entry.key, entry);
        continue;
      }
      const where = options.owner ? ` for ${options.owner}` : "";
      const hint = options.hints?.[entry.key];
      const suggestion = suggestKey(entry.key, known);
      const detail = hint
        ? ` (${hint})`
        : suggestion
          ? ` (did you mean \`${suggestion}\`?)`
          : ` (expected one of: ${known.join(", ")})`;
      this.report(
        entry.keyLine,
        joinField(field, entry.key),
        `unknown key \`${entry.key}\`${where}${detail}`,
      );
    }
    return entries;
  }

  /**
   * A mapping read against its schema (format.ts): keys it does not have reported with a
   * did-you-mean, then the required keys that are missing.
   */
  readObject(
    node: YamlNode,
    field: string,
    schema: ObjectSchema,
    options: ReadMapOptions = {},
  ): Map<string, YamlEntry> | undefined {
    const entries = this.readMap(node, field, Object.keys(schema.properties), options);
    if (!entries) return undefined;
    for (const key of schema.required ?? []) {
      if (entries.has(key)) continue;
      const hint = options.requiredHints?.[key];
      const detail = hint ? ` (${hint})` : options.owner ? ` for ${options.owner}` : "";
      this.report(node.line, joinField(field, key), `missing required key \`${key}\`${detail}`);
    }
    return entries;
  }

  /**
   * A scalar, or a list of strings, read against its schema (format.ts): its type, its choices,
   * its bounds and whether it may be empty. Patterns are checked by the caller, which says what
   * the pattern means.
   */
  read<S extends FieldSchema>(node: YamlNode, field: string, schema: S): ValueOf<S> | undefined {
    return this.readBySchema(node, field, schema) as ValueOf<S> | undefined;
  }

  /** `key`'s value in a mapping `readObject` returned, read against its schema; undefined when absent or invalid. */
  readEntry<S extends ObjectSchema, K extends ScalarKey<S>>(
    entries: Map<string, YamlEntry>,
    field: string,
    schema: S,
    key: K,
  ): ValueOf<S["properties"][K]> | undefined {
    const entry = entries.get(key);
    const valueSchema = schema.properties[key] as S["properties"][K];
    return entry ? this.read(entry.value, joinField(field, key), valueSchema) : undefined;
  }

  private readBySchema(node: YamlNode, field: string, schema: FieldSchema): unknown {
    if (schema.enum) return this.readEnum(node, field, schema.enum);
    switch (schema.type) {
      case "integer":
        return this.readInteger(node, field, schema.minimum ?? Number.MIN_SAFE_INTEGER, schema.maximum);
      case "number":
        return this.readNumber(node, field, schema.minimum ?? Number.NEGATIVE_INFINITY, schema.maximum);
      case "boolean":
        return this.readBoolean(node, field);
      case "array":
        return this.readStringList(node, field);
      default:
        return this.readString(node, field, { allowEmpty: !schema.minLength });
    }
  }

  readString(node: YamlNode, field: string, options: { allowEmpty?: boolean } = {}): string | undefined {
    if (node.kind !== "scalar" || typeof node.value !== "string")
      return this.expected(node, field, "a string");
    const blank = options.allowEmpty ? null : describeBlank(node.value);
    if (blank) {
      this.report(node.line, field, blank);
      return undefined;
    }
    return node.value;
  }

  readInteger(node: YamlNode, field: string, min: number, max = Number.MAX_SAFE_INTEGER): number | undefined {
    const range = max === Number.MAX_SAFE_INTEGER ? `>= ${min}` : `from ${min} to ${max}`;
    if (node.kind !== "scalar" || typeof node.value !== "number" || !Number.isInteger(node.value)) {
      return this.expected(node, field, `an integer ${range}`);
    }
    if (node.value < min || node.value > max) return this.expected(node, field, `an integer ${range}`);
    return node.value;
  }

  readNumber(node: YamlNode, field: string, min: number, max = Number.POSITIVE_INFINITY): number | undefined {
    const range = max === Number.POSITIVE_INFINITY ? `>= ${min}` : `from ${min} to ${max}`;
    if (node.kind !== "scalar" || typeof node.value !== "number" || !Number.isFinite(node.value)) {
      return this.expected(node, field, `a number ${range}`);
    }
    if (node.value < min || node.value > max) return this.expected(node, field, `a number ${range}`);
    return node.value;
  }

  readBoolean(node: YamlNode, field: string): boolean | undefined {
    if (node.kind !== "scalar" || typeof node.value !== "boolean") {
      return this.expected(node, field, "a boolean (true or false)");
    }
    return node.value;
  }

  readEnum<T extends string>(node: YamlNode, field: string, values: readonly T[]): T | undefined {
    const choices = values.map((value) => `\`${value}\``).join(", ");
    if (node.kind !== "scalar" || typeof node.value !== "string") {
      return this.expected(node, field, `one of ${choices}`);
    }
    if ((values as readonly string[]).includes(node.value)) return node.value as T;
    const suggestion = suggestKey(node.value, values);
    const detail = suggestion ? ` (did you mean \`${suggestion}\`?)` : "";
    this.report(node.line, field, `expected one of ${choices}, found ${describeYamlNode(node)}${detail}`);
    return undefined;
  }

  readStringList(node: YamlNode, field: string): string[] | undefined {
    if (node.kind !== "seq") return this.expected(node, field, "a list of strings");
    const result: string[] = [];
    node.items.forEach((item, index) => {
      const value = this.readString(item, indexField(field, index));
      if (value !== undefined) result.push(value);
    });
    return result;
  }

  /** A mapping of names to strings (env vars, inline files). Numbers and booleans must be quoted. */
  readStringMap(
    node: YamlNode,
    field: string,
    options: { allowEmptyValues?: boolean } = {},
  ): Record<string, string> | undefined {
    if (node.kind !== "map") return this.expected(node, field, "a mapping of names to strings");
    const result: Record<string, string> = {};
    for (const entry of node.entries) {
      const entryField = joinField(field, entry.key);
      const value = entry.value;
      if (value.kind === "scalar" && (typeof value.value === "number" || typeof value.value === "boolean")) {
        this.report(
          value.line,
          entryField,
          `expected a string, found ${describeYamlNode(value)}; quote it: "${String(value.value)}"`,
        );
        continue;
      }
      const text = this.readString(value, entryField, { allowEmpty: options.allowEmptyValues ?? true });
      if (text !== undefined) result[entry.key] = text;
    }
    return result;
  }
}
