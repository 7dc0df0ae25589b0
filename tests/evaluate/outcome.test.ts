import { describe, expect, it } from "vitest";
import type { JudgeVerdict } from "../../src/evaluate/judge.js";
import {
  computeComposite,
  computeInteractionScore,
  decideOutcome,
  type OutcomeInput,
} from "../../src/evaluate/outcome.js";
import type { GateResult, InteractionMetrics } from "../../src/results/types.js";

const pass = (gate_type: string, message = "ok"): GateResult => ({
  gate_type,
  passed: true,
  message,
  weight: 1,
});
const fail = (gate_type: string, message: string, description?: string): GateResult => ({
  gate_type,
  passed: false,
  message,
  weight: 1,
  ...(description ? { description } : {}),
});
const usage = { model: "claude-haiku-4-5", input_tokens: 10, output_tokens: 5, cost_usd: 0.00003 };
const judged = (score: number, threshold = 0.7): JudgeVerdict => ({
  ok: true,
  response: { scores: { a: score }, weighted_score: score, confidence: 1, issues: [], highlights: [] },
  passed: score >= threshold,
  threshold,
  usage,
  notes: [],
});
const judgeError: JudgeVerdict = {
  ok: false,
  error: "judge call to claude-haiku-4-5 failed: gave up after 6 attempts",
  usage: null,
};

describe("decideOutcome", () => {
  const base: OutcomeInput = {
    endReason: "natural_stop",
    gates: [pass("file_exists")],
    judge: null,
    judgeEnabled: false,
  };

  it.each<[string, Partial<OutcomeInput>, { outcome: string; reason: string | null }]>([
    ["all gates pass, no judge", {}, { outcome: "pass", reason: null }],
    ["no gates at all", { gates: [] }, { outcome: "pass", reason: null }],
    ["judge passes", { judgeEnabled: true, judge: judged(0.8) }, { outcome: "pass", reason: null }],
    [
      "a gate fails",
      { gates: [pass("file_exists"), fail("command_succeeds", "`t doctor` exited 1; stdout empty")] },
      {
        outcome: "fail",
        reason: "1 of 2 gates failed: command_succeeds (`t doctor` exited 1; stdout empty)",
      },
    ],
    [
      "judge below threshold",
      { judgeEnabled: true, judge: judged(0.55) },
      { outcome: "fail", reason: "judge score 0.55 is below the threshold 0.7" },
    ],
    [
      "gate and judge both fail",
      {
        gates: [fail("file_exists", "a.md: not found", "first note")],
        judgeEnabled: true,
        judge: judged(0.1),
      },
      {
        outcome: "fail",
        reason:
          '1 of 1 gates failed: file_exists "first note" (a.md: not found); judge score 0.1 is below the threshold 0.7',
      },
    ],
    [
      "judge call failed",
      { gates: [fail("file_exists", "x")], judgeEnabled: true, judge: judgeError },
      { outcome: "error", reason: "judge call to claude-haiku-4-5 failed: gave up after 6 attempts" },
    ],
    [
      "judge enabled without a verdict",
      { judgeEnabled: true, judge: null },
      { outcome: "error", reason: "the judge is enabled but gave no verdict" },
    ],
    [
      "a failed judge is ignored when the judge is disabled",
      { judgeEnabled: false, judge: judgeError },
      { outcome: "pass", reason: null },
    ],
    [
      "infrastructure error",
      { endReason: "infra_error", infraError: "setup `t init` exited 1" },
      { outcome: "error", reason: "infrastructure error: setup `t init` exited 1" },
    ],
    [
      "infra error reported without an end reason",
      { endReason: null, infraError: "sandbox failed" },
      { outcome: "error", reason: "infrastructure error: sandbox failed" },
    ],
    [
      "cancelled",
      { endReason: "cancelled" },
      { outcome: "error", reason: "cancelled before the trial finished" },
    ],
    [
      // The seed's rule: gates and judge decide; completion is a metric reported beside.
      "agent crash with passing gates passes, the crash reported beside",
      { endReason: "agent_crash", endError: "claude exited 1" },
      { outcome: "pass", reason: "passed, but the agent did not complete: it crashed: claude exited 1" },
    ],
    [
      "agent crash with passing gates and judge passes",
      { endReason: "agent_crash", endError: null, judgeEnabled: true, judge: judged(0.9) },
      { outcome: "pass", reason: "passed, but the agent did not complete: it crashed" },
    ],
    [
      "agent crash with a failing gate fails for the gate, naming the crash",
      {
        endReason: "agent_crash",
        endError: "claude exited 1",
        gates: [fail("file_exists", "a.md: not found")],
      },
      {
        outcome: "fail",
        reason: "1 of 1 gates failed: file_exists (a.md: not found); the agent crashed: claude exited 1",
      },
    ],
    ["turn limit with passing gates", { endReason: "turn_limit" }, { outcome: "pass", reason: null }],
    [
      "turn limit with a failing gate names the limit",
      { endReason: "turn_limit", gates: [fail("file_exists", "a.md: not found")] },
      {
        outcome: "fail",
        reason: "1 of 1 gates failed: file_exists (a.md: not found); the agent stopped at the turn limit",
      },
    ],
    [
      "timeout with a failing gate names the timeout",
      { endReason: "timeout", gates: [fail("exit_code", "last tool call exited 1 (expected 0)")] },
      {
        outcome: "fail",
        reason: "1 of 1 gates failed: exit_code (last tool call exited 1 (expected 0)); the trial timed out",
      },
    ],
  ])("%s", (_name, overrides, expected) => {
    expect(decideOutcome({ ...base, ...overrides })).toEqual(expected);
  });

  it("lists three failed gates and counts the rest", () => {
    const gates = [1, 2, 3, 4, 5].map((n) => fail("file_exists", `f${n}: not found`));
    expect(decideOutcome({ ...base, gates }).reason).toBe(
      "5 of 5 gates failed: file_exists (f1: not found); file_exists (f2: not found); file_exists (f3: not found); and 2 more",
    );
  });
});

const interaction = (overrides: Partial<InteractionMetrics> = {}): InteractionMetrics => ({
  total_commands: 4,
  unique_commands: 3,
  error_count: 1,
  error_rate: 0.25,
  retry_count: 1,
  retry_rate: 0.25,
  help_invocations: 0,
  first_try_success_rate: 0.5,
  iteration_ratio: 0.75,
  completed: true,
  ...overrides,
});
const none = interaction({
  total_commands: 0,
  unique_commands: 0,
  error_count: 0,
  error_rate: null,
  retry_count: 0,
  retry_rate: null,
  first_try_success_rate: null,
  iteration_ratio: null,
});

describe("computeComposite", () => {
  const weights = { gateWeight: 0.5, judgeWeight: 0.3, interactionWeight: 0.2 };

  it("is null without weights", () => {
    expect(
      computeComposite(undefined, { gateScore: 1, gateMax: 1, judgeScore: 1, interaction: interaction() }),
    ).toBeNull();
  });

  it("weights the three layers", () => {
    // interaction = mean(0.75, 0.75, 0.5, 0.75) = 0.6875
    expect(computeInteractionScore(interaction())).toBe(0.6875);
    // 0.5 * 3/4 + 0.3 * 0.8 + 0.2 * 0.6875 = 0.375 + 0.24 + 0.1375
    expect(
      computeComposite(weights, { gateScore: 3, gateMax: 4, judgeScore: 0.8, interaction: interaction() }),
    ).toBe(0.7525);
  });

  it("renormalises over the layers present", () => {
    // No judge: (0.5 * 0.75 + 0.2 * 0.6875) / 0.7
    expect(
      computeComposite(weights, { gateScore: 3, gateMax: 4, judgeScore: null, interaction: interaction() }),
    ).toBeCloseTo(0.5125 / 0.7, 9);
    // No judge and no target invocations: the gates alone.
    expect(computeComposite(weights, { gateScore: 1, gateMax: 4, judgeScore: null, interaction: none })).toBe(
      0.25,
    );
    // Nothing present at all.
    expect(
      computeComposite(weights, { gateScore: 0, gateMax: 0, judgeScore: null, interaction: none }),
    ).toBeNull();
  });

  it("uses only the available interaction rates", () => {
    // Transcript source: exit codes unknown, only iteration_ratio is known.
    const transcriptOnly = interaction({
      error_rate: null,
      retry_rate: null,
      first_try_success_rate: null,
      iteration_ratio: 0.6,
    });
    expect(computeInteractionScore(transcriptOnly)).toBe(0.6);
    expect(computeInteractionScore(none)).toBeNull();
  });

  it("skips layers with zero weight", () => {
    expect(
      computeComposite(
        { gateWeight: 1, judgeWeight: 0, interactionWeight: 0 },
        { gateScore: 1, gateMax: 2, judgeScore: 0.9, interaction: interaction() },
      ),
    ).toBe(0.5);
  });
});
