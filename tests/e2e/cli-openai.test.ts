import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Report } from "../../src/results/types.js";
import { readEvents } from "../../src/transcript/reader.js";
import {
  type OpenAiServer,
  openAiBashCall,
  openAiScriptByTurn,
  openAiText,
  startOpenAiServer,
} from "../support/openai-server.js";
import { ROOT, runCli } from "../support/run-cli.js";
import { makeTempDir } from "../support/temp-dirs.js";

const SCENARIO = path.join(ROOT, "tests/fixtures/e2e/suite/extract-names.yaml");
const KEY = "sk-proj-canary-cli-openai-9d2f7a1c";

describe("OpenAI-compatible models through the real CLI", () => {
  let server: OpenAiServer | undefined;
  afterEach(async () => server?.close());

  it("--model openai:... runs the built-in agent over Chat Completions with real bash; tokens and cost in the report", async () => {
    // Each turn reads 1000 prompt tokens, 600 of them from the cache, and writes 50.
    const usage = { prompt_tokens: 1000, cached_tokens: 600, completion_tokens: 50 };
    server = await startOpenAiServer(
      openAiScriptByTurn([
        openAiBashCall("jq -r '.[].name' data.json > names.txt", usage),
        openAiBashCall("env", usage),
        openAiText("Names written.", usage),
      ]),
    );
    const out = makeTempDir("ltt-openai-");
    const result = await runCli(
      ["run", SCENARIO, "--model", "openai:gpt-5-mini", "--trials", "1", "--out", out, "--quiet"],
      { env: { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: server.url } },
    );
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(result.code).toBe(0);

    const report = JSON.parse(await readFile(path.join(out, "report.json"), "utf8")) as Report;
    expect(report.run.agent).toBe("anthropic");
    expect(report.run.model).toBe("openai:gpt-5-mini");
    const trial = report.scenarios[0]?.trials[0];
    expect(trial?.outcome).toBe("pass");
    expect(trial?.execution).toMatchObject({
      turns: 3,
      tool_calls: 2,
      input_tokens: 3 * 400,
      cache_read_tokens: 3 * 600,
      cache_write_tokens: 0,
      output_tokens: 3 * 50,
    });
    // gpt-5-mini: $0.25 input, $0.025 cached input, $2 output per million tokens.
    expect(trial?.execution.cost_usd).toBeCloseTo((1200 * 0.25 + 1800 * 0.025 + 150 * 2) / 1e6, 12);

    // The SDK called Chat Completions with the model's own id and the key, and nothing else did.
    expect(server.requests.map((r) => `${r.method} ${r.path} ${r.body?.model}`)).toEqual([
      "POST /v1/chat/completions gpt-5-mini",
      "POST /v1/chat/completions gpt-5-mini",
      "POST /v1/chat/completions gpt-5-mini",
    ]);
    expect(server.requests.every((r) => r.headers.authorization === `Bearer ${KEY}`)).toBe(true);
    // The third request carries the tool results of the first two calls.
    const third: { role: string }[] = server.requests[2]?.body.messages ?? [];
    expect(third.filter((m) => m.role === "tool")).toHaveLength(2);

    // The agent's commands never see the key.
    const events = await readEvents(path.join(out, trial?.events_path ?? ""));
    const envOutput = events.find((e) => e.type === "tool_result" && e.stdout.includes("PATH="));
    expect(envOutput).toBeDefined();
    expect(envOutput && envOutput.type === "tool_result" ? envOutput.stdout : "").not.toContain(KEY);
    expect(await readFile(path.join(out, "report.json"), "utf8")).not.toContain(KEY);
  });

  it("says which key is missing, and names an unknown provider", async () => {
    const missing = await runCli(["run", SCENARIO, "--agent", "anthropic", "--model", "openai:gpt-5-mini"], {
      env: { ANTHROPIC_API_KEY: "sk-ant-not-used-here" },
    });
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain(
      "the anthropic agent needs an API key: set OPENAI_API_KEY in the environment",
    );

    const unknown = await runCli(["run", SCENARIO, "--model", "opnai:gpt-5-mini"], {
      env: { OPENAI_API_KEY: KEY },
    });
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain('--model: unknown provider "opnai"');
    expect(unknown.stderr).toContain('did you mean "openai:gpt-5-mini"?');
  });
});
