/**
 * The contract every gate type keeps, run against each entry of GATES: its one definition (types,
 * parameter checks, docs text) is what the schema says and what the docs' gate table lists.
 * Nothing here names a gate.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { evaluateGates, GATES, type GateDefinition, type GateParamKind } from "../../src/evaluate/gates.js";
import { GATE_SCHEMAS, GATE_TYPES } from "../../src/scenario/format.js";
import { loadScenarios } from "../../src/scenario/load.js";
import type { GateSpec, GateType } from "../../src/scenario/types.js";
import { makeTree } from "../scenario/helpers.js";
import { markdownTableRows, REPOSITORY_ROOT, readUserDocs } from "../support/docs-text.js";
import { type BashSandbox, createBashSandbox } from "./bash-sandbox.js";

/** A value of each parameter kind that loads; a new kind fails `tsc` here until it has one. */
const EXAMPLE_VALUES: Record<GateParamKind, unknown> = {
  command: "true",
  text: "x",
  path: "notes.md",
  regex: "x+",
  jsonpath: "$.a",
  assertion: "exists",
  exit_code: 0,
  count: 1,
  subcommands: ["add"],
  options: ["--force"],
  regexes: ["^x"],
  count_map: { add: 2 },
  repeats: 3,
};

let sandbox: BashSandbox;
beforeAll(async () => {
  sandbox = await createBashSandbox();
});
afterAll(async () => {
  await sandbox.dispose();
});

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

  /** The gate with an example of each parameter, as a scenario file gives it, loaded. */
  async function loadGate(): Promise<GateSpec[]> {
    const examples = Object.entries(definition.params).map(([param, kind]) => [
      param,
      EXAMPLE_VALUES[kind as GateParamKind],
    ]);
    const gate = Object.fromEntries([["type", type], ...examples]);
    const scenario = { task: "t", target: { binary: "jq" }, evaluation: { gates: [gate] } };
    const dir = await makeTree({ "s.yaml": stringify(scenario) });
    const [loaded] = await loadScenarios(["s.yaml"], { cwd: dir });
    return loaded?.evaluation.gates ?? [];
  }

  // A gate whose parameter is `check` is what a bashkit dataset's check of an unknown type becomes
  // (scenario files refuse one): its spec is built as scenario/bashkit-dataset.ts builds it.
  it("loads from a scenario file with an example of each parameter and evaluates to a result of its type", async () => {
    const specs =
      "check" in definition.params
        ? [{ type, check: "no_such_check_type:x", weight: 1 } as GateSpec]
        : await loadGate();
    expect(specs.map((spec) => spec.type)).toEqual([type]);
    expect(specs.map((spec) => spec.type)).toEqual([type]);
    const [result] = await evaluateGates(specs, {
      sandbox,
      events: [],
      invocations: [],
      invocationSource: "shim",
      recordedCalls: [],
      scriptEnv: {},
      gateTimeoutMs: 10_000,
    });
    expect(result).toMatchObject({ gate_type: type, weight: specs[0]?.weight });
    expect(typeof result?.passed).toBe("boolean");
    expect(result?.message.trim().length).toBeGreaterThan(0);
    // An evaluator that throws on what the loader accepted is a defect, whatever it then reports.
    expect(result?.message).not.toMatch(/^gate error:/);
  });

  it("has its row in the docs' gate table, naming each of its parameters", () => {
    const row = gateRows.find((cells) => (cells[0] ?? "").includes(`\`${type}\``));
    expect(row, `no row for \`${type}\` in the gate table`).toBeDefined();
    const paramsCell = row?.[1] ?? "";
    if (params.length === 0) expect(paramsCell).toBe("—");
    for (const param of params) expect(paramsCell, param).toContain(`\`${param}\``);
  });
});
