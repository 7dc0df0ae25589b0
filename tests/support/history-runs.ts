/**
 * A history of base-branch runs of the repository's example suite (scenarios-example): 12 base runs
 * a day apart and a head run, 3 trials per scenario entry, with the entries, categories and
 * measurement hashes of the real scenario files. The tool under test (`tools/jq`, a build in the
 * repository) changes before base run 7 and again in the head (the PR); the terse guidance of
 * `customers_by_country` changes before base run 10. After the first tool change the jq scenarios
 * fail more often, so the change shows in their pass rates.
 */
import path from "node:path";
import type { BaselineCandidate } from "../../src/compare/pool-baselines.js";
import type { Report, ReportTreatment } from "../../src/results/types.js";
import { loadScenarios } from "../../src/scenario/load.js";
import type { Scenario } from "../../src/scenario/types.js";
import { makeReport, makeScenarioReport, type TrialSpec, trialsFrom } from "./report-factory.js";
import { ROOT } from "./run-cli.js";

export const HISTORY_BASE_RUNS = 12;
/** 0-based: the base run before which the tool's build changed. */
export const TOOL_CHANGED_AT = 6;
/** 0-based: the base run before which the terse guidance changed. */
export const GUIDANCE_CHANGED_AT = 9;
export const TOOL_PATH = "tools/jq";
export const TERSE_GUIDANCE = "scenarios-example/guidance/jq-terse.md";

export interface ExampleHistory {
  base: BaselineCandidate[];
  head: Report;
}

const sha = (text: string) => `${text}`.padEnd(64, "0");

/** Passes of 3 for a scenario entry in run `run` (the head is run 12): the jq entries get worse after the tool change. */
function passesOf(entry: number, run: number, jq: boolean): number {
  const wobble = (entry * 7 + run * 3) % 5 === 0 ? 1 : 0;
  return Math.max(0, 3 - wobble - (jq && run >= TOOL_CHANGED_AT ? 2 : 0));
}

export async function makeExampleHistory(): Promise<ExampleHistory> {
  const scenarios = await loadScenarios([path.join(ROOT, "scenarios-example")]);
  const entries = scenarios.flatMap(
    (s): Array<{ scenario: Scenario; variant: string | null }> =>
      s.variants.length === 0
        ? [{ scenario: s, variant: null }]
        : s.variants.map((v) => ({ scenario: s, variant: v.name })),
  );
  const reportOf = (run: number): Report => {
    const toolBuild = run === HISTORY_BASE_RUNS ? "c" : run >= TOOL_CHANGED_AT ? "b" : "a";
    const guidanceVersion = run >= GUIDANCE_CHANGED_AT ? "2" : "1";
    const day = String(run + 1).padStart(2, "0");
    return makeReport(
      entries.map(({ scenario, variant }, index) => {
        const jq = scenario.target.binary === "jq";
        const passed = passesOf(index, run, jq);
        const specs: TrialSpec[] = [0, 1, 2].map((t) => ({
          outcome: t < passed ? "pass" : "fail",
          total_commands: 3 + (t < passed ? 0 : 2) + (jq && run >= TOOL_CHANGED_AT ? 1 : 0),
          error_count: t < passed ? 0 : 1,
          help_invocations: jq && run >= TOOL_CHANGED_AT ? 1 : 0,
          input_tokens: 10_000 + run * 200,
          output_tokens: 800,
          cost_usd: 0.04 + run * 0.001,
        }));
        const treatment: ReportTreatment = {
          guidance:
            variant === "terse"
              ? [{ path: TERSE_GUIDANCE, sha256: sha(`g${guidanceVersion}`), mode: "workdir" }]
              : [],
          tool: [{ path: TOOL_PATH, sha256: sha(toolBuild) }],
        };
        return makeScenarioReport({
          id: scenario.id,
          variant,
          category: scenario.category,
          content_hash: `${scenario.contentHash}-${toolBuild}${guidanceVersion}`,
          measurement_hash: scenario.measurementHash,
          treatment,
          trials: trialsFrom(specs),
        });
      }),
      {
        id: `run-${run + 1}`,
        agent: "oracle",
        model: null,
        evaluation_hash: "sha256:example-settings",
        started_at: `2026-11-${day}T09:00:00.000Z`,
        ended_at: `2026-11-${day}T09:05:00.000Z`,
        git_sha: `${String(run + 1).padStart(2, "0")}`.padEnd(40, "a"),
        price_table: {},
      },
    );
  };
  const base = Array.from({ length: HISTORY_BASE_RUNS }, (_, run) => ({
    label: `run #${run + 1}`,
    report: reportOf(run),
  }));
  // The action lists the base runs newest first: the history orders them by time itself.
  return { base: base.reverse(), head: reportOf(HISTORY_BASE_RUNS) };
}
