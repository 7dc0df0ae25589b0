import { describe, expect, it } from "vitest";
import { EXIT } from "../../src/cli/main.js";
import { HARNESS_VERSION } from "../../src/version.js";
import { runMain, SUITE } from "./run-main.js";

const COMMANDS = ["run", "validate", "list", "report", "compare", "merge", "plan", "init"];

describe("the CLI's dispatcher", () => {
  it("lists every command in --help, each with its own --help", async () => {
    const help = await runMain(["--help"]);
    expect(help.code).toBe(EXIT.ok);
    expect(help.stdout).toContain(`llm-tool-test ${HARNESS_VERSION}`);
    const listed = [...help.stdout.matchAll(/^ {2}llm-tool-test (\S+)/gm)].map((m) => m[1]);
    expect(listed).toEqual(COMMANDS);
    for (const command of COMMANDS) {
      const own = await runMain([command, "--help"]);
      expect(own.code, command).toBe(EXIT.ok);
      expect(own.stdout, command).toMatch(new RegExp(`^Usage: llm-tool-test ${command}\\b`));
    }
  });

  it("prints the help with a usage status when called without a command", async () => {
    const result = await runMain([]);
    expect(result.code).toBe(EXIT.usage);
    expect(result.stdout).toContain("Exit status: 0 all passed, 1 a scenario failed");
  });

  it("prints its version", async () => {
    expect(await runMain(["--version"])).toEqual({ code: 0, stdout: `${HARNESS_VERSION}\n`, stderr: "" });
  });

  it("suggests the nearest command for a typo", async () => {
    const result = await runMain(["lsit"]);
    expect(result.code).toBe(EXIT.usage);
    expect(result.stderr).toBe(
      `llm-tool-test: unknown command "lsit" (did you mean "list"?). Run 'llm-tool-test --help'.\n`,
    );
  });

  it("shows a command's usage with a usage status when its arguments are missing", async () => {
    for (const argv of [["report"], ["compare", "a.json"], ["merge", "a.json"], ["plan"], ["init"]]) {
      const result = await runMain(argv);
      expect(result.code, argv.join(" ")).toBe(EXIT.usage);
      expect(result.stdout, argv.join(" ")).toMatch(/^Usage: llm-tool-test /);
    }
  });

  it("turns a bad flag into one line naming it, exit 2, a stack trace only with --debug", async () => {
    const bad = await runMain(["list", SUITE, "--tier", "x"]);
    expect(bad.code).toBe(EXIT.usage);
    expect(bad.stderr).toBe('llm-tool-test: --tier must be a whole number >= 0, got "x"\n');
    const debug = await runMain(["list", SUITE, "--tier", "x", "--debug"]);
    expect(debug.stderr).toMatch(/\n\s+at /);
  });
});
