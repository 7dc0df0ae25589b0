import { describe, expect, test } from "vitest";
import { commandWordPattern, compilePattern, patternSyntaxError } from "../../src/evaluate/regex.js";

describe("compilePattern", () => {
  test("plain JavaScript regexes", () => {
    expect(compilePattern("a+b").test("xaab")).toBe(true);
    expect(compilePattern("^x$").test("a\nx")).toBe(false);
    expect(compilePattern("\\d{2,}\\s\\w+").test("a 42 b")).toBe(true);
  });
  test("JavaScript-only spellings are translated", () => {
    expect(compilePattern("(?<word>caf\\u00e9)").find("un café")?.groups[1]).toBe("café");
    expect(compilePattern("a[^]b").test("a\nb")).toBe(true);
    expect(compilePattern("\\/usr\\/bin").test("/usr/bin/x")).toBe(true);
  });
  test("inline flags as in bashkit-eval datasets", () => {
    expect(compilePattern("(?i)files? modified.*3").test("3 FILES MODIFIED... 3")).toBe(true);
    expect(compilePattern("(?m)^x$").test("a\nx")).toBe(true);
    expect(compilePattern("(?s)a.b").test("a\nb")).toBe(true);
    expect(compilePattern("a.b").test("a\nb")).toBe(false);
  });
  test("find, findAll and matchAt report positions and groups", () => {
    const pattern = compilePattern("tool (\\w+)");
    expect(pattern.find("x tool add y")).toEqual({ index: 2, text: "tool add", groups: ["tool add", "add"] });
    expect([...pattern.findAll("tool a; tool b")].map((m) => [m.index, m.groups[1]])).toEqual([
      [0, "a"],
      [8, "b"],
    ]);
    expect(pattern.matchAt("run tool a", 4)?.groups[1]).toBe("a");
    expect(pattern.matchAt("run tool a", 3)).toBeNull();
    expect(compilePattern("(x)?y").find("y")?.groups).toEqual(["y", undefined]);
  });
  test("a command word is whole: followed by the end or a shell separator", () => {
    const word = commandWordPattern("my.tool");
    expect(word.matchAt("my.tool", 0)).not.toBeNull();
    expect(word.matchAt("my.tool;ls", 0)).not.toBeNull();
    expect(word.matchAt("my.tools", 0)).toBeNull();
    expect(word.matchAt("myxtool", 0)).toBeNull();
  });
  test("errors", () => {
    expect(patternSyntaxError("a(")).toBe('invalid regex "a(": missing closing ) in `a(`');
    expect(patternSyntaxError("(?x)a")).toMatch(
      /^invalid regex "\(\?x\)a": invalid or unsupported Perl syntax/,
    );
    expect(patternSyntaxError("ok")).toBeNull();
  });
  test.each([
    ["(\\w)\\1", "backreference `\\1`"],
    ["(?<q>')x\\k<q>", "backreference `\\k`"],
    ["a(?=b)", "lookahead `(?=`"],
    ["a(?!b)", "lookahead `(?!`"],
    ["(?<=a)b", "lookbehind `(?<=`"],
    ["(?<!a)b", "lookbehind `(?<!`"],
  ])("%s needs backtracking: refused with the reason", (pattern, what) => {
    expect(patternSyntaxError(pattern)).toBe(
      `invalid regex ${JSON.stringify(pattern)}: ${what} is not supported: gate regexes run in linear time (RE2), which cannot express it`,
    );
  });
  test("escaped and bracketed look-alikes are not lookaround", () => {
    expect(patternSyntaxError("\\(?=x")).toBeNull();
    expect(patternSyntaxError("[(?=]")).toBeNull();
    expect(patternSyntaxError("[\\1]")).not.toMatch(/backreference/);
  });
  test("a pattern catastrophic for backtracking runs in linear time", () => {
    const text = `${"a".repeat(100_000)}!`;
    const started = Date.now();
    expect(compilePattern("(a+)+$").test(text)).toBe(false);
    expect(compilePattern("(a|aa)*b").find(text)).toBeNull();
    expect(compilePattern("^(\\w+\\s?)*$").test(text)).toBe(false);
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});
