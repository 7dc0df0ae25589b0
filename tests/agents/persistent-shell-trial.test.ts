/**
 * The built-in agent's persistent shell, end to end: a scripted model (loopback Anthropic server)
 * drives a real trial (runTrial: sandbox, shim, events, gates) in each sandbox mode. The model
 * `cd`s in one call and relies on it in the next, defines a function and calls it later, and the
 * gates see the files those calls made where only a persistent shell would put them.
 */
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createAnthropicAgent } from "../../src/agents/anthropic.js";
import { createAnthropicClient } from "../../src/model/anthropic-client.js";
import { defaultRunOptions } from "../../src/run/options.js";
import type { Scenario } from "../../src/scenario/types.js";
import {
  bashCall,
  finalText,
  type RecordedRequest,
  scriptByTurn,
  startModelServer,
  toolUse,
} from "../support/model-server.js";
import { findBwrapProblem } from "../support/processes.js";
import { makeScenario } from "../support/scenario-factory.js";
import { eventsOf, runSingleTrial } from "../support/single-trial.js";
import { makeTempDir } from "../support/temp-dirs.js";

const CANARY_KEY = "sk-ant-canary-persistent-shell-41c2";
const bwrapProblem = findBwrapProblem();
if (bwrapProblem) console.warn(`skipping the bwrap persistent-shell trial: ${bwrapProblem}`);

const scenario: Scenario = makeScenario({
  id: "persistent-shell",
  task: "Make sub/greeting.txt with a function.",
  evaluation: {
    gates: [
      { type: "file_contains", path: "sub/where.txt", substring: "/sub", weight: 1 },
      { type: "file_contains", path: "sub/greeting.txt", substring: "hello shell", weight: 1 },
    ],
  },
});

/** The model's side: one command per turn, then a last answer. */
const SCRIPT = scriptByTurn([
  bashCall("mkdir -p sub && cd sub"),
  bashCall('pwd > where.txt; greet() { echo "hello $1" > greeting.txt; }'),
  bashCall("greet shell && cat greeting.txt"),
  bashCall("exit_with() { return $1; }; exit_with 3"),
  { kind: "message", content: [toolUse({ restart: true })] },
  bashCall("pwd; type greet || echo no-greet"),
  finalText("done"),
]);

const toolResultText = (request: RecordedRequest | undefined): string => {
  const messages = request?.body.messages ?? [];
  const last = messages[messages.length - 1];
  return JSON.stringify(last?.content ?? "");
};

for (const mode of ["local", "bwrap"] as const) {
  describe.skipIf(mode === "bwrap" && bwrapProblem !== null)(
    `the built-in agent's shell persists (${mode})`,
    () => {
      it("cd in one call is where the next runs; a function defined once is called later; restart forgets", async () => {
        const server = await startModelServer(SCRIPT);
        try {
          const outDir = makeTempDir("persistent-shell-trial-");
          const options = defaultRunOptions({ outDir, trialTimeoutMs: 60_000, sandbox: mode });
          const agent = createAnthropicAgent(
            createAnthropicClient({ apiKey: CANARY_KEY, baseURL: server.url }),
          );
          const { output, events } = await runSingleTrial(scenario, options, agent, {
            canaryKey: CANARY_KEY,
          });

          expect(output.report.gates.map((gate) => gate.passed)).toEqual([true, true]);
          expect(output.report.outcome).toBe("pass");
          // Exact telemetry per call: its exit status and its own output.
          const results = eventsOf(events, "tool_result");
          expect(results.map((result) => result.exit_code)).toEqual([0, 0, 0, 3, 0]);
          expect(results[2]?.stdout).toBe("hello shell\n");
          expect(results.every((result) => result.shell_exited === undefined)).toBe(true);
          // After the restart: the work dir again, the function gone.
          const workDir = eventsOf(events, "prompt")[0]?.work_dir as string;
          expect(results[4]?.stdout).toBe(`${workDir}\nno-greet\n`);
          expect(eventsOf(events, "tool_call").map((call) => call.command)).toHaveLength(5);

          const requests = server.messageRequests();
          expect(toolResultText(requests[4])).toContain("exit code: 3");
          expect(toolResultText(requests[5])).toContain("The shell was restarted");
          expect(path.basename(workDir)).not.toBe("sub");
        } finally {
          await server.close();
        }
      }, 120_000);
    },
  );
}
