/**
 * A hostile replay recording (issue #25, break 9): an events.jsonl whose tool_call `command` is
 * not a string crashed the run (exit 3, no report). Now it is a clear error naming the file and
 * line, before any trial runs.
 */
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { EXIT } from "../../src/cli/main.js";
import { runMain } from "../cli/run-main.js";
import { makeTempDir } from "../support/temp-dirs.js";

const SCENARIO = `name: add-and-list
task: Add a task with tool, then list the tasks.
target:
  binary: tool
solution:
  - tool add milk
  - tool list
evaluation:
  gates:
    - type: command_succeeds
      command: tool list
`;

let dir: string;

function run(args: string[]) {
  return runMain(["run", path.join(dir, "scenario.yaml"), "--sandbox", "local", "--trials", "1", ...args], {
    cwd: dir,
    env: { PATH: `${path.join(dir, "bin")}:${process.env.PATH}` },
  });
}

beforeAll(async () => {
  dir = await makeTempDir("ltt-hostile-recording-");
  await mkdir(path.join(dir, "bin"));
  await writeFile(path.join(dir, "bin", "tool"), '#!/bin/sh\necho "$@" >> tasks.txt; cat tasks.txt\n');
  await chmod(path.join(dir, "bin", "tool"), 0o755);
  await writeFile(path.join(dir, "scenario.yaml"), SCENARIO);
  const recorded = await run(["--agent", "oracle", "--out", path.join(dir, "recorded")]);
  expect(recorded.code, recorded.stderr).toBe(0);
});

/** The recorded trial's events.jsonl with its first tool_call's `command` replaced. */
async function poisonCommand(name: string, command: unknown): Promise<{ folder: string; line: number }> {
  const folder = path.join(dir, name);
  const source = path.join(dir, "recorded");
  await mkdir(folder);
  await writeFile(path.join(folder, "report.json"), await readFile(path.join(source, "report.json")));
  const events = path.join("trials", "add-and-list", "trial-1", "events.jsonl");
  await mkdir(path.dirname(path.join(folder, events)), { recursive: true });
  const lines = (await readFile(path.join(source, events), "utf8")).split("\n");
  const index = lines.findIndex((line) => line.includes('"type":"tool_call"'));
  expect(index).toBeGreaterThan(0);
  lines[index] = JSON.stringify({ ...JSON.parse(lines[index] as string), command });
  await writeFile(path.join(folder, events), lines.join("\n"));
  return { folder, line: index + 1 };
}

describe("a replay recording with a tool call that is not a command", () => {
  it.each([
    ["a number", 123, "a number"],
    ["an object", { toString: "rm -rf /" }, "an object"],
    ["null", null, "null"],
  ])("%s: a clear error naming the file and line, no crash", async (name, command, found) => {
    const { folder, line } = await poisonCommand(name.replace(/\W+/g, "-"), command);
    const result = await run([
      "--agent",
      "replay",
      "--replay-from",
      folder,
      "--out",
      path.join(folder, "out"),
    ]);
    expect(result.code, result.stderr).toBe(EXIT.usage);
    expect(result.stderr).not.toContain("unexpected error");
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(result.stderr).toContain(`trials/add-and-list/trial-1/events.jsonl:${line}`);
    expect(result.stderr).toContain(`a tool_call event whose "command" is ${found}`);
  });
});

/** The recorded trial's events.jsonl with `event` inserted just before its trial_end. */
async function insertEvent(
  name: string,
  event: Record<string, unknown>,
): Promise<{ folder: string; line: number }> {
  const folder = path.join(dir, name);
  const source = path.join(dir, "recorded");
  await mkdir(folder);
  await writeFile(path.join(folder, "report.json"), await readFile(path.join(source, "report.json")));
  const events = path.join("trials", "add-and-list", "trial-1", "events.jsonl");
  await mkdir(path.dirname(path.join(folder, events)), { recursive: true });
  const lines = (await readFile(path.join(source, events), "utf8")).split("\n");
  const index = lines.findIndex((line) => line.includes('"type":"trial_end"'));
  expect(index).toBeGreaterThan(0);
  lines.splice(index, 0, JSON.stringify({ ts: "2026-01-01T00:00:00.000Z", t_ms: 1, ...event }));
  await writeFile(path.join(folder, events), lines.join("\n"));
  return { folder, line: index + 1 };
}

const FIGURES = {
  type: "recorded_execution",
  model: "claude-haiku-4-5",
  turns: 2,
  input_tokens: 10,
  output_tokens: 5,
  cache_read_tokens: 0,
  cache_write_tokens: 0,
  tool_calls: 2,
  end_reason: "natural_stop",
  cost_usd: null,
};

// A recording's figures reach the report as the replay's (turns, tokens, cost): forged ones must
// not pass as numbers, nor crash the reader (a model_response without usage did: a TypeError).
describe("a replay recording with forged figures", () => {
  it.each([
    ["negative turns", { ...FIGURES, turns: -5 }, 'a recorded_execution event whose "turns" is a number'],
    [
      "text tokens",
      { ...FIGURES, input_tokens: "1e9" },
      'a recorded_execution event whose "input_tokens" is a string',
    ],
    [
      "an unknown end",
      { ...FIGURES, end_reason: "won" },
      'a recorded_execution event whose "end_reason" is a string',
    ],
    [
      "a negative cost",
      { ...FIGURES, cost_usd: -1 },
      'a recorded_execution event whose "cost_usd" is a number',
    ],
    [
      "a model turn without usage",
      { type: "model_response", turn: 1, stop_reason: "end_turn", text: "", tool_uses: [], duration_ms: 1 },
      'a model_response event whose "usage" is missing',
    ],
  ])("%s: a clear error naming the file and line, no crash", async (name, event, message) => {
    const { folder, line } = await insertEvent(`forged-${name.replace(/\W+/g, "-")}`, event);
    const result = await run(["--replay-from", folder, "--out", path.join(folder, "out")]);
    expect(result.code, result.stderr).toBe(EXIT.usage);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(result.stderr).toContain(`trials/add-and-list/trial-1/events.jsonl:${line}`);
    expect(result.stderr).toContain(message);
  });

  it("honest figures carried from a replayed run are read back as recorded", async () => {
    const { folder } = await insertEvent("honest-figures", FIGURES);
    const out = path.join(folder, "out");
    const result = await run(["--replay-from", folder, "--out", out]);
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(await readFile(path.join(out, "report.json"), "utf8"));
    expect(report.scenarios[0].trials[0].execution).toMatchObject({
      turns: 2,
      input_tokens: 10,
      recorded: true,
    });
  });
});
