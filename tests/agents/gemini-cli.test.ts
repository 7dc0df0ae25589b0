/**
 * The gemini-cli agent with the real `gemini` program (the devDependency), through the real trial
 * harness (runTrial: sandbox, shim, events, gates), against the scripted Gemini API on 127.0.0.1
 * behind the credential proxy. A trap HTTP(S) proxy catches any request meant for anywhere else.
 */
import { execFileSync } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { PLACEHOLDER_API_KEY } from "../../src/agents/credential-proxy.js";
import {
  buildGeminiArgs,
  buildGeminiSettings,
  createGeminiStreamMapper,
  GEMINI_BIN_ENV,
  GEMINI_CLI_PACKAGE,
  GEMINI_CLI_VERSION,
  parseShellOutput,
  resolveGeminiBinary,
} from "../../src/agents/gemini-cli.js";
import { createAgent } from "../../src/agents/registry.js";
import { ConfigError } from "../../src/errors.js";
import { defaultRunOptions } from "../../src/run/options.js";
import type { TrialOutput } from "../../src/run/trial.js";
import type { Scenario } from "../../src/scenario/types.js";
import type { EventInput, TrialEvent } from "../../src/transcript/events.js";
import {
  type GeminiResponder,
  type GeminiScriptedReply,
  type GeminiServer,
  geminiShellCall,
  geminiText,
  geminiTurnOf,
  offersShell,
  startGeminiServer,
} from "../support/gemini-server.js";
import { startLoopbackServer } from "../support/loopback-server.js";
import { findBwrapProblem, findLiveProcesses } from "../support/processes.js";
import { reachableProgramEnv } from "../support/reachable-copy.js";
import { makeScenario } from "../support/scenario-factory.js";
import { eventsOf, runSingleTrial } from "../support/single-trial.js";
import { makeTempDir } from "../support/temp-dirs.js";
import { makeContext } from "./agent-context.js";

const CANARY_KEY = "AIza-canary-gemini-cli-1b2c3d4e5f";
const MODEL = "gemini-2.5-flash";
const GUIDANCE_MARKER = "GUIDANCE-MARKER-4d1e: prefer jq -r for raw strings.";

let dir: string;
let guidanceFile: string;
let trap: { url: string; hits: string[]; close(): Promise<void> };
const cleanups: (() => Promise<void>)[] = [];

beforeAll(async () => {
  dir = makeTempDir("gemini-cli-test-");
  guidanceFile = path.join(dir, "AGENTS.md");
  await writeFile(guidanceFile, `# Tools\n\n${GUIDANCE_MARKER}\n`);
  trap = await startTrapProxy();
});

afterAll(async () => {
  await trap.close();
});

afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

/** An HTTP(S) proxy that records every request it gets and refuses it: nothing may leave the machine. */
async function startTrapProxy(): Promise<{ url: string; hits: string[]; close(): Promise<void> }> {
  const hits: string[] = [];
  const server = await startLoopbackServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    res.writeHead(403).end();
  });
  server.server.on("connect", (req, socket) => {
    hits.push(`CONNECT ${req.url}`);
    socket.end("HTTP/1.1 403 Forbidden\r\n\r\n");
  });
  return { url: server.url, hits, close: server.close };
}

/** Environment for the agent and its commands: any outbound HTTP(S) request goes to the trap. */
function trapEnv(): Record<string, string> {
  return {
    HTTPS_PROXY: trap.url,
    HTTP_PROXY: trap.url,
    https_proxy: trap.url,
    http_proxy: trap.url,
    NO_PROXY: "127.0.0.1,localhost",
    no_proxy: "127.0.0.1,localhost",
  };
}

/** The script by turn for Gemini CLI's main loop; any other request (a side check) gets "ok". */
function geminiScript(replies: GeminiScriptedReply[]): GeminiResponder {
  return (request) => {
    if (!offersShell(request)) return geminiText("ok");
    return replies[geminiTurnOf(request)] ?? geminiText("(script exhausted)");
  };
}

interface GeminiTrial {
  output: TrialOutput;
  events: TrialEvent[];
  eventsText: string;
  server: GeminiServer;
}

async function runGeminiTrial(
  scenario: Scenario,
  respond: GeminiResponder,
  options: {
    sandbox?: "local" | "bwrap";
    maxTurns?: number;
    signal?: AbortSignal;
    maxRetries?: number;
    maxApiRequests?: number;
  } = {},
): Promise<GeminiTrial> {
  const server = await startGeminiServer(respond);
  cleanups.push(() => server.close());
  const outDir = makeTempDir("gemini-out-");
  const agent = createAgent("gemini-cli", {
    geminiApiKey: CANARY_KEY,
    geminiBaseURL: server.url,
    // No gemini on this PATH: the devDependency's program is found (a copy where the agent's
    // account cannot reach this checkout).
    env: {
      PATH: "/usr/bin:/bin",
      ...((options.sandbox ?? "local") === "local"
        ? reachableProgramEnv(GEMINI_BIN_ENV, resolveGeminiBinary({ PATH: "/nonexistent" }))
        : {}),
    },
    geminiCli: {
      ...(options.maxRetries !== undefined ? { maxRetries: options.maxRetries } : {}),
      ...(options.maxApiRequests !== undefined ? { maxApiRequests: options.maxApiRequests } : {}),
    },
  });
  const runOptions = defaultRunOptions({
    outDir,
    agent: "gemini-cli",
    model: MODEL,
    maxTurns: options.maxTurns ?? 10,
    trialTimeoutMs: 90_000,
    commandTimeoutMs: 30_000,
    sandbox: options.sandbox ?? "local",
  });
  const { output, events, eventsText } = await runSingleTrial(scenario, runOptions, agent, {
    canaryKey: CANARY_KEY,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  return { output, events, eventsText, server };
}

function jqScenario(overrides: Partial<Scenario> = {}): Scenario {
  return makeScenario({
    id: "gemini-jq",
    task: "Write the names from data.json to names.txt, one per line.",
    files: { "data.json": '[{"name":"ada"},{"name":"grace"}]\n' },
    guidance: { file: guidanceFile, mode: "workdir" },
    target: { binary: "jq", env: trapEnv() },
    evaluation: {
      gates: [
        { type: "file_contains", path: "names.txt", substring: "ada\ngrace", weight: 1 },
        // Gemini CLI's own files stay in its home in TMPDIR, not in the work dir.
        { type: "command_succeeds", command: "test ! -e .gemini && test -f AGENTS.md", weight: 1 },
      ],
    },
    ...overrides,
  });
}

const USAGE = {
  promptTokenCount: 1200,
  candidatesTokenCount: 55,
  cachedContentTokenCount: 300,
  thoughtsTokenCount: 10,
};

describe("gemini-cli agent with the real gemini program", () => {
  it("drives Gemini CLI through a scenario: turns, shell calls with exit codes, shim invocations, gates, no key in its env", async () => {
    const trial = await runGeminiTrial(
      jqScenario(),
      geminiScript([
        geminiShellCall("jq -r '.[].name' data.json > names.txt", {
          text: "I will extract the names with jq.",
          usage: USAGE,
        }),
        geminiShellCall("env", { usage: USAGE }),
        geminiShellCall("jq -r '.[' data.json", { usage: USAGE }),
        geminiText("Done: names.txt lists ada and grace.", USAGE),
      ]),
    );
    const { output, events, server } = trial;
    const report = output.report;

    expect(eventsOf(events, "trial_end")[0]).toMatchObject({ reason: "natural_stop", error: null, turns: 4 });
    expect(report.outcome).toBe("pass");
    expect(report.gates.map((gate) => gate.passed)).toEqual([true, true]);

    // Model turns: the text and tool calls between rounds of tool results.
    const responses = eventsOf(events, "model_response");
    expect(responses.map((r) => r.turn)).toEqual([1, 2, 3, 4]);
    expect(responses.map((r) => r.stop_reason)).toEqual(["tool_use", "tool_use", "tool_use", "end_turn"]);
    expect(responses[0]!.text).toBe("I will extract the names with jq.");
    expect(responses[3]!.text).toBe("Done: names.txt lists ada and grace.");
    // The run's totals (the CLI reports no others) ride on the last response: 4 × the usage,
    // input without the cached part, thinking counted as output.
    expect(
      responses.slice(0, 3).every((r) => r.usage.input_tokens === 0 && r.usage.output_tokens === 0),
    ).toBe(true);
    expect(responses[3]!.usage).toEqual({
      input_tokens: 4 * (1200 - 300),
      output_tokens: 4 * (55 + 10),
      cache_read_tokens: 4 * 300,
      cache_write_tokens: 0,
    });
    expect(report.execution).toMatchObject({
      input_tokens: 3600,
      output_tokens: 260,
      cache_read_tokens: 1200,
    });
    // Gemini CLI reports no cost and the model is not priced: unknown, not $0.
    expect(report.execution.cost_usd).toBeNull();

    // Shell calls: tool_call/tool_result pairs keyed by the CLI's call ids, with exit codes.
    const calls = eventsOf(events, "tool_call");
    expect(calls.map((c) => c.command)).toEqual([
      "jq -r '.[].name' data.json > names.txt",
      "env",
      "jq -r '.[' data.json",
    ]);
    expect(calls.map((c) => c.turn)).toEqual([1, 2, 3]);
    expect(calls.map((c) => c.call_id)).toEqual(responses.slice(0, 3).map((r) => r.tool_uses[0]!.id));
    const results = eventsOf(events, "tool_result");
    expect(results.map((r) => r.call_id)).toEqual(calls.map((c) => c.call_id));
    expect(results.map((r) => r.exit_code)).toEqual([0, 0, 3]);
    expect(results[2]!.stdout).toMatch(/jq: error/);
    expect(results[2]!.stdout).not.toMatch(/Exit Code|Process Group PGID/);

    // The shim saw the real invocations of the target, with exit codes: they agree.
    const invocations = eventsOf(events, "target_invocation");
    expect(invocations.map((i) => i.argv)).toEqual([
      ["jq", "-r", ".[].name", "data.json"],
      ["jq", "-r", ".[", "data.json"],
    ]);
    expect(invocations.map((i) => i.exit_code)).toEqual([0, 3]);
    expect(report.invocation_source).toBe("shim");
    expect(report.shim_disagreements).toBeUndefined();
    expect(report.interaction).toMatchObject({ total_commands: 2, error_count: 1, completed: true });
    expect(report.execution).toMatchObject({
      turns: 4,
      tool_calls: 3,
      tool_calls_error: 1,
      natural_stop: true,
    });

    // Secrets: Gemini CLI (and so its shell tool) holds only the placeholder; the API got the real key.
    const envOutput = results[1]!.stdout;
    expect(envOutput).toContain(`GEMINI_API_KEY=${PLACEHOLDER_API_KEY}`);
    expect(envOutput).toMatch(/GOOGLE_GEMINI_BASE_URL=http:\/\/127\.0\.0\.1:\d+/);
    expect(envOutput).not.toContain(CANARY_KEY);
    expect(trial.eventsText).not.toContain(CANARY_KEY);
    expect(trial.eventsText).not.toContain("[REDACTED]");
    const generate = server.generateRequests();
    expect(generate.length).toBeGreaterThanOrEqual(4);
    for (const request of server.requests) {
      expect(request.headers["x-goog-api-key"]).toBe(CANARY_KEY);
      expect(JSON.stringify(request.headers)).not.toContain(PLACEHOLDER_API_KEY);
      expect(request.query).not.toContain("key=");
    }
    // Nothing tried to reach anywhere but the loopback proxy.
    expect(trap.hits).toEqual([]);

    // What Gemini CLI was asked: the model, the shell tool only, the harness's prompt, the guidance, the task.
    const main = generate.filter(offersShell);
    expect(main).toHaveLength(4);
    for (const request of main) {
      expect(request.model).toBe(MODEL);
      expect(request.method_name).toBe("streamGenerateContent");
      const names = request.body.tools.flatMap((tool: { functionDeclarations: { name: string }[] }) =>
        tool.functionDeclarations.map((f) => f.name),
      );
      expect(names).toEqual(["run_shell_command"]);
    }
    const system = JSON.stringify(main[0]!.body.systemInstruction);
    expect(system).toContain("You are working in a sandboxed directory");
    const firstRequest = JSON.stringify(main[0]!.body);
    expect(firstRequest).toContain(GUIDANCE_MARKER);
    expect(firstRequest).toContain("Write the names from data.json to names.txt");

    expect(eventsOf(events, "agent_output")[0]!.text).toMatch(/^Gemini CLI started: model gemini-2\.5-flash/);
  }, 120_000);

  it("records a refused command substitution as a call that did not run", async () => {
    const trial = await runGeminiTrial(
      jqScenario({ evaluation: { gates: [] } }),
      geminiScript([geminiShellCall("echo $(jq -r '.[0].name' data.json)"), geminiText("Gave up.")]),
    );
    const results = eventsOf(trial.events, "tool_result");
    expect(results).toHaveLength(1);
    expect(results[0]!.exit_code).toBe(1);
    expect(results[0]!.stderr).toMatch(/command substitution/);
    expect(results[0]!.not_run).toBe(true);
    expect(eventsOf(trial.events, "target_invocation")).toEqual([]);
    expect(eventsOf(trial.events, "trial_end")[0]!.reason).toBe("natural_stop");
  }, 120_000);

  it("records a call of a tool it does not offer (write_file) as a refused tool call", async () => {
    const trial = await runGeminiTrial(
      jqScenario({ evaluation: { gates: [] } }),
      geminiScript([
        {
          kind: "answer",
          parts: [
            { functionCall: { name: "write_file", args: { file_path: "names.txt", content: "ada\n" } } },
          ],
        },
        geminiShellCall("jq -r '.[0].name' data.json"),
        geminiText("Done."),
      ]),
    );
    const calls = eventsOf(trial.events, "tool_call");
    expect(calls.map((call) => call.tool ?? "shell")).toEqual(["write_file", "shell"]);
    const results = eventsOf(trial.events, "tool_result");
    expect(results.map((result) => [result.exit_code, result.not_run ?? false])).toEqual([
      [1, true],
      [0, false],
    ]);
    const report = trial.output.report;
    expect(report.execution).toMatchObject({ tool_calls: 2, tool_calls_error: 1 });
    expect(report.interaction).toMatchObject({ total_commands: 1, error_count: 0 });
    expect(report.shim_disagreements).toBeUndefined();
  }, 120_000);

  it("stops at the turn limit, the run's tokens said in its transcript", async () => {
    const trial = await runGeminiTrial(
      jqScenario({ evaluation: { gates: [] } }),
      geminiScript([
        geminiShellCall("echo one", { usage: USAGE }),
        geminiShellCall("echo two", { usage: USAGE }),
        geminiShellCall("echo three", { usage: USAGE }),
      ]),
      { maxTurns: 2 },
    );
    const end = eventsOf(trial.events, "trial_end")[0]!;
    expect(end.reason).toBe("turn_limit");
    const responses = eventsOf(trial.events, "model_response");
    expect(responses).toHaveLength(2);
    // No final answer to carry the run's totals: they are in the transcript, not the counts.
    expect(responses.every((r) => r.usage.input_tokens === 0)).toBe(true);
    expect(eventsOf(trial.events, "agent_output").map((e) => e.text)).toContainEqual(
      expect.stringContaining(
        `reported ${2 * 900} input (${2 * 300} more cached) and ${2 * 65} output tokens`,
      ),
    );
    expect(eventsOf(trial.events, "tool_result").map((r) => [r.stdout, r.exit_code])).toEqual([
      ["one", 0],
      ["two", 0],
    ]);
    expect(trial.output.report.interaction.completed).toBe(false);
  }, 120_000);

  it("lets a work dir's .gemini/settings.json apply, as in the user's project, and says so in the events", async () => {
    const workspaceSettings = { model: { maxSessionTurns: 100 } };
    const trial = await runGeminiTrial(
      jqScenario({
        files: { "data.json": "[]\n", ".gemini/settings.json": JSON.stringify(workspaceSettings) },
        evaluation: { gates: [] },
      }),
      geminiScript([geminiShellCall("echo one"), geminiShellCall("echo two"), geminiText("done")]),
      { maxTurns: 2 },
    );
    // The project's turn limit (100), not the run's (2): the trial ends by itself after 3 turns.
    expect(eventsOf(trial.events, "trial_end")[0]).toMatchObject({ reason: "natural_stop", turns: 3 });
    expect(eventsOf(trial.events, "agent_output").map((e) => e.text)).toContainEqual(
      expect.stringContaining("the work dir has .gemini/settings.json"),
    );
    expect(trap.hits).toEqual([]);
  }, 120_000);

  it("removes a .gemini/settings.json and .mcp.json the scenario does not declare (made by its setup): the run's turn limit holds", async () => {
    const workspaceSettings = { model: { maxSessionTurns: 100 } };
    const trial = await runGeminiTrial(
      jqScenario({
        setup: [
          `mkdir -p .gemini && printf '%s' '${JSON.stringify(workspaceSettings)}' > .gemini/settings.json`,
          `printf '%s' '{"mcpServers":{}}' > .mcp.json`,
        ],
        evaluation: { gates: [] },
      }),
      geminiScript([geminiShellCall("echo one"), geminiShellCall("echo two"), geminiText("done")]),
      { maxTurns: 2 },
    );
    // The run's turn limit (2), not the undeclared settings' (100).
    expect(eventsOf(trial.events, "trial_end")[0]).toMatchObject({ reason: "turn_limit" });
    const notes = eventsOf(trial.events, "agent_output").map((e) => e.text);
    expect(notes).toContainEqual(
      expect.stringContaining(
        "removed the work dir's agent configuration that the scenario does not declare (.gemini, .mcp.json)",
      ),
    );
    expect(notes.join("\n")).not.toContain("the work dir has .gemini/settings.json");
    expect(trap.hits).toEqual([]);
  }, 120_000);

  it("reports an API error as an infrastructure error, not a model turn", async () => {
    const trial = await runGeminiTrial(
      jqScenario({ evaluation: { gates: [] } }),
      () => ({ kind: "error", status: 401, message: "API key not valid. Please pass a valid API key." }),
      { maxRetries: 1 },
    );
    const end = eventsOf(trial.events, "trial_end")[0]!;
    expect(end.reason).toBe("infra_error");
    expect(end.error).toContain("401");
    expect(end.error).toContain("API key not valid");
    expect(end.error).not.toContain(CANARY_KEY);
    expect(eventsOf(trial.events, "model_response")).toHaveLength(0);
    expect(trial.output.report.outcome).toBe("error");
  }, 120_000);

  it("ends at the proxy's request cap, the refusal in its events and the reason in its end", async () => {
    const trial = await runGeminiTrial(
      jqScenario({ evaluation: { gates: [] } }),
      geminiScript([geminiShellCall("echo one"), geminiShellCall("echo two"), geminiText("done")]),
      { maxApiRequests: 1, maxRetries: 0 },
    );
    expect(trial.server.requests.length).toBeLessThanOrEqual(1);
    const refusals = eventsOf(trial.events, "model_error").filter((e) => e.status === 403);
    expect(refusals.length).toBeGreaterThan(0);
    expect(refusals[0]!.message).toContain("cap of 1 API requests");
    const end = eventsOf(trial.events, "trial_end")[0]!;
    expect(end.reason).not.toBe("natural_stop");
    expect(end.error).toContain("cap of 1 API requests");
  }, 120_000);

  it("ends as cancelled, its process group and shell children killed, the running call in its events", async () => {
    // Unique per test process: the check looks for the marker machine-wide.
    const marker = `sleep 57.${process.pid}`;
    const controller = new AbortController();
    const trialDone = runGeminiTrial(
      jqScenario({ evaluation: { gates: [] } }),
      geminiScript([geminiShellCall(`${marker}; echo never`)]),
      { signal: controller.signal },
    );
    // Interrupt once the shell call is running (a condition, not a guess at how long start-up takes).
    let running = false;
    trialDone.finally(() => {
      running = true;
    });
    while (!running && findLiveProcesses(marker).length === 0) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    controller.abort("cancelled");
    const trial = await trialDone;
    expect(eventsOf(trial.events, "trial_end")[0]!.reason).toBe("cancelled");
    expect(trial.output.report.outcome).toBe("skipped");
    expect(eventsOf(trial.events, "tool_call").map((c) => c.command)).toEqual([`${marker}; echo never`]);
    expect(findLiveProcesses(marker)).toEqual([]);
  }, 120_000);
});

const bwrapProblem = findBwrapProblem();
if (bwrapProblem) console.warn(`skipping the gemini-cli bwrap test: ${bwrapProblem}`);

describe.skipIf(bwrapProblem !== null)("gemini-cli agent in the bwrap sandbox", () => {
  it("runs Gemini CLI inside bwrap: /home/eval as the work dir, the shim inside, the API through the proxy", async () => {
    const trial = await runGeminiTrial(
      jqScenario(),
      geminiScript([
        geminiShellCall("pwd; echo $HOME; jq -r '.[].name' data.json > names.txt"),
        geminiShellCall("env"),
        // The network is off: the host's loopback (the trap listens there) is out of reach.
        geminiShellCall(`curl -s -m 5 -o /dev/null -w 'http %{http_code}' ${trap.url}/ || true`),
        geminiShellCall("jq . missing.json"),
        geminiText("Done."),
      ]),
      { sandbox: "bwrap" },
    );
    const { events, output } = trial;
    expect(eventsOf(events, "trial_end")[0]).toMatchObject({ reason: "natural_stop", error: null });
    expect(output.report.outcome).toBe("pass");
    const results = eventsOf(events, "tool_result");
    expect(results[0]!.stdout.trimEnd()).toBe("/home/eval\n/home/eval");
    expect(results[1]!.stdout).not.toContain(CANARY_KEY);
    expect(results[1]!.stdout).toContain(`GEMINI_API_KEY=${PLACEHOLDER_API_KEY}`);
    expect(results[2]!.stdout).toBe("http 000");
    expect(results.map((r) => r.exit_code)).toEqual([0, 0, 0, 2]);
    expect(eventsOf(events, "target_invocation").map((i) => [i.argv, i.exit_code, i.cwd])).toEqual([
      [["jq", "-r", ".[].name", "data.json"], 0, "/home/eval"],
      [["jq", ".", "missing.json"], 2, "/home/eval"],
    ]);
    expect(output.report.shim_disagreements).toBeUndefined();
    expect(trial.server.requests.every((request) => request.headers["x-goog-api-key"] === CANARY_KEY)).toBe(
      true,
    );
    expect(trial.server.requests.length).toBeGreaterThanOrEqual(5);
    expect(trap.hits).toEqual([]);
  }, 120_000);
});

describe("gemini-cli's calls as layer 1 counts them (an honest agent)", () => {
  const sandboxes = bwrapProblem === null ? (["local", "bwrap"] as const) : (["local"] as const);
  it.each(sandboxes)(
    "gives exact invocation counts and no forged flag (%s)",
    async (sandbox) => {
      // The pattern misses `jq --version`: it is counted all the same and reported.
      const scenario = jqScenario({
        target: { binary: "jq", commandPattern: "jq\\s+-r\\s+(\\S+)", env: trapEnv() },
      });
      const trial = await runGeminiTrial(
        scenario,
        geminiScript([
          geminiShellCall("jq -r '.[].name' data.json > names.txt"),
          geminiShellCall("jq . missing.json"),
          geminiShellCall("jq --version"),
          geminiShellCall("jq -r '.[0].name' data.json && jq -r '.[1].name' data.json"),
          geminiShellCall("jq -r '.[0].name' data.json; jq -r .broken[ data.json"),
          geminiText("Done."),
        ]),
        { sandbox },
      );
      const report = trial.output.report;
      expect(eventsOf(trial.events, "target_invocation")).toHaveLength(7);
      expect(eventsOf(trial.events, "tool_result").map((r) => r.exit_code)).toEqual([0, 2, 0, 0, 3]);
      expect(report.invocation_source).toBe("shim");
      const invocations = eventsOf(trial.events, "target_invocation").map((i) => [
        i.argv.join(" "),
        i.exit_code,
      ]);
      expect(report.interaction, JSON.stringify(invocations)).toMatchObject({
        total_commands: 7,
        error_count: 2,
      });
      expect(report.shim_disagreements).toBeUndefined();
      expect(report.command_pattern_misses).toEqual(["jq . missing.json", "jq --version"]);
    },
    120_000,
  );

  it.each(sandboxes)(
    "counts calls it refused ($(…), backticks) as no invocation, and the model's retries as the ones that ran (%s)",
    async (sandbox) => {
      const trial = await runGeminiTrial(
        jqScenario({ evaluation: { gates: [] } }),
        geminiScript([
          // A refused call beside one that runs, in one turn: the record is the second call's.
          {
            kind: "answer",
            parts: [
              {
                functionCall: {
                  name: "run_shell_command",
                  args: { command: "echo $(jq -r '.[0].name' data.json)" },
                },
              },
              {
                functionCall: { name: "run_shell_command", args: { command: "jq -r '.[0].name' data.json" } },
              },
            ],
          },
          geminiShellCall("name=`jq -r '.[1].name' data.json`; echo $name"),
          geminiShellCall("jq -r '.[1].name' data.json"),
          geminiText("Done."),
        ]),
        { sandbox },
      );
      const report = trial.output.report;
      expect(eventsOf(trial.events, "tool_result").map((r) => [r.exit_code, r.not_run ?? false])).toEqual([
        [1, true],
        [0, false],
        [1, true],
        [0, false],
      ]);
      expect(eventsOf(trial.events, "target_invocation")).toHaveLength(2);
      expect(report.interaction).toMatchObject({ total_commands: 2, error_count: 0 });
      expect(report.shim_disagreements).toBeUndefined();
      // The refusals stay failed tool calls: the model's call did not do what it asked.
      expect(report.execution).toMatchObject({ tool_calls: 4, tool_calls_error: 2 });
    },
    120_000,
  );
});

describe("gemini-cli stream mapping", () => {
  function mapLines(lines: unknown[], exit = { exit_code: 0, stderr: "", timed_out: false }) {
    const events: EventInput[] = [];
    let clock = 0;
    const mapper = createGeminiStreamMapper({ emit: (event) => events.push(event) }, () => (clock += 10));
    for (const line of lines) mapper.push(typeof line === "string" ? line : JSON.stringify(line));
    const outcome = mapper.finish(exit, new AbortController().signal);
    return { events, outcome };
  }
  const stats = { total_tokens: 130, input_tokens: 100, output_tokens: 20, cached: 40, input: 60 };

  it("makes one turn of the text and calls before a round of results, emitted at its first call; the final answer carries the totals", () => {
    const { events, outcome } = mapLines([
      { type: "init", session_id: "s", model: "gemini-x" },
      { type: "message", role: "user", content: "task" },
      { type: "message", role: "assistant", content: "Look", delta: true },
      { type: "message", role: "assistant", content: "ing.", delta: true },
      { type: "tool_use", tool_name: "run_shell_command", tool_id: "c1", parameters: { command: "ls" } },
      { type: "tool_use", tool_name: "read_file", tool_id: "c2", parameters: { file_path: "x" } },
      {
        type: "tool_result",
        tool_id: "c1",
        status: "success",
        output: "Output: a\nb\nProcess Group PGID: 7",
      },
      { type: "tool_result", tool_id: "c2", status: "success", output: "file text" },
      { type: "message", role: "assistant", content: "Done.", delta: true },
      { type: "result", status: "success", stats },
    ]);
    expect(outcome).toEqual({ reason: "natural_stop", turns: 2 });
    expect(events.map((event) => event.type)).toEqual([
      "agent_output",
      "model_response",
      "tool_call",
      "tool_call",
      "tool_result",
      "tool_result",
      "model_response",
    ]);
    // A tool other than the shell is a call of its own kind, its result without an exit code of a command.
    expect(events[3]).toMatchObject({ type: "tool_call", call_id: "c2", tool: "read_file" });
    expect(events[5]).toMatchObject({
      type: "tool_result",
      call_id: "c2",
      stdout: "file text",
      exit_code: 0,
    });
    const responses = events.filter((e) => e.type === "model_response") as Extract<
      EventInput,
      { type: "model_response" }
    >[];
    expect(responses[0]).toMatchObject({ turn: 1, text: "Looking.", stop_reason: "tool_use" });
    // Out at its first call, before any tool runs: a later call of the same turn is not in its list.
    expect(responses[0]!.tool_uses.map((t) => t.name)).toEqual(["run_shell_command"]);
    expect(responses[1]).toMatchObject({
      turn: 2,
      text: "Done.",
      stop_reason: "end_turn",
      usage: { input_tokens: 60, output_tokens: 30, cache_read_tokens: 40, cache_write_tokens: 0 },
    });
    expect(events[4]).toMatchObject({ type: "tool_result", call_id: "c1", stdout: "a\nb", exit_code: 0 });
  });

  it("reads exit codes, signals and spawn errors from the result's trailer, and keeps output that only looks like one", () => {
    expect(parseShellOutput("Output: boom\nExit Code: 2\nProcess Group PGID: 9")).toEqual({
      output: "boom",
      exitCode: 2,
    });
    expect(parseShellOutput("Output: (empty)\nExit Code: 1")).toEqual({ output: "", exitCode: 1 });
    expect(parseShellOutput("Output: x\nSignal: 9\nProcess Group PGID: 3")).toEqual({
      output: "x",
      exitCode: 137,
    });
    expect(parseShellOutput("Output: x\nSignal: SIGTERM")).toEqual({ output: "x", exitCode: 143 });
    expect(parseShellOutput("Output: (empty)\nError: spawn bash ENOENT")).toEqual({
      output: "",
      exitCode: 1,
    });
    expect(parseShellOutput("Output: line one\nExit Code: is a phrase\nmore\nProcess Group PGID: 4")).toEqual(
      {
        output: "line one\nExit Code: is a phrase\nmore",
        exitCode: 0,
      },
    );
    // The trailer is read in the CLI's order: an earlier line of the output stays output.
    expect(parseShellOutput("Output: x\nSignal: 9\nExit Code: 2\nProcess Group PGID: 3")).toEqual({
      output: "x\nSignal: 9",
      exitCode: 2,
    });
    expect(parseShellOutput("Blocked: command substitution detected in shell command.")).toBeNull();
  });

  it("maps the ways a run ends", () => {
    const end = (result: Record<string, unknown>, exit_code = 1) =>
      mapLines([{ type: "result", stats, ...result }], { exit_code, stderr: "", timed_out: false }).outcome;
    expect(
      end({ status: "error", error: { type: "FatalTurnLimitedError", message: "Reached max" } }, 53).reason,
    ).toBe("turn_limit");
    const api = end({
      status: "error",
      error: { type: "unknown", message: '[API Error: {"error":{"code":429,"message":"quota"}}]' },
    });
    expect(api).toMatchObject({ reason: "infra_error", error: expect.stringContaining("answered 429") });
    const crashed = end({
      status: "error",
      error: { type: "FatalToolExecutionError", message: "disk full" },
    });
    expect(crashed.reason).toBe("agent_crash");
    expect(crashed.error).toContain("disk full");
    expect(end({ status: "success" }, 1).reason).toBe("agent_crash");
    const noResult = mapLines(["not json at all"], {
      exit_code: 2,
      stderr: "Error: bad flag",
      timed_out: false,
    });
    expect(noResult.outcome).toEqual({
      reason: "agent_crash",
      error: "gemini exited with code 2 without a result line; stderr ends: Error: bad flag",
      turns: 0,
    });
    expect(noResult.events).toEqual([{ type: "agent_output", text: "not json at all" }]);
    expect(mapLines([], { exit_code: 124, stderr: "", timed_out: true }).outcome.reason).toBe("timeout");
  });
});

describe("gemini-cli agent setup", () => {
  it("finds the devDependency's program when no gemini is on PATH, at the pinned version, and honours LLM_TOOL_TEST_GEMINI_BIN", async () => {
    const found = resolveGeminiBinary({ PATH: "/nonexistent" });
    expect(found).toMatch(/node_modules\/@google\/gemini-cli\/bundle\/gemini\.js$/);
    expect(execFileSync(process.execPath, [found, "--version"], { encoding: "utf8" }).trim()).toBe(
      GEMINI_CLI_VERSION,
    );
    // What the action installs is what the tests ran: the devDependency, pinned exactly.
    const manifest = JSON.parse(
      await readFile(path.resolve(import.meta.dirname, "../../package.json"), "utf8"),
    );
    expect(manifest.devDependencies[GEMINI_CLI_PACKAGE]).toBe(GEMINI_CLI_VERSION);
    const fake = path.join(dir, "my-gemini");
    await writeFile(fake, "#!/bin/sh\n", { mode: 0o755 });
    expect(resolveGeminiBinary({ [GEMINI_BIN_ENV]: fake, PATH: "/nonexistent" })).toBe(fake);
    expect(() => resolveGeminiBinary({ [GEMINI_BIN_ENV]: path.join(dir, "missing") })).toThrow(ConfigError);
    expect(() => resolveGeminiBinary({ PATH: "/nonexistent" }, [dir])).toThrow(
      /npm install -g @google\/gemini-cli@0\.61\.0\) or set LLM_TOOL_TEST_GEMINI_BIN/,
    );
  });

  it("needs a Gemini API key", () => {
    expect(() => createAgent("gemini-cli", { env: { PATH: "/usr/bin:/bin" } })).toThrow(/GEMINI_API_KEY/);
  });

  it("passes the model, stream-json, YOLO and the settings: turn limit, tools, command timeout, nothing phoning home", async () => {
    const test = await makeContext({ model: "gemini-2.5-pro", maxTurns: 7, systemPrompt: "Be brief." });
    cleanups.push(test.dispose);
    const args = buildGeminiArgs(test.context);
    expect(args).toEqual(
      expect.arrayContaining(["--output-format", "stream-json", "--approval-mode", "yolo", "--debug"]),
    );
    expect(args[args.indexOf("--model") + 1]).toBe("gemini-2.5-pro");
    // The task goes on stdin, never as an argument that could be read as an option.
    expect(args).not.toContain(test.context.task);
    const settings = buildGeminiSettings(test.context, { tools: ["run_shell_command"], maxRetries: 2 });
    expect(settings).toMatchObject({
      model: { maxSessionTurns: 7 },
      tools: { core: ["run_shell_command"] },
      telemetry: { enabled: false },
      privacy: { usageStatisticsEnabled: false },
      ide: { enabled: false },
      general: { enableAutoUpdate: false, maxAttempts: 3 },
    });
  });
});
