/** The library's public API: run suites, evaluate, compare, render. */

export { createAgent } from "./agents/create-agent.js";
export type { Agent, AgentContext, AgentName, AgentOutcome } from "./agents/types.js";
export { compareReports } from "./compare/compare.js";
export { findRegressions, type Regression, type RegressionFindings } from "./compare/gate.js";
export type * from "./compare/types.js";
export { ConfigError, InfraError } from "./errors.js";
export { createAnthropicClient } from "./model/anthropic-client.js";
export { createAimdLimiter } from "./model/call-limiter.js";
export type { ModelClient } from "./model/model-client.js";
export { renderComparisonMarkdown, renderComparisonTerminal } from "./render/comparison-markdown.js";
export { loadTrialEvents, renderReportHtml } from "./render/html.js";
export { renderJunitXml } from "./render/junit.js";
export { decideRegressionFailure } from "./render/regression-reasons.js";
export { renderReportMarkdown } from "./render/report-markdown.js";
export { renderTerminalSummary } from "./render/terminal.js";
export { mergeShardReports } from "./results/merge.js";
export { readReportFile } from "./results/read-report.js";
export type * from "./results/types.js";
export { defaultRunOptions, type RunOptions } from "./run/options.js";
export { type ProgressEvent, runSuite, type SuitePorts, writeReportFiles } from "./run/suite.js";
export { validateWithOracle } from "./run/validate-oracle.js";
export { filterScenarios } from "./scenario/filter.js";
export { loadScenarios } from "./scenario/load.js";
export type * from "./scenario/types.js";
export type * from "./transcript/events.js";
export { readEvents } from "./transcript/reader.js";
