/**
 * The boundaries docs/architecture.md describes, enforced: which folder owns each dependency, what
 * render/ may touch, and no import cycle between the top-level folders of src/. Imports are read
 * with the TypeScript parser; `import type` (and imports whose every binding is a type) are erased
 * when compiled, so they do not count as edges of the runtime graph.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const SRC = path.resolve(import.meta.dirname, "../src");

interface ImportEdge {
  /** File path relative to src/. */
  from: string;
  /** A package name (`yaml`, `node:fs`) or a file path relative to src/. */
  to: string;
  typeOnly: boolean;
}

function listSourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return listSourceFiles(full);
    return /\.(ts|js)$/.test(entry.name) ? [full] : [];
  });
}

function isTypeOnlyImport(node: ts.ImportDeclaration | ts.ExportDeclaration): boolean {
  if (ts.isExportDeclaration(node)) {
    if (node.isTypeOnly) return true;
    const clause = node.exportClause;
    return !!clause && ts.isNamedExports(clause) && clause.elements.every((e) => e.isTypeOnly);
  }
  const clause = node.importClause;
  if (!clause) return false;
  if (clause.isTypeOnly) return true;
  if (clause.name) return false;
  const bindings = clause.namedBindings;
  return !!bindings && ts.isNamedImports(bindings) && bindings.elements.every((e) => e.isTypeOnly);
}

function readImports(file: string): ImportEdge[] {
  const text = readFileSync(file, "utf8");
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false);
  const from = path.relative(SRC, file);
  const edges: ImportEdge[] = [];
  const add = (specifier: string, typeOnly: boolean) => {
    const to = specifier.startsWith(".")
      ? path.relative(SRC, path.resolve(path.dirname(file), specifier)).replace(/\.js$/, ".ts")
      : specifier;
    edges.push({ from, to, typeOnly });
  };
  const visit = (node: ts.Node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) {
      if (ts.isStringLiteral(node.moduleSpecifier)) add(node.moduleSpecifier.text, isTypeOnlyImport(node));
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      add(node.arguments[0].text, false);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return edges;
}

const edges = listSourceFiles(SRC).flatMap(readImports);
const runtimeEdges = edges.filter((e) => !e.typeOnly);

/** `scenario/load.ts` → `scenario`; files directly in src/ are their own unit (`errors.ts`). */
function topFolder(file: string): string {
  return file.split(path.sep)[0] as string;
}

function packageOf(specifier: string): string {
  if (specifier.startsWith("node:")) return specifier;
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? `${parts[0]}/${parts[1]}` : (parts[0] as string);
}

const externalImports = edges.filter((e) => !e.to.endsWith(".ts") && !e.to.endsWith(".js"));

/** Which files import a package, as `file -> package`, for readable failures. */
function importersOf(matches: (pkg: string) => boolean): string[] {
  return externalImports.filter((e) => matches(packageOf(e.to))).map((e) => `${e.from} -> ${e.to}`);
}

describe("module boundaries", () => {
  it("parses the source tree (the checks below look at real imports)", () => {
    expect(edges.length).toBeGreaterThan(300);
    expect(externalImports.some((e) => e.to === "yaml")).toBe(true);
    // The owners below must really use what they own, or "only its owner imports X" proves nothing.
    const imports = (from: string, to: string) => externalImports.some((e) => e.from === from && e.to === to);
    expect(imports(path.join("sandbox", "process-runner.js"), "execa")).toBe(true);
    expect(imports(path.join("model", "anthropic-client.ts"), "@anthropic-ai/sdk")).toBe(true);
    expect(imports(path.join("model", "openai-client.ts"), "openai")).toBe(true);
    expect(imports(path.join("model", "http-dispatcher.ts"), "undici")).toBe(true);
    expect(imports(path.join("scenario", "patterns.ts"), "tinyglobby")).toBe(true);
    expect(imports(path.join("evaluate", "regex.ts"), "re2js")).toBe(true);
  });

  const owners: Array<[string, (pkg: string) => boolean, (file: string) => boolean]> = [
    ["yaml", (p) => p === "yaml", (f) => f.startsWith(`scenario${path.sep}`)],
    ["execa", (p) => p === "execa", (f) => f === path.join("sandbox", "process-runner.js")],
    [
      "child processes",
      (p) => p === "node:child_process",
      (f) => f === path.join("sandbox", "process-runner.js") || f === path.join("sandbox", "exec.ts"),
    ],
    [
      "model SDKs",
      (p) => p === "@anthropic-ai/sdk" || p === "openai",
      (f) => f.startsWith(`model${path.sep}`),
    ],
    ["jsonpath-plus", (p) => p === "jsonpath-plus", (f) => f.startsWith(`evaluate${path.sep}`)],
    ["tinyglobby", (p) => p === "tinyglobby", (f) => f === path.join("scenario", "patterns.ts")],
    // One regex engine for scenario patterns, so a pattern means the same at load and evaluation.
    ["re2js", (p) => p === "re2js", (f) => f === path.join("evaluate", "regex.ts")],
    ["undici (HTTP to model APIs)", (p) => p === "undici", (f) => f.startsWith(`model${path.sep}`)],
    [
      "@actions/*",
      (p) => p.startsWith("@actions/"),
      (f) => f.startsWith(`action${path.sep}`) || f.startsWith(`github${path.sep}`),
    ],
  ];
  for (const [what, isPackage, mayImport] of owners) {
    it(`only its owner imports ${what}`, () => {
      const offenders = importersOf(isPackage).filter((line) => !mayImport(line.split(" -> ")[0] as string));
      expect(offenders).toEqual([]);
    });
  }

  it("render/ is pure: no file, process or network I/O, and nothing from the layers that do it", () => {
    const io = /^node:(fs|fs\/promises|child_process|net|http|https|worker_threads|dgram|tls)$/;
    const impureFolders = new Set(["run", "sandbox", "agents", "model", "github", "action", "cli", "init"]);
    const offenders = edges
      .filter((e) => topFolder(e.from) === "render")
      .filter((e) => io.test(e.to) || (e.to.endsWith(".ts") && impureFolders.has(topFolder(e.to))))
      .map((e) => `${e.from} -> ${e.to}`);
    expect(offenders).toEqual([]);
  });

  it("docs/architecture.md's layer table lists exactly what each folder imports at run time", () => {
    const table = readFileSync(path.join(SRC, "../docs/architecture.md"), "utf8");
    const rows = [...table.matchAll(/^\| \d \| (.+?) \| (.+?) \|$/gm)];
    expect(rows.length).toBeGreaterThan(10);
    const names = (cell: string) =>
      [...cell.matchAll(/`([a-z-]+\/|[a-z-]+\.ts)`/g)].map((m) => (m[1] as string).replace(/\/$/, ""));
    const documented = new Map<string, string[]>();
    for (const [, folders, imports] of rows) {
      for (const folder of names(folders as string)) documented.set(folder, names(imports as string).sort());
    }
    const actual = new Map<string, Set<string>>();
    for (const edge of runtimeEdges) {
      if (!/\.(ts|js)$/.test(edge.to) || edge.from === "index.ts") continue;
      const [a, b] = [topFolder(edge.from), topFolder(edge.to)];
      if (!actual.has(a)) actual.set(a, new Set());
      // errors.ts, imported from almost everywhere, is left out of the table.
      if (a !== b && b !== "errors.ts") actual.get(a)?.add(b);
    }
    const described = [...actual].map(([folder, imports]) => [folder, [...imports].sort()] as const);
    expect(
      described.map(([folder, imports]) => [folder, documented.get(folder) ?? "(not in the table)", imports]),
    ).toEqual(described.map(([folder, imports]) => [folder, imports, imports]));
  });

  it("has no runtime import cycle between files either (a cycle inside one folder, or through the gate registry)", () => {
    const graph = new Map<string, Set<string>>();
    for (const edge of runtimeEdges) {
      if (!edge.to.endsWith(".ts") && !edge.to.endsWith(".js")) continue;
      if (edge.from === "index.ts") continue;
      if (!graph.has(edge.from)) graph.set(edge.from, new Set());
      graph.get(edge.from)?.add(edge.to);
    }
    expect(findCycles(graph)).toEqual([]);
  });

  it("keeps the gate registry in evaluate/: scenario/ reads it, evaluate/gates.ts imports nothing of scenario/keys.ts", () => {
    const gates = path.join("evaluate", "gates.ts");
    const keys = path.join("scenario", "keys.ts");
    expect(runtimeEdges.some((e) => e.from === keys && e.to === gates)).toBe(true);
    // Not even a type: the registry defines what the loader validates (GateParamKind included).
    expect(edges.filter((e) => e.from === gates && e.to === keys)).toEqual([]);
  });

  it("ships only what the package's entries reach: a file nothing reaches is left out of lib/", () => {
    // The library, the CLI (bin/), the action's bundle, and the process runner exec.ts starts by path.
    const entries = ["index.ts", path.join("cli", "main.ts"), path.join("action", "index.ts")];
    entries.push(path.join("sandbox", "process-runner.js"));
    const existing = new Set(listSourceFiles(SRC).map((file) => path.relative(SRC, file)));
    const resolve = (to: string) => (existing.has(to) ? to : to.replace(/\.ts$/, ".js"));
    const reached = new Set<string>();
    const queue = [...entries];
    while (queue.length > 0) {
      const file = queue.pop() as string;
      if (reached.has(file)) continue;
      reached.add(file);
      for (const edge of edges)
        if (edge.from === file && /\.(ts|js)$/.test(edge.to)) queue.push(resolve(edge.to));
    }
    // tsconfig.build.json's `exclude`: files only the tests and the bench use (stats/decision-simulation.ts).
    const build = JSON.parse(readFileSync(path.join(SRC, "../tsconfig.build.json"), "utf8")) as {
      exclude?: string[];
    };
    const excluded = new Set((build.exclude ?? []).map((file) => path.relative("src", file)));
    const unreached = [...existing].filter((file) => !reached.has(file) && !excluded.has(file)).sort();
    expect(unreached).toEqual([]);
    // What is left out of the build is really unreached (else lib/ would import a missing file).
    expect([...excluded].filter((file) => reached.has(file))).toEqual([]);
  });

  it("decides in one place: only compare/decide-run.ts imports decide() (index.ts re-exports it for the library)", () => {
    const decision = path.join("compare", "decision.ts");
    const importers: string[] = [];
    for (const file of listSourceFiles(SRC)) {
      const from = path.relative(SRC, file);
      const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, false);
      for (const node of source.statements) {
        if (!ts.isImportDeclaration(node) || !ts.isStringLiteral(node.moduleSpecifier)) continue;
        const to = path.relative(SRC, path.resolve(path.dirname(file), node.moduleSpecifier.text));
        if (to.replace(/\.js$/, ".ts") !== decision || node.importClause?.isTypeOnly) continue;
        const bindings = node.importClause?.namedBindings;
        // A namespace import reaches decide() too.
        const takesDecide =
          bindings !== undefined &&
          (ts.isNamespaceImport(bindings) ||
            bindings.elements.some((e) => !e.isTypeOnly && (e.propertyName ?? e.name).text === "decide"));
        if (takesDecide) importers.push(from);
      }
    }
    expect(importers).toEqual([path.join("compare", "decide-run.ts")]);
  });

  it("has no import cycle between the top-level folders of src/", () => {
    const graph = new Map<string, Set<string>>();
    for (const edge of runtimeEdges) {
      if (!edge.to.endsWith(".ts") && !edge.to.endsWith(".js")) continue;
      const a = topFolder(edge.from);
      const b = topFolder(edge.to);
      // index.ts re-exports the library: it sits above everything by definition.
      if (a === b || a === "index.ts") continue;
      if (!graph.has(a)) graph.set(a, new Set());
      graph.get(a)?.add(b);
    }
    expect(findCycles(graph)).toEqual([]);
  });
});

/** Every elementary cycle's first sighting, as `a -> b -> a`, by depth-first search. */
function findCycles(graph: Map<string, Set<string>>): string[] {
  const cycles: string[] = [];
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (node: string) => {
    state.set(node, "open");
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === "open") {
        cycles.push([...stack.slice(stack.indexOf(next)), next].join(" -> "));
      } else if (!state.has(next)) {
        visit(next);
      }
    }
    stack.pop();
    state.set(node, "done");
  };
  for (const node of [...graph.keys()].sort()) if (!state.has(node)) visit(node);
  return cycles;
}

describe("the cycle finder", () => {
  it("finds a cycle and accepts a layered graph", () => {
    const cyclic = new Map([
      ["a", new Set(["b"])],
      ["b", new Set(["c"])],
      ["c", new Set(["a"])],
    ]);
    expect(findCycles(cyclic)).toEqual(["a -> b -> c -> a"]);
    const layered = new Map([
      ["a", new Set(["b", "c"])],
      ["b", new Set(["c"])],
    ]);
    expect(findCycles(layered)).toEqual([]);
  });
});
