import { defineConfig } from "vitest/config";

// `npm run bench`: the benchmarks run as one long vitest file so they can use the TypeScript
// sources and the scripted model server directly. They print ratios and write BENCHMARKS.md.
export default defineConfig({
  test: {
    include: ["bench/**/*.bench-run.ts"],
    testTimeout: 600_000,
    pool: "forks",
    fileParallelism: false,
  },
});
