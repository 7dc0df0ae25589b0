/**
 * Loading scenarios from paths: YAML scenario files, directories of them, and bashkit-eval JSONL
 * datasets. The only module that imports `yaml`; others parse YAML through `parseYamlText` /
 * `parseYamlFile`. Every problem found is reported together in one ConfigError.
 */
import { readdir, stat } from "node:fs/promises";
import path from "node:path";
import { type Document, isAlias, isMap, isScalar, isSeq, LineCounter, parseDocument } from "yaml";
import { ConfigError } from "../errors.js";
import { readBashkitDataset } from "./bashkit-dataset.js";
import { hashScenario } from "./content-hash.js";
import { NodeReader } from "./node-reader.js";
import { createProblemsError, displayPath, formatProblem, type Problem } from "./problems.js";
import { MAX_YAML_BYTES, readInputText } from "./read-text.js";
import { buildRubric } from "./rubric.js";
import { createTreatmentCache } from "./treatment.js";
import type { Rubric, Scenario, UnhashedScenario } from "./types.js";
import { convertYamlNode, type YamlNode, type YamlScalar } from "./yaml-node.js";
import { buildYamlScenario } from "./yaml-scenario.js";

export interface LoadOptions {
  /** Base for relative paths and for file names in messages; default process.cwd(). */
  cwd?: string;
  /**
   * Gets each warning (`file:line: field: message`): what loads but deserves a word, such as a
   * bashkit check of an unknown type. Default: `warning: …` on stderr.
   */
  onWarning?: (message: string) => void;
  /** Absolute files to leave out wherever they were found (the `!pattern` exclusions). */
  exclude?: Iterable<string>;
}

const SKIPPED_DIRS = new Set(["fixtures", "node_modules"]);
const MAX_DEPTH = 200;
const TOO_DEEP = `the document nests more than ${MAX_DEPTH} levels deep`;
/**
 * How many values a YAML document may stand for once its aliases are expanded. `yaml`'s own
 * `maxAliasCount` guards only `toJS`, and this module expands aliases itself: without a budget ten
 * lines of nested aliases ("billion laughs") grow to gigabytes. Real scenarios hold hundreds.
 */
const MAX_VALUES = 100_000;

/** Loads every scenario the paths name, sorted by id. Throws one ConfigError listing all problems. */
export async function loadScenarios(paths: string[], options: LoadOptions = {}): Promise<Scenario[]> {
  const cwd = options.cwd ?? process.cwd();
  const problems: Problem[] = [];
  const warnings: Problem[] = [];
  const sources = new Map<string, "yaml" | "yaml-found" | "jsonl">();
  const excluded = new Set(options.exclude ?? []);
  for (const given of paths) {
    const found = await expandPath(path.resolve(cwd, given), given, problems);
    for (const [file, kind] of found) {
      if (excluded.has(file)) continue;
      // A file named directly wins over the same file found in a directory.
      if (!sources.has(file) || kind === "yaml") sources.set(file, kind);
    }
  }
  const loaded: UnhashedScenario[] = [];
  for (const [file, kind] of [...sources].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (kind === "jsonl") {
      const dataset = await readBashkitDataset(file);
      problems.push(...dataset.problems);
      warnings.push(...dataset.warnings);
      loaded.push(...dataset.scenarios);
      continue;
    }
    const scenario = await loadYamlScenario(file, kind === "yaml-found", problems);
    if (scenario) loaded.push(scenario);
  }
  for (const given of paths) {
    const root = path.resolve(cwd, given);
    const isDir = await stat(root).then(
      (info) => info.isDirectory(),
      () => false,
    );
    if (isDir && !loaded.some((scenario) => isWithin(root, scenario.source.file))) {
      if (!problems.some((problem) => isWithin(root, problem.file))) {
        problems.push({
          file: root,
          message:
            "no scenarios found: no .yaml/.yml file with a top-level `task` or `name` key (folders named fixtures, node_modules and hidden folders are skipped)",
        });
      }
    }
  }
  checkDuplicateIds(loaded, problems, cwd);
  if (problems.length > 0) throw createProblemsError(problems, cwd);
  const warn = options.onWarning ?? ((message: string) => process.stderr.write(`warning: ${message}\n`));
  for (const warning of warnings) warn(formatProblem(warning, cwd));
  const scenarios: Scenario[] = [];
  const treatmentCache = createTreatmentCache();
  for (const scenario of loaded) scenarios.push(await hashScenario(scenario, treatmentCache));
  return scenarios.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** Loads and validates a rubric file; throws a ConfigError naming the rubric file. */
export async function loadRubric(file: string, options: LoadOptions = {}): Promise<Rubric> {
  const cwd = options.cwd ?? process.cwd();
  const result = await readRubricFile(path.resolve(cwd, file));
  if (!result.rubric) throw createProblemsError(result.problems, cwd);
  return result.rubric;
}

/** Parses YAML text to plain data; a syntax error is a ConfigError with the file and line. */
export function parseYamlText(text: string, file = "<yaml>", options: LoadOptions = {}): unknown {
  const parsed = parseYamlTree(text, file);
  if (!parsed.tree) throw createProblemsError(parsed.problems, options.cwd ?? process.cwd());
  return convertYamlNode(parsed.tree);
}

/** Reads and parses a YAML file to plain data (ConfigError when unreadable or malformed). */
export async function parseYamlFile(file: string, options: LoadOptions = {}): Promise<unknown> {
  const cwd = options.cwd ?? process.cwd();
  const absolute = path.resolve(cwd, file);
  const read = await readInputText(absolute, MAX_YAML_BYTES);
  if ("reason" in read)
    throw new ConfigError(`cannot read the file (${read.reason})`, displayPath(absolute, cwd));
  return parseYamlText(read.text, absolute, options);
}

/** Parses YAML into a tree that keeps the line of every value; syntax errors become problems. */
function parseYamlTree(text: string, file: string): { tree?: YamlNode; problems: Problem[] } {
  const lineCounter = new LineCounter();
  let doc: Document;
  try {
    doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    return { problems: [{ file, line: 1, message: TOO_DEEP }] };
  }
  const lineAt = (offset: number | undefined): number =>
    offset === undefined ? 1 : lineCounter.linePos(offset).line;
  const error = doc.errors[0];
  if (error) {
    // Only the first: after a syntax error the parser's follow-up complaints are noise.
    const line = lineAt(error.pos[0]);
    // `yaml` turns its own stack overflow on deep nesting into an error like any other.
    if (error.message.startsWith("Maximum call stack size exceeded"))
      return { problems: [{ file, line, message: TOO_DEEP }] };
    const message =
      error.code === "DUPLICATE_KEY" ? "a key is written twice in the same mapping" : error.message;
    return { problems: [{ file, line, message: `YAML syntax error: ${message}` }] };
  }
  const problems: Problem[] = [];
  const tree = convertNode(doc.contents, { doc, lineAt, file, problems, valuesLeft: MAX_VALUES }, 1, 0);
  return problems.length > 0 ? { problems } : { tree, problems };
}

interface ConvertContext {
  doc: Document;
  lineAt: (offset: number | undefined) => number;
  file: string;
  problems: Problem[];
  /** The values still allowed (MAX_VALUES); below zero the conversion has given up. */
  valuesLeft: number;
  /** The line of the outermost alias being expanded, where an over-budget document is reported. */
  aliasLine?: number;
}

function convertNode(node: unknown, context: ConvertContext, fallbackLine: number, depth: number): YamlNode {
  const range = (node as { range?: [number, number, number] } | null)?.range;
  const line = range ? context.lineAt(range[0]) : fallbackLine;
  context.valuesLeft -= 1;
  if (context.valuesLeft < 0) {
    if (context.valuesLeft === -1) {
      context.problems.push({
        file: context.file,
        line: context.aliasLine ?? line,
        message: `the document stands for more than ${MAX_VALUES} values once its aliases are expanded (an alias bomb?)`,
      });
    }
    return { kind: "scalar", line, value: null };
  }
  if (depth > MAX_DEPTH) {
    context.problems.push({
      file: context.file,
      line,
      message: `${TOO_DEEP} (a recursive alias?)`,
    });
    return { kind: "scalar", line, value: null };
  }
  if (isAlias(node)) {
    const target = node.resolve(context.doc);
    if (!target) {
      context.problems.push({ file: context.file, line, message: `unknown alias \`*${node.source}\`` });
      return { kind: "scalar", line, value: null };
    }
    const outerAlias = context.aliasLine;
    context.aliasLine ??= line;
    const converted = convertNode(target, context, line, depth + 1);
    context.aliasLine = outerAlias;
    return { ...converted, line };
  }
  if (isMap(node)) {
    return {
      kind: "map",
      line,
      entries: node.items.map((pair) => {
        const keyRange = (pair.key as { range?: [number, number, number] } | null)?.range;
        const keyLine = keyRange ? context.lineAt(keyRange[0]) : line;
        const key = isScalar(pair.key) ? String(pair.key.value) : undefined;
        if (key === undefined) {
          context.problems.push({
            file: context.file,
            line: keyLine,
            message: "mapping keys must be plain strings",
          });
        }
        return { key: key ?? "", keyLine, value: convertNode(pair.value, context, keyLine, depth + 1) };
      }),
    };
  }
  if (isSeq(node)) {
    return {
      kind: "seq",
      line,
      items: node.items.map((item) => convertNode(item, context, line, depth + 1)),
    };
  }
  if (isScalar(node)) return { kind: "scalar", line, value: toScalar(node.value) };
  return { kind: "scalar", line, value: null };
}

function toScalar(value: unknown): YamlScalar {
  if (value === null || value === undefined) return null;
  if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") return value;
  return String(value);
}

async function readRubricFile(file: string): Promise<{ rubric?: Rubric; problems: Problem[] }> {
  const read = await readInputText(file, MAX_YAML_BYTES);
  if ("reason" in read) return { problems: [{ file, message: `cannot read the rubric (${read.reason})` }] };
  const parsed = parseYamlTree(read.text, file);
  if (!parsed.tree) return { problems: parsed.problems };
  return buildRubric(parsed.tree, file);
}

async function loadYamlScenario(
  file: string,
  onlyIfScenario: boolean,
  problems: Problem[],
): Promise<UnhashedScenario | undefined> {
  const read = await readInputText(file, MAX_YAML_BYTES);
  if ("reason" in read) {
    problems.push({ file, message: `cannot read the file (${read.reason})` });
    return undefined;
  }
  const parsed = parseYamlTree(read.text, file);
  if (!parsed.tree) {
    problems.push(...parsed.problems);
    return undefined;
  }
  const tree = parsed.tree;
  // In a directory, only YAML with a top-level `task` or `name` is a scenario (rubrics and other YAML are not).
  if (
    onlyIfScenario &&
    !(tree.kind === "map" && tree.entries.some((entry) => entry.key === "task" || entry.key === "name"))
  ) {
    return undefined;
  }
  const reader = new NodeReader(file);
  const scenario = await buildYamlScenario(tree, file, reader, { readRubric: readRubricFile });
  problems.push(...reader.problems);
  return scenario;
}

/** The scenario files a path stands for, with how to load each. */
async function expandPath(
  absolute: string,
  given: string,
  problems: Problem[],
): Promise<Map<string, "yaml" | "yaml-found" | "jsonl">> {
  const found = new Map<string, "yaml" | "yaml-found" | "jsonl">();
  const info = await stat(absolute).catch(() => undefined);
  if (!info) {
    problems.push({ file: absolute, message: `${JSON.stringify(given)} matches no file or directory` });
    return found;
  }
  if (info.isDirectory()) {
    for (const file of await findYamlFiles(absolute)) found.set(file, "yaml-found");
    return found;
  }
  if (/\.ya?ml$/i.test(absolute)) found.set(absolute, "yaml");
  else if (/\.jsonl$/i.test(absolute)) found.set(absolute, "jsonl");
  else {
    problems.push({
      file: absolute,
      message:
        "not a scenario file: expected a .yaml/.yml scenario, a .jsonl bashkit-eval dataset, or a directory",
    });
  }
  return found;
}

async function findYamlFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const files: string[] = [];
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    if (entry.name.startsWith(".")) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!SKIPPED_DIRS.has(entry.name)) files.push(...(await findYamlFiles(full)));
    } else if (entry.isFile() && /\.ya?ml$/i.test(entry.name)) {
      files.push(full);
    }
  }
  return files;
}

function checkDuplicateIds(scenarios: UnhashedScenario[], problems: Problem[], cwd: string): void {
  const first = new Map<string, UnhashedScenario>();
  for (const scenario of scenarios) {
    const earlier = first.get(scenario.id);
    if (!earlier) {
      first.set(scenario.id, scenario);
      continue;
    }
    const field = scenario.source.format === "yaml" ? "name" : "id";
    problems.push({
      file: scenario.source.file,
      line: scenario.source.line,
      field,
      message: `duplicate scenario id \`${scenario.id}\`, also used by ${displayPath(earlier.source.file, cwd)}:${earlier.source.line}`,
    });
  }
}

function isWithin(dir: string, file: string): boolean {
  const relative = path.relative(dir, file);
  return relative === "" || (!relative.startsWith("..") && !path.isAbsolute(relative));
}
