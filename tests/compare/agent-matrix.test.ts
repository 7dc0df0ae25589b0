/**
 * Two agent-matrix runs compare entry by entry: each (agent, model) entry's scenario meets the same
 * entry's baseline, and an entry present on one side only is added or removed, never paired with
 * another entry's scenario as a "rename" (its content hash is the same scenario's).
 */
import { describe, expect, it } from "vitest";
import { compareReports } from "../../src/compare/compare.js";
import { describeRunMismatch } from "../../src/compare/pool-baselines.js";
import { compareVariants } from "../../src/compare/variants.js";
import type { Report, ScenarioReport } from "../../src/results/types.js";
import { makeReport, makeScenarioReport, trialsFrom } from "../support/report-factory.js";

function entry(agent: string, model: string | null, outcome: "pass" | "fail"): ScenarioReport {
  return makeScenarioReport({
    id: "extract",
    agent,
    ...(model ? { model } : {}),
    // The same scenario in every entry: one content hash.
    content_hash: "sha256:extract",
    trials: trialsFrom(Array.from({ length: 4 }, () => ({ outcome }))),
  });
}

function matrixRun(entries: { agent: string; model: string | null }[], scenarios: ScenarioReport[]): Report {
  return makeReport(scenarios, {
    agent: entries[0]?.agent ?? "anthropic",
    agents: [...new Set(entries.map((e) => e.agent))],
    entries,
    model: entries[0]?.model ?? null,
  });
}

describe("comparing two agent matrices", () => {
  it("pairs each entry with its own baseline and never one entry with another", () => {
    const base = matrixRun(
      [
        { agent: "anthropic", model: "claude-haiku-4-5" },
        { agent: "codex", model: "openai:gpt-5" },
      ],
      [entry("anthropic", "claude-haiku-4-5", "pass"), entry("codex", "openai:gpt-5", "fail")],
    );
    const head = matrixRun(
      [
        { agent: "anthropic", model: "claude-haiku-4-5" },
        { agent: "gemini-cli", model: "gemini-2.5-flash" },
      ],
      [entry("anthropic", "claude-haiku-4-5", "pass"), entry("gemini-cli", "gemini-2.5-flash", "pass")],
    );
    const comparison = compareReports(base, head);
    expect(comparison.scenarios.map((s) => [s.key, s.renamed_from])).toEqual([
      ["extract~anthropic/claude-haiku-4-5", null],
    ]);
    // Codex's entry is gone and Gemini's is new: not a rename of the one into the other.
    expect(comparison.renamed).toEqual([]);
    expect(comparison.removed.map((s) => s.key)).toEqual(["extract~codex/openai:gpt-5"]);
    expect(comparison.added.map((s) => s.key)).toEqual(["extract~gemini-cli/gemini-2.5-flash"]);
    expect(comparison.head.entries).toEqual([
      "anthropic · claude-haiku-4-5",
      "gemini-cli · gemini-2.5-flash",
    ]);
    expect(comparison.warnings.map((w) => w.code)).toContain("agent_differs");
  });

  it("keeps two agents with the same model apart", () => {
    const entries = [
      { agent: "anthropic", model: "claude-haiku-4-5" },
      { agent: "claude-code", model: "claude-haiku-4-5" },
    ];
    const base = matrixRun(entries, [
      entry("anthropic", "claude-haiku-4-5", "pass"),
      entry("claude-code", "claude-haiku-4-5", "fail"),
    ]);
    const head = matrixRun(entries, [
      entry("anthropic", "claude-haiku-4-5", "pass"),
      entry("claude-code", "claude-haiku-4-5", "fail"),
    ]);
    const comparison = compareReports(base, head);
    const byKey = Object.fromEntries(comparison.scenarios.map((s) => [s.key, s]));
    expect(Object.keys(byKey).sort()).toEqual([
      "extract~anthropic/claude-haiku-4-5",
      "extract~claude-code/claude-haiku-4-5",
    ]);
    // Each side of each pair is the same entry: the failing one is compared with the failing one.
    expect(byKey["extract~claude-code/claude-haiku-4-5"]?.status).not.toBe("newly_failing");
    expect(byKey["extract~anthropic/claude-haiku-4-5"]?.status).not.toBe("newly_passing");
    expect(describeRunMismatch(base, head)).toBeNull();
  });

  it("does not pool an agent matrix with a one-agent run, nor with a matrix of other entries", () => {
    const matrix = matrixRun(
      [
        { agent: "anthropic", model: "claude-haiku-4-5" },
        { agent: "oracle", model: null },
      ],
      [entry("anthropic", "claude-haiku-4-5", "pass"), entry("oracle", null, "pass")],
    );
    const single = makeReport([entry("anthropic", "claude-haiku-4-5", "pass")], {
      model: "claude-haiku-4-5",
    });
    expect(describeRunMismatch(single, matrix)).toBe(
      "agent anthropic, not an agent matrix (anthropic · claude-haiku-4-5, oracle)",
    );
    const reordered = matrixRun(
      [
        { agent: "oracle", model: null },
        { agent: "anthropic", model: "claude-haiku-4-5" },
      ],
      [],
    );
    expect(describeRunMismatch(reordered, matrix)).toBeNull();
    const other = matrixRun(
      [
        { agent: "anthropic", model: "claude-sonnet-4-5" },
        { agent: "oracle", model: null },
      ],
      [],
    );
    expect(describeRunMismatch(other, matrix)).toMatch(
      /^an agent matrix \(anthropic · claude-sonnet-4-5, oracle\), not/,
    );
  });
});

describe("comparing two model matrices", () => {
  it("never pairs one model's scenario with another model's", () => {
    const scenario = (model: string) =>
      makeScenarioReport({
        id: "extract",
        model,
        content_hash: "sha256:extract",
        trials: trialsFrom([{ outcome: "pass" }]),
      });
    const base = makeReport([scenario("a"), scenario("b")], { model: "a", models: ["a", "b"] });
    const head = makeReport([scenario("a"), scenario("c")], { model: "a", models: ["a", "c"] });
    const comparison = compareReports(base, head);
    expect(comparison.renamed).toEqual([]);
    expect(comparison.scenarios.map((s) => s.key)).toEqual(["extract~a"]);
  });
});

describe("guidance variants in an agent matrix", () => {
  it("are compared within each entry, the run named after that entry's agent and model", () => {
    const variant = (agent: string, model: string, name: string, outcome: "pass" | "fail") =>
      makeScenarioReport({
        id: "docs",
        variant: name,
        agent,
        model,
        trials: trialsFrom(Array.from({ length: 4 }, () => ({ outcome }))),
      });
    const report = matrixRun(
      [
        { agent: "anthropic", model: "m" },
        { agent: "claude-code", model: "m" },
      ],
      [
        variant("anthropic", "m", "terse", "pass"),
        variant("anthropic", "m", "detailed", "pass"),
        variant("claude-code", "m", "terse", "fail"),
        variant("claude-code", "m", "detailed", "fail"),
      ],
    );
    const pairs = compareVariants(report);
    expect(pairs.map((p) => [p.model, p.comparison.head.agent, p.comparison.head.model])).toEqual([
      ["anthropic · m", "anthropic", "m"],
      ["claude-code · m", "claude-code", "m"],
    ]);
    // Each side holds one entry's trials only: passing with passing, failing with failing.
    for (const pair of pairs) {
      const [scenario] = pair.comparison.scenarios;
      expect(scenario?.base.passed).toBe(scenario?.head.passed);
      expect(scenario?.base.trials).toBe(4);
    }
  });
});
