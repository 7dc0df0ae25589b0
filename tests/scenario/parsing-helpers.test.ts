import { describe, expect, test } from "vitest";
import { measureEditDistance, suggestKey } from "../../src/did-you-mean.js";
import { parseDuration } from "../../src/scenario/duration.js";

describe("parseDuration", () => {
  test.each([
    ["300s", 300_000],
    ["5m", 300_000],
    ["1500ms", 1500],
    ["1h", 3_600_000],
    ["1m30s", 90_000],
    ["2.5s", 2500],
    [" 10s ", 10_000],
    ["45", 45_000],
    [45, 45_000],
    [0.5, 500],
  ] as const)("%j -> %i ms", (input, ms) => {
    expect(parseDuration(input)).toBe(ms);
  });

  test.each([
    [
      "5 minutes",
      'expected a duration like "300s", "5m", "1500ms", "1h" or a number of seconds, found "5 minutes"',
    ],
    ["", 'expected a duration like "300s", "5m", "1500ms", "1h" or a number of seconds, found ""'],
    ["-5s", 'expected a duration like "300s", "5m", "1500ms", "1h" or a number of seconds, found "-5s"'],
    ["0s", 'expected a positive duration, found "0s"'],
    ["10S", 'expected a duration like "300s", "5m", "1500ms", "1h" or a number of seconds, found "10S"'],
    [-1, "expected a positive duration, found -1"],
    [0, "expected a positive duration, found 0"],
    ["0ms", 'expected a positive duration, found "0ms"'],
    [Number.POSITIVE_INFINITY, "expected a positive duration, found Infinity"],
    ["597h", 'expected a duration of at most 596h, found "597h"'],
  ] as const)("rejects %j", (input, message) => {
    expect(() => parseDuration(input)).toThrowError(new Error(message));
  });
});

describe("suggestKey", () => {
  const keys = ["task", "tags", "tier", "command_pattern", "max_turns", "description"];
  test.each([
    ["tsk", "task"],
    ["maxTurns", "max_turns"],
    ["MAX-TURNS", "max_turns"],
    ["comand_patern", "command_pattern"],
    ["descripiton", "description"],
    ["tear", "tier"],
  ])("%s -> %s", (input, expected) => {
    expect(suggestKey(input, keys)).toBe(expected);
  });
  test("nothing close", () => {
    expect(suggestKey("zzz", keys)).toBeUndefined();
    expect(suggestKey("fixture", keys)).toBeUndefined();
  });
  test("edit distance counts a transposition as one edit", () => {
    expect(measureEditDistance("pattren", "pattern")).toBe(1);
    expect(measureEditDistance("", "abc")).toBe(3);
    expect(measureEditDistance("kitten", "sitting")).toBe(3);
  });
});
