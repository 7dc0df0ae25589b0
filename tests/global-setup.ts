import { spawnSync } from "node:child_process";
import path from "node:path";

/**
 * Tests of the compiled CLI and library (bin/ -> lib/; the "compiled" project in vitest.config.ts)
 * run them as users do: compile once before they start. Unit tests do not wait for this.
 * Type errors are the typecheck step's business; tsc still emits, so they only warn here.
 */
export default function setup() {
  const root = path.resolve(import.meta.dirname, "..");
  const result = spawnSync(
    process.execPath,
    [path.join(root, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.build.json"],
    { cwd: root, encoding: "utf8" },
  );
  if (result.status !== 0) {
    process.stderr.write(
      `warning: tsc reported errors while building lib/ for the compiled tests:\n${result.stdout.slice(0, 2000)}\n`,
    );
  }
  // The process runner bundled with execa, as `npm run build` makes it (exec.ts prefers it to the
  // unbundled file): never a stale one from an earlier build.
  const runner = spawnSync(
    process.execPath,
    [path.join(root, "scripts/bundle-runner.mjs"), "lib/sandbox/process-runner"],
    { cwd: root, encoding: "utf8" },
  );
  if (runner.status !== 0)
    throw new Error(`bundling the process runner failed:\n${runner.stderr.slice(0, 2000)}`);
}
