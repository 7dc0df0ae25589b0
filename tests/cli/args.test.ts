import { describe, expect, it } from "vitest";
import {
  parseCommandArgs,
  readChoice,
  readDurationMs,
  readInteger,
  readList,
  readNumber,
  readShard,
} from "../../src/cli/args.js";

const spec = {
  trials: { type: "string" as const },
  tags: { type: "string" as const, multiple: true },
  agent: { type: "string" as const },
  timeout: { type: "string" as const },
  shard: { type: "string" as const },
  "max-cost-usd": { type: "string" as const },
};

function parse(argv: string[]) {
  return parseCommandArgs("run", argv, spec).values;
}

describe("command-line parsing", () => {
  it("reads every kind of value", () => {
    const values = parse([
      "--trials",
      "3",
      "--tags",
      "a,b",
      "--tags",
      "c",
      "--timeout",
      "5m",
      "--shard",
      "2/4",
      "--max-cost-usd",
      "1.5",
    ]);
    expect(readInteger(values, "trials", 1)).toBe(3);
    expect(readList(values, "tags")).toEqual(["a", "b", "c"]);
    expect(readDurationMs(values, "timeout")).toBe(300_000);
    expect(readShard(values, "shard")).toEqual({ index: 2, count: 4 });
    expect(readNumber(values, "max-cost-usd", 0)).toBe(1.5);
    expect(readInteger(values, "agent", 1)).toBeUndefined();
  });

  it("reads durations like a scenario does; zero, negative and timer-overflowing ones are refused", () => {
    const read = (raw: string) => readDurationMs(parse([`--timeout=${raw}`]), "timeout");
    expect(read("1m30s")).toBe(90_000);
    expect(read("90")).toBe(90_000);
    expect(read("1500ms")).toBe(1500);
    expect(read("1h")).toBe(3_600_000);
    for (const zero of ["0", "0s", "0ms", "0.0001"]) {
      expect(() => read(zero)).toThrow(
        `--timeout must be a positive duration such as 90s, 5m or 1500ms, got "${zero}"`,
      );
    }
    expect(() => read("999h")).toThrow(
      '--timeout must be a positive duration such as 90s, 5m or 1500ms, got "999h"',
    );
    expect(() => read("-5s")).toThrow(
      '--timeout must be a positive duration such as 90s, 5m or 1500ms, got "-5s"',
    );
  });

  it.each([
    [["--trails", "3"], "unknown option --trails (did you mean --trials?); see `llm-tool-test run --help`"],
    [["--trials", "0"], '--trials must be a whole number >= 1, got "0"'],
    [["--trials", "2.5"], '--trials must be a whole number >= 1, got "2.5"'],
    [["--timeout", "soon"], '--timeout must be a positive duration such as 90s, 5m or 1500ms, got "soon"'],
    [["--shard", "5/4"], '--shard must look like i/n with 1 <= i <= n (e.g. 2/4), got "5/4"'],
    [
      ["--agent", "antropic"],
      '--agent must be one of anthropic, oracle; got "antropic" (did you mean anthropic?)',
    ],
    [["--max-cost-usd=-1"], '--max-cost-usd must be a number >= 0, got "-1"'],
  ])("rejects %j with a message naming the flag", (argv, message) => {
    expect(() => {
      const values = parse(argv);
      readInteger(values, "trials", 1);
      readDurationMs(values, "timeout");
      readShard(values, "shard");
      readChoice(values, "agent", ["anthropic", "oracle"] as const);
      readNumber(values, "max-cost-usd", 0);
    }).toThrow(message);
  });
});
