/**
 * The published JSON Schemas: valid fixtures validate, a few invalid documents do not, every field
 * has a description (editors show it), and the property names equal the loader's known keys.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Ajv } from "ajv";
import { describe, expect, test } from "vitest";
import {
  AGENT_KEYS,
  CHECK_GATE_KEYS,
  COMPOSITE_KEYS,
  CRITERION_KEYS,
  EVALUATION_KEYS,
  GATE_COMMON_KEYS,
  GATE_PARAMS,
  GATE_TYPES,
  GUIDANCE_KEYS,
  GUIDANCE_MODES,
  JUDGE_KEYS,
  RUBRIC_KEYS,
  SANDBOX_SETTINGS,
  SCENARIO_KEYS,
  TARGET_KEYS,
  VARIANT_KEYS,
} from "../../src/scenario/keys.js";
import { loadScenarios, parseYamlFile, parseYamlText } from "../../src/scenario/load.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const FIXTURES = path.join(ROOT, "tests/fixtures/scenarios");

type Schema = {
  properties?: Record<string, Schema>;
  definitions?: Record<string, Schema>;
  required?: string[];
  oneOf?: Schema[];
  items?: Schema;
  enum?: string[];
  const?: string;
  $ref?: string;
  description?: string;
  additionalProperties?: boolean | Schema;
};

async function readSchema(name: string): Promise<Schema> {
  return JSON.parse(await readFile(path.join(ROOT, "schema", name), "utf8")) as Schema;
}

const scenarioSchema = await readSchema("scenario.schema.json");
const rubricSchema = await readSchema("rubric.schema.json");
const ajv = new Ajv({ allErrors: true, strict: true });
const validateScenario = ajv.compile(scenarioSchema);
const validateRubric = ajv.compile(rubricSchema);

function definition(name: string): Schema {
  const found = scenarioSchema.definitions?.[name];
  if (!found) throw new Error(`no definition ${name}`);
  return found;
}

const sorted = (keys: Iterable<string>) => [...keys].sort();
const keysOf = (schema: Schema | undefined) => sorted(Object.keys(schema?.properties ?? {}));

describe("scenario schema", () => {
  test("every valid scenario fixture validates", async () => {
    const scenarios = await loadScenarios([FIXTURES]);
    expect(scenarios.length).toBeGreaterThanOrEqual(2);
    for (const scenario of scenarios) {
      const document = await parseYamlFile(scenario.source.file);
      const valid = validateScenario(document);
      expect(valid, `${scenario.source.file}: ${ajv.errorsText(validateScenario.errors)}`).toBe(true);
    }
  });

  test("documents the loader rejects are rejected by the schema too", () => {
    for (const text of [
      "tsk: t\n",
      "task: t\ntier: high\n",
      "task: t\nagent: {timeout: 5 minutes}\n",
      "task: t\nevaluation: {gates: [{type: comand_succeeds, command: ls}]}\n",
      "task: t\nevaluation: {gates: [{type: file_exists, path: a, substring: b}]}\n",
      "task: t\nevaluation: {gates: [{type: command_json_path, command: c, path: $, assertion: len => 3}]}\n",
      "task: t\nevaluation: {gates: [{check: stdout_has:x}]}\n",
      "task: t\nsandbox: docker\n",
      "task: t\ntarget: {env: {PORT: 8080}}\n",
      "task: t\ntarget: {global_options: -f}\n",
      "task: t\ntarget: {global_options: [--file main.journal]}\n",
      "task: t\ntarget: {global_options: [-f, -f]}\n",
      "name: has space\ntask: t\n",
    ]) {
      expect(validateScenario(parseYamlText(text)), text).toBe(false);
    }
  });

  test("property names equal the loader's known keys", () => {
    expect(keysOf(scenarioSchema)).toEqual(sorted(SCENARIO_KEYS));
    expect(scenarioSchema.additionalProperties).toBe(false);
    const guidanceObject = definition("guidance").oneOf?.find((option) => option.properties);
    expect(keysOf(guidanceObject)).toEqual(sorted(GUIDANCE_KEYS));
    expect(guidanceObject?.properties?.mode?.enum).toEqual([...GUIDANCE_MODES]);
    expect(keysOf(definition("variant"))).toEqual(sorted(VARIANT_KEYS));
    expect(keysOf(definition("target"))).toEqual(sorted(TARGET_KEYS));
    expect(keysOf(definition("agent"))).toEqual(sorted(AGENT_KEYS));
    expect(keysOf(definition("evaluation"))).toEqual(sorted(EVALUATION_KEYS));
    expect(keysOf(definition("judge"))).toEqual(sorted(JUDGE_KEYS));
    expect(keysOf(definition("composite"))).toEqual(sorted(COMPOSITE_KEYS));
    expect(scenarioSchema.properties?.sandbox?.enum).toEqual([...SANDBOX_SETTINGS]);
    expect(keysOf(definition("gate_check"))).toEqual(sorted(CHECK_GATE_KEYS));

    const gateRefs = (definition("gate").oneOf ?? []).map((option) =>
      option.$ref?.replace("#/definitions/", ""),
    );
    expect(sorted(gateRefs.map(String))).toEqual(
      sorted([...GATE_TYPES.map((type) => `gate_${type}`), "gate_check"]),
    );
    for (const type of GATE_TYPES) {
      const gate = definition(`gate_${type}`);
      const params = Object.keys(GATE_PARAMS[type]);
      expect(gate.properties?.type?.const, type).toBe(type);
      expect(keysOf(gate), type).toEqual(sorted([...GATE_COMMON_KEYS, ...params]));
      expect(sorted(gate.required ?? []), type).toEqual(sorted(["type", ...params]));
      expect(gate.additionalProperties, type).toBe(false);
    }
  });

  test("every field has a description", () => {
    const missing: string[] = [];
    const visit = (schema: Schema, where: string) => {
      for (const [name, property] of Object.entries(schema.properties ?? {})) {
        const target = property.$ref ? definition(property.$ref.replace("#/definitions/", "")) : property;
        if (!property.description && !target.description) missing.push(`${where}.${name}`);
        visit(property, `${where}.${name}`);
        if (property.items) visit(property.items, `${where}.${name}[]`);
      }
      for (const option of schema.oneOf ?? []) visit(option, where);
    };
    visit(scenarioSchema, "scenario");
    for (const [name, schema] of Object.entries(scenarioSchema.definitions ?? {})) visit(schema, name);
    visit(rubricSchema, "rubric");
    expect(missing).toEqual([]);
  });
});

describe("rubric schema", () => {
  test("the fixture rubric validates", async () => {
    const rubric = await parseYamlFile(path.join(FIXTURES, "full/rubrics/quality.yaml"));
    expect(validateRubric(rubric), ajv.errorsText(validateRubric.errors)).toBe(true);
  });

  test("property names equal the loader's known keys", () => {
    expect(keysOf(rubricSchema)).toEqual(sorted(RUBRIC_KEYS));
    expect(keysOf(rubricSchema.properties?.criteria?.items)).toEqual(sorted(CRITERION_KEYS));
  });

  test("rejects what the loader rejects", () => {
    for (const text of [
      "criterion: []\n",
      "criteria: []\n",
      "criteria: [{id: a, weight: 0, description: x}]\n",
      "criteria: [{id: a, weight: 1}]\n",
      "criteria: [{id: 'a b', weight: 1, description: x}]\n",
    ]) {
      expect(validateRubric(parseYamlText(text)), text).toBe(false);
    }
  });
});
