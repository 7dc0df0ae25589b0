import path from "node:path";
import { describe, expect, it } from "vitest";
import { createAgent } from "../../src/agents/registry.js";
import { ConfigError } from "../../src/errors.js";
import { mergeShardReports } from "../../src/results/merge.js";
import type { Report } from "../../src/results/types.js";
import { defaultRunOptions } from "../../src/run/options.js";
import { runSuite } from "../../src/run/suite.js";
import { loadScenarios } from "../../src/scenario/load.js";
import { reportSchemaErrors } from "../support/report-schema.js";
import { makeTempDir } from "../support/temp-dirs.js";

const ROOT = path.resolve(import.meta.dirname, "../..");

async function run(shard: { index: number; count: number } | null): Promise<Report> {
  const scenarios = await loadScenarios([
    path.join(ROOT, "tests/fixtures/e2e/suite"),
    path.join(ROOT, "tests/fixtures/scenarios/basic"),
  ]);
  const outDir = makeTempDir("ltt-shard-");
  const { report } = await runSuite(
    scenarios,
    defaultRunOptions({ agent: "oracle", outDir, trials: 3, shard, concurrency: 3 }),
    {
      agent: createAgent("oracle"),
      env: { PATH: process.env.PATH },
    },
  );
  return report;
}

/** What identifies a trial's result, apart from timings. */
function trialSet(report: Report): string[] {
  return report.scenarios
    .flatMap((s) =>
      s.trials.map(
        (t) => `${s.id}#${t.trial} ${t.outcome} ${t.score}/${t.max_score} ${JSON.stringify(t.interaction)}`,
      ),
    )
    .sort();
}

describe("sharding across machines, then merging", () => {
  it("shards 1/3, 2/3, 3/3 merged equal the unsharded run's trial set", async () => {
    const whole = await run(null);
    const shards = await Promise.all([1, 2, 3].map((index) => run({ index, count: 3 })));
    expect(shards.map((s) => s.summary.trials).reduce((a, b) => a + b)).toBe(whole.summary.trials);
    const merged = mergeShardReports(shards.map((report, i) => ({ file: `shard-${i + 1}.json`, report })));
    expect(trialSet(merged)).toEqual(trialSet(whole));
    expect(merged.summary).toMatchObject({
      trials: whole.summary.trials,
      passed: whole.summary.passed,
      failed: whole.summary.failed,
      total_score: whole.summary.total_score,
    });
    expect(merged.run.shard).toBeNull();
    expect(merged.run.incomplete).toBe(false);
    expect(reportSchemaErrors(merged)).toEqual([]);

    // Refusals: an overlapping shard, a shard of another run, and a missing shard marks it incomplete.
    const first = shards[0] as Report;
    expect(() =>
      mergeShardReports([
        { file: "a.json", report: first },
        { file: "b.json", report: first },
      ]),
    ).toThrow(/is shard 1\/3 again/);
    const otherRun = { ...first, run: { ...first.run, settings_hash: "different" } };
    expect(() =>
      mergeShardReports([
        { file: "a.json", report: shards[1] as Report },
        { file: "b.json", report: otherRun },
      ]),
    ).toThrow(ConfigError);
    const partial = mergeShardReports([{ file: "a.json", report: first }]);
    expect(partial.run.incomplete).toBe(true);
  });
});
