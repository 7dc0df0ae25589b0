import { ConfigError } from "../../src/errors.js";

/** The ConfigError a synchronous call throws; anything else it throws is rethrown, no throw fails. */
export function configErrorOf(run: () => unknown): ConfigError {
  try {
    run();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error("expected a ConfigError");
}
