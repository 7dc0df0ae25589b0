/**
 * Every source file and folder the docs name exists, so a page cannot keep describing a file that
 * was renamed or removed. docs/architecture.md names paths relative to `src/` unless they start
 * with another top-level folder; a bare file name (`format.ts`, in a list under its folder) must be
 * the name of some file of the repository's code.
 */
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { REPOSITORY_ROOT, readRepositoryFile } from "./support/docs-text.js";

const PAGES = [
  "README.md",
  "BENCHMARKS.md",
  ...readdirSync(path.join(REPOSITORY_ROOT, "docs"))
    .filter((name) => name.endsWith(".md"))
    .sort()
    .map((name) => `docs/${name}`),
];

/** Files the docs tell the reader to make themselves (docs/library.md's example script). */
const READERS_FILES = new Set(["run-suite.mjs"]);
/** Build output, not in the repository: named as what `npm run build` / `npm run bundle` write. */
const BUILT = /^(lib|dist)(\/|$)/;
const CODE_FOLDERS = ["src", "tests", "bench", "scripts", "bin"];
const TOP_LEVEL = new Set(readdirSync(REPOSITORY_ROOT));

function filesUnder(folder: string): string[] {
  return readdirSync(path.join(REPOSITORY_ROOT, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => entry.name);
}
const CODE_FILE_NAMES = new Set(CODE_FOLDERS.flatMap(filesUnder));

/** Where a path named in the docs is: from the root when it starts with a top-level entry, else under src/. */
function resolveNamed(named: string): string {
  const first = named.split("/")[0] ?? "";
  return path.join(REPOSITORY_ROOT, TOP_LEVEL.has(first) ? "" : "src", named);
}

/** The code files a page names: `a/b/c.ts`, `c.ts` (also `.js`, `.mjs`), not globs or placeholders. */
function namedCodeFiles(markdown: string): string[] {
  const found = markdown.matchAll(/(?<![\w./*<>-])(\w[\w.-]*(?:\/[\w.-]+)*\.(?:ts|js|mjs))(?![\w/-])/g);
  return [...new Set([...found].map((match) => match[1] as string))];
}

/** The folders docs/architecture.md names in code spans (`evaluate/`, `cli/commands/`). */
function namedFolders(markdown: string): string[] {
  return [...new Set([...markdown.matchAll(/`((?:[\w.-]+\/)+)`/g)].map((match) => match[1] as string))];
}

function missingFiles(markdown: string): string[] {
  return namedCodeFiles(markdown).filter((named) => {
    if (READERS_FILES.has(named) || BUILT.test(named)) return false;
    return named.includes("/") ? !existsSync(resolveNamed(named)) : !CODE_FILE_NAMES.has(named);
  });
}

describe.each(PAGES)("%s", (page) => {
  it("names only source files that exist", () => {
    expect(missingFiles(readRepositoryFile(page))).toEqual([]);
  });
});

describe("docs/architecture.md", () => {
  it("names only folders that exist", () => {
    const missing = namedFolders(readRepositoryFile("docs/architecture.md")).filter(
      (named) => !BUILT.test(named) && !existsSync(resolveNamed(named)),
    );
    expect(missing).toEqual([]);
  });
});

describe("the check itself", () => {
  it("finds a renamed file, a missing path under src/ and a missing folder, and passes globs and placeholders", () => {
    const text =
      "agents/claude-code-cli.ts and claude-code-cli.ts, `render/` and `gone/`, bench/*.bench-run.ts, `tests/<folder>/<file>.test.ts`, scenario/load.ts";
    expect(missingFiles(text)).toEqual(["agents/claude-code-cli.ts", "claude-code-cli.ts"]);
    expect(namedFolders(text).filter((named) => !existsSync(resolveNamed(named)))).toEqual(["gone/"]);
  });
});
