/**
 * Host programs an external agent's command runs (the command agent's template: `/repo/agent.sh
 * {prompt}`, `my-agent --task {prompt}`), made visible in the bwrap sandbox the way the target
 * binary is: each is resolved on the host (a path, or a name on the parent's PATH), its folders
 * are bound read-only at the same place, and so are a script's interpreter's (`#!/usr/bin/env
 * node` on a runner's tool cache). Folders outside the sandbox's system folders are added to the
 * end of PATH, so a name still finds its program inside.
 */
import { open } from "node:fs/promises";
import path from "node:path";
import { collectTargetBinds, isUnderSystemDir } from "./bwrap.js";
import { resolveRealBinary } from "./shim.js";

const SHEBANG_BYTES = 256;

export interface ProgramBinds {
  /** Host paths to bind read-only at the same place. */
  binds: string[];
  /** Folders of the programs (and interpreters) found by name, for the end of PATH. */
  pathDirs: string[];
}

/**
 * Binds for each program that exists on the host; a program that does not (a relative path, a
 * typo) is left to fail inside as it would in a shell.
 */
export async function collectProgramBinds(
  programs: readonly string[],
  parentPath: string,
  sandboxBase: string,
): Promise<ProgramBinds> {
  const binds = new Set<string>();
  const pathDirs = new Set<string>();
  const add = async (program: string): Promise<string | null> => {
    // A relative path names a file inside the sandbox (its cwd is the work dir), not the host's.
    if (program.includes("/") && !path.isAbsolute(program)) return null;
    const found = await resolveRealBinary(program, parentPath).catch(() => null);
    if (!found) return null;
    for (const bind of await collectTargetBinds(found, sandboxBase)) binds.add(bind);
    if (!program.includes("/") && !isUnderSystemDir(path.dirname(found))) pathDirs.add(path.dirname(found));
    return found;
  };
  for (const program of programs) {
    const found = await add(program);
    const interpreter = found ? await readShebangProgram(found) : null;
    if (interpreter) await add(interpreter);
  }
  return { binds: [...binds], pathDirs: [...pathDirs] };
}

/**
 * The program a script's `#!` line runs: the interpreter, or for `#!/usr/bin/env [-S] name` the
 * name env looks up. Null for a binary or an unreadable file.
 */
export async function readShebangProgram(file: string): Promise<string | null> {
  let head: string;
  try {
    const handle = await open(file, "r");
    try {
      const buffer = Buffer.alloc(SHEBANG_BYTES);
      const { bytesRead } = await handle.read(buffer, 0, SHEBANG_BYTES, 0);
      head = buffer.subarray(0, bytesRead).toString("latin1");
    } finally {
      await handle.close();
    }
  } catch {
    return null;
  }
  if (!head.startsWith("#!")) return null;
  const words = (head.slice(2).split("\n")[0] ?? "").trim().split(/\s+/);
  const interpreter = words[0];
  if (!interpreter) return null;
  if (path.basename(interpreter) !== "env") return interpreter;
  return words.slice(1).find((word) => !word.startsWith("-") && !word.includes("=")) ?? interpreter;
}
