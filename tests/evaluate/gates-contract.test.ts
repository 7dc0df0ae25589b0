/**
 * The contract every gate type keeps, run against each entry of GATES: its one definition (types,
 * parameter checks, docs text) is what the schema says and what the docs' gate table lists.
 * Nothing here names a gate.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { GATES, type GateDefinition } from "../../src/evaluate/gates.js";
import { GATE_SCHEMAS, GATE_TYPES } from "../../src/scenario/format.js";
import type { GateType } from "../../src/scenario/types.js";
import { markdownTableRows, REPOSITORY_ROOT, readUserDocs } from "../support/docs-text.js";

const gateRows = markdownTableRows(readUserDocs(), "gate");
const schemaText = readFileSync(path.join(REPOSITORY_ROOT, "schema/scenario.schema.json"), "utf8");

describe.each(GATE_TYPES)("the gate %s", (type) => {
  const definition = GATES[type] as GateDefinition<GateType>;
  const params = Object.keys(definition.params);

  it("documents itself and each parameter in its definition, which the schema carries", () => {
    expect(definition.docs.description.trim().length).toBeGreaterThan(0);
    expect(Object.keys(definition.docs.params).sort()).toEqual([...params].sort());
    const schema = GATE_SCHEMAS[type];
    expect(schema.description).toBe(definition.docs.description);
    for (const param of params) {
      const docsText = (definition.docs.params as Record<string, string>)[param] ?? "";
      expect(docsText.trim().length, param).toBeGreaterThan(0);
      expect((schema.properties[param] as { description?: string }).description, param).toBe(docsText);
    }
    // The committed schema file (`npm run schemas`) says the same.
    expect(schemaText).toContain(JSON.stringify(definition.docs.description));
  });

  it("has its row in the docs' gate table, naming each of its parameters", () => {
    const row = gateRows.find((cells) => (cells[0] ?? "").includes(`\`${type}\``));
    expect(row, `no row for \`${type}\` in the gate table`).toBeDefined();
    const paramsCell = row?.[1] ?? "";
    if (params.length === 0) expect(paramsCell).toBe("—");
    for (const param of params) expect(paramsCell, param).toContain(`\`${param}\``);
  });
});
