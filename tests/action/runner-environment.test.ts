import { afterEach, describe, expect, it } from "vitest";
import {
  createInputReader,
  lendServiceVariables,
  withServiceVariables,
} from "../../src/action/runner-environment.js";
import type { ArtifactClient } from "../../src/github/types.js";

const WITHDRAWN = {
  "INPUT_ANTHROPIC-API-KEY": "  sk-ant-from-input  ",
  INPUT_SCENARIOS: "a.yaml",
  ACTIONS_RUNTIME_TOKEN: "runtime-token-canary",
  ACTIONS_RESULTS_URL: "http://127.0.0.1:1/",
  GITHUB_TOKEN: "ghp_not_lent",
};

afterEach(() => {
  for (const name of Object.keys(WITHDRAWN)) delete process.env[name];
});

describe("the action's reading of the withdrawn environment", () => {
  it("reads inputs as core.getInput does (INPUT_ upper-cased, dashes kept, trimmed)", () => {
    const read = createInputReader(WITHDRAWN);
    expect(read("anthropic-api-key")).toBe("sk-ant-from-input");
    expect(read("scenarios")).toBe("a.yaml");
    expect(read("missing")).toBe("");
  });

  it("lends the artifact service's variables to process.env only while its calls run", async () => {
    const seen: (string | undefined)[] = [];
    const client: ArtifactClient = {
      uploadArtifact: async () => {
        seen.push(process.env.ACTIONS_RUNTIME_TOKEN, process.env.GITHUB_TOKEN);
        return { id: 1 };
      },
      downloadArtifact: async () => ({}),
      listArtifacts: async () => ({ artifacts: [] }),
    };
    expect(process.env.ACTIONS_RUNTIME_TOKEN).toBeUndefined();
    await lendServiceVariables(client, WITHDRAWN).uploadArtifact("name", [], "/tmp");
    expect(seen).toEqual(["runtime-token-canary", undefined]);
    expect(process.env.ACTIONS_RUNTIME_TOKEN).toBeUndefined();
  });

  it("keeps them lent until the last of overlapping calls ends, and takes them back after a failure", async () => {
    let release = () => {};
    const slow = withServiceVariables(WITHDRAWN, () => new Promise<void>((resolve) => (release = resolve)));
    await expect(
      withServiceVariables(WITHDRAWN, async () => {
        throw new Error("upload failed");
      }),
    ).rejects.toThrow("upload failed");
    expect(process.env.ACTIONS_RESULTS_URL).toBe("http://127.0.0.1:1/");
    release();
    await slow;
    expect(process.env.ACTIONS_RESULTS_URL).toBeUndefined();
  });
});
