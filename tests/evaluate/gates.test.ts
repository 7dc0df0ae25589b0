import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  evaluateGates,
  GATE_GRACE_MS,
  type GateContext,
  MAX_GATE_MESSAGE_CHARS,
  scoreGates,
} from "../../src/evaluate/gates.js";
import { type Invocation, quoteShellWord, readTargetCall } from "../../src/evaluate/invocations.js";
import { parseJsonPathAssertion } from "../../src/evaluate/json-path.js";
import type { GateResult } from "../../src/results/types.js";
import type { GateSpec } from "../../src/scenario/types.js";
import type { TrialEvent } from "../../src/transcript/events.js";
import { createEventLog } from "../support/event-builder.js";
import { type BashSandbox, createBashSandbox } from "./bash-sandbox.js";

let sandbox: BashSandbox;

beforeAll(async () => {
  sandbox = await createBashSandbox();
  await writeFile(path.join(sandbox.workDir, "notes.md"), "# Notes\nCAP theorem: pick two\nPaxos\n");
  await mkdir(path.join(sandbox.workDir, "store"));
  await mkdir(path.join(sandbox.root, "data"), { recursive: true });
  await writeFile(path.join(sandbox.root, "data", "people.csv"), "name,dept\r\nAlice,Eng\r\nBob,Ops\r\n");
});

afterAll(async () => {
  await sandbox.dispose();
});

function context(overrides: Partial<GateContext> = {}): GateContext {
  return {
    sandbox,
    events: [],
    invocations: [],
    invocationSource: "shim",
    scriptEnv: {},
    gateTimeoutMs: 10_000,
    ...overrides,
    recordedCalls: overrides.recordedCalls ?? overrides.invocations ?? [],
  };
}

async function runOne(gate: GateSpec, overrides: Partial<GateContext> = {}): Promise<GateResult> {
  const [result] = await evaluateGates([gate], context(overrides));
  if (!result) throw new Error("no result");
  return result;
}

const w = { weight: 1 };

describe("command gates", () => {
  it("command_succeeds passes on exit 0 and fails with the command, exit code and output head", async () => {
    expect((await runOne({ ...w, type: "command_succeeds", command: "true" })).passed).toBe(true);
    const failed = await runOne({
      ...w,
      type: "command_succeeds",
      command: "echo out; echo err >&2; exit 3",
    });
    expect(failed.passed).toBe(false);
    expect(failed.gate_type).toBe("command_succeeds");
    expect(failed.message).toBe(
      '`echo out; echo err >&2; exit 3` exited 3; stdout "out\\n"; stderr "err\\n"',
    );
  });

  it("command_output_contains checks stdout and quotes the head of the output when it fails", async () => {
    const passed = await runOne({
      ...w,
      type: "command_output_contains",
      command: "cat notes.md",
      substring: "Paxos",
    });
    expect(passed.passed).toBe(true);
    const failed = await runOne({
      ...w,
      type: "command_output_contains",
      command: "printf 'x%.0s' $(seq 1 500); echo missing >&2; exit 1",
      substring: "Raft",
    });
    expect(failed.passed).toBe(false);
    expect(failed.message).toContain('stdout does not contain "Raft"');
    expect(failed.message).toContain("exited 1");
    expect(failed.message).toContain(`stdout "${"x".repeat(300)}"… (500 chars)`);
    expect(failed.message).toContain('stderr "missing\\n"');
  });

  it("command_output_contains looks at stdout only", async () => {
    const result = await runOne({
      ...w,
      type: "command_output_contains",
      command: "echo Raft >&2",
      substring: "Raft",
    });
    expect(result.passed).toBe(false);
    expect(result.message).toContain("stdout empty");
  });

  it("command_output_matches applies the regex to stdout", async () => {
    const gate = (pattern: string): GateSpec => ({
      ...w,
      type: "command_output_matches",
      command: "cat notes.md",
      pattern,
    });
    expect((await runOne(gate("^CAP \\w+:"))).passed).toBe(false); // no multiline flag
    expect((await runOne(gate("(?m)^CAP \\w+:"))).passed).toBe(true);
    const failed = await runOne(gate("Raft|Zab"));
    expect(failed.message).toContain("stdout does not match /Raft|Zab/");
  });

  it("command_json_path passes, fails with the values found, and reports malformed JSON", async () => {
    const gate = (command: string, jsonPath: string, assertion: string): GateSpec => ({
      ...w,
      type: "command_json_path",
      command,
      path: jsonPath,
      assertion,
      parsed: parseJsonPathAssertion(assertion),
    });
    const passed = await runOne(gate(`echo '[{"t":"a"},{"t":"b"},{"t":"c"}]'`, "$", "len >= 3"));
    expect(passed.passed).toBe(true);
    const equals = await runOne(gate(`echo '{"links":[{"from":1}]}'`, "$.links[0].from", "equals 1"));
    expect(equals.passed).toBe(true);
    const short = await runOne(gate(`echo '[1,2,3]'`, "$", "len >= 5"));
    expect(short.passed).toBe(false);
    expect(short.message).toContain("len is 3");
    expect(short.message).toContain("$ len >= 5");
    const malformed = await runOne(gate(`echo '{"oops": '`, "$", "exists"));
    expect(malformed.passed).toBe(false);
    expect(malformed.message).toMatch(
      /^stdout is not JSON \(.+\); `echo '\{"oops": '` exited 0; stdout "\{\\"oops\\": \\n"$/,
    );
    const missing = await runOne(gate(`echo '{"a":1}'`, "$.b", "exists"));
    expect(missing.passed).toBe(false);
    expect(missing.message).toContain("matched nothing");
    // Nested deep enough to overflow a recursive walk: a failed gate, not a crashed trial.
    const deep = await runOne(
      gate(`printf '%.0s[' $(seq 50000); printf '%.0s]' $(seq 50000)`, "$..x", "exists"),
    );
    expect(deep.passed).toBe(false);
    expect(deep.message).toMatch(
      /^stdout is not usable JSON \(a JSON value nests more than 100 levels deep\)/,
    );
  });

  it("fails a command that runs past the gate timeout and says so", async () => {
    const result = await runOne(
      { ...w, type: "command_succeeds", command: "sleep 5" },
      { gateTimeoutMs: 200 },
    );
    expect(result.passed).toBe(false);
    expect(result.message).toMatch(/`sleep 5` exited 124 \(timed out after \d+ ms\)/);
  });
});

describe("file gates", () => {
  it("file_exists accepts a file or a directory and names what it found", async () => {
    const file = await runOne({ ...w, type: "file_exists", path: "notes.md" });
    expect(file).toMatchObject({ passed: true, message: "notes.md: found a file (36 bytes)" });
    expect((await runOne({ ...w, type: "file_exists", path: "store" })).message).toBe(
      "store: found a directory",
    );
    expect(await runOne({ ...w, type: "file_exists", path: "missing.md" })).toMatchObject({
      passed: false,
      message: "missing.md: not found",
    });
  });

  it("resolves absolute paths inside the sandbox root", async () => {
    expect((await runOne({ ...w, type: "file_exists", path: "/data/people.csv" })).passed).toBe(true);
  });

  it("file_contains reads the file, and fails on a missing file or a directory", async () => {
    expect((await runOne({ ...w, type: "file_contains", path: "notes.md", substring: "CAP" })).passed).toBe(
      true,
    );
    const absent = await runOne({ ...w, type: "file_contains", path: "notes.md", substring: "Raft" });
    expect(absent.passed).toBe(false);
    expect(absent.message).toBe(
      'notes.md (36 bytes) does not contain "Raft"; head: "# Notes\\nCAP theorem: pick two\\nPaxos\\n"',
    );
    expect((await runOne({ ...w, type: "file_contains", path: "gone.md", substring: "x" })).message).toBe(
      "gone.md: not found",
    );
    expect((await runOne({ ...w, type: "file_contains", path: "store", substring: "x" })).message).toBe(
      "store: is a directory, not a file",
    );
  });

  it("file_matches applies the regex to the whole content", async () => {
    expect(
      (await runOne({ ...w, type: "file_matches", path: "notes.md", pattern: "theorem:\\s+pick" })).passed,
    ).toBe(true);
    const failed = await runOne({ ...w, type: "file_matches", path: "notes.md", pattern: "^Paxos$" });
    expect(failed.passed).toBe(false);
    expect(failed.message).toContain("does not match /^Paxos$/");
    expect((await runOne({ ...w, type: "file_matches", path: "nope", pattern: "x" })).message).toBe(
      "nope: not found",
    );
  });
});

describe("no_transcript_errors", () => {
  const invocation = (command: string, exit: number | null): Invocation => ({
    command,
    argv: command.split(" "),
    subcommand: command.split(" ")[1] ?? null,
    options: [],
    exit_code: exit,
    duration_ms: 1,
  });

  it("passes when no target invocation failed (unknown codes do not fail)", async () => {
    const result = await runOne(
      { ...w, type: "no_transcript_errors" },
      { invocations: [invocation("t list", 0), invocation("t show", null)] },
    );
    expect(result).toMatchObject({
      passed: true,
      message: "none of 2 target invocations failed (1 with unknown exit code)",
    });
  });

  it("does not count a target killed by SIGPIPE (exit 141) as failed, and says so", async () => {
    const result = await runOne(
      { ...w, type: "no_transcript_errors" },
      { invocations: [invocation("t help", 141), invocation("t list", 0)] },
    );
    expect(result).toMatchObject({
      passed: true,
      message:
        "none of 2 target invocations failed (1 killed by SIGPIPE, its reader closed the pipe: not an error)",
    });
  });

  it("fails listing the failed invocations", async () => {
    const result = await runOne(
      { ...w, type: "no_transcript_errors" },
      { invocations: [invocation("t create x", 2), invocation("t list", 0)] },
    );
    expect(result).toMatchObject({
      passed: false,
      message: '1 of 2 target invocations failed: "t create x" → 2',
    });
  });
});

describe("behaviour gates", () => {
  const target = { binary: "mlr", env: {} };
  /** A call as the shim records it, read as layer 1 reads it. */
  const call = (argv: string[], exit: number | null = 0, extra: Partial<Invocation> = {}): Invocation => ({
    command: argv.map(quoteShellWord).join(" "),
    argv,
    ...readTargetCall(argv, target),
    exit_code: exit,
    duration_ms: 1,
    ...extra,
  });
  const typedAroundShim = (command: string): Invocation => ({
    command,
    argv: null,
    subcommand: "cat",
    options: [],
    exit_code: 0,
    duration_ms: null,
    around_shim: true,
  });

  describe("forbidden_commands", () => {
    const gate: GateSpec = {
      ...w,
      type: "forbidden_commands",
      subcommands: ["delete"],
      options: ["--force"],
      patterns: ["^mlr .* --ojson"],
    };

    it("passes when no call used what is forbidden, and says how many it looked at", async () => {
      const result = await runOne(gate, {
        invocations: [
          call(["mlr", "--icsv", "cat", "x.csv"]),
          call(["mlr", "--icsv", "--ocsv", "sort", "-f", "a"]),
        ],
      });
      expect(result).toMatchObject({
        passed: true,
        message: "none of 2 target invocations used a forbidden subcommand, option or pattern",
      });
    });

    it("fails naming each offending call and what it used: subcommand, option (with a value), pattern", async () => {
      const result = await runOne(gate, {
        invocations: [
          call(["mlr", "--icsv", "cat", "x.csv"]),
          call(["mlr", "delete", "1"]),
          call(["mlr", "--force=yes", "cat", "x.csv"]),
          call(["mlr", "--icsv", "--ojson", "cat", "x.csv"]),
        ],
      });
      expect(result).toMatchObject({
        passed: false,
        message:
          '3 of 4 target invocations used what is forbidden: "mlr delete 1" (subcommand "delete"); "mlr --force=yes cat x.csv" (option `--force`); "mlr --icsv --ojson cat x.csv" (pattern /^mlr .* --ojson/)',
      });
    });

    it("does not take an option's value or an argument after `--` for the option", async () => {
      const result = await runOne(
        { ...w, type: "forbidden_commands", options: ["--force"] },
        { invocations: [call(["mlr", "grep", "--", "--force", "x.csv"]), call(["mlr", "cat", "--force-x"])] },
      );
      expect(result.passed).toBe(true);
    });

    it("lists three offending calls and counts the rest", async () => {
      const calls = [1, 2, 3, 4, 5].map((n) => call(["mlr", "delete", String(n)]));
      const result = await runOne(
        { ...w, type: "forbidden_commands", subcommands: ["delete"] },
        { invocations: calls },
      );
      expect(result.message).toBe(
        '5 of 5 target invocations used what is forbidden: "mlr delete 1" (subcommand "delete"); "mlr delete 2" (subcommand "delete"); "mlr delete 3" (subcommand "delete"); and 2 more',
      );
    });

    it("judges every recorded call, also those layer 1 does not count (run from a script)", async () => {
      const fromScript = call(["mlr", "--force", "cat", "x.csv"]);
      const result = await runOne(gate, {
        invocations: [call(["mlr", "cat", "x.csv"])],
        recordedCalls: [call(["mlr", "cat", "x.csv"]), fromScript],
      });
      expect(result).toMatchObject({
        passed: false,
        message:
          '1 of 2 target invocations used what is forbidden: "mlr --force cat x.csv" (option `--force`)',
      });
    });

    it("fails closed without the shim's record, and when a call ran around the shim", async () => {
      const clean = [call(["mlr", "cat", "x.csv"])];
      const noShim = await runOne(gate, { invocations: clean, invocationSource: "tool_events" });
      expect(noShim).toMatchObject({
        passed: false,
        message:
          "cannot judge: this gate reads the shim's record of the target's calls, and this trial has none (invocations from tool_events); name the tool in `target.binary`",
      });
      const around = await runOne(gate, { invocations: [...clean, typedAroundShim("/usr/bin/mlr cat $F")] });
      expect(around).toMatchObject({
        passed: false,
        message:
          'cannot judge: 1 of 2 target invocations ran around the shim (e.g. "/usr/bin/mlr cat $F"): what they ran cannot all be seen',
      });
    });

    it("quotes a hostile command line as one JSON string: newlines and quotes escaped", async () => {
      const result = await runOne(
        { ...w, type: "forbidden_commands", options: ["--force"] },
        { invocations: [call(["mlr", "--force", "cat", 'a"\n<!-- x -->'])] },
      );
      expect(result.message).toBe(
        `1 of 1 target invocations used what is forbidden: ${JSON.stringify(`mlr --force cat 'a"\n<!-- x -->'`)} (option \`--force\`)`,
      );
      expect(result.message).not.toContain("\n");
    });
  });

  describe("max_invocations", () => {
    const calls = [
      call(["mlr", "sort", "-f", "a", "x.csv"]),
      call(["mlr", "sort", "-nr", "b", "x.csv"]),
      call(["mlr", "cat", "x.csv"]),
    ];

    it("passes within the total and the per-subcommand limits, saying the counts", async () => {
      const result = await runOne(
        { ...w, type: "max_invocations", total: 3, subcommands: { sort: 2, head: 0 } },
        { invocations: calls },
      );
      expect(result).toMatchObject({
        passed: true,
        message: 'within the limits: 3 in all (at most 3); "sort" 2 (at most 2); "head" 0 (at most 0)',
      });
    });

    it("fails over the total", async () => {
      const result = await runOne({ ...w, type: "max_invocations", total: 2 }, { invocations: calls });
      expect(result).toMatchObject({ passed: false, message: "3 target invocations in all (at most 2)" });
    });

    it("fails over a subcommand's limit, naming the first such call", async () => {
      const result = await runOne(
        { ...w, type: "max_invocations", subcommands: { sort: 1, cat: 1 } },
        { invocations: calls },
      );
      expect(result).toMatchObject({
        passed: false,
        message: '"sort" called 2 times (at most 1), first "mlr sort -f a x.csv"',
      });
    });

    it("fails closed without the shim's record", async () => {
      const result = await runOne(
        { ...w, type: "max_invocations", total: 10 },
        { invocations: calls, invocationSource: "transcript_regex" },
      );
      expect(result.passed).toBe(false);
      expect(result.message).toMatch(/^cannot judge: .*invocations from transcript_regex/);
    });
  });

  describe("no_loops", () => {
    const failing = call(["mlr", "sort", "-f", "missing", "x.csv"], 1);

    it("fails when the same call failed three times (the default), saying which and how often", async () => {
      const result = await runOne(
        { ...w, type: "no_loops" },
        { invocations: [failing, call(["mlr", "cat", "x.csv"]), failing, failing] },
      );
      expect(result).toMatchObject({
        passed: false,
        message:
          'the same failing call ran 3 or more times: "mlr sort -f missing x.csv" failed 3 times (exit 1)',
      });
    });

    it("passes below the threshold; other argv, successes, SIGPIPE and unknown exits are not the loop", async () => {
      const result = await runOne(
        { ...w, type: "no_loops" },
        {
          invocations: [
            failing,
            failing,
            call(["mlr", "sort", "-f", "missing", "y.csv"], 1),
            call(["mlr", "sort", "-f", "missing", "x.csv"], 0),
            call(["mlr", "sort", "-f", "missing", "x.csv"], 141),
            call(["mlr", "sort", "-f", "missing", "x.csv"], null),
          ],
        },
      );
      expect(result).toMatchObject({
        passed: true,
        message: "no failing call ran 3 times (3 failed calls; the most repeated failed 2 times)",
      });
    });

    it("takes its threshold from `repeats`", async () => {
      const result = await runOne(
        { ...w, type: "no_loops", repeats: 2 },
        { invocations: [failing, failing] },
      );
      expect(result.passed).toBe(false);
      expect(result.message).toContain("failed 2 times");
    });

    it("passes with no failed calls, and fails closed without the shim's record", async () => {
      expect(await runOne({ ...w, type: "no_loops" }, { invocations: [call(["mlr", "cat"])] })).toMatchObject(
        {
          passed: true,
          message: "none of 1 target invocations failed",
        },
      );
      const noShim = await runOne({ ...w, type: "no_loops" }, { invocations: [], invocationSource: "none" });
      expect(noShim.passed).toBe(false);
    });
  });
});

describe("script gates", () => {
  it("passes on exit 0 and fails otherwise", async () => {
    expect((await runOne({ ...w, type: "script", command: "test -f notes.md" })).passed).toBe(true);
    const failed = await runOne({
      ...w,
      type: "script",
      command: "echo checking; exit 4",
      description: "store sane",
    });
    expect(failed).toMatchObject({ passed: false, description: "store sane" });
    expect(failed.message).toContain("exited 4");
  });

  it("lets stdout JSON win over the exit code, with message and numeric metrics", async () => {
    const passing = await runOne({
      ...w,
      type: "script",
      command: `echo 'some log line'; echo '{"passed": true, "message": "3 notes linked"}'; exit 1`,
    });
    expect(passing).toMatchObject({ passed: true, message: "3 notes linked" });
    const failing = await runOne({
      ...w,
      type: "script",
      command: `echo '{"passed": false, "message": "orphans found", "metrics": {"orphans": 2, "ratio": 0.5, "note": "x"}}'`,
    });
    expect(failing).toEqual({
      gate_type: "script",
      passed: false,
      message: "orphans found",
      weight: 1,
      metrics: { orphans: 2, ratio: 0.5 },
    });
  });

  it("ignores JSON without a boolean passed", async () => {
    const result = await runOne({ ...w, type: "script", command: `echo '{"passed": "yes"}'; exit 2` });
    expect(result.passed).toBe(false);
  });

  it("gets the LLM_TOOL_TEST_* variables", async () => {
    const result = await runOne(
      {
        ...w,
        type: "script",
        command: `echo "{\\"passed\\": true, \\"message\\": \\"$LLM_TOOL_TEST_SCENARIO/$LLM_TOOL_TEST_TRIAL/$LLM_TOOL_TEST_MODEL\\"}"`,
      },
      {
        scriptEnv: {
          LLM_TOOL_TEST_SCENARIO: "create_and_link",
          LLM_TOOL_TEST_TRIAL: "2",
          LLM_TOOL_TEST_MODEL: "m 1",
        },
      },
    );
    expect(result.message).toBe("create_and_link/2/m 1");
  });
});

describe("final answer gates", () => {
  const response = (turn: number, text: string): TrialEvent => ({
    type: "model_response",
    turn,
    stop_reason: "end_turn",
    usage: { input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0 },
    text,
    tool_uses: [],
    duration_ms: 100,
    ts: "2026-01-01T00:00:00.000Z",
    t_ms: turn * 10,
  });

  it("final_answer_contains reads the text of the agent's last message that has any", async () => {
    const events = [
      response(1, "Let me look: the answer is 41"),
      response(2, "The answer is 42."),
      response(3, "  "),
    ];
    const found = await runOne({ ...w, type: "final_answer_contains", substring: "42" }, { events });
    expect(found).toMatchObject({ passed: true, message: 'the final answer contains "42"' });
    // An earlier message that said it does not count.
    const earlier = await runOne({ ...w, type: "final_answer_contains", substring: "41" }, { events });
    expect(earlier).toMatchObject({
      passed: false,
      message: 'the final answer does not contain "41"; it reads: "The answer is 42."',
    });
  });

  it("final_answer_matches applies the regex to it", async () => {
    const events = [response(1, "Total: 1,204 rows")];
    expect(
      (await runOne({ ...w, type: "final_answer_matches", pattern: "\\b1,?204\\b" }, { events })).passed,
    ).toBe(true);
    const failed = await runOne({ ...w, type: "final_answer_matches", pattern: "^\\d+$" }, { events });
    expect(failed.message).toBe('the final answer does not match /^\\d+$/; it reads: "Total: 1,204 rows"');
  });

  it("reads a command agent's stdout as its answer, and fails without any answer", async () => {
    const output: TrialEvent[] = [
      { type: "agent_output", text: "working...\nresult: ok", ts: "2026-01-01T00:00:00.000Z", t_ms: 1 },
    ];
    expect(
      (await runOne({ ...w, type: "final_answer_contains", substring: "result: ok" }, { events: output }))
        .passed,
    ).toBe(true);
    const none = await runOne({ ...w, type: "final_answer_contains", substring: "x" }, { events: [] });
    expect(none).toMatchObject({
      passed: false,
      message: "the agent gave no final answer (no text in its last message)",
    });
  });
});

describe("bashkit-eval checks", () => {
  let events: TrialEvent[];
  beforeAll(() => {
    const log = createEventLog();
    log.call("mkdir -p /out && echo hello > /out/a.txt", 0, { stdout: "" });
    log.call("cat /out/a.txt", 0, { stdout: "hello\nworld 42\n" });
    log.call("grep nope /out/a.txt", 1, { stderr: "" });
    events = log.events;
  });

  it("exit_code:N looks at the last tool call", async () => {
    expect((await runOne({ ...w, type: "exit_code", code: 1 }, { events })).passed).toBe(true);
    const failed = await runOne({ ...w, type: "exit_code", code: 0 }, { events });
    expect(failed).toMatchObject({
      passed: false,
      message: 'last tool call exited 1 (expected 0): "grep nope /out/a.txt"',
    });
    const none = await runOne({ ...w, type: "exit_code", code: 0 });
    expect(none).toMatchObject({
      passed: false,
      message: "expected exit code 0, but the agent made no tool calls",
    });
  });

  it("stdout_contains and stdout_regex look at any tool call's stdout", async () => {
    expect((await runOne({ ...w, type: "stdout_contains", substring: "world" }, { events })).passed).toBe(
      true,
    );
    expect((await runOne({ ...w, type: "stdout_regex", pattern: "world \\d+" }, { events })).passed).toBe(
      true,
    );
    const failed = await runOne({ ...w, type: "stdout_contains", substring: "World" }, { events });
    expect(failed.passed).toBe(false);
    expect(failed.message).toContain('no stdout of 3 tool calls contains "World"');
    expect((await runOne({ ...w, type: "stdout_regex", pattern: "^world" }, { events })).passed).toBe(false);
  });

  it("stderr_empty requires every call's stderr to be empty", async () => {
    expect((await runOne({ ...w, type: "stderr_empty" }, { events })).passed).toBe(true);
    const log = createEventLog();
    log.call("ls", 0);
    log.call("cat nope", 1, { stderr: "cat: nope: No such file or directory\n" });
    const failed = await runOne({ ...w, type: "stderr_empty" }, { events: log.events });
    expect(failed.passed).toBe(false);
    expect(failed.message).toContain("1 of 2 tool calls wrote to stderr");
  });

  it("dir_exists needs a directory", async () => {
    expect((await runOne({ ...w, type: "dir_exists", path: "/data" })).passed).toBe(true);
    expect(await runOne({ ...w, type: "dir_exists", path: "/data/people.csv" })).toMatchObject({
      passed: false,
      message: "/data/people.csv: found a file, not a directory",
    });
    expect((await runOne({ ...w, type: "dir_exists", path: "/nope" })).passed).toBe(false);
  });

  it("file_line_regex needs one single line to match (CRLF tolerated)", async () => {
    const gate = (pattern: string): GateSpec => ({
      ...w,
      type: "file_line_regex",
      path: "/data/people.csv",
      pattern,
    });
    expect(await runOne(gate("^Bob,Ops$"))).toMatchObject({
      passed: true,
      message: "/data/people.csv line 3 matches /^Bob,Ops$/",
    });
    const failed = await runOne(gate("^Alice,Ops$"));
    expect(failed.passed).toBe(false);
    expect(failed.message).toContain("no line of /data/people.csv");
  });

  it("tool_calls_min and tool_calls_max count the agent's calls", async () => {
    expect((await runOne({ ...w, type: "tool_calls_min", count: 3 }, { events })).passed).toBe(true);
    expect(await runOne({ ...w, type: "tool_calls_min", count: 4 }, { events })).toMatchObject({
      passed: false,
      message: "3 tool calls (expected at least 4)",
    });
    expect((await runOne({ ...w, type: "tool_calls_max", count: 3 }, { events })).passed).toBe(true);
    expect((await runOne({ ...w, type: "tool_calls_max", count: 2 }, { events })).passed).toBe(false);
  });

  it("llm_judge is a stub that passes and says so", async () => {
    const result = await runOne({ weight: 0, type: "llm_judge", prompt: "is it good?" });
    expect(result).toMatchObject({ passed: true, weight: 0 });
    expect(result.message).toMatch(/^not evaluated/);
  });
});

describe("evaluateGates as a whole", () => {
  it("runs every gate in declaration order without short-circuit, and scores by weight", async () => {
    const before = sandbox.commands.length;
    const gates: GateSpec[] = [
      { weight: 2, type: "command_succeeds", command: "echo first" },
      { weight: 1, type: "command_succeeds", command: "exit 1" },
      { weight: 3, type: "file_exists", path: "missing" },
      { weight: 0.5, type: "command_succeeds", command: "echo last" },
    ];
    const results = await evaluateGates(gates, context());
    expect(sandbox.commands.slice(before)).toEqual(["echo first", "exit 1", "echo last"]);
    expect(results.map((r) => [r.gate_type, r.passed, r.weight])).toEqual([
      ["command_succeeds", true, 2],
      ["command_succeeds", false, 1],
      ["file_exists", false, 3],
      ["command_succeeds", true, 0.5],
    ]);
    expect(scoreGates(results)).toEqual({ score: 2.5, max_score: 6.5, gates_passed: 2, gates_total: 4 });
  });

  it("turns a gate that throws into a failed result and goes on", async () => {
    let calls = 0;
    const flaky: GateContext["sandbox"] = {
      gateFiles: sandbox.gateFiles,
      runGateCommand: async (command, options) => {
        calls += 1;
        if (calls === 1) throw new Error("sandbox exploded");
        return sandbox.runGateCommand(command, options);
      },
    };
    const results = await evaluateGates(
      [
        { ...w, type: "command_succeeds", command: "true" },
        { ...w, type: "command_succeeds", command: "true" },
      ],
      context({ sandbox: flaky }),
    );
    expect(results.map((r) => [r.passed, r.message])).toEqual([
      [false, "gate error: sandbox exploded"],
      [true, "`true` exited 0; stdout empty"],
    ]);
  });

  it("cuts a long message and keeps at most 50 of a script's metrics", async () => {
    const result = await runOne({
      ...w,
      type: "script",
      command: `m=$(printf 'x%.0s' $(seq 1 5000)); metrics=$(for i in $(seq 1 60); do printf '"m%d": %d,' $i $i; done); echo "{\\"passed\\": false, \\"message\\": \\"$m\\", \\"metrics\\": {\${metrics%,}}}"`,
    });
    expect(result.message).toBe(`${"x".repeat(MAX_GATE_MESSAGE_CHARS)}…`);
    expect(Object.keys(result.metrics ?? {})).toHaveLength(50);
  });

  it("gives up a gate that never finishes at its deadline, and goes on", async () => {
    vi.useFakeTimers();
    try {
      const hung: GateContext["sandbox"] = {
        gateFiles: sandbox.gateFiles,
        runGateCommand: (command, options) =>
          command === "hang" ? new Promise(() => undefined) : sandbox.runGateCommand(command, options),
      };
      const evaluation = evaluateGates(
        [
          { ...w, type: "command_succeeds", command: "hang" },
          { ...w, type: "tool_calls_max", count: 0 },
        ],
        context({ sandbox: hung, gateTimeoutMs: 1000 }),
      );
      await vi.advanceTimersByTimeAsync(1000 + GATE_GRACE_MS);
      expect((await evaluation).map((r) => [r.passed, r.message])).toEqual([
        [false, `gate did not finish within ${1000 + GATE_GRACE_MS} ms, given up`],
        [true, "0 tool calls (expected at most 0)"],
      ]);
    } finally {
      vi.useRealTimers();
    }
  });

  it("stops at the run's cancel: the gate in progress ends, the rest are not run", async () => {
    const cancel = new AbortController();
    const seen: (AbortSignal | undefined)[] = [];
    const hung: GateContext["sandbox"] = {
      gateFiles: sandbox.gateFiles,
      runGateCommand: (_command, options) => {
        seen.push(options.signal);
        cancel.abort("cancelled");
        return new Promise(() => undefined);
      },
    };
    const results = await evaluateGates(
      [
        { ...w, type: "command_succeeds", command: "hang" },
        { ...w, type: "tool_calls_max", count: 0 },
      ],
      context({ sandbox: hung, signal: cancel.signal }),
    );
    expect(results.map((r) => [r.passed, r.message])).toEqual([
      [false, "not evaluated: the run was cancelled"],
      [false, "not evaluated: the run was cancelled"],
    ]);
    // The command itself got the signal, so the sandbox ends it.
    expect(seen).toEqual([cancel.signal]);
  });

  it("scores an empty gate list as zero of zero", () => {
    expect(scoreGates([])).toEqual({ score: 0, max_score: 0, gates_passed: 0, gates_total: 0 });
  });
});
