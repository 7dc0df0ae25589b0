/** Paths given by a scenario or a gate, kept inside the sandbox's root. */
import path from "node:path";
import { ConfigError } from "../errors.js";

/** Relative → the work dir; absolute → inside the root. Refuses paths that leave the root. */
export function resolveSandboxPath(target: string, root: string, workDir: string): string {
  const resolved = path.isAbsolute(target) ? path.join(root, target) : path.resolve(workDir, target);
  assertInsideRoot(resolved, root, `path "${target}"`);
  return resolved;
}

export function assertInsideRoot(resolved: string, root: string, what: string): void {
  const relative = path.relative(root, resolved);
  if (relative.startsWith("..") || path.isAbsolute(relative)) {
    throw new ConfigError(`${what} leaves the sandbox: use a path inside the work dir or the sandbox root`);
  }
}
