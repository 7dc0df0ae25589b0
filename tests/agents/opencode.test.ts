/**
 * The opencode agent with the real `opencode` binary (the devDependency, opencode-ai), through the
 * shared agent-CLI scaffold (tests/support/agent-cli-trials.ts: the real trial harness against the
 * scripted Messages API on 127.0.0.1, streamed as OpenCode's Anthropic provider asks, behind the
 * credential proxy; a trap proxy for anything else: models.dev, npm, sharing). The contract runs
 * what every agent CLI shares; this file keeps what is OpenCode's own.
 */
import { execFileSync } from "node:child_process";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { PLACEHOLDER_API_KEY } from "../../src/agents/credential-proxy.js";
import {
  buildOpenCodeArgs,
  buildOpenCodeConfig,
  createOpenCodeStreamMapper,
  OPENCODE_BIN_ENV,
  OPENCODE_PACKAGE,
  OPENCODE_VERSION,
  resolveOpenCodeBinary,
} from "../../src/agents/opencode.js";
import { createAgent } from "../../src/agents/registry.js";
import { ConfigError } from "../../src/errors.js";
import type { EventInput } from "../../src/transcript/events.js";
import {
  type AgentCliWire,
  describeAgentCliContract,
  describeStreamMapperContract,
  useAgentCliTrials,
} from "../support/agent-cli-trials.js";
import {
  bashCall,
  finalText,
  type ModelServer,
  messagesApiWire,
  type RecordedRequest,
  type ScriptedReply,
  type ScriptedUsage,
} from "../support/model-server.js";
import { eventsOf } from "../support/single-trial.js";
import { makeContext } from "./agent-context.js";

const CANARY_KEY = "sk-ant-canary-opencode-1a2b3c4d5e6f";
const MODEL = "claude-haiku-4-5";

function toolNames(request: RecordedRequest): string[] {
  return (request.body?.tools ?? []).map((tool: { name?: string }) => String(tool.name));
}

function bash(command: string, usage?: ScriptedUsage): ScriptedReply {
  return bashCall(command, usage ? { usage } : {});
}

const openCodeWire: AgentCliWire<ScriptedReply, RecordedRequest, ModelServer> = {
  agent: "opencode",
  model: MODEL,
  canaryKey: CANARY_KEY,
  // OpenCode's own files stay out of the work dir.
  ownFilesAbsent: "test -f AGENTS.md && test ! -e .opencode && test ! -e .config && test ! -e .local",
  ...messagesApiWire("bash"),
  createAgent: (server, options) =>
    createAgent("opencode", {
      apiKey: CANARY_KEY,
      baseURL: server.url,
      // No opencode on this PATH: the devDependency's binary is found.
      env: { PATH: "/usr/bin:/bin" },
      openCode: {
        ...(options.maxApiRequests !== undefined ? { maxApiRequests: options.maxApiRequests } : {}),
      },
    }),
};

const trials = useAgentCliTrials(openCodeWire);
const { jqScenario, runTrial } = trials;
const openCodeScript = openCodeWire.script;

describeAgentCliContract(trials, {
  envShows: [PLACEHOLDER_API_KEY, "OPENCODE_DISABLE_MODELS_FETCH=1"],
  exactRequests: true,
  honest: {
    // OpenCode reports a call once it has finished: its window is still where the command ran.
    replies: [bash("jq -r '.[1].name' data.json && sleep 3")],
    invocations: 1,
    errors: 0,
    misses: [],
  },
  showsRunningCall: false,
  apiError: {
    reply: { kind: "error", status: 401, type: "authentication_error", message: "invalid x-api-key" },
    says: "401",
  },
  turnLimit: {
    // OpenCode's own limit only asks the model: the harness ends it when it starts a step past it.
    checks: (trial) => {
      expect(eventsOf(trial.events, "trial_end")[0]!.turns).toBe(2);
      expect(trial.output.report.execution.natural_stop).toBe(false);
    },
  },
});

const USAGE = {
  input_tokens: 1200,
  output_tokens: 55,
  cache_read_input_tokens: 300,
  cache_creation_input_tokens: 40,
};

describe("opencode agent with the real opencode binary", () => {
  it("drives OpenCode through a scenario: turns, bash calls, shim invocations, gates, no key in its env", async () => {
    const trial = await runTrial(
      jqScenario(),
      openCodeScript([
        {
          kind: "message",
          content: [
            { type: "text", text: "I will extract the names with jq." },
            { type: "tool_use", name: "bash", input: { command: "jq -r '.[].name' data.json > names.txt" } },
          ],
          stop_reason: "tool_use",
          usage: USAGE,
        },
        bash("env", USAGE),
        bash("jq -r '.[' data.json", USAGE),
        finalText("Done: names.txt lists ada and grace.", USAGE),
      ]),
    );
    const { output, events, server } = trial;
    const report = output.report;

    expect(eventsOf(events, "trial_end")[0]).toMatchObject({ reason: "natural_stop", error: null, turns: 4 });
    expect(report.outcome).toBe("pass");
    expect(report.gates.map((gate) => gate.passed)).toEqual([true, true]);

    // Model turns: one per step, with the step's usage and OpenCode's cost (it prices this model).
    const responses = eventsOf(events, "model_response");
    expect(responses.map((r) => r.turn)).toEqual([1, 2, 3, 4]);
    expect(responses.map((r) => r.stop_reason)).toEqual(["tool_use", "tool_use", "tool_use", "end_turn"]);
    expect(responses[0]!.text).toBe("I will extract the names with jq.");
    expect(responses[3]!.text).toBe("Done: names.txt lists ada and grace.");
    for (const response of responses) {
      expect(response.usage).toEqual({
        input_tokens: 1200,
        output_tokens: 55,
        cache_read_tokens: 300,
        cache_write_tokens: 40,
      });
      expect(response.cost_usd).toBeGreaterThan(0);
    }
    const totalCost = responses.reduce((sum, r) => sum + (r.cost_usd ?? 0), 0);
    expect(report.execution.cost_usd).toBeCloseTo(totalCost, 10);

    // Bash calls: tool_call/tool_result pairs keyed by the API's tool_use ids.
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

    // The shim saw the real invocations of the target, with exit codes, and agrees with the stream.
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
      output_tokens: 220,
    });

    // Secrets: OpenCode (and so its bash tool) holds only the placeholder; the API got the real key.
    const envOutput = results[1]!.stdout;
    expect(envOutput).toContain(PLACEHOLDER_API_KEY);
    expect(envOutput).not.toContain(CANARY_KEY);
    expect(envOutput).toContain("OPENCODE_DISABLE_MODELS_FETCH=1");
    expect(trial.eventsText).not.toContain(CANARY_KEY);
    expect(trial.eventsText).not.toContain("[REDACTED]");
    const requests = server.messageRequests();
    expect(requests).toHaveLength(4);
    for (const request of server.requests) {
      expect(request.headers["x-api-key"]).toBe(CANARY_KEY);
      expect(JSON.stringify(request.headers)).not.toContain(PLACEHOLDER_API_KEY);
    }
    // Nothing tried to reach anywhere but the loopback proxy.
    expect(trials.trap().hits).toEqual([]);

    // What OpenCode was asked: the model, bash only, the harness's prompt, the guidance, the task.
    for (const request of requests) {
      expect(request.body.model).toBe(MODEL);
      expect(request.body.stream).toBe(true);
      expect(toolNames(request)).toEqual(["bash"]);
    }
    const system = JSON.stringify(requests[0]!.body.system);
    expect(system).toContain("You are working in a sandboxed directory");
    expect(system).toContain(trials.guidanceMarker);
    expect(JSON.stringify(requests[0]!.body.messages)).toContain(
      "Write the names from data.json to names.txt",
    );
  }, 120_000);

  it("runs a model its bundled list does not know, its cost then from the harness's price table", async () => {
    const trial = await runTrial(
      jqScenario({ evaluation: { gates: [] } }),
      openCodeScript([bash("true"), finalText("Done.")]),
      { model: "anthropic:claude-unlisted-9" },
    );
    expect(eventsOf(trial.events, "trial_end")[0]).toMatchObject({ reason: "natural_stop" });
    expect(trial.server.messageRequests().map((r) => r.body.model)).toEqual([
      "claude-unlisted-9",
      "claude-unlisted-9",
    ]);
    const responses = eventsOf(trial.events, "model_response");
    expect(responses.every((r) => r.cost_usd === undefined)).toBe(true);
    // Not in our price table either: unknown, never 0.
    expect(trial.output.report.execution.cost_usd).toBeNull();
  }, 120_000);
});

describe("opencode stream mapping", () => {
  function mapLines(lines: unknown[], exit = { exit_code: 0, stderr: "", timed_out: false }, maxTurns = 10) {
    const events: EventInput[] = [];
    let clock = 0;
    let limited = 0;
    const mapper = createOpenCodeStreamMapper({ emit: (event) => events.push(event) }, () => (clock += 10), {
      maxTurns,
      onTurnLimit: () => (limited += 1),
    });
    for (const line of lines) mapper.push(typeof line === "string" ? line : JSON.stringify(line));
    const outcome = mapper.finish(exit, new AbortController().signal);
    return { events, outcome, limited };
  }

  const part = (type: string, fields: Record<string, unknown>) => ({
    type,
    timestamp: 1,
    sessionID: "ses_1",
    part: { id: `prt_${type}`, sessionID: "ses_1", messageID: "msg_1", ...fields },
  });
  const stepStart = () => part("step_start", { type: "step-start" });
  const stepFinish = (reason: string, cost = 0) =>
    part("step_finish", {
      type: "step-finish",
      reason,
      tokens: { total: 20, input: 10, output: 3, reasoning: 2, cache: { read: 4, write: 1 } },
      cost,
    });
  const bashPart = (callID: string, command: string, state: Record<string, unknown>) =>
    part("tool_use", {
      type: "tool",
      tool: "bash",
      callID,
      state: { input: { command }, title: command, time: { start: 1000, end: 1250 }, ...state },
    });

  it("counts nothing OpenCode streams past the turn limit, however late the kill lands", () => {
    // maxTurns 1: the second step_start asks for the end; on a loaded machine the step's answer and
    // a finished call still arrive before the process dies. They are no turn, no response, no call.
    const { events, outcome, limited } = mapLines(
      [
        stepStart(),
        bashPart("toolu_1", "echo one", { status: "completed", output: "one\n", metadata: { exit: 0 } }),
        stepFinish("tool-calls"),
        stepStart(),
        part("text", { type: "text", text: "Next.", time: { start: 3, end: 4 } }),
        bashPart("toolu_2", "echo two", { status: "completed", output: "two\n", metadata: { exit: 0 } }),
        stepFinish("tool-calls"),
      ],
      { exit_code: 143, stderr: "", timed_out: false },
      1,
    );
    expect(limited).toBe(1);
    expect(outcome).toEqual({ reason: "turn_limit", turns: 1 });
    expect(events.filter((e) => e.type === "model_response")).toHaveLength(1);
    expect(
      events.filter((e) => e.type === "tool_call").map((e) => (e as { command: string }).command),
    ).toEqual(["echo one"]);
  });

  it("maps steps to turns, bash parts to calls with their exit status, and cost only when OpenCode priced the model", () => {
    const { events, outcome } = mapLines([
      stepStart(),
      part("text", { type: "text", text: "Looking.", time: { start: 1, end: 2 } }),
      bashPart("toolu_1", "ls; exit 2", {
        status: "completed",
        output: "a\n",
        metadata: { output: "a\n", exit: 2, truncated: false },
      }),
      stepFinish("tool-calls"),
      stepStart(),
      part("text", { type: "text", text: "Done.", time: { start: 3, end: 4 } }),
      stepFinish("stop", 0.25),
    ]);
    expect(outcome).toEqual({ reason: "natural_stop", turns: 2 });
    expect(events.map((event) => event.type)).toEqual([
      "model_response",
      "tool_call",
      "tool_result",
      "model_response",
    ]);
    const [first, second] = events.filter((event) => event.type === "model_response") as Extract<
      EventInput,
      { type: "model_response" }
    >[];
    expect(first).toMatchObject({ turn: 1, text: "Looking.", stop_reason: "tool_use" });
    expect(first!.cost_usd).toBeUndefined();
    expect(first!.usage).toEqual({
      input_tokens: 10,
      output_tokens: 5,
      cache_read_tokens: 4,
      cache_write_tokens: 1,
    });
    expect(first!.tool_uses).toEqual([{ id: "toolu_1", name: "bash", input: { command: "ls; exit 2" } }]);
    expect(second).toMatchObject({ turn: 2, text: "Done.", stop_reason: "end_turn", cost_usd: 0.25 });
    expect(events[1]).toEqual({ type: "tool_call", call_id: "toolu_1", turn: 1, command: "ls; exit 2" });
    expect(events[2]).toEqual({
      type: "tool_result",
      call_id: "toolu_1",
      stdout: "a\n",
      stderr: "",
      exit_code: 2,
      duration_ms: 250,
      truncated: false,
      timed_out: false,
    });
  });

  it("marks a call OpenCode timed out, leaves refused calls and other tools out of the shell's calls", () => {
    const { events } = mapLines([
      stepStart(),
      bashPart("toolu_1", "sleep 100", {
        status: "completed",
        output:
          "(no output)\n\n<shell_metadata>\nshell tool terminated command after exceeding timeout 1000 ms.\n</shell_metadata>",
        metadata: { output: "", exit: null, truncated: false },
      }),
      bashPart("toolu_2", "rm -rf /", { status: "error", error: "permission denied" }),
      part("tool_use", {
        type: "tool",
        tool: "read",
        callID: "toolu_3",
        state: { status: "completed", input: { filePath: "x" }, output: "text", metadata: {} },
      }),
      stepFinish("tool-calls"),
      stepStart(),
      stepFinish("stop"),
    ]);
    expect(events.filter((event) => event.type === "tool_call")).toEqual([
      { type: "tool_call", call_id: "toolu_1", turn: 1, command: "sleep 100" },
    ]);
    expect(events.find((event) => event.type === "tool_result")).toMatchObject({
      call_id: "toolu_1",
      exit_code: 124,
      timed_out: true,
    });
    expect(events).toContainEqual({
      type: "agent_output",
      text: "OpenCode's bash call failed: permission denied",
    });
    const response = events.find((event) => event.type === "model_response") as Extract<
      EventInput,
      { type: "model_response" }
    >;
    expect(response.tool_uses.map((use) => use.name)).toEqual(["bash", "bash", "read"]);
  });

  it("stamps a call when OpenCode says its command ran, kept within its step", () => {
    const stamps: [string, number | undefined][] = [];
    let wall = 10_000;
    const mapper = createOpenCodeStreamMapper(
      { emit: (event, at) => stamps.push([event.type, at]) },
      () => 0,
      { maxTurns: 10, onTurnLimit: () => undefined, wallClock: () => wall },
    );
    const call = (id: string, start: number, end: number) =>
      bashPart(id, "true", {
        status: "completed",
        output: "",
        metadata: { output: "", exit: 0, truncated: false },
        time: { start, end },
      });
    mapper.push(JSON.stringify(stepStart()));
    mapper.push(JSON.stringify(call("toolu_1", 10_100, 10_400)));
    wall = 10_500;
    mapper.push(JSON.stringify(stepFinish("tool-calls")));
    mapper.push(JSON.stringify(stepStart()));
    // A start reported before the previous step ended (a forged line, a skewed clock) is moved up to it.
    mapper.push(JSON.stringify(call("toolu_2", 3_000, 3_100)));
    mapper.push(JSON.stringify(stepFinish("tool-calls")));
    expect(stamps).toEqual([
      ["model_response", undefined],
      ["tool_call", 10_100],
      ["tool_result", 10_400],
      ["model_response", undefined],
      ["tool_call", 10_500],
      ["tool_result", 10_500],
    ]);
  });

  it("calls the turn limit once a step starts past it", () => {
    const lines = [stepStart(), stepFinish("tool-calls"), stepStart(), stepFinish("tool-calls"), stepStart()];
    const { outcome, limited, events } = mapLines(lines, { exit_code: 143, stderr: "", timed_out: false }, 2);
    expect(limited).toBe(1);
    // The step cut short had no answer yet: no response, no turn.
    expect(outcome).toEqual({ reason: "turn_limit", turns: 2 });
    expect(events.filter((event) => event.type === "model_response")).toHaveLength(2);
    // A step whose answer had arrived before the process died is still one.
    const cut = mapLines(
      [
        stepStart(),
        bashPart("toolu_1", "true", {
          status: "completed",
          output: "",
          metadata: { output: "", exit: 0, truncated: false },
        }),
      ],
      { exit_code: 137, stderr: "", timed_out: false },
    );
    expect(cut.outcome).toMatchObject({ reason: "agent_crash", turns: 1 });
    expect(cut.events.map((event) => event.type)).toEqual(["model_response", "tool_call", "tool_result"]);
  });

  it("maps the ways a run ends", () => {
    const apiError = mapLines(
      [
        {
          type: "error",
          timestamp: 1,
          sessionID: "ses_1",
          error: { name: "APIError", data: { message: "invalid x-api-key", statusCode: 401 } },
        },
      ],
      { exit_code: 1, stderr: "", timed_out: false },
    );
    expect(apiError.outcome).toEqual({
      reason: "infra_error",
      error: "the model API answered 401: invalid x-api-key",
      turns: 0,
    });
    expect(mapLines([]).outcome.reason).toBe("agent_crash");
    const unknown = mapLines([{ type: "something_new", x: 1 }, stepStart(), stepFinish("stop")]);
    expect(unknown.events[0]).toEqual({ type: "agent_output", text: '{"type":"something_new","x":1}' });
    expect(unknown.outcome.reason).toBe("natural_stop");
  });

  describeStreamMapperContract(
    "opencode",
    (lines, exit) => mapLines(lines, exit),
    (stderr) => `opencode exited with code 2; stderr: ${stderr}`,
  );
});

describe("opencode agent setup", () => {
  it("finds the devDependency's binary when no opencode is on PATH, and honours LLM_TOOL_TEST_OPENCODE_BIN", async () => {
    const found = resolveOpenCodeBinary({ PATH: "/nonexistent" });
    // Its TMPDIR is the test's folder: Bun unpacks files there.
    const version = execFileSync(found, ["--version"], {
      encoding: "utf8",
      env: {
        PATH: "/usr/bin:/bin",
        HOME: trials.dir,
        TMPDIR: trials.dir,
        XDG_CACHE_HOME: trials.dir,
        XDG_CONFIG_HOME: trials.dir,
      },
    });
    expect(version.trim()).toBe(OPENCODE_VERSION);
    const fake = path.join(trials.dir, "my-opencode");
    await writeFile(fake, "#!/bin/sh\n", { mode: 0o755 });
    expect(resolveOpenCodeBinary({ [OPENCODE_BIN_ENV]: fake, PATH: "/nonexistent" })).toBe(fake);
    expect(() => resolveOpenCodeBinary({ [OPENCODE_BIN_ENV]: path.join(trials.dir, "missing") })).toThrow(
      ConfigError,
    );
    expect(() => resolveOpenCodeBinary({ [OPENCODE_BIN_ENV]: path.join(trials.dir, "missing") })).toThrow(
      OPENCODE_BIN_ENV,
    );
  });

  it("pins the version `npm run install-opencode` installs (and .ci/run runs it)", async () => {
    const { readFile } = await import("node:fs/promises");
    const manifest = JSON.parse(await readFile(path.resolve("package.json"), "utf8"));
    expect(manifest.scripts["install-opencode"]).toContain(`${OPENCODE_PACKAGE}@${OPENCODE_VERSION}`);
    expect(await readFile(path.resolve(".ci/run"), "utf8")).toContain("npm run -s install-opencode");
    const installed = JSON.parse(
      await readFile(path.resolve("node_modules", OPENCODE_PACKAGE, "package.json"), "utf8"),
    );
    expect(installed.version).toBe(OPENCODE_VERSION);
  });

  it("says how to install OpenCode when it is nowhere", () => {
    let error: unknown = null;
    try {
      resolveOpenCodeBinary({ PATH: "/nonexistent" }, [trials.dir]);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain(`npm install -g ${OPENCODE_PACKAGE}@${OPENCODE_VERSION}`);
  });

  it("needs an API key", () => {
    expect(() => createAgent("opencode", { env: { PATH: "/usr/bin:/bin" } })).toThrow(/ANTHROPIC_API_KEY/);
  });

  it("passes the model under OpenCode's Anthropic provider, the task never as an argument, bash only by default", async () => {
    const test = await makeContext({
      model: "anthropic:claude-sonnet-4-5",
      maxTurns: 7,
      systemPrompt: "Be brief.",
    });
    trials.cleanups.push(test.dispose);
    const args = buildOpenCodeArgs(test.context);
    expect(args.slice(0, 3)).toEqual(["run", "--format", "json"]);
    expect(args[args.indexOf("--model") + 1]).toBe("anthropic/claude-sonnet-4-5");
    expect(args).not.toContain(test.context.task);
    const config = buildOpenCodeConfig(test.context, {
      proxyUrl: "http://127.0.0.1:9",
      stateDir: "/tmp/state",
      tools: ["bash"],
    });
    expect(config).toMatchObject({
      autoupdate: false,
      share: "disabled",
      enabled_providers: ["anthropic"],
      permission: { "*": "deny", bash: "allow" },
      instructions: ["/tmp/state/system-prompt.md"],
      provider: { anthropic: { options: { baseURL: "http://127.0.0.1:9/v1", apiKey: PLACEHOLDER_API_KEY } } },
    });
    expect(JSON.stringify(config)).not.toContain(CANARY_KEY);
  });
});
