import { describe, expect, it } from "vitest";
import { describeRunMismatch, poolBaselines } from "../../src/compare/pool-baselines.js";
import { makeReport, makeScenarioReport, type TrialSpec, trialsFrom } from "../support/report-factory.js";

function buildScenario(id: string, specs: TrialSpec[], extra: { contentHash?: string } = {}) {
  return makeScenarioReport({
    id,
    trials: trialsFrom(specs),
    content_hash: extra.contentHash ?? `sha256:${id}`,
  });
}

const pass: TrialSpec = { outcome: "pass" };
const fail: TrialSpec = { outcome: "fail" };

function head() {
  return makeReport(
    [
      buildScenario("a", [pass, pass, pass]),
      buildScenario("b", [pass, fail, pass], { contentHash: "sha256:b2" }),
    ],
    { id: "head", evaluation_hash: "e1" },
  );
}

describe("poolBaselines", () => {
  it("leaves the reports it pools as they were (the history shows each run's own trials after)", () => {
    const newest = makeReport([buildScenario("a", [pass, fail])], { evaluation_hash: "e1" });
    const older = makeReport([buildScenario("a", [pass, pass])], { evaluation_hash: "e1" });
    const before = JSON.stringify([newest, older]);
    const pooled = poolBaselines(
      [
        { label: "run #2", report: newest },
        { label: "run #1", report: older },
      ],
      head(),
    );
    expect(pooled.report?.scenarios[0]?.trials).toHaveLength(4);
    expect(JSON.stringify([newest, older])).toBe(before);
  });

  it("pools the calls' behaviour of the first trials only; a run without it adds nothing", () => {
    const calls = (options: Record<string, number>) => ({
      options,
      shapes: { [`cat ${Object.keys(options).join(" ")}`]: 1 },
      first_failure: null,
    });
    const recorded = makeScenarioReport({
      id: "a",
      trials: trialsFrom([pass, pass, fail]).map((trial) => ({
        ...trial,
        behaviour: calls(trial.trial <= 2 ? { "--icsv": 1 } : { "--ojson": 1 }),
      })),
      // The third trial was an extra one: not pooled, nor its `--ojson`.
      first_trials: 2,
      extended: true,
      content_hash: "sha256:a",
    });
    expect(recorded.behaviour?.options).toEqual({ "--icsv": 2, "--ojson": 1 });
    const runs = [
      { label: "run #3", report: makeReport([recorded], { evaluation_hash: "e1" }) },
      { label: "run #2", report: makeReport([buildScenario("a", [pass])], { evaluation_hash: "e1" }) },
    ];
    const a = poolBaselines(runs, head()).report?.scenarios.find((s) => s.id === "a");
    expect(a?.behaviour).toMatchObject({ trials: 2, options: { "--icsv": 2 }, shapes: { "cat --icsv": 2 } });
    // A scenario's stored summary that its trials do not back (a hand-edited report) is not kept.
    const unbacked = { ...buildScenario("a", [pass]), behaviour: recorded.behaviour };
    const alone = poolBaselines(
      [{ label: "run #1", report: makeReport([unbacked], { evaluation_hash: "e1" }) }],
      head(),
    );
    expect(alone.report?.scenarios[0]?.behaviour).toBeUndefined();
  });

  it("pools each scenario's trials over the runs that match, numbering them apart", () => {
    const runs = [
      {
        label: "run #3",
        report: makeReport([buildScenario("a", [pass, fail, pass])], { evaluation_hash: "e1" }),
      },
      {
        label: "run #2",
        report: makeReport([buildScenario("a", [pass, pass, pass])], { evaluation_hash: "e1" }),
      },
    ];
    const pooled = poolBaselines(runs, head());
    expect(pooled.used).toEqual(["run #3", "run #2"]);
    const a = pooled.report?.scenarios.find((s) => s.id === "a");
    expect(a?.trials.map((t) => t.trial)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(a?.summary.passed).toBe(5);
    expect(a?.summary.failed).toBe(1);
    expect(pooled.runsPerScenario).toEqual({ a: 2 });
    expect(pooled.report?.summary.trials).toBe(6);
  });

  it("keeps each run's counts, and takes only a base run's first trials (its extra ones were chosen by outcome)", () => {
    const extended = makeScenarioReport({
      id: "a",
      // 3 first trials, then 8 extra ones the screen gave it because its first ones looked worse.
      trials: trialsFrom([fail, fail, pass, ...Array.from({ length: 8 }, () => fail)]),
      first_trials: 3,
      extended: true,
      content_hash: "sha256:a",
    });
    const runs = [
      { label: "run #3", report: makeReport([extended], { evaluation_hash: "e1" }) },
      {
        label: "run #2",
        report: makeReport([buildScenario("a", [pass, pass, pass])], { evaluation_hash: "e1" }),
      },
    ];
    const pooled = poolBaselines(runs, head());
    // Oldest first; these two started at the same time, so the given order (newest first) decides.
    expect(pooled.chronology).toEqual(["run #2", "run #3"]);
    expect(pooled.runCounts).toEqual({
      a: [
        { passed: 3, trials: 3 },
        { passed: 1, trials: 3 },
      ],
    });
    const a = pooled.report?.scenarios.find((s) => s.id === "a");
    expect(a?.trials).toHaveLength(6);
    expect(a?.summary.passed).toBe(4);
  });

  it("keeps each run's counts oldest first by when it started, whatever order the runs came in", () => {
    const run = (label: string, startedAt: string, passed: number) => ({
      label,
      report: makeReport(
        [
          buildScenario(
            "a",
            Array.from({ length: 3 }, (_, i) => (i < passed ? pass : fail)),
          ),
        ],
        { evaluation_hash: "e1", started_at: startedAt },
      ),
    });
    // The action's order: the base commit's run first (here not the newest), then newest first.
    const pooled = poolBaselines(
      [
        run("base commit", "2026-03-02T10:00:00Z", 1),
        run("run #9", "2026-03-04T10:00:00Z", 0),
        run("run #5", "2026-02-20T10:00:00Z", 3),
        run("run #7", "2026-02-27T10:00:00Z", 2),
      ],
      head(),
    );
    expect(pooled.used).toEqual(["base commit", "run #9", "run #5", "run #7"]);
    expect(pooled.chronology).toEqual(["run #5", "run #7", "base commit", "run #9"]);
    expect(pooled.runCounts.a!.map((c) => c.passed)).toEqual([3, 2, 1, 0]);
    // A start that cannot be read: the given order, taken as newest first.
    const unreadable = poolBaselines(
      [
        run("run #9", "2026-03-04T10:00:00Z", 0),
        run("run #8", "not a date", 1),
        run("run #7", "2026-02-27T10:00:00Z", 2),
      ],
      head(),
    );
    expect(unreadable.chronology).toEqual(["run #7", "run #8", "run #9"]);
  });

  it("leaves out a scenario whose content changed, and says so", () => {
    const runs = [
      { label: "run #3", report: makeReport([buildScenario("a", [pass]), buildScenario("b", [pass])]) },
    ];
    const pooled = poolBaselines(runs, head());
    expect(pooled.report?.scenarios.map((s) => s.id)).toEqual(["a"]);
    expect(pooled.excluded).toEqual([
      { label: "run #3", scenario: "b", reason: "the scenario changed since this run" },
    ]);
  });

  it("leaves out whole runs of another model, agent, judge, harness major or evaluation settings", () => {
    const scenarios = [buildScenario("a", [pass])];
    const runs = [
      { label: "model", report: makeReport(scenarios, { model: "claude-haiku-4-5" }) },
      { label: "agent", report: makeReport(scenarios, { agent: "claude-code" }) },
      { label: "judge", report: makeReport(scenarios, { judge_model: "claude-haiku-4-5" }) },
      { label: "major", report: makeReport(scenarios, { harness_version: "1.0.0" }) },
      { label: "settings", report: makeReport(scenarios, { evaluation_hash: "other" }) },
    ];
    const pooled = poolBaselines(runs, head());
    expect(pooled.report).toBeNull();
    expect(pooled.used).toEqual([]);
    expect(pooled.excluded.map((e) => [e.label, e.scenario])).toEqual([
      ["model", null],
      ["agent", null],
      ["judge", null],
      ["major", null],
      ["settings", null],
    ]);
    expect(pooled.excluded[0]?.reason).toBe("model claude-haiku-4-5, not claude-sonnet-4-5");
  });

  it("accepts a report of an older version that records no evaluation hash, and a newer patch version", () => {
    const old = makeReport([buildScenario("a", [pass])], { harness_version: "0.1.9" });
    expect(describeRunMismatch(old, head())).toBeNull();
  });

  it("leaves out a run whose trials ran in another sandbox (auto fell back to local); unknown is compatible", () => {
    const withSandbox = (sandbox: "local" | "bwrap") =>
      makeScenarioReport({
        id: "a",
        trials: trialsFrom([pass]).map((trial) => ({ ...trial, sandbox })),
        content_hash: "sha256:a",
      });
    const bwrapHead = makeReport([withSandbox("bwrap")], {
      id: "head",
      evaluation_hash: "e1",
      sandbox_used: ["bwrap"],
    });
    const runs = [
      {
        label: "fell back",
        report: makeReport([withSandbox("local")], { evaluation_hash: "e1", sandbox_used: ["local"] }),
      },
      // Written before run.sandbox_used: its trials say where they ran.
      { label: "trials say local", report: makeReport([withSandbox("local")], { evaluation_hash: "e1" }) },
      { label: "bwrap", report: makeReport([withSandbox("bwrap")], { evaluation_hash: "e1" }) },
      // Older still: nothing says, so nothing objects.
      { label: "unknown", report: makeReport([buildScenario("a", [pass])], { evaluation_hash: "e1" }) },
    ];
    const pooled = poolBaselines(runs, bwrapHead);
    expect(pooled.used).toEqual(["bwrap", "unknown"]);
    expect(pooled.excluded).toEqual([
      { label: "fell back", scenario: null, reason: "its trials ran in the local sandbox, not bwrap" },
      { label: "trials say local", scenario: null, reason: "its trials ran in the local sandbox, not bwrap" },
    ]);
    // A planned head that knows its sandbox (after the preflight) is held to it too; one that does not, to nothing.
    const planned = { run: { ...bwrapHead.run, sandbox_used: ["local" as const] } };
    expect(describeRunMismatch(runs[0]!.report, planned)).toBeNull();
    expect(describeRunMismatch(runs[2]!.report, planned)).toBe(
      "its trials ran in the bwrap sandbox, not local",
    );
    const { sandbox_used: _unknown, ...unplanned } = bwrapHead.run;
    expect(describeRunMismatch(runs[0]!.report, { run: unplanned })).toBeNull();
  });

  it("pools for a head known only by its identity and planned scenarios, before it has run", () => {
    const finished = head();
    const target = {
      run: {
        agent: finished.run.agent,
        model: finished.run.model,
        judge_model: finished.run.judge_model,
        harness_version: finished.run.harness_version,
        evaluation_hash: "e1",
      },
      scenarios: [
        { id: "a", variant: null, content_hash: "sha256:a" },
        { id: "b", variant: null, content_hash: "sha256:b2" },
      ],
    };
    const runs = [
      {
        label: "run #3",
        report: makeReport([buildScenario("a", [pass, fail]), buildScenario("b", [pass])], {
          evaluation_hash: "e1",
        }),
      },
    ];
    const early = poolBaselines(runs, target);
    expect(early).toEqual(poolBaselines(runs, finished));
    expect(early.report?.scenarios.map((s) => s.id)).toEqual(["a"]);
    expect(early.excluded.map((e) => e.scenario)).toEqual(["b"]);
  });

  it("marks the pooled report incomplete when a contributing run was", () => {
    const runs = [
      { label: "run #3", report: makeReport([buildScenario("a", [pass])], { incomplete: true }) },
      { label: "run #2", report: makeReport([buildScenario("a", [pass])]) },
    ];
    expect(poolBaselines(runs, head()).report?.run.incomplete).toBe(true);
  });

  it("pools on the measurement hash: a guidance-only change keeps every run; a measurement change leaves it out", () => {
    const entry = (id: string, measurement: string | undefined, content: string, specs: TrialSpec[]) =>
      makeScenarioReport({
        id,
        trials: trialsFrom(specs),
        content_hash: content,
        ...(measurement === undefined ? {} : { measurement_hash: measurement }),
      });
    // The head edited AGENTS.md (content hashes moved) and one scenario's task (m-b moved).
    const target = makeReport([entry("a", "m-a", "c-a2", [fail]), entry("b", "m-b2", "c-b2", [fail])], {
      evaluation_hash: "e1",
    });
    const runs = [
      {
        label: "run #2",
        report: makeReport([entry("a", "m-a", "c-a1", [pass]), entry("b", "m-b", "c-b1", [pass])], {
          evaluation_hash: "e1",
        }),
      },
      // A report of an earlier version has no measurement hash: its content hash must match.
      {
        label: "old, same content",
        report: makeReport([entry("a", undefined, "c-a2", [pass])], { evaluation_hash: "e1" }),
      },
      {
        label: "old, other content",
        report: makeReport([entry("a", undefined, "c-a1", [pass])], { evaluation_hash: "e1" }),
      },
    ];
    const pooled = poolBaselines(runs, target);
    expect(pooled.runsPerScenario).toEqual({ a: 2 });
    expect(pooled.used).toEqual(["run #2", "old, same content"]);
    expect(pooled.excluded).toEqual([
      { label: "run #2", scenario: "b", reason: "the scenario changed since this run" },
      { label: "old, other content", scenario: "a", reason: "the scenario changed since this run" },
    ]);
  });

  it("pools two model matrices model by model, whatever order their models were given in", () => {
    const matrix = (models: string[], specs: TrialSpec[]) =>
      makeReport(
        models.map((model) => makeScenarioReport({ id: "a", model, trials: trialsFrom(specs) })),
        { model: models[0] ?? null, models, evaluation_hash: "e1" },
      );
    const target = matrix(["claude-x", "claude-y"], [fail]);
    const runs = [
      { label: "same order", report: matrix(["claude-x", "claude-y"], [pass]) },
      { label: "other order", report: matrix(["claude-y", "claude-x"], [pass]) },
      // One model, not a matrix: its entries carry no model, so they are another run altogether.
      { label: "one model", report: makeReport([buildScenario("a", [pass])], { model: "claude-y" }) },
    ];
    const pooled = poolBaselines(runs, target);
    expect(pooled.used).toEqual(["same order", "other order"]);
    expect(pooled.runsPerScenario).toEqual({ "a~claude-x": 2, "a~claude-y": 2 });
    expect(pooled.excluded).toEqual([
      {
        label: "one model",
        scenario: null,
        reason: "model claude-y, not a model matrix (claude-x, claude-y)",
      },
    ]);
  });

  it("leaves out a one-model run for a matrix and a matrix for a one-model run, even of the same first model", () => {
    const matrix = makeReport(
      ["claude-x", "claude-y"].map((model) =>
        makeScenarioReport({ id: "a", model, trials: trialsFrom([pass]) }),
      ),
      { model: "claude-x", models: ["claude-x", "claude-y"], evaluation_hash: "e1" },
    );
    const single = makeReport([buildScenario("a", [pass])], { model: "claude-x", evaluation_hash: "e1" });
    expect(describeRunMismatch(single, matrix)).toBe(
      "model claude-x, not a model matrix (claude-x, claude-y)",
    );
    expect(describeRunMismatch(matrix, single)).toBe(
      "a model matrix (claude-x, claude-y), not model claude-x",
    );
    expect(poolBaselines([{ label: "run #1", report: matrix }], single).excluded).toEqual([
      { label: "run #1", scenario: null, reason: "a model matrix (claude-x, claude-y), not model claude-x" },
    ]);
  });

  it("says why a matching run that contributed nothing was left out", () => {
    const other = makeReport([buildScenario("z", [pass])], { evaluation_hash: "e1" });
    const pooled = poolBaselines([{ label: "run #7", report: other }], head());
    expect(pooled.report).toBeNull();
    expect(pooled.excluded).toEqual([
      { label: "run #7", scenario: null, reason: "it ran none of this run's scenarios" },
    ]);
  });

  it("with matchRun false compares a named report whatever made it, still only where the measurement matches", () => {
    const runs = [
      {
        label: "BASE.json",
        report: makeReport([buildScenario("a", [pass]), buildScenario("b", [pass])], {
          model: "claude-haiku-4-5",
        }),
      },
    ];
    expect(poolBaselines(runs, head()).report).toBeNull();
    const pooled = poolBaselines(runs, head(), { matchRun: false });
    expect(pooled.report?.scenarios.map((s) => s.id)).toEqual(["a"]);
    expect(pooled.excluded).toEqual([
      { label: "BASE.json", scenario: "b", reason: "the scenario changed since this run" },
    ]);
  });
});
