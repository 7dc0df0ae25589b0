import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Report } from "../../src/results/types.js";
import { type ModelServer, startModelServer } from "../support/model-server.js";
import { ROOT, runCli } from "../support/run-cli.js";

const SUITE = path.join(ROOT, "tests/fixtures/e2e/suite");

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
    const out = await mkdtemp(path.join(os.tmpdir(), "ltt-badmodel-"));
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

  it("a target binary missing from PATH is caught before anything runs", async () => {
    const result = await runCli([
      "run",
      path.join(ROOT, "tests/fixtures/e2e/missing-binary"),
      "--agent",
      "oracle",
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'target binary "definitely-not-installed-tool" is not on PATH (needed by uses_missing_tool',
    );
    expect(result.stderr).toContain("Install it, put it on PATH, or fix target.binary");
  });

  it("an unusable bwrap is one clear error before anything runs", async () => {
    const dataset = path.join(ROOT, "tests/fixtures/bashkit-eval/smoke-test.jsonl");
    const result = await runCli(["run", dataset, "--agent", "oracle"], { env: { PATH: "/nonexistent" } });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('sandbox "bwrap" needs bubblewrap, but "bwrap" was not found on PATH');
    expect(result.stderr).toContain("apt-get install -y bubblewrap");
  });

  it("a typo in a scenario names the file, the line and the field, with a suggestion", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "ltt-typo-"));
    await writeFile(path.join(dir, "typo.yaml"), "name: typo\ntask: do it\nevaluation:\n  gatse: []\n");
    const result = await runCli(["validate", dir]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/typo\.yaml:4: evaluation\.gatse: .*did you mean `?"?gates/);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });
});

describe("--variant NAME=FILE", () => {
  it("runs every scenario once per guidance file and compares them in report.md", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "ltt-variants-"));
    await writeFile(path.join(dir, "v1.md"), "Use jq.\n");
    await writeFile(path.join(dir, "v2.md"), "Use jq -r for raw output.\n");
    const out = path.join(dir, "out");
    const result = await runCli([
      "run",
      path.join(SUITE, "extract-names.yaml"),
      "--agent",
      "oracle",
      "--out",
      out,
      "--trials",
      "2",
      "--variant",
      `terse=${path.join(dir, "v1.md")}`,
      "--variant",
      `detailed=${path.join(dir, "v2.md")}`,
    ]);
    expect(result.code).toBe(0);
    const report = JSON.parse(await readFile(path.join(out, "report.json"), "utf8")) as Report;
    expect(report.scenarios.map((s) => `${s.id}@${s.variant} ${s.trials.length}`)).toEqual([
      "extract_names@terse 2",
      "extract_names@detailed 2",
    ]);
    expect(await readFile(path.join(out, "report.md"), "utf8")).toContain(
      "## Guidance variants: `detailed` against `terse`",
    );
    const bad = await runCli(["run", SUITE, "--agent", "oracle", "--variant", "oops"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--variant must look like NAME=FILE");
  });
});
