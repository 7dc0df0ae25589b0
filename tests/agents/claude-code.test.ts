/**
 * The claude-code agent with the real `claude` binary (the devDependency), through the shared
 * agent-CLI scaffold (tests/support/agent-cli-trials.ts: the real trial harness against the scripted
 * Messages API on 127.0.0.1 behind the credential proxy, a trap proxy for anything else). The
 * contract runs what every agent CLI shares; this file keeps what is Claude Code's own.
 */
import { execFileSync } from "node:child_process";
import { mkdir, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  buildClaudeArgs,
  CLAUDE_BIN_ENV,
  CLAUDE_PREPARE_SCRIPT,
  createClaudeStreamMapper,
  resolveClaudeBinary,
} from "../../src/agents/claude-code.js";
import { PLACEHOLDER_API_KEY } from "../../src/agents/credential-proxy.js";
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
  bashCall,
  finalText,
  type ModelServer,
  messagesApiWire,
  type RecordedRequest,
  type ScriptedReply,
  type ScriptedUsage,
  toolUse,
} from "../support/model-server.js";
import { eventsOf } from "../support/single-trial.js";
import { makeContext } from "./agent-context.js";

const CANARY_KEY = "sk-ant-canary-claude-code-9a8b7c6d5e4f";
const MODEL = "claude-haiku-4-5";

function bash(command: string, usage?: ScriptedUsage): ScriptedReply {
  return bashCall(command, { name: "Bash", ...(usage ? { usage } : {}) });
}

const claudeWire: AgentCliWire<ScriptedReply, RecordedRequest, ModelServer> = {
  agent: "claude-code",
  model: MODEL,
  canaryKey: CANARY_KEY,
  // The CLAUDE.md link and Claude Code's own files do not stay in the work dir.
  ownFilesAbsent: "test ! -e CLAUDE.md && test -f AGENTS.md && test ! -e .claude && test ! -e .claude.json",
  ...messagesApiWire("Bash"),
  createAgent: (server, options) =>
    createAgent("claude-code", {
      apiKey: CANARY_KEY,
      baseURL: server.url,
      // No claude on this PATH: the devDependency's binary is found.
      env: { PATH: "/usr/bin:/bin" },
      claudeCode: {
        ...(options.maxRetries !== undefined ? { maxRetries: options.maxRetries } : {}),
        ...(options.maxApiRequests !== undefined ? { maxApiRequests: options.maxApiRequests } : {}),
      },
    }),
};

const trials = useAgentCliTrials(claudeWire);
const { jqScenario, runTrial } = trials;
const claudeScript = claudeWire.script;

/** A call of a tool Claude Code does not offer. */
const WRITE: ScriptedReply = {
  kind: "message",
  content: [toolUse({ file_path: "names.txt", content: "ada\n" }, "Write")],
  stop_reason: "tool_use",
};

/** A Bash run in the background, whose calls go on after its result; the next call waits for its end. */
const BACKGROUND: ScriptedReply = {
  kind: "message",
  content: [
    toolUse(
      {
        command:
          "sleep 1; jq -r '.[0].name' data.json; jq -r '.[1].name' data.json; jq -r '.[' data.json; touch done",
        run_in_background: true,
      },
      "Bash",
    ),
  ],
  stop_reason: "tool_use",
};

const { honestRun } = describeAgentCliContract(trials, {
  envShows: [`ANTHROPIC_API_KEY=${PLACEHOLDER_API_KEY}`, /ANTHROPIC_BASE_URL=http:\/\/127\.0\.0\.1:\d+/],
  exactRequests: false,
  honest: {
    // The pattern misses `jq --help` and `--indent`: counted all the same and reported.
    target: { globalOptions: ["--indent"] },
    replies: [
      bash("jq --help | head -1"),
      bash("jq --indent 4 . data.json"),
      WRITE,
      BACKGROUND,
      bash("until [ -e done ]; do sleep 0.1; done"),
    ],
    invocations: 5,
    errors: 1,
    misses: ["jq --help", "jq --indent 4 . data.json"],
  },
  showsRunningCall: true,
  apiError: {
    reply: { kind: "error", status: 401, type: "authentication_error", message: "invalid x-api-key" },
    says: "401",
    options: { maxRetries: 1 },
    // Its retry is in the events as the API's error, bounded by maxRetries.
    checks: (trial) =>
      expect(eventsOf(trial.events, "model_error").map((e) => [e.status, e.attempt])).toEqual([[401, 1]]),
  },
});

describe.each(AGENT_CLI_SANDBOXES)("claude-code's own calls in the honest run (%s)", (sandbox) => {
  it(
    "counts --help as help, and reads --indent's value as no filter",
    async () => {
      const report = (await honestRun(sandbox)).output.report;
      expect(report.interaction).toMatchObject({ help_invocations: 1 });
      // `--indent`'s value is not the filter: `.` twice, no `4`.
      expect(report.by_subcommand?.["."]?.total_commands).toBe(2);
      expect(report.by_subcommand?.["4"]).toBeUndefined();
    },
    HONEST_RUN_TEST_TIMEOUT_MS,
  );

  it(
    "records a call of a tool Claude Code does not offer (Write) as a refused tool call",
    async () => {
      const trial = await honestRun(sandbox);
      const calls = eventsOf(trial.events, "tool_call");
      const write = calls.filter((call) => call.tool !== undefined);
      expect(write.map((call) => call.tool)).toEqual(["Write"]);
      const result = eventsOf(trial.events, "tool_result").find((r) => r.call_id === write[0]!.call_id);
      expect(result).toMatchObject({ exit_code: 1, not_run: true });
      expect(result!.stderr).toMatch(/No such tool/);
      // Shell calls: 6 shared (7 in bwrap) and 4 of its own; failed: two of jq's and the Write.
      expect(calls).toHaveLength(sandbox === "bwrap" ? 12 : 11);
      expect(trial.output.report.execution).toMatchObject({ tool_calls: calls.length, tool_calls_error: 3 });
    },
    HONEST_RUN_TEST_TIMEOUT_MS,
  );

  it(
    "counts the calls of a Bash run in the background, which go on after its result",
    async () => {
      const trial = await honestRun(sandbox);
      const background = eventsOf(trial.events, "tool_call").find((call) =>
        call.command.includes("touch done"),
      );
      expect(
        eventsOf(trial.events, "tool_result").find((r) => r.call_id === background?.call_id),
      ).toMatchObject({
        background: true,
      });
      // Its three calls of jq (one failing) are among the invocations the contract counts exactly.
      const invocations = eventsOf(trial.events, "target_invocation").map((i) => i.argv.join(" "));
      expect(invocations.slice(-3)).toEqual([
        "jq -r .[0].name data.json",
        "jq -r .[1].name data.json",
        "jq -r .[ data.json",
      ]);
    },
    HONEST_RUN_TEST_TIMEOUT_MS,
  );
});

const USAGE = {
  input_tokens: 1200,
  output_tokens: 55,
  cache_read_input_tokens: 300,
  cache_creation_input_tokens: 40,
};

describe("claude-code agent with the real claude binary", () => {
  it("drives Claude Code through a scenario: turns, Bash calls, shim invocations, gates, no key in its env", async () => {
    const trial = await runTrial(
      jqScenario(),
      claudeScript([
        {
          kind: "message",
          content: [
            { type: "text", text: "I will extract the names with jq." },
            { type: "tool_use", name: "Bash", input: { command: "jq -r '.[].name' data.json > names.txt" } },
          ],
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

    // Model turns: one per API message, with the exact usage of the streamed message.
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
    }
    // The run's reported cost rides on the last response only.
    expect(responses.slice(0, 3).every((r) => r.cost_usd === undefined)).toBe(true);
    expect(responses[3]!.cost_usd).toBeGreaterThan(0);
    expect(report.execution.cost_usd).toBe(responses[3]!.cost_usd);

    // Bash calls: tool_call/tool_result pairs keyed by the tool_use ids.
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
    expect(results[2]!.stdout + results[2]!.stderr).toMatch(/jq: error/);

    // The shim saw the real invocations of the target, with exit codes.
    const invocations = eventsOf(events, "target_invocation");
    expect(invocations.map((i) => i.argv)).toEqual([
      ["jq", "-r", ".[].name", "data.json"],
      ["jq", "-r", ".[", "data.json"],
    ]);
    expect(invocations.map((i) => i.exit_code)).toEqual([0, 3]);
    expect(report.invocation_source).toBe("shim");
    expect(report.interaction).toMatchObject({ total_commands: 2, error_count: 1, completed: true });
    expect(report.execution).toMatchObject({
      turns: 4,
      tool_calls: 3,
      tool_calls_error: 1,
      natural_stop: true,
      output_tokens: 220,
    });

    // Secrets: Claude Code (and so its Bash tool) holds only the placeholder; the API got the real key.
    const envOutput = results[1]!.stdout;
    expect(envOutput).toContain(`ANTHROPIC_API_KEY=${PLACEHOLDER_API_KEY}`);
    expect(envOutput).toMatch(/ANTHROPIC_BASE_URL=http:\/\/127\.0\.0\.1:\d+/);
    expect(envOutput).not.toContain(CANARY_KEY);
    expect(trial.eventsText).not.toContain(CANARY_KEY);
    expect(trial.eventsText).not.toContain("[REDACTED]");
    const messageRequests = server.messageRequests();
    expect(messageRequests.length).toBeGreaterThanOrEqual(4);
    for (const request of server.requests) {
      expect(request.headers["x-api-key"]).toBe(CANARY_KEY);
      expect(JSON.stringify(request.headers)).not.toContain(PLACEHOLDER_API_KEY);
    }
    // Nothing tried to reach anywhere but the loopback proxy.
    expect(trials.trap().hits).toEqual([]);

    // What Claude Code was asked: the model, Bash only, the harness's prompt, the guidance, the task.
    const main = messageRequests.filter(claudeWire.isMainLoop);
    expect(main).toHaveLength(4);
    for (const request of main) {
      expect(request.body.model).toBe(MODEL);
      expect(request.body.tools.map((tool: { name: string }) => tool.name)).toEqual(["Bash"]);
    }
    const firstRequest = JSON.stringify(main[0]!.body);
    expect(JSON.stringify(main[0]!.body.system)).toContain("You are working in a sandboxed directory");
    expect(firstRequest).toContain(trials.guidanceMarker);
    expect(firstRequest).toContain("Write the names from data.json to names.txt");

    expect(eventsOf(events, "agent_output")[0]!.text).toMatch(
      /^Claude Code \S+ started: model claude-haiku-4-5, tools Bash/,
    );
  }, 120_000);

  it("ends at the proxy's request cap, the refusal in its events and the reason in its end", async () => {
    const trial = await runTrial(
      jqScenario({ evaluation: { gates: [] } }),
      claudeScript([bash("echo one"), bash("echo two"), bash("echo three"), finalText("done")]),
      { maxApiRequests: 2, maxRetries: 0 },
    );
    expect(trial.server.requests.length).toBeLessThanOrEqual(2);
    const refusals = eventsOf(trial.events, "model_error").filter((e) => e.status === 403);
    expect(refusals.length).toBeGreaterThan(0);
    expect(refusals[0]!.message).toContain("cap of 2 API requests");
    const end = eventsOf(trial.events, "trial_end")[0]!;
    expect(end.reason).not.toBe("natural_stop");
    expect(end.error).toContain("cap of 2 API requests");
  }, 120_000);
});

describe("claude-code stream mapping", () => {
  function mapLines(lines: unknown[], exit = { exit_code: 0, stderr: "", timed_out: false }) {
    const events: EventInput[] = [];
    let clock = 0;
    const mapper = createClaudeStreamMapper({ emit: (event) => events.push(event) }, () => (clock += 10));
    for (const line of lines) mapper.push(typeof line === "string" ? line : JSON.stringify(line));
    const outcome = mapper.finish(exit, new AbortController().signal);
    return { events, outcome };
  }

  const usage = {
    input_tokens: 10,
    output_tokens: 3,
    cache_read_input_tokens: 0,
    cache_creation_input_tokens: 0,
  };

  it("counts lines that share a message id as one turn, and takes its usage from the assistant lines without partial messages", () => {
    const { events, outcome } = mapLines([
      { type: "system", subtype: "init", model: "m", tools: ["Bash"], claude_code_version: "9.9" },
      { type: "assistant", message: { id: "msg_a", content: [{ type: "text", text: "Looking." }], usage } },
      {
        type: "assistant",
        message: {
          id: "msg_a",
          content: [{ type: "tool_use", id: "tu_1", name: "Bash", input: { command: "ls" } }],
          usage,
        },
      },
      {
        type: "user",
        message: {
          content: [{ type: "tool_result", tool_use_id: "tu_1", content: "a\nb", is_error: false }],
        },
        tool_use_result: { stdout: "a\nb", stderr: "warn", interrupted: false },
      },
      { type: "assistant", message: { id: "msg_b", content: [{ type: "text", text: "Done." }], usage } },
      { type: "result", subtype: "success", is_error: false, num_turns: 2, total_cost_usd: 0.25 },
    ]);
    expect(outcome).toEqual({ reason: "natural_stop", turns: 2 });
    expect(events.map((event) => event.type)).toEqual([
      "agent_output",
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
    expect(first!.tool_uses).toEqual([{ id: "tu_1", name: "Bash", input: { command: "ls" } }]);
    expect(first!.usage.output_tokens).toBe(3);
    expect(second).toMatchObject({ turn: 2, text: "Done.", cost_usd: 0.25 });
    expect(events[3]).toMatchObject({
      type: "tool_result",
      call_id: "tu_1",
      stdout: "a\nb",
      stderr: "warn",
      exit_code: 0,
    });
  });

  it("reads exit codes from failed Bash results, reports API retries, and records other tools' calls as their own kind", () => {
    const { events } = mapLines([
      {
        type: "assistant",
        message: {
          id: "msg_a",
          content: [
            { type: "tool_use", id: "tu_1", name: "Bash", input: { command: "false" } },
            { type: "tool_use", id: "tu_2", name: "Read", input: { file_path: "x" } },
          ],
          usage,
        },
      },
      {
        type: "user",
        message: {
          content: [
            { type: "tool_result", tool_use_id: "tu_1", content: "Exit code 2\nboom", is_error: true },
            { type: "tool_result", tool_use_id: "tu_2", content: "file text" },
          ],
        },
        tool_use_result: "Error: Exit code 2\nboom",
      },
      {
        type: "system",
        subtype: "api_retry",
        attempt: 1,
        retry_delay_ms: 512.4,
        error_status: 529,
        error: "overloaded",
      },
      { type: "result", subtype: "success", is_error: false, num_turns: 1 },
    ]);
    expect(events.filter((event) => event.type === "tool_call")).toEqual([
      { type: "tool_call", call_id: "tu_1", turn: 1, command: "false" },
      { type: "tool_call", call_id: "tu_2", turn: 1, command: 'Read {"file_path":"x"}', tool: "Read" },
    ]);
    expect(events.filter((event) => event.type === "tool_result")[1]).toMatchObject({
      call_id: "tu_2",
      stdout: "file text",
      exit_code: 0,
    });
    expect(events.find((event) => event.type === "tool_result")).toMatchObject({
      call_id: "tu_1",
      stdout: "boom",
      exit_code: 2,
    });
    expect(events.find((event) => event.type === "model_error")).toEqual({
      type: "model_error",
      turn: 2,
      attempt: 1,
      status: 529,
      message: "overloaded",
      will_retry: true,
      retry_after_ms: 512,
    });
  });

  it("maps the ways a run ends", () => {
    const result = (fields: Record<string, unknown>) => ({ type: "result", num_turns: 1, ...fields });
    expect(
      mapLines([result({ subtype: "error_max_turns", is_error: true })], {
        exit_code: 1,
        stderr: "",
        timed_out: false,
      }).outcome.reason,
    ).toBe("turn_limit");
    const crashed = mapLines(
      [result({ subtype: "error_during_execution", is_error: true, errors: ["tool exploded"] })],
      {
        exit_code: 1,
        stderr: "trace",
        timed_out: false,
      },
    ).outcome;
    expect(crashed.reason).toBe("agent_crash");
    expect(crashed.error).toContain("tool exploded");
    expect(crashed.error).toContain("stderr: trace");
    // success with a non-zero exit is not a natural stop
    expect(
      mapLines([result({ subtype: "success", is_error: false })], {
        exit_code: 1,
        stderr: "",
        timed_out: false,
      }).outcome.reason,
    ).toBe("agent_crash");
  });

  describeStreamMapperContract(
    "claude-code",
    mapLines,
    (stderr) => `claude exited with code 2 without a result line; stderr: ${stderr}`,
  );
});

describe("claude-code agent setup", () => {
  it("finds the devDependency's binary when no claude is on PATH, and honours LLM_TOOL_TEST_CLAUDE_BIN", async () => {
    const found = resolveClaudeBinary({ PATH: "/nonexistent" });
    expect(execFileSync(found, ["--version"], { encoding: "utf8" })).toMatch(/Claude Code/);
    const fake = path.join(trials.dir, "my-claude");
    await writeFile(fake, "#!/bin/sh\n", { mode: 0o755 });
    expect(resolveClaudeBinary({ [CLAUDE_BIN_ENV]: fake, PATH: "/nonexistent" })).toBe(fake);
    expect(() => resolveClaudeBinary({ [CLAUDE_BIN_ENV]: path.join(trials.dir, "missing") })).toThrow(
      ConfigError,
    );
    expect(() => resolveClaudeBinary({ [CLAUDE_BIN_ENV]: path.join(trials.dir, "missing") })).toThrow(
      CLAUDE_BIN_ENV,
    );
  });

  it("says how to install Claude Code when it is nowhere", () => {
    const error = (() => {
      try {
        resolveClaudeBinary({ PATH: "/nonexistent" }, [trials.dir]);
      } catch (caught) {
        return caught;
      }
      return null;
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain("npm install -g @anthropic-ai/claude-code");
  });

  it("needs an API key", () => {
    expect(() => createAgent("claude-code", { env: { PATH: "/usr/bin:/bin" } })).toThrow(/ANTHROPIC_API_KEY/);
  });

  it("links CLAUDE.md to AGENTS.md, or says AGENTS.md is shadowed by a CLAUDE.md of the work dir's own", async () => {
    /** The prepare script's answer in a work dir holding `files` (a string: a file; `{ link }`: a symbolic link). */
    async function prepare(name: string, files: Record<string, string | { link: string }>) {
      const work = path.join(trials.dir, `prepare-${name}`);
      await mkdir(work);
      for (const [file, content] of Object.entries(files)) {
        if (typeof content === "string") await writeFile(path.join(work, file), content);
        else await symlink(content.link, path.join(work, file));
      }
      const stdout = execFileSync("bash", ["-c", CLAUDE_PREPARE_SCRIPT], {
        cwd: work,
        env: { PATH: "/usr/bin:/bin", TMPDIR: trials.dir },
        encoding: "utf8",
      });
      const [linked, , shadowed] = stdout.split("\n");
      return { linked, shadowed };
    }
    expect(await prepare("agents-only", { "AGENTS.md": "use --json" })).toEqual({
      linked: "1",
      shadowed: "0",
    });
    expect(await prepare("own", { "AGENTS.md": "use --json", "CLAUDE.md": "my rules" })).toEqual({
      linked: "0",
      shadowed: "1",
    });
    // A CLAUDE.md that imports AGENTS.md, or links to it, shows it.
    expect(await prepare("imports", { "AGENTS.md": "use --json", "CLAUDE.md": "See @AGENTS.md\n" })).toEqual({
      linked: "0",
      shadowed: "0",
    });
    expect(await prepare("links", { "AGENTS.md": "use --json", "CLAUDE.md": { link: "AGENTS.md" } })).toEqual(
      { linked: "0", shadowed: "0" },
    );
    expect(await prepare("no-guidance", { "CLAUDE.md": "my rules" })).toEqual({ linked: "0", shadowed: "0" });
  });

  it("passes the model, turn limit, tools and the harness's system prompt", async () => {
    const test = await makeContext({ model: "claude-sonnet-4-5", maxTurns: 7, systemPrompt: "Be brief." });
    trials.cleanups.push(test.dispose);
    const args = buildClaudeArgs(test.context, ["Bash", "Read"]);
    expect(args).toEqual(
      expect.arrayContaining([
        "-p",
        "--output-format",
        "stream-json",
        "--verbose",
        "--include-partial-messages",
      ]),
    );
    expect(args[args.indexOf("--model") + 1]).toBe("claude-sonnet-4-5");
    expect(args[args.indexOf("--max-turns") + 1]).toBe("7");
    expect(args).toContain("--tools=Bash,Read");
    expect(args[args.indexOf("--append-system-prompt") + 1]).toBe("Be brief.");
    // The task goes on stdin, never as an argument that could be read as an option.
    expect(args).not.toContain(test.context.task);
  });
});
