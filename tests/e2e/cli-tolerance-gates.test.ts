/**
 * Tolerance gates end to end: init's starter runs on the base branch against a scripted Anthropic
 * server, then twice as a PR with `--baseline` and `--tolerance-gates input_tokens:+20%`: a head
 * whose model reads about three times the tokens fails the gate (exit 1, the scenario regressed in
 * report.md, comparison.md and JUnit), and one about 10% over passes it (exit 0).
 */
import { execFileSync } from "node:child_process";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bashCall, finalText, type ModelServer, startModelServer, turnOf } from "../support/model-server.js";
import { runCli } from "../support/run-cli.js";
import { makeTempDir } from "../support/temp-dirs.js";

const KEY = "sk-ant-canary-tolerance-7d31";
/** Input tokens of successive answers at the base: they vary, as real prompts' do. */
const BASE_INPUT = [2000, 2200, 1800, 2100, 1900, 2050];

describe("tolerance gates through the CLI", () => {
  let server: ModelServer;
  let repo: string;
  let answered = 0;
  /** The head's input tokens as a multiple of the base's. */
  let factor = 1;

  beforeAll(async () => {
    server = await startModelServer((request) => {
      const usage = {
        input_tokens: Math.round(BASE_INPUT[answered++ % BASE_INPUT.length]! * factor),
        output_tokens: 100,
      };
      return turnOf(request) === 0
        ? bashCall("git --version > version.txt", { usage })
        : finalText("Saved.", usage);
    });
    repo = makeTempDir("ltt-tolerance-");
    execFileSync("git", ["init", "-q", "-b", "main"], { cwd: repo });
    const init = await runCli(["init", "git"], { cwd: repo });
    expect(init.code, init.stderr).toBe(0);
  });
  afterAll(async () => server?.close());

  function run(name: string, extra: string[]) {
    return runCli(
      ["run", "scenarios", "--trials", "6", "--sandbox", "local", "--out", path.join(repo, name), ...extra],
      { cwd: repo, env: { ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: server.url } },
    );
  }
  const read = (name: string, file: string) => readFile(path.join(repo, name, file), "utf8");

  it("fails a head that uses clearly more tokens than +20%, and passes one within it", async () => {
    const base = await run("base", []);
    expect(base.code, base.stderr).toBe(0);
    const pr = [
      "--baseline",
      path.join(repo, "base", "report.json"),
      "--tolerance-gates",
      "input_tokens:+20%",
    ];

    factor = 3;
    const heavy = await run("heavy", [...pr, "--extra-trials", "0"]);
    expect(heavy.code, heavy.stdout + heavy.stderr).toBe(1);
    const comparison = await read("heavy", "comparison.md");
    expect(comparison).toMatch(
      /^### 🔴 Regression in `input_tokens` of `[^`]+`: .*\(limit \+20%, adjusted p/mu,
    );
    expect(comparison).toMatch(
      /\| input tokens \| [^|]+ \| [^|]+ \| \+[^|]*\[[^\]]+\] · limit \+20%, adjusted p [^|]*🔴 regressed \|/u,
    );
    expect(comparison).toMatch(/ Run cost \$[\d.]+\./);
    expect(await read("heavy", "report.md")).toMatch(/^\| `[^`]+` \| [^|]+ \| 🔴 regressed \|/mu);
    expect(await read("heavy", "junit.xml")).toMatch(/<property name="verdict" value="regressed"\/>/);

    factor = 1.1;
    const light = await run("light", [...pr, "--extra-trials", "0"]);
    expect(light.code, light.stdout + light.stderr).toBe(0);
    const within = await read("light", "comparison.md");
    expect(within).not.toMatch(/🔴/u);
    expect(within).toMatch(/limit \+20%, adjusted p = 1\.00/);
  }, 180_000);
});
