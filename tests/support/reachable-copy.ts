/**
 * Parts of this checkout where other users can reach them. Where the harness runs as root, the
 * local sandbox runs agents as accounts of their own (src/sandbox/agent-account.ts), and a test
 * runs the CLI as another user (tests/hostile/sudo-harness.test.ts): a checkout inside a private
 * folder (`mktemp -d` makes 0700 ones, a home often is) is closed to them. Such a test uses a copy
 * (hard links where the file system allows, so cheap) in one of its temp dirs, and the checkout
 * itself where every user can reach it. The product's own answer to a closed path is its
 * preflight's ConfigError (tests/run/preflight.test.ts); these tests are about something else.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, statSync } from "node:fs";
import path from "node:path";
import { ROOT } from "./run-cli.js";
import { makeTempDir } from "./temp-dirs.js";

/** Whether a user who owns nothing here can pass through every folder down to `file` and read it. */
function isReachableByOthers(file: string): boolean {
  const target = path.resolve(file);
  for (let current = target; ; current = path.dirname(current)) {
    let mode: number;
    try {
      mode = statSync(current).mode;
    } catch {
      return false;
    }
    const wanted = current === target && !statSync(current).isDirectory() ? 0o004 : 0o001;
    if ((mode & wanted) === 0) return false;
    if (path.dirname(current) === current) return true;
  }
}

let copyRoot: string | null = null;
const copied = new Set<string>();

/**
 * A folder holding `parts` (top-level files and folders of this checkout) where other users can
 * reach them: the checkout when they can, else a copy of the parts asked for (removed with the test
 * file's temp dirs).
 */
export function reachableCheckout(parts: readonly string[]): string {
  if (isReachableByOthers(ROOT)) return ROOT;
  copyRoot ??= makeTempDir("ltt-reachable-checkout-");
  for (const part of parts) {
    if (copied.has(part)) continue;
    copyTree(path.join(ROOT, part), path.join(copyRoot, part));
    copied.add(part);
  }
  return copyRoot;
}

/**
 * The package folder of `program` (an agent CLI's file in this checkout's node_modules) made
 * reachable: the program's path in it. Only the package is copied.
 */
export function reachableProgram(program: string): string {
  const relative = path.relative(ROOT, program);
  if (relative.startsWith("..") || path.isAbsolute(relative) || isReachableByOthers(program)) return program;
  const parts = relative.split(path.sep);
  // node_modules/<name> or node_modules/@scope/<name>: the package the program ships in.
  const depth = parts[0] === "node_modules" ? (parts[1]?.startsWith("@") ? 3 : 2) : parts.length - 1;
  const packageDir = parts.slice(0, depth).join(path.sep);
  copyRoot ??= makeTempDir("ltt-reachable-checkout-");
  if (!copied.has(packageDir)) {
    copyTree(path.join(ROOT, packageDir), path.join(copyRoot, packageDir));
    copied.add(packageDir);
  }
  return path.join(copyRoot, relative);
}

/** `cp -a`, with hard links where it can (the same file system). */
function copyTree(from: string, to: string): void {
  mkdirSync(path.dirname(to), { recursive: true, mode: 0o755 });
  try {
    execFileSync("cp", ["-al", from, to], { stdio: "pipe" });
  } catch {
    execFileSync("rm", ["-rf", to]);
    execFileSync("cp", ["-a", from, to], { stdio: "pipe" });
  }
}

/**
 * The agent CLI's override variable (LLM_TOOL_TEST_..._BIN) naming a reachable copy of `program`,
 * or nothing where the checkout's own is reachable (the search the test means to use finds it).
 */
export function reachableProgramEnv(envVar: string, program: string): Record<string, string> {
  const reachable = reachableProgram(program);
  return reachable === program ? {} : { [envVar]: reachable };
}
