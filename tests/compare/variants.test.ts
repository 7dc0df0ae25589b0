import { describe, expect, it } from "vitest";
import { compareVariants } from "../../src/compare/variants.js";
import { renderReportMarkdown } from "../../src/render/report-markdown.js";
import { buildScenarioReport, scenarioMetaOf } from "../../src/results/aggregate.js";
import type { Report } from "../../src/results/types.js";
import { makeInteraction, makeReport, makeTrial } from "../support/report-factory.js";
import { makeScenario } from "../support/scenario-factory.js";

function trials(count: number, commands: number, errors: number) {
  return Array.from({ length: count }, (_, i) =>
    makeTrial({
      trial: i + 1,
      outcome: "pass",
      score: 1,
      max_score: 1,
      interaction: makeInteraction({
        total_commands: commands,
        error_count: errors,
        error_rate: errors / commands,
      }),
    }),
  );
}

function reportWithVariants(): Report {
  const docs = makeScenario({ id: "docs", variants: [{ name: "terse" }, { name: "detailed" }] });
  const plain = makeScenario({ id: "plain" });
  const scenarios = [
    buildScenarioReport(scenarioMetaOf(docs, "terse"), trials(8, 10, 5)),
    buildScenarioReport(scenarioMetaOf(docs, "detailed"), trials(8, 3, 0)),
    buildScenarioReport(scenarioMetaOf(plain, null), trials(2, 1, 0)),
  ];
  return makeReport(scenarios, { model: "m", agent: "anthropic", harness_version: "0", price_table: {} });
}

describe("guidance variants in one run", () => {
  it("compares each variant with the scenario's first, over the scenarios that ran both", () => {
    const [pair, ...rest] = compareVariants(reportWithVariants());
    expect(rest).toEqual([]);
    expect(pair?.base).toBe("terse");
    expect(pair?.head).toBe("detailed");
    const scenario = pair?.comparison.scenarios[0];
    expect(pair?.comparison.scenarios).toHaveLength(1);
    const commands = scenario?.metrics.find((m) => m.metric === "total_commands");
    expect(commands?.base_mean).toBe(10);
    expect(commands?.head_mean).toBe(3);
    expect(commands?.verdict).toBe("improved");
  });

  it("shows the variant comparison in report.md, and nothing when there are no variants", () => {
    const report = reportWithVariants();
    expect(renderReportMarkdown(report)).toContain("## Guidance variants: `detailed` against `terse`");
    const withoutVariants = { ...report, scenarios: report.scenarios.filter((s) => s.variant === null) };
    expect(renderReportMarkdown(withoutVariants)).not.toContain("Guidance variants");
  });
});

describe("guidance variants in a model matrix", () => {
  function matrixWithVariants(): Report {
    const docs = makeScenario({ id: "docs", variants: [{ name: "terse" }, { name: "detailed" }] });
    const scenarios = ["model-a", "model-b"].flatMap((model) => [
      buildScenarioReport(scenarioMetaOf(docs, "terse", model), trials(8, 10, 5)),
      buildScenarioReport(scenarioMetaOf(docs, "detailed", model), trials(8, 3, 0)),
    ]);
    return makeReport(scenarios, {
      model: "model-a",
      models: ["model-a", "model-b"],
      agent: "anthropic",
      harness_version: "0",
      price_table: {},
    });
  }

  it("compares each variant with the first once per model, never a variant or a model with itself", () => {
    const pairs = compareVariants(matrixWithVariants());
    expect(pairs.map((p) => [p.base, p.head, p.model])).toEqual([
      ["terse", "detailed", "model-a"],
      ["terse", "detailed", "model-b"],
    ]);
    for (const pair of pairs) {
      expect(pair.comparison.scenarios).toHaveLength(1);
      // Each side is that one model's trials, and says so.
      expect(pair.comparison.base.model).toBe(pair.model);
      expect(pair.comparison.head.model).toBe(pair.model);
    }
    const markdown = renderReportMarkdown(matrixWithVariants());
    expect(markdown).not.toContain("`terse` against `terse`");
    expect(markdown).toContain("## Guidance variants: `detailed` against `terse`, model `model-b`");
  });
});
