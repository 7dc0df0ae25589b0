import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { Report } from "../../src/results/types.js";
import type { TrialEvent } from "../../src/transcript/events.js";
import { reportSchemaErrors } from "../support/report-schema.js";
import { type CliResult, ROOT, runCli } from "../support/run-cli.js";
import { makeTempDir } from "../support/temp-dirs.js";

const SUITE = path.join(ROOT, "tests/fixtures/e2e/suite");
const CANARIES = {
  ANTHROPIC_API_KEY: "sk-ant-canary-e2e-0123456789",
  GITHUB_TOKEN: "ghp_canary_e2e_abcdefghijkl",
  ACTIONS_RUNTIME_TOKEN: "canary-actions-runtime-token",
  MY_SERVICE_PASSWORD: "canary-password-value",
};

async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name));
}

describe("llm-tool-test run with the oracle agent (the real CLI, end to end)", () => {
  let out: string;
  let result: CliResult;
  let report: Report;

  beforeAll(async () => {
    out = makeTempDir("ltt-e2e-");
    result = await runCli(["run", SUITE, "--agent", "oracle", "--out", out, "--trials", "1"], {
      env: CANARIES,
    });
    report = JSON.parse(await readFile(path.join(out, "report.json"), "utf8"));
  });

  it("exits 1 because one scenario fails, and prints the summary", () => {
    expect(result.stderr).not.toMatch(/at .*\.js:\d+/); // no stack trace
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/PASS\s+extract_names/);
    expect(result.stdout).toMatch(/FAIL\s+count_adults/);
    expect(result.stdout).toContain("FAILED  1/2 trials passed (50%)");
  });

  it("writes a report.json valid against the published schema", () => {
    expect(reportSchemaErrors(report)).toEqual([]);
    expect(report.run.agent).toBe("oracle");
    expect(report.summary).toMatchObject({
      outcome: "fail",
      scenarios: 2,
      trials: 2,
      passed: 1,
      failed: 1,
      errors: 0,
    });
  });

  it("computes layer-1 metrics from the shim that match the hand-computed figures", () => {
    const passing = report.scenarios.find((s) => s.id === "extract_names")?.trials[0];
    // jq --help; jq -r .[].nam (exit 0, prints nulls); jq -r .[].name. Gate commands are not counted.
    expect(passing?.invocation_source).toBe("shim");
    expect(passing?.interaction).toEqual({
      total_commands: 3,
      unique_commands: 3,
      error_count: 0,
      error_rate: 0,
      retry_count: 0,
      retry_rate: 0,
      help_invocations: 1,
      first_try_success_rate: 1,
      iteration_ratio: 1,
      completed: true,
    });
    expect(passing?.execution).toMatchObject({
      turns: 0,
      tool_calls: 4,
      tool_calls_ok: 4,
      tool_calls_error: 0,
    });
    expect(passing?.gates.map((g) => g.passed)).toEqual([true, true, true]);

    const failing = report.scenarios.find((s) => s.id === "count_adults")?.trials[0];
    // Two identical failing calls (compile error, exit 3: the second is a retry), then a wrong but successful one.
    expect(failing?.interaction).toEqual({
      total_commands: 3,
      unique_commands: 2,
      error_count: 2,
      error_rate: 2 / 3,
      retry_count: 1,
      retry_rate: 1 / 3,
      help_invocations: 0,
      first_try_success_rate: 0.5,
      iteration_ratio: 2 / 3,
      completed: true,
    });
    expect(failing?.execution).toMatchObject({ tool_calls: 3, tool_calls_ok: 1, tool_calls_error: 2 });
    expect(failing?.outcome).toBe("fail");
    expect(failing?.gates.map((g) => g.passed)).toEqual([true, false]);
    expect([failing?.score, failing?.max_score]).toEqual([1, 3]);
    expect(failing?.reason).toContain("the count is 2");
  });

  it("writes events and a transcript per trial, with shim invocations in the events", async () => {
    const trial = report.scenarios.find((s) => s.id === "count_adults")?.trials[0];
    const events = (await readFile(path.join(out, trial?.events_path ?? ""), "utf8"))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as TrialEvent);
    expect(events[0]?.type).toBe("trial_start");
    expect(events.at(-1)?.type).toBe("trial_end");
    // The task and the composed system prompt, before the first command.
    const prompt = events.find((e) => e.type === "prompt");
    expect(prompt).toMatchObject({ type: "prompt", task: expect.stringContaining("older than 30") });
    expect(prompt?.type === "prompt" && prompt.system_prompt.length).toBeGreaterThan(0);
    expect(events.findIndex((e) => e.type === "prompt")).toBeLessThan(
      events.findIndex((e) => e.type === "tool_call"),
    );
    const invocations = events.filter((e) => e.type === "target_invocation");
    expect(invocations.map((e) => e.exit_code)).toEqual([3, 3, 0]);
    expect(invocations[0]?.argv).toEqual(["jq", "[.[] | select(.age > 30)] | lenght", "data.json"]);
    const transcript = await readFile(path.join(out, trial?.transcript_path ?? ""), "utf8");
    expect(transcript).toContain("lenght");
    expect(await readFile(path.join(out, "report.md"), "utf8")).toContain("count_adults");
  });

  it("keeps every secret out of the agent's environment and out of every file written", async () => {
    const passing = report.scenarios.find((s) => s.id === "extract_names")?.trials[0];
    const events = await readFile(path.join(out, passing?.events_path ?? ""), "utf8");
    expect(events).toContain('"stdout":"clean\\n"');
    for (const file of await listFiles(out)) {
      const text = await readFile(file, "utf8");
      for (const value of Object.values(CANARIES)) expect(text, file).not.toContain(value);
    }
    for (const value of Object.values(CANARIES)) {
      expect(result.stdout).not.toContain(value);
      expect(result.stderr).not.toContain(value);
    }
  });

  it("re-renders a saved report in every format, and writes HTML and JUnit beside it", async () => {
    const rendered = await runCli(["report", path.join(out, "report.json"), "--format", "md"]);
    expect(rendered.code).toBe(0);
    expect(rendered.stdout).toBe(await readFile(path.join(out, "report.md"), "utf8"));
    const junit = await runCli(["report", path.join(out, "report.json"), "--format", "junit"]);
    expect(junit.stdout).toBe(await readFile(path.join(out, "junit.xml"), "utf8"));
    expect(junit.stdout).toMatch(/<testsuites[^>]* tests="2"[^>]* failures="1"/);
    const htmlFile = path.join(out, "again.html");
    const html = await runCli([
      "report",
      path.join(out, "report.json"),
      "--format",
      "html",
      "--out",
      htmlFile,
    ]);
    expect(html.code).toBe(0);
    const page = await readFile(htmlFile, "utf8");
    expect(page).toMatch(/^<!DOCTYPE html>/i);
    expect(page).toContain("lenght"); // the failing trial's transcript is embedded
    expect(await readFile(path.join(out, "report.html"), "utf8")).toContain("count_adults");
  });
});
