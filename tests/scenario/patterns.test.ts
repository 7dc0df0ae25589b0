import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ConfigError } from "../../src/errors.js";
import { loadScenarios } from "../../src/scenario/load.js";
import { expandScenarioPatterns } from "../../src/scenario/patterns.js";
import { makeTempDir } from "../support/temp-dirs.js";

let root: string;

const scenario = (name: string) =>
  `name: ${name}\ntask: Do ${name}.\nevaluation:\n  gates:\n    - type: no_transcript_errors\n`;

beforeAll(async () => {
  root = makeTempDir("scenario-patterns-");
  const files: Record<string, string> = {
    "scenarios/a.yaml": scenario("a"),
    "scenarios/b.yml": scenario("b"),
    "scenarios/nested/c.yaml": scenario("c"),
    "scenarios/slow/d.yaml": scenario("d"),
    "scenarios/slow/deeper/e.yaml": scenario("e"),
    "scenarios/node_modules/x.yaml": scenario("x"),
    "scenarios/notes.md": "",
    "suites/one/f.yaml": scenario("f"),
    "suites/two/g.yaml": scenario("g"),
    "odd/a[1].yaml": scenario("odd"),
    "data/one.jsonl": "",
  };
  for (const [file, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, file)), { recursive: true });
    await writeFile(path.join(root, file), text);
  }
});

const abs = (...files: string[]) => files.map((file) => path.join(root, file));

describe("expandScenarioPatterns", () => {
  it("keeps paths as given and expands globs, sorted, skipping node_modules", async () => {
    const found = await expandScenarioPatterns(
      ["data/one.jsonl", "scenarios/**/*.yaml", "scenarios/*.{yml,md}"],
      root,
      'input "scenarios"',
    );
    expect(found).toEqual({
      paths: [
        "data/one.jsonl",
        ...abs(
          "scenarios/a.yaml",
          "scenarios/nested/c.yaml",
          "scenarios/slow/d.yaml",
          "scenarios/slow/deeper/e.yaml",
          "scenarios/b.yml",
          "scenarios/notes.md",
        ),
      ],
      exclude: [],
    });
  });

  it("leaves out what a !pattern matches, from globs and from folders given by name", async () => {
    const globbed = await expandScenarioPatterns(["scenarios/**/*.yaml", "!scenarios/slow/**"], root, "x");
    expect(globbed.paths).toEqual(abs("scenarios/a.yaml", "scenarios/nested/c.yaml"));
    expect(globbed.exclude).toEqual(abs("scenarios/slow/d.yaml", "scenarios/slow/deeper/e.yaml"));

    // A folder by name (here the default) keeps its path; the loader leaves the excluded files out.
    const named = await expandScenarioPatterns(["!scenarios/slow"], root, "x");
    expect(named.paths).toEqual(["scenarios"]);
    const loaded = await loadScenarios(named.paths, { cwd: root, exclude: named.exclude });
    expect(loaded.map((s) => s.id)).toEqual(["a", "b", "c"]);
  });

  it("matches folders, and leaves out a folder a !pattern names", async () => {
    expect((await expandScenarioPatterns(["./suites/*"], root, "x")).paths).toEqual(
      abs("suites/one", "suites/two"),
    );
    expect((await expandScenarioPatterns(["suites/*", "!suites/two"], root, "x")).paths).toEqual(
      abs("suites/one"),
    );
  });

  it("takes a file whose name only looks like a glob as that file", async () => {
    expect((await expandScenarioPatterns(["odd/a[1].yaml"], root, "x")).paths).toEqual(["odd/a[1].yaml"]);
  });

  it("names the source and the pattern when a glob matches nothing, exclusions included", async () => {
    const error = await expandScenarioPatterns(["data/*.yaml"], root, 'input "scenarios"').catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toBe(
      `input "scenarios": the pattern "data/*.yaml" matches no file under ${root}`,
    );
    await expect(
      expandScenarioPatterns(["scenarios/slow/*.yaml", "!**/slow/**"], root, "the scenario paths"),
    ).rejects.toThrow(
      `the scenario paths: the pattern "scenarios/slow/*.yaml" matches no file under ${root} once "!**/slow/**" left out`,
    );
  });
});
