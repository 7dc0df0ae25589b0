/**
 * Adaptive extra trials in runSuite, with the oracle agent: a scenario whose first trials collapse
 * against the baseline gets the extra trials, an unchanged one does not, and an interrupted run
 * resumes them exactly once.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createAgent } from "../../src/agents/registry.js";
import { decideRun } from "../../src/compare/decide-run.js";
import { renderDesignLine } from "../../src/render/decision.js";
import type { Report } from "../../src/results/types.js";
import { adaptiveDesignOf } from "../../src/run/adaptive.js";
import { defaultRunOptions, type RunOptions } from "../../src/run/options.js";
import { planTrials } from "../../src/run/plan.js";
import { type ProgressEvent, runSuite } from "../../src/run/suite.js";
import type { Scenario } from "../../src/scenario/types.js";
import { scenarioWith } from "../render/decision-fixtures.js";
import { makeReport } from "../support/report-factory.js";
import { reportSchemaErrors } from "../support/report-schema.js";
import { makeScenario } from "../support/scenario-factory.js";
import { makeTempDir } from "../support/temp-dirs.js";

function writes(id: string, text: string): Scenario {
  return makeScenario({
    id,
    solution: [`echo ${text} > x.txt`],
    evaluation: { gates: [{ type: "file_contains", path: "x.txt", substring: "hi", weight: 1 }] },
  });
}

/** `broken` fails every trial now; the baseline saw both scenarios pass 12 of 12. */
const SCENARIOS = [writes("broken", "no"), writes("fine", "hi")];
const BASELINE = { broken: { passed: 12, trials: 12 }, fine: { passed: 12, trials: 12 } };

async function runWith(
  overrides: Partial<RunOptions>,
  ports: { signal?: AbortSignal; onProgress?: (event: ProgressEvent) => void } = {},
): Promise<Report> {
  const outDir = overrides.outDir ?? makeTempDir("ltt-adaptive-");
  const options = defaultRunOptions({
    agent: "oracle",
    trials: 3,
    extraTrials: 4,
    baselineCounts: BASELINE,
    sandbox: "local",
    ...overrides,
    outDir,
  });
  const { report } = await runSuite(SCENARIOS, options, {
    agent: createAgent("oracle"),
    env: { PATH: process.env.PATH },
    ...ports,
  });
  return report;
}

function trialsOf(report: Report, id: string) {
  return report.scenarios.find((s) => s.id === id);
}

describe("adaptive extra trials", () => {
  it("gives a collapsed scenario m more trials, and an unchanged one none", async () => {
    const events: ProgressEvent[] = [];
    const report = await runWith({ concurrency: 2 }, { onProgress: (event) => events.push(event) });
    const broken = trialsOf(report, "broken");
    expect(broken?.trials.map((t) => [t.trial, t.outcome])).toEqual(
      [1, 2, 3, 4, 5, 6, 7].map((n) => [n, "fail"]),
    );
    expect(broken).toMatchObject({ first_trials: 3, extended: true });
    const fine = trialsOf(report, "fine");
    expect(fine?.trials.map((t) => t.trial)).toEqual([1, 2, 3]);
    expect(fine).toMatchObject({ first_trials: 3, extended: false });
    expect(report.summary.trials).toBe(10);
    expect(reportSchemaErrors(report)).toEqual([]);
    expect(events.filter((e) => e.type === "extended")).toEqual([
      { type: "extended", scenarioKey: "broken", trials: 4, total: 10 },
    ]);
    const ends = events.filter((e) => e.type === "trial_end");
    expect(ends.at(-1)).toMatchObject({ done: 10, total: 10 });
  });

  it("decides with the design it ran: its extra trials even when no scenario needed them, none in a shard", async () => {
    // Eight base runs of 3 (a design that can conclude, so the decision plans nothing more).
    const baseline = makeReport([scenarioWith("fine", 24, 24, {}, { measurement_hash: "measurement-fine" })]);
    const pooling = {
      runs: Array.from({ length: 8 }, (_, i) => `run #${i + 1}`),
      excluded: [],
      runCounts: { fine: Array.from({ length: 8 }, () => ({ passed: 3, trials: 3 })) },
    };
    const runAndDecide = async (overrides: Partial<RunOptions>) => {
      const options = defaultRunOptions({
        agent: "oracle",
        trials: 3,
        extraTrials: 5,
        baselineCounts: { fine: { passed: 24, trials: 24 } },
        sandbox: "local",
        outDir: makeTempDir("ltt-adaptive-"),
        ...overrides,
      });
      const { report, designExtraTrials } = await runSuite([writes("fine", "hi")], options, {
        agent: createAgent("oracle"),
        env: { PATH: process.env.PATH },
        baseline,
      });
      const { decision } = decideRun({
        report,
        baseline: { report: baseline, pooling },
        policy: { failOn: null, gateMetrics: [] },
        designExtraTrials,
      });
      return { decision, report };
    };
    const unextended = await runAndDecide({});
    expect(unextended.report.scenarios[0]).toMatchObject({ extended: false });
    // Not the default (8) and not the 0 extra trials this run happened to spend: the design's 5.
    expect(unextended.decision.design?.extra_trials).toBe(5);
    expect(renderDesignLine(unextended.decision)).toMatch(/^1 scenario × 3 \(\+5\) trials against/);
    const shard = await runAndDecide({ shard: { index: 1, count: 1 } });
    expect(shard.decision.design?.extra_trials).toBe(0);
  });

  it("runs no extra trials with --extra-trials 0, or without a baseline", async () => {
    for (const overrides of [{ extraTrials: 0 }, { baselineCounts: null }]) {
      const report = await runWith(overrides);
      // No extra-trials design: `extended` is left out, so a later comparison tests every scenario.
      expect(trialsOf(report, "broken")).toMatchObject({ first_trials: 3 });
      expect(trialsOf(report, "broken")).not.toHaveProperty("extended");
      expect(trialsOf(report, "broken")?.trials).toHaveLength(3);
      expect(report.summary.trials).toBe(6);
    }
  });

  it("resumes an interrupted adaptive run: the extra trials run exactly once", async () => {
    const outDir = makeTempDir("ltt-adaptive-resume-");
    const abort = new AbortController();
    // One at a time: the first trials, then broken's extra trials; stop after the second of those.
    const interrupted = await runWith(
      { outDir, concurrency: 1 },
      {
        signal: abort.signal,
        onProgress: (event) => {
          if (event.type === "trial_end" && event.key === "broken#5") abort.abort("cancelled");
        },
      },
    );
    expect(interrupted.run.incomplete).toBe(true);
    const cut = trialsOf(interrupted, "broken");
    expect(cut).toMatchObject({ extended: true });
    expect(cut?.trials.map((t) => t.outcome)).toEqual([
      "fail",
      "fail",
      "fail",
      "fail",
      "fail",
      "skipped",
      "skipped",
    ]);
    const kept = await readFile(path.join(outDir, "trials/broken/trial-4/result.json"), "utf8");

    const started: string[] = [];
    const resumed = await runWith(
      { outDir, concurrency: 2, resume: true },
      { onProgress: (event) => event.type === "trial_start" && started.push(event.key) },
    );
    expect(started.sort()).toEqual(["broken#6", "broken#7"]);
    expect(resumed.run.incomplete).toBe(false);
    expect(trialsOf(resumed, "broken")?.trials.map((t) => [t.trial, t.outcome])).toEqual(
      [1, 2, 3, 4, 5, 6, 7].map((n) => [n, "fail"]),
    );
    expect(trialsOf(resumed, "fine")?.trials).toHaveLength(3);
    expect(await readFile(path.join(outDir, "trials/broken/trial-4/result.json"), "utf8")).toBe(kept);

    // The extra trials were decided with this design: another one is refused.
    await expect(runWith({ outDir, resume: true, extraTrials: 6 })).rejects.toThrow(
      "cannot resume: the baseline or --extra-trials differ",
    );
  });
});

describe("adaptiveDesignOf", () => {
  const plan = (trials: number, shard: RunOptions["shard"] = null) =>
    planTrials(SCENARIOS, { trials, shard });

  it("is off in a sharded run and with one first trial per scenario, and says why", () => {
    const options = { extraTrials: 6, baselineCounts: BASELINE };
    expect(adaptiveDesignOf(plan(3), { ...options, shard: null }).design).toEqual({
      extraTrials: 6,
      baselineCounts: BASELINE,
    });
    const sharded = adaptiveDesignOf(plan(3, { index: 1, count: 2 }), {
      ...options,
      shard: { index: 1, count: 2 },
    });
    expect(sharded.design).toBeNull();
    expect(sharded.note).toContain("sharded run");
    const single = adaptiveDesignOf(plan(1), { ...options, shard: null });
    expect(single.design).toBeNull();
    expect(single.note).toContain("one trial per scenario");
  });
});
