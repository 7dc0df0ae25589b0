/** A recording's date → the home layout of the bashkit that made it, at each boundary; `--bashkit-home`. */
import { describe, expect, it } from "vitest";
import { isConfigError } from "../../src/errors.js";
import { homeLayoutOf } from "../../src/run/options.js";
import {
  BASHKIT_HOME_ERAS,
  bashkitHomeAt,
  CURRENT_BASHKIT_HOME,
  parseBashkitHome,
} from "../../src/scenario/bashkit-home.js";
import { makeScenario } from "../support/scenario-factory.js";

const nameAt = (timestamp: string) => bashkitHomeAt(timestamp)?.name ?? null;

describe("bashkitHomeAt", () => {
  it("HOME unset until bashkit a1512d6f landed (2026-02-24T17:33:50Z), then /home/eval absent", () => {
    expect(nameAt("2026-02-24T17:33:49Z")).toBe("bashkit-home-unset");
    expect(nameAt("2026-02-24T17:33:50Z")).toBe("bashkit-home-missing");
    // The same instants written in bashkit's own time zone (-06:00).
    expect(nameAt("2026-02-24T11:33:49-06:00")).toBe("bashkit-home-unset");
    expect(nameAt("2026-02-24T11:33:50-06:00")).toBe("bashkit-home-missing");
  });

  it("/home/eval absent until bashkit 78869698 landed (2026-06-28T09:43:23Z), then made", () => {
    expect(nameAt("2026-06-28T09:43:22Z")).toBe("bashkit-home-missing");
    expect(nameAt("2026-06-28T09:43:23Z")).toBe("bashkit-home-created");
    expect(nameAt("2026-06-28T09:43:23.001Z")).toBe("bashkit-home-created");
  });

  it("the committed recordings' dates: February's first runs, later February's and May's", () => {
    expect(nameAt("2026-02-09T05:45:58Z")).toBe("bashkit-home-unset");
    expect(nameAt("2026-02-25T04:48:01Z")).toBe("bashkit-home-missing");
    expect(nameAt("2026-02-27T04:06:36Z")).toBe("bashkit-home-missing");
    expect(nameAt("2026-05-26T01:25:23Z")).toBe("bashkit-home-missing");
    expect(nameAt("2026-08-08T00:00:00Z")).toBe("bashkit-home-created");
    expect(nameAt("2025-01-01T00:00:00Z")).toBe("bashkit-home-unset");
  });

  it("a date alone is its first moment, UTC; a time without a zone is UTC", () => {
    expect(nameAt("2026-02-24")).toBe("bashkit-home-unset");
    expect(nameAt("2026-02-25")).toBe("bashkit-home-missing");
    expect(nameAt("2026-06-28")).toBe("bashkit-home-missing");
    expect(nameAt("2026-06-29")).toBe("bashkit-home-created");
    expect(nameAt("2026-02-24T17:33:50")).toBe("bashkit-home-missing");
    expect(nameAt("2026-02-24 17:33")).toBe("bashkit-home-unset");
  });

  it("what is not a date names no layout", () => {
    for (const text of [
      "",
      "yesterday",
      "2026-02-30",
      "2026-13-01",
      "26-02-24",
      "2026-02-24T25:00Z",
      "1771954430",
    ]) {
      expect(bashkitHomeAt(text), text).toBeNull();
    }
  });

  it("the eras are in order and the current one is the last", () => {
    const since = BASHKIT_HOME_ERAS.slice(1).map((era) => Date.parse(era.since as string));
    expect(since).toEqual([...since].sort((a, b) => a - b));
    expect(CURRENT_BASHKIT_HOME.name).toBe("bashkit-home-created");
  });
});

describe("--bashkit-home", () => {
  it("takes a layout's name, current, or a date", () => {
    expect(parseBashkitHome("bashkit-home-unset").name).toBe("bashkit-home-unset");
    expect(parseBashkitHome("current")).toBe(CURRENT_BASHKIT_HOME);
    expect(parseBashkitHome(" 2026-05-26 ").name).toBe("bashkit-home-missing");
  });

  it("anything else is a configuration error naming the option and the choices", () => {
    let error: unknown;
    try {
      parseBashkitHome("home-eval");
    } catch (caught) {
      error = caught;
    }
    expect(isConfigError(error)).toBe(true);
    expect(String((error as Error).message)).toMatch(
      /^--bashkit-home: expected current, bashkit-home-unset, bashkit-home-missing, bashkit-home-created, or a date .*found "home-eval"/,
    );
  });
});

describe("a trial's home layout", () => {
  const bashkitTask = makeScenario({ machine: { home: CURRENT_BASHKIT_HOME } });
  const none = { bashkitHome: null, recordedBashkitHomes: {} };

  it("a bashkit task: asked for, else its model's recording's, else the current bashkit's", () => {
    expect(homeLayoutOf(bashkitTask, "m", none)?.name).toBe("bashkit-home-created");
    const recorded = { bashkitHome: null, recordedBashkitHomes: { m: "bashkit-home-unset" } };
    expect(homeLayoutOf(bashkitTask, "m", recorded)?.name).toBe("bashkit-home-unset");
    expect(homeLayoutOf(bashkitTask, "other", recorded)?.name).toBe("bashkit-home-created");
    const asked = { ...recorded, bashkitHome: "bashkit-home-missing" };
    expect(homeLayoutOf(bashkitTask, "m", asked)?.name).toBe("bashkit-home-missing");
  });

  it("another scenario keeps its own (none: the sandbox's)", () => {
    const asked = { bashkitHome: "bashkit-home-missing", recordedBashkitHomes: { m: "bashkit-home-unset" } };
    expect(homeLayoutOf(makeScenario(), "m", asked)).toBeUndefined();
  });
});
