/** What every command shares: the I/O it is given, the exit statuses, and its entry in the help. */

import path from "node:path";
import { EXIT_CODES } from "../compare/exit-status.js";

/** The run's exit codes (compare/exit-status.ts), and 2 for the user's mistakes (a ConfigError, a bad flag). */
export const EXIT = { ...EXIT_CODES, usage: 2 } as const;

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

/** Relative to the working directory when inside it. */
export function displayPath(cwd: string, file: string): string {
  const relative = path.relative(cwd, file);
  return relative.startsWith("..") ? file : relative;
}
