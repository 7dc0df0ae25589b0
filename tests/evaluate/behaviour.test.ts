import { describe, expect, it } from "vitest";
import { commandShape, computeTrialBehaviour } from "../../src/evaluate/behaviour.js";
import { extractInvocations } from "../../src/evaluate/invocations.js";
import { createEventLog } from "../support/event-builder.js";

describe("computeTrialBehaviour: how one trial called the target", () => {
  it("counts calls per option and per command shape, and keeps the first failed call with its stderr", () => {
    const log = createEventLog();
    log.call("mlr --icsv --ojson cat x.csv", 0);
    log.shim(["mlr", "--icsv", "--ojson", "cat", "x.csv"], 0);
    log.call("mlr --ojson cat y.csv", 1, { stderr: "mlr: data does not look like JSON\nmore\n" });
    log.shim(["mlr", "--ojson", "cat", "y.csv"], 1);
    log.call("mlr --ojson --ojson sort -f a y.csv", 2, { stdout: "mlr: option -f needs a CSV header" });
    log.shim(["mlr", "--ojson", "--ojson", "sort", "-f", "a", "y.csv"], 2);
    const { invocations } = extractInvocations(log.events, { binary: "mlr", env: {} });

    expect(computeTrialBehaviour(invocations, log.events)).toEqual({
      // A repeated option counts once per call.
      options: { "--ojson": 3, "--icsv": 1, "-f": 1 },
      shapes: { "cat --icsv --ojson": 1, "cat --ojson": 1, "sort --ojson -f": 1 },
      first_failure: {
        command: "mlr --ojson cat y.csv",
        exit_code: 1,
        stderr: "mlr: data does not look like JSON\nmore",
      },
    });
  });

  it("has no failed call when every call succeeded, nor a stderr where none is known", () => {
    const log = createEventLog();
    log.shim(["t", "list"], 3);
    const { invocations } = extractInvocations(log.events, { binary: "t", env: {} });
    expect(computeTrialBehaviour(invocations, log.events).first_failure).toEqual({
      command: "t list",
      exit_code: 3,
      stderr: null,
    });
    expect(computeTrialBehaviour([], []).first_failure).toBeNull();
  });

  it("names a call without a subcommand (none) and cuts what an agent typed at length", () => {
    expect(commandShape(null, ["--version"])).toBe("(none) --version");
    expect([...commandShape("x".repeat(500), [])].length).toBeLessThanOrEqual(80);
  });
});
