/**
 * The broker's call channel takes only requests of the requester's own shape: a folder named as
 * the requester names it under the sandbox's /tmp, and a forwarded signal of the three it forwards.
 */
import { describe, expect, it } from "vitest";
import { parseBrokerRequest, renderRequesterScript } from "../../src/sandbox/shim-broker.js";

describe("parseBrokerRequest", () => {
  it("takes a call and a forwarded signal", () => {
    expect(parseBrokerRequest("c1\t/tmp/.ltt-call.AbC123xyz9")).toEqual({
      kind: "call",
      dir: "/tmp/.ltt-call.AbC123xyz9",
    });
    expect(parseBrokerRequest("k1\t/tmp/.ltt-call.AbC123xyz9\tTERM")).toEqual({
      kind: "signal",
      dir: "/tmp/.ltt-call.AbC123xyz9",
      signal: "TERM",
    });
  });

  it("refuses any other folder, signal or shape", () => {
    for (const line of [
      "c1\t/tmp/.ltt-call.../../etc",
      "c1\t/home/eval/.ltt-call.AbC123xyz9",
      "c1\t/tmp/.ltt-call.AbC123xyz9/x",
      "c1\t/tmp/.ltt-call.AbC123xyz9\textra",
      "k1\t/tmp/.ltt-call.AbC123xyz9\tKILL",
      "k1\t/tmp/.ltt-call.AbC123xyz9",
      "x1\t/tmp/.ltt-call.AbC123xyz9",
      "",
    ]) {
      expect(parseBrokerRequest(line), line).toBeNull();
    }
  });
});

describe("renderRequesterScript", () => {
  it("names the call channel and no path of the real binary", () => {
    const script = renderRequesterScript("my-tool", "/run/llm-tool-test/log/calls", "/bin/bash");
    expect(script.startsWith("#!/bin/bash\n")).toBe(true);
    expect(script).toContain("__ltt_calls='/run/llm-tool-test/log/calls'");
    expect(script).not.toContain("/run/llm-tool-test/real");
  });
});
