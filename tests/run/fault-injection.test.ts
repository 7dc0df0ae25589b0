import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAnthropicAgent } from "../../src/agents/anthropic.js";
import { createAnthropicClient } from "../../src/model/anthropic-client.js";
import { createAimdLimiter } from "../../src/model/call-limiter.js";
import type { Report } from "../../src/results/types.js";
import { defaultRunOptions } from "../../src/run/options.js";
import { runSuite } from "../../src/run/suite.js";
import { readEvents } from "../../src/transcript/reader.js";
import {
  bashCall,
  finalText,
  type ModelServer,
  type ScriptedReply,
  scriptByTurn,
  startModelServer,
} from "../support/model-server.js";
import { makeScenario } from "../support/scenario-factory.js";
import { makeTempDir } from "../support/temp-dirs.js";

const FAULTS: ScriptedReply[] = [
  { kind: "error", status: 429, retryAfterMs: 1 },
  { kind: "error", status: 529, retryAfterMs: 1 },
  { kind: "error", status: 500, retryAfterMs: 1 },
  { kind: "hang" },
];

describe("fault injection: 20% of model calls fail or hang", () => {
  let server: ModelServer;
  let report: Report;
  let outDir: string;
  let faults = 0;

  beforeAll(async () => {
    const script = scriptByTurn([bashCall("echo hi > x.txt"), bashCall("cat x.txt"), finalText("done")]);
    let count = 0;
    server = await startModelServer((request) => {
      count += 1;
      // Every fifth call is a fault (429, 529, 500 or a hang past the request timeout), in rotation.
      if (count % 5 === 0) {
        faults += 1;
        return FAULTS[faults % FAULTS.length] as ScriptedReply;
      }
      return script(request);
    });
    const client = createAnthropicClient({
      apiKey: "sk-ant-test-fault-injection",
      baseURL: server.url,
      // Long enough that only the scripted hangs time out: the run's first eight calls, made
      // together while its trials start, can take a few hundred ms on a loaded machine.
      requestTimeoutMs: 1000,
      maxAttempts: 6,
      limiter: createAimdLimiter({ initial: 8, max: 8 }),
    });
    const scenarios = Array.from({ length: 12 }, (_, i) =>
      makeScenario({
        id: `s${i}`,
        task: `task ${i}`,
        evaluation: { gates: [{ type: "file_contains", path: "x.txt", substring: "hi", weight: 1 }] },
      }),
    );
    outDir = makeTempDir("ltt-faults-");
    ({ report } = await runSuite(
      scenarios,
      defaultRunOptions({ agent: "anthropic", model: "claude-test", outDir, trials: 2, concurrency: 8 }),
      { agent: createAnthropicAgent(client), env: { PATH: process.env.PATH } },
    ));
  });

  afterAll(async () => server?.close());

  it("accounts for every trial exactly once, none lost or duplicated", () => {
    const keys = report.scenarios.flatMap((s) => s.trials.map((t) => `${s.id}#${t.trial}`));
    expect(keys).toHaveLength(24);
    expect(new Set(keys).size).toBe(24);
    for (const trial of report.scenarios.flatMap((s) => s.trials)) {
      expect(["pass", "fail", "error"]).toContain(trial.outcome);
    }
    expect(report.summary.passed + report.summary.failed + report.summary.errors).toBe(24);
    expect(faults).toBeGreaterThan(5);
  });

  it("retries the faults: each passing trial has exactly its three turns and records the failed attempts", async () => {
    let modelErrors = 0;
    for (const scenario of report.scenarios) {
      for (const trial of scenario.trials) {
        const events = await readEvents(path.join(outDir, trial.events_path ?? ""));
        modelErrors += events.filter((e) => e.type === "model_error").length;
        if (trial.outcome === "pass") {
          expect(events.filter((e) => e.type === "model_response")).toHaveLength(3);
          expect(
            events.filter((e) => e.type === "tool_call").map((e) => e.type === "tool_call" && e.command),
          ).toEqual(["echo hi > x.txt", "cat x.txt"]);
        }
      }
    }
    expect(modelErrors).toBe(faults);
    expect(report.summary.passed).toBeGreaterThanOrEqual(22);
  });
});
