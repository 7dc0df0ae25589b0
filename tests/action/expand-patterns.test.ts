import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { compileGlob, expandPatterns, isGlob } from "../../src/action/expand-patterns.js";
import { ConfigError } from "../../src/errors.js";

let root: string;

beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), "expand-patterns-"));
  for (const file of [
    "scenarios/a.yaml",
    "scenarios/b.yml",
    "scenarios/nested/c.yaml",
    "scenarios/nested/deeper/d.yaml",
    "scenarios/node_modules/x.yaml",
    "scenarios/notes.md",
    "data/one.jsonl",
    "data/two.jsonl",
  ]) {
    await mkdir(path.dirname(path.join(root, file)), { recursive: true });
    await writeFile(path.join(root, file), "");
  }
});

describe("compileGlob", () => {
  it.each([
    ["*.yaml", "a.yaml", true],
    ["*.yaml", "nested/c.yaml", false],
    ["**/*.yaml", "a.yaml", true],
    ["**/*.yaml", "nested/deeper/d.yaml", true],
    ["**", "nested/deeper/d.yaml", true],
    ["?.yaml", "a.yaml", true],
    ["?.yaml", "ab.yaml", false],
    ["*.{yaml,yml}", "b.yml", true],
    ["[ab].yaml", "a.yaml", true],
    ["[!ab].yaml", "a.yaml", false],
    ["a.yaml", "a+yaml", false],
    ["(a).yaml", "(a).yaml", true],
  ])("%s against %s is %s", (pattern, file, expected) => {
    expect(compileGlob(pattern).test(file)).toBe(expected);
  });
});

describe("expandPatterns", () => {
  it("passes plain paths through and expands globs, sorted, skipping node_modules", async () => {
    const found = await expandPatterns(
      ["data/one.jsonl", "scenarios/**/*.yaml", "scenarios/*.{yml,md}"],
      root,
    );
    expect(found).toEqual([
      "data/one.jsonl",
      path.join(root, "scenarios/a.yaml"),
      path.join(root, "scenarios/nested/c.yaml"),
      path.join(root, "scenarios/nested/deeper/d.yaml"),
      path.join(root, "scenarios/b.yml"),
      path.join(root, "scenarios/notes.md"),
    ]);
  });

  it("matches folders too", async () => {
    expect(await expandPatterns(["./scenarios/nest*"], root)).toEqual([path.join(root, "scenarios/nested")]);
  });

  it("names the input and the pattern when a glob matches nothing", async () => {
    const error = await expandPatterns(["data/*.yaml"], root).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toBe(
      `input "scenarios": the pattern "data/*.yaml" matches no file under ${root}`,
    );
  });

  it("knows a glob from a path", () => {
    expect(isGlob("scenarios/*.yaml")).toBe(true);
    expect(isGlob("suite/{a,b}")).toBe(true);
    expect(isGlob("scenarios/list-files.yaml")).toBe(false);
  });
});
