import { describeError } from "../errors.js";
import { classifyAbort } from "./abort-reason.js";
import type { Agent, AgentContext, AgentOutcome } from "./types.js";

/**
 * Runs the scenario's `solution`, one bash call per entry, through the same sandbox and recording
 * as a model would: no model, no key. Proves a scenario's gates can pass. Every entry runs, even
 * after one fails, as a script without `set -e` would; the gates judge the result.
 */
export function createOracleAgent(): Agent {
  async function run(context: AgentContext): Promise<AgentOutcome> {
    const solution = context.scenario.solution;
    if (!solution || solution.length === 0) {
      return {
        reason: "agent_crash",
        error: `scenario "${context.scenario.id}" has no solution: add solution: [...] or use another agent`,
        turns: 0,
      };
    }
    for (const [index, command] of solution.entries()) {
      if (context.signal.aborted) return { reason: classifyAbort(context.signal), turns: 0 };
      try {
        await context.bash(command, index + 1);
      } catch (error) {
        if (context.signal.aborted) return { reason: classifyAbort(context.signal), turns: 0 };
        const message = describeError(error);
        return { reason: "infra_error", error: `the sandbox failed to run a command: ${message}`, turns: 0 };
      }
    }
    if (context.signal.aborted) return { reason: classifyAbort(context.signal), turns: 0 };
    // No model calls, so no turns, whatever the number of commands.
    return { reason: "natural_stop", turns: 0 };
  }
  return { name: "oracle", run };
}
