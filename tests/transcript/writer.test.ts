import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { renderTranscriptMarkdown } from "../../src/render/transcript-markdown.js";
import { readEvents } from "../../src/transcript/reader.js";
import { createEventWriter } from "../../src/transcript/writer.js";
import { makeTempDir } from "../support/temp-dirs.js";

describe("event writer and reader", () => {
  it("stamps, redacts and appends each event as it happens; the reader skips a torn last line", async () => {
    const dir = makeTempDir("ltt-events-");
    const file = path.join(dir, "events.jsonl");
    let clock = 1_000;
    const writer = await createEventWriter(file, {
      startedAtMs: 1_000,
      now: () => clock,
      redact: (text) => text.replaceAll("sk-canary-123456", "[REDACTED]"),
    });
    writer.emit({ type: "tool_call", call_id: "c1", turn: 1, command: "echo sk-canary-123456" });
    clock = 1_250;
    writer.emit({
      type: "tool_result",
      call_id: "c1",
      stdout: "sk-canary-123456\n",
      stderr: "",
      exit_code: 0,
      duration_ms: 3,
      truncated: false,
      timed_out: false,
    });
    // In the file once flushed, before close: a killed run keeps what happened.
    await writer.flush();
    const before = await readFile(file, "utf8");
    expect(before.trim().split("\n")).toHaveLength(2);
    await writer.close();
    const { appendFile } = await import("node:fs/promises");
    await appendFile(file, '{"type":"trial_end","reas');
    const events = await readEvents(file);
    expect(events).toHaveLength(2);
    expect(events[0]).toMatchObject({ type: "tool_call", t_ms: 0, command: "echo [REDACTED]" });
    expect(events[1]).toMatchObject({ type: "tool_result", t_ms: 250, stdout: "[REDACTED]\n" });
    expect(before).not.toContain("sk-canary");
    expect(JSON.stringify(writer.events)).not.toContain("sk-canary");
    expect(Object.keys(events[0] ?? {}).slice(0, 3)).toEqual(["type", "ts", "t_ms"]);
  });

  it("stamps an event reported after the fact when it happened, never later than now", async () => {
    const dir = makeTempDir("ltt-events-at-");
    const file = path.join(dir, "events.jsonl");
    let clock = 5_000;
    const writer = await createEventWriter(file, { startedAtMs: 1_000, now: () => clock });
    writer.emit({ type: "tool_call", call_id: "c1", turn: 1, command: "sleep 3" }, 1_500);
    writer.emit({ type: "agent_output", text: "a time in the future is now" }, 9_000);
    writer.emit({ type: "agent_output", text: "not a time" }, Number.NaN);
    clock = 6_000;
    writer.emit({ type: "agent_output", text: "no time given" });
    await writer.close();
    const events = await readEvents(file);
    expect(events.map((event) => [event.t_ms, event.ts])).toEqual([
      [500, new Date(1_500).toISOString()],
      [4_000, new Date(5_000).toISOString()],
      [4_000, new Date(5_000).toISOString()],
      [5_000, new Date(6_000).toISOString()],
    ]);
  });

  it("renders a readable transcript with commands, exit codes, outputs and shim invocations", () => {
    const base = { ts: "2026-01-01T00:00:00.000Z", t_ms: 0 };
    const markdown = renderTranscriptMarkdown(
      [
        {
          ...base,
          type: "trial_start",
          schema_version: 1,
          scenario_id: "demo",
          variant: null,
          trial: 1,
          agent: "oracle",
          model: null,
          work_dir: "/w",
          sandbox: "local",
        },
        {
          ...base,
          type: "prompt",
          task: "List the items.",
          system_prompt: "You are in /w. Use ```tool```.",
        },
        { ...base, type: "tool_call", call_id: "c1", turn: 1, command: "tool list ```x```" },
        {
          ...base,
          type: "tool_result",
          call_id: "c1",
          stdout: "a".repeat(50),
          stderr: "oops",
          exit_code: 2,
          duration_ms: 7,
          truncated: false,
          timed_out: true,
        },
        {
          ...base,
          type: "target_invocation",
          argv: ["tool", "list", "a b"],
          exit_code: 2,
          duration_ms: 5,
          cwd: "/w",
          started_at_ms: 1,
        },
        { ...base, type: "trial_end", reason: "natural_stop", error: null, turns: 0, duration_ms: 10 },
      ],
      { maxOutputChars: 20 },
    );
    expect(markdown).toContain("# Trial 1 of `demo`");
    // What the agent was given, before its first turn; a fence that the prompt's backticks cannot close.
    expect(markdown).toContain("**Task**\n\n```\nList the items.\n```");
    expect(markdown).toContain("**System prompt**\n\n````\nYou are in /w. Use ```tool```.\n````");
    expect(markdown.indexOf("**Task**")).toBeLessThan(markdown.indexOf("tool list"));
    expect(markdown).toContain("````\ntool list ```x```\n````");
    expect(markdown).toContain("exit 2, 7 ms (timed out)");
    expect(markdown).toContain("[... 30 characters not shown ...]");
    expect(markdown).toContain("stderr:\n```\noops\n```");
    expect(markdown).toContain('| 1 | `tool list "a b"` | 2 | 5 |');
    expect(markdown).toContain("Ended: **natural_stop**");
  });
});
