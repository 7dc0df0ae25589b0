/**
 * A run with many trials in flight gives no "MaxListenersExceededWarning" (issue 27): each trial
 * listens on the run's signal while it runs, which is bounded by the concurrency, not a leak.
 */
import { expect, it } from "vitest";
import { createOracleAgent } from "../../src/agents/oracle.js";
import { defaultRunOptions } from "../../src/run/options.js";
import { runSuite } from "../../src/run/suite.js";
import { makeScenario } from "../support/scenario-factory.js";
import { makeTempDir } from "../support/temp-dirs.js";

it("runs 24 trials at -j 16 on the caller's signal without a listener warning", async () => {
  const warnings: string[] = [];
  const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
  process.on("warning", onWarning);
  try {
    const controller = new AbortController();
    const options = defaultRunOptions({
      outDir: makeTempDir("ltt-listeners-"),
      concurrency: 16,
      sandbox: "local",
    });
    const scenarios = [makeScenario({ id: "echo", task: "say hi", trials: 24, solution: ["echo hi"] })];
    const { report } = await runSuite(scenarios, options, {
      agent: createOracleAgent(),
      env: { PATH: process.env.PATH },
      signal: controller.signal,
    });
    expect(report.summary.trials).toBe(24);
    // Warnings are emitted on the next tick.
    await new Promise((resolve) => setImmediate(resolve));
    expect(warnings.filter((w) => w.includes("MaxListenersExceeded"))).toEqual([]);
  } finally {
    process.off("warning", onWarning);
  }
});
