/** Builds a Scenario from one parsed scenario YAML file (docs/scenarios.md; the format is format.ts's), collecting every problem. */
import { realpath, stat } from "node:fs/promises";
import path from "node:path";
import { describeError } from "../errors.js";
import { patternSyntaxError } from "../evaluate/regex.js";
import { parseTolerance, TOLERANCE_PATTERN } from "../results/tolerance-gates.js";
import { parseDuration } from "./duration.js";
import {
  AGENT,
  COMPOSITE,
  DEFAULT_CATEGORY,
  DEFAULT_TIER,
  ENV_NAME_PATTERN,
  EVALUATION,
  GUIDANCE_OBJECT,
  ID_PATTERN,
  JUDGE,
  keysOf,
  OPTION_NAME_PATTERN,
  SCENARIO,
  TARGET,
  TOLERANCE_GATES,
  VARIANT,
} from "./format.js";
import { type GateReadingContext, readGate } from "./gates.js";
import { describeBlank, type NodeReader, type ScalarKey } from "./node-reader.js";
import { describeEscape, findEscapingLink, findReadableRoot, isInside } from "./paths.js";
import { indexField, joinField, type Problem } from "./problems.js";
import { formatSum, WEIGHT_TOLERANCE } from "./rubric.js";
import type {
  AgentOverrides,
  CompositeWeights,
  Evaluation,
  GateSpec,
  Guidance,
  JudgeSpec,
  Rubric,
  Target,
  UnhashedScenario,
  Variant,
} from "./types.js";
import type { YamlEntry, YamlNode } from "./yaml-node.js";

const ID_EXPECTED =
  "letters, digits, `.`, `_` and `-`, starting with a letter or digit (it names the output folder)";

export interface YamlScenarioIo {
  /** Loads and validates a rubric file; its problems name the rubric file. */
  readRubric(file: string): Promise<{ rubric?: Rubric; problems: Problem[] }>;
}

const ROOT_HINTS: Record<string, string> = {
  id: "the scenario id is written `name`",
  prompt: "the message given to the agent is written `task`",
  gates: "gates go under `evaluation.gates`",
  expectations: "gates go under `evaluation.gates`",
  judge: "the judge goes under `evaluation.judge`",
  composite: "composite weights go under `evaluation.composite`",
  model: "the model goes under `agent.model`",
  max_turns: "write it under `agent`",
  timeout: "write it under `agent`",
  command_pattern: "write it under `target`",
  global_options: "write it under `target`",
  binary: "write it under `target`",
  env: "write it under `target` (or a variant)",
};

type ScenarioWithoutHash = UnhashedScenario;

/** Returns the scenario, or undefined after recording problems on `reader`. */
export async function buildYamlScenario(
  tree: YamlNode,
  file: string,
  reader: NodeReader,
  io: YamlScenarioIo,
): Promise<ScenarioWithoutHash | undefined> {
  const dir = path.dirname(file);
  if (tree.kind !== "map") {
    reader.expected(tree, "", "a mapping of scenario fields (at least `task`)");
    return undefined;
  }
  const root = reader.readObject(tree, "", SCENARIO, {
    hints: ROOT_HINTS,
    requiredHints: { task: "the message given to the agent" },
  });
  if (!root) return undefined;
  const get = (key: keyof typeof SCENARIO.properties): YamlNode | undefined => root.get(key)?.value;
  const optional = <T>(
    key: keyof typeof SCENARIO.properties,
    read: (node: YamlNode, field: string) => T | undefined,
  ): T | undefined => {
    const node = get(key);
    return node ? read(node, key) : undefined;
  };
  const value = <K extends ScalarKey<typeof SCENARIO>>(key: K) => reader.readEntry(root, "", SCENARIO, key);

  const id = readId(reader, root.get("name"), file);
  const description = value("description");
  const category = value("category") ?? DEFAULT_CATEGORY;
  const tags = value("tags") ?? [];
  const tier = value("tier") ?? DEFAULT_TIER;
  const task = value("task");
  const system = value("system");
  const sandbox = value("sandbox");
  const network = value("network");
  const fixture = await optionalAsync(get("fixture"), (node) => readFixture(reader, node, "fixture", dir));
  const files = optional("files", (node, field) => readFiles(reader, node, field, sandbox)) ?? {};
  const setup = value("setup") ?? [];
  const guidance = await optionalAsync(get("guidance"), (node) =>
    readGuidance(reader, node, "guidance", dir),
  );
  const variants =
    (await optionalAsync(get("variants"), (node) => readVariants(reader, node, "variants", dir))) ?? [];
  const target = (await optionalAsync(get("target"), (node) => readTarget(reader, node, "target", dir))) ?? {
    env: {},
  };
  const agent = optional("agent", (node, field) => readAgent(reader, node, field)) ?? {};
  const solution = optional("solution", (node, field) => {
    // One string is one bash call (a `|` block runs as one script), as one entry of the list is.
    if (node.kind === "scalar" && typeof node.value === "string") {
      const command = reader.readString(node, field);
      return command === undefined ? undefined : [command];
    }
    const list = reader.readStringList(node, field);
    if (list && list.length === 0)
      reader.report(node.line, field, "expected at least one command (or remove `solution`)");
    return list;
  });
  const evaluation = (await optionalAsync(get("evaluation"), (node) =>
    readEvaluation(reader, node, "evaluation", dir, io, { hasTargetBinary: target.binary !== undefined }),
  )) ?? { gates: [] };
  const trials = value("trials");
  const toleranceGates = optional("tolerance_gates", (node, field) =>
    readToleranceGates(reader, node, field),
  );

  if (reader.problems.length > 0 || id === undefined || task === undefined) return undefined;
  const scenario: ScenarioWithoutHash = {
    id,
    category,
    tags,
    tier,
    task,
    files,
    setup,
    variants,
    target,
    agent,
    evaluation,
    source: { file, line: 1, format: "yaml" },
  };
  if (description !== undefined) scenario.description = description;
  if (system !== undefined) scenario.system = system;
  if (fixture !== undefined) scenario.fixture = fixture;
  if (guidance !== undefined) scenario.guidance = guidance;
  if (solution !== undefined) scenario.solution = solution;
  if (trials !== undefined) scenario.trials = trials;
  if (toleranceGates !== undefined) scenario.toleranceGates = toleranceGates;
  if (sandbox !== undefined) scenario.sandbox = sandbox;
  if (network !== undefined) scenario.network = network;
  return scenario;
}

/** `tolerance_gates`: metric → "+N%", each read as a fraction (tolerance-gates.ts's syntax). */
function readToleranceGates(
  reader: NodeReader,
  node: YamlNode,
  field: string,
): Record<string, number> | undefined {
  const entries = reader.readObject(node, field, TOLERANCE_GATES);
  if (!entries) return undefined;
  const gates: Record<string, number> = {};
  for (const [metric, entry] of entries) {
    const at = joinField(field, metric);
    const text = reader.readString(entry.value, at);
    if (text === undefined) continue;
    if (!TOLERANCE_PATTERN.test(text)) {
      reader.report(entry.value.line, at, `expected an increase in percent such as "+20%", got "${text}"`);
      continue;
    }
    gates[metric] = parseTolerance(text, at);
  }
  return gates;
}

async function optionalAsync<T>(
  node: YamlNode | undefined,
  read: (node: YamlNode) => Promise<T | undefined>,
) {
  return node ? read(node) : undefined;
}

function readId(reader: NodeReader, entry: YamlEntry | undefined, file: string): string | undefined {
  if (!entry) {
    const fromFile = path.basename(file).replace(/\.ya?ml$/i, "");
    if (ID_PATTERN.test(fromFile)) return fromFile;
    reader.report(
      1,
      "name",
      `missing \`name\`, and the file name ${JSON.stringify(fromFile)} is not a valid id: add \`name:\` (${ID_EXPECTED})`,
    );
    return undefined;
  }
  const id = reader.readString(entry.value, "name");
  if (id !== undefined && !ID_PATTERN.test(id)) {
    reader.report(entry.value.line, "name", `expected ${ID_EXPECTED}, found ${JSON.stringify(id)}`);
    return undefined;
  }
  return id;
}

/** The fixture directory: it must exist and stay inside the scenario's folder (symlinks resolved). */
async function readFixture(
  reader: NodeReader,
  node: YamlNode,
  field: string,
  dir: string,
): Promise<string | undefined> {
  const value = reader.readString(node, field);
  if (value === undefined) return undefined;
  const resolved = path.resolve(dir, value);
  if (!isInside(dir, resolved)) {
    reader.report(
      node.line,
      field,
      `${JSON.stringify(value)} is outside the scenario's folder; a fixture must be a directory next to the scenario file`,
    );
    return undefined;
  }
  const info = await stat(resolved).catch(() => undefined);
  if (!info) {
    reader.report(
      node.line,
      field,
      `directory ${JSON.stringify(value)} does not exist (looked for ${resolved})`,
    );
    return undefined;
  }
  if (!info.isDirectory()) {
    reader.report(
      node.line,
      field,
      `${JSON.stringify(value)} is a file; a fixture must be a directory (its contents are copied into the work dir)`,
    );
    return undefined;
  }
  const [realDir, realFixture] = await Promise.all([realpath(dir), realpath(resolved)]);
  if (!isInside(realDir, realFixture)) {
    reader.report(
      node.line,
      field,
      `${JSON.stringify(value)} leads outside the scenario's folder through a symbolic link`,
    );
    return undefined;
  }
  const link = await findEscapingLink(resolved);
  if (link !== undefined) {
    reader.report(
      node.line,
      field,
      `the fixture holds a symbolic link that points outside it (${JSON.stringify(link)}); links in a fixture must stay inside it and be relative`,
    );
    return undefined;
  }
  return resolved;
}

function readFiles(
  reader: NodeReader,
  node: YamlNode,
  field: string,
  sandbox: string | undefined,
): Record<string, string> | undefined {
  const files = reader.readStringMap(node, field);
  if (!files || node.kind !== "map") return files;
  for (const entry of node.entries) {
    const name = entry.key;
    const at = joinField(field, name);
    const blank = describeBlank(name, "a file name");
    if (blank) {
      reader.report(entry.keyLine, at, blank);
    } else if (path.posix.isAbsolute(name)) {
      if (sandbox !== "bwrap") {
        reader.report(
          entry.keyLine,
          at,
          "an absolute path needs `sandbox: bwrap` (only there is the work dir the root); otherwise use a path relative to the work dir",
        );
      }
    } else if (path.posix.resolve("/w", name) === "/w") {
      reader.report(entry.keyLine, at, "must name a file inside the work dir, not the work dir itself");
    } else if (!isInside("/w", path.posix.resolve("/w", name))) {
      reader.report(entry.keyLine, at, "the path leaves the work dir; use a path inside it");
    }
  }
  return files;
}

async function readGuidance(
  reader: NodeReader,
  node: YamlNode,
  field: string,
  dir: string,
): Promise<Guidance | undefined> {
  let fileNode: YamlNode | undefined = node;
  let mode: Guidance["mode"] | undefined = GUIDANCE_OBJECT.properties.mode.default;
  if (node.kind === "map") {
    const entries = reader.readObject(node, field, GUIDANCE_OBJECT, {
      owner: "guidance",
      requiredHints: { file: "the guidance document, e.g. AGENTS.md" },
    });
    fileNode = entries?.get("file")?.value;
    const modeNode = entries?.get("mode")?.value;
    if (modeNode) mode = reader.read(modeNode, joinField(field, "mode"), GUIDANCE_OBJECT.properties.mode);
    if (!fileNode) return undefined;
  } else if (node.kind !== "scalar" || typeof node.value !== "string") {
    return reader.expected(node, field, "a file path or a mapping {file, mode}");
  }
  const fileField = node.kind === "map" ? joinField(field, "file") : field;
  const file = await readConfinedFile(reader, fileNode, fileField, dir, "guidance file");
  if (file === undefined || mode === undefined) return undefined;
  return { file, mode };
}

/** A file that exists and stays in the scenario's repository (or folder), symlinks resolved. */
async function readConfinedFile(
  reader: NodeReader,
  node: YamlNode,
  field: string,
  dir: string,
  what: string,
): Promise<string | undefined> {
  const value = reader.readString(node, field);
  if (value === undefined) return undefined;
  const resolved = path.resolve(dir, value);
  const root = await findReadableRoot(dir);
  if (!isInside(root.dir, resolved)) {
    reader.report(node.line, field, `${what} ${await describeEscape(resolved, root, value)}`);
    return undefined;
  }
  const info = await stat(resolved).catch(() => undefined);
  if (!info) {
    reader.report(
      node.line,
      field,
      `${what} ${JSON.stringify(value)} does not exist (looked for ${resolved})`,
    );
    return undefined;
  }
  if (!info.isFile()) {
    reader.report(node.line, field, `${what} ${JSON.stringify(value)} is not a file`);
    return undefined;
  }
  const leaves = await describeEscape(resolved, root, value);
  if (leaves) {
    reader.report(node.line, field, `${what} ${leaves}`);
    return undefined;
  }
  return resolved;
}

async function readVariants(
  reader: NodeReader,
  node: YamlNode,
  field: string,
  dir: string,
): Promise<Variant[] | undefined> {
  if (node.kind !== "seq") return reader.expected(node, field, "a list of variants {name, guidance?, env?}");
  const variants: Variant[] = [];
  const seen = new Map<string, number>();
  for (const [index, item] of node.items.entries()) {
    const at = indexField(field, index);
    const entries = reader.readObject(item, at, VARIANT, { owner: "a variant" });
    const nameEntry = entries?.get("name");
    if (!entries || !nameEntry) continue;
    const name = reader.readString(nameEntry.value, joinField(at, "name"));
    if (name === undefined) continue;
    if (!ID_PATTERN.test(name)) {
      reader.report(
        nameEntry.value.line,
        joinField(at, "name"),
        `expected ${ID_EXPECTED}, found ${JSON.stringify(name)}`,
      );
      continue;
    }
    const firstLine = seen.get(name);
    if (firstLine !== undefined) {
      reader.report(
        nameEntry.value.line,
        joinField(at, "name"),
        `duplicate variant name \`${name}\` (first used on line ${firstLine})`,
      );
      continue;
    }
    seen.set(name, nameEntry.value.line);
    const variant: Variant = { name };
    const guidanceNode = entries.get("guidance")?.value;
    if (guidanceNode) {
      const guidance = await readGuidance(reader, guidanceNode, joinField(at, "guidance"), dir);
      if (guidance) variant.guidance = guidance;
    }
    const envNode = entries.get("env")?.value;
    if (envNode) {
      const env = readEnv(reader, envNode, joinField(at, "env"));
      if (env) variant.env = env;
    }
    variants.push(variant);
  }
  return variants;
}

/**
 * Folders a `target.binary` path may name besides the scenario's repository: the system's own
 * programs, which every sandbox shows anyway.
 */
const TARGET_SYSTEM_DIRS = ["/usr", "/bin", "/sbin"];

/**
 * A `target.binary` path (not a bare name, which is looked up on the runner's PATH) must be inside
 * the repository that holds the scenario (the scenario's folder outside git) or a system folder,
 * symbolic links resolved: the sandbox binds the binary's folder read-only so the tool can reach
 * what lies beside it, and a scenario from a pull request must not name `/root/x` to have `/root`
 * shown to the agent. Null when it may; else why not.
 */
async function describeTargetEscape(resolved: string, dir: string, shown: string): Promise<string | null> {
  const real = await realpath(resolved).catch(() => resolved);
  // Both the path named and the file it leads to are system files (with /usr merged, /bin/sh leads to /usr/bin/dash).
  const inSystem = (file: string) => TARGET_SYSTEM_DIRS.some((system) => isInside(system, file));
  if (inSystem(resolved) && inSystem(real)) return null;
  const root = await findReadableRoot(dir);
  const leaves = isInside(root.dir, resolved)
    ? real === resolved
      ? null
      : await describeEscape(resolved, root, shown)
    : `${JSON.stringify(shown)} is outside ${root.name} (${root.dir})`;
  return leaves
    ? `${leaves} and the system folders (${TARGET_SYSTEM_DIRS.join(", ")}): name a program on PATH, or a path inside the repository`
    : null;
}

async function readTarget(
  reader: NodeReader,
  node: YamlNode,
  field: string,
  dir: string,
): Promise<Target | undefined> {
  const entries = reader.readObject(node, field, TARGET, { owner: "target" });
  if (!entries) return undefined;
  const target: Target = { env: {} };
  const binaryNode = entries.get("binary")?.value;
  if (binaryNode) {
    const binary = reader.read(binaryNode, joinField(field, "binary"), TARGET.properties.binary);
    // A bare name is looked up on PATH; anything with a slash is a path relative to the scenario file.
    const resolved = binary?.includes("/") ? path.resolve(dir, binary) : undefined;
    const outside = binary && resolved ? await describeTargetEscape(resolved, dir, binary) : null;
    if (outside) reader.report(binaryNode.line, joinField(field, "binary"), outside);
    else if (binary !== undefined) target.binary = resolved ?? binary;
  }
  const patternNode = entries.get("command_pattern")?.value;
  if (patternNode) {
    const pattern = reader.read(
      patternNode,
      joinField(field, "command_pattern"),
      TARGET.properties.command_pattern,
    );
    const problem = pattern === undefined ? null : patternSyntaxError(pattern);
    if (problem) reader.report(patternNode.line, joinField(field, "command_pattern"), problem);
    else if (pattern !== undefined) target.commandPattern = pattern;
  }
  const optionsNode = entries.get("global_options")?.value;
  if (optionsNode) {
    const options = readGlobalOptions(reader, optionsNode, joinField(field, "global_options"));
    if (options) target.globalOptions = options;
  }
  const envNode = entries.get("env")?.value;
  if (envNode) target.env = readEnv(reader, envNode, joinField(field, "env")) ?? {};
  return target;
}

/**
 * An `env:` mapping (`target.env`, a variant's): its keys become variable names in the agent's
 * environment, where an empty name, an `=` or a NUL would corrupt the entries around it, so each
 * must be a name a shell can set.
 */
function readEnv(reader: NodeReader, node: YamlNode, field: string): Record<string, string> | undefined {
  const env = reader.readStringMap(node, field);
  if (!env || node.kind !== "map") return env;
  for (const entry of node.entries) {
    const name = entry.key;
    const problem =
      describeBlank(name, "an environment variable name") ??
      (ENV_NAME_PATTERN.test(name)
        ? null
        : `${JSON.stringify(name)} is not an environment variable name: use letters, digits and _, not starting with a digit`);
    if (problem) reader.report(entry.keyLine, joinField(field, name), problem);
  }
  return env;
}

/** `target.global_options`: the names of the options that take their value in the next argument. */
function readGlobalOptions(reader: NodeReader, node: YamlNode, field: string): string[] | undefined {
  if (node.kind !== "seq") return reader.expected(node, field, "a list of option names such as [-f, --file]");
  const options: string[] = [];
  node.items.forEach((item, index) => {
    const itemField = indexField(field, index);
    const option = reader.readString(item, itemField);
    if (option === undefined) return;
    if (!OPTION_NAME_PATTERN.test(option)) {
      reader.report(
        item.line,
        itemField,
        `${JSON.stringify(option)} is not an option name: write it as the tool spells it, without its value (\`-f\`, \`--file\`), one option per item`,
      );
    } else if (options.includes(option)) {
      reader.report(item.line, itemField, `${JSON.stringify(option)} is listed twice`);
    } else options.push(option);
  });
  return options;
}

function readAgent(reader: NodeReader, node: YamlNode, field: string): AgentOverrides | undefined {
  const entries = reader.readObject(node, field, AGENT, {
    owner: "agent",
    hints: { maxTurns: "write `max_turns`", trials: "`trials` is a top-level key" },
  });
  if (!entries) return undefined;
  const agent: AgentOverrides = {};
  const model = reader.readEntry(entries, field, AGENT, "model");
  if (model !== undefined) agent.model = model;
  const maxTurns = reader.readEntry(entries, field, AGENT, "max_turns");
  if (maxTurns !== undefined) agent.maxTurns = maxTurns;
  const timeoutNode = entries.get("timeout")?.value;
  if (timeoutNode) {
    const timeoutMs = readDuration(reader, timeoutNode, joinField(field, "timeout"));
    if (timeoutMs !== undefined) agent.timeoutMs = timeoutMs;
  }
  const commandTimeoutNode = entries.get("command_timeout")?.value;
  if (commandTimeoutNode) {
    const commandTimeoutMs = readDuration(reader, commandTimeoutNode, joinField(field, "command_timeout"));
    if (commandTimeoutMs !== undefined) agent.commandTimeoutMs = commandTimeoutMs;
  }
  return agent;
}

function readDuration(reader: NodeReader, node: YamlNode, field: string): number | undefined {
  if (node.kind !== "scalar" || (typeof node.value !== "string" && typeof node.value !== "number")) {
    return reader.expected(
      node,
      field,
      'a duration like "300s", "5m", "1500ms", "1h" or a number of seconds',
    );
  }
  try {
    return parseDuration(node.value);
  } catch (error) {
    reader.report(node.line, field, describeError(error));
    return undefined;
  }
}

async function readEvaluation(
  reader: NodeReader,
  node: YamlNode,
  field: string,
  dir: string,
  io: YamlScenarioIo,
  scenario: GateReadingContext,
): Promise<Evaluation | undefined> {
  const entries = reader.readObject(node, field, EVALUATION, { owner: "evaluation" });
  if (!entries) return undefined;
  const evaluation: Evaluation = { gates: [] };
  const gatesNode = entries.get("gates")?.value;
  if (gatesNode) {
    const gatesField = joinField(field, "gates");
    if (gatesNode.kind !== "seq") {
      reader.expected(gatesNode, gatesField, "a list of gates");
    } else {
      gatesNode.items.forEach((item, index) => {
        const gate: GateSpec | undefined = readGate(reader, item, indexField(gatesField, index), scenario);
        if (gate) evaluation.gates.push(gate);
      });
    }
  }
  const judgeNode = entries.get("judge")?.value;
  let judgeDeclared = false;
  if (judgeNode) {
    judgeDeclared = true;
    const judge = await readJudge(reader, judgeNode, joinField(field, "judge"), dir, io);
    if (judge) evaluation.judge = judge;
    else if (judgeNode.kind === "map") judgeDeclared = readsEnabled(judgeNode);
  }
  const compositeEntry = entries.get("composite");
  const compositeNode = compositeEntry?.value;
  if (compositeEntry && compositeNode) {
    const composite = readComposite(
      reader,
      compositeNode,
      joinField(field, "composite"),
      compositeEntry.keyLine,
    );
    if (composite) {
      const judgeOn = evaluation.judge ? evaluation.judge.enabled : judgeDeclared;
      if (composite.judgeWeight > 0 && !judgeOn) {
        const judgeWeightLine =
          compositeNode.kind === "map"
            ? compositeNode.entries.find((entry) => entry.key === "judge_weight")?.keyLine
            : undefined;
        reader.report(
          judgeWeightLine ?? compositeEntry.keyLine,
          joinField(joinField(field, "composite"), "judge_weight"),
          `a judge weight of ${composite.judgeWeight} needs an enabled judge: configure \`evaluation.judge\` or set it to 0`,
        );
      }
      evaluation.composite = composite;
    }
  }
  return evaluation;
}

/** Whether a judge mapping that failed validation was meant to be enabled (for the composite check). */
function readsEnabled(node: YamlNode): boolean {
  if (node.kind !== "map") return false;
  const enabled = node.entries.find((entry) => entry.key === "enabled")?.value;
  return !(enabled?.kind === "scalar" && enabled.value === false);
}

async function readJudge(
  reader: NodeReader,
  node: YamlNode,
  field: string,
  dir: string,
  io: YamlScenarioIo,
): Promise<JudgeSpec | undefined> {
  const entries = reader.readObject(node, field, JUDGE, { owner: "the judge" });
  if (!entries) return undefined;
  const read = <K extends ScalarKey<typeof JUDGE>>(key: K) => reader.readEntry(entries, field, JUDGE, key);
  const enabled = entries.has("enabled") ? read("enabled") : JUDGE.properties.enabled.default;
  const passThreshold = entries.has("pass_threshold")
    ? read("pass_threshold")
    : JUDGE.properties.pass_threshold.default;
  const model = read("model");
  const rubricNode = entries.get("rubric")?.value;
  if (!rubricNode) {
    if (enabled !== false) {
      reader.report(
        node.line,
        joinField(field, "rubric"),
        "missing required key `rubric` (a rubric YAML file with `criteria`)",
      );
    }
    return undefined;
  }
  const rubricFile = await readConfinedFile(
    reader,
    rubricNode,
    joinField(field, "rubric"),
    dir,
    "rubric file",
  );
  if (rubricFile === undefined || enabled === undefined || passThreshold === undefined) return undefined;
  const loaded = await io.readRubric(rubricFile);
  reader.problems.push(...loaded.problems);
  if (!loaded.rubric) return undefined;
  const judge: JudgeSpec = { enabled, rubric: loaded.rubric, passThreshold };
  if (model !== undefined) judge.model = model;
  return judge;
}

function readComposite(
  reader: NodeReader,
  node: YamlNode,
  field: string,
  keyLine: number,
): CompositeWeights | undefined {
  const entries = reader.readObject(node, field, COMPOSITE, { owner: "composite" });
  if (!entries) return undefined;
  const keys = keysOf(COMPOSITE);
  if (entries.size < COMPOSITE.minProperties) {
    reader.report(node.line, field, `expected at least one of ${keys.join(", ")}`);
    return undefined;
  }
  const before = reader.problems.length;
  const weight = (key: (typeof keys)[number]) => reader.readEntry(entries, field, COMPOSITE, key) ?? 0;
  const composite: CompositeWeights = {
    gateWeight: weight("gate_weight"),
    judgeWeight: weight("judge_weight"),
    interactionWeight: weight("interaction_weight"),
  };
  if (reader.problems.length > before) return undefined;
  const sum = composite.gateWeight + composite.judgeWeight + composite.interactionWeight;
  if (Math.abs(sum - 1) > WEIGHT_TOLERANCE) {
    const parts = keys
      .filter((key) => entries.has(key))
      .map((key) => `${key} ${weight(key)}`)
      .join(" + ");
    reader.report(keyLine, field, `weights must sum to 1, found ${formatSum(sum)} (${parts})`);
    return undefined;
  }
  return composite;
}
