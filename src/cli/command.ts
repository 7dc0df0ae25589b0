/** What every command shares: the I/O it is given, the exit statuses, and its entry in the help. */

import path from "node:path";
import type { Decision } from "../compare/decision.js";
import type { Report } from "../results/types.js";

export const EXIT = { ok: 0, failed: 1, usage: 2, incomplete: 3 } as const;

/** The process's streams, environment and directory, passed in so tests can run the CLI in process. */
export interface CliIo {
  stdout: { write(text: string): unknown; isTTY?: boolean; columns?: number };
  stderr: { write(text: string): unknown; isTTY?: boolean; columns?: number };
  env: Record<string, string | undefined>;
  cwd: string;
  /** Set when the process's environment block still holds its secrets; said before agents run. */
  environmentWarning?: string;
}

export interface CliCommand {
  name: string;
  /** The command's arguments, as `llm-tool-test --help` shows them after its name. */
  args: string;
  /** One line for `llm-tool-test --help`. */
  summary: string;
  /** Returns the exit status; throws a ConfigError for the user's mistakes. */
  run(argv: string[], io: CliIo): Promise<number>;
}

/** 1 when a scenario failed, 3 when errors left the result incomplete, else 0. */
export function exitCodeFor(report: Report): number {
  if (report.summary.failed > 0) return EXIT.failed;
  if (report.summary.errors > 0 || report.run.incomplete) return EXIT.incomplete;
  return EXIT.ok;
}

/** Under a decision (a baseline, or an explicit --fail-on): 1 exactly when it fails, 3 when the run was incomplete. */
export function exitCodeForDecision(decision: Decision): number {
  if (decision.failed) return EXIT.failed;
  if (decision.incomplete) return EXIT.incomplete;
  return EXIT.ok;
}

/** Relative to the working directory when inside it. */
export function displayPath(cwd: string, file: string): string {
  const relative = path.relative(cwd, file);
  return relative.startsWith("..") ? file : relative;
}
