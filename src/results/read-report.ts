import { readFile } from "node:fs/promises";
import { ConfigError, describeError } from "../errors.js";
import { describeExcessNesting, findExcessNesting } from "../json-nesting.js";
import { findNumberOutOfRange } from "./check-report-numbers.js";
import { findReportShapeProblem } from "./check-report-shape.js";
import { REPORT_SCHEMA_VERSION, type Report } from "./types.js";

/**
 * Reads a saved report.json, refusing files that are not reports, are from a newer schema, nest
 * deeper than a report does, lack the fields a report's readers rely on (a trial that is not an
 * object, an unknown outcome), or hold numbers out of their range (a rate of 7, a negative count,
 * a duration of 1e200 ms).
 */
export async function readReportFile(file: string): Promise<Report> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch {
    throw new ConfigError("cannot read the report file: check the path", file);
  }
  const deepLine = findExcessNesting(text);
  if (deepLine !== null) throw new ConfigError(describeExcessNesting(), `${file}:${deepLine}`);
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`not valid JSON (${describeError(error)})`, file);
  }
  const report = data as Partial<Report>;
  if (
    typeof report !== "object" ||
    report === null ||
    typeof report.schema_version !== "number" ||
    !report.run
  ) {
    throw new ConfigError(
      "not an llm-tool-test report (no schema_version/run): pass a report.json written by `run`",
      file,
    );
  }
  if (report.schema_version > REPORT_SCHEMA_VERSION) {
    throw new ConfigError(
      `report schema_version ${report.schema_version} is newer than this llm-tool-test understands (${REPORT_SCHEMA_VERSION}): upgrade llm-tool-test`,
      file,
    );
  }
  const misshapen = findReportShapeProblem(report as Record<string, unknown>);
  if (misshapen) throw new ConfigError(`${misshapen} (a report's fields are checked when it is read)`, file);
  const outOfRange = findNumberOutOfRange(report);
  if (outOfRange)
    throw new ConfigError(`${outOfRange} (a report's numbers are checked when it is read)`, file);
  return report as Report;
}
