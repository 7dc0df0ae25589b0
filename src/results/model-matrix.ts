/**
 * The cross-model view of a model-matrix run (bashkit-eval's "cross-model diagnostics"): each
 * model's EvalSummary, and per scenario whether every model fails it (likely the tool or its
 * guidance), some do (model capability), every model fails some of its trials, or all pass.
 * "Every" means every model of the matrix, each with a verdict, and for all_fail every trial of
 * each failed: a model that passed one trial of two, or one that did not run the scenario, never
 * makes an "every model fails". Derived from the report's scenarios, so any report of a matrix run
 * (merged shards included) gives the same view.
 */
import { summarizeRun } from "./aggregate.js";
import { scenarioKey } from "./scenario-key.js";
import type { Report, RunSummary, ScenarioReport } from "./types.js";

/** A scenario's state for one model: the scenario passed (every evaluated trial), failed, or could not say. */
export type ModelCellState = "pass" | "fail" | "incomplete";

export type MatrixClass = "all_fail" | "some_fail" | "all_unreliable" | "all_pass" | "incomplete";

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
  all_fail: "every model fails every trial: likely the tool or its guidance",
  some_fail: "some models fail, others pass: model capability",
  all_unreliable:
    "every model fails some trials, none passes all: unreliable (the tool, its guidance or the task)",
  all_pass: "all pass",
  incomplete: "incomplete: a model has no verdict (errors, or it did not run the scenario)",
};

function cellOf(scenario: ScenarioReport): ModelCell {
  const { passed, failed, errors } = scenario.summary;
  const evaluated = passed + failed;
  // Like the run's scenarios_passed: a scenario passes when every evaluated trial passed and none errored.
  const state: ModelCellState = failed > 0 ? "fail" : evaluated === 0 || errors > 0 ? "incomplete" : "pass";
  return { state, passed, evaluated, pass_rate: evaluated > 0 ? passed / evaluated : null };
}

/** `cells`: one per model of the matrix, undefined where the scenario did not run with that model. */
function classify(cells: (ModelCell | undefined)[]): MatrixClass {
  const judged = cells.filter((c): c is ModelCell => c !== undefined && c.state !== "incomplete");
  // Some pass, some fail: a difference between models, whatever the others could not say.
  if (judged.some((c) => c.state === "pass") && judged.some((c) => c.state === "fail")) return "some_fail";
  if (judged.length < cells.length) return "incomplete";
  if (judged.every((c) => c.state === "pass")) return "all_pass";
  return judged.every((c) => c.passed === 0) ? "all_fail" : "all_unreliable";
}

/**
 * A row's diagnosis with its counts, so the words never claim more than the cells show:
 * "every model fails (3 of 3, no trial passed): …", "2 of 3 models fail: model capability".
 */
export function describeRow(row: MatrixRow, models: readonly string[]): string {
  const cells = models.map((m) => row.cells[m]);
  const failing = cells.filter((c) => c?.state === "fail").length;
  const n = models.length;
  switch (row.classification) {
    case "all_fail":
      return `every model fails (${n} of ${n}, no trial passed): likely the tool or its guidance`;
    case "some_fail":
      return `${failing} of ${n} model${n === 1 ? "" : "s"} fail: model capability`;
    case "all_unreliable":
      return `every model fails some trials (${n} of ${n}), none passes all: unreliable (the tool, its guidance or the task)`;
    case "all_pass":
      return "all pass";
    case "incomplete": {
      const missing = cells.filter((c) => c === undefined || c.state === "incomplete").length;
      return `incomplete: ${missing} of ${n} model${n === 1 ? "" : "s"} without a verdict`;
    }
  }
}

/**
 * Every model a run used, in the order given: a matrix's `models`, else its one `model`, else none.
 * What headers, run info and suite names show, so a matrix is never named after its first model.
 */
export function modelsOfRun(run: Pick<Report["run"], "model" | "models">): string[] {
  if (run.models && run.models.length > 1) return [...run.models];
  return run.model ? [run.model] : [];
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
  const counts: Record<MatrixClass, number> = {
    all_fail: 0,
    some_fail: 0,
    all_unreliable: 0,
    all_pass: 0,
    incomplete: 0,
  };
  for (const row of rows) {
    row.classification = classify(models.map((m) => row.cells[m]));
    counts[row.classification] += 1;
  }
  const summaries = models.map((model) => ({
    model,
    summary: summarizeRun(withModel.filter((s) => s.model === model)),
  }));
  return { models, summaries, rows, counts };
}
