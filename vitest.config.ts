import os from "node:os";
import { configDefaults, defineConfig } from "vitest/config";

/**
 * Test files that run the compiled CLI or library (bin/ -> lib/). Only their project compiles
 * lib/ first (tests/global-setup.ts), so a unit test file runs in its own time.
 * tests/support/test-projects.test.ts checks that every file using lib/ is listed here.
 */
export const COMPILED_TESTS = [
  "tests/e2e/**/*.test.ts",
  "tests/readme.test.ts",
  "tests/version.test.ts",
  "tests/sandbox/process-runner.test.ts",
  "tests/hostile/proc-environ.test.ts",
  "tests/hostile/output-flood.test.ts",
  "tests/hostile/gate-sigterm.test.ts",
  "tests/hostile/sudo-harness.test.ts",
];

export default defineConfig({
  test: {
    // A bound for hangs, not a speed target: beside `stress --cpu 2` the CLI's end-to-end tests ran
    // 5–7× slower than on an idle machine (one took 30 s against 4 s), BENCHMARKS.md "The test suite".
    testTimeout: 120_000,
    hookTimeout: 60_000,
    pool: "forks",
    // Vitest's default is one file at a time on 2 cores (CPUs − 1), where most files wait on
    // sandboxes and child processes: six slow files took 284 s one at a time, 177 s two at a time,
    // 167 s three (BENCHMARKS.md "The test suite").
    maxWorkers: Math.max(2, os.availableParallelism() - 1),
    // Every file runs with a temp dir of its own and fails if it leaves anything in it.
    setupFiles: ["tests/support/temp-dir-check.ts"],
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["tests/**/*.test.ts"],
          exclude: [...configDefaults.exclude, ...COMPILED_TESTS],
        },
      },
      {
        extends: true,
        test: { name: "compiled", include: COMPILED_TESTS, globalSetup: ["tests/global-setup.ts"] },
      },
    ],
  },
});
