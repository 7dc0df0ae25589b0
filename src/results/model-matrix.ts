/**
 * The cross-model view of a model-matrix run (bashkit-eval's "cross-model diagnostics"): each
 * model's EvalSummary, and per scenario whether every model fails it (likely the tool or its
 * guidance), some do (model capability) or all pass. Derived from the report's scenarios, so any
 * report of a matrix run (merged shards included) gives the same view.
 */
import { summarizeRun } from "./aggregate.js";
import { scenarioKey } from "./scenario-key.js";
import type { Report, RunSummary, ScenarioReport } from "./types.js";

/** A scenario's state for one model: the scenario passed (every evaluated trial), failed, or could not say. */
export type ModelCellState = "pass" | "fail" | "incomplete";

export type MatrixClass = "all_fail" | "some_fail" | "all_pass" | "incomplete";

export interface ModelCell {
  state: ModelCellState;
  passed: number;
  /** Evaluated trials (errors and skips left out). */
  evaluated: number;
  pass_rate: number | null;
}

export interface MatrixRow {
  /** The scenario's key without the model: `id` or `id@variant`. */
  scenario: string;
  category: string;
  /** Per model of the run; absent for a model the scenario did not run with (a pinned `agent.model`). */
  cells: Record<string, ModelCell>;
  classification: MatrixClass;
}

export interface ModelMatrix {
  models: string[];
  /** Each model's EvalSummary over its own scenarios, in the order of `models`. */
  summaries: { model: string; summary: RunSummary }[];
  rows: MatrixRow[];
  /** How many rows fell in each class. */
  counts: Record<MatrixClass, number>;
}

export const MATRIX_CLASS_LABELS: Record<MatrixClass, string> = {
  all_fail: "all models fail: likely the tool or its guidance",
  some_fail: "some models fail: model capability",
  all_pass: "all pass",
  incomplete: "incomplete: errors left a model without a verdict",
};

function cellOf(scenario: ScenarioReport): ModelCell {
  const { passed, failed, errors } = scenario.summary;
  const evaluated = passed + failed;
  // Like the run's scenarios_passed: a scenario passes when every evaluated trial passed and none errored.
  const state: ModelCellState = failed > 0 ? "fail" : evaluated === 0 || errors > 0 ? "incomplete" : "pass";
  return { state, passed, evaluated, pass_rate: evaluated > 0 ? passed / evaluated : null };
}

function classify(cells: ModelCell[]): MatrixClass {
  if (cells.every((c) => c.state === "pass")) return "all_pass";
  if (cells.every((c) => c.state === "fail")) return "all_fail";
  if (cells.some((c) => c.state === "pass") && cells.some((c) => c.state === "fail")) return "some_fail";
  return "incomplete";
}

/** Null unless the report is a model matrix (its scenarios carry a model). */
export function buildModelMatrix(report: Pick<Report, "run" | "scenarios">): ModelMatrix | null {
  const withModel = report.scenarios.filter((s): s is ScenarioReport & { model: string } => Boolean(s.model));
  if (withModel.length === 0) return null;
  const models = [...(report.run.models ?? [])];
  for (const s of withModel) if (!models.includes(s.model)) models.push(s.model);
  const rowsByKey = new Map<string, MatrixRow>();
  for (const scenario of withModel) {
    const key = scenarioKey({ id: scenario.id, variant: scenario.variant });
    const row = rowsByKey.get(key) ?? {
      scenario: key,
      category: scenario.category,
      cells: {},
      classification: "incomplete",
    };
    row.cells[scenario.model] = cellOf(scenario);
    rowsByKey.set(key, row);
  }
  const rows = [...rowsByKey.values()].sort((a, b) => a.scenario.localeCompare(b.scenario));
  const counts: Record<MatrixClass, number> = { all_fail: 0, some_fail: 0, all_pass: 0, incomplete: 0 };
  for (const row of rows) {
    row.classification = classify(Object.values(row.cells));
    counts[row.classification] += 1;
  }
  const summaries = models.map((model) => ({
    model,
    summary: summarizeRun(withModel.filter((s) => s.model === model)),
  }));
  return { models, summaries, rows, counts };
}
