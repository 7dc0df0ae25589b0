/**
 * ReDoS (issue #16, break 6): regex gates over an agent's large output must end within the trial's
 * timeout. `(a+)+$` over 100 000 `a`s and a `!` kept a backtracking engine (V8's) at 99% CPU for
 * 116 s on the main thread, the 10 s trial timeout and SIGTERM ignored; on RE2 it is linear.
 * A real run through the CLI with the oracle agent, in the local and the bwrap sandbox.
 */
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { Report } from "../../src/results/types.js";
import { runMain } from "../cli/run-main.js";
import { makeTempDir } from "../support/temp-dirs.js";

const CATASTROPHIC = "(a+)+$";
const TRIAL_TIMEOUT_S = 10;
/** 100 000 `a`s and a `!`, on stdout and in a file. */
const HOSTILE_OUTPUT = "head -c 100000 /dev/zero | tr '\\0' a; echo '!'";

const SCENARIO = `name: redos
task: Print a lot of a's.
agent:
  timeout: ${TRIAL_TIMEOUT_S}s
target:
  binary: tr
  command_pattern: "(t+)+r$"
solution:
  - ${JSON.stringify(`${HOSTILE_OUTPUT} | tee out.txt`)}
evaluation:
  gates:
    - {type: stdout_regex, pattern: ${JSON.stringify(CATASTROPHIC)}}
    - {type: command_output_matches, command: cat out.txt, pattern: ${JSON.stringify(CATASTROPHIC)}}
    - {type: file_matches, path: out.txt, pattern: ${JSON.stringify(CATASTROPHIC)}}
    - {type: file_line_regex, path: out.txt, pattern: "^(a|aa)+$"}
    - {type: stdout_regex, pattern: "^a{1000}"}
`;

describe("a regex gate catastrophic for a backtracking engine, over an agent's large output", () => {
  for (const sandbox of ["local", "bwrap"] as const) {
    it(`ends within the trial timeout and evaluates every gate (${sandbox})`, async () => {
      const dir = makeTempDir("ltt-hostile-redos-");
      await writeFile(path.join(dir, "redos.yaml"), SCENARIO);
      const out = path.join(dir, "out");
      const started = Date.now();
      const result = await runMain([
        "run",
        dir,
        "--agent",
        "oracle",
        "--sandbox",
        sandbox,
        "--out",
        out,
        "--trials",
        "1",
      ]);
      const elapsed = Date.now() - started;
      expect(elapsed).toBeLessThan(TRIAL_TIMEOUT_S * 1000);
      expect(result.stderr).not.toMatch(/\n\s+at /);
      const report = JSON.parse(await readFile(path.join(out, "report.json"), "utf8")) as Report;
      const trial = report.scenarios[0]?.trials[0];
      expect(trial?.outcome, trial?.reason ?? "").toBe("fail");
      expect(trial?.end_reason).toBe("natural_stop");
      // The `!` defeats `$` after the a's; the last gate shows the output really was there.
      expect(trial?.gates.map((gate) => [gate.gate_type, gate.passed])).toEqual([
        ["stdout_regex", false],
        ["command_output_matches", false],
        ["file_matches", false],
        ["file_line_regex", false],
        ["stdout_regex", true],
      ]);
      expect(result.code).toBe(1);
    });
  }
});
