/**
 * JSONPath for `command_json_path` gates: a real syntax check (jsonpath-plus v10 silently accepts
 * malformed paths such as `$.a[`), evaluation through jsonpath-plus, and the assertion language
 * (`exists`, `equals <json>`, `contains <s>`, `len <op> N`). The only module importing jsonpath-plus.
 */
import { JSONPath } from "jsonpath-plus";
import { describeError } from "../errors.js";
import type { JsonPathAssertion } from "../scenario/types.js";

type Selector =
  | { type: "name"; name: string }
  | { type: "wildcard" }
  | { type: "index"; index: number }
  | { type: "slice"; start?: number; end?: number; step?: number }
  | { type: "union"; parts: string[] }
  | { type: "filter"; expr: string }
  | { type: "script"; expr: string };

interface Segment {
  descendant: boolean;
  selector: Selector;
}

interface ParsedPath {
  segments: Segment[];
  /** The path as jsonpath-plus must be given it to mean what the user wrote. */
  normalized: string;
}

class JsonPathSyntaxError extends Error {}

const SIMPLE_NAME = /^[A-Za-z_][A-Za-z0-9_-]*$/;
const NAME_CHAR = /[^\s.[\]()'",~^`@*?$]/;
const INTEGER = /^-?\d+$/;
const SLICE_LOC = /^(-?\d*):(-?\d*):?(\d*)$/;

/** Returns null when `path` is a valid JSONPath this module can evaluate, else what is wrong. */
export function jsonPathSyntaxError(path: string): string | null {
  try {
    parseJsonPath(path);
    return null;
  } catch (error) {
    if (error instanceof JsonPathSyntaxError) return error.message;
    throw error;
  }
}

/** All values `path` selects in `json` (empty when nothing matches). Throws on an invalid path. */
export function queryJsonPath(json: unknown, path: string): unknown[] {
  const parsed = parseJsonPath(path);
  if (parsed.segments.length === 0) return [json];
  if (json === null || typeof json !== "object") return [];
  try {
    const result: unknown = JSONPath({ path: parsed.normalized, json, wrap: true, eval: "safe" });
    return Array.isArray(result) ? result : [];
  } catch (error) {
    throw new Error(`JSONPath \`${path}\` could not be evaluated: ${describeError(error)}`);
  }
}

/** Whether `path` can select several values (wildcards, recursion, slices, unions, filters). */
export function isDefiniteJsonPath(path: string): boolean {
  return parseJsonPath(path).segments.every(
    (segment) =>
      !segment.descendant && (segment.selector.type === "name" || segment.selector.type === "index"),
  );
}

function parseJsonPath(input: string): ParsedPath {
  const path = input.trim();
  if (path === "") throw new JsonPathSyntaxError("the JSONPath is empty; use `$` for the whole document");
  if (path[0] !== "$") {
    throw new JsonPathSyntaxError(
      `a JSONPath must start with \`$\` (the document root), e.g. \`$.${path.replace(/^[.@]+/, "")}\``,
    );
  }
  const segments: Segment[] = [];
  let pos = 1;
  while (pos < path.length) {
    const char = path[pos];
    if (char === ".") {
      const descendant = path[pos + 1] === ".";
      pos += descendant ? 2 : 1;
      const next = path[pos];
      if (descendant && next === "[") {
        const bracket = readBracket(path, pos);
        segments.push({ descendant: true, selector: bracket.selector });
        pos = bracket.end;
      } else if (next === "*") {
        segments.push({ descendant, selector: { type: "wildcard" } });
        pos += 1;
      } else if (next !== undefined && NAME_CHAR.test(next)) {
        let end = pos;
        while (end < path.length && NAME_CHAR.test(path[end] as string)) end += 1;
        segments.push({ descendant, selector: { type: "name", name: path.slice(pos, end) } });
        pos = end;
      } else {
        const what = next === undefined ? "the end of the path" : `\`${next}\``;
        throw new JsonPathSyntaxError(
          `expected a property name, \`*\`${descendant ? " or `[`" : ""} after \`${descendant ? ".." : "."}\` at character ${pos}, found ${what}`,
        );
      }
    } else if (char === "[") {
      const bracket = readBracket(path, pos);
      segments.push({ descendant: false, selector: bracket.selector });
      pos = bracket.end;
    } else {
      throw new JsonPathSyntaxError(
        `unexpected \`${char}\` at character ${pos + 1}: expected \`.name\`, \`..name\` or \`[...]\``,
      );
    }
  }
  const normalized = `$${segments.map(renderSegment).join("")}`;
  checkJsonPathPlusReading(path, normalized, segments);
  return { segments, normalized };
}

/** Reads `[...]` starting at `start`; quotes and parentheses may contain `]`. */
function readBracket(path: string, start: number): { selector: Selector; end: number } {
  let depth = 0;
  let quote: string | null = null;
  for (let pos = start + 1; pos < path.length; pos += 1) {
    const char = path[pos];
    if (quote) {
      if (char === "\\") pos += 1;
      else if (char === quote) quote = null;
    } else if (char === "'" || char === '"') {
      quote = char;
    } else if (char === "(") {
      depth += 1;
    } else if (char === ")") {
      depth -= 1;
      if (depth < 0) throw new JsonPathSyntaxError(`unbalanced \`)\` at character ${pos + 1}`);
    } else if (char === "]" && depth === 0) {
      return { selector: parseBracketContent(path.slice(start + 1, pos), start), end: pos + 1 };
    }
  }
  if (quote) throw new JsonPathSyntaxError(`unterminated string in \`[\` at character ${start + 1}`);
  if (depth > 0) throw new JsonPathSyntaxError(`unbalanced \`(\` in \`[\` at character ${start + 1}`);
  throw new JsonPathSyntaxError(`unclosed \`[\` at character ${start + 1}`);
}

function parseBracketContent(raw: string, start: number): Selector {
  const content = raw.trim();
  const where = `\`[${raw}]\` at character ${start + 1}`;
  if (content === "") throw new JsonPathSyntaxError(`empty brackets ${where}`);
  if (content === "*") return { type: "wildcard" };
  if (content.startsWith("?")) {
    const match = /^\?\s*\(([\s\S]*)\)$/.exec(content);
    if (!match) throw new JsonPathSyntaxError(`a filter must be written \`[?(expression)]\`, found ${where}`);
    const expr = (match[1] as string).trim();
    if (expr === "") throw new JsonPathSyntaxError(`empty filter expression ${where}`);
    checkScriptSyntax(expr, where);
    return { type: "filter", expr };
  }
  if (content.startsWith("(")) {
    if (!content.endsWith(")")) throw new JsonPathSyntaxError(`unexpected text after \`)\` in ${where}`);
    const expr = content.slice(1, -1).trim();
    if (expr === "") throw new JsonPathSyntaxError(`empty script expression ${where}`);
    checkScriptSyntax(expr, where);
    return { type: "script", expr };
  }
  const parts = content.split(",").map((part) => part.trim());
  if (parts.length === 1 && content.includes(":")) return parseSlice(content, where);
  if (parts.every((part) => INTEGER.test(part))) {
    if (parts.length === 1) return { type: "index", index: Number(parts[0]) };
    if (parts.some((part) => part.startsWith("-"))) {
      throw new JsonPathSyntaxError(`negative indexes cannot be combined in a union ${where}`);
    }
    return { type: "union", parts: parts.map((part) => String(Number(part))) };
  }
  const names = parts.map((part) => {
    const quoted = /^(['"])(.*)\1$/s.exec(part);
    if (!quoted) {
      throw new JsonPathSyntaxError(
        `invalid selector ${where}: expected an index like \`[0]\`, a slice like \`[1:3]\`, \`[*]\`, a quoted name like \`['key']\` or a filter like \`[?(@.price > 10)]\``,
      );
    }
    const name = quoted[2] as string;
    if (name.includes("\\"))
      throw new JsonPathSyntaxError(`escapes in quoted names are not supported ${where}`);
    return name;
  });
  if (names.length === 1) return { type: "name", name: names[0] as string };
  return { type: "union", parts: names };
}

function parseSlice(content: string, where: string): Selector {
  const bounds = content.split(":").map((part) => part.trim());
  if (bounds.length > 3 || bounds.some((part) => part !== "" && !INTEGER.test(part))) {
    throw new JsonPathSyntaxError(`invalid slice ${where}: expected \`[start:end]\` or \`[start:end:step]\``);
  }
  const [start, end, step] = bounds.map((part) =>
    part === undefined || part === "" ? undefined : Number(part),
  );
  if (step !== undefined && step <= 0) {
    throw new JsonPathSyntaxError(`the slice step must be a positive integer ${where}`);
  }
  return { type: "slice", start, end, step };
}

/** Filters run in jsonpath-plus's safe evaluator: parse them the way it will, so errors show at load. */
function checkScriptSyntax(expr: string, where: string): void {
  const script = expr
    .replaceAll("@parentProperty", "_$_parentProperty")
    .replaceAll("@parent", "_$_parent")
    .replaceAll("@property", "_$_property")
    .replaceAll("@root", "_$_root")
    .replaceAll("@path", "_$_path")
    .replaceAll(/@([.\s)[])/g, "_$_v$1");
  const safeVm = (JSONPath as unknown as { prototype: { safeVm: { Script: new (code: string) => unknown } } })
    .prototype.safeVm;
  try {
    new safeVm.Script(script);
  } catch (error) {
    // jsep counts characters in the rewritten script, which would mislead: drop its position.
    const reason = describeError(error).replace(/ at character \d+$/, "");
    throw new JsonPathSyntaxError(`invalid expression in ${where}: ${reason}`);
  }
}

function renderSegment(segment: Segment): string {
  const selector = segment.selector;
  const prefix = segment.descendant ? ".." : "";
  switch (selector.type) {
    case "name":
      return SIMPLE_NAME.test(selector.name)
        ? `${prefix || "."}${selector.name}`
        : `${prefix}['${selector.name}']`;
    case "wildcard":
      return `${prefix || "."}*`;
    default:
      return `${prefix}[${renderLocation(selector)}]`;
  }
}

/** The path component jsonpath-plus works with for one selector. */
function renderLocation(selector: Selector): string {
  switch (selector.type) {
    case "name":
      return selector.name;
    case "wildcard":
      return "*";
    case "index":
      // jsonpath-plus has no negative index; the one-element slice means the same.
      if (selector.index < 0) {
        const end = selector.index + 1;
        return end === 0 ? `${selector.index}:` : `${selector.index}:${end}`;
      }
      return String(selector.index);
    case "slice":
      return `${selector.start ?? ""}:${selector.end ?? ""}${selector.step === undefined ? "" : `:${selector.step}`}`;
    case "union":
      return selector.parts.join(",");
    case "filter":
      return `?(${selector.expr})`;
    case "script":
      return `(${selector.expr})`;
  }
}

/** Rejects names jsonpath-plus would read as operators, and paths its tokenizer would split differently. */
function checkJsonPathPlusReading(path: string, normalized: string, segments: Segment[]): void {
  for (const segment of segments) {
    const selector = segment.selector;
    const names =
      selector.type === "name"
        ? [selector.name]
        : selector.type === "union" && !selector.parts.every((part) => INTEGER.test(part))
          ? selector.parts
          : [];
    for (const name of names) {
      if (
        name === "" ||
        /^[*$^~]$|^\.\.$|^[@`(]|^\?\(|[,'\]]/.test(name) ||
        SLICE_LOC.test(name) ||
        name.includes("~")
      ) {
        throw new JsonPathSyntaxError(`the key \`${name}\` cannot be addressed by this JSONPath engine`);
      }
    }
  }
  const expected = ["$"];
  for (const segment of segments) {
    if (segment.descendant) expected.push("..");
    expected.push(renderLocation(segment.selector));
  }
  const actual = JSONPath.toPathArray(normalized);
  if (actual.length !== expected.length || actual.some((part, index) => part !== expected[index])) {
    throw new JsonPathSyntaxError(`\`${path}\` cannot be evaluated as written by this JSONPath engine`);
  }
}

// ---- Assertions ----

const ASSERTION_FORMS =
  "exists, equals <json>, contains <text>, len >= N, len == N, len > N, len <= N, len < N";

/** Parses an assertion such as `len >= 3`; throws an Error that says what is accepted. */
export function parseJsonPathAssertion(text: string): JsonPathAssertion {
  const trimmed = text.trim();
  if (trimmed === "") throw new Error(`the assertion is empty: expected one of ${ASSERTION_FORMS}`);
  const keyword = /^\S+/.exec(trimmed)?.[0] ?? "";
  const rest = trimmed.slice(keyword.length).trim();
  switch (keyword) {
    case "exists":
      if (rest !== "") throw new Error(`\`exists\` takes no argument, found \`${rest}\``);
      return { kind: "exists" };
    case "equals":
      if (rest === "")
        throw new Error('`equals` needs a value, e.g. `equals 3`, `equals "text"` or `equals true`');
      return { kind: "equals", value: parseEqualsValue(rest) };
    case "contains": {
      if (rest === "") throw new Error("`contains` needs a text, e.g. `contains error`");
      return { kind: "contains", substring: parseContainsText(rest) };
    }
    default:
      break;
  }
  if (keyword.startsWith("len")) {
    const match = /^len\s*(>=|==|>|<=|<)\s*(\d+)$/.exec(trimmed);
    if (!match) {
      throw new Error(
        `invalid length assertion \`${trimmed}\`: expected \`len <op> N\` with <op> one of >=, ==, >, <=, < and N a non-negative integer`,
      );
    }
    return { kind: "len", op: match[1] as ">=" | "==" | ">" | "<=" | "<", n: Number(match[2]) };
  }
  throw new Error(`unknown assertion \`${trimmed}\`: expected one of ${ASSERTION_FORMS}`);
}

function parseEqualsValue(rest: string): unknown {
  const looksJson = /^[[{"]/.test(rest) || /^(true|false|null)$/.test(rest) || /^-?\d/.test(rest);
  if (!looksJson) return rest;
  try {
    return JSON.parse(rest);
  } catch (error) {
    if (/^-?\d/.test(rest) && !/^[[{"]/.test(rest)) return rest;
    throw new Error(`\`equals\` value \`${rest}\` is not valid JSON: ${describeError(error)}`);
  }
}

function parseContainsText(rest: string): string {
  if (!rest.startsWith('"')) return rest;
  try {
    const parsed: unknown = JSON.parse(rest);
    if (typeof parsed === "string") return parsed;
  } catch {
    // Not a JSON string: take the text literally.
  }
  return rest;
}

/** Renders an assertion back to the text form. */
export function formatJsonPathAssertion(assertion: JsonPathAssertion): string {
  switch (assertion.kind) {
    case "exists":
      return "exists";
    case "equals":
      return `equals ${JSON.stringify(assertion.value)}`;
    case "contains":
      return `contains ${assertion.substring}`;
    case "len":
      return `len ${assertion.op} ${assertion.n}`;
  }
}

/**
 * Applies an assertion to the values a path selected. One value is judged by itself; several values
 * (or any result of a path that can select several, when `path` is given) are judged as a list.
 */
export function applyJsonPathAssertion(
  values: unknown[],
  assertion: JsonPathAssertion,
  path?: string,
): { passed: boolean; message: string } {
  const label = formatJsonPathAssertion(assertion);
  if (values.length === 0) {
    return { passed: false, message: `the path matched nothing (expected ${label})` };
  }
  const asList = values.length > 1 || (path !== undefined && !isDefiniteJsonPath(path));
  const subject: unknown = asList ? values : values[0];
  switch (assertion.kind) {
    case "exists": {
      const present = asList
        ? values.some((value) => value !== null && value !== undefined)
        : subject != null;
      return {
        passed: present,
        message: present
          ? `found ${describeValue(subject)}`
          : `found ${describeValue(subject)} (expected a value)`,
      };
    }
    case "equals": {
      const passed = isDeepEqual(subject, assertion.value);
      return {
        passed,
        message: passed
          ? `found ${describeValue(subject)}`
          : `found ${describeValue(subject)}, expected ${describeValue(assertion.value)}`,
      };
    }
    case "contains":
      return applyContains(subject, assertion.substring);
    case "len":
      return applyLength(subject, assertion.op, assertion.n);
  }
}

function applyContains(subject: unknown, substring: string): { passed: boolean; message: string } {
  const text = JSON.stringify(substring);
  if (Array.isArray(subject)) {
    const passed = subject.some((item) => isScalar(item) && String(item).includes(substring));
    return {
      passed,
      message: passed
        ? `an element of ${describeValue(subject)} contains ${text}`
        : `no element of ${describeValue(subject)} contains ${text}`,
    };
  }
  if (isScalar(subject)) {
    const passed = String(subject).includes(substring);
    return {
      passed,
      message: passed
        ? `${describeValue(subject)} contains ${text}`
        : `found ${describeValue(subject)}, which does not contain ${text}`,
    };
  }
  return {
    passed: false,
    message: `found ${describeValue(subject)}; \`contains\` applies to strings and lists`,
  };
}

function applyLength(
  subject: unknown,
  op: ">=" | "==" | ">" | "<=" | "<",
  n: number,
): { passed: boolean; message: string } {
  let length: number;
  if (typeof subject === "string" || Array.isArray(subject)) length = subject.length;
  else if (subject !== null && typeof subject === "object") length = Object.keys(subject).length;
  else {
    return {
      passed: false,
      message: `found ${describeValue(subject)}; \`len\` applies to lists, objects and strings`,
    };
  }
  const passed =
    op === ">="
      ? length >= n
      : op === "=="
        ? length === n
        : op === ">"
          ? length > n
          : op === "<="
            ? length <= n
            : length < n;
  return { passed, message: `len is ${length} (expected ${op} ${n}) in ${describeValue(subject)}` };
}

function isScalar(value: unknown): value is string | number | boolean {
  return typeof value === "string" || typeof value === "number" || typeof value === "boolean";
}

function isDeepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, index) => isDeepEqual(item, b[index]));
  }
  if (a && b && typeof a === "object" && typeof b === "object") {
    const aKeys = Object.keys(a);
    const bRecord = b as Record<string, unknown>;
    if (aKeys.length !== Object.keys(b).length) return false;
    return aKeys.every(
      (key) => Object.hasOwn(bRecord, key) && isDeepEqual((a as Record<string, unknown>)[key], bRecord[key]),
    );
  }
  return false;
}

/** A short, readable rendering of a JSON value with its kind, for gate messages. */
function describeValue(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  const json = JSON.stringify(value) ?? String(value);
  const shown = json.length > 80 ? `${json.slice(0, 77)}...` : json;
  if (Array.isArray(value)) return `a list of ${value.length} ${shown}`;
  if (typeof value === "object") return `an object ${shown}`;
  return `${typeof value} ${shown}`;
}
