/**
 * The gemini-cli agent with the real `gemini` program (the devDependency), through the shared
 * agent-CLI scaffold (tests/support/agent-cli-trials.ts: the real trial harness against the scripted
 * Gemini API on 127.0.0.1 behind the credential proxy, a trap proxy for anything else). The contract
 * runs what every agent CLI shares; this file keeps what is Gemini CLI's own.
 */
import { execFileSync } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
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
import type { EventInput } from "../../src/transcript/events.js";
import {
  AGENT_CLI_SANDBOXES,
  type AgentCliWire,
  describeAgentCliContract,
  describeStreamMapperContract,
  HONEST_RUN_TEST_TIMEOUT_MS,
  useAgentCliTrials,
} from "../support/agent-cli-trials.js";
import {
  type GeminiRecordedRequest,
  type GeminiScriptedReply,
  type GeminiServer,
  geminiShellCall,
  geminiText,
  geminiTurnOf,
  offersShell,
  startGeminiServer,
} from "../support/gemini-server.js";
import { reachableProgramEnv } from "../support/reachable-copy.js";
import { eventsOf } from "../support/single-trial.js";
import { makeContext } from "./agent-context.js";

const CANARY_KEY = "AIza-canary-gemini-cli-1b2c3d4e5f";
const MODEL = "gemini-2.5-flash";

const geminiWire: AgentCliWire<GeminiScriptedReply, GeminiRecordedRequest, GeminiServer> = {
  agent: "gemini-cli",
  model: MODEL,
  canaryKey: CANARY_KEY,
  // Gemini CLI's own files stay in its home in TMPDIR, not in the work dir.
  ownFilesAbsent: "test ! -e .gemini && test -f AGENTS.md",
  startServer: (respond) => startGeminiServer(respond),
  createAgent: (server, options) =>
    createAgent("gemini-cli", {
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
    }),
  isMainLoop: offersShell,
  // Gemini CLI's main loop by turn; any other request (a side check) gets "ok".
  script: (replies) => (request) =>
    offersShell(request)
      ? (replies[geminiTurnOf(request)] ?? geminiText("(script exhausted)"))
      : geminiText("ok"),
  shell: (command) => geminiShellCall(command),
  text: (text) => geminiText(text),
  keyOf: (request) => request.headers["x-goog-api-key"] as string | undefined,
};

const trials = useAgentCliTrials(geminiWire);
const { jqScenario, runTrial } = trials;
const geminiScript = geminiWire.script;

const USAGE = {
  promptTokenCount: 1200,
  candidatesTokenCount: 55,
  cachedContentTokenCount: 300,
  thoughtsTokenCount: 10,
};

const SUBSTITUTION = "echo $(jq -r '.[0].name' data.json)";
const BACKTICKS = "name=`jq -r '.[1].name' data.json`; echo $name";

const { honestRun } = describeAgentCliContract(trials, {
  envShows: [`GEMINI_API_KEY=${PLACEHOLDER_API_KEY}`, /GOOGLE_GEMINI_BASE_URL=http:\/\/127\.0\.0\.1:\d+/],
  exactRequests: false,
  honest: {
    replies: [
      // A refused call ($(…)) beside one that runs, in one turn: the record is the second call's.
      {
        kind: "answer",
        parts: [
          { functionCall: { name: "run_shell_command", args: { command: SUBSTITUTION } } },
          { functionCall: { name: "run_shell_command", args: { command: "jq -r '.[0].name' data.json" } } },
        ],
      },
      // Refused too (backticks); the model's retry runs.
      geminiShellCall(BACKTICKS),
      geminiShellCall("jq -r '.[1].name' data.json"),
      // A tool Gemini CLI does not offer.
      {
        kind: "answer",
        parts: [{ functionCall: { name: "write_file", args: { file_path: "names.txt", content: "ada\n" } } }],
      },
    ],
    // The calls it refused are no invocation; the one beside the first and the retry are.
    invocations: 2,
    errors: 0,
    misses: [],
  },
  showsRunningCall: true,
  apiError: {
    reply: { kind: "error", status: 401, message: "API key not valid. Please pass a valid API key." },
    says: "API key not valid",
    options: { maxRetries: 1 },
    checks: (trial) => expect(eventsOf(trial.events, "trial_end")[0]!.error).toContain("401"),
  },
  turnLimit: {
    replies: ["one", "two", "three"].map((n) => geminiShellCall(`echo ${n}`, { usage: USAGE })),
    checks: (trial) => {
      // No final answer to carry the run's totals: they are in the transcript, not the counts.
      expect(eventsOf(trial.events, "model_response").every((r) => r.usage.input_tokens === 0)).toBe(true);
      expect(eventsOf(trial.events, "agent_output").map((e) => e.text)).toContainEqual(
        expect.stringContaining(
          `reported ${2 * 900} input (${2 * 300} more cached) and ${2 * 65} output tokens`,
        ),
      );
      expect(eventsOf(trial.events, "tool_result").map((r) => [r.stdout, r.exit_code])).toEqual([
        ["one", 0],
        ["two", 0],
      ]);
    },
  },
});

describe.each(AGENT_CLI_SANDBOXES)("gemini-cli's refused calls in the honest run (%s)", (sandbox) => {
  it(
    "records a refused command substitution or backticks as a call that did not run, and the model's retries as the ones that ran",
    async () => {
      const trial = await honestRun(sandbox);
      const calls = eventsOf(trial.events, "tool_call");
      const results = new Map(eventsOf(trial.events, "tool_result").map((r) => [r.call_id, r]));
      const own = calls.slice(calls.findIndex((call) => call.command === SUBSTITUTION));
      expect(
        own.map((call) => [
          call.command,
          results.get(call.call_id)?.exit_code,
          results.get(call.call_id)?.not_run ?? false,
        ]),
      ).toEqual([
        [SUBSTITUTION, 1, true],
        ["jq -r '.[0].name' data.json", 0, false],
        [BACKTICKS, 1, true],
        ["jq -r '.[1].name' data.json", 0, false],
        [expect.stringMatching(/^write_file /), 1, true],
      ]);
      expect(results.get(own[0]!.call_id)!.stderr).toMatch(/command substitution/);
    },
    HONEST_RUN_TEST_TIMEOUT_MS,
  );

  it(
    "records a call of a tool it does not offer (write_file) as a refused tool call; the refusals stay failed tool calls",
    async () => {
      const trial = await honestRun(sandbox);
      const calls = eventsOf(trial.events, "tool_call");
      expect(calls.filter((call) => call.tool !== undefined).map((call) => call.tool)).toEqual([
        "write_file",
      ]);
      // Shell calls: 6 shared (7 in bwrap) and 4 of its own, then write_file; failed: two of jq's,
      // the two refused and write_file. The model's call did not do what it asked.
      expect(calls).toHaveLength(sandbox === "bwrap" ? 12 : 11);
      expect(trial.output.report.execution).toMatchObject({ tool_calls: calls.length, tool_calls_error: 5 });
    },
    HONEST_RUN_TEST_TIMEOUT_MS,
  );
});

describe("gemini-cli agent with the real gemini program", () => {
  it("drives Gemini CLI through a scenario: turns, shell calls with exit codes, shim invocations, gates, no key in its env", async () => {
    const trial = await runTrial(
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
    expect(trials.trap().hits).toEqual([]);

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
    expect(firstRequest).toContain(trials.guidanceMarker);
    expect(firstRequest).toContain("Write the names from data.json to names.txt");

    expect(eventsOf(events, "agent_output")[0]!.text).toMatch(/^Gemini CLI started: model gemini-2\.5-flash/);
  }, 120_000);

  it("lets a work dir's .gemini/settings.json apply, as in the user's project, and says so in the events", async () => {
    const workspaceSettings = { model: { maxSessionTurns: 100 } };
    const trial = await runTrial(
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
    expect(trials.trap().hits).toEqual([]);
  }, 120_000);

  it("removes a .gemini/settings.json and .mcp.json the scenario does not declare (made by its setup): the run's turn limit holds", async () => {
    const workspaceSettings = { model: { maxSessionTurns: 100 } };
    const trial = await runTrial(
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
    expect(trials.trap().hits).toEqual([]);
  }, 120_000);

  it("ends at the proxy's request cap, the refusal in its events and the reason in its end", async () => {
    const trial = await runTrial(
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
  });

  describeStreamMapperContract(
    "gemini-cli",
    mapLines,
    (stderr) => `gemini exited with code 2 without a result line; stderr ends: ${stderr}`,
  );
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
    const fake = path.join(trials.dir, "my-gemini");
    await writeFile(fake, "#!/bin/sh\n", { mode: 0o755 });
    expect(resolveGeminiBinary({ [GEMINI_BIN_ENV]: fake, PATH: "/nonexistent" })).toBe(fake);
    expect(() => resolveGeminiBinary({ [GEMINI_BIN_ENV]: path.join(trials.dir, "missing") })).toThrow(
      ConfigError,
    );
    expect(() => resolveGeminiBinary({ PATH: "/nonexistent" }, [trials.dir])).toThrow(
      /npm install -g @google\/gemini-cli@0\.61\.0\) or set LLM_TOOL_TEST_GEMINI_BIN/,
    );
  });

  it("needs a Gemini API key", () => {
    expect(() => createAgent("gemini-cli", { env: { PATH: "/usr/bin:/bin" } })).toThrow(/GEMINI_API_KEY/);
  });

  it("passes the model, stream-json, YOLO and the settings: turn limit, tools, command timeout, nothing phoning home", async () => {
    const test = await makeContext({ model: "gemini-2.5-pro", maxTurns: 7, systemPrompt: "Be brief." });
    trials.cleanups.push(test.dispose);
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
