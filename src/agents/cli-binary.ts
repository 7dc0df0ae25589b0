/**
 * Where an agent CLI's program is: the variable that names it, else its command on PATH, else the
 * package installed in a node_modules above this module or the cwd (the devDependency the tests
 * and the action use). One order for every agent CLI that ships as an npm package; each says where
 * its package keeps the program.
 */
import { accessSync, constants as fsConstants, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ConfigError } from "../errors.js";

export interface CliBinarySpec {
  /** The agent's name, for messages. */
  agent: string;
  /** What it needs, for the message when there is none (`the Claude Code CLI`). */
  label: string;
  /** The variable that overrides the search (LLM_TOOL_TEST_..._BIN). */
  envVar: string;
  /** The command on PATH (`gemini`). */
  command: string;
  /** The npm package (`@google/gemini-cli`), for the install hint. */
  packageName: string;
  /** The version tested with, for the install hint. */
  version?: string;
  /** The program to run from the package's install in this node_modules folder, or null. */
  findInNodeModules(nodeModules: string): string | null;
  /** The program to run for the command found on PATH (an npm launcher's native binary); default the command. */
  fromPath?(command: string): string;
}

/**
 * The variable's program (which must be executable), else the command on PATH, else the package
 * in a node_modules folder above one of `searchFrom`; a ConfigError saying how to install it.
 */
export function resolveCliBinary(
  spec: CliBinarySpec,
  env: Record<string, string | undefined>,
  searchFrom: readonly string[] = defaultSearchRoots(),
): string {
  const explicit = env[spec.envVar];
  if (explicit) {
    const resolved = path.resolve(explicit);
    if (!isExecutableFile(resolved)) {
      throw new ConfigError(
        `${explicit} is not an executable file: point it at the ${spec.command} binary or unset it`,
        spec.envVar,
      );
    }
    return resolved;
  }
  for (const dir of (env.PATH ?? "").split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, spec.command);
    if (isExecutableFile(candidate)) return spec.fromPath ? spec.fromPath(candidate) : candidate;
  }
  for (const start of searchFrom) {
    for (let dir = path.resolve(start); ; dir = path.dirname(dir)) {
      const found = spec.findInNodeModules(path.join(dir, "node_modules"));
      if (found) return found;
      if (path.dirname(dir) === dir) break;
    }
  }
  throw new ConfigError(
    `the ${spec.agent} agent needs ${spec.label}, but no \`${spec.command}\` was found on PATH: install it (npm install -g ${spec.packageName}${spec.version ? `@${spec.version}` : ""}) or set ${spec.envVar} to its path`,
    "--agent",
  );
}

function defaultSearchRoots(): string[] {
  const roots = [process.cwd()];
  try {
    roots.unshift(path.dirname(fileURLToPath(import.meta.url)));
  } catch {
    // Bundled without a file URL: the cwd alone.
  }
  return roots;
}

export function isExecutableFile(file: string): boolean {
  try {
    accessSync(file, fsConstants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/** A package's script need not be executable (npm sets the bit on the bin link's target only). */
export function isReadableFile(file: string): boolean {
  try {
    accessSync(file, fsConstants.R_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}
