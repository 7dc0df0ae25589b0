/** Where a repository's paths are relative to: scenario paths in the action, `file` in JUnit XML. */
import { lstat } from "node:fs/promises";
import path from "node:path";

/** The nearest folder at or above `dir` holding `.git` (a folder, or a file for worktrees). */
export async function findRepositoryRoot(dir: string): Promise<string | undefined> {
  let current = path.resolve(dir);
  for (;;) {
    const found = await lstat(path.join(current, ".git")).then(
      () => true,
      () => false,
    );
    if (found) return current;
    const parent = path.dirname(current);
    if (parent === current) return undefined;
    current = parent;
  }
}

/** The repository `cwd` is in, or `cwd` itself outside git. */
export async function projectRootOf(cwd: string): Promise<string> {
  return (await findRepositoryRoot(cwd)) ?? path.resolve(cwd);
}
