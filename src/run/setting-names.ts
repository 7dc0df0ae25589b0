/**
 * How a front end names the settings its user gives, for the notes and errors of the setup both
 * front ends share (prepare.ts, agent-scope.ts): the CLI's flags by default, the action's inputs
 * from action/inputs.ts. A message names what the user set (`input "bashkit-home"` in a workflow,
 * `--bashkit-home` on the command line), never the other front end's spelling.
 */
import type { AgentApi } from "../agents/registry.js";
import type { AgentName } from "../agents/types.js";

export interface SettingNames {
  /** Each API's base URL. */
  baseUrl: Readonly<Record<AgentApi, string>>;
  /** The run's models. */
  model: string;
  /** One agent's own models in an agent matrix, as the user writes them. */
  agentModel(agent: AgentName): string;
  agent: string;
  agentCommand: string;
  /** The replay agent's recorded runs; null: the front end finds the one run it replays (the action's baseline). */
  replayFrom: string | null;
  bashkitHome: string;
  maxCostUsd: string;
  /** A price table for models the built-in one lacks; null: the front end takes none. */
  prices: string | null;
  judgeModel: string;
  /** A judge allowed to be a model under test; null: the front end has no such setting. */
  forceJudge: string | null;
  /** The sandbox every scenario runs in. */
  sandbox: string;
}

/** The CLI's flags (`llm-tool-test run`). */
export const CLI_SETTING_NAMES: SettingNames = {
  baseUrl: { anthropic: "--base-url", openai: "--openai-base-url", gemini: "--gemini-base-url" },
  model: "--model",
  agentModel: (agent) => `--model ${agent}=MODEL`,
  agent: "--agent",
  agentCommand: "--agent-command",
  replayFrom: "--replay-from",
  bashkitHome: "--bashkit-home",
  maxCostUsd: "--max-cost-usd",
  prices: "--prices",
  judgeModel: "--judge-model",
  forceJudge: "--force-judge",
  sandbox: "--sandbox",
};
