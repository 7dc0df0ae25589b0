import { describe, expect, it } from "vitest";
import {
  extractInvocations,
  extractToolEventInvocations,
  findArgvSubcommand,
  quoteShellWord,
  splitShellSegment,
} from "../../src/evaluate/invocations.js";
import { createEventLog } from "../support/event-builder.js";

describe("extractInvocations: source order", () => {
  it("uses the shim whenever a binary is named, even with zero records", () => {
    const log = createEventLog();
    log.call("my-tool list", 0); // a tool call mentions the tool, but the shim saw nothing
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
        command: 'my-tool create "two words" 2>&1 | tee out.txt',
        argv: ["my-tool", "create", "two words"],
        subcommand: "create",
        exit_code: 1,
        duration_ms: 5,
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
        exit_code: null,
        duration_ms: null,
      },
      {
        command: "my-tool list --all > x.txt",
        argv: ["my-tool", "list", "--all"],
        subcommand: "list",
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

  it("quotes only words that need it", () => {
    expect(quoteShellWord("plain-word_1.txt")).toBe("plain-word_1.txt");
    expect(quoteShellWord("")).toBe("''");
    expect(quoteShellWord("a b")).toBe("'a b'");
    expect(quoteShellWord("$HOME")).toBe("'$HOME'");
  });
});
