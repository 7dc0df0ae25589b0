import { describe, expect, test } from "vitest";
import {
  applyJsonPathAssertion,
  formatJsonPathAssertion,
  isDefiniteJsonPath,
  jsonPathSyntaxError,
  parseJsonPathAssertion,
  queryJsonPath,
} from "../../src/evaluate/json-path.js";

const doc = {
  items: [
    { name: "alpha", price: 5, tags: ["a"] },
    { name: "beta", price: 15, tags: [] },
    { name: "gamma", price: 25, tags: ["a", "b"] },
  ],
  meta: { count: 3, label: "inventory", empty: null, "key with space": 1, "dotted.key": 2 },
};

function thrownMessage(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error("expected an error");
}

describe("jsonPathSyntaxError", () => {
  test.each([
    "$",
    "$.items",
    "$.items[0]",
    "$.items[-1]",
    "$.items[0,2]",
    "$.items[0:2]",
    "$.items[::2]",
    "$.items[*].name",
    "$.items.*",
    "$..name",
    "$..*",
    "$..[0]",
    "$['meta']['key with space']",
    '$["meta"].label',
    "$.meta['dotted.key']",
    "$.items[?(@.price > 10)]",
    "$.items[?(@.name == 'beta' && @.price < 20)].name",
    "$.items[(@.length-1)]",
    "$.my-key",
    " $.items ",
  ])("accepts %s", (path) => {
    expect(jsonPathSyntaxError(path)).toBeNull();
  });

  test.each([
    ["", "the JSONPath is empty; use `$` for the whole document"],
    ["items[0]", "a JSONPath must start with `$` (the document root), e.g. `$.items[0]`"],
    ["$.a[", "unclosed `[` at character 4"],
    ["$.a[0", "unclosed `[` at character 4"],
    ["$.", "expected a property name, `*` after `.` at character 2, found the end of the path"],
    ["$..", "expected a property name, `*` or `[` after `..` at character 3, found the end of the path"],
    ["$.a.", "expected a property name, `*` after `.` at character 4, found the end of the path"],
    ["$a", "unexpected `a` at character 2: expected `.name`, `..name` or `[...]`"],
    ["$.a[]", "empty brackets `[]` at character 4"],
    ["$.a['b]", "unterminated string in `[` at character 4"],
    ["$.a[?(@.b > 1]", "unbalanced `(` in `[` at character 4"],
    ["$.a[?@.b > 1]", "a filter must be written `[?(expression)]`, found `[?@.b > 1]` at character 4"],
    ["$.a[?(@.b >)]", "invalid expression in `[?(@.b >)]` at character 4: Expected expression after >"],
    [
      "$.a[foo]",
      "invalid selector `[foo]` at character 4: expected an index like `[0]`, a slice like `[1:3]`, `[*]`, a quoted name like `['key']` or a filter like `[?(@.price > 10)]`",
    ],
    ["$.a[1:2:0]", "the slice step must be a positive integer `[1:2:0]` at character 4"],
    ["$.a[1:x]", "invalid slice `[1:x]` at character 4: expected `[start:end]` or `[start:end:step]`"],
    ["$.a[0,-1]", "negative indexes cannot be combined in a union `[0,-1]` at character 4"],
    ["$['@type']", "the key `@type` cannot be addressed by this JSONPath engine"],
    ["$.a]", "unexpected `]` at character 4: expected `.name`, `..name` or `[...]`"],
  ])("rejects %j", (path, message) => {
    expect(jsonPathSyntaxError(path)).toBe(message);
  });
});

describe("queryJsonPath", () => {
  test("selects values", () => {
    expect(queryJsonPath(doc, "$.meta.count")).toEqual([3]);
    expect(queryJsonPath(doc, "$.items[*].name")).toEqual(["alpha", "beta", "gamma"]);
    expect(queryJsonPath(doc, "$.items[-1].name")).toEqual(["gamma"]);
    expect(queryJsonPath(doc, "$.items[-2].name")).toEqual(["beta"]);
    expect(queryJsonPath(doc, "$.items[0,2].price")).toEqual([5, 25]);
    expect(queryJsonPath(doc, "$.items[?(@.price > 10)].name")).toEqual(["beta", "gamma"]);
    expect(queryJsonPath(doc, "$..price")).toEqual([5, 15, 25]);
    expect(queryJsonPath(doc, "$['meta']['key with space']")).toEqual([1]);
    expect(queryJsonPath(doc, "$.meta['dotted.key']")).toEqual([2]);
    expect(queryJsonPath(doc, "$.meta.empty")).toEqual([null]);
    expect(queryJsonPath(doc, "$.missing")).toEqual([]);
    expect(queryJsonPath(doc, "$")).toEqual([doc]);
  });

  test("handles scalar and null documents", () => {
    expect(queryJsonPath(null, "$")).toEqual([null]);
    expect(queryJsonPath(null, "$.a")).toEqual([]);
    expect(queryJsonPath(3, "$.a")).toEqual([]);
  });

  test("throws on an invalid path", () => {
    expect(thrownMessage(() => queryJsonPath(doc, "$.a["))).toBe("unclosed `[` at character 4");
  });

  test("isDefiniteJsonPath", () => {
    expect(isDefiniteJsonPath("$.items[0].name")).toBe(true);
    expect(isDefiniteJsonPath("$.items[*].name")).toBe(false);
    expect(isDefiniteJsonPath("$..name")).toBe(false);
    expect(isDefiniteJsonPath("$.items[?(@.price > 1)]")).toBe(false);
  });
});

describe("parseJsonPathAssertion", () => {
  test.each([
    ["exists", { kind: "exists" }],
    ["  exists  ", { kind: "exists" }],
    ["equals 3", { kind: "equals", value: 3 }],
    ['equals "3"', { kind: "equals", value: "3" }],
    ["equals true", { kind: "equals", value: true }],
    ["equals null", { kind: "equals", value: null }],
    ['equals {"a": [1]}', { kind: "equals", value: { a: [1] } }],
    ["equals hello", { kind: "equals", value: "hello" }],
    ["equals hello world", { kind: "equals", value: "hello world" }],
    ["contains foo", { kind: "contains", substring: "foo" }],
    ['contains " padded "', { kind: "contains", substring: " padded " }],
    ["len >= 3", { kind: "len", op: ">=", n: 3 }],
    ["len==0", { kind: "len", op: "==", n: 0 }],
    ["len > 1", { kind: "len", op: ">", n: 1 }],
    ["len <= 10", { kind: "len", op: "<=", n: 10 }],
    ["len < 2", { kind: "len", op: "<", n: 2 }],
  ])("parses %j", (text, expected) => {
    expect(parseJsonPathAssertion(text)).toEqual(expected);
  });

  test.each([
    [
      "",
      "the assertion is empty: expected one of exists, equals <json>, contains <text>, len >= N, len == N, len > N, len <= N, len < N",
    ],
    ["exists now", "`exists` takes no argument, found `now`"],
    ["equals", '`equals` needs a value, e.g. `equals 3`, `equals "text"` or `equals true`'],
    ["contains", "`contains` needs a text, e.g. `contains error`"],
    [
      "len = 3",
      "invalid length assertion `len = 3`: expected `len <op> N` with <op> one of >=, ==, >, <=, < and N a non-negative integer",
    ],
    [
      "len >= -1",
      "invalid length assertion `len >= -1`: expected `len <op> N` with <op> one of >=, ==, >, <=, < and N a non-negative integer",
    ],
    [
      "count >= 3",
      "unknown assertion `count >= 3`: expected one of exists, equals <json>, contains <text>, len >= N, len == N, len > N, len <= N, len < N",
    ],
  ])("rejects %j", (text, message) => {
    expect(thrownMessage(() => parseJsonPathAssertion(text))).toBe(message);
  });

  test("rejects a broken JSON value, with the parser's reason", () => {
    expect(thrownMessage(() => parseJsonPathAssertion("equals {broken"))).toMatch(
      /^`equals` value `\{broken` is not valid JSON: ./,
    );
  });

  test("formats back to text", () => {
    expect(formatJsonPathAssertion(parseJsonPathAssertion("len>=3"))).toBe("len >= 3");
    expect(formatJsonPathAssertion(parseJsonPathAssertion("equals x"))).toBe('equals "x"');
  });
});

describe("applyJsonPathAssertion", () => {
  const check = (path: string, assertion: string) =>
    applyJsonPathAssertion(queryJsonPath(doc, path), parseJsonPathAssertion(assertion), path);

  test("exists", () => {
    expect(check("$.meta.count", "exists")).toEqual({ passed: true, message: "found number 3" });
    expect(check("$.meta.empty", "exists")).toEqual({
      passed: false,
      message: "found null (expected a value)",
    });
    expect(check("$.meta.nope", "exists")).toEqual({
      passed: false,
      message: "the path matched nothing (expected exists)",
    });
  });

  test("equals", () => {
    expect(check("$.meta.count", "equals 3")).toEqual({ passed: true, message: "found number 3" });
    expect(check("$.meta.count", "equals 4")).toEqual({
      passed: false,
      message: "found number 3, expected number 4",
    });
    expect(check("$.meta.label", "equals inventory").passed).toBe(true);
    expect(check("$.items[0].tags", 'equals ["a"]').passed).toBe(true);
    expect(check("$.items[*].price", "equals [5, 15, 25]").passed).toBe(true);
    expect(check("$.meta.count", 'equals "3"')).toEqual({
      passed: false,
      message: 'found number 3, expected string "3"',
    });
  });

  test("contains", () => {
    expect(check("$.meta.label", "contains vent")).toEqual({
      passed: true,
      message: 'string "inventory" contains "vent"',
    });
    expect(check("$.meta.label", "contains zzz")).toEqual({
      passed: false,
      message: 'found string "inventory", which does not contain "zzz"',
    });
    expect(check("$.items[*].name", "contains gam").passed).toBe(true);
    expect(check("$.items[*].name", "contains delta")).toEqual({
      passed: false,
      message: 'no element of a list of 3 ["alpha","beta","gamma"] contains "delta"',
    });
    expect(check("$.meta", "contains x")).toEqual({
      passed: false,
      message:
        'found an object {"count":3,"label":"inventory","empty":null,"key with space":1,"dotted.key":2}; `contains` applies to strings and lists',
    });
  });

  test("len on lists, objects and strings", () => {
    expect(check("$.items", "len >= 3")).toEqual({
      passed: true,
      message: expect.stringMatching(/^len is 3 \(expected >= 3\) in a list of 3 /),
    });
    expect(check("$.items", "len > 3").passed).toBe(false);
    expect(check("$.meta", "len == 5").passed).toBe(true);
    expect(check("$.meta.label", "len == 9").passed).toBe(true);
    expect(check("$.items[1].tags", "len < 1").passed).toBe(true);
    expect(check("$.items[1].tags", "len <= 0").passed).toBe(true);
    expect(check("$.meta.count", "len >= 1")).toEqual({
      passed: false,
      message: "found number 3; `len` applies to lists, objects and strings",
    });
  });

  test("an indefinite path is judged as a list even with one match", () => {
    expect(check("$.items[?(@.price > 20)]", "len == 1").passed).toBe(true);
    // Without the path, one match is judged by itself (an object with three keys).
    const values = queryJsonPath(doc, "$.items[?(@.price > 20)]");
    expect(applyJsonPathAssertion(values, parseJsonPathAssertion("len == 3")).passed).toBe(true);
  });
});
