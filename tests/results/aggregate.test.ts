import { describe, expect, it } from "vitest";
import {
  buildScenarioReport,
  scenarioMetaOf,
  summarizeBehaviour,
  summarizeRun,
  summarizeScenario,
} from "../../src/results/aggregate.js";
import { makeExecution, makeInteraction, makeTrial } from "../support/report-factory.js";
import { makeScenario } from "../support/scenario-factory.js";

function execution(
  turns: number,
  calls: number,
  ok: number,
  input: number,
  output: number,
  ms: number,
  cost: number,
) {
  return makeExecution({
    turns,
    tool_calls: calls,
    tool_calls_ok: ok,
    tool_calls_error: calls - ok,
    tool_call_success_rate: calls ? ok / calls : null,
    input_tokens: input,
    output_tokens: output,
    duration_ms: ms,
    cost_usd: cost,
  });
}

describe("aggregation", () => {
  // Scenario A (category "files"): 3 trials pass, fail, error. Scenario B ("text"): 2 passes.
  const a = buildScenarioReport(scenarioMetaOf(makeScenario({ id: "a", category: "files" }), null), [
    makeTrial({
      trial: 2,
      outcome: "fail",
      score: 1,
      max_score: 3,
      execution: execution(4, 5, 3, 1000, 100, 2000, 0.01),
      interaction: makeInteraction({ total_commands: 4, error_rate: 0.5 }),
    }),
    makeTrial({
      trial: 1,
      outcome: "pass",
      score: 3,
      max_score: 3,
      execution: execution(2, 2, 2, 500, 50, 1000, 0.005),
      interaction: makeInteraction({ total_commands: 2, error_rate: 0 }),
    }),
    makeTrial({
      trial: 3,
      outcome: "error",
      end_reason: "infra_error",
      execution: execution(0, 0, 0, 10, 0, 50, 0.001),
    }),
  ]);
  const b = buildScenarioReport(scenarioMetaOf(makeScenario({ id: "b", category: "text" }), null), [
    makeTrial({
      trial: 1,
      outcome: "pass",
      score: 2,
      max_score: 2,
      execution: execution(3, 1, 1, 300, 30, 500, 0),
    }),
    makeTrial({
      trial: 2,
      outcome: "pass",
      score: 2,
      max_score: 2,
      end_reason: "turn_limit",
      execution: execution(3, 1, 0, 300, 30, 500, 0),
    }),
  ]);

  it("summarises a scenario over its trials, errors excluded from rates and means", () => {
    expect(a.trials.map((t) => t.trial)).toEqual([1, 2, 3]);
    const s = a.summary;
    expect([s.trials, s.passed, s.failed, s.errors, s.skipped]).toEqual([3, 1, 1, 1, 0]);
    expect(s.pass_rate).toBe(0.5);
    // Wilson 95% for 1/2: centre (1 + 1.92)/(2 + 3.84), half-width 1.96*sqrt(0.25*2 + 0.96)/(5.84).
    expect(s.pass_rate_ci_low).toBeCloseTo(0.0945, 3);
    expect(s.pass_rate_ci_high).toBeCloseTo(0.9055, 3);
    expect(s.flakiness).toBe("flaky");
    expect(s.metrics.total_commands?.mean).toBe(3);
    expect(s.metrics.error_rate?.mean).toBe(0.25);
    expect(s.score).toBe(4);
    expect(s.max_score).toBe(6);
    expect(s.cost_usd).toBeCloseTo(0.016, 10);
    expect(b.summary.flakiness).toBe("stable_pass");
  });

  it("builds bashkit-eval's EvalSummary and CategorySummary in one scope: spend over every trial that ran, the rest over evaluated ones", () => {
    const run = summarizeRun([a, b]);
    expect(run.outcome).toBe("fail");
    expect([run.scenarios, run.scenarios_passed, run.trials, run.passed, run.failed, run.errors]).toEqual([
      2, 1, 5, 3, 1, 1,
    ]);
    expect(run.pass_rate).toBe(0.75);
    expect(run.total_tasks).toBe(4);
    expect(run.total_passed).toBe(3);
    expect(run.total_score).toBe(8);
    expect(run.total_max_score).toBe(10);
    expect(run.overall_rate).toBe(0.8);
    expect([run.total_tool_calls, run.tool_calls_ok, run.tool_calls_error]).toEqual([9, 6, 3]);
    expect(run.tool_call_success_rate).toBeCloseTo(6 / 9, 10);
    expect(run.total_turns).toBe(12);
    expect(run.avg_turns_per_task).toBe(3);
    expect(run.avg_tool_calls_per_task).toBe(2.25);
    // Tokens, cost and duration count every trial, errors included: they were spent.
    expect(run.total_input_tokens).toBe(2110);
    expect(run.total_output_tokens).toBe(210);
    expect(run.total_duration_ms).toBe(4050);
    expect(run.total_cost_usd).toBeCloseTo(0.016, 10);
    // Per-task averages are over the evaluated trials: (2000 + 1000 + 500 + 500) / 4.
    expect(run.avg_duration_ms).toBe(1000);
    expect(run.end_reasons).toEqual({ natural_stop: 3, turn_limit: 1, infra_error: 1 });
    expect(run.by_category).toEqual({
      files: { tasks: 2, passed: 1, score: 4, max_score: 6, rate: 4 / 6, pass_rate: 0.5, errors: 1 },
      text: { tasks: 2, passed: 2, score: 4, max_score: 4, rate: 1, pass_rate: 1, errors: 0 },
    });
  });

  it("leaves skipped trials out of every total: they never started", () => {
    const skipped = makeTrial({
      trial: 1,
      outcome: "skipped",
      end_reason: "cancelled",
      execution: execution(1, 1, 1, 99, 9, 999, 0.5),
    });
    const run = summarizeRun([
      buildScenarioReport(scenarioMetaOf(makeScenario({ id: "s" }), null), [skipped]),
    ]);
    expect([run.total_input_tokens, run.total_duration_ms, run.total_cost_usd]).toEqual([0, 0, 0]);
    expect(run.end_reasons).toEqual({});
  });

  it("pools the per-subcommand breakdown over a scenario's evaluated trials", () => {
    const sub = (commands: number, errors: number, rate: number | null, retries = 0, help = 0) =>
      makeInteraction({
        total_commands: commands,
        error_count: errors,
        error_rate: rate,
        retry_count: retries,
        help_invocations: help,
      });
    const scenario = buildScenarioReport(scenarioMetaOf(makeScenario({ id: "subs" }), null), [
      makeTrial({
        trial: 1,
        outcome: "pass",
        by_subcommand: { list: sub(2, 0, 0), add: sub(3, 1, 1 / 3, 1) },
      }),
      makeTrial({
        trial: 2,
        outcome: "fail",
        by_subcommand: { add: sub(1, 1, 1), help: sub(1, 0, null, 0, 1) },
      }),
      // An error's commands are not pooled: like every rate, the breakdown covers evaluated trials.
      makeTrial({ trial: 3, outcome: "error", by_subcommand: { add: sub(9, 9, 1) } }),
    ]);
    expect(scenario.by_subcommand).toEqual({
      add: { trials: 2, commands: 4, errors: 2, error_rate: 0.5, retries: 1, help_invocations: 0 },
      help: { trials: 1, commands: 1, errors: 0, error_rate: null, retries: 0, help_invocations: 1 },
      list: { trials: 1, commands: 2, errors: 0, error_rate: 0, retries: 0, help_invocations: 0 },
    });
    expect(Object.keys(scenario.by_subcommand ?? {})).toEqual(["add", "help", "list"]);
  });

  it("reports an all-error run as error, not pass", () => {
    const broken = buildScenarioReport(scenarioMetaOf(makeScenario({ id: "c" }), null), [
      makeTrial({ trial: 1, outcome: "error" }),
    ]);
    const run = summarizeRun([broken]);
    expect(run.outcome).toBe("error");
    expect(run.pass_rate).toBeNull();
    expect(run.overall_rate).toBeNull();
  });

  it("reports a run that evaluated nothing as error, never pass (every trial skipped, or none at all)", () => {
    const skipped = buildScenarioReport(scenarioMetaOf(makeScenario({ id: "s" }), null), [
      makeTrial({ trial: 1, outcome: "skipped", end_reason: "cancelled" }),
    ]);
    expect(summarizeRun([skipped]).outcome).toBe("error");
    expect(summarizeRun([]).outcome).toBe("error");
  });

  it("reports pass@k and pass^k at a fixed k with the unbiased estimators, n/a below k", () => {
    const trials = (outcomes: Array<"pass" | "fail">) =>
      outcomes.map((outcome, i) => makeTrial({ trial: i + 1, outcome }));
    // 3 of 5 passed, k = 3: pass@3 = 1 − C(2,3)/C(5,3) = 1; pass^3 = C(3,3)/C(5,3) = 0.1.
    const five = summarizeScenario(trials(["pass", "fail", "pass", "fail", "pass"]));
    expect(five).toMatchObject({ pass_k: 3, pass_at_k: 1 });
    expect(five.pass_hat_k).toBeCloseTo(0.1, 12);
    // 1 of 4, k = 3: pass@3 = 1 − C(3,3)/C(4,3) = 0.75; pass^3 = 0.
    const four = summarizeScenario(trials(["fail", "pass", "fail", "fail"]));
    expect(four.pass_at_k).toBeCloseTo(0.75, 12);
    expect(four.pass_hat_k).toBe(0);
    // 2 trials < k: no unbiased estimate.
    expect(summarizeScenario(trials(["pass", "pass"]))).toMatchObject({ pass_at_k: null, pass_hat_k: null });
    // k is a setting: 2 of 4 with k = 2: pass@2 = 1 − C(2,2)/C(4,2) = 5/6; pass^2 = 1/6.
    const k2 = summarizeScenario(trials(["pass", "fail", "pass", "fail"]), 2);
    expect(k2.pass_k).toBe(2);
    expect(k2.pass_at_k).toBeCloseTo(5 / 6, 12);
    expect(k2.pass_hat_k).toBeCloseTo(1 / 6, 12);
  });
});

describe("summarizeBehaviour: the trials' calls pooled for the base-vs-head diff", () => {
  const failure = (command: string) => ({ command, exit_code: 1, stderr: `${command}: failed` });
  const trial = (n: number, outcome: "pass" | "fail" | "error", calls: number, recorded = true) =>
    makeTrial({
      trial: n,
      outcome,
      interaction: makeInteraction({ total_commands: calls, help_invocations: 1 }),
      by_subcommand: { cat: makeInteraction({ total_commands: calls }) },
      ...(recorded
        ? {
            behaviour: {
              options: { "--icsv": calls },
              shapes: { "cat --icsv": calls },
              first_failure: n === 1 ? null : failure(`mlr cat ${n}`),
            },
          }
        : {}),
    });

  it("adds up the evaluated trials that record it; the first failure is a failing trial's", () => {
    const summary = summarizeBehaviour([
      trial(1, "pass", 2),
      trial(2, "pass", 3),
      trial(3, "fail", 4),
      trial(4, "error", 9),
      trial(5, "pass", 7, false),
    ]);
    expect(summary).toEqual({
      trials: 3,
      calls: 9,
      help_calls: 3,
      subcommands: { cat: 9 },
      options: { "--icsv": 9 },
      shapes: { "cat --icsv": 9 },
      first_failure: { ...failure("mlr cat 3"), trial: 3 },
    });
  });

  it("is absent where no trial records it (a report of an earlier version)", () => {
    expect(summarizeBehaviour([trial(1, "pass", 2, false)])).toBeNull();
  });
});
