import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { COMPILED_TESTS } from "../../vitest.config.js";

const ROOT = path.resolve(import.meta.dirname, "../..");
const SELF = "tests/support/test-projects.test.ts";

/** A file runs the compiled CLI (through run-cli) or names a path under lib/ or the bin entry. */
const USES_COMPILED = /support\/run-cli\.js|["'`]lib\/|bin\/llm-tool-test\.js/;

function testFiles(): string[] {
  return readdirSync(path.join(ROOT, "tests"), { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".test.ts"))
    .map((file) => path.posix.join("tests", file.split(path.sep).join("/")))
    .filter((file) => file !== SELF);
}

/** The project's globs are a folder (`dir/**\/*.test.ts`) or one file; nothing else is needed. */
function inCompiledProject(file: string): boolean {
  return COMPILED_TESTS.some((glob) =>
    glob.endsWith("/**/*.test.ts") ? file.startsWith(glob.slice(0, -"**/*.test.ts".length)) : file === glob,
  );
}

describe("the vitest projects", () => {
  it("list the compiled project's files as a folder or a file", () => {
    for (const glob of COMPILED_TESTS)
      expect(glob).toMatch(/^tests\/([\w-]+\/)*([\w-]+\.test\.ts|\*\*\/\*\.test\.ts)$/);
  });

  it("build lib/ first for every test file that runs the compiled CLI or library", () => {
    const files = testFiles();
    expect(files.length).toBeGreaterThan(20);
    const usingLib = files.filter((file) => USES_COMPILED.test(readFileSync(path.join(ROOT, file), "utf8")));
    expect(usingLib).toContain("tests/version.test.ts");
    expect(usingLib.filter((file) => !inCompiledProject(file))).toEqual([]);
  });
});
