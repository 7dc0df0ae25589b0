/**
 * The published JSON Schemas: they are what format.ts generates (the loader reads the same
 * definitions, so the two cannot drift), they compile for editors, valid fixtures validate, a few
 * invalid documents do not, and every field has a description (editors show it).
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Ajv } from "ajv";
import { describe, expect, test } from "vitest";
import { type FieldSchema, GATE_SCHEMAS, GATE_TYPES } from "../../src/scenario/format.js";
import { loadScenarios, parseYamlFile, parseYamlText } from "../../src/scenario/load.js";
import { buildSchemaFiles } from "../../src/scenario/schema-document.js";
import { configErrorOf, makeTree } from "./helpers.js";

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

  test("documents the loader rejects are rejected by the schema too", async () => {
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
      // Keys that become environment variable names.
      'task: t\ntarget: {env: {"": x}}\n',
      'task: t\ntarget: {env: {"A=B": x}}\n',
      'task: t\ntarget: {env: {"A\\0B": x}}\n',
      "task: t\nvariants: [{name: v, env: {1X: x}}]\n",
      // Once accepted by the hand-kept schema though the loader refused them.
      "task: t\nsystem: ''\n",
      "task: t\nevaluation: {gates: [{type: llm_judge, prompt: ''}]}\n",
      // Behaviour gates: at least one parameter, none empty, option names, counts.
      "task: t\ntarget: {binary: mlr}\nevaluation: {gates: [{type: forbidden_commands}]}\n",
      "task: t\ntarget: {binary: mlr}\nevaluation: {gates: [{type: forbidden_commands, options: []}]}\n",
      "task: t\ntarget: {binary: mlr}\nevaluation: {gates: [{type: forbidden_commands, options: [force]}]}\n",
      "task: t\ntarget: {binary: mlr}\nevaluation: {gates: [{type: max_invocations}]}\n",
      "task: t\ntarget: {binary: mlr}\nevaluation: {gates: [{type: max_invocations, subcommands: {}}]}\n",
      "task: t\ntarget: {binary: mlr}\nevaluation: {gates: [{type: max_invocations, subcommands: {sort: -1}}]}\n",
      'task: t\ntarget: {binary: mlr}\nevaluation: {gates: [{type: max_invocations, subcommands: {" ": 1}}]}\n',
      "task: t\ntarget: {binary: mlr}\nevaluation: {gates: [{type: no_loops, repeats: 1}]}\n",
    ]) {
      const dir = await makeTree({ "s.yaml": text });
      expect(await configErrorOf(() => loadScenarios(["s.yaml"], { cwd: dir })), text).toMatch(
        /^s\.yaml:\d+: /,
      );
      expect(validateScenario(parseYamlText(text)), text).toBe(false);
    }
  });

  test("the behaviour gates' parameters, as docs/scenarios.md shows them, load and validate", async () => {
    const text = [
      "task: t",
      "target: {binary: mlr}",
      "evaluation:",
      "  gates:",
      "    - {type: forbidden_commands, subcommands: [delete], options: [--force], patterns: ['^mlr .* --ojson']}",
      "    - {type: max_invocations, total: 10, subcommands: {sort: 3}}",
      "    - {type: no_loops}",
      "    - {type: no_loops, repeats: 2}",
      "",
    ].join("\n");
    const dir = await makeTree({ "s.yaml": text });
    const [scenario] = await loadScenarios(["s.yaml"], { cwd: dir });
    expect(scenario?.evaluation.gates.map((gate) => gate.type)).toEqual([
      "forbidden_commands",
      "max_invocations",
      "no_loops",
      "no_loops",
    ]);
    expect(validateScenario(parseYamlText(text)), ajv.errorsText(validateScenario.errors)).toBe(true);
  });

  test("a string of only whitespace is refused by the loader and the schema alike, naming the field", async () => {
    const blank = '" \\t  "';
    const gate = (fields: string) => `task: t\nevaluation: {gates: [{${fields}}]}\n`;
    const cases: [document: string, field: string][] = [
      [`task: ${blank}\n`, "task"],
      [`name: ${blank}\ntask: t\n`, "name"],
      [`task: t\ndescription: ${blank}\n`, "description"],
      [`task: t\ncategory: ${blank}\n`, "category"],
      [`task: t\nsystem: ${blank}\n`, "system"],
      [`task: t\ntags: [a, ${blank}]\n`, "tags[1]"],
      [`task: t\nsetup: [${blank}]\n`, "setup[0]"],
      [`task: t\nsolution: ${blank}\n`, "solution"],
      [`task: t\nsolution: [ls, ${blank}]\n`, "solution[1]"],
      [`task: t\nfiles: {${blank}: x}\n`, 'files[" \\t  "]'],
      [`task: t\ntarget: {env: {${blank}: x}}\n`, 'target.env[" \\t  "]'],
      [`task: t\nvariants: [{name: v, env: {${blank}: x}}]\n`, 'variants[0].env[" \\t  "]'],
      [`task: t\nguidance: ${blank}\n`, "guidance"],
      [`task: t\nagent: {model: ${blank}}\n`, "agent.model"],
      [`task: t\ntarget: {binary: ${blank}}\n`, "target.binary"],
      [`task: t\ntarget: {command_pattern: ${blank}}\n`, "target.command_pattern"],
      [`task: t\nevaluation: {judge: {model: ${blank}}}\n`, "evaluation.judge.model"],
      [gate(`type: command_succeeds, command: ${blank}`), "evaluation.gates[0].command"],
      [gate(`type: file_exists, path: a, description: ${blank}`), "evaluation.gates[0].description"],
      [gate(`type: file_contains, path: a, substring: ${blank}`), "evaluation.gates[0].substring"],
      [gate(`type: command_output_matches, command: c, pattern: ${blank}`), "evaluation.gates[0].pattern"],
      [
        gate(`type: command_json_path, command: c, path: ${blank}, assertion: exists`),
        "evaluation.gates[0].path",
      ],
    ];
    for (const [text, field] of cases) {
      const dir = await makeTree({ "s.yaml": text });
      const message = await configErrorOf(() => loadScenarios(["s.yaml"], { cwd: dir }));
      expect(message, text).toMatch(/^s\.yaml:\d+: /);
      expect(message, text).toContain(`: ${field}: `);
      expect(validateScenario(parseYamlText(text)), text).toBe(false);
      // The schema refuses the blank itself: with a value in its place the document validates.
      const filled = text.replaceAll(blank, "x");
      expect(
        validateScenario(parseYamlText(filled)),
        `${filled}: ${ajv.errorsText(validateScenario.errors)}`,
      ).toBe(true);
    }
  });

  /** Every subschema of both generated schemas, with where it is; `visit` sees each once. */
  const walkSchemas = (visit: (schema: FieldSchema, where: string) => void) => {
    const walk = (schema: FieldSchema | undefined, where: string) => {
      if (!schema) return;
      visit(schema, where);
      for (const [name, property] of Object.entries(schema.properties ?? {}))
        walk(property, `${where}.${name}`);
      for (const [name, definition] of Object.entries(
        (schema as { definitions?: Record<string, FieldSchema> }).definitions ?? {},
      )) {
        walk(definition, `#/definitions/${name}`);
      }
      for (const [index, option] of (schema.oneOf ?? []).entries()) walk(option, `${where}.oneOf[${index}]`);
      walk(schema.items, `${where}[]`);
      walk(schema.propertyNames, `${where} (key)`);
      if (typeof schema.additionalProperties === "object") walk(schema.additionalProperties, `${where}.*`);
    };
    const files = Object.entries(buildSchemaFiles());
    for (const [file, schema] of files) walk(schema as FieldSchema, file);
    return files.length;
  };

  test("every string the schemas require to be non-empty is refused when it is only whitespace", () => {
    // Guards the generator: a `minLength: 1` without the loader's not-blank rule fails here.
    const offenders: string[] = [];
    const files = walkSchemas((schema, where) => {
      if (schema.type === "string" && schema.minLength && ajv.validate(schema, " \t\n "))
        offenders.push(where);
    });
    expect(files).toBe(2);
    expect(offenders).toEqual([]);
  });

  test("every mapping whose keys are names refuses an empty key and one of only whitespace", () => {
    // Guards the generator: a map of names (files, env) without a rule for its keys fails here.
    const offenders: string[] = [];
    const files = walkSchemas((schema, where) => {
      if (typeof schema.additionalProperties !== "object") return;
      for (const key of ["", " \t\n "]) {
        if (!schema.propertyNames || ajv.validate(schema.propertyNames, key))
          offenders.push(`${where} (key ${JSON.stringify(key)})`);
      }
    });
    expect(files).toBe(2);
    expect(offenders).toEqual([]);
  });

  test("the committed schemas are the ones format.ts generates (`npm run schemas` rewrites them)", async () => {
    for (const [file, generated] of Object.entries(buildSchemaFiles())) {
      const committed = JSON.parse(await readFile(path.join(ROOT, file), "utf8"));
      expect(committed, `${file} is stale: run \`npm run schemas\``).toEqual(
        JSON.parse(JSON.stringify(generated)),
      );
    }
  });

  test("the loader requires every parameter the schema requires of each gate", async () => {
    const withParams = GATE_TYPES.filter((type) => (GATE_SCHEMAS[type].required ?? []).length > 1);
    const gates = withParams.map((type) => `    - type: ${type}\n`).join("");
    const dir = await makeTree({ "s.yaml": `task: t\nevaluation:\n  gates:\n${gates}` });
    const message = await configErrorOf(() => loadScenarios(["s.yaml"], { cwd: dir }));
    const expected = withParams.flatMap((type, index) =>
      (GATE_SCHEMAS[type].required ?? [])
        .filter((key) => key !== "type")
        .map(
          (key) =>
            `s.yaml:${index + 4}: evaluation.gates[${index}].${key}: missing required key \`${key}\` for a \`${type}\` gate`,
        ),
    );
    expect(message.split("\n")).toEqual(expected);
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

  test("rejects what the loader rejects", () => {
    for (const text of [
      "criterion: []\n",
      "criteria: []\n",
      "criteria: [{id: a, weight: 0, description: x}]\n",
      "criteria: [{id: a, weight: 1}]\n",
      "criteria: [{id: 'a b', weight: 1, description: x}]\n",
      "criteria: [{id: a, weight: 1, description: '  '}]\n",
    ]) {
      expect(validateRubric(parseYamlText(text)), text).toBe(false);
    }
  });

  test("a criterion description of only whitespace is refused by the loader and the schema", async () => {
    const rubric = "criteria:\n  - id: a\n    weight: 1\n    description: ' \t '\n";
    const dir = await makeTree({
      "r.yaml": rubric,
      "s.yaml": "task: t\nevaluation: {judge: {rubric: r.yaml}}\n",
    });
    expect(await configErrorOf(() => loadScenarios(["s.yaml"], { cwd: dir }))).toMatch(
      /r\.yaml:\d+: criteria\[0\]\.description: /,
    );
    expect(validateRubric(parseYamlText(rubric))).toBe(false);
  });
});
