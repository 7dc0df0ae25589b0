/**
 * What the CLI and the action both do between reading their settings and running the suite:
 * the model client (with adaptive rate limiting), and which judge runs. One place, so the two
 * front ends cannot drift apart.
 */

import type { AgentName } from "../agents/types.js";
import { resolveJudgeModel } from "../evaluate/judge.js";
import { createAnthropicClient } from "../model/anthropic-client.js";
import { createAimdLimiter } from "../model/call-limiter.js";
import type { ModelClient } from "../model/model-client.js";
import type { Scenario } from "../scenario/types.js";

export function createRunModelClient(input: {
  apiKey: string;
  baseURL?: string | undefined;
  concurrency: number;
  /** Where the key comes from, for the message when it is rejected. */
  keySource: string;
}): ModelClient {
  return createAnthropicClient({
    apiKey: input.apiKey,
    keySource: input.keySource,
    // Calls in flight adapt to rate limits: halved on 429/529, raised again on success.
    limiter: createAimdLimiter({ initial: input.concurrency, max: input.concurrency }),
    ...(input.baseURL ? { baseURL: input.baseURL } : {}),
  });
}

export interface JudgeSetup {
  /** The scenarios to run (judges removed when no judge can run). */
  scenarios: Scenario[];
  /** The run's judge model; a scenario's own `judge.model` wins for that scenario. */
  judgeModel: string | null;
  /** Said to the user when judges were skipped. */
  note: string | null;
}

/**
 * Resolves the judge model and refuses a judge equal to the model it judges (unless forced).
 * Without an API key only the oracle and null agents can run at all; their judges are skipped
 * with a note, since their gates already say whether the scenario is satisfiable.
 */
export function setUpJudge(
  scenarios: Scenario[],
  input: {
    flag: string | null | undefined;
    env: string | null | undefined;
    testedModel: string;
    force: boolean;
    hasApiKey: boolean;
    agent: AgentName;
  },
): JudgeSetup {
  const judged = scenarios.filter((s) => s.evaluation.judge?.enabled);
  if (judged.length === 0) return { scenarios, judgeModel: input.flag ?? null, note: null };
  if (!input.hasApiKey) {
    return {
      scenarios: scenarios.map((s) =>
        s.evaluation.judge?.enabled ? { ...s, evaluation: { ...s.evaluation, judge: undefined } } : s,
      ),
      judgeModel: null,
      note: `the judge of ${judged.length} scenario(s) is skipped: it needs an Anthropic API key (the ${input.agent} agent needs none)`,
    };
  }
  const judgeModel = resolveJudgeModel({
    flag: input.flag ?? undefined,
    env: input.env ?? undefined,
    testedModel: input.testedModel,
    force: input.force,
  });
  for (const scenario of judged) {
    resolveJudgeModel({
      flag: input.flag ?? undefined,
      scenario: scenario.evaluation.judge?.model,
      env: input.env ?? undefined,
      testedModel: scenario.agent.model ?? input.testedModel,
      force: input.force,
    });
  }
  return { scenarios, judgeModel, note: null };
}
