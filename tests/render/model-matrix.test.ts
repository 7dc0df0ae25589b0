/**
 * The cross-model table tells the truth: a model missing from the price table costs "unknown",
 * never "$0"; a category's rate is the seed's (score ÷ max score) with the pass rate beside it; and
 * every model of the matrix is named in report.md's header, report.html's, the comment's and the
 * JUnit suite's name, not only the first.
 */
import { describe, expect, it } from "vitest";
import { renderReportHtml } from "../../src/render/html.js";
import { renderJunitXml } from "../../src/render/junit.js";
import { renderModelMatrixLines } from "../../src/render/model-matrix.js";
import { renderReportMarkdown } from "../../src/render/report-markdown.js";
import { buildModelMatrix, describeRow } from "../../src/results/model-matrix.js";
import type { Report } from "../../src/results/types.js";
import { makeExecution, makeReport, makeScenarioReport, makeTrial } from "../support/report-factory.js";

const PRICED = "claude-haiku-4-5";
const UNPRICED = "openai:gpt-5.5";

/** Four code_search tasks each passing 17 of 20 checks (85% by score, 0% by pass), one passed file task. */
function matrixReport(): Report {
  const scenarios = [PRICED, UNPRICED].flatMap((model) => [
    ...[1, 2, 3, 4].map((n) =>
      makeScenarioReport({
        id: `search-${n}`,
        model,
        category: "code_search",
        trials: [
          makeTrial({
            trial: 1,
            outcome: "fail",
            score: 17,
            max_score: 20,
            execution: makeExecution({
              turns: 2,
              input_tokens: 1000,
              output_tokens: 100,
              cost_usd: model === PRICED ? 0.01 : null,
            }),
          }),
        ],
      }),
    ),
    makeScenarioReport({
      id: "files",
      model,
      category: "file_operations",
      trials: [
        makeTrial({
          trial: 1,
          outcome: "pass",
          score: 1,
          max_score: 1,
          execution: makeExecution({ cost_usd: model === PRICED ? 0.01 : null }),
        }),
      ],
    }),
  ]);
  const report = makeReport(scenarios, { model: PRICED, models: [PRICED, UNPRICED] });
  return { ...report, model_matrix: buildModelMatrix(report) ?? undefined };
}

describe("the cross-model table", () => {
  it("says 'unknown' for the cost of a model missing from the price table, never $0", () => {
    const report = matrixReport();
    const unpriced = report.model_matrix?.summaries.find((s) => s.model === UNPRICED)?.summary;
    expect(unpriced?.trials_cost_unknown).toBe(5);
    const markdown = renderReportMarkdown(report);
    expect(markdown).toContain("| Cost | $0.05 | unknown |");
    const lines = renderModelMatrixLines(report.model_matrix!).join("\n");
    expect(lines).not.toMatch(/openai:gpt-5\.5 .*\$0(?!\.)/);
    expect(lines).toContain("cost unknown for 5 trials");
    expect(renderReportHtml({ report })).toContain("<td>unknown</td>");
  });

  it("gives each category the seed's rate (score ÷ max score) with the pass rate beside it", () => {
    const markdown = renderReportMarkdown(matrixReport());
    expect(markdown).toContain("| `code_search` | 85% (pass 0%, 0/4) | 85% (pass 0%, 0/4) |");
    expect(markdown).toContain("| `file_operations` | 100% (pass 100%, 1/1) | 100% (pass 100%, 1/1) |");
    expect(markdown).toContain("score ÷ max score");
    expect(renderReportHtml({ report: matrixReport() })).toContain("85% (pass 0%, 0/4)");
  });

  it("names every model in report.md's, report.html's and JUnit's headers", () => {
    const report = matrixReport();
    expect(renderReportMarkdown(report)).toContain(
      `Agent \`anthropic\`, models \`${PRICED}\`, \`${UNPRICED}\``,
    );
    expect(renderJunitXml(report)).toContain(`<testsuites name="llm-tool-test (${PRICED}, ${UNPRICED})"`);
    expect(renderReportHtml({ report })).toContain(`models ${PRICED}, ${UNPRICED}`);
    // A one-model run still says "model".
    const single = makeReport(
      report.scenarios.filter((s) => s.model === PRICED),
      { model: PRICED },
    );
    expect(renderReportMarkdown(single)).toContain(`Agent \`anthropic\`, model \`${PRICED}\``);
    expect(renderJunitXml(single)).toContain(`<testsuites name="llm-tool-test (${PRICED})"`);
  });
});

describe("an agent matrix's table", () => {
  const ENTRIES = [
    { agent: "claude-code", model: PRICED },
    { agent: "anthropic", model: PRICED },
    { agent: "gemini-cli", model: "gemini-2.5-flash" },
  ];
  /** The same model under two agents: one passes, one fails; Gemini CLI's cost is unknown. */
  function agentMatrixReport(): Report {
    const scenarios = ENTRIES.map(({ agent, model }) =>
      makeScenarioReport({
        id: "extract",
        agent,
        model,
        category: "json",
        trials: [
          makeTrial({
            trial: 1,
            outcome: agent === "claude-code" ? "fail" : "pass",
            score: agent === "claude-code" ? 1 : 3,
            max_score: 3,
            execution: makeExecution({ tool_calls: 2, cost_usd: agent === "gemini-cli" ? null : 0.01 }),
          }),
        ],
      }),
    );
    const report = makeReport(scenarios, {
      agent: "claude-code",
      agents: ["claude-code", "anthropic", "gemini-cli"],
      entries: ENTRIES,
      model: PRICED,
      models: [PRICED, "gemini-2.5-flash"],
    });
    return { ...report, model_matrix: buildModelMatrix(report) ?? undefined };
  }

  it("keeps two agents with one model apart, each column named agent · model", () => {
    const matrix = agentMatrixReport().model_matrix!;
    expect(matrix.models).toEqual([
      `claude-code · ${PRICED}`,
      `anthropic · ${PRICED}`,
      "gemini-cli · gemini-2.5-flash",
    ]);
    expect(matrix.entries).toEqual(ENTRIES);
    expect(matrix.rows[0]?.classification).toBe("some_fail");
    expect(describeRow(matrix.rows[0]!, matrix)).toBe(
      "1 of 3 agents · models fail: agent or model capability",
    );
  });

  it("names every entry in the headers, and says unknown for an unknown cost", () => {
    const report = agentMatrixReport();
    const markdown = renderReportMarkdown(report);
    expect(markdown).toContain(
      `Agents · models \`claude-code · ${PRICED}\`, \`anthropic · ${PRICED}\`, \`gemini-cli · gemini-2.5-flash\``,
    );
    expect(markdown).toContain("## Agents · models side by side");
    expect(markdown).toContain("| Cost | $0.01 | $0.01 | unknown |");
    expect(markdown).toContain(
      `| \`json\` | 33% (pass 0%, 0/1) | 100% (pass 100%, 1/1) | 100% (pass 100%, 1/1) |`,
    );
    expect(renderJunitXml(report)).toContain(
      `<testsuites name="llm-tool-test (claude-code · ${PRICED}, anthropic · ${PRICED}, gemini-cli · gemini-2.5-flash)"`,
    );
    expect(renderReportHtml({ report })).toContain(`agents · models claude-code · ${PRICED}`);
    const lines = renderModelMatrixLines(report.model_matrix!);
    expect(lines).toContain("Agents · models (3):");
    expect(lines.join("\n")).toContain("extract: not passed by claude-code · claude-haiku-4-5 (1 of 3)");
    expect(lines.find((line) => line.startsWith("  gemini-cli"))).toContain("cost unknown for 1 trial");
  });

  it("does not call a replayed model's failure capability where its recorded calls behaved otherwise in bash", () => {
    // Two replayed models: one fails a task whose recorded `ls` exited 0 in the recording's shell but 2 in bash.
    const flipped = {
      recorded_calls: 2,
      replayed_calls: 2,
      diverged_calls: 1,
      status_flipped_calls: 1,
      first_divergence: {
        index: 1,
        command: "ls /lib",
        recorded_exit_code: 0,
        exit_code: 2,
        differences: ["exit_code" as const, "stderr" as const],
      },
    };
    const same = {
      recorded_calls: 2,
      replayed_calls: 2,
      diverged_calls: 0,
      status_flipped_calls: 0,
      first_divergence: null,
    };
    const report = makeReport(
      [
        makeScenarioReport({
          id: "lib",
          model: "a",
          trials: [makeTrial({ trial: 1, outcome: "fail", replay: flipped })],
        }),
        makeScenarioReport({
          id: "lib",
          model: "b",
          trials: [makeTrial({ trial: 1, outcome: "pass", replay: same })],
        }),
        makeScenarioReport({
          id: "hard",
          model: "a",
          trials: [makeTrial({ trial: 1, outcome: "pass", replay: same })],
        }),
        makeScenarioReport({
          id: "hard",
          model: "b",
          trials: [makeTrial({ trial: 1, outcome: "fail", replay: same })],
        }),
      ],
      { models: ["a", "b"] },
    );
    const matrix = buildModelMatrix(report)!;
    const row = (id: string) => matrix.rows.find((r) => r.scenario === id)!;
    expect(describeRow(row("lib"), matrix)).toBe(
      "1 of 2 models fail: its replayed calls behaved otherwise than recorded (the recording's shell vs bash), so not model capability alone",
    );
    // Where the replay matched its recording, the difference is the models'.
    expect(describeRow(row("hard"), matrix)).toBe("1 of 2 models fail: model capability");
    expect(matrix.summaries.map((e) => e.status_flipped_calls)).toEqual([1, 0]);
    const markdown = renderReportMarkdown({ ...report, model_matrix: matrix });
    expect(markdown).toContain("| Tool calls (ok / error) | 0 (0 / 0), 1 ≠ recorded | 0 (0 / 0) |");
    expect(markdown).toContain("| `lib` | ❌ 0/1 ≠1 | ✅ 1/1 |");
    expect(markdown).toContain("a cell's ≠N counts its trials with one");
    const html = renderReportHtml({ report: { ...report, model_matrix: matrix } });
    expect(html).toContain("❌ 0/1 ≠1");
    expect(html).toContain("1 ≠ recorded");
    expect(renderModelMatrixLines(matrix).join("\n")).toContain(
      "replayed calls whose exit status changed side against the recording: a 1",
    );
  });
});
