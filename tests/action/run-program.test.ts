/** The action's adapter for running npm and the sandbox setup's commands (action/run-program.ts). */
import { describe, expect, it } from "vitest";
import { createProgramRunner } from "../../src/action/run-program.js";

const runProgram = createProgramRunner();

describe("createProgramRunner", () => {
  it("runs with exactly the given environment and stdin, in /", async () => {
    const outcome = await runProgram({
      file: "/bin/sh",
      // HOME is the test process's, not the program's: it must not reach it.
      args: ["-c", 'cat; printf " %s %s" "$GREETING" "$PWD"; test -z "$HOME" && printf " no-home"; exit 3'],
      env: { GREETING: "hello" },
      stdin: "from stdin",
      timeoutMs: 10_000,
    });
    expect(outcome).toEqual({ exitCode: 3, stdout: "from stdin hello / no-home", stderr: "" });
  });

  it("gives a program that cannot start exit 127 and the reason, without throwing", async () => {
    const outcome = await runProgram({
      file: "ltt-no-such-program",
      args: [],
      env: { PATH: "/nonexistent" },
      timeoutMs: 10_000,
    });
    expect(outcome.exitCode).toBe(127);
    expect(outcome.stdout).toBe("");
    expect(outcome.stderr).toMatch(/ltt-no-such-program/);
  });
});
