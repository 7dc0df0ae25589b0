import { describe, expect, it } from "vitest";
import { renderReportMarkdown } from "../../src/render/report-markdown.js";
import type { ReplaySummary } from "../../src/results/replay-summary.js";
import { makeInteraction, makeReport, makeScenarioReport, makeTrial } from "../support/report-factory.js";

const diverged: ReplaySummary = {
  recorded_calls: 3,
  replayed_calls: 3,
  diverged_calls: 1,
  first_divergence: {
    index: 2,
    command: "tool list",
    recorded_exit_code: 0,
    exit_code: 2,
    differences: ["exit_code"],
  },
};

describe("report.md's trial sections", () => {
  it("names each replayed trial's scenario once as code, with where its calls diverge", () => {
    const trial = makeTrial({ trial: 1, outcome: "pass", replay: diverged });
    const md = renderReportMarkdown(makeReport([makeScenarioReport({ id: "s1", trials: [trial] })]));
    expect(md).toContain("| `s1` | 1 | call 2 of 3: `tool list` exit 0 → 2 |");
  });

  it("lists shim disagreements under the scenario's name as code, the message as text", () => {
    const trial = makeTrial({ trial: 2, outcome: "pass", shim_disagreements: ["no record for *call* 3"] });
    const md = renderReportMarkdown(makeReport([makeScenarioReport({ id: "s1", trials: [trial] })]));
    expect(md).toContain("## Shim records that disagree with the tool calls");
    expect(md).toContain("- `s1`, trial 2: no record for \\*call\\* 3");
  });

  it("lists the calls command_pattern missed, escaped, apart from the disagreements", () => {
    const trial = makeTrial({
      trial: 1,
      outcome: "pass",
      command_pattern_misses: ["hledger --help", "tool *x*"],
    });
    const md = renderReportMarkdown(makeReport([makeScenarioReport({ id: "s1", trials: [trial] })]));
    expect(md).toContain("## Calls that target.command_pattern does not match");
    expect(md).toContain("- `s1`, trial 1: hledger --help; tool \\*x\\*");
    expect(md).not.toContain("## Shim records that disagree");
  });

  it("names the options whose value may have been taken for the subcommand, once per scenario, as code", () => {
    const hint = { option: "-f", command: "hledger -f main.journal balance `x`" };
    const md = renderReportMarkdown(
      makeReport([
        makeScenarioReport({
          id: "s1",
          trials: [
            makeTrial({ trial: 1, outcome: "pass", possible_global_options: [hint] }),
            makeTrial({
              trial: 2,
              outcome: "pass",
              possible_global_options: [{ ...hint, command: "other" }],
            }),
          ],
        }),
      ]),
    );
    expect(md).toContain("## Subcommands that may be option values");
    expect(md).toContain("list it in `target.global_options`");
    expect(md.split("\n").filter((line) => line.startsWith("- `s1`"))).toEqual([
      "- `s1`: `-f`, e.g. `` hledger -f main.journal balance `x` ``",
    ]);
    expect(
      renderReportMarkdown(
        makeReport([makeScenarioReport({ id: "s2", trials: [makeTrial({ trial: 1, outcome: "pass" })] })]),
      ),
    ).not.toContain("option values");
  });

  it("tells a model matrix's entries apart by their model, in the tables and the failures", () => {
    const entries = ["model-a", "model-b"].map((model) =>
      makeScenarioReport({
        id: "hard",
        model,
        trials: [
          makeTrial({
            trial: 1,
            outcome: "fail",
            by_subcommand: { list: makeInteraction({ total_commands: 1, unique_commands: 1 }) },
          }),
        ],
      }),
    );
    const md = renderReportMarkdown(makeReport(entries));
    for (const model of ["model-a", "model-b"]) {
      expect(md).toContain(`| \`hard ~ ${model}\` | ❌ fail |`);
      expect(md).toContain(`### ❌ \`hard ~ ${model}\` — trial 1: fail`);
      expect(md).toContain(`<details><summary><code>hard &#126; ${model}</code></summary>`);
    }
  });

  it("keeps a pipe in a scenario's name escaped in a table cell but not in a heading", () => {
    const md = renderReportMarkdown(
      makeReport([makeScenarioReport({ id: "a|b", trials: [makeTrial({ trial: 1, outcome: "fail" })] })]),
    );
    expect(md).toContain("| `a\\|b` | ❌ fail |");
    expect(md).toContain("### ❌ `a|b` — trial 1: fail");
  });
});
