import { describe, expect, it } from "vitest";
import {
  extractInvocations,
  extractToolEventInvocations,
  findArgvOptions,
  findArgvSubcommand,
  findPossibleGlobalOptions,
  quoteShellWord,
  RECORD_SKEW_MS,
  splitShellSegment,
} from "../../src/evaluate/invocations.js";
import type { TrialEvent } from "../../src/transcript/events.js";
import { createEventLog } from "../support/event-builder.js";

describe("extractInvocations: source order", () => {
  it("uses the shim whenever a binary is named, even with zero records", () => {
    const log = createEventLog();
    // The tool may have been skipped (`test` failed): the shim saw nothing, so nothing ran.
    log.call("test -f x && my-tool list", 1);
    const result = extractInvocations(log.events, {
      binary: "my-tool",
      commandPattern: "my-tool\\s+(\\S+)",
      env: {},
    });
    expect(result).toEqual({ source: "shim", invocations: [] });
  });

  it("takes exact argv, exit code and duration from the shim, subcommand from the pattern group", () => {
    const log = createEventLog();
    log.shim(["my-tool", "--verbose", "create", "it's here"], 3, 42);
    const { invocations } = extractInvocations(log.events, {
      binary: "my-tool",
      commandPattern: "my-tool\\s+--verbose\\s+(\\S+)",
      env: {},
    });
    expect(invocations).toEqual([
      {
        command: "my-tool --verbose create 'it'\\''s here'",
        argv: ["my-tool", "--verbose", "create", "it's here"],
        subcommand: "create",
        options: ["--verbose"],
        exit_code: 3,
        duration_ms: 42,
      },
    ]);
  });

  it("falls back to the first non-option argument when the pattern does not match", () => {
    const log = createEventLog();
    log.shim(["my-tool", "-q", "list", "--all"], 0);
    const { invocations } = extractInvocations(log.events, {
      binary: "my-tool",
      commandPattern: "nomatch (x)",
      env: {},
    });
    expect(invocations[0]?.subcommand).toBe("list");
  });

  it("uses tool events with the pattern when there is no binary", () => {
    const log = createEventLog();
    log.call("echo start", 0);
    log.call('my-tool create "two words" 2>&1 | tee out.txt', 1);
    const result = extractInvocations(log.events, { commandPattern: "my-tool\\s+(\\S+)", env: {} });
    expect(result.source).toBe("tool_events");
    expect(result.invocations).toEqual([
      {
        command: 'my-tool create "two words"',
        argv: ["my-tool", "create", "two words"],
        subcommand: "create",
        options: [],
        // tee's status is the call's: my-tool's own is unknown.
        exit_code: null,
        duration_ms: null,
        call_id: "call_2",
      },
    ]);
  });

  it("counts an agent with no tool calls and no free text as tool events with N = 0", () => {
    const log = createEventLog();
    log.response(1);
    log.end("natural_stop");
    expect(extractInvocations(log.events, { commandPattern: "t (\\S+)", env: {} })).toEqual({
      source: "tool_events",
      invocations: [],
    });
  });

  it("falls back to the transcript regex for free-text agents, with unknown exit codes", () => {
    const log = createEventLog();
    log.push({ type: "agent_output", text: "Running `my-tool show 3`\nok\n" });
    log.push({ type: "agent_output", text: "$ my-tool list --all > x.txt" });
    const result = extractInvocations(log.events, { commandPattern: "my-tool\\s+(\\S+)", env: {} });
    expect(result.source).toBe("transcript_regex");
    expect(result.invocations).toEqual([
      {
        command: "my-tool show 3",
        argv: ["my-tool", "show", "3"],
        subcommand: "show",
        options: [],
        exit_code: null,
        duration_ms: null,
      },
      {
        command: "my-tool list --all > x.txt",
        argv: ["my-tool", "list", "--all"],
        subcommand: "list",
        options: ["--all"],
        exit_code: null,
        duration_ms: null,
      },
    ]);
  });

  it("reports none when nothing identifies the target", () => {
    const log = createEventLog();
    log.call("my-tool list", 0);
    expect(extractInvocations(log.events, { env: {} })).toEqual({ source: "none", invocations: [] });
  });
});

describe("extractToolEventInvocations by binary name", () => {
  it("matches the binary as a whole word, also behind a path or a pipe", () => {
    const log = createEventLog();
    log.call("./bin/my-tool list", 0);
    log.call("my-tool-extra list", 0);
    log.call("echo my-tools", 0);
    log.call("cat notes.txt | my-tool import -", 2);
    const invocations = extractToolEventInvocations(log.events, { binary: "/opt/bin/my-tool", env: {} });
    expect(invocations.map((i) => [i.argv, i.subcommand, i.exit_code])).toEqual([
      [["./bin/my-tool", "list"], "list", 0],
      [["my-tool", "import", "-"], "import", 2],
    ]);
  });

  it("gives a null exit code to a call that never got its result", () => {
    const log = createEventLog();
    log.push({ type: "tool_call", call_id: "c1", turn: 1, command: "my-tool sync" });
    log.end("timeout");
    const [invocation] = extractToolEventInvocations(log.events, { binary: "my-tool", env: {} });
    expect(invocation?.exit_code).toBeNull();
    expect(invocation?.duration_ms).toBeNull();
  });
});

describe("shell helpers", () => {
  it("splits up to the next control operator, dropping redirections", () => {
    expect(splitShellSegment(`t a 'b c' "d \\"e\\"" f\\ g 2>/dev/null >out && t x`)).toEqual([
      "t",
      "a",
      "b c",
      'd "e"',
      "f g",
    ]);
    expect(splitShellSegment("x=$(t list; echo)", 4)).toEqual(["t", "list"]);
  });

  it("finds the subcommand after options and after --", () => {
    expect(findArgvSubcommand(["t", "--verbose", "list"])).toBe("list");
    expect(findArgvSubcommand(["t", "--", "-x"])).toBe("-x");
    expect(findArgvSubcommand(["t", "-v"])).toBeNull();
  });

  it("skips the value of a listed global option, in every spelling getopt accepts", () => {
    const options = ["-f", "--file", "-config"];
    const sub = (...args: string[]) => findArgvSubcommand(["hledger", ...args], options);
    expect(sub("-f", "main.journal", "balance")).toBe("balance");
    expect(sub("--file", "main.journal", "reg", "food")).toBe("reg");
    expect(sub("--file=main.journal", "balance")).toBe("balance");
    expect(sub("-fmain.journal", "balance")).toBe("balance");
    // -v and -S are flags, -f takes the next argument.
    expect(sub("-vSf", "main.journal", "print")).toBe("print");
    // Glued after the option letter: the rest of the cluster is its value.
    expect(sub("-vfmain.journal", "print")).toBe("print");
    expect(sub("-config", "x.toml", "serve")).toBe("serve");
    expect(sub("-f", "main.journal", "--", "-weird")).toBe("-weird");
    expect(sub("-f", "main.journal")).toBeNull();
    // Unlisted options take nothing: their argument is the subcommand, as before.
    expect(sub("-o", "out.txt", "balance")).toBe("out.txt");
    // Without the list, -f's value is taken for the subcommand (why the list exists).
    expect(findArgvSubcommand(["hledger", "-f", "main.journal", "balance"])).toBe("main.journal");
  });

  it("quotes only words that need it", () => {
    expect(quoteShellWord("plain-word_1.txt")).toBe("plain-word_1.txt");
    expect(quoteShellWord("")).toBe("''");
    expect(quoteShellWord("a b")).toBe("'a b'");
    expect(quoteShellWord("$HOME")).toBe("'$HOME'");
  });
});

/** A shim record made while the last tool call ran (between its tool_call and tool_result). */
function shimDuringLastCall(log: ReturnType<typeof createEventLog>, argv: string[], exitCode: number) {
  const call = log.events.findLast((event) => event.type === "tool_call");
  if (!call) throw new Error("no tool call yet");
  log.push({
    type: "target_invocation",
    argv,
    exit_code: exitCode,
    duration_ms: 2,
    cwd: null,
    started_at_ms: Date.parse(call.ts) + 3,
  });
}

describe("extractInvocations with a binary: calls the shim did not see", () => {
  const target = { binary: "my-tool", env: {} };

  it("adds an invocation by absolute path (which bypasses the PATH shim) from the tool events", () => {
    const log = createEventLog();
    log.call("/abs/path/to/my-tool fail", 1); // bypasses the shim: no record
    log.call("my-tool ok", 0);
    shimDuringLastCall(log, ["my-tool", "ok"], 0);
    const result = extractInvocations(log.events, target);
    expect(result.source).toBe("shim");
    expect(result.invocations.map((i) => [i.argv, i.exit_code])).toEqual([
      [["/abs/path/to/my-tool", "fail"], 1],
      [["my-tool", "ok"], 0],
    ]);
    // Marked, so no_transcript_errors fails closed, and said.
    expect(result.invocations.map((i) => i.around_shim === true)).toEqual([true, false]);
    expect(result.disagreements).toEqual([
      "tool call 1: `/abs/path/to/my-tool fail` ran around the shim (by its path); counted from the tool call",
    ]);
  });

  it("finds path invocations with command_pattern too, and relative paths", () => {
    const log = createEventLog();
    log.call("cd sub && ./bin/my-tool create x", 2);
    const { invocations } = extractInvocations(log.events, {
      binary: "my-tool",
      commandPattern: "my-tool\\s+(\\S+)",
      env: {},
    });
    expect(invocations.map((i) => [i.command, i.subcommand, i.exit_code])).toEqual([
      ["./bin/my-tool create x", "create", 2],
    ]);
  });

  it("does not count twice a path the shim did see (the shim's own path, found with `which`)", () => {
    const log = createEventLog();
    log.call("/run/llm-tool-test/bin/my-tool list --all", 0);
    shimDuringLastCall(log, ["my-tool", "list", "--all"], 0);
    expect(extractInvocations(log.events, target).invocations).toHaveLength(1);
  });

  it("keeps a path invocation beside a bare one with the same arguments in one call", () => {
    const log = createEventLog();
    log.call("my-tool list; /opt/my-tool list", 3);
    shimDuringLastCall(log, ["my-tool", "list"], 0);
    const { invocations } = extractInvocations(log.events, target);
    expect(invocations.map((i) => [i.argv?.[0], i.exit_code])).toEqual([
      ["my-tool", 0],
      ["/opt/my-tool", 3],
    ]);
  });

  it("never adds bare-name calls that may not have run: those went through the shim", () => {
    const log = createEventLog();
    log.call("my-tool list; echo done", 0); // no record: the shim saw no such call, so there was none
    log.call("[ -f a ] && my-tool show a", 1);
    expect(extractInvocations(log.events, target)).toEqual({ source: "shim", invocations: [] });
  });

  it("does not let added records improve the metrics: unexplained successes are dropped and flagged", () => {
    const log = createEventLog();
    for (let index = 0; index < 3; index += 1) {
      log.call("my-tool fail", 1);
      log.shim(["my-tool", "fail"], 1);
    }
    // A forged success written during a call that never invokes the target.
    log.call("printf 'v1...' >> /run/llm-tool-test/log/records", 0);
    log.shim(["my-tool", "fail"], 0);
    const result = extractInvocations(log.events, target);
    expect(result.invocations.map((i) => i.exit_code)).toEqual([1, 1, 1]);
    expect(result.disagreements).toEqual([
      "1 shim record(s) match no tool call that invokes the target (run from a script, or forged); 1 reporting success not counted",
    ]);
  });

  it("keeps every record, unexplained successes too, in recordedCalls (what the behaviour gates judge)", () => {
    const log = createEventLog();
    log.call("my-tool list", 0);
    log.shim(["my-tool", "list"], 0);
    // The target run from a script: no typed invocation explains the record.
    log.call("bash run.sh", 0);
    log.shim(["my-tool", "--force", "drop"], 0);
    const result = extractInvocations(log.events, target);
    expect(result.invocations.map((i) => i.command)).toEqual(["my-tool list"]);
    expect(result.recordedCalls?.map((i) => [i.command, i.subcommand, i.options, i.exit_code])).toEqual([
      ["my-tool list", "list", [], 0],
      ["my-tool --force drop", "drop", ["--force"], 0],
    ]);
  });

  it("does not count a success back-dated into a call that ran the target once", () => {
    const log = createEventLog();
    log.call("my-tool fail", 1);
    const callAt = Date.parse(log.events[0]!.ts);
    log.push({
      type: "target_invocation",
      argv: ["my-tool", "fail"],
      exit_code: 0,
      duration_ms: 1,
      cwd: null,
      started_at_ms: callAt,
    });
    log.shim(["my-tool", "fail"], 1);
    const result = extractInvocations(log.events, target);
    expect(result.invocations.map((i) => i.exit_code)).toEqual([1]);
    expect(result.disagreements?.[0]).toContain("1 reporting success not counted");
  });

  it("keeps every record of a call that loops over the target", () => {
    const log = createEventLog();
    log.call("for x in a b c; do my-tool show $x; done", 0);
    for (const name of ["a", "b", "c"]) log.shim(["my-tool", "show", name], 0);
    const result = extractInvocations(log.events, target);
    expect(result.invocations).toHaveLength(3);
    expect(result.disagreements).toBeUndefined();
  });

  it("keeps every record of a loop made of nothing but the target's commands", () => {
    const log = createEventLog();
    // Each command of the call is the target, yet the loop runs them more times than they are typed.
    log.call("while my-tool next; do my-tool show; done", 0);
    for (const [argv, exitCode] of [
      [["my-tool", "next"], 0],
      [["my-tool", "show"], 0],
      [["my-tool", "next"], 0],
      [["my-tool", "show"], 0],
      [["my-tool", "next"], 1],
    ] as const) {
      log.shim([...argv], exitCode);
    }
    const result = extractInvocations(log.events, target);
    expect(result.invocations.map((i) => i.exit_code)).toEqual([0, 0, 0, 0, 1]);
    expect(result.disagreements).toBeUndefined();
  });

  it("counts the worse of the two when the record of a call's last command and the shell disagree", () => {
    const log = createEventLog();
    log.call("my-tool fail", 1);
    log.shim(["my-tool", "fail"], 0);
    const result = extractInvocations(log.events, target);
    expect(result.invocations.map((i) => i.exit_code)).toEqual([1]);
    expect(result.disagreements).toEqual([
      "tool call 1: the shim recorded exit code 0, the agent's shell reported 1; its failure counts",
    ]);
  });

  it("keeps the shim's failure when the agent's shell reports success for the call (a forged status)", () => {
    const log = createEventLog();
    // The shell claimed 0 (a function named `builtin` forged it); the shim saw the tool exit 2.
    log.call("my-tool fail", 0);
    log.shim(["my-tool", "fail"], 2);
    const result = extractInvocations(log.events, target);
    expect(result.invocations.map((i) => i.exit_code)).toEqual([2]);
    expect(result.disagreements).toEqual([
      "tool call 1: the shim recorded exit code 2, the agent's shell reported 0; the shim's counts",
    ]);
  });

  it("keeps the shim's code when both say the call failed, and SIGPIPE is no failure on either side", () => {
    const log = createEventLog();
    log.call("my-tool fail", 1);
    log.shim(["my-tool", "fail"], 3);
    log.call("my-tool help", 0);
    log.shim(["my-tool", "help"], 141);
    const result = extractInvocations(log.events, target);
    expect(result.invocations.map((i) => i.exit_code)).toEqual([3, 141]);
    expect(result.disagreements).toEqual([
      "tool call 1: the shim recorded exit code 3, the agent's shell reported 1; the shim's counts",
      "tool call 2: the shim recorded exit code 141, the agent's shell reported 0; the shim's counts",
    ]);
  });

  it("counts a call that surely ran the target but left no record from the tool call, and says so", () => {
    const log = createEventLog();
    log.call("my-tool list", 2); // the record was lost or diverted (local mode: the agent can)
    const result = extractInvocations(log.events, target);
    expect(result.invocations.map((i) => [i.command, i.exit_code])).toEqual([["my-tool list", 2]]);
    expect(result.disagreements).toEqual([
      "tool call 1: the shim recorded no call of `my-tool list` (run around the shim, or its record lost); counted from the tool call",
    ]);
  });
});

describe("extractToolEventInvocations: one invocation per command, exit code only for the last", () => {
  const target = { commandPattern: "my-tool\\s+(\\S+)", env: {} };

  it("gives the call's exit code to the last command only; earlier ones are unknown", () => {
    const log = createEventLog();
    log.call("my-tool ok a; my-tool fail", 1);
    const invocations = extractToolEventInvocations(log.events, target);
    expect(invocations.map((i) => [i.command, i.exit_code])).toEqual([
      ["my-tool ok a", null],
      ["my-tool fail", 1],
    ]);
  });

  it("gives no exit code to a command piped into another one", () => {
    const log = createEventLog();
    log.call("my-tool list | head -3", 0);
    expect(extractToolEventInvocations(log.events, target).map((i) => i.exit_code)).toEqual([null]);
  });

  it("counts only commands at a command position, not words in quotes, echo, comments or heredocs", () => {
    const log = createEventLog();
    log.call('echo "I could run my-tool --help"', 0);
    log.call("grep 'my-tool list' notes.txt # then my-tool help", 0);
    log.call("cat > run.sh <<'EOF'\nmy-tool help\nEOF\nchmod +x run.sh", 0);
    expect(extractToolEventInvocations(log.events, target)).toEqual([]);
  });

  it("finds commands after keywords, assignments, wrappers and in substitutions", () => {
    const log = createEventLog();
    log.call(
      'if my-tool check; then echo ok; fi\nX=1 my-tool env\nid=$(my-tool create "a b")\nls | xargs my-tool add',
      0,
    );
    expect(extractToolEventInvocations(log.events, target).map((i) => i.argv)).toEqual([
      ["my-tool", "check"],
      ["my-tool", "env"],
      ["my-tool", "create", "a b"],
      ["my-tool", "add"],
    ]);
  });

  it("strips quoting from the pattern's capture", () => {
    const log = createEventLog();
    log.call('my-tool "list"', 0);
    expect(extractToolEventInvocations(log.events, target)[0]?.subcommand).toBe("list");
  });
});

describe("extractTranscriptInvocations: captures without Markdown debris", () => {
  it("drops backticks, quotes and emphasis around the subcommand", () => {
    const log = createEventLog();
    log.push({
      type: "agent_output",
      text: "I ran `my-tool list` and **my-tool show**, then 'my-tool sync'.",
    });
    const result = extractInvocations(log.events, { commandPattern: "my-tool\\s+(\\S+)", env: {} });
    expect(result.source).toBe("transcript_regex");
    expect(result.invocations.map((i) => i.subcommand)).toEqual(["list", "show", "sync"]);
  });
});

describe("extractInvocations with a binary: an honest agent's timing and a pattern that misses", () => {
  /** A record of `argv` that started `offsetMs` after the last tool call's timestamp (negative: before). */
  function recordAround(
    log: ReturnType<typeof createEventLog>,
    argv: string[],
    exitCode: number,
    offsetMs: number,
  ) {
    const call = log.events.findLast((event) => event.type === "tool_call");
    if (!call) throw new Error("no tool call yet");
    log.push({
      type: "target_invocation",
      argv,
      exit_code: exitCode,
      duration_ms: 5,
      cwd: null,
      started_at_ms: Date.parse(call.ts) + offsetMs,
    });
  }

  it("matches records that started before their call was seen (an external agent's stream lags)", () => {
    // Claude Code runs a Bash call before its message reaches the harness: each record starts
    // 40 ms before the call's event, and ends before it too.
    const log = createEventLog({ stepMs: 30 });
    log.call("my-tool show a", 0);
    recordAround(log, ["my-tool", "show", "a"], 0, -40);
    log.call("my-tool show b", 5);
    recordAround(log, ["my-tool", "show", "b"], 5, -40);
    log.call("my-tool show a", 0);
    recordAround(log, ["my-tool", "show", "a"], 0, -40);
    const result = extractInvocations(log.events, { binary: "my-tool", env: {} });
    expect(result.invocations.map((i) => [i.command, i.exit_code])).toEqual([
      ["my-tool show a", 0],
      ["my-tool show b", 5],
      ["my-tool show a", 0],
    ]);
    expect(result.disagreements).toBeUndefined();
    expect(result.invocations.some((i) => i.around_shim)).toBe(false);
  });

  it("still flags a forged success next to a call that ran the target once, whatever the skew allowance", () => {
    const log = createEventLog({ stepMs: 30 });
    log.call("my-tool show a", 3);
    recordAround(log, ["my-tool", "show", "a"], 3, 2);
    recordAround(log, ["my-tool", "show", "a"], 0, -20);
    const result = extractInvocations(log.events, { binary: "my-tool", env: {} });
    expect(result.invocations.map((i) => i.exit_code)).toEqual([3]);
    expect(result.disagreements?.join("\n")).toMatch(
      /1 shim record\(s\) match no tool call.*1 reporting success not counted/,
    );
  });

  it("counts the calls command_pattern misses and reports them, instead of dropping them as forged", () => {
    const log = createEventLog();
    const target = { binary: "hledger", commandPattern: "hledger\\s+-f\\s+\\S+\\s+(\\S+)", env: {} };
    log.call("hledger -f main.journal balance", 0);
    recordAround(log, ["hledger", "-f", "main.journal", "balance"], 0, 1);
    log.call("hledger --help", 0);
    recordAround(log, ["hledger", "--help"], 0, 1);
    log.call("hledger -f main.journal bad", 1);
    recordAround(log, ["hledger", "-f", "main.journal", "bad"], 1, 1);
    const result = extractInvocations(log.events, target);
    expect(result.invocations.map((i) => [i.command, i.subcommand, i.exit_code])).toEqual([
      ["hledger -f main.journal balance", "balance", 0],
      ["hledger --help", null, 0],
      ["hledger -f main.journal bad", "bad", 1],
    ]);
    expect(result.disagreements).toBeUndefined();
    expect(result.patternMisses).toEqual(["hledger --help"]);
  });
});

describe("extractInvocations with target.global_options: the option's value is not the subcommand", () => {
  it("names the subcommand after -f's value from every source: shim records, tool calls and free text", () => {
    const target = { binary: "hledger", globalOptions: ["-f", "--file"], env: {} };
    const log = createEventLog();
    const calls: [string, string[], number][] = [
      ["hledger -f main.journal balance", ["hledger", "-f", "main.journal", "balance"], 0],
      [
        "hledger --file main.journal register food",
        ["hledger", "--file", "main.journal", "register", "food"],
        0,
      ],
      ["hledger --help", ["hledger", "--help"], 0],
      ["hledger -f main.journal balanse", ["hledger", "-f", "main.journal", "balanse"], 1],
      ["hledger -f main.journal balance --tree", ["hledger", "-f", "main.journal", "balance", "--tree"], 0],
    ];
    for (const [command, argv, exit] of calls) {
      log.call(command, exit);
      const call = log.events.findLast((event) => event.type === "tool_call");
      log.push({
        type: "target_invocation",
        argv,
        exit_code: exit,
        duration_ms: 5,
        cwd: null,
        started_at_ms: Date.parse(call?.ts ?? "") + 1,
      });
    }
    const fromShim = extractInvocations(log.events, target);
    expect(fromShim.source).toBe("shim");
    expect(fromShim.invocations.map((i) => i.subcommand)).toEqual([
      "balance",
      "register",
      null,
      "balanse",
      "balance",
    ]);
    expect(fromShim.disagreements).toBeUndefined();
    const { binary: _binary, ...withoutBinary } = target;
    expect(
      extractToolEventInvocations(log.events, { ...withoutBinary, commandPattern: "hledger\\b" }),
    ).toEqual(fromShim.invocations.map((invocation) => ({ ...invocation, duration_ms: expect.any(Number) })));
    const text = createEventLog();
    text.push({
      type: "agent_output",
      text: "$ hledger -f main.journal balance\n$ hledger --file=x.journal print",
    });
    const fromText = extractInvocations(text.events, { ...withoutBinary, commandPattern: "hledger\\b" });
    expect(fromText.source).toBe("transcript_regex");
    expect(fromText.invocations.map((i) => i.subcommand)).toEqual(["balance", "print"]);
  });
});

describe("options of a call, before and after the subcommand", () => {
  it("records the options before the subcommand (`mlr --icsv --ojson cat x.csv`)", () => {
    const log = createEventLog();
    log.call("mlr --icsv --ojson cat x.csv", 0);
    log.shim(["mlr", "--icsv", "--ojson", "cat", "x.csv"], 0);
    const [call] = extractInvocations(log.events, { binary: "mlr", env: {} }).invocations;
    expect(call).toMatchObject({ subcommand: "cat", options: ["--icsv", "--ojson"] });
  });

  it("keeps the options after the subcommand too, names only, up to `--`", () => {
    expect(findArgvOptions(["mlr", "--icsv", "sort", "--from=x.csv", "-nr", "x", "--", "-y"])).toEqual([
      "--icsv",
      "--from",
      "-nr",
    ]);
  });

  it("keeps a single-dash word whole, unless a number or a declared value option is in it", () => {
    // `-la` may be `-l -a` or one long option (`-name`): without the tool's grammar it stays as typed.
    expect(findArgvOptions(["t", "-la", "-name", "x"])).toEqual(["-la", "-name"]);
    expect(findArgvOptions(["t", "-n5", "list"])).toEqual(["-n"]);
    // As getopt reads a cluster with `-f` declared: `-v`, then `-f` taking the next argument.
    expect(findArgvOptions(["t", "-vf", "-", "bal", "-fx.journal"], ["-f"])).toEqual(["-v", "-f", "-f"]);
  });

  it("takes stdin's `-` and negative numbers for arguments", () => {
    expect(findArgvOptions(["t", "head", "-", "-5", "-0.5"])).toEqual([]);
  });
});

describe("findPossibleGlobalOptions: a hint where the list is missing", () => {
  const invocation = (...argv: string[]) => ({
    command: argv.join(" "),
    argv,
    subcommand: findArgvSubcommand(argv),
    options: [],
    exit_code: 0,
    duration_ms: 1,
  });
  const calls = [
    invocation("hledger", "-f", "main.journal", "balance"),
    invocation("hledger", "-f", "other.journal", "register"),
    invocation("hledger", "--verbose", "balance"),
    invocation("git", "-C", "../repo", "status"),
    invocation("tool", "-n", "3", "list"),
    invocation("jq", "-r", ".[].name", "data.json"),
    invocation("pandoc", "in.md", "-o", "out.html"),
    invocation("hledger", "--file=x.journal", "print"),
    invocation("hledger", "--", "x.journal"),
  ];

  it("names each option once, with its first call, when an option's argument looks like a value", () => {
    expect(findPossibleGlobalOptions(calls, { binary: "hledger", env: {} })).toEqual([
      { option: "-f", command: "hledger -f main.journal balance" },
      { option: "-C", command: "git -C ../repo status" },
      { option: "-n", command: "tool -n 3 list" },
    ]);
  });

  it("says nothing once the scenario gives the list, even an empty one", () => {
    expect(findPossibleGlobalOptions(calls, { binary: "hledger", globalOptions: [], env: {} })).toEqual([]);
  });

  it("says nothing when the pattern named the subcommand", () => {
    const named = { ...invocation("hledger", "-f", "main.journal", "balance"), subcommand: "balance" };
    expect(findPossibleGlobalOptions([named], { binary: "hledger", env: {} })).toEqual([]);
  });
});

describe("extractInvocations with a binary: records assigned to calls jointly, in order", () => {
  const target = { binary: "my-tool", env: {} };
  const epoch = Date.UTC(2026, 0, 1);

  interface TimedCall {
    command: string;
    exitCode: number;
    /** When the command really started (its shim record starts 1 ms later), ms after the epoch. */
    startMs: number;
    durationMs: number;
    /** How late the agent stamps the call and its result (negative: back-dated). */
    lateMs: number;
    /** The recorded argv; none: the shim recorded nothing. */
    recorded?: string[] | null;
  }

  /** A trial's events: each call and its result as the agent stamped them, then the shim's records. */
  function timedTrial(calls: readonly TimedCall[]): TrialEvent[] {
    const events: TrialEvent[] = [];
    const stamp = (atMs: number) => ({ ts: new Date(epoch + atMs).toISOString(), t_ms: atMs });
    calls.forEach((call, index) => {
      const id = `call_${index + 1}`;
      events.push({
        ...stamp(call.startMs + call.lateMs),
        type: "tool_call",
        call_id: id,
        turn: 1,
        command: call.command,
      });
      events.push({
        ...stamp(call.startMs + call.durationMs + call.lateMs),
        type: "tool_result",
        call_id: id,
        stdout: "",
        stderr: "",
        exit_code: call.exitCode,
        duration_ms: call.durationMs,
        truncated: false,
        timed_out: false,
      });
    });
    for (const call of calls) {
      const argv = call.recorded === undefined ? call.command.split(" ") : call.recorded;
      if (!argv) continue;
      events.push({
        ...stamp(call.startMs + call.durationMs + 2),
        type: "target_invocation",
        argv,
        exit_code: call.exitCode,
        duration_ms: call.durationMs - 2,
        cwd: null,
        started_at_ms: epoch + call.startMs + 1,
      });
    }
    return events;
  }

  it("keeps each exit code with its own call when late stamps put a neighbour's record in a call's window", () => {
    // Both calls stamped 900 ms late: the second call's record starts inside the first call's
    // window, the first call's own record 899 ms before it. Taken call by call, the first call
    // took its neighbour's record and the exit codes changed places (the failure came second).
    const result = extractInvocations(
      timedTrial([
        { command: "my-tool check", exitCode: 1, startMs: 0, durationMs: 300, lateMs: 900 },
        { command: "my-tool check", exitCode: 0, startMs: 1000, durationMs: 300, lateMs: 900 },
      ]),
      target,
    );
    expect(result.invocations.map((i) => [i.command, i.exit_code])).toEqual([
      ["my-tool check", 1],
      ["my-tool check", 0],
    ]);
    expect(result.disagreements).toBeUndefined();
  });

  it("gives no honest call a missing record and its neighbour's record the 'forged' flag", () => {
    // The first call ran 1.5 s; the second call's record falls in its window and the first one's
    // own record is more than 2 s before the second call: taken call by call, the second call had
    // no record (counted again from the tool call) and the first record was flagged as forged.
    const result = extractInvocations(
      timedTrial([
        { command: "my-tool check", exitCode: 1, startMs: 0, durationMs: 1500, lateMs: 1000 },
        { command: "my-tool check", exitCode: 0, startMs: 1600, durationMs: 300, lateMs: 1000 },
      ]),
      target,
    );
    expect(result.invocations.map((i) => [i.exit_code, i.around_shim ?? false])).toEqual([
      [1, false],
      [0, false],
    ]);
    expect(result.disagreements).toBeUndefined();
  });

  it("keeps a piped call's recorded failure when a neighbour that ends with the target succeeded", () => {
    // The first call's exit status is tail's, so its record's code counts; the second call's last
    // command is the target. Taken call by call, the first call took the second call's success and
    // the second call the first one's failure, then overwrote it with its own success: no error.
    const result = extractInvocations(
      timedTrial([
        {
          command: "my-tool check | tail -3",
          exitCode: 0,
          startMs: 0,
          durationMs: 300,
          lateMs: 700,
          recorded: ["my-tool", "check"],
        },
        { command: "my-tool check", exitCode: 0, startMs: 1000, durationMs: 300, lateMs: 700 },
      ]).map((event) =>
        // The piped target failed; only tail's status reached the harness.
        event.type === "target_invocation" && event.started_at_ms === epoch + 1
          ? { ...event, exit_code: 2 }
          : event,
      ),
      target,
    );
    expect(result.invocations.map((i) => i.exit_code)).toEqual([2, 0]);
    expect(result.disagreements).toBeUndefined();
  });

  it("assigns records jointly to invocations typed with an expansion too", () => {
    // A persistent shell: `$name` was set by an earlier call; the shim recorded what it expanded to.
    const result = extractInvocations(
      timedTrial([
        {
          command: 'my-tool show "$name"',
          exitCode: 1,
          startMs: 0,
          durationMs: 300,
          lateMs: 900,
          recorded: ["my-tool", "show", "a"],
        },
        {
          command: 'my-tool show "$name"',
          exitCode: 0,
          startMs: 1000,
          durationMs: 300,
          lateMs: 900,
          recorded: ["my-tool", "show", "b"],
        },
      ]),
      target,
    );
    expect(result.invocations.map((i) => [i.command, i.exit_code])).toEqual([
      ["my-tool show a", 1],
      ["my-tool show b", 0],
    ]);
    expect(result.disagreements).toBeUndefined();
  });

  it("keeps forged successes out of the assignment: each failing call keeps its failure, the forgeries are flagged", () => {
    // Two late-stamped failing calls; the agent writes a success record for each into the shim's
    // channel, one at its call's stamp and one inside the other call's window.
    const events = timedTrial([
      { command: "my-tool check", exitCode: 1, startMs: 0, durationMs: 300, lateMs: 900 },
      { command: "my-tool check", exitCode: 1, startMs: 1000, durationMs: 300, lateMs: 900 },
    ]);
    for (const atMs of [900, 1950]) {
      events.push({
        ts: new Date(epoch + atMs).toISOString(),
        t_ms: atMs,
        type: "target_invocation",
        argv: ["my-tool", "check"],
        exit_code: 0,
        duration_ms: 5,
        cwd: null,
        started_at_ms: epoch + atMs,
      });
    }
    const result = extractInvocations(events, target);
    expect(result.invocations.map((i) => i.exit_code)).toEqual([1, 1]);
    expect(result.disagreements).toEqual([
      "2 shim record(s) match no tool call that invokes the target (run from a script, or forged); 2 reporting success not counted",
    ]);
  });

  it("assigns every record of a 2,000-call trial stamped late to its own call", () => {
    // Each call stamped 900 ms late, a second apart, the same command, every third one failing.
    const calls: TimedCall[] = Array.from({ length: 2000 }, (_, index) => ({
      command: "my-tool check",
      exitCode: index % 3 === 0 ? 1 : 0,
      startMs: index * 1000,
      durationMs: 300,
      lateMs: 900,
    }));
    const result = extractInvocations(timedTrial(calls), target);
    expect(result.invocations.map((i) => i.exit_code)).toEqual(calls.map((call) => call.exitCode));
    expect(result.disagreements).toBeUndefined();
  });

  it("matches parallel calls whose records started in the other order", () => {
    // Two calls stamped at once (one answer asked for both); the second one's command ran first.
    const result = extractInvocations(
      timedTrial([
        { command: "my-tool show a", exitCode: 1, startMs: 200, durationMs: 300, lateMs: -200 },
        { command: "my-tool show b", exitCode: 0, startMs: 0, durationMs: 600, lateMs: 0 },
        { command: "my-tool show a", exitCode: 0, startMs: 2000, durationMs: 300, lateMs: 0 },
      ]),
      target,
    );
    expect(result.invocations.map((i) => [i.command, i.exit_code])).toEqual([
      ["my-tool show b", 0],
      ["my-tool show a", 1],
      ["my-tool show a", 0],
    ]);
    expect(result.disagreements).toBeUndefined();
  });

  it("matches parallel calls of one command whose windows nest, the outer one's command run last", () => {
    // One call's window spans 10 s and its command ran at its end; a parallel call of the same
    // command ran within it. Kept in order, the outer call takes the inner one's record and the
    // inner call has none; the matching must cross.
    const result = extractInvocations(
      timedTrial([
        { command: "my-tool status", exitCode: 0, startMs: 8999, durationMs: 10_000, lateMs: -8999 },
        { command: "my-tool status", exitCode: 0, startMs: 149, durationMs: 100, lateMs: -49 },
      ]),
      target,
    );
    expect(result.invocations.map((i) => [i.exit_code, i.around_shim ?? false])).toEqual([
      [0, false],
      [0, false],
    ]);
    expect(result.disagreements).toBeUndefined();
  });

  it("still flags a record outside every call's plausible window, and the call it did not explain", () => {
    const events = timedTrial([
      { command: "my-tool check", exitCode: 0, startMs: 0, durationMs: 300, lateMs: 0, recorded: null },
      { command: "echo done", exitCode: 0, startMs: 5000, durationMs: 10, lateMs: 0, recorded: null },
    ]);
    events.push({
      ts: new Date(epoch + 2400).toISOString(),
      t_ms: 2400,
      type: "target_invocation",
      argv: ["my-tool", "check"],
      exit_code: 0,
      duration_ms: 5,
      cwd: null,
      // 2,001 ms after the call's result: beyond the skew allowance.
      started_at_ms: epoch + 300 + RECORD_SKEW_MS + 1,
    });
    const result = extractInvocations(events, target);
    expect(result.invocations.map((i) => [i.exit_code, i.around_shim ?? false])).toEqual([[0, true]]);
    expect(result.disagreements).toEqual([
      "tool call 1: the shim recorded no call of `my-tool check` (run around the shim, or its record lost); counted from the tool call",
      "1 shim record(s) match no tool call that invokes the target (run from a script, or forged); 1 reporting success not counted",
    ]);
  });
});
