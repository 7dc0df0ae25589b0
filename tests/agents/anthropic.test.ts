import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CONTINUE_MESSAGE, createAnthropicAgent, formatToolResult } from "../../src/agents/anthropic.js";
import type { AgentContext, AgentOutcome } from "../../src/agents/types.js";
import { type AnthropicClientOptions, createAnthropicClient } from "../../src/model/anthropic-client.js";
import { createAimdLimiter } from "../../src/model/call-limiter.js";
import {
  apiError,
  bashCall,
  finalText,
  inOrder,
  type ModelServer,
  type RecordedRequest,
  type Responder,
  scriptByTurn,
  startModelServer,
  toolUse,
} from "../support/model-server.js";
import { makeContext, type TestContext } from "./agent-context.js";

const CANARY_KEY = "sk-ant-canary-0d9e8f7a6b5c4d3e2f1a";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

interface AgentRun {
  outcome: AgentOutcome;
  server: ModelServer;
  test: TestContext;
  requests: RecordedRequest[];
}

async function runAgent(
  respond: Responder,
  options: {
    context?: Partial<Omit<AgentContext, "bash" | "events" | "signal">>;
    client?: Partial<AnthropicClientOptions>;
    agent?: { maxTokens?: number; temperature?: number };
    abortAfterMs?: { ms: number; reason: unknown };
  } = {},
): Promise<AgentRun> {
  const server = await startModelServer(respond);
  const test = await makeContext(options.context);
  cleanups.push(() => server.close(), test.dispose);
  const client = createAnthropicClient({ apiKey: CANARY_KEY, baseURL: server.url, ...options.client });
  const agent = createAnthropicAgent(client, options.agent);
  const abort = options.abortAfterMs;
  if (abort) setTimeout(() => test.controller.abort(abort.reason), abort.ms);
  const outcome = await agent.run(test.context);
  return { outcome, server, test, requests: server.messageRequests() };
}

function countBreakpoints(body: unknown): number {
  return (JSON.stringify(body).match(/"cache_control"/g) ?? []).length;
}

// biome-ignore lint/suspicious/noExplicitAny: request bodies are raw JSON.
function lastMessage(request: RecordedRequest | undefined): any {
  const messages = request?.body.messages ?? [];
  return messages[messages.length - 1];
}

describe("anthropic agent over HTTP", () => {
  it("runs a multi-turn conversation: bash per tool_use, results with exit codes, usage per turn, caching", async () => {
    const run = await runAgent(
      scriptByTurn([
        {
          kind: "message",
          content: [
            { type: "text", text: "I will write a greeting." },
            toolUse({ command: "echo hello > greeting.txt && cat greeting.txt" }),
          ],
          usage: {
            input_tokens: 1000,
            output_tokens: 40,
            cache_read_input_tokens: 0,
            cache_creation_input_tokens: 900,
          },
        },
        {
          kind: "message",
          content: [toolUse({ command: "cat greeting.txt" }), toolUse({ command: "ls no-such-file" })],
          usage: {
            input_tokens: 150,
            output_tokens: 30,
            cache_read_input_tokens: 900,
            cache_creation_input_tokens: 120,
          },
        },
        finalText("Done: greeting.txt says hello.", {
          input_tokens: 90,
          output_tokens: 12,
          cache_read_input_tokens: 1020,
          cache_creation_input_tokens: 80,
        }),
      ]),
      { context: { task: "Write a greeting file.", systemPrompt: "You are in /work. Use bash." } },
    );

    expect(run.outcome).toEqual({ reason: "natural_stop", turns: 3 });
    expect(run.test.bashCalls.map(({ command, turn }) => [command, turn])).toEqual([
      ["echo hello > greeting.txt && cat greeting.txt", 1],
      ["cat greeting.txt", 2],
      ["ls no-such-file", 2],
    ]);
    expect(await readFile(join(run.test.workDir, "greeting.txt"), "utf8")).toBe("hello\n");

    // The first request: system prompt, the bash tool, the task.
    const [first, second, third] = run.requests;
    expect(run.requests).toHaveLength(3);
    expect(first?.body.system).toEqual([
      { type: "text", text: "You are in /work. Use bash.", cache_control: { type: "ephemeral" } },
    ]);
    expect(first?.body.tools).toEqual([
      expect.objectContaining({
        name: "bash",
        input_schema: expect.objectContaining({
          properties: expect.objectContaining({
            command: expect.objectContaining({ type: "string" }),
            restart: expect.objectContaining({ type: "boolean" }),
          }),
        }),
        description: expect.stringMatching(/persistent bash shell.*not interactive.*killed after 30 s/s),
      }),
    ]);
    expect(first?.body.messages).toEqual([
      {
        role: "user",
        content: [{ type: "text", text: "Write a greeting file.", cache_control: { type: "ephemeral" } }],
      },
    ]);

    // Turn 1's tool_use answered by one tool_result carrying the exit code and stdout.
    const turn1ToolUse = second?.body.messages[1].content[1];
    expect(turn1ToolUse).toMatchObject({ type: "tool_use", name: "bash" });
    expect(lastMessage(second)).toEqual({
      role: "user",
      content: [
        {
          type: "tool_result",
          tool_use_id: turn1ToolUse.id,
          content: "exit code: 0\n<stdout>\nhello\n</stdout>",
          cache_control: { type: "ephemeral" },
        },
      ],
    });

    // Turn 2's two tool_uses answered together, the failing one flagged is_error with its stderr.
    const turn2ToolUses = third?.body.messages[3].content;
    const results = lastMessage(third).content;
    expect(results).toHaveLength(2);
    expect(results[0]).toMatchObject({
      tool_use_id: turn2ToolUses[0].id,
      content: "exit code: 0\n<stdout>\nhello\n</stdout>",
    });
    expect(results[0].is_error).toBeUndefined();
    expect(results[1]).toMatchObject({ tool_use_id: turn2ToolUses[1].id, is_error: true });
    expect(results[1].content).toMatch(
      /^exit code: 2\n<stderr>\nls: cannot access 'no-such-file'.*\n<\/stderr>$/s,
    );

    // Caching: the stable prefix and the newest user block, the old moving breakpoint removed.
    for (const request of run.requests) {
      expect(request.body.system.at(-1).cache_control).toEqual({ type: "ephemeral" });
      expect(lastMessage(request).content.at(-1).cache_control).toEqual({ type: "ephemeral" });
      expect(countBreakpoints(request.body)).toBe(2);
      expect(countBreakpoints(request.body)).toBeLessThanOrEqual(4);
    }
    expect(third?.body.messages[0].content[0].cache_control).toBeUndefined();
    expect(third?.body.messages[2].content[0].cache_control).toBeUndefined();

    // Events: one request/response pair per turn, usage mapped.
    expect(run.test.eventsOf("model_request")).toEqual([
      { type: "model_request", turn: 1, model: "claude-test", message_count: 1 },
      { type: "model_request", turn: 2, model: "claude-test", message_count: 3 },
      { type: "model_request", turn: 3, model: "claude-test", message_count: 5 },
    ]);
    const responses = run.test.eventsOf("model_response");
    expect(responses.map((r) => r.usage)).toEqual([
      { input_tokens: 1000, output_tokens: 40, cache_read_tokens: 0, cache_write_tokens: 900 },
      { input_tokens: 150, output_tokens: 30, cache_read_tokens: 900, cache_write_tokens: 120 },
      { input_tokens: 90, output_tokens: 12, cache_read_tokens: 1020, cache_write_tokens: 80 },
    ]);
    expect(responses.map((r) => [r.turn, r.stop_reason, r.text])).toEqual([
      [1, "tool_use", "I will write a greeting."],
      [2, "tool_use", ""],
      [3, "end_turn", "Done: greeting.txt says hello."],
    ]);
    expect(responses[1]?.tool_uses).toEqual([
      { id: turn2ToolUses[0].id, name: "bash", input: { command: "cat greeting.txt" } },
      { id: turn2ToolUses[1].id, name: "bash", input: { command: "ls no-such-file" } },
    ]);
    for (const response of responses) {
      expect(response.duration_ms).toBeGreaterThanOrEqual(0);
      expect(response.waited_ms).toBe(0);
    }
    expect(run.test.eventsOf("model_error")).toEqual([]);
  });

  it("keeps at most 4 breakpoints however long the conversation", async () => {
    const run = await runAgent(() => bashCall("echo step"), { context: { maxTurns: 12 } });
    expect(run.outcome).toEqual({ reason: "turn_limit", turns: 12 });
    expect(run.requests).toHaveLength(12);
    for (const request of run.requests) expect(countBreakpoints(request.body)).toBe(2);
  });

  it("puts the stable-prefix breakpoint on the tool when the system prompt is empty", async () => {
    const run = await runAgent(() => finalText("nothing to do"), {
      context: { systemPrompt: "" },
      agent: { maxTokens: 1234, temperature: 0 },
    });
    const [request] = run.requests;
    expect(request?.body.system).toBeUndefined();
    expect(request?.body.tools[0].cache_control).toEqual({ type: "ephemeral" });
    expect(request?.body).toMatchObject({ max_tokens: 1234, temperature: 0 });
    expect(countBreakpoints(request?.body)).toBe(2);
  });

  it("retries injected 429, 529 and 500 answers and records each as a model_error", async () => {
    const script = scriptByTurn([bashCall("echo one"), finalText("done")]);
    let calls = 0;
    const run = await runAgent((request) => {
      calls += 1;
      if (calls === 1) return apiError(429);
      if (calls === 2) return apiError(529);
      if (calls === 4) return apiError(500);
      return script(request);
    });
    expect(run.outcome).toEqual({ reason: "natural_stop", turns: 2 });
    expect(run.test.eventsOf("model_error")).toEqual([
      expect.objectContaining({ turn: 1, attempt: 1, status: 429, will_retry: true, retry_after_ms: 1 }),
      expect.objectContaining({ turn: 1, attempt: 2, status: 529, will_retry: true, retry_after_ms: 1 }),
      expect.objectContaining({ turn: 2, attempt: 1, status: 500, will_retry: true, retry_after_ms: 1 }),
    ]);
    expect(run.test.bashCalls.map((c) => c.command)).toEqual(["echo one"]);
    const responses = run.test.eventsOf("model_response");
    expect(responses).toHaveLength(2);
    // The backoff sleeps are reported apart from the working time of the turn.
    expect(responses[0]?.waited_ms).toBeGreaterThanOrEqual(1);
    expect(responses[0]?.duration_ms).toBeGreaterThanOrEqual(responses[0]?.waited_ms ?? 0);
    expect(run.requests).toHaveLength(5);
  });

  it("ends infra_error with the error recorded when a call exhausts its retries", async () => {
    const run = await runAgent(inOrder(bashCall("echo one"), apiError(500)), { client: { maxAttempts: 3 } });
    expect(run.outcome.reason).toBe("infra_error");
    expect(run.outcome.turns).toBe(2);
    expect(run.outcome.error).toMatch(/^gave up after 3 attempts: the API answered 500/);
    const errors = run.test.eventsOf("model_error");
    expect(errors.map((e) => [e.turn, e.attempt, e.will_retry])).toEqual([
      [2, 1, true],
      [2, 2, true],
      [2, 3, false],
    ]);
    // The server's retry-after-ms: 1 is kept on the final error too.
    expect(errors.map((e) => e.retry_after_ms)).toEqual([1, 1, 1]);
    expect(run.requests).toHaveLength(4);
  });

  it("fails at once on a 401 with a message that names the key's source and not the key", async () => {
    const run = await runAgent(() => ({ kind: "error", status: 401, message: "invalid x-api-key" }));
    expect(run.outcome.reason).toBe("infra_error");
    expect(run.outcome.error).toMatch(
      /the API rejected the key \(401: invalid x-api-key\).*ANTHROPIC_API_KEY/,
    );
    expect(run.requests).toHaveLength(1);
    expect(JSON.stringify([run.outcome, run.test.events])).not.toContain(CANARY_KEY);
    expect(run.requests[0]?.headers.authorization).toBe(`Bearer ${CANARY_KEY}`);
  });

  it("stops at max_turns with turn_limit after running the last turn's commands", async () => {
    const run = await runAgent(() => bashCall("echo again"), { context: { maxTurns: 3 } });
    expect(run.outcome).toEqual({ reason: "turn_limit", turns: 3 });
    expect(run.test.bashCalls.map((c) => c.turn)).toEqual([1, 2, 3]);
    expect(run.requests).toHaveLength(3);
  });

  it("asks the model to continue after max_tokens with no tool use, as a turn of its own", async () => {
    const run = await runAgent(
      scriptByTurn([
        {
          kind: "message",
          content: [{ type: "text", text: "Here is the first half" }],
          stop_reason: "max_tokens",
        },
        finalText("and the second half."),
      ]),
    );
    expect(run.outcome).toEqual({ reason: "natural_stop", turns: 2 });
    expect(lastMessage(run.requests[1])).toEqual({
      role: "user",
      content: [{ type: "text", text: CONTINUE_MESSAGE, cache_control: { type: "ephemeral" } }],
    });
    expect(run.test.bashCalls).toEqual([]);
  });

  it("answers a tool_use with bad input or an unknown tool with an is_error result and runs nothing", async () => {
    const run = await runAgent(
      scriptByTurn([
        {
          kind: "message",
          content: [
            toolUse({ cmd: "ls" }),
            toolUse({ command: "ls" }, "shell"),
            toolUse({ command: "echo ok" }),
          ],
        },
        finalText("ok"),
      ]),
    );
    expect(run.outcome).toEqual({ reason: "natural_stop", turns: 2 });
    expect(run.test.bashCalls.map((c) => c.command)).toEqual(["echo ok"]);
    const results = lastMessage(run.requests[1]).content;
    expect(results[0]).toMatchObject({ type: "tool_result", is_error: true });
    expect(results[0].content).toMatch(
      /needs an input like \{"command": "ls -la"\}.*got \{"cmd":"ls"\}. Nothing was run/,
    );
    expect(results[1]).toMatchObject({ is_error: true });
    expect(results[1].content).toMatch(/no tool named "shell"/);
    expect(results[2].content).toBe("exit code: 0\n<stdout>\nok\n</stdout>");
  });

  it("retries a call that hangs past the request timeout, then gives up on one that always hangs", async () => {
    const recovered = await runAgent(inOrder({ kind: "hang" }, finalText("back")), {
      client: { requestTimeoutMs: 200 },
    });
    expect(recovered.outcome).toEqual({ reason: "natural_stop", turns: 1 });
    expect(recovered.test.eventsOf("model_error")).toEqual([
      expect.objectContaining({
        status: null,
        will_retry: true,
        message: expect.stringMatching(/timed out after 200 ms/),
      }),
    ]);

    const started = performance.now();
    const stuck = await runAgent(() => ({ kind: "hang" }), {
      client: { requestTimeoutMs: 150, maxAttempts: 2, sleep: async () => {} },
    });
    expect(stuck.outcome.reason).toBe("infra_error");
    expect(stuck.outcome.error).toMatch(/gave up after 2 attempts: the request timed out after 150 ms/);
    expect(performance.now() - started).toBeLessThan(10_000);
  });

  it("ends infra_error, not timeout, when the trial's time runs out mid-call; cancelled when the run is cancelled", async () => {
    const started = performance.now();
    const timedOut = await runAgent(inOrder(bashCall("echo first"), { kind: "hang" }), {
      abortAfterMs: { ms: 300, reason: new Error("trial timed out") },
    });
    expect(timedOut.outcome).toEqual({
      reason: "infra_error",
      error: expect.stringMatching(
        /^the trial timed out waiting for the model API: turn 2's call had no answer after \d/,
      ),
      turns: 2,
    });
    expect(timedOut.test.eventsOf("model_response")).toHaveLength(1);

    const cancelled = await runAgent(() => ({ kind: "hang" }), {
      abortAfterMs: { ms: 100, reason: "cancelled" },
    });
    expect(cancelled.outcome).toEqual({ reason: "cancelled", turns: 1 });
    expect(performance.now() - started).toBeLessThan(10_000);
  });

  it("ends infra_error naming the failed attempts when the time runs out during a rate-limit backoff", async () => {
    const run = await runAgent(() => apiError(429, 60_000), { abortAfterMs: { ms: 100, reason: "timeout" } });
    expect(run.outcome).toEqual({
      reason: "infra_error",
      error: expect.stringMatching(
        /; 1 failed attempt before, the last: rate limited \(429\): scripted 429$/,
      ),
      turns: 1,
    });
    expect(run.test.eventsOf("model_error")).toEqual([
      expect.objectContaining({ status: 429, will_retry: true, retry_after_ms: 60_000 }),
    ]);
  });

  it("ends infra_error when the time runs out while the call waits for a slot in the shared limiter", async () => {
    const limiter = createAimdLimiter({ initial: 1, max: 1 });
    await limiter.acquire(); // another trial's call holds the only slot
    const run = await runAgent(() => finalText("never asked"), {
      client: { limiter },
      abortAfterMs: { ms: 100, reason: "timeout" },
    });
    expect(run.outcome.reason).toBe("infra_error");
    expect(run.requests).toHaveLength(0);
    expect(limiter.queued()).toBe(0);
    limiter.release();
  });

  it("stops before the next command when the signal aborts during a tool call", async () => {
    const server = await startModelServer(() => ({
      kind: "message",
      content: [toolUse({ command: "first" }), toolUse({ command: "second" })],
    }));
    const test = await makeContext({
      bash: async (command) => {
        test.controller.abort("timeout");
        return {
          stdout: command,
          stderr: "",
          exit_code: 124,
          duration_ms: 1,
          timed_out: true,
          truncated: false,
        };
      },
    });
    cleanups.push(() => server.close(), test.dispose);
    const agent = createAnthropicAgent(createAnthropicClient({ apiKey: CANARY_KEY, baseURL: server.url }));
    expect(await agent.run(test.context)).toEqual({ reason: "timeout", turns: 1 });
    expect(test.bashCalls.map((c) => c.command)).toEqual(["first"]);
  });

  it("restarts the shell on {restart: true}, runs nothing, and tells the model; a failed restart ends infra_error", async () => {
    let restarts = 0;
    const run = await runAgent(
      scriptByTurn([
        { kind: "message", content: [toolUse({ restart: true }), toolUse({ restart: "yes" })] },
        finalText("done"),
      ]),
      {
        context: {
          restartShell: async () => {
            restarts += 1;
          },
        },
      },
    );
    expect(run.outcome).toEqual({ reason: "natural_stop", turns: 2 });
    expect(restarts).toBe(1);
    expect(run.test.bashCalls).toEqual([]);
    const [restarted, refused] = lastMessage(run.requests[1]).content;
    expect(restarted).toMatchObject({
      type: "tool_result",
      content: expect.stringMatching(/^The shell was restarted/),
    });
    expect(restarted.is_error).toBeUndefined();
    expect(refused).toMatchObject({ is_error: true, content: expect.stringContaining('{"restart": true}') });

    const failed = await runAgent(() => ({ kind: "message", content: [toolUse({ restart: true })] }), {
      context: {
        restartShell: async () => {
          throw new Error("bwrap is gone");
        },
      },
    });
    expect(failed.outcome).toEqual({
      reason: "infra_error",
      error: "the sandbox failed to restart the shell: bwrap is gone",
      turns: 1,
    });
  });

  it("ends infra_error when the sandbox itself fails", async () => {
    const server = await startModelServer(() => bashCall("ls"));
    const test = await makeContext({
      bash: async () => {
        throw new Error("work dir vanished");
      },
    });
    cleanups.push(() => server.close(), test.dispose);
    const agent = createAnthropicAgent(createAnthropicClient({ apiKey: CANARY_KEY, baseURL: server.url }));
    expect(await agent.run(test.context)).toEqual({
      reason: "infra_error",
      error: "the sandbox failed to run a command: work dir vanished",
      turns: 1,
    });
  });
});

describe("formatToolResult", () => {
  const base = { stdout: "", stderr: "", exit_code: 0, duration_ms: 5, timed_out: false, truncated: false };

  it("labels each stream and says when both are empty", () => {
    expect(formatToolResult({ ...base, stdout: "a\nb\n", stderr: "warn\n" }, 60_000)).toBe(
      "exit code: 0\n<stdout>\na\nb\n</stdout>\n<stderr>\nwarn\n</stderr>",
    );
    expect(formatToolResult(base, 60_000)).toBe("exit code: 0\n(no output: stdout and stderr were empty)");
  });

  it("says in words that a command timed out or its output was truncated", () => {
    const text = formatToolResult(
      { ...base, exit_code: 124, timed_out: true, truncated: true, stdout: "x" },
      2500,
    );
    expect(text).toMatch(
      /^exit code: 124\nThe command timed out after 2.5 s and was killed, with the shell: the next command runs in a fresh shell/,
    );
    expect(text).toContain("The output was too long and was truncated");
  });

  it("says when the shell exited, so the model knows its state is gone", () => {
    const text = formatToolResult({ ...base, exit_code: 3, shell_exited: true }, 2500);
    expect(text).toMatch(
      /^exit code: 3\nThe shell exited: the next command runs in a fresh shell in the work dir/,
    );
    expect(formatToolResult({ ...base, exit_code: 3 }, 2500)).not.toContain("shell exited");
  });
});
