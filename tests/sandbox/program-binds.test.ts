import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collectProgramBinds, readShebangProgram } from "../../src/sandbox/program-binds.js";

let dir: string;
let toolsDir: string;
let repoDir: string;
let sandboxBase: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "program-binds-test-"));
  toolsDir = path.join(dir, "tools", "bin");
  repoDir = path.join(dir, "repo", "agents");
  sandboxBase = path.join(dir, "sandbox");
  await Promise.all([
    mkdir(toolsDir, { recursive: true }),
    mkdir(repoDir, { recursive: true }),
    mkdir(sandboxBase),
  ]);
  // An interpreter on a tool cache, found through `#!/usr/bin/env`.
  await writeFile(path.join(toolsDir, "my-node"), "#!/bin/sh\nexit 0\n", { mode: 0o755 });
  await writeFile(path.join(repoDir, "agent.js"), "#!/usr/bin/env -S my-node --flag\n", { mode: 0o755 });
  await writeFile(path.join(toolsDir, "my-agent"), "\x7fELF binary", { mode: 0o755 });
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("collectProgramBinds", () => {
  it("binds a script's folder and its env interpreter's, whose folder joins PATH", async () => {
    const shown = await collectProgramBinds(
      [path.join(repoDir, "agent.js")],
      `${toolsDir}:/usr/bin`,
      sandboxBase,
    );
    expect(shown.binds.sort()).toEqual([repoDir, toolsDir].sort());
    // The script is named by its path; only the interpreter is looked up by name inside.
    expect(shown.pathDirs).toEqual([toolsDir]);
  });

  it("finds a name on the parent's PATH; system folders, relative paths and missing programs add nothing", async () => {
    const byName = await collectProgramBinds(["my-agent"], `/usr/bin:${toolsDir}`, sandboxBase);
    expect(byName).toEqual({ binds: [toolsDir], pathDirs: [toolsDir] });
    const nothing = await collectProgramBinds(
      ["bash", "./agent.sh", "no-such-agent"],
      "/usr/bin:/bin",
      sandboxBase,
    );
    expect(nothing).toEqual({ binds: [], pathDirs: [] });
  });
});

describe("readShebangProgram", () => {
  it("reads the interpreter, the name after env, and nothing for a binary", async () => {
    expect(await readShebangProgram(path.join(repoDir, "agent.js"))).toBe("my-node");
    expect(await readShebangProgram(path.join(toolsDir, "my-node"))).toBe("/bin/sh");
    expect(await readShebangProgram(path.join(toolsDir, "my-agent"))).toBeNull();
    expect(await readShebangProgram(path.join(dir, "missing"))).toBeNull();
  });
});
