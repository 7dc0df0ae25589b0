/**
 * A parsed YAML document as plain data that remembers where each value was written, so validation
 * can name the line. Produced by `parseYamlTree` in load.ts (the only module that imports `yaml`).
 */

export type YamlScalar = string | number | boolean | null;

export type YamlNode =
  | { kind: "map"; line: number; entries: YamlEntry[] }
  | { kind: "seq"; line: number; items: YamlNode[] }
  | { kind: "scalar"; line: number; value: YamlScalar };

export interface YamlEntry {
  key: string;
  keyLine: number;
  value: YamlNode;
}

/** The node as plain JavaScript data (maps become objects). */
export function convertYamlNode(node: YamlNode): unknown {
  switch (node.kind) {
    case "scalar":
      return node.value;
    case "seq":
      return node.items.map(convertYamlNode);
    case "map": {
      const result: Record<string, unknown> = {};
      for (const entry of node.entries) result[entry.key] = convertYamlNode(entry.value);
      return result;
    }
  }
}

/** "a string (\"abc\")", "a list", "null"... for "expected X, found Y" messages. */
export function describeYamlNode(node: YamlNode): string {
  if (node.kind === "map") return "a mapping";
  if (node.kind === "seq") return "a list";
  return describeScalar(node.value);
}

function describeScalar(value: YamlScalar): string {
  if (value === null) return "nothing (null)";
  const shown = typeof value === "string" ? JSON.stringify(value) : String(value);
  const short = shown.length > 40 ? `${shown.slice(0, 37)}...` : shown;
  if (typeof value === "string") return `a string (${short})`;
  if (typeof value === "number") return `a number (${short})`;
  return `a boolean (${short})`;
}
