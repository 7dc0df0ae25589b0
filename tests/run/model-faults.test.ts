/**
 * Issue 15, item 6: an API that hangs, resets, rate-limits and overloads, in one run at -j 4.
 * The faulty scenarios must end as `error` (infrastructure), never `fail`; the healthy one must
 * still pass although 429/529s cut the shared limiter to a single slot that hung calls compete
 * for; every trial is accounted for once, and the run ends in bounded time.
 */
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAnthropicAgent } from "../../src/agents/anthropic.js";
import { createAnthropicClient } from "../../src/model/anthropic-client.js";
import { type AimdLimiter, createAimdLimiter } from "../../src/model/call-limiter.js";
import type { Report, TrialReport } from "../../src/results/types.js";
import { defaultRunOptions } from "../../src/run/options.js";
import { runSuite } from "../../src/run/suite.js";
import { readEvents } from "../../src/transcript/reader.js";
import {
  bashCall,
  finalText,
  firstUserText,
  type ModelServer,
  type ScriptedReply,
  scriptByTurn,
  startModelServer,
  turnOf,
} from "../support/model-server.js";
import { makeScenario } from "../support/scenario-factory.js";
import { makeTempDir } from "../support/temp-dirs.js";

const ATTEMPT_TIMEOUT_MS = 300;
const TRIAL_TIMEOUT_MS = 3000;

const healthy = scriptByTurn([bashCall("echo hi > x.txt"), bashCall("cat x.txt"), finalText("done")]);

/** What the server does to each scenario's calls (keyed by the task, which is the scenario id). */
const BEHAVIOUR: Record<string, (turn: number) => ScriptedReply | null> = {
  healthy: () => null,
  // The first turn is answered, so the agent has done tool work before its calls start to hang.
  hang: (turn) => (turn === 0 ? null : { kind: "hang" }),
  stall: () => ({ kind: "stall" }),
  reset: () => ({ kind: "reset" }),
  "rate-limited": () => ({ kind: "error", status: 429, retryAfterMs: 1 }),
  overloaded: () => ({ kind: "error", status: 529, retryAfterMs: 1 }),
};
const FAULTY = Object.keys(BEHAVIOUR).filter((id) => id !== "healthy");

describe("model faults at -j 4: hangs, resets, 429s and 529s in one run", () => {
  let server: ModelServer;
  let limiter: AimdLimiter;
  let lowestLimit = Number.POSITIVE_INFINITY;
  let report: Report;
  let outDir: string;
  let elapsedMs: number;

  beforeAll(async () => {
    server = await startModelServer((request) => {
      const fault = BEHAVIOUR[firstUserText(request)]?.(turnOf(request));
      return fault ?? healthy(request);
    });
    // Every 429/529 halves the limit (no cooldown), so the faults soon leave a single slot.
    limiter = createAimdLimiter({ initial: 4, max: 4, decreaseCooldownMs: 0 });
    const client = createAnthropicClient({
      apiKey: "sk-ant-test-model-faults",
      baseURL: server.url,
      requestTimeoutMs: ATTEMPT_TIMEOUT_MS,
      maxAttempts: 4,
      limiter: {
        ...limiter,
        onRateLimited: (retryAfterMs) => {
          limiter.onRateLimited(retryAfterMs);
          lowestLimit = Math.min(lowestLimit, limiter.limit());
        },
      },
    });
    const scenario = (id: string, trials: number) =>
      makeScenario({
        id,
        task: id,
        trials,
        evaluation: { gates: [{ type: "file_contains", path: "x.txt", substring: "hi", weight: 1 }] },
      });
    const scenarios = [scenario("healthy", 2), ...FAULTY.map((id) => scenario(id, 1))];
    outDir = makeTempDir("ltt-model-faults-");
    const started = performance.now();
    ({ report } = await runSuite(
      scenarios,
      defaultRunOptions({
        agent: "anthropic",
        model: "claude-test",
        outDir,
        concurrency: 4,
        trialTimeoutMs: TRIAL_TIMEOUT_MS,
      }),
      { agent: createAnthropicAgent(client), env: { PATH: process.env.PATH } },
    ));
    elapsedMs = performance.now() - started;
  });

  afterAll(async () => server?.close());

  const trialsOf = (id: string): TrialReport[] => report.scenarios.find((s) => s.id === id)?.trials ?? [];

  it("accounts for every trial exactly once: none lost, duplicated or skipped", async () => {
    const keys = report.scenarios.flatMap((s) => s.trials.map((t) => `${s.id}#${t.trial}`));
    expect(keys.sort()).toEqual(["healthy#1", "healthy#2", ...FAULTY.map((id) => `${id}#1`)].sort());
    expect(report.summary.passed + report.summary.errors).toBe(keys.length);
    // Every trial ran to its end: the run is complete, even if the breaker stopped new starts.
    expect(report.run.incomplete).toBe(false);
    for (const trial of report.scenarios.flatMap((s) => s.trials)) {
      const events = await readEvents(path.join(outDir, trial.events_path ?? ""));
      expect(events.filter((e) => e.type === "trial_end")).toHaveLength(1);
    }
  });

  it("passes the healthy scenario although the faults cut the shared limiter to one slot", () => {
    expect(trialsOf("healthy").map((t) => t.outcome)).toEqual(["pass", "pass"]);
    expect(lowestLimit).toBe(1);
  });

  it("ends every faulty scenario as an error, not a fail", () => {
    for (const id of FAULTY) {
      const [trial] = trialsOf(id);
      expect({ id, outcome: trial?.outcome, end: trial?.end_reason }).toEqual({
        id,
        outcome: "error",
        end: "infra_error",
      });
      expect(trial?.reason).toMatch(/^infrastructure error: /);
    }
    expect(report.summary.failed).toBe(0);
  });

  it("says why: the trial's time ran out waiting for the API, or the attempts were used up", () => {
    // Four attempts of 300 ms with backoffs of at least 375, 750 and 1500 ms outlast the 3 s trial.
    expect(trialsOf("hang")[0]?.reason).toMatch(
      /the trial timed out waiting for the model API: turn 2's call had no answer after [\d.]+ s; \d failed attempts? before, the last: the request timed out after 300 ms/,
    );
    expect(trialsOf("stall")[0]?.reason).toMatch(/timed out/);
    expect(trialsOf("reset")[0]?.reason).toMatch(/could not reach/);
    expect(trialsOf("rate-limited")[0]?.reason).toMatch(/gave up after 4 attempts: rate limited \(429\)/);
    expect(trialsOf("overloaded")[0]?.reason).toMatch(
      /gave up after 4 attempts: the API is overloaded \(529\)/,
    );
  });

  it("finishes in bounded time and leaves no slot held or call queued", () => {
    // Two waves of trials that each end by the 3 s trial timeout at the latest.
    expect(elapsedMs).toBeLessThan(4 * TRIAL_TIMEOUT_MS);
    expect(limiter.inFlight()).toBe(0);
    expect(limiter.queued()).toBe(0);
  });
});
