/**
 * In bwrap, the target shim covers the target binary itself: the shim is bound over every path at
 * which the real binary can be run inside the sandbox (its path, its real path through symlinks,
 * and the same name in each of the sandbox's PATH folders), so calling it by its path, through a
 * PATH without the shim's folder, or with a clean environment still runs the shim and is recorded.
 *
 * The shim itself runs the real binary from a folder of its own, SANDBOX_REAL_DIR + the host path
 * (the binary's folder, a system binary's whole system folder, an npm package's node_modules, bound
 * read-only there, so a program still finds the files it locates relative to itself). That folder
 * and this shim are in the broker's sandbox only (shim-broker.ts): the agent's own sandbox has the
 * requester at every path instead. Where the target is not brokered (copy-on-write system folders,
 * or the harness's own node as the target) they are in the agent's sandbox, and an agent that reads
 * the shim script or the mount table learns that folder and can run the binary from there
 * unrecorded: a call typed that way in a tool call is still counted from the tool call
 * (evaluate/invocations.ts), a call from a script is not.
 */
import { realpath, stat } from "node:fs/promises";
import path from "node:path";
import { isUnderSystemDir, SANDBOX_PATH } from "./bwrap.js";

/** What the shim script itself runs (its interpreter; its records start no process). */
const SHIM_DEPENDENCIES = ["bash", "env"];

/** Where the real binary's folders are bound inside the sandbox, for the shim alone to use. */
export const SANDBOX_REAL_DIR = "/run/llm-tool-test/real";

export interface ShimCover {
  /** The real binary as the shim must run it inside the sandbox. */
  realInside: string;
  /** Host paths the shim (`<shimDir>/<name>`) is bound over, at the same place. */
  coveredPaths: string[];
  /** The real binary's host folders (or the file alone), bound read-only under SANDBOX_REAL_DIR. */
  realBinds: { from: string; to: string }[];
}

/**
 * The cover of the host binary `target` (absolute) in a sandbox whose temp dir is `sandboxBase`;
 * `pathDirs` are the sandbox's PATH folders besides the system ones (the target's own folder).
 * Null for a target the shim itself runs on (bash, env): that one is not covered.
 */
export async function planShimCover(
  target: string,
  sandboxBase: string,
  pathDirs: readonly string[],
): Promise<ShimCover | null> {
  const name = path.basename(target);
  const real = await realFile(target);
  if (!real) return null;
  // The shim runs on these: covering one with the shim would make the shim call itself.
  for (const dependency of SHIM_DEPENDENCIES) {
    for (const dir of SANDBOX_PATH.split(":")) {
      if ((await realFile(path.join(dir, dependency))) === real) return null;
    }
  }
  const covered = new Set<string>([real]);
  const dirs = [...SANDBOX_PATH.split(":"), ...pathDirs];
  for (const dir of dirs) {
    const found = await realFile(path.join(dir, name));
    // Only what the sandbox shows: a system folder's file, or the target's own.
    if (found && (isUnderSystemDir(found) || found === real)) covered.add(found);
  }
  return {
    realInside: path.posix.join(SANDBOX_REAL_DIR, real),
    coveredPaths: [...covered],
    realBinds: planRealBinds(real, sandboxBase),
  };
}

/**
 * The real file's folder (for a system binary, its whole system folder, e.g. /usr, so `../lib` and
 * `../share` resolve from it as they do from its real place) and, for an npm package, its
 * node_modules folder; outermost only.
 */
function planRealBinds(real: string, sandboxBase: string): { from: string; to: string }[] {
  const folder = path.dirname(real);
  const wanted = new Set<string>([isUnderSystemDir(folder) ? `/${folder.split("/")[1]}` : folder]);
  const nodeModules = real.indexOf(`${path.sep}node_modules${path.sep}`);
  if (nodeModules !== -1) wanted.add(real.slice(0, nodeModules + "/node_modules".length));
  const hidden = (from: string) => ({ from, to: path.posix.join(SANDBOX_REAL_DIR, from) });
  const binds: { from: string; to: string }[] = [];
  const sorted = [...wanted].sort((a, b) => a.length - b.length);
  for (const dir of sorted) {
    // A folder that holds the sandbox itself (or `/`) would show the sandbox to itself: the file alone.
    if (dir === "/" || isInside(sandboxBase, dir)) {
      binds.push(hidden(real));
      continue;
    }
    if (binds.some((bind) => isInside(dir, bind.from))) continue;
    binds.push(hidden(dir));
  }
  return dedupe(binds);
}

function dedupe(binds: { from: string; to: string }[]): { from: string; to: string }[] {
  const seen = new Set<string>();
  return binds.filter((bind) => !seen.has(bind.to) && seen.add(bind.to));
}

/** The real path of an executable regular file, else null. */
async function realFile(candidate: string): Promise<string | null> {
  try {
    const real = await realpath(candidate);
    const info = await stat(real);
    return info.isFile() && (info.mode & 0o111) !== 0 ? real : null;
  } catch {
    return null;
  }
}

/** True when `child` is `parent` or inside it. */
function isInside(child: string, parent: string): boolean {
  const relative = path.relative(parent, child);
  return relative === "" || (!relative.startsWith("..") && !path.isAbsolute(relative));
}
