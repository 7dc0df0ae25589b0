/**
 * The package as users get it: `npm pack`, then `npm install` of the tarball into an empty git
 * repository (the registry serves its dependencies). Shared by the end-to-end test of the installed
 * package (tests/e2e/installed-package.test.ts) and the footprint benchmark (bench/footprint.bench-run.ts).
 * `installTarballOffline` is the same install without the registry, for tests that must run
 * offline (tests/e2e/library-example.test.ts).
 */
import { mkdir, readdir, readFile, rename, symlink } from "node:fs/promises";
import path from "node:path";
import { type CommandResult, ROOT, runCommand } from "./run-cli.js";

export { type CommandResult, ROOT, runCommand };

function check(result: CommandResult, what: string): CommandResult {
  if (result.code !== 0) {
    throw new Error(
      `${what} exited ${result.code}:\n${result.stdout.slice(-2000)}\n${result.stderr.slice(-2000)}`,
    );
  }
  return result;
}

/**
 * A user's environment: this process's (PATH, HOME and the npm cache, proxies), without the keys
 * that would make a run use a model.
 */
export function userEnv(): Record<string, string | undefined> {
  const env = { ...process.env };
  for (const name of Object.keys(env)) {
    if (
      /^(ANTHROPIC_|LLM_TOOL_TEST_|CLAUDE_)/.test(name) ||
      name === "NODE_OPTIONS" ||
      name.startsWith("VITEST")
    )
      delete env[name];
  }
  return { ...env, NO_COLOR: "1", npm_config_audit: "false", npm_config_fund: "false" };
}

/**
 * Packs the package into `dest` and returns the tarball's path. `build: false` packs lib/ as it is
 * (the compiled tests build it first); `build: true` lets the prepack script compile it.
 */
export async function packTarball(dest: string, options: { build: boolean }): Promise<string> {
  await mkdir(dest, { recursive: true });
  const args = ["pack", "--json", "--pack-destination", dest, ...(options.build ? [] : ["--ignore-scripts"])];
  const result = check(await runCommand("npm", args, { cwd: ROOT, env: userEnv() }), "npm pack");
  const [packed] = JSON.parse(result.stdout.slice(result.stdout.indexOf("["))) as { filename: string }[];
  if (!packed) throw new Error(`npm pack printed no file: ${result.stdout}`);
  return path.join(dest, packed.filename);
}

/** An empty project: `git init` and `npm init -y`, as a new user starts. */
export async function createEmptyProject(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  const env = userEnv();
  check(await runCommand("git", ["init", "-q", "-b", "main"], { cwd: dir, env }), "git init");
  check(await runCommand("npm", ["init", "-y"], { cwd: dir, env }), "npm init");
}

/** `npm install --save-dev <tarball>` in the project. */
export async function installTarball(project: string, tarball: string): Promise<void> {
  check(
    await runCommand("npm", ["install", "--save-dev", tarball], { cwd: project, env: userEnv() }),
    "npm install",
  );
}

/**
 * The tarball unpacked as `node_modules/llm-tool-test` of the project, its dependencies linked from
 * this repository's node_modules: what `npm install` of it gives, without the registry. Only the
 * declared dependencies are there, so the package cannot lean on a devDependency.
 */
export async function installTarballOffline(project: string, tarball: string): Promise<void> {
  const modules = path.join(project, "node_modules");
  await mkdir(modules, { recursive: true });
  check(await runCommand("tar", ["-xzf", tarball, "-C", modules], { cwd: project, env: userEnv() }), "tar");
  const installed = path.join(modules, "llm-tool-test");
  await rename(path.join(modules, "package"), installed);
  const manifest = JSON.parse(await readFile(path.join(installed, "package.json"), "utf8")) as {
    dependencies?: Record<string, string>;
  };
  // @types/node as a TypeScript user has it, to type-check code written against the package.
  for (const name of [...Object.keys(manifest.dependencies ?? {}), "@types/node"]) {
    await mkdir(path.dirname(path.join(modules, name)), { recursive: true });
    await symlink(path.join(ROOT, "node_modules", name), path.join(modules, name));
  }
}

export interface Footprint {
  /** `du -s --apparent-size` of node_modules, in bytes. */
  bytes: number;
  /** The largest top-level packages (scoped ones as `@scope/name`), largest first. */
  largest: { name: string; bytes: number }[];
}

async function apparentSize(folder: string): Promise<number> {
  const result = check(
    await runCommand("du", ["-s", "--apparent-size", "--block-size=1", folder], {
      cwd: ROOT,
      env: userEnv(),
    }),
    "du",
  );
  return Number(result.stdout.split(/\s/)[0]);
}

/** What an install weighs: node_modules as a whole, and its largest packages. */
export async function measureFootprint(project: string): Promise<Footprint> {
  const modules = path.join(project, "node_modules");
  const names: string[] = [];
  for (const entry of await readdir(modules)) {
    if (entry.startsWith(".")) continue;
    if (entry.startsWith("@")) {
      for (const scoped of await readdir(path.join(modules, entry))) names.push(`${entry}/${scoped}`);
    } else {
      names.push(entry);
    }
  }
  const sizes = await Promise.all(
    names.map(async (name) => ({ name, bytes: await apparentSize(path.join(modules, name)) })),
  );
  return {
    bytes: await apparentSize(modules),
    largest: sizes.sort((a, b) => b.bytes - a.bytes).slice(0, 5),
  };
}

export function formatMegabytes(bytes: number): string {
  return `${(bytes / 1e6).toFixed(1)} MB`;
}
