/**
 * The codex agent with the real `codex` binary (the devDependency), through the shared agent-CLI
 * scaffold (tests/support/agent-cli-trials.ts: the real trial harness against a scripted streaming
 * Responses API on 127.0.0.1 behind the credential proxy, a trap proxy for anything else). The
 * contract runs what every agent CLI shares; this file keeps what is Codex's own.
 */
import { execFileSync } from "node:child_process";
import { mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  CODEX_BIN_ENV,
  CODEX_PACKAGE,
  CODEX_VERSION,
  createAnswerReader,
  createCodexStreamMapper,
  findShadowingHelper,
  resolveCodexBinary,
  splitShellWords,
  unwrapShellCommand,
} from "../../src/agents/codex.js";
import { PLACEHOLDER_API_KEY } from "../../src/agents/credential-proxy.js";
import { createAgent } from "../../src/agents/registry.js";
import { ConfigError } from "../../src/errors.js";
import type { Report } from "../../src/results/types.js";
import { checkModelProviders } from "../../src/run/prepare.js";
import type { EventInput } from "../../src/transcript/events.js";
import { runMain } from "../cli/run-main.js";
import {
  AGENT_CLI_SANDBOXES,
  type AgentCliWire,
  describeAgentCliContract,
  describeStreamMapperContract,
  HONEST_RUN_TEST_TIMEOUT_MS,
  useAgentCliTrials,
} from "../support/agent-cli-trials.js";
import { reachableProgramEnv } from "../support/reachable-copy.js";
import {
  answerText,
  type ResponsesReply,
  type ResponsesServer,
  responsesScript,
  runCommand,
  startResponsesServer,
} from "../support/responses-stream-server.js";
import { makeScenario } from "../support/scenario-factory.js";
import { eventsOf } from "../support/single-trial.js";
import { makeContext } from "./agent-context.js";

const CANARY_KEY = "sk-proj-canary-codex-1f2e3d4c5b6a";
const MODEL = "openai:gpt-5.2";

type ResponsesRequest = ResponsesServer["requests"][number];

const codexWire: AgentCliWire<ResponsesReply, ResponsesRequest, ResponsesServer> = {
  agent: "codex",
  model: MODEL,
  canaryKey: CANARY_KEY,
  // Codex's own files do not land in the work dir.
  ownFilesAbsent: "test ! -e .codex && test -f AGENTS.md",
  startServer: (respond) => startResponsesServer((request) => respond(request) as ResponsesReply),
  createAgent: (server, options) =>
    createAgent("codex", {
      openaiApiKey: CANARY_KEY,
      openaiBaseURL: server.url,
      // No codex on this PATH: the devDependency's binary is found.
      env: { PATH: "/usr/bin:/bin" },
      codex: {
        maxRetries: options.maxRetries ?? 0,
        ...(options.maxApiRequests !== undefined ? { maxApiRequests: options.maxApiRequests } : {}),
      },
    }),
  // Codex asks for nothing but its turns.
  isMainLoop: () => true,
  script: responsesScript,
  shell: (command) => runCommand(command),
  text: (text) => answerText(text),
  keyOf: (request) => request.headers.authorization?.replace(/^Bearer /, ""),
};

const trials = useAgentCliTrials(codexWire);
const { jqScenario, runTrial } = trials;

const PATCH = "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: notes.txt\n+hello\n*** End Patch\nEOF";
const LOGIN_SHELL_CALL = "jq -r '.[0].name' data.json";
const YIELDED_CALL = "sleep 30; jq -r '.[0].name' data.json";

const { honestRun } = describeAgentCliContract(trials, {
  envShows: [/CODEX_HOME=\S*codex-home/],
  exactRequests: true,
  honest: {
    replies: [
      runCommand(PATCH),
      runCommand("cat notes.txt"),
      // A login shell's profile would reset PATH past the shim: Codex refuses it.
      { kind: "answer", commands: [{ cmd: LOGIN_SHELL_CALL, login: true }] },
      // Codex answers at its yield time with the command still running; the run ends before it does.
      { kind: "answer", commands: [{ cmd: YIELDED_CALL, yield_time_ms: 250 }] },
    ],
    gates: [{ type: "file_contains", path: "notes.txt", substring: "hello", weight: 1 }],
    // None of its own calls runs jq: the login shell is refused, the yielded call never gets there.
    invocations: 0,
    errors: 0,
    misses: [],
  },
  // Codex hands a command back to the model after its yield time (10 s by default): asked to wait
  // 60 s, it still handed it back before a 45 s timeout (a cap of its own), so the contract's
  // script asks for the call again.
  longShell: (command) => ({ kind: "answer" as const, commands: [{ cmd: command, yield_time_ms: 60_000 }] }),
  showsRunningCall: true,
  apiError: {
    reply: { kind: "error", status: 401, message: "Incorrect API key provided" },
    says: "Incorrect API key provided",
    checks: (trial) => expect(eventsOf(trial.events, "model_error").length).toBeGreaterThan(0),
  },
  turnLimit: {
    // The proxy refuses the answer past the limit.
    checks: (trial) => {
      expect(trial.server.requests).toHaveLength(2);
      expect(eventsOf(trial.events, "tool_result").map((r) => r.stdout)).toEqual(["one\n", "two\n"]);
      const refusal = eventsOf(trial.events, "model_error").find((e) => e.status === 403);
      expect(refusal?.message).toContain("limit of 2 model turns");
      // Codex reports no tokens for a failed run; the answers' own usage still counts, and prices.
      expect(trial.output.report.execution).toMatchObject({ input_tokens: 200, output_tokens: 20 });
      expect(trial.output.report.execution.cost_usd).toBeGreaterThan(0);
    },
  },
});

describe.each(AGENT_CLI_SANDBOXES)("codex's own paths in the honest run, counted exactly (%s)", (sandbox) => {
  it(
    "counts an apply_patch as a tool call of its own kind, with its result, and ends on an end_turn answer",
    async () => {
      const trial = await honestRun(sandbox);
      const patches = eventsOf(trial.events, "tool_call").filter((call) => call.tool !== undefined);
      expect(patches.map((call) => call.tool)).toEqual(["apply_patch"]);
      expect(patches[0]!.command).toMatch(/^apply_patch: add .*notes\.txt$/);
      const results = eventsOf(trial.events, "tool_result");
      expect(results.find((r) => r.call_id === patches[0]!.call_id)?.exit_code).toBe(0);
      const responses = eventsOf(trial.events, "model_response");
      const asked = responses.find((r) => r.tool_uses.some((use) => use.id === patches[0]!.call_id));
      expect(asked?.tool_uses.map((use) => use.name)).toEqual(["apply_patch"]);
      expect(asked?.stop_reason).toBe("tool_use");
      expect(responses.at(-1)!.stop_reason).toBe("end_turn");
      // Every answer that ran a tool asked for it (the refused login shell's answer ran none).
      const stops = responses.map((r) => [r.stop_reason, r.tool_uses.map((use) => use.name).join(",")]);
      expect(
        responses.filter((r) => r.tool_uses.length > 0).every((r) => r.stop_reason === "tool_use"),
        JSON.stringify(stops),
      ).toBe(true);
      // What it wrote is there for the next command (and the notes.txt gate, which the contract checks).
      const cat = eventsOf(trial.events, "tool_call").find((call) => call.command === "cat notes.txt");
      expect(results.find((r) => r.call_id === cat?.call_id)?.stdout).toBe("hello\n");
    },
    HONEST_RUN_TEST_TIMEOUT_MS,
  );

  it(
    "refuses the model's request for a login shell, whose profile would reset PATH past the shim",
    async () => {
      const trial = await honestRun(sandbox);
      // Codex refuses the call before running anything (and reports no item for it): jq never ran.
      // The last request holds the whole conversation: the refusal is in it once.
      const refused = (trial.server.requests.at(-1)!.body.input as { type: string; output?: unknown }[])
        .filter((item) => item.type === "function_call_output")
        .map((item) => JSON.stringify(item.output));
      expect(refused.filter((output) => output.includes("login shell is disabled by config"))).toHaveLength(
        1,
      );
      expect(eventsOf(trial.events, "tool_call").map((call) => call.command)).not.toContain(LOGIN_SHELL_CALL);
    },
    HONEST_RUN_TEST_TIMEOUT_MS,
  );

  it(
    "closes a command still running when the run ended (Codex answered at its yield_time_ms) as a background run",
    async () => {
      const trial = await honestRun(sandbox);
      const calls = eventsOf(trial.events, "tool_call");
      const yielded = calls.filter((call) => call.command === YIELDED_CALL);
      expect(yielded).toHaveLength(1);
      const results = eventsOf(trial.events, "tool_result").filter((r) => r.call_id === yielded[0]!.call_id);
      expect(results).toEqual([expect.objectContaining({ exit_code: 1, background: true })]);
      expect(results[0]!.stderr).toMatch(/no end of this command/);
      // Shell calls: 6 shared (7 in bwrap), the patch, `cat` and the yielded one; failed: two of jq's
      // and the yielded one. Its jq never ran: the contract's exact counts hold nothing of it.
      expect(calls).toHaveLength(sandbox === "bwrap" ? 10 : 9);
      expect(trial.output.report.execution).toMatchObject({
        tool_calls: calls.length,
        tool_calls_ok: calls.length - 3,
      });
    },
    HONEST_RUN_TEST_TIMEOUT_MS,
  );
});

const USAGE = { input_tokens: 1000, cached_tokens: 200, output_tokens: 50 };

describe("codex agent with the real codex binary", () => {
  it("drives Codex through a scenario: turns, commands with exit codes, shim invocations, gates, no key in its env", async () => {
    const trial = await runTrial(
      jqScenario(),
      responsesScript([
        {
          kind: "answer",
          text: "I will extract the names with jq.",
          commands: ["jq -r '.[].name' data.json > names.txt"],
          usage: USAGE,
        },
        runCommand("env", USAGE),
        runCommand("jq -r '.[' data.json", USAGE),
        answerText("Done: names.txt lists ada and grace.", USAGE),
      ]),
    );
    const { output, events, server } = trial;
    const report = output.report;

    expect(eventsOf(events, "trial_end")[0]).toMatchObject({ reason: "natural_stop", error: null, turns: 4 });
    expect(report.outcome).toBe("pass");
    expect(report.gates.map((gate) => gate.passed)).toEqual([true, true]);

    // One model turn per answer of the API, each with its own usage (read by the proxy).
    const responses = eventsOf(events, "model_response");
    expect(responses.map((r) => r.turn)).toEqual([1, 2, 3, 4]);
    expect(responses.map((r) => r.stop_reason)).toEqual(["tool_use", "tool_use", "tool_use", "end_turn"]);
    expect(responses[0]!.text).toBe("I will extract the names with jq.");
    expect(responses[3]!.text).toBe("Done: names.txt lists ada and grace.");
    for (const response of responses) {
      expect(response.usage).toEqual({
        input_tokens: 800,
        output_tokens: 50,
        cache_read_tokens: 200,
        cache_write_tokens: 0,
      });
      expect(response.cost_usd).toBeUndefined();
    }

    // Commands: the model's own, with their exit codes, paired with the response that asked.
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

    // The shim saw the real invocations of the target, with exit codes.
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
      input_tokens: 3200,
      output_tokens: 200,
      cache_read_tokens: 800,
    });

    // Secrets: Codex's commands never see the real key; the API got it, in place of the placeholder.
    const envOutput = results[1]!.stdout;
    expect(envOutput).not.toContain(CANARY_KEY);
    expect(envOutput).toMatch(/CODEX_HOME=\S*codex-home/);
    expect(trial.eventsText).not.toContain(CANARY_KEY);
    expect(trial.eventsText).not.toContain("[REDACTED]");
    expect(server.requests).toHaveLength(4);
    for (const request of server.requests) {
      expect(request.path).toBe("/v1/responses");
      // Codex asks for a compressed answer; the proxy asks the API for a plain one, to read its usage.
      expect(request.headers["accept-encoding"]).toBeUndefined();
      expect(request.headers.authorization).toBe(`Bearer ${CANARY_KEY}`);
      expect(JSON.stringify(request.headers)).not.toContain(PLACEHOLDER_API_KEY);
    }
    // Nothing tried to reach anywhere but the loopback proxy.
    expect(trials.trap().hits).toEqual([]);

    // What Codex was asked: the model without its provider prefix, a shell tool, no web search,
    // the harness's prompt, the guidance (AGENTS.md, which Codex reads itself), the task.
    const first = server.requests[0]!.body;
    expect(first.model).toBe("gpt-5.2");
    const tools = first.tools.map((tool: { name?: string; type: string }) => tool.name ?? tool.type);
    expect(tools).toContain("exec_command");
    expect(tools).not.toContain("web_search");
    const firstText = JSON.stringify(first.input);
    expect(firstText).toContain("You are working in a sandboxed directory");
    expect(firstText).toContain(trials.guidanceMarker);
    expect(firstText).toContain("Write the names from data.json to names.txt");
    expect(eventsOf(events, "agent_output")[0]!.text).toMatch(/^Codex started: thread \S+/);
  }, 120_000);
});

describe("codex in a model matrix, through the CLI", () => {
  it("asks Codex for each model of --model A,B and prices each from its tokens", async () => {
    const server = await startResponsesServer((request) => {
      const script = responsesScript([
        runCommand("jq -r '.[].name' data.json > names.txt", USAGE),
        answerText(`Done with ${request.body.model}.`, USAGE),
      ]);
      return script(request);
    });
    trials.cleanups.push(() => server.close());
    const suite = path.join(trials.dir, "matrix-suite");
    await mkdir(suite);
    await writeFile(
      path.join(suite, "names.yaml"),
      [
        "name: names",
        "task: Write the names from data.json to names.txt, one per line.",
        "files:",
        `  data.json: '[{"name":"ada"},{"name":"grace"}]'`,
        "target:",
        "  binary: jq",
        "evaluation:",
        "  gates:",
        "    - type: file_contains",
        "      path: names.txt",
        '      substring: "ada\\ngrace"',
        "",
      ].join("\n"),
    );
    const out = path.join(trials.dir, "matrix-out");
    const result = await runMain(
      [
        "run",
        suite,
        "--agent",
        "codex",
        "--model",
        "openai:gpt-5.2,openai:gpt-5-mini",
        "--trials",
        "1",
        "--sandbox",
        "local",
        "--out",
        out,
        "-q",
      ],
      {
        env: {
          OPENAI_API_KEY: CANARY_KEY,
          OPENAI_BASE_URL: server.url,
          ...trials.trapEnv(),
          // The agent's account runs it: a copy where it cannot reach this checkout.
          ...reachableProgramEnv(CODEX_BIN_ENV, resolveCodexBinary({ PATH: "/nonexistent" })),
        },
      },
    );
    expect(result.stderr).not.toMatch(/error/i);
    expect(result.code).toBe(0);
    const report = JSON.parse(await readFile(path.join(out, "report.json"), "utf8")) as Report;
    expect(report.run.agent).toBe("codex");
    expect(report.model_matrix?.models).toEqual(["openai:gpt-5.2", "openai:gpt-5-mini"]);
    expect(report.model_matrix?.counts.all_pass).toBe(1);
    // Each model's conversation went to Codex under that model's own id, without the prefix.
    expect(new Set(server.requests.map((request) => request.body.model))).toEqual(
      new Set(["gpt-5.2", "gpt-5-mini"]),
    );
    expect(server.requests).toHaveLength(4);
    for (const trial of report.scenarios.flatMap((scenario) => scenario.trials)) {
      expect(trial.execution).toMatchObject({
        turns: 2,
        tool_calls: 1,
        input_tokens: 1600,
        cache_read_tokens: 400,
      });
      expect(trial.execution.cost_usd).toBeGreaterThan(0);
    }
    expect(trials.trap().hits).toEqual([]);
  }, 120_000);
});

describe("codex stream mapping", () => {
  /** Lines as Codex 0.171 printed them for a run with one command (recorded from the real CLI). */
  const RECORDED = [
    { type: "thread.started", thread_id: "01a21c38-823f-7a90-8a3f-38bc927dccd3" },
    {
      type: "item.completed",
      item: { id: "item_0", type: "error", message: "Model metadata for `gpt-5.2` not found." },
    },
    { type: "turn.started" },
    { type: "item.completed", item: { id: "item_1", type: "agent_message", text: "Running jq." } },
    String.raw`{"type":"item.started","item":{"id":"item_2","type":"command_execution","command":"/bin/bash -c \"echo \\\"it's \\\\\"'$HOME\"; echo $PATH; exit 3'","aggregated_output":"","exit_code":null,"status":"in_progress"}}`,
    String.raw`{"type":"item.completed","item":{"id":"item_2","type":"command_execution","command":"/bin/bash -c \"echo \\\"it's \\\\\"'$HOME\"; echo $PATH; exit 3'","aggregated_output":"it's $HOME\n/usr/bin:/bin\n","exit_code":3,"status":"failed"}}`,
    { type: "item.completed", item: { id: "item_3", type: "agent_message", text: "Done." } },
    {
      type: "turn.completed",
      usage: {
        input_tokens: 2000,
        cached_input_tokens: 400,
        cache_write_input_tokens: 0,
        output_tokens: 100,
        reasoning_output_tokens: 10,
      },
    },
  ];

  /** Feeds lines; `answerAt[i]` is the proxy's count of answers when line i arrives. */
  function mapLines(
    lines: unknown[],
    answerAt: number[],
    exit = { exit_code: 0, stderr: "", timed_out: false },
    ends = { turnLimit: false },
  ) {
    const events: EventInput[] = [];
    let clock = 0;
    let answers = 0;
    const mapper = createCodexStreamMapper(
      { emit: (event) => events.push(event) },
      () => (clock += 10),
      () => answers,
    );
    for (const [index, line] of lines.entries()) {
      answers = answerAt[index] ?? answers;
      mapper.push(typeof line === "string" ? line : JSON.stringify(line));
    }
    const outcome = mapper.finish(exit, new AbortController().signal, ends);
    return { events, outcome };
  }

  it("groups items by the API's answers, unwraps the shell, and without the answers' usage puts the run's total on the last turn", () => {
    const { events, outcome } = mapLines(RECORDED, [0, 0, 0, 1, 1, 1, 2, 2]);
    expect(outcome).toEqual({ reason: "natural_stop", turns: 2 });
    expect(events.map((event) => event.type)).toEqual([
      "agent_output",
      "agent_output",
      "model_response",
      "tool_call",
      "tool_result",
      "model_response",
      "agent_output",
    ]);
    expect(events[6]).toMatchObject({
      text: expect.stringContaining("Codex reported only the run's token total"),
    });
    expect(events[1]).toMatchObject({ text: "Codex: Model metadata for `gpt-5.2` not found." });
    expect(events[2]).toMatchObject({ turn: 1, text: "Running jq.", stop_reason: "tool_use" });
    expect(events[3]).toEqual({
      type: "tool_call",
      call_id: "item_2",
      turn: 1,
      command: String.raw`echo "it's \$HOME"; echo $PATH; exit 3`,
    });
    expect(events[4]).toMatchObject({
      call_id: "item_2",
      stdout: "it's $HOME\n/usr/bin:/bin\n",
      exit_code: 3,
    });
    expect(events[5]).toMatchObject({
      turn: 2,
      text: "Done.",
      usage: { input_tokens: 1600, output_tokens: 100, cache_read_tokens: 400, cache_write_tokens: 0 },
    });
  });

  it("counts answers it saw nothing of, and parallel commands of one answer as one turn", () => {
    const started = (id: string, command: string) => ({
      type: "item.started",
      item: {
        id,
        type: "command_execution",
        command,
        aggregated_output: "",
        exit_code: null,
        status: "in_progress",
      },
    });
    const done = (id: string, command: string, exit: number) => ({
      type: "item.completed",
      item: {
        id,
        type: "command_execution",
        command,
        aggregated_output: "",
        exit_code: exit,
        status: "completed",
      },
    });
    const { events, outcome } = mapLines(
      [
        started("a", "/bin/bash -c 'ls'"),
        started("b", "/bin/bash -c 'pwd'"),
        done("a", "/bin/bash -c 'ls'", 0),
        done("b", "/bin/bash -c 'pwd'", 2),
        { type: "turn.completed", usage: { input_tokens: 10, cached_input_tokens: 0, output_tokens: 5 } },
      ],
      [1, 1, 1, 1, 3],
    );
    const responses = events.filter((event) => event.type === "model_response");
    expect(responses.map((r) => [r.turn, r.tool_uses.length])).toEqual([
      [1, 2],
      [2, 0],
      [3, 0],
    ]);
    expect(responses[2]).toMatchObject({ usage: { input_tokens: 10, output_tokens: 5 } });
    expect(events.filter((event) => event.type === "tool_call").map((c) => [c.command, c.turn])).toEqual([
      ["ls", 1],
      ["pwd", 1],
    ]);
    expect(outcome.turns).toBe(3);
  });

  it("holds a response's command events until its usage arrives from the proxy, then emits them in order", () => {
    const events: EventInput[] = [];
    let answers = 1;
    const mapper = createCodexStreamMapper(
      { emit: (event) => events.push(event) },
      () => 0,
      () => answers,
    );
    const command = (type: string, exit: number | null) =>
      JSON.stringify({
        type,
        item: {
          id: "c1",
          type: "command_execution",
          command: "/bin/bash -c ls",
          aggregated_output: "",
          exit_code: exit,
          status: "x",
        },
      });
    mapper.push(
      JSON.stringify({ type: "item.completed", item: { id: "m", type: "agent_message", text: "Listing." } }),
    );
    mapper.push(command("item.started", null));
    mapper.push(command("item.completed", 0));
    expect(events).toEqual([]);
    const usage = { input_tokens: 7, output_tokens: 3, cache_read_tokens: 1, cache_write_tokens: 0 };
    mapper.answerUsage(1, usage);
    expect(events.map((event) => event.type)).toEqual(["model_response", "tool_call", "tool_result"]);
    expect(events[0]).toMatchObject({ turn: 1, text: "Listing.", usage, tool_uses: [{ id: "c1" }] });
    answers = 2;
    mapper.answerUsage(2, { ...usage, input_tokens: 9 });
    mapper.push(
      JSON.stringify({ type: "item.completed", item: { id: "m2", type: "agent_message", text: "Done." } }),
    );
    mapper.push(JSON.stringify({ type: "turn.completed", usage: { input_tokens: 100, output_tokens: 100 } }));
    const outcome = mapper.finish(
      { exit_code: 0, stderr: "", timed_out: false },
      new AbortController().signal,
      {
        turnLimit: false,
      },
    );
    expect(outcome).toEqual({ reason: "natural_stop", turns: 2 });
    // The answers' own usage wins over Codex's total.
    expect(events[3]).toMatchObject({
      type: "model_response",
      turn: 2,
      text: "Done.",
      usage: { input_tokens: 9 },
    });
  });

  it("reads an answer's commands, messages and usage from its event stream, split anywhere", () => {
    const seen: unknown[] = [];
    const read = createAnswerReader({ item: (item) => seen.push(item), usage: (usage) => seen.push(usage) });
    const done = (item: unknown) =>
      `event: response.output_item.done\ndata: ${JSON.stringify({ type: "response.output_item.done", item })}\n\n`;
    const stream =
      'event: response.created\ndata: {"type":"response.created","response":{"id":"r"}}\n\n' +
      done({ type: "message", role: "assistant", content: [{ type: "output_text", text: "Listing." }] }) +
      done({ type: "function_call", name: "exec_command", arguments: JSON.stringify({ cmd: "ls -l" }) }) +
      done({ type: "function_call", name: "exec_command", arguments: "{not json" }) +
      'event: response.completed\r\ndata: {"type":"response.completed","response":{"id":"r","usage":' +
      '{"input_tokens":120,"input_tokens_details":{"cached_tokens":20},"output_tokens":7}}}\r\n\r\n';
    const bytes = Buffer.from(stream);
    for (let at = 0; at < bytes.length; at += 13) read(bytes.subarray(at, at + 13));
    expect(seen).toEqual([
      { text: "Listing." },
      { command: "ls -l" },
      { input_tokens: 100, output_tokens: 7, cache_read_tokens: 20, cache_write_tokens: 0 },
    ]);
  });

  it("places a command Codex prints after the next request went out with the answer that asked for it", () => {
    const events: EventInput[] = [];
    let answers = 0;
    const mapper = createCodexStreamMapper(
      { emit: (event) => events.push(event) },
      () => 0,
      () => answers,
    );
    const usage = { input_tokens: 5, output_tokens: 1, cache_read_tokens: 0, cache_write_tokens: 0 };
    const command = (type: string, id: string, exit: number | null) =>
      JSON.stringify({
        type,
        item: {
          id,
          type: "command_execution",
          command: `/bin/bash -c 'echo ${id}'`,
          aggregated_output: "",
          exit_code: exit,
          status: "x",
        },
      });
    for (const answer of [1, 2]) {
      answers = answer;
      mapper.answerItem(answer, { command: `echo c${answer}` });
      mapper.answerUsage(answer, usage);
    }
    // Answer 1's command printed while the proxy is already relaying answer 2.
    mapper.push(command("item.started", "c1", null));
    mapper.push(command("item.completed", "c1", 0));
    mapper.push(command("item.started", "c2", null));
    mapper.push(command("item.completed", "c2", 0));
    answers = 3;
    mapper.answerItem(3, { text: "Done." });
    mapper.answerUsage(3, usage);
    mapper.push(
      JSON.stringify({ type: "item.completed", item: { id: "m", type: "agent_message", text: "Done." } }),
    );
    mapper.push(JSON.stringify({ type: "turn.completed", usage }));
    mapper.finish({ exit_code: 0, stderr: "", timed_out: false }, new AbortController().signal, {
      turnLimit: false,
    });
    const responses = events.filter((event) => event.type === "model_response");
    expect(responses.map((r) => [r.turn, r.tool_uses.map((use) => use.id), r.text])).toEqual([
      [1, ["c1"], ""],
      [2, ["c2"], ""],
      [3, [], "Done."],
    ]);
    expect(events.filter((event) => event.type === "tool_call").map((c) => [c.call_id, c.turn])).toEqual([
      ["c1", 1],
      ["c2", 2],
    ]);
  });

  it("maps the ways a run ends", () => {
    const failed = mapLines(
      [
        { type: "error", message: "unexpected status 429 Too Many Requests: slow down" },
        { type: "turn.failed", error: { message: "unexpected status 429 Too Many Requests: slow down" } },
      ],
      [0, 0],
      { exit_code: 1, stderr: "", timed_out: false },
    );
    expect(failed.outcome).toEqual({
      reason: "infra_error",
      error: "Codex's turn failed: unexpected status 429 Too Many Requests: slow down",
      turns: 0,
    });
    expect(failed.events[0]).toMatchObject({ type: "model_error", status: 429, will_retry: false });
    expect(
      mapLines([{ type: "turn.failed", error: { message: "403" } }], [2], undefined, { turnLimit: true })
        .outcome.reason,
    ).toBe("turn_limit");
  });

  describeStreamMapperContract(
    "codex",
    (lines, exit) => mapLines(lines, [], exit),
    (stderr) => `codex exited with code 2 without turn.completed; stderr: ${stderr}`,
  );

  it("reads shell words as a POSIX shell does", () => {
    expect(splitShellWords(`a 'b c' "d \\"e\\" \\$f" g\\ h`)).toEqual(["a", "b c", 'd "e" $f', "g h"]);
    expect(splitShellWords("'open")).toBeNull();
    expect(unwrapShellCommand("/bin/bash -lc 'jq . x'")).toBe("jq . x");
    expect(unwrapShellCommand("/usr/bin/zsh -c 'ls'")).toBe("ls");
    // Not a shell wrapper: kept as shown.
    expect(unwrapShellCommand("python3 -c 'print(1)'")).toBe("python3 -c 'print(1)'");
    expect(unwrapShellCommand("/bin/bash -c 'a' extra")).toBe("/bin/bash -c 'a' extra");
  });
});

describe("codex agent setup", () => {
  it("finds the devDependency's native binary when no codex is on PATH, and honours LLM_TOOL_TEST_CODEX_BIN", async () => {
    const found = resolveCodexBinary({ PATH: "/nonexistent" });
    expect(path.basename(found)).toBe("codex");
    expect(execFileSync(found, ["--version"], { encoding: "utf8" })).toContain(CODEX_VERSION);
    const fake = path.join(trials.dir, "my-codex");
    await writeFile(fake, "#!/bin/sh\n", { mode: 0o755 });
    expect(resolveCodexBinary({ [CODEX_BIN_ENV]: fake, PATH: "/nonexistent" })).toBe(fake);
    expect(() => resolveCodexBinary({ [CODEX_BIN_ENV]: path.join(trials.dir, "missing") })).toThrow(
      CODEX_BIN_ENV,
    );
    // The npm launcher (a Node script) on PATH: its package's native binary runs instead.
    const bin = path.join(trials.dir, "npm-bin");
    await mkdir(bin);
    await symlink(path.resolve("node_modules/@openai/codex/bin/codex.js"), path.join(bin, "codex"));
    expect(resolveCodexBinary({ PATH: bin }, [])).toBe(found);
  });

  it("pins the version the devDependency installs, exactly", async () => {
    const manifest = JSON.parse(await readFile("package.json", "utf8")) as {
      devDependencies: Record<string, string>;
    };
    expect(manifest.devDependencies[CODEX_PACKAGE]).toBe(CODEX_VERSION);
    const installed = JSON.parse(
      await readFile(path.join("node_modules", CODEX_PACKAGE, "package.json"), "utf8"),
    ) as { version: string };
    expect(installed.version).toBe(CODEX_VERSION);
  });

  it("refuses a target that Codex's own helper (its rg, first on its commands' PATH) would shadow", async () => {
    const found = resolveCodexBinary({ PATH: "/nonexistent" });
    expect(findShadowingHelper(found, "rg")).toMatch(/codex-path\/rg$/);
    expect(findShadowingHelper(found, "/usr/local/bin/rg")).toMatch(/codex-path\/rg$/);
    expect(findShadowingHelper(found, "jq")).toBeNull();
    expect(findShadowingHelper(found, undefined)).toBeNull();
    const test = await makeContext({ scenario: makeScenario({ target: { binary: "rg", env: {} } }) });
    trials.cleanups.push(test.dispose);
    const agent = createAgent("codex", { openaiApiKey: CANARY_KEY, env: { PATH: "/usr/bin:/bin" } });
    const outcome = await agent.run(test.context);
    expect(outcome).toMatchObject({ reason: "infra_error", fatal: true, turns: 0 });
    expect(outcome.error).toContain("the target shim would not see the model's calls of rg");
  });

  it("says how to install Codex when it is nowhere", () => {
    expect(() => resolveCodexBinary({ PATH: "/nonexistent" }, [trials.dir])).toThrow(ConfigError);
    expect(() => resolveCodexBinary({ PATH: "/nonexistent" }, [trials.dir])).toThrow(
      "npm install -g @openai/codex",
    );
  });

  it("needs the OpenAI key, and runs OpenAI models only", () => {
    expect(() => createAgent("codex", { env: { PATH: "/usr/bin:/bin" } })).toThrow(/OPENAI_API_KEY/);
    const scenario = makeScenario({ id: "s" });
    const keys = { anthropic: "sk-ant", openai: "sk-openai" };
    expect(() => checkModelProviders([scenario], ["claude-haiku-4-5"], "codex", keys)).toThrow(
      /codex agent runs OpenAI models only.*openai:claude-haiku-4-5/,
    );
    expect(() => checkModelProviders([scenario], ["openai:gpt-5.2"], "codex", keys)).not.toThrow();
    expect(() =>
      checkModelProviders([scenario], ["openai:gpt-5.2"], "codex", { anthropic: "sk-ant", openai: null }),
    ).toThrow(/OPENAI_API_KEY/);
  });
});
