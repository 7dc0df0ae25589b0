/**
 * bashkit-eval JSONL datasets, unchanged: one task a line (`id, category, description, system?,
 * prompt, files, expectations[{check, weight?}]`), each check string a gate with bashkit-eval's
 * meaning (see gates.ts `createCheckGate`). Their files use absolute paths, so dataset scenarios
 * run in the bwrap sandbox, where the work dir is the root.
 *
 * What makes a task run as it does in bashkit-eval, whose shell is an interpreter over a virtual
 * filesystem: the turn limit defaults to bashkit-eval's 10; the sandbox's hostname is
 * `bashkit-eval`; every folder is writable, system folders included (copy-on-write in bwrap,
 * discarded with the trial); the agent starts in /home/user with HOME /home/eval, as bashkit's
 * interpreter (bashkit-home.ts: older bashkit versions differ); a check of a type this version
 * does not know fails that check, with a load warning, instead of rejecting the dataset.
 */
import { describeError } from "../errors.js";
import { describeExcessNesting, findExcessNesting } from "../json-nesting.js";
import { CURRENT_BASHKIT_HOME } from "./bashkit-home.js";
import { ID_PATTERN } from "./format.js";
import { checkTypeOf, createCheckGate, describeUnknownCheck, isKnownCheckType } from "./gates.js";
import { BASHKIT_EXPECTATION_KEYS, BASHKIT_TASK_KEYS } from "./keys.js";
import { describeBlank, NodeReader } from "./node-reader.js";
import { indexField, joinField, type Problem } from "./problems.js";
import { MAX_DATASET_BYTES, readInputText } from "./read-text.js";
import type { GateSpec, MachineProfile, UnhashedScenario } from "./types.js";
import type { YamlNode } from "./yaml-node.js";

type ScenarioWithoutHash = UnhashedScenario;

/** bashkit-eval's default `--max-turns`; a task's own `max_turns` wins. */
const BASHKIT_MAX_TURNS = 10;
/** The sandbox as bashkit-eval's interpreter presents it (its tasks check `hostname`, write /lib...). */
const BASHKIT_MACHINE: Readonly<Required<Omit<MachineProfile, "home">>> = {
  hostname: "bashkit-eval",
  writableSystemDirs: true,
};

export interface ParsedDataset {
  scenarios: ScenarioWithoutHash[];
  /** What stops the dataset from loading. */
  problems: Problem[];
  /** What loads but deserves a word: checks of unknown types, which fail in every trial. */
  warnings: Problem[];
}

const TASK_HINTS: Record<string, string> = {
  verify: "bashkit-eval `verify` scripts are not supported; express the check as an expectation",
  name: "the task id is written `id`",
  task: "the message given to the agent is written `prompt`",
};

/** Parses a dataset's text; `file` is its absolute path. Blank, `#` and `//` lines are skipped, as bashkit-eval does. */
export function parseBashkitDataset(text: string, file: string): ParsedDataset {
  const scenarios: ScenarioWithoutHash[] = [];
  const problems: Problem[] = [];
  const warnings: Problem[] = [];
  const lines = text.split(/\r?\n/);
  lines.forEach((raw, index) => {
    const lineText = raw.trim();
    if (lineText === "" || lineText.startsWith("#") || lineText.startsWith("//")) return;
    const line = index + 1;
    if (findExcessNesting(lineText) !== null) {
      problems.push({ file, line, message: describeExcessNesting() });
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(lineText);
    } catch (error) {
      problems.push({ file, line, message: `invalid JSON: ${describeError(error)}` });
      return;
    }
    const reader = new NodeReader(file);
    const scenario = buildTask(reader, convertJson(value, line), file, line, warnings);
    problems.push(...reader.problems);
    if (scenario) scenarios.push(scenario);
  });
  if (scenarios.length === 0 && problems.length === 0) {
    problems.push({ file, message: "the dataset has no tasks (expected one JSON object a line)" });
  }
  return { scenarios, problems, warnings };
}

export async function readBashkitDataset(file: string): Promise<ParsedDataset> {
  const read = await readInputText(file, MAX_DATASET_BYTES);
  if ("reason" in read) {
    return {
      scenarios: [],
      problems: [{ file, message: `cannot read the dataset (${read.reason})` }],
      warnings: [],
    };
  }
  return parseBashkitDataset(read.text, file);
}

function buildTask(
  reader: NodeReader,
  node: YamlNode,
  file: string,
  line: number,
  warnings: Problem[],
): ScenarioWithoutHash | undefined {
  if (node.kind !== "map") {
    reader.expected(node, "", "a JSON object (one bashkit-eval task)");
    return undefined;
  }
  const entries = reader.readMap(node, "", BASHKIT_TASK_KEYS, {
    owner: "a bashkit-eval task",
    hints: TASK_HINTS,
  });
  if (!entries) return undefined;
  const required = (key: string): YamlNode | undefined => {
    const value = entries.get(key)?.value;
    if (!value) reader.report(line, key, `missing required key \`${key}\``);
    return value;
  };
  const idNode = required("id");
  const id = idNode ? reader.readString(idNode, "id") : undefined;
  if (id !== undefined && !ID_PATTERN.test(id)) {
    reader.report(
      line,
      "id",
      `expected letters, digits, \`.\`, \`_\` and \`-\` (it names the output folder), found ${JSON.stringify(id)}`,
    );
  }
  const categoryNode = required("category");
  const category = categoryNode ? reader.readString(categoryNode, "category") : undefined;
  const descriptionNode = required("description");
  const description = descriptionNode
    ? reader.readString(descriptionNode, "description", { allowEmpty: true })
    : undefined;
  const promptNode = required("prompt");
  const prompt = promptNode ? reader.readString(promptNode, "prompt") : undefined;
  const systemNode = entries.get("system")?.value;
  const system =
    systemNode && !(systemNode.kind === "scalar" && systemNode.value === null)
      ? reader.readString(systemNode, "system", { allowEmpty: true })
      : undefined;
  const filesNode = entries.get("files")?.value;
  const files = filesNode ? (reader.readStringMap(filesNode, "files") ?? {}) : {};
  // The keys name the files written into the sandbox, as in a scenario's `files:`.
  for (const entry of filesNode?.kind === "map" ? filesNode.entries : []) {
    const blank = describeBlank(entry.key, "a file name");
    if (blank) reader.report(entry.keyLine, joinField("files", entry.key), blank);
  }
  const tags: string[] = [];
  for (const key of ["mode", "difficulty"]) {
    const tagNode = entries.get(key)?.value;
    const tag = tagNode ? reader.readString(tagNode, key) : undefined;
    if (tag !== undefined) tags.push(tag);
  }
  const turnsNode = entries.get("max_turns")?.value;
  const maxTurns = turnsNode ? reader.readInteger(turnsNode, "max_turns", 1) : undefined;
  const setupNode = entries.get("setup")?.value;
  const setup = setupNode ? reader.readString(setupNode, "setup") : undefined;
  const expectationsNode = required("expectations");
  const gates = expectationsNode ? readExpectations(reader, expectationsNode, warnings) : undefined;

  if (
    reader.problems.length > 0 ||
    id === undefined ||
    category === undefined ||
    prompt === undefined ||
    !gates
  ) {
    return undefined;
  }
  const scenario: ScenarioWithoutHash = {
    id,
    category,
    tags,
    tier: 1,
    task: prompt,
    files,
    setup: setup === undefined ? [] : [setup],
    variants: [],
    target: { env: {} },
    agent: { maxTurns: maxTurns ?? BASHKIT_MAX_TURNS },
    evaluation: { gates },
    sandbox: "bwrap",
    // The current bashkit's; a run gives a recording's trials the layout of the bashkit that made it.
    machine: { ...BASHKIT_MACHINE, home: CURRENT_BASHKIT_HOME },
    source: { file, line, format: "bashkit-jsonl" },
  };
  if (description !== undefined && description !== "") scenario.description = description;
  if (system !== undefined) scenario.system = system;
  return scenario;
}

function readExpectations(reader: NodeReader, node: YamlNode, warnings: Problem[]): GateSpec[] | undefined {
  if (node.kind !== "seq") return reader.expected(node, "expectations", "a list of {check, weight?}");
  const gates: GateSpec[] = [];
  node.items.forEach((item, index) => {
    const field = indexField("expectations", index);
    const entries = reader.readMap(item, field, BASHKIT_EXPECTATION_KEYS, { owner: "an expectation" });
    if (!entries) return;
    const checkNode = entries.get("check")?.value;
    if (!checkNode) {
      reader.report(item.line, joinField(field, "check"), "missing required key `check`");
      return;
    }
    const check = reader.readString(checkNode, joinField(field, "check"));
    const weightNode = entries.get("weight")?.value;
    const weight = weightNode ? reader.readNumber(weightNode, joinField(field, "weight"), 0) : 1;
    if (check === undefined || weight === undefined) return;
    if (!isKnownCheckType(checkTypeOf(check))) {
      warnings.push({
        file: reader.file,
        line: checkNode.line,
        field: joinField(field, "check"),
        message: `${describeUnknownCheck(check)}: the check fails in every trial, as in bashkit-eval`,
      });
      gates.push({ type: "unsupported_check", check, weight, description: check });
      return;
    }
    try {
      gates.push(createCheckGate(check, weight));
    } catch (error) {
      reader.report(checkNode.line, joinField(field, "check"), describeError(error));
    }
  });
  return gates;
}

/** A JSON value as a located node; everything on a JSONL line shares that line. */
function convertJson(value: unknown, line: number): YamlNode {
  if (Array.isArray(value)) return { kind: "seq", line, items: value.map((item) => convertJson(item, line)) };
  if (value !== null && typeof value === "object") {
    return {
      kind: "map",
      line,
      entries: Object.entries(value).map(([key, item]) => ({
        key,
        keyLine: line,
        value: convertJson(item, line),
      })),
    };
  }
  if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") {
    return { kind: "scalar", line, value };
  }
  return { kind: "scalar", line, value: null };
}
