/**
 * Where the files a scenario names may be. A scenario can come from a pull request, so the paths
 * it names must not reach files of the machine that runs it (`guidance: {file: /etc/shadow}` would
 * copy the file into the agent's work dir and from there into the report): fixtures stay in the
 * scenario's folder, guidance and rubric files in the repository that holds the scenario (the
 * README's own advice is to point `guidance` at the repository's AGENTS.md), symbolic links
 * resolved. Messages name the path, never what the file holds.
 */
import { lstat, readdir, readlink, realpath } from "node:fs/promises";
import path from "node:path";
import { findRepositoryRoot } from "./repository-root.js";

export function isInside(dir: string, candidate: string): boolean {
  const relative = path.relative(dir, candidate);
  return (
    relative === "" ||
    (!relative.startsWith(`..${path.sep}`) && relative !== ".." && !path.isAbsolute(relative))
  );
}

/** The folder a scenario's guidance and rubric files must stay in, and how messages call it. */
export interface ReadableRoot {
  dir: string;
  name: string;
}

/** The repository holding the scenario folder, or the folder itself outside git. */
export async function findReadableRoot(scenarioDir: string): Promise<ReadableRoot> {
  const repository = await findRepositoryRoot(scenarioDir);
  return repository
    ? { dir: repository, name: "the repository that holds the scenario" }
    : { dir: scenarioDir, name: "the scenario's folder" };
}

/**
 * Why `resolved` (an existing path) is not inside `root`, written and with symbolic links
 * resolved, or null when it is. `shown` is the path as the scenario wrote it.
 */
export async function describeEscape(
  resolved: string,
  root: ReadableRoot,
  shown: string,
): Promise<string | null> {
  if (!isInside(root.dir, resolved)) return `${JSON.stringify(shown)} is outside ${root.name} (${root.dir})`;
  const [realRoot, realTarget] = await Promise.all([realpath(root.dir), realpath(resolved)]);
  if (!isInside(realRoot, realTarget)) {
    return `${JSON.stringify(shown)} leads outside ${root.name} (${root.dir}) through a symbolic link`;
  }
  return null;
}

/**
 * The first symbolic link in the fixture tree (its path inside the fixture) that would point
 * outside the fixture once copied into a work dir, or undefined. Links are copied as written, so
 * an absolute one points at the host (or at the original fixture, which the agent could then
 * change), and a relative one must stay in the fixture both as written (no `..` above its top:
 * `../fixture/x` leaves a copy) and followed through the links it passes.
 */
export async function findEscapingLink(fixture: string): Promise<string | undefined> {
  const realFixture = await realpath(fixture);
  const pending = [""];
  for (let rel = pending.pop(); rel !== undefined; rel = pending.pop()) {
    const names = (await readdir(path.join(fixture, rel))).sort();
    for (const name of names) {
      const entry = rel ? path.join(rel, name) : name;
      const full = path.join(fixture, entry);
      const info = await lstat(full);
      if (info.isDirectory()) pending.push(entry);
      if (!info.isSymbolicLink()) continue;
      const target = await readlink(full);
      if (path.isAbsolute(target) || climbsOut(rel, target)) return entry;
      const followed = await realpath(full).catch(() => undefined);
      // A dangling link: where it would point if its target appeared.
      const real = followed ?? path.resolve(await realpath(path.dirname(full)), target);
      if (!isInside(realFixture, real)) return entry;
    }
  }
  return undefined;
}

/** Whether `target`, read from the folder `linkDir` (relative to the fixture), climbs above the fixture. */
function climbsOut(linkDir: string, target: string): boolean {
  let depth = linkDir === "" ? 0 : linkDir.split(path.sep).length;
  for (const part of target.split("/")) {
    if (part === "..") depth -= 1;
    else if (part !== "" && part !== ".") depth += 1;
    if (depth < 0) return true;
  }
  return false;
}
