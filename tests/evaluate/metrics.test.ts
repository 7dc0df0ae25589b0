import { describe, expect, it } from "vitest";
import type { Invocation } from "../../src/evaluate/invocations.js";
import { extractInvocations } from "../../src/evaluate/invocations.js";
import {
  computeBySubcommand,
  computeExecution,
  computeInteraction,
  isCompleted,
  isHelpInvocation,
} from "../../src/evaluate/metrics.js";
import { DEFAULT_PRICE_TABLE } from "../../src/model/pricing.js";
import { describeRecordedFigures } from "../../src/render/eval-summary.js";
import type { InteractionMetrics } from "../../src/results/types.js";
import type { EndReason } from "../../src/transcript/events.js";
import { createEventLog } from "../support/event-builder.js";

function metrics(values: Omit<InteractionMetrics, "completed">, completed = true): InteractionMetrics {
  return { ...values, completed };
}

describe("computeInteraction from shim invocations (help, failures, retries)", () => {
  // argv, exit code: hand-computed below.
  const log = createEventLog();
  log.shim(["my-tool", "--help"], 0); //            1 help, subcommand none
  log.shim(["my-tool", "create", "CAP theorem"], 1); // 2 create fails (first try of create)
  log.shim(["my-tool", "create", "CAP theorem"], 0); // 3 retry of create
  log.shim(["my-tool", "list"], 0); //              4 first try of list ok
  log.shim(["my-tool", "link", "a", "b"], 2); //    5 first try of link fails
  log.shim(["my-tool", "help", "link"], 0); //      6 help (subcommand `help`)
  log.shim(["my-tool", "link", "a", "b"], 0); //    7 retry of link
  log.shim(["my-tool", "list"], 0); //              8 repeat
  const target = { binary: "my-tool", env: {} };
  const { source, invocations } = extractInvocations(log.events, target);

  it("uses the shim and quotes argv", () => {
    expect(source).toBe("shim");
    expect(invocations.map((i) => i.command)).toEqual([
      "my-tool --help",
      "my-tool create 'CAP theorem'",
      "my-tool create 'CAP theorem'",
      "my-tool list",
      "my-tool link a b",
      "my-tool help link",
      "my-tool link a b",
      "my-tool list",
    ]);
    expect(invocations.map((i) => i.subcommand)).toEqual([
      null,
      "create",
      "create",
      "list",
      "link",
      "help",
      "link",
      "list",
    ]);
  });

  it("gives the exact values of every field", () => {
    expect(computeInteraction(invocations, true)).toEqual(
      metrics({
        total_commands: 8,
        unique_commands: 5,
        error_count: 2,
        error_rate: 0.25,
        retry_count: 2,
        retry_rate: 0.25,
        help_invocations: 2,
        // create (failed first), list (ok), link (failed first): help-only groups are left out.
        first_try_success_rate: 1 / 3,
        iteration_ratio: 0.625,
      }),
    );
  });

  it("breaks the same figures down per subcommand, in order of first use", () => {
    const by = computeBySubcommand(invocations, false);
    expect(Object.keys(by)).toEqual(["(none)", "create", "list", "link", "help"]);
    expect(by["(none)"]).toEqual(
      metrics(
        {
          total_commands: 1,
          unique_commands: 1,
          error_count: 0,
          error_rate: 0,
          retry_count: 0,
          retry_rate: 0,
          help_invocations: 1,
          first_try_success_rate: null,
          iteration_ratio: 1,
        },
        false,
      ),
    );
    expect(by.create).toEqual(
      metrics(
        {
          total_commands: 2,
          unique_commands: 1,
          error_count: 1,
          error_rate: 0.5,
          retry_count: 1,
          retry_rate: 0.5,
          help_invocations: 0,
          first_try_success_rate: 0,
          iteration_ratio: 0.5,
        },
        false,
      ),
    );
    expect(by.list).toEqual(
      metrics(
        {
          total_commands: 2,
          unique_commands: 1,
          error_count: 0,
          error_rate: 0,
          retry_count: 0,
          retry_rate: 0,
          help_invocations: 0,
          first_try_success_rate: 1,
          iteration_ratio: 0.5,
        },
        false,
      ),
    );
    expect(by.link).toEqual(
      metrics(
        {
          total_commands: 2,
          unique_commands: 1,
          error_count: 1,
          error_rate: 0.5,
          retry_count: 1,
          retry_rate: 0.5,
          help_invocations: 0,
          first_try_success_rate: 0,
          iteration_ratio: 0.5,
        },
        false,
      ),
    );
    expect(by.help?.help_invocations).toBe(1);
    expect(by.help?.first_try_success_rate).toBeNull();
  });
});

describe("computeInteraction on chained calls", () => {
  const log = createEventLog();
  log.call("my-tool init && my-tool create x", 0);
  log.call("cd notes; my-tool show x | grep y", 1); // grep fails the pipeline
  log.call("ls -la", 0); // not the target
  log.call("my-tool show x", 0);

  it("counts each command from tool events; only a call's last command gets the call's exit code", () => {
    const { source, invocations } = extractInvocations(log.events, {
      commandPattern: "my-tool\\s+(\\S+)",
      env: {},
    });
    expect(source).toBe("tool_events");
    expect(invocations.map((i) => [i.subcommand, i.exit_code])).toEqual([
      ["init", null], // before `&&`: its own code is unknown
      ["create", 0],
      ["show", null], // piped into grep, whose status the call reports
      ["show", 0],
    ]);
    expect(computeInteraction(invocations, true)).toEqual(
      metrics({
        total_commands: 4,
        unique_commands: 3,
        error_count: 0,
        error_rate: 0,
        retry_count: 0,
        retry_rate: 0,
        help_invocations: 0,
        // init's and show's first tries have unknown codes: only create's counts.
        first_try_success_rate: 1,
        iteration_ratio: 0.75,
      }),
    );
  });

  it("counts each real invocation with its own exit code from the shim", () => {
    const shimLog = createEventLog();
    shimLog.shim(["my-tool", "init"], 0);
    shimLog.shim(["my-tool", "create", "x"], 0);
    shimLog.shim(["my-tool", "show", "x"], 0); // my-tool succeeded; grep failed the pipeline
    shimLog.shim(["my-tool", "show", "x"], 0);
    const { invocations } = extractInvocations(shimLog.events, { binary: "my-tool", env: {} });
    expect(computeInteraction(invocations, true)).toEqual(
      metrics({
        total_commands: 4,
        unique_commands: 3,
        error_count: 0,
        error_rate: 0,
        retry_count: 0,
        retry_rate: 0,
        help_invocations: 0,
        first_try_success_rate: 1,
        iteration_ratio: 0.75,
      }),
    );
  });
});

describe("computeInteraction edge cases", () => {
  it("has null rates and zero counts without commands", () => {
    expect(computeInteraction([], false)).toEqual(
      metrics(
        {
          total_commands: 0,
          unique_commands: 0,
          error_count: 0,
          error_rate: null,
          retry_count: 0,
          retry_rate: null,
          help_invocations: 0,
          first_try_success_rate: null,
          iteration_ratio: null,
        },
        false,
      ),
    );
    expect(computeBySubcommand([], true)).toEqual({});
  });

  it("treats transcript invocations (unknown exit codes) as neither success nor failure", () => {
    const log = createEventLog();
    log.push({
      type: "agent_output",
      text: "I'll run my-tool create note\n$ my-tool create note\nThen my-tool --help",
    });
    const { source, invocations } = extractInvocations(log.events, {
      commandPattern: "my-tool\\s+(\\S+)",
      env: {},
    });
    expect(source).toBe("transcript_regex");
    expect(computeInteraction(invocations, true)).toEqual(
      metrics({
        total_commands: 3,
        unique_commands: 2,
        error_count: 0,
        error_rate: null,
        retry_count: 0,
        retry_rate: null,
        help_invocations: 1,
        first_try_success_rate: null,
        iteration_ratio: 2 / 3,
      }),
    );
  });

  it("divides error_rate by the known exit codes when a call has no result", () => {
    const invocations: Invocation[] = [
      {
        command: "my-tool create x",
        argv: ["my-tool", "create", "x"],
        subcommand: "create",
        options: [],
        exit_code: 1,
        duration_ms: 4,
      },
      {
        command: "my-tool create x",
        argv: ["my-tool", "create", "x"],
        subcommand: "create",
        options: [],
        exit_code: null,
        duration_ms: null,
      },
    ];
    expect(computeInteraction(invocations, false)).toEqual(
      metrics(
        {
          total_commands: 2,
          unique_commands: 1,
          error_count: 1,
          error_rate: 1,
          retry_count: 1,
          retry_rate: 0.5,
          help_invocations: 0,
          first_try_success_rate: 0,
          iteration_ratio: 0.5,
        },
        false,
      ),
    );
  });

  it("recognises help by --help, -h or the help subcommand, not by other flags", () => {
    const make = (argv: string[], subcommand: string | null): Invocation => ({
      command: argv.join(" "),
      argv,
      subcommand,
      options: [],
      exit_code: 0,
      duration_ms: 1,
    });
    expect(isHelpInvocation(make(["t", "create", "-h"], "create"))).toBe(true);
    expect(isHelpInvocation(make(["t", "--help"], null))).toBe(true);
    expect(isHelpInvocation(make(["t", "help"], "help"))).toBe(true);
    expect(isHelpInvocation(make(["t", "grep", "-hx"], "grep"))).toBe(false);
    expect(isHelpInvocation(make(["-h"], null))).toBe(false); // argv[0] is the binary
  });

  it("excludes help invocations from first tries", () => {
    const invocations: Invocation[] = [
      {
        command: "t create --help",
        argv: ["t", "create", "--help"],
        subcommand: "create",
        options: [],
        exit_code: 0,
        duration_ms: 1,
      },
      {
        command: "t create",
        argv: ["t", "create"],
        subcommand: "create",
        options: [],
        exit_code: 2,
        duration_ms: 1,
      },
    ];
    expect(computeInteraction(invocations, true).first_try_success_rate).toBe(0);
  });
});

describe("computeInteraction: a target killed by SIGPIPE", () => {
  it("is not an error: exit 141 (128 + SIGPIPE) means its reader closed the pipe", () => {
    const log = createEventLog();
    log.shim(["my-tool", "help"], 141); // `my-tool help | head -3`
    log.shim(["my-tool", "help"], 0);
    log.shim(["my-tool", "list"], 141);
    const { invocations } = extractInvocations(log.events, { binary: "my-tool", env: {} });
    expect(invocations.map((i) => i.exit_code)).toEqual([141, 0, 141]); // the recorded code stays visible
    expect(computeInteraction(invocations, true)).toMatchObject({
      error_count: 0,
      error_rate: 0,
      retry_count: 0,
      first_try_success_rate: 1,
    });
  });
});

describe("isCompleted", () => {
  it.each<[EndReason | null, boolean]>([
    ["natural_stop", true],
    ["turn_limit", false],
    ["timeout", false],
    ["agent_crash", false],
    ["infra_error", false],
    ["cancelled", false],
    [null, false],
  ])("%s -> %s", (reason, expected) => {
    expect(isCompleted(reason)).toBe(expected);
  });
});

describe("computeExecution", () => {
  it("sums turns, tool calls, tokens, waits and prices the tokens", () => {
    const log = createEventLog();
    log.push({ type: "model_request", turn: 1, model: "claude-haiku-4-5", message_count: 1 });
    log.push({
      type: "model_error",
      turn: 1,
      attempt: 1,
      status: 429,
      message: "rate limited",
      will_retry: true,
      retry_after_ms: 1500,
    });
    log.push({
      type: "model_error",
      turn: 1,
      attempt: 2,
      status: 529,
      message: "overloaded",
      will_retry: true,
      retry_after_ms: null,
    });
    log.response(1, {
      input_tokens: 1000,
      output_tokens: 200,
      cache_read_tokens: 500,
      cache_write_tokens: 100,
    });
    log.call("ls", 0);
    log.call("false", 1);
    log.call("true", 0);
    log.push({
      type: "model_error",
      turn: 2,
      attempt: 1,
      status: 500,
      message: "gone",
      will_retry: false,
      retry_after_ms: 9999,
    });
    log.response(2, { input_tokens: 2000, output_tokens: 300 });
    log.end("natural_stop", 4321, 2);
    expect(
      computeExecution(log.events, { prices: DEFAULT_PRICE_TABLE, model: "claude-haiku-4-5-20251001" }),
    ).toEqual({
      turns: 2,
      tool_calls: 3,
      tool_calls_ok: 2,
      tool_calls_error: 1,
      tool_call_success_rate: 2 / 3,
      natural_stop: true,
      input_tokens: 3000,
      output_tokens: 500,
      cache_read_tokens: 500,
      cache_write_tokens: 100,
      duration_ms: 4321,
      rate_limit_wait_ms: 1500,
      // (3000*1 + 500*5 + 500*0.1 + 100*1.25) / 1e6
      cost_usd: expect.closeTo(0.005675, 12),
    });
  });

  it("has a null cost for an unknown model and no tool-call rate without calls", () => {
    const log = createEventLog();
    log.response(1, { input_tokens: 10, output_tokens: 10 });
    log.end("turn_limit", 50, 1);
    const execution = computeExecution(log.events, {
      prices: DEFAULT_PRICE_TABLE,
      model: "some-local-model",
    });
    expect(execution.cost_usd).toBeNull();
    expect(execution.tool_call_success_rate).toBeNull();
    expect(execution.natural_stop).toBe(false);
  });

  it("uses the turns and cost an external agent reported", () => {
    const log = createEventLog();
    log.push({ type: "agent_output", text: "done" });
    log.end("natural_stop", 900, 7);
    const reported = createEventLog();
    reported.response(1, { input_tokens: 5, output_tokens: 5 }, { cost_usd: 0.25 });
    reported.response(2, { input_tokens: 5, output_tokens: 5 }, { cost_usd: 0.17 });
    reported.end("natural_stop", 900, 2);
    expect(computeExecution(log.events, { prices: DEFAULT_PRICE_TABLE, model: null }).turns).toBe(7);
    const execution = computeExecution(reported.events, {
      prices: DEFAULT_PRICE_TABLE,
      model: "unknown-model",
    });
    expect(execution.turns).toBe(2);
    expect(execution.cost_usd).toBeCloseTo(0.42, 12);
  });

  it("falls back to the last event time without a trial_end", () => {
    const log = createEventLog();
    log.call("ls", 0);
    expect(computeExecution(log.events, { prices: {}, model: null }).duration_ms).toBe(20);
  });

  it("handles 100,000 events in one pass with exact totals", () => {
    const log = createEventLog();
    for (let i = 0; i < 25_000; i += 1) {
      log.response(i, { input_tokens: 2, output_tokens: 1 });
      log.call(`my-tool run ${i % 100}`, i % 10 === 0 ? 1 : 0);
      log.shim(["my-tool", "run", String(i % 100)], i % 10 === 0 ? 1 : 0);
    }
    expect(log.events.length).toBe(100_000);
    const { invocations } = extractInvocations(log.events, { binary: "my-tool", env: {} });
    const interaction = computeInteraction(invocations, true);
    expect(interaction.total_commands).toBe(25_000);
    expect(interaction.unique_commands).toBe(100);
    expect(interaction.error_count).toBe(2_500);
    expect(interaction.retry_count).toBe(2_500);
    const execution = computeExecution(log.events, {
      prices: DEFAULT_PRICE_TABLE,
      model: "claude-haiku-4-5",
    });
    expect(execution.tool_calls).toBe(25_000);
    expect(execution.input_tokens).toBe(50_000);
  });
});

describe("a replayed trial's cost", () => {
  const replayed = (cost_usd: number | null, model = "claude-haiku-4-5-20251001") => {
    const log = createEventLog();
    log.push({
      type: "recorded_execution",
      model,
      turns: 3,
      input_tokens: 2762,
      output_tokens: 316,
      cache_read_tokens: 0,
      cache_write_tokens: 0,
      tool_calls: 2,
      end_reason: "natural_stop",
      cost_usd,
    });
    log.end("natural_stop", 500, 0);
    return computeExecution(log.events, { prices: DEFAULT_PRICE_TABLE, model: null });
  };

  it("is the recorded one when the recording kept it, and then is not marked as priced", () => {
    const execution = replayed(0.0123);
    expect(execution).toMatchObject({ recorded: true, cost_usd: 0.0123 });
    expect(execution.cost_priced).toBeUndefined();
  });

  it("priced now from the recorded tokens is marked so, never passed off as recorded", () => {
    const execution = replayed(null);
    // (2762*1 + 316*5) / 1e6 at Haiku 4.5's prices.
    expect(execution).toMatchObject({
      recorded: true,
      cost_priced: true,
      cost_usd: expect.closeTo(0.004342, 9),
    });
    expect(replayed(null, "some-local-model")).toMatchObject({ cost_usd: null });
    expect(replayed(null, "some-local-model").cost_priced).toBeUndefined();
  });

  it("is said apart from the recorded figures in the notes", () => {
    expect(describeRecordedFigures({ trials_recorded: 58 })).toBe(
      "turns, tokens, cost and stops of 58 replayed trials are recorded values, carried from the recording, not measured by this run",
    );
    expect(describeRecordedFigures({ trials_recorded: 58, trials_cost_priced: 58 })).toBe(
      "turns, tokens and stops of 58 replayed trials are recorded values, carried from the recording, not measured by this run; their cost was not recorded but priced now from the recorded tokens",
    );
    expect(describeRecordedFigures({ trials_recorded: 3, trials_cost_priced: 1 })).toContain(
      "the cost of 1 of them was not recorded but priced now",
    );
  });
});
