import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Report } from "../../src/results/types.js";
import {
  bashCall,
  finalText,
  firstUserText,
  type ModelServer,
  scriptByTurn,
  startModelServer,
} from "../support/model-server.js";
import { findBwrapProblem } from "../support/processes.js";
import { ROOT, runCli } from "../support/run-cli.js";
import { makeTempDir } from "../support/temp-dirs.js";

const SMOKE = path.join(ROOT, "tests/fixtures/bashkit-eval/smoke-test.jsonl");

/** One scripted conversation per task, chosen by the task's prompt. */
function scriptFor(solutions: Record<string, string>) {
  const scripts = Object.fromEntries(
    Object.entries(solutions).map(([key, command]) => [key, [bashCall(command), finalText("Done.")]]),
  );
  return scriptByTurn(scripts, (request) => {
    const prompt = firstUserText(request);
    return Object.keys(solutions).find((key) => prompt.includes(key)) ?? "";
  });
}

const CORRECT = {
  "Print 'hello world'": "echo 'hello world'",
  "/tmp/greeting.txt": "echo 'hi there' > /tmp/greeting.txt && cat /tmp/greeting.txt",
  "/var/log/test.log": "grep -ci error /var/log/test.log",
};
const WRONG = {
  "Print 'hello world'": "echo goodbye",
  "/tmp/greeting.txt": "echo 'hi there' > /tmp/other.txt; cat /tmp/missing.txt",
  "/var/log/test.log": "grep -c error /var/log/test.log",
};

describe.skipIf(findBwrapProblem() !== null)(
  "bashkit-eval's smoke dataset, unchanged, in the bwrap sandbox",
  () => {
    let server: ModelServer | undefined;
    afterEach(async () => server?.close());

    async function run(solutions: Record<string, string>) {
      server = await startModelServer(scriptFor(solutions));
      const out = makeTempDir("ltt-bashkit-");
      const result = await runCli(
        // One trial per task, as bashkit-eval runs them.
        [
          "run",
          SMOKE,
          "--agent",
          "anthropic",
          "--sandbox",
          "bwrap",
          "--out",
          out,
          "-j",
          "3",
          "--trials",
          "1",
        ],
        {
          env: { ANTHROPIC_API_KEY: "sk-ant-canary-bashkit-0001", ANTHROPIC_BASE_URL: server.url },
        },
      );
      const report = JSON.parse(await readFile(path.join(out, "report.json"), "utf8")) as Report;
      return { result, report, markdown: await readFile(path.join(out, "report.md"), "utf8") };
    }

    it("passes every task with correct solutions", async () => {
      const { result, report, markdown } = await run(CORRECT);
      expect(result.stderr).not.toMatch(/\n\s+at /);
      expect(result.code).toBe(0);
      expect(report.summary).toMatchObject({
        total_tasks: 3,
        total_passed: 3,
        total_score: 8,
        total_max_score: 8,
      });
      expect(report.summary.by_category).toEqual({
        basic: { tasks: 3, passed: 3, score: 8, max_score: 8, rate: 1, pass_rate: 1, errors: 0 },
      });
      expect(markdown).toContain("| basic | 3 | 3 | 100% | 8/8 | 100% | 0 |");
    });

    it("fails the right checks of wrong solutions, with bashkit's partial scores", async () => {
      const { result, report } = await run(WRONG);
      expect(result.code).toBe(1);
      const byId = Object.fromEntries(report.scenarios.map((s) => [s.id, s.trials[0]]));
      const failedChecks = (id: string) => byId[id]?.gates.filter((g) => !g.passed).map((g) => g.description);
      expect(failedChecks("smoke_echo")).toEqual(["stdout_contains:hello world"]);
      expect([byId.smoke_echo?.score, byId.smoke_echo?.max_score]).toEqual([1, 2]);
      expect(failedChecks("smoke_file_create")).toEqual([
        "file_exists:/tmp/greeting.txt",
        "file_contains:/tmp/greeting.txt:hi there",
        "stdout_contains:hi there",
        "exit_code:0",
      ]);
      expect([byId.smoke_file_create?.score, byId.smoke_file_create?.max_score]).toEqual([0, 4]);
      expect(failedChecks("smoke_grep")).toEqual(["stdout_contains:2"]);
      expect(report.summary).toMatchObject({
        total_passed: 0,
        total_score: 2,
        total_max_score: 8,
        overall_rate: 0.25,
      });
    });
  },
);
