import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Report } from "../../src/results/types.js";
import { type ModelServer, startModelServer } from "../support/model-server.js";
import { ROOT, runCli } from "../support/run-cli.js";
import { makeTempDir } from "../support/temp-dirs.js";

const SUITE = path.join(ROOT, "tests/fixtures/e2e/suite");

// More of these errors are tested in process (tests/cli/run.test.ts); these go through the bin.
describe("errors a new user meets end in one clear paragraph, never a stack trace", () => {
  let server: ModelServer;
  beforeAll(async () => {
    server = await startModelServer((request) => ({
      kind: "error",
      status: 404,
      type: "not_found_error",
      message: `model: ${request.body?.model}`,
    }));
  });
  afterAll(async () => server?.close());

  it("an unknown model name stops the run after the first trial, saying what to do", async () => {
    const out = makeTempDir("ltt-badmodel-");
    const result = await runCli(
      ["run", SUITE, "--agent", "anthropic", "--model", "claude-nope-9", "--out", out, "--trials", "3"],
      {
        env: { ANTHROPIC_API_KEY: "sk-ant-canary-bad-model-123", ANTHROPIC_BASE_URL: server.url },
      },
    );
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/Stopping: .*unknown model "claude-nope-9"/);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    const report = JSON.parse(await readFile(path.join(out, "report.json"), "utf8")) as Report;
    expect(report.summary.errors).toBe(1);
    expect(report.summary.skipped).toBe(5);
    expect(server.messageRequests()).toHaveLength(1);
    expect(`${result.stdout}${result.stderr}`).not.toContain("sk-ant-canary-bad-model-123");
  });

  it("a typo in a scenario names the file, the line and the field, with a suggestion", async () => {
    const dir = makeTempDir("ltt-typo-");
    await writeFile(path.join(dir, "typo.yaml"), "name: typo\ntask: do it\nevaluation:\n  gatse: []\n");
    const result = await runCli(["validate", dir]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/typo\.yaml:4: evaluation\.gatse: .*did you mean `?"?gates/);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });
});
