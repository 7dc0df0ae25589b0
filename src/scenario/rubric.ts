/** Judge rubrics: `criteria: [{id, weight, description}]` with weights summing to 1; `output:` is tolerated. */
import { CRITERION, CRITERION_ID_PATTERN, RUBRIC } from "./format.js";
import { NodeReader } from "./node-reader.js";
import { indexField, type Problem } from "./problems.js";
import type { Rubric, RubricCriterion } from "./types.js";
import type { YamlNode } from "./yaml-node.js";

export const WEIGHT_TOLERANCE = 1e-6;

/** Validates a parsed rubric file; `file` is its absolute path. */
export function buildRubric(tree: YamlNode, file: string): { rubric?: Rubric; problems: Problem[] } {
  const reader = new NodeReader(file);
  const entries = reader.readObject(tree, "", RUBRIC, {
    owner: "a rubric",
    hints: { rubric: "a rubric file holds `criteria:` at its top level" },
    requiredHints: { criteria: "a list of {id, weight, description}" },
  });
  const criteriaEntry = entries?.get("criteria");
  if (!criteriaEntry) return { problems: reader.problems };
  const node = criteriaEntry.value;
  if (node.kind !== "seq" || node.items.length === 0) {
    reader.expected(node, "criteria", "a non-empty list of {id, weight, description}");
    return { problems: reader.problems };
  }
  const criteria: RubricCriterion[] = [];
  const seen = new Map<string, number>();
  let weightsValid = true;
  node.items.forEach((item, index) => {
    const read = readCriterion(reader, item, indexField("criteria", index), seen);
    if (!read.weightValid) weightsValid = false;
    if (read.criterion) criteria.push(read.criterion);
  });
  // The sum says something only when every weight was read.
  if (weightsValid && criteria.length === node.items.length) {
    checkWeightSum(reader, criteria, criteriaEntry.keyLine);
  }
  if (reader.problems.length > 0) return { problems: reader.problems };
  return { rubric: { file, criteria }, problems: [] };
}

/**
 * One criterion, absent when it has a problem; `weightValid` is false when its weight could not be
 * read. `seen` maps the ids so far to their lines, for the duplicate message.
 */
function readCriterion(
  reader: NodeReader,
  item: YamlNode,
  field: string,
  seen: Map<string, number>,
): { criterion?: RubricCriterion; weightValid: boolean } {
  const criterion = reader.readObject(item, field, CRITERION, { owner: "a rubric criterion" });
  if (!criterion) return { weightValid: false };
  const before = reader.problems.length;
  /** A required key's value as `read` reads it (readObject reported it if missing). */
  const required = <T>(key: string, read: (value: YamlNode, at: string) => T | undefined): T | undefined => {
    const value = criterion.get(key)?.value;
    return value ? read(value, `${field}.${key}`) : undefined;
  };
  const id = required("id", (value, at) => {
    const text = reader.readString(value, at);
    if (text === undefined || CRITERION_ID_PATTERN.test(text)) return text;
    const message = `expected letters, digits, \`_\`, \`.\` or \`-\` (at most 64), found ${JSON.stringify(text)}`;
    reader.report(value.line, at, message);
    return undefined;
  });
  const weight = required("weight", (value, at) => {
    const bounds = CRITERION.properties.weight;
    const number = reader.readNumber(value, at, bounds.exclusiveMinimum, bounds.maximum);
    if (number !== 0) return number;
    reader.report(value.line, at, "expected a weight > 0 (remove the criterion instead)");
    return undefined;
  });
  const description = required("description", (value, at) =>
    reader.read(value, at, CRITERION.properties.description),
  );
  if (id !== undefined) {
    const firstLine = seen.get(id);
    if (firstLine !== undefined) {
      reader.report(
        criterion.get("id")?.value.line,
        `${field}.id`,
        `duplicate criterion id \`${id}\` (first used on line ${firstLine})`,
      );
    } else {
      seen.set(id, criterion.get("id")?.value.line ?? item.line);
    }
  }
  const weightValid = weight !== undefined;
  if (
    reader.problems.length === before &&
    id !== undefined &&
    weight !== undefined &&
    description !== undefined
  ) {
    return { criterion: { id, weight, description }, weightValid };
  }
  return { weightValid };
}

/** The weights must sum to 1 (within WEIGHT_TOLERANCE); the message lists them. */
function checkWeightSum(reader: NodeReader, criteria: RubricCriterion[], line: number): void {
  const sum = criteria.reduce((total, criterion) => total + criterion.weight, 0);
  if (Math.abs(sum - 1) > WEIGHT_TOLERANCE) {
    const parts = criteria.map((criterion) => `${criterion.id} ${criterion.weight}`).join(" + ");
    reader.report(line, "criteria", `weights must sum to 1, found ${formatSum(sum)} (${parts})`);
  }
}

/** Sums shown to users without floating-point noise (0.9, not 0.8999999999999999). */
export function formatSum(sum: number): string {
  return String(Number(sum.toFixed(6)));
}
