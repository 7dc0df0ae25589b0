/** The library's public API: run suites, evaluate, compare, render. */

export { createAgent } from "./agents/registry.js";
export type { Agent, AgentContext, AgentName, AgentOutcome } from "./agents/types.js";
export { compareReports } from "./compare/compare.js";
export {
  type DecidedRun,
  type DecideRunInput,
  type DecisionBaseline,
  type DecisionPolicy,
  decideRun,
} from "./compare/decide-run.js";
export {
  checkGateMetrics,
  type Decision,
  type DecisionInput,
  decide,
  type FailOn,
  formatFailOn,
  parseFailOn,
  type ScenarioVerdict,
  type SuiteVerdict,
} from "./compare/decision.js";
export { EXIT_CODES, type ExitCode, exitCodeForDecision, exitCodeForReport } from "./compare/exit-status.js";
export type {
  NotComparedScenario,
  TreatmentChanges,
  TreatmentFileChange,
  UnseenGuidance,
} from "./compare/pairing.js";
export {
  type BaselineCandidate,
  type PooledBaseline,
  poolBaselines,
  sameMeasurement,
} from "./compare/pool-baselines.js";
export type * from "./compare/types.js";
export { ConfigError, InfraError } from "./errors.js";
export { type AnthropicClientOptions, createAnthropicClient } from "./model/anthropic-client.js";
export { createAimdLimiter } from "./model/call-limiter.js";
export type { ModelClient } from "./model/model-client.js";
export { createOpenAiClient, type OpenAiApiChoice, type OpenAiClientOptions } from "./model/openai-client.js";
export { createProviderRouter, type ProviderName, parseModelId } from "./model/provider.js";
export { renderComparisonMarkdown, renderComparisonTerminal } from "./render/comparison-markdown.js";
export { renderDecisionHeadline, renderDecisionReason, renderScopeLines } from "./render/decision.js";
export { FORMAT_NAMES, type FormatName, OUTPUT_FORMATS } from "./render/formats.js";
export { renderReportHtml } from "./render/html.js";
export { renderJunitXml } from "./render/junit.js";
export { renderReportMarkdown } from "./render/report-markdown.js";
export { renderTerminalSummary } from "./render/terminal.js";
export { mergeShardReports } from "./results/merge.js";
export { readReportFile } from "./results/read-report.js";
export { loadTrialEvents } from "./results/read-trial-events.js";
export {
  parseToleranceGates,
  TOLERANCE_METRICS,
  type ToleranceGates,
} from "./results/tolerance-gates.js";
export type * from "./results/types.js";
export { defaultRunOptions, type RunOptions } from "./run/options.js";
export {
  createRunRedactor,
  type ProgressEvent,
  runSuite,
  type SuitePorts,
  type SuiteRun,
} from "./run/suite.js";
export { validateWithOracle } from "./run/validate-oracle.js";
export { type OutputFolder, writeReportFiles, writeRunOutputs } from "./run/write-outputs.js";
export {
  BASHKIT_HOME_ERAS,
  type BashkitHomeEra,
  bashkitHomeAt,
  CURRENT_BASHKIT_HOME,
  parseBashkitHome,
} from "./scenario/bashkit-home.js";
export { filterScenarios } from "./scenario/filter.js";
export { loadScenarios } from "./scenario/load.js";
export type * from "./scenario/types.js";
export type * from "./transcript/events.js";
export { readEvents } from "./transcript/reader.js";
