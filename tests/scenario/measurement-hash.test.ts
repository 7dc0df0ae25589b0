/**
 * The measurement hash and the treatment (scenario/content-hash.ts, scenario/treatment.ts): what a
 * pull request is meant to change (guidance, the tool's build) leaves the measurement hash alone
 * and shows in the treatment; everything that defines the measurement changes it.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { loadScenarios } from "../../src/scenario/load.js";
import { makeTree } from "./helpers.js";

const SCENARIO = [
  "name: s",
  "description: d",
  "category: c",
  "tags: [a]",
  "tier: 1",
  "task: Write ok to out.txt",
  "trials: 3",
  "guidance: {file: AGENTS.md, mode: workdir}",
  "fixture: data",
  "target: {binary: ./bin/tool, env: {A: '1'}}",
  "evaluation:",
  "  gates:",
  "    - {type: file_exists, path: out.txt}",
  "",
].join("\n");

async function suite(): Promise<string> {
  return makeTree({
    "s.yaml": SCENARIO,
    "AGENTS.md": "Use the tool.\n",
    "other.md": "Use the tool well.\n",
    "data/a.txt": "a",
    "bin/tool": "#!/bin/sh\necho v1\n",
  });
}

async function load(dir: string) {
  const [scenario] = await loadScenarios(["s.yaml"], { cwd: dir });
  if (!scenario) throw new Error("no scenario loaded");
  return scenario;
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

describe("measurementHash", () => {
  test("a guidance edit, its mode, the tool's build and the labels leave it; the content hash moves", async () => {
    const dir = await suite();
    const original = await load(dir);
    const text = await readFile(path.join(dir, "s.yaml"), "utf8");
    const treatmentEdits: Array<[string, string]> = [
      ["AGENTS.md", "Use the tool with --json.\n"],
      ["bin/tool", "#!/bin/sh\necho v2\n"],
      ["s.yaml", text.replace("mode: workdir", "mode: system")],
      ["s.yaml", text.replace("file: AGENTS.md", "file: other.md")],
      ["s.yaml", text.replace("description: d", "description: e").replace("tags: [a]", "tags: [b]")],
      ["s.yaml", text.replace("trials: 3", "trials: 5").replace("tier: 1", "tier: 2")],
      // A tolerance gate is the decision's setting: the base runs measured the same thing.
      ["s.yaml", `${text}tolerance_gates: {input_tokens: "+20%"}\n`],
    ];
    for (const [file, content] of treatmentEdits) {
      await writeFile(path.join(dir, file), content);
      const edited = await load(dir);
      expect(edited.measurementHash, `editing ${file}`).toBe(original.measurementHash);
      await writeFile(path.join(dir, "s.yaml"), text);
    }
    // The content hash keeps its old meaning: a guidance edit moves it.
    expect((await load(dir)).contentHash).not.toBe(original.contentHash);
  });

  test("what defines the measurement changes it", async () => {
    const dir = await suite();
    const text = await readFile(path.join(dir, "s.yaml"), "utf8");
    const seen = new Set([(await load(dir)).measurementHash]);
    const edits: Array<[string, string]> = [
      ["s.yaml", text.replace("Write ok", "Write OK")],
      ["s.yaml", text.replace("path: out.txt", "path: out2.txt")],
      ["s.yaml", text.replace("A: '1'", "A: '2'")],
      ["s.yaml", text.replace("./bin/tool", "./bin/tool2")],
      ["data/a.txt", "b"],
    ];
    for (const [file, content] of edits) {
      await writeFile(path.join(dir, file), content);
      const hash = (await load(dir)).measurementHash;
      expect(seen.has(hash), `editing ${file}`).toBe(false);
      seen.add(hash);
    }
  });

  test("a variant's guidance is treatment, its name and env are measurement", async () => {
    const variants = (guidance: string, env: string) =>
      `name: v\ntask: t\nvariants:\n  - {name: a, guidance: ${guidance}, env: {X: '${env}'}}\n`;
    const dir = await makeTree({ "s.yaml": variants("a.md", "1"), "a.md": "A\n", "b.md": "B\n" });
    const first = await load(dir);
    expect(first.treatment.variants.a).toEqual({ path: "a.md", sha256: sha256("A\n"), mode: "workdir" });
    await writeFile(path.join(dir, "s.yaml"), variants("b.md", "1"));
    const other = await load(dir);
    expect(other.measurementHash).toBe(first.measurementHash);
    expect(other.treatment.variants.a?.path).toBe("b.md");
    await writeFile(path.join(dir, "s.yaml"), variants("a.md", "2"));
    expect((await load(dir)).measurementHash).not.toBe(first.measurementHash);
  });
});

describe("treatment", () => {
  test("names the guidance and the tool's build by path from the repository root and contents", async () => {
    const dir = await makeTree({
      "evals/s.yaml": SCENARIO.replace("AGENTS.md", "../AGENTS.md").replace("./bin/tool", "../bin/tool"),
      "evals/data/a.txt": "a",
      "AGENTS.md": "Use the tool.\n",
      "bin/tool": "#!/bin/sh\necho v1\n",
    });
    execFileSync("git", ["init", "-q", dir]);
    const [scenario] = await loadScenarios(["evals/s.yaml"], { cwd: dir });
    expect(scenario?.treatment).toEqual({
      guidance: { path: "AGENTS.md", sha256: sha256("Use the tool.\n"), mode: "workdir" },
      variants: {},
      tool: { path: "bin/tool", sha256: sha256("#!/bin/sh\necho v1\n") },
    });
  });

  test("a tool not built yet has no sha256; one outside the repository or on PATH is not known", async () => {
    const dir = await makeTree({
      "s.yaml": SCENARIO.replace("./bin/tool", "./bin/missing"),
      "AGENTS.md": "x",
      "data/a.txt": "a",
    });
    expect((await load(dir)).treatment.tool).toEqual({ path: "bin/missing", sha256: null });
    await writeFile(path.join(dir, "s.yaml"), SCENARIO.replace("./bin/tool", "/bin/sh"));
    expect((await load(dir)).treatment.tool).toBeNull();
    await writeFile(path.join(dir, "s.yaml"), SCENARIO.replace("./bin/tool", "sh"));
    expect((await load(dir)).treatment.tool).toBeNull();
  });

  test("a hostile tool path — a FIFO, a link out to a device — is not read, and loading does not hang", async () => {
    const dir = await suite();
    await mkdir(path.join(dir, "traps"));
    execFileSync("mkfifo", [path.join(dir, "traps/fifo")]);
    await symlink("/dev/zero", path.join(dir, "traps/zero"));
    await writeFile(path.join(dir, "s.yaml"), SCENARIO.replace("./bin/tool", "./traps/fifo"));
    expect((await load(dir)).treatment.tool).toEqual({ path: "traps/fifo", sha256: null });
    await writeFile(path.join(dir, "s.yaml"), SCENARIO.replace("./bin/tool", "./traps/zero"));
    // The link leads outside the repository: refused where the scenario is loaded, never read.
    await expect(load(dir)).rejects.toThrow(/target\.binary: "\.\/traps\/zero" leads outside/);
  });
});
