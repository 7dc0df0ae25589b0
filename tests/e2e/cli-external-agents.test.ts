import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Report } from "../../src/results/types.js";
import { readEvents } from "../../src/transcript/reader.js";
import {
  type GeminiServer,
  geminiShellCall,
  geminiText,
  geminiTurnOf,
  offersShell,
  startGeminiServer,
} from "../support/gemini-server.js";
import {
  bashCall,
  finalText,
  type ModelServer,
  scriptByTurn,
  startModelServer,
} from "../support/model-server.js";
import { reachableProgram } from "../support/reachable-copy.js";
import { ROOT, runCli } from "../support/run-cli.js";
import { makeTempDir } from "../support/temp-dirs.js";

const SCENARIO = path.join(ROOT, "tests/fixtures/e2e/suite/extract-names.yaml");

describe("external agent CLIs through the real CLI", () => {
  let server: ModelServer | undefined;
  afterEach(async () => server?.close());

  // The fake agent lives in this repository: bwrap shows it (its folder bound read-only), local sees the host.
  it.each(["bwrap", "local"])(
    "--agent command runs any agent CLI from a template (%s); the shim still records the tool",
    async (sandbox) => {
      const out = makeTempDir("ltt-command-");
      const fakeAgent = path.join(ROOT, "tests/fixtures/e2e/agents/fake-agent.sh");
      // Local mode runs it as the agent's account: a copy where that cannot reach this checkout.
      const agent = sandbox === "local" ? reachableProgram(fakeAgent) : fakeAgent;
      const result = await runCli([
        "run",
        SCENARIO,
        "--agent",
        "command",
        "--agent-command",
        `${agent} {prompt}`,
        "--out",
        out,
        "--sandbox",
        sandbox,
      ]);
      expect(result.code).toBe(0);
      const report = JSON.parse(await readFile(path.join(out, "report.json"), "utf8")) as Report;
      const trial = report.scenarios[0]?.trials[0];
      expect(trial?.sandbox).toBe(sandbox);
      expect(trial?.outcome).toBe("pass");
      expect(trial?.invocation_source).toBe("shim");
      expect(trial?.interaction.total_commands).toBe(1);
      const events = await readEvents(path.join(out, trial?.events_path ?? ""));
      expect(
        events.some((e) => e.type === "agent_output" && e.text.includes("task: data.json holds a list")),
      ).toBe(true);
    },
  );

  it("--agent claude-code drives the real Claude Code CLI against the scripted API; the key stays outside", async () => {
    const key = "sk-ant-canary-cli-claude-code-42";
    // Only Claude's agent requests (those offering the Bash tool) get the scripted tool calls.
    const script = scriptByTurn([
      bashCall("jq -r '.[].name' data.json > names.txt", { name: "Bash" }),
      bashCall("env", { name: "Bash" }),
      finalText("Names written."),
    ]);
    server = await startModelServer((request) =>
      (request.body?.tools ?? []).some((tool: { name?: string }) => tool.name === "Bash")
        ? script(request)
        : finalText("ok"),
    );
    const out = makeTempDir("ltt-claude-");
    const result = await runCli(
      ["run", SCENARIO, "--agent", "claude-code", "--model", "claude-haiku-4-5", "--out", out],
      {
        env: { ANTHROPIC_API_KEY: key, ANTHROPIC_BASE_URL: server.url },
      },
    );
    expect(result.stderr).not.toMatch(/\n\s+at /);
    const report = JSON.parse(await readFile(path.join(out, "report.json"), "utf8")) as Report;
    const trial = report.scenarios[0]?.trials[0];
    expect(trial?.reason).toBeNull();
    expect(result.code).toBe(0);
    expect(trial?.end_reason).toBe("natural_stop");
    expect(trial?.interaction.total_commands).toBe(1);
    const events = await readEvents(path.join(out, trial?.events_path ?? ""));
    const commands = events
      .filter((e) => e.type === "tool_call")
      .map((e) => (e.type === "tool_call" ? e.command : ""));
    expect(commands).toEqual(["jq -r '.[].name' data.json > names.txt", "env"]);
    const envOutput = events.find((e) => e.type === "tool_result" && e.stdout.includes("PATH="));
    expect(envOutput && envOutput.type === "tool_result" ? envOutput.stdout : "").not.toContain("canary");
    // The server saw the real key, through the loopback proxy.
    const auth = server
      .messageRequests()
      .map((r) => `${r.headers["x-api-key"] ?? ""} ${r.headers.authorization ?? ""}`);
    expect(auth.every((a) => a.includes(key))).toBe(true);
  });

  it("--agent gemini-cli runs a model matrix with the real Gemini CLI against the scripted Gemini API; the key stays outside", async () => {
    const key = "AIza-canary-cli-gemini-cli-77";
    const script = [
      geminiShellCall("jq -r '.[].name' data.json > names.txt"),
      geminiShellCall("jq -r '.[' data.json"),
      geminiShellCall("env"),
      geminiText("Names written."),
    ];
    const gemini: GeminiServer = await startGeminiServer((request) =>
      offersShell(request) ? (script[geminiTurnOf(request)] ?? geminiText("(done)")) : geminiText("ok"),
    );
    try {
      const out = makeTempDir("ltt-gemini-");
      const result = await runCli(
        [
          "run",
          SCENARIO,
          "--agent",
          "gemini-cli",
          "--model",
          "gemini-2.5-flash",
          "--model",
          "gemini-2.5-pro",
          "--trials",
          "1",
          "--out",
          out,
        ],
        { env: { GEMINI_API_KEY: key, GOOGLE_GEMINI_BASE_URL: gemini.url } },
      );
      expect(result.stderr).not.toMatch(/\n\s+at /);
      expect(result.code).toBe(0);
      const report = JSON.parse(await readFile(path.join(out, "report.json"), "utf8")) as Report;
      expect(report.scenarios.map((scenario) => scenario.model).sort()).toEqual([
        "gemini-2.5-flash",
        "gemini-2.5-pro",
      ]);
      const trials = report.scenarios.flatMap((scenario) => scenario.trials);
      expect(trials).toHaveLength(2);
      for (const trial of trials) {
        expect(trial.end_reason).toBe("natural_stop");
        expect(trial.outcome).toBe("pass");
        expect(trial.interaction).toMatchObject({ total_commands: 2, error_count: 1 });
        expect(trial.execution).toMatchObject({ turns: 4, tool_calls: 3, tool_calls_error: 1 });
        expect(trial.execution.output_tokens).toBeGreaterThan(0);
        // Gemini CLI reports no cost and Gemini models are not in the price table: unknown, never $0.
        expect(trial.execution.cost_usd).toBeNull();
        const events = await readEvents(path.join(out, trial.events_path ?? ""));
        const env = events.find((e) => e.type === "tool_result" && e.stdout.includes("GEMINI_API_KEY="));
        expect(env && env.type === "tool_result" ? env.stdout : "missing").not.toContain("canary");
      }
      expect(result.stdout + result.stderr).not.toContain(key);
      // Each model was asked by its own name, with the real key, through the loopback proxy.
      const main = gemini.generateRequests().filter(offersShell);
      expect(new Set(main.map((request) => request.model))).toEqual(
        new Set(["gemini-2.5-flash", "gemini-2.5-pro"]),
      );
      expect(gemini.requests.every((request) => request.headers["x-goog-api-key"] === key)).toBe(true);
    } finally {
      await gemini.close();
    }
  }, 180_000);

  it("--agent opencode runs the real OpenCode CLI in a model matrix; the key stays outside", async () => {
    const key = "sk-ant-canary-cli-opencode-42";
    server = await startModelServer(
      scriptByTurn([
        bashCall("jq -r '.[].name' data.json > names.txt"),
        bashCall("env"),
        finalText("Names written."),
      ]),
    );
    const out = makeTempDir("ltt-opencode-");
    const result = await runCli(
      [
        "run",
        SCENARIO,
        "--agent",
        "opencode",
        "--model",
        "claude-haiku-4-5,claude-sonnet-4-5",
        "--trials",
        "1",
        "-j",
        "2",
        "--out",
        out,
      ],
      { env: { ANTHROPIC_API_KEY: key, ANTHROPIC_BASE_URL: server.url } },
    );
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(result.code).toBe(0);
    const report = JSON.parse(await readFile(path.join(out, "report.json"), "utf8")) as Report;
    expect(report.run.agent).toBe("opencode");
    const trials = report.scenarios.flatMap((scenario) => scenario.trials);
    expect(trials).toHaveLength(2);
    for (const trial of trials) {
      expect(trial.end_reason).toBe("natural_stop");
      expect(trial.outcome).toBe("pass");
      expect(trial.interaction.total_commands).toBe(1);
      expect(trial.execution.cost_usd).toBeGreaterThan(0);
      const events = await readEvents(path.join(out, trial.events_path ?? ""));
      const env = events.find((e) => e.type === "tool_result" && e.stdout.includes("PATH="));
      expect(env && env.type === "tool_result" ? env.stdout : "").not.toContain("canary");
    }
    // Each model of the matrix was asked for, with the real key through the loopback proxy.
    const models = server.messageRequests().map((r) => r.body.model);
    expect(new Set(models)).toEqual(new Set(["claude-haiku-4-5", "claude-sonnet-4-5"]));
    expect(server.messageRequests().every((r) => r.headers["x-api-key"] === key)).toBe(true);
    expect(report.model_matrix?.models).toEqual(["claude-haiku-4-5", "claude-sonnet-4-5"]);
  }, 300_000);
});
