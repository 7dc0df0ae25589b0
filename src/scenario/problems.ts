/**
 * Validation collects every problem in a file (and across files) before failing, so a user fixes
 * them in one pass. Each problem renders as `file:line: field.path: message`.
 */
import path from "node:path";
import { ConfigError } from "../errors.js";

export interface Problem {
  /** Absolute path of the file with the problem. */
  file: string;
  /** 1-based line, when known. */
  line?: number;
  /** Field path such as `evaluation.gates[2].pattern`; empty for whole-file problems. */
  field?: string;
  message: string;
}

/** A file path as the user should see it: relative to `cwd` when inside it. */
export function displayPath(file: string, cwd: string): string {
  if (!path.isAbsolute(file)) return file;
  const relative = path.relative(cwd, file);
  if (relative === "") return ".";
  return relative.startsWith("..") || path.isAbsolute(relative) ? file : relative;
}

export function formatProblem(problem: Problem, cwd: string): string {
  const where = `${displayPath(problem.file, cwd)}${problem.line === undefined ? "" : `:${problem.line}`}`;
  return problem.field ? `${where}: ${problem.field}: ${problem.message}` : `${where}: ${problem.message}`;
}

/** One ConfigError listing every problem, one per line, in file and line order. */
export function createProblemsError(problems: Problem[], cwd: string): ConfigError {
  const sorted = [...problems].sort(
    (a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0) || (a.line ?? 0) - (b.line ?? 0),
  );
  const first = sorted[0];
  if (sorted.length === 1 && first) {
    const where = `${displayPath(first.file, cwd)}${first.line === undefined ? "" : `:${first.line}`}`;
    return new ConfigError(first.field ? `${first.field}: ${first.message}` : first.message, where);
  }
  return new ConfigError(sorted.map((problem) => formatProblem(problem, cwd)).join("\n"));
}

/** Appends a field name to a field path: `agent` + `max_turns`, or `files["a b.txt"]`. */
export function joinField(base: string, key: string): string {
  if (!/^[A-Za-z_$][A-Za-z0-9_$-]*$/.test(key)) return `${base}[${JSON.stringify(key)}]`;
  return base ? `${base}.${key}` : key;
}

export function indexField(base: string, index: number): string {
  return `${base}[${index}]`;
}
