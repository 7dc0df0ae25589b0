/**
 * Two kinds of failure matter to a user:
 * - ConfigError: the user's input is wrong (scenario file, flag, action input). Exit status 2,
 *   a message that names the file/field/input and says what to do; never a stack trace.
 * - InfraError: the environment failed a trial (setup command, sandbox, API exhausted retries).
 *   It is data in the report (outcome `error`), never a crash of the run.
 * Everything else is a bug and may surface with a stack trace under --debug.
 */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
  /** Where the problem is: a file path (optionally `file:line`), a flag (`--trials`) or an input name. */
  readonly where: string | undefined;
  constructor(message: string, where?: string) {
    super(where ? `${where}: ${message}` : message);
    this.where = where;
  }
}

export class InfraError extends Error {
  override readonly name = "InfraError";
  constructor(
    message: string,
    readonly detail?: string,
  ) {
    super(message);
  }
}

export function isConfigError(error: unknown): error is ConfigError {
  return error instanceof ConfigError;
}

export function describeError(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
