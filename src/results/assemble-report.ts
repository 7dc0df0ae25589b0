/**
 * A report from its run and its scenarios: the run's summary (aggregate.ts) and, for a model
 * matrix, the cross-model view (model-matrix.ts, which summarizes each model's part the same way).
 */
import { summarizeRun } from "./aggregate.js";
import { buildModelMatrix } from "./model-matrix.js";
import { REPORT_SCHEMA_VERSION, type Report, type RunInfo, type ScenarioReport } from "./types.js";

export function assembleReport(run: RunInfo, scenarios: ScenarioReport[]): Report {
  const report: Report = {
    schema_version: REPORT_SCHEMA_VERSION,
    run,
    scenarios,
    summary: summarizeRun(scenarios),
  };
  const matrix = buildModelMatrix(report);
  return matrix ? { ...report, model_matrix: matrix } : report;
}
