import { describeError } from "../errors.js";

/** An error's message, with the HTTP status that Octokit's errors carry apart from it. */
export function describeHttpError(error: unknown): string {
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === "number" ? `HTTP ${status}: ${describeError(error)}` : describeError(error);
}
