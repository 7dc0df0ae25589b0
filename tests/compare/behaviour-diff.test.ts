import { describe, expect, it } from "vitest";
import { diffBehaviour } from "../../src/compare/behaviour-diff.js";
import { decideRun } from "../../src/compare/decide-run.js";
import type { BehaviourSummary } from "../../src/results/types.js";
import { MLR_STDERR, mlrRegression } from "../render/decision-fixtures.js";

const policy = { failOn: null, gateMetrics: [] as string[] };

function summary(overrides: Partial<BehaviourSummary>): BehaviourSummary {
  return {
    trials: 2,
    calls: 4,
    help_calls: 0,
    subcommands: {},
    options: {},
    shapes: {},
    first_failure: null,
    ...overrides,
  };
}

describe("diffBehaviour: what the agent did differently, base vs head", () => {
  it("gives each subcommand's and option's share of calls, the largest change first", () => {
    const base = summary({
      calls: 10,
      help_calls: 1,
      subcommands: { cat: 8, sort: 2 },
      options: { "--icsv": 10, "--ojson": 10 },
      shapes: { "cat --icsv --ojson": 8, "sort --icsv --ojson": 2 },
    });
    const head = summary({
      calls: 4,
      help_calls: 4,
      subcommands: { cat: 4 },
      options: { "--ojson": 4, "-n": 1 },
      shapes: { "cat --ojson": 3, "cat --ojson -n": 1 },
      first_failure: { trial: 1, command: "mlr --ojson cat x.csv", exit_code: 1, stderr: "mlr: bad" },
    });
    const diff = diffBehaviour("csv", base, head);
    expect(diff?.shares).toEqual([
      { kind: "option", name: "--icsv", base: 1, head: 0 },
      { kind: "option", name: "-n", base: 0, head: 0.25 },
      // Equal moves: by name.
      { kind: "subcommand", name: "cat", base: 0.8, head: 1 },
      { kind: "subcommand", name: "sort", base: 0.2, head: 0 },
    ]);
    expect(diff?.new_commands).toEqual([
      { shape: "cat --ojson", calls: 3 },
      { shape: "cat --ojson -n", calls: 1 },
    ]);
    expect(diff?.help_per_trial).toEqual({ base: 0.5, head: 2 });
    expect(diff?.first_failure?.command).toBe("mlr --ojson cat x.csv");
    expect(diff?.base_available).toBe(true);
  });

  it("shows the head alone when the base runs do not record behaviour, and nothing without the head's", () => {
    const head = summary({ subcommands: { cat: 4 }, options: { "--ojson": 4 } });
    expect(diffBehaviour("csv", undefined, head)).toMatchObject({
      base_available: false,
      shares: [],
      new_commands: [],
      help_per_trial: { base: null, head: 0 },
    });
    expect(diffBehaviour("csv", head, undefined)).toBeNull();
  });
});

describe("decideRun: the regressed scenarios carry their behaviour diff", () => {
  it("`--icsv` in 100% of the base runs' calls, 0% of the head's, and the head's failing call", () => {
    const { baseline, head } = mlrRegression();
    const { decision } = decideRun({ report: head, baseline, policy });
    expect(decision.regressed).toEqual(["s0"]);
    expect(decision.behaviour).toEqual([
      {
        key: "s0",
        base_available: true,
        base_calls: 96,
        head_calls: 12,
        base_trials: 24,
        head_trials: 3,
        shares: [{ kind: "option", name: "--icsv", base: 1, head: 0 }],
        new_commands: [{ shape: "cat --ojson", calls: 12 }],
        help_per_trial: { base: 0, head: 0 },
        first_failure: {
          command: "mlr --ojson cat example-1.csv",
          exit_code: 1,
          stderr: MLR_STDERR,
          trial: 1,
        },
      },
    ]);
  });

  it("says the base runs' behaviour is not available where their reports predate it", () => {
    const { baseline, head } = mlrRegression({ baseRecordsCalls: false });
    const { decision } = decideRun({ report: head, baseline, policy });
    expect(decision.behaviour?.[0]).toMatchObject({ key: "s0", base_available: false, shares: [] });
  });

  it("has none when nothing regressed", () => {
    const { baseline } = mlrRegression();
    const { decision } = decideRun({ report: baseline.report, baseline, policy });
    expect(decision.behaviour).toBeUndefined();
  });
});
