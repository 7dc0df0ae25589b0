import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createNullAgent } from "../../src/agents/null.js";
import { createOracleAgent } from "../../src/agents/oracle.js";
import { makeScenario } from "../support/scenario-factory.js";
import { makeContext, type TestContext } from "./agent-context.js";

const contexts: TestContext[] = [];
afterEach(async () => {
  await Promise.all(contexts.splice(0).map((test) => test.dispose()));
});
async function track(test: Promise<TestContext>): Promise<TestContext> {
  const resolved = await test;
  contexts.push(resolved);
  return resolved;
}

describe("oracle agent", () => {
  it("runs each solution entry as one bash call, in order, numbered from turn 1", async () => {
    const test = await track(
      makeContext({
        scenario: makeScenario({
          solution: ["mkdir out && echo 42 > out/answer.txt", "false", "cat out/answer.txt >> log.txt"],
        }),
      }),
    );
    const outcome = await createOracleAgent().run(test.context);
    expect(outcome).toEqual({ reason: "natural_stop", turns: 0 });
    expect(test.bashCalls.map(({ command, turn, result }) => [command, turn, result.exit_code])).toEqual([
      ["mkdir out && echo 42 > out/answer.txt", 1, 0],
      ["false", 2, 1],
      ["cat out/answer.txt >> log.txt", 3, 0],
    ]);
    expect(await readFile(join(test.workDir, "log.txt"), "utf8")).toBe("42\n");
    expect(test.events.filter((e) => e.type.startsWith("model_"))).toEqual([]);
  });

  it("ends agent_crash with what to do when the scenario has no solution", async () => {
    for (const solution of [undefined, []]) {
      const test = await track(makeContext({ scenario: makeScenario({ id: "no-answer", solution }) }));
      expect(await createOracleAgent().run(test.context)).toEqual({
        reason: "agent_crash",
        error: 'scenario "no-answer" has no solution: add solution: [...] or use another agent',
        turns: 0,
      });
      expect(test.bashCalls).toEqual([]);
    }
  });

  it("stops early when the trial times out or the run is cancelled", async () => {
    for (const reason of ["timeout", "cancelled"] as const) {
      const test = await track(
        makeContext({ scenario: makeScenario({ solution: ["echo 1", "echo 2", "echo 3"] }) }),
      );
      const inner = test.context.bash;
      test.context.bash = async (command, turn) => {
        const result = await inner(command, turn);
        if (turn === 2)
          test.controller.abort(reason === "cancelled" ? "cancelled" : new Error("trial timed out"));
        return result;
      };
      expect(await createOracleAgent().run(test.context)).toEqual({ reason, turns: 0 });
      expect(test.bashCalls.map((c) => c.command)).toEqual(["echo 1", "echo 2"]);
    }
  });

  it("ends infra_error when the sandbox fails to run a command", async () => {
    const test = await track(
      makeContext({
        scenario: makeScenario({ solution: ["echo 1"] }),
        bash: async () => {
          throw new Error("bwrap: no permission");
        },
      }),
    );
    expect(await createOracleAgent().run(test.context)).toEqual({
      reason: "infra_error",
      error: "the sandbox failed to run a command: bwrap: no permission",
      turns: 0,
    });
  });
});

describe("null agent", () => {
  it("does nothing and stops naturally", async () => {
    const test = await track(makeContext({ scenario: makeScenario({ solution: ["touch x"] }) }));
    const agent = createNullAgent();
    expect(agent.name).toBe("null");
    expect(await agent.run(test.context)).toEqual({ reason: "natural_stop", turns: 0 });
    expect(test.bashCalls).toEqual([]);
    expect(test.events).toEqual([]);
  });
});
