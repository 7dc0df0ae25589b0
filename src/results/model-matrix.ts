/**
 * The cross-model view of a matrix run (bashkit-eval's "cross-model diagnostics"): each entry's
 * EvalSummary (an entry is a model in a model matrix, an agent with one of its models in an agent
 * matrix, named "codex · openai:gpt-5"), and per scenario whether every model fails it (likely the tool or its
 * guidance), some do (model capability), every model fails some of its trials, or all pass.
 * "Every" means every model of the matrix, each with a verdict, and for all_fail every trial of
 * each failed: a model that passed one trial of two, or one that did not run the scenario, never
 * makes an "every model fails". Derived from the report's scenarios, so any report of a matrix run
 * (merged shards included) gives the same view.
 */
import { summarizeRun } from "./aggregate.js";
import { matrixEntryLabel, scenarioKey } from "./scenario-key.js";
import type { MatrixEntryInfo, Report, RunSummary, ScenarioReport } from "./types.js";

/** A scenario's state for one model: the scenario passed (every evaluated trial), failed, or could not say. */
type ModelCellState = "pass" | "fail" | "incomplete";

export type MatrixClass = "all_fail" | "some_fail" | "all_unreliable" | "all_pass" | "incomplete";

export interface ModelCell {
  state: ModelCellState;
  passed: number;
  /** Evaluated trials (errors and skips left out). */
  evaluated: number;
  pass_rate: number | null;
  /**
   * Replayed trials whose recorded calls behaved differently here (another exit code or output than
   * recorded: the recording's shell, such as bashkit's, is not this bash). 0 outside a replay.
   */
  diverged: number;
}

export interface MatrixRow {
  /** The scenario's key without the model: `id` or `id@variant`. */
  scenario: string;
  category: string;
  /** Per entry (model) of the run, by name; absent for one the scenario did not run with (a pinned `agent.model`). */
  cells: Record<string, ModelCell>;
  classification: MatrixClass;
}

export interface ModelMatrix {
  /** Each entry's name, the columns: the model, or `agent · model` in an agent matrix. */
  models: string[];
  /**
   * In an agent matrix, each entry's agent and model, in the order of `models` (null model: an
   * agent without one, the oracle). Absent in a model matrix.
   */
  entries?: MatrixEntryInfo[];
  /**
   * Each entry's EvalSummary over its own scenarios, in the order of `models` (`model`: its name);
   * `status_flipped_calls`: its replayed calls that failed where the recording succeeded or the
   * reverse, so its tool calls' ok / error differ from the recorded agent's by up to that many.
   */
  summaries: { model: string; summary: RunSummary; status_flipped_calls: number }[];
  rows: MatrixRow[];
  /** How many rows fell in each class. */
  counts: Record<MatrixClass, number>;
}

const MATRIX_CLASS_LABELS: Record<MatrixClass, string> = {
  all_fail: "every model fails every trial: likely the tool or its guidance",
  some_fail: "some models fail, others pass: model capability",
  all_unreliable:
    "every model fails some trials, none passes all: unreliable (the tool, its guidance or the task)",
  all_pass: "all pass",
  incomplete: "incomplete: a model has no verdict (errors, or it did not run the scenario)",
};

/** The same classes in an agent matrix, whose entries are agents with their models. */
const AGENT_MATRIX_CLASS_LABELS: Record<MatrixClass, string> = {
  all_fail: "every agent · model fails every trial: likely the tool or its guidance",
  some_fail: "some agents · models fail, others pass: agent or model capability",
  all_unreliable:
    "every agent · model fails some trials, none passes all: unreliable (the tool, its guidance or the task)",
  all_pass: "all pass",
  incomplete: "incomplete: an agent · model has no verdict (errors, or it did not run the scenario)",
};

/** The class labels of this matrix: by model, or by agent · model in an agent matrix. */
export function matrixClassLabels(matrix: Pick<ModelMatrix, "entries">): Record<MatrixClass, string> {
  return matrix.entries ? AGENT_MATRIX_CLASS_LABELS : MATRIX_CLASS_LABELS;
}

function cellOf(scenario: ScenarioReport): ModelCell {
  const { passed, failed, errors } = scenario.summary;
  const evaluated = passed + failed;
  // Like the run's scenarios_passed: a scenario passes when every evaluated trial passed and none errored.
  const state: ModelCellState = failed > 0 ? "fail" : evaluated === 0 || errors > 0 ? "incomplete" : "pass";
  const diverged = scenario.trials.filter((t) => (t.replay?.diverged_calls ?? 0) > 0).length;
  return { state, passed, evaluated, pass_rate: evaluated > 0 ? passed / evaluated : null, diverged };
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
 * "every model fails (3 of 3, no trial passed): …", "2 of 3 models fail: model capability"; in an
 * agent matrix, "every agent · model fails (5 of 5, …)", "2 of 5 agents · models fail: …".
 */
export function describeRow(row: MatrixRow, matrix: Pick<ModelMatrix, "models" | "entries">): string {
  const { models } = matrix;
  const cells = models.map((m) => row.cells[m]);
  const failing = cells.filter((c) => c?.state === "fail").length;
  const n = models.length;
  const agents = matrix.entries !== undefined;
  const one = agents ? "agent · model" : "model";
  const many = (count: number) => (count === 1 ? one : agents ? "agents · models" : "models");
  const capability = agents ? "agent or model capability" : "model capability";
  switch (row.classification) {
    case "all_fail":
      return `every ${one} fails (${n} of ${n}, no trial passed): likely the tool or its guidance`;
    case "some_fail": {
      // A replayed model did not act here: where its recorded calls behave otherwise, the shell may be the cause.
      const diverged = cells.filter((c) => c?.state === "fail" && c.diverged > 0).length;
      if (diverged === 0) return `${failing} of ${n} ${many(n)} fail: ${capability}`;
      const which = diverged === failing ? (failing === 1 ? "its" : "all their") : `${diverged} of them`;
      return `${failing} of ${n} ${many(n)} fail: ${which} replayed calls behaved otherwise than recorded (the recording's shell vs bash), so not ${capability} alone`;
    }
    case "all_unreliable":
      return `every ${one} fails some trials (${n} of ${n}), none passes all: unreliable (the tool, its guidance or the task)`;
    case "all_pass":
      return "all pass";
    case "incomplete": {
      const missing = cells.filter((c) => c === undefined || c.state === "incomplete").length;
      return `incomplete: ${missing} of ${n} ${many(n)} without a verdict`;
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

/**
 * Every entry of an agent matrix by name ("codex · openai:gpt-5", "oracle"), in the order given;
 * empty outside an agent matrix. What headers, run info and suite names show for one.
 */
export function entriesOfRun(run: Pick<Report["run"], "entries">): string[] {
  return (run.entries ?? []).map((entry) => matrixEntryLabel(entry));
}

/** The name of a scenario's matrix entry: its model, or `agent · model` in an agent matrix. */
function entryOf(scenario: ScenarioReport): string | null {
  if (!scenario.agent && !scenario.model) return null;
  return matrixEntryLabel({ agent: scenario.agent ?? null, model: scenario.model ?? null });
}

/** Null unless the report is a matrix (its scenarios carry a model, or an agent). */
export function buildModelMatrix(report: Pick<Report, "run" | "scenarios">): ModelMatrix | null {
  const inMatrix = report.scenarios.flatMap((scenario) => {
    const entry = entryOf(scenario);
    return entry === null ? [] : [{ scenario, entry }];
  });
  if (inMatrix.length === 0) return null;
  const agentMatrix = inMatrix.some(({ scenario }) => scenario.agent !== undefined);
  // The run's order first (every entry, also one without trials), then any the scenarios add.
  const entries: MatrixEntryInfo[] = agentMatrix ? (report.run.entries ?? []).map((e) => ({ ...e })) : [];
  const models = agentMatrix ? entries.map((e) => matrixEntryLabel(e)) : [...(report.run.models ?? [])];
  for (const { scenario, entry } of inMatrix) {
    if (models.includes(entry)) continue;
    models.push(entry);
    if (agentMatrix) entries.push({ agent: scenario.agent ?? "", model: scenario.model ?? null });
  }
  const rowsByKey = new Map<string, MatrixRow>();
  for (const { scenario, entry } of inMatrix) {
    const key = scenarioKey({ id: scenario.id, variant: scenario.variant });
    const row = rowsByKey.get(key) ?? {
      scenario: key,
      category: scenario.category,
      cells: {},
      classification: "incomplete",
    };
    row.cells[entry] = cellOf(scenario);
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
  const summaries = models.map((model) => {
    const scenarios = inMatrix.filter(({ entry }) => entry === model).map(({ scenario }) => scenario);
    const flipped = scenarios
      .flatMap((scenario) => scenario.trials)
      .reduce((n, trial) => n + (trial.replay?.status_flipped_calls ?? 0), 0);
    return { model, summary: summarizeRun(scenarios), status_flipped_calls: flipped };
  });
  return { models, ...(agentMatrix ? { entries } : {}), summaries, rows, counts };
}
