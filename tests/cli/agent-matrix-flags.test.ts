/**
 * An agent matrix's settings from the command line: each value given to one agent (`AGENT=VALUE`)
 * reaches that agent alone, and one that cannot be attributed to an agent of the run is a
 * configuration error naming the option, before any trial starts (no model is called: the keys
 * point at a closed port).
 */
import path from "node:path";
import { describe, expect, it } from "vitest";
import { EXIT } from "../../src/cli/command.js";
import { ROOT, runMain } from "./run-main.js";

const SCENARIO = path.join(ROOT, "tests/fixtures/e2e/suite/extract-names.yaml");
const KEYS = {
  ANTHROPIC_API_KEY: "sk-ant-test",
  OPENAI_API_KEY: "sk-openai-test",
  GEMINI_API_KEY: "AIza-test",
};

async function configError(args: string[], env: Record<string, string> = KEYS): Promise<string> {
  const result = await runMain(["run", SCENARIO, "--out", "/nonexistent/never-written", ...args], { env });
  expect(result.stderr).not.toMatch(/\n\s+at /);
  expect(result.code, result.stderr).toBe(EXIT.usage);
  return result.stderr;
}

describe("agent matrix flags", () => {
  it.each([
    [
      "a model for an agent the run does not have",
      ["--agent", "anthropic,claude-code", "--model", "codex=openai:gpt-5"],
      "--model codex=openai:gpt-5: codex is not an agent of this run (anthropic, claude-code); add codex to the run's agents or drop the value",
    ],
    [
      "a model for an agent the run does not have, the run's agents typed by their aliases",
      ["--agent", "built-in,claude", "--model", "gemini=gemini-2.5-flash"],
      "--model gemini-cli=gemini-2.5-flash: gemini-cli is not an agent of this run (anthropic, claude-code); add gemini-cli to the run's agents or drop the value",
    ],
    [
      "a base URL for an agent that does not call that API",
      [
        "--agent",
        "anthropic",
        "--agent",
        "codex",
        "--model",
        "codex=openai:gpt-5",
        "--base-url",
        "codex=http://127.0.0.1:9",
      ],
      "--base-url codex=http://127.0.0.1:9: the codex agent does not call this API; its base URL is --openai-base-url codex=URL",
    ],
    [
      "a base URL for an agent without any",
      ["--agent", "anthropic,oracle", "--base-url", "oracle=http://127.0.0.1:9"],
      "the oracle agent does not call this API, it takes no base URL",
    ],
    [
      "a scope that is not an agent",
      ["--agent", "oracle,codex", "--openai-base-url", "codec=http://127.0.0.1:9"],
      '--openai-base-url codec=http://127.0.0.1:9: unknown agent "codec" (did you mean "codex"?)',
    ],
    [
      "the same agent's base URL twice",
      [
        "--agent",
        "anthropic,claude-code",
        "--base-url",
        "claude-code=http://127.0.0.1:9",
        "--base-url",
        "claude-code=http://127.0.0.1:10",
      ],
      "--base-url is given twice for claude-code: give it once",
    ],
    [
      "two base URLs for every agent",
      [
        "--agent",
        "anthropic,claude-code",
        "--base-url",
        "http://127.0.0.1:9",
        "--base-url",
        "http://127.0.0.1:10",
      ],
      "--base-url is given twice without an agent: give it once for every agent, or once per agent as --base-url AGENT=URL",
    ],
    [
      "one agent's base URL with and without its name",
      [
        "--agent",
        "claude-code",
        "--base-url",
        "claude-code=http://127.0.0.1:9",
        "--base-url",
        "http://127.0.0.1:10",
      ],
      "--base-url is given twice for claude-code (with and without claude-code=): give it once",
    ],
    [
      "the run's Anthropic model for codex",
      ["--agent", "anthropic,codex", "--model", "claude-haiku-4-5"],
      `--model (the run's models, which codex takes without its own --model codex=MODEL): the codex agent runs OpenAI models only`,
    ],
    [
      "an OpenAI model for claude-code, given to it alone",
      ["--agent", "anthropic,claude-code", "--model", "claude-code=openai:gpt-5"],
      '--model claude-code=MODEL: the claude-code agent runs Anthropic models only, not "openai:gpt-5"',
    ],
    [
      "gemini-cli without models of its own",
      ["--agent", "anthropic,gemini-cli", "--model", "claude-haiku-4-5"],
      "the gemini-cli agent's model ids are its own (e.g. gemini-2.5-flash), not the run's: with several agents give them as --model gemini-cli=MODEL",
    ],
    [
      "the replay agent among several",
      ["--agent", "oracle,replay"],
      "the replay agent cannot be one of several agents",
    ],
    [
      "--agent-command without the command agent",
      ["--agent", "oracle,null", "--agent-command", "my-agent {prompt}"],
      "--agent-command is the command agent's, which is not an agent of this run (oracle, null): add the command agent to --agent or drop --agent-command",
    ],
    [
      "an unknown agent",
      ["--agent", "oracle,codec"],
      '--agent: unknown agent "codec" (did you mean "codex"?)',
    ],
  ])("%s is a configuration error naming the option", async (_what, args, message) => {
    expect(await configError(args)).toContain(message);
  });

  it("names the missing key of one agent of the matrix", async () => {
    const stderr = await configError(["--agent", "oracle,codex", "--model", "codex=openai:gpt-5"], {
      ANTHROPIC_API_KEY: "sk-ant-test",
    });
    expect(stderr).toContain("the codex agent needs an API key: set OPENAI_API_KEY");
  });
});
