import { describe, expect, it } from "vitest";
import { describeStops } from "../../src/render/eval-summary.js";
import { renderReportMarkdown } from "../../src/render/report-markdown.js";
import { renderTerminalSummary } from "../../src/render/terminal.js";
import {
  makeExecution,
  makeInteraction,
  makeReport,
  makeScenarioReport,
  makeTrial,
} from "../support/report-factory.js";

// Two tasks in two categories: one pass that stopped on its own, one fail cut by the turn limit.
const report = makeReport([
  makeScenarioReport({
    id: "list-notes",
    category: "files",
    trials: [
      makeTrial({
        trial: 1,
        outcome: "pass",
        score: 2,
        max_score: 2,
        execution: makeExecution({
          turns: 3,
          tool_calls: 4,
          tool_calls_ok: 3,
          tool_calls_error: 1,
          input_tokens: 1200,
          output_tokens: 300,
          duration_ms: 4000,
        }),
        by_subcommand: {
          list: makeInteraction({ total_commands: 3, error_count: 1, error_rate: 1 / 3, retry_count: 1 }),
        },
      }),
    ],
  }),
  makeScenarioReport({
    id: "add<b>",
    category: "text",
    trials: [
      makeTrial({
        trial: 1,
        outcome: "fail",
        end_reason: "turn_limit",
        score: 1,
        max_score: 3,
        execution: makeExecution({ turns: 5, tool_calls: 2, tool_calls_ok: 2, duration_ms: 2000 }),
      }),
      makeTrial({
        trial: 2,
        outcome: "error",
        end_reason: "infra_error",
        execution: makeExecution({ duration_ms: 500 }),
      }),
    ],
  }),
]);

describe("bashkit-eval's EvalSummary", () => {
  it("counts natural and turn-limit stops first, then the other end reasons; unknown in older reports", () => {
    expect(describeStops(report.summary)).toBe("1 natural, 1 turn limit, 1 infra_error");
    expect(describeStops({})).toBe("–");
  });

  it("is in the terminal: rates, tool-call success, per-task averages, tokens, stops, per category", () => {
    const text = renderTerminalSummary(report);
    expect(text).toContain("Eval summary: 2 tasks, 1 passed (pass rate 50%) · score 3/5 (overall rate 60%)");
    expect(text).toContain(
      "tool calls 6 (5 ok, 1 error; 83% success) · per task: 4 turns, 3 tool calls, 3 s",
    );
    expect(text).toMatch(
      /tokens 1\.2k in \/ 300 out · 6\.5 s of trial time · stops: 1 natural, 1 turn limit, 1 infra_error/,
    );
    expect(text).toMatch(/ {2}files {2}1\/1 passed \(100%\) {2}score 2\/2 \(100%\)\n/);
    expect(text).toMatch(/ {2}text {3}0\/1 passed \(0%\) {2}score 1\/3 \(33%\) {2}1 errored/);
  });

  it("is in report.md, with the scope of its figures", () => {
    const md = renderReportMarkdown(report);
    expect(md).toContain("## Eval summary");
    expect(md).toContain("| Tool calls per task | 3 |");
    expect(md).toContain("| Turns per task | 4 |");
    expect(md).toContain("| Duration per task | 3 s |");
    expect(md).toContain("| Stops | 1 natural, 1 turn limit, 1 infra_error |");
    expect(md).toContain("| Trial time | 6.5 s |");
    expect(md).toContain("cover every trial that ran, errors included");
  });

  it("puts the per-subcommand breakdown in report.md, one table per scenario that invoked any", () => {
    const md = renderReportMarkdown(report);
    expect(md).toContain("## Per subcommand");
    expect(md).toContain("<details><summary><code>list-notes</code></summary>");
    expect(md).toContain("| `list` | 1 | 3 | 1 | 33% | 1 | 0 |");
    // The scenario without subcommands has no table.
    expect(md).not.toContain("<summary><code>add");
  });
});
