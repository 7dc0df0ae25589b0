/**
 * The report contract (`report.json`). Versioned by REPORT_SCHEMA_VERSION; its JSON Schema is
 * `schema/report.schema.json`. Field names are snake_case, as in the seed specs.
 */
import type { SandboxMode } from "../scenario/types.js";
import type { EndReason } from "../transcript/events.js";
import type { ModelMatrix } from "./model-matrix.js";
import type { ReplaySummary } from "./replay-summary.js";

export const REPORT_SCHEMA_VERSION = 1;

export type Outcome = "pass" | "fail" | "error" | "skipped";
/** Where the target invocations of layer 1 came from, best first. */
export type InvocationSource = "shim" | "tool_events" | "transcript_regex" | "none";

/** Layer 1 (docs/metrics.md). Rates are null when there is nothing to divide by. */
export interface InteractionMetrics {
  total_commands: number;
  unique_commands: number;
  error_count: number;
  error_rate: number | null;
  retry_count: number;
  retry_rate: number | null;
  help_invocations: number;
  first_try_success_rate: number | null;
  iteration_ratio: number | null;
  completed: boolean;
}

/** bashkit-eval's execution figures for one trial. */
export interface ExecutionMetrics {
  turns: number;
  tool_calls: number;
  tool_calls_ok: number;
  tool_calls_error: number;
  tool_call_success_rate: number | null;
  natural_stop: boolean;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  duration_ms: number;
  /** Time spent waiting on rate limits / retries, included in duration_ms. */
  rate_limit_wait_ms: number;
  cost_usd: number | null;
  /**
   * A replayed trial: turns, natural_stop, the tokens and the cost are the recorded trial's (its
   * model's), not measured by this run; tool calls and duration are the replay's. Absent otherwise.
   */
  recorded?: true;
  /**
   * A replayed trial whose recording kept no cost: cost_usd is its recorded tokens priced with this
   * run's price table, a figure computed now, not recorded. Absent otherwise.
   */
  cost_priced?: true;
}

export interface GateResult {
  gate_type: string;
  passed: boolean;
  message: string;
  weight: number;
  /** Label: the scenario's description, or the bashkit check string. */
  description?: string;
  /** Extra metrics a `script` gate returned. */
  metrics?: Record<string, number>;
}

export interface JudgeResponse {
  scores: Record<string, number>;
  weighted_score: number;
  confidence: number;
  issues: string[];
  highlights: string[];
}

export interface JudgeUsage {
  model: string;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number | null;
}

export interface TrialReport {
  trial: number;
  outcome: Outcome;
  /** Why it failed / errored / was skipped; on a pass null, or what went wrong beside it (a crashed agent). */
  reason: string | null;
  end_reason: EndReason | null;
  invocation_source: InvocationSource;
  /**
   * Where the shim's records disagree with the tool calls the harness saw (a missing record, another
   * exit code, records no tool call explains): layer 1 then counted the worse of the two. Absent
   * when they agree (and in reports of earlier versions).
   */
  shim_disagreements?: string[];
  /**
   * Recorded calls of the target that `target.command_pattern` does not match (distinct commands,
   * at most 10, then "and N more"): counted all the same, their subcommand taken from the
   * arguments. Absent when the pattern matched every call (and in reports of earlier versions).
   */
  command_pattern_misses?: string[];
  /**
   * Without `target.global_options`: options whose value seems to have been taken for the
   * subcommand (`-f` in `hledger -f main.journal balance`), each with a call where it was. A hint:
   * listing the option in `target.global_options` fixes the subcommands. Absent when none (and in
   * reports of earlier versions).
   */
  possible_global_options?: { option: string; command: string }[];
  interaction: InteractionMetrics;
  /** Layer 1 per subcommand ("(none)" when there is no subcommand). */
  by_subcommand: Record<string, InteractionMetrics>;
  /** How the agent called the target, compactly, for the base-vs-head diff. Absent in reports of earlier versions. */
  behaviour?: TrialBehaviour;
  execution: ExecutionMetrics;
  gates: GateResult[];
  gates_passed: number;
  gates_total: number;
  score: number;
  max_score: number;
  judge_score: number | null;
  judge_response: JudgeResponse | null;
  judge_usage: JudgeUsage | null;
  /** The model that judged this trial (resolved per scenario); null without a judge. Absent in older reports. */
  judge_model?: string | null;
  /** The sandbox the trial really ran in (`auto` resolved); null when it never got one. Absent in older reports. */
  sandbox?: SandboxMode | null;
  /**
   * The home layout the trial's sandbox had (where the agent started, what HOME was), when its
   * scenario has one: a bashkit dataset's task, `bashkit-home-created`... (scenario/bashkit-home.ts).
   * Absent for other scenarios (the work dir was HOME and cwd) and in older reports.
   */
  home_layout?: string;
  /**
   * Why the agent's CLI was not shown the work dir's AGENTS.md in this trial (it read a context file
   * of the work dir's own instead); the scenario entry's guidance `delivery` is then `not_shown`.
   * Absent when it was shown or there was none, and in reports of earlier versions.
   */
  guidance_not_shown?: string;
  composite_score: number | null;
  /** A replayed trial (`--agent replay`): how its recorded calls behaved now. Absent otherwise. */
  replay?: ReplaySummary;
  /** Relative to the report's folder. */
  events_path: string | null;
  transcript_path: string | null;
}

export type Flakiness = "stable_pass" | "stable_fail" | "flaky" | "no_data";

export interface MetricSummary {
  n: number;
  mean: number | null;
  median: number | null;
  ci_low: number | null;
  ci_high: number | null;
}

export interface ScenarioSummary {
  trials: number;
  passed: number;
  failed: number;
  errors: number;
  skipped: number;
  /** passed / (passed + failed): errors and skips excluded. */
  pass_rate: number | null;
  pass_rate_ci_low: number | null;
  pass_rate_ci_high: number | null;
  /** The k of pass@k and pass^k: fixed for a run (default 3), so runs with other trial counts compare. */
  pass_k: number;
  /** Unbiased estimates; null when fewer than k trials were evaluated. */
  pass_at_k: number | null;
  pass_hat_k: number | null;
  flakiness: Flakiness;
  score: number;
  max_score: number;
  /** The known costs summed; trials_cost_unknown counts the trials left out. */
  cost_usd: number;
  /** Trials whose agent or judge cost is unknown. Absent in reports of older versions. */
  trials_cost_unknown?: number;
  /** Per metric (interaction + execution numeric fields): mean, median, 95% interval. */
  metrics: Record<string, MetricSummary>;
}

export interface ScenarioReport {
  id: string;
  /** Guidance/binary variant name; null when the scenario has no variants. */
  variant: string | null;
  /**
   * The agent its trials ran with, in a run across several agents (an agent matrix); absent
   * otherwise. With `model`, it names the matrix entry.
   */
  agent?: string;
  /**
   * The model its trials ran with, in a run across several models or agents (a matrix); absent
   * otherwise, and for an agent without a model (the oracle) in an agent matrix.
   */
  model?: string;
  category: string;
  description: string | null;
  tags: string[];
  source: { file: string; line: number; format: string };
  /** sha256 over the scenario and every file it refers to (guidance included). */
  content_hash: string;
  /**
   * sha256 over what defines the measurement (content_hash without the treatment and the labels:
   * docs/statistics.md, "The baseline"). Baselines are pooled on it. Absent in reports of earlier
   * versions, which are pooled on content_hash.
   */
  measurement_hash?: string;
  /** What a pull request is meant to change, by content. Absent in reports of earlier versions. */
  treatment?: ReportTreatment;
  /**
   * The scenario's own tolerance gates (its YAML's `tolerance_gates`): metric → the largest increase
   * over the base's mean allowed, as a fraction (0.2: +20%). Absent when it sets none.
   */
  tolerance_gates?: Record<string, number>;
  /**
   * The trials planned for the scenario before any extra ones (n): trials 1..n are its first
   * trials. Counted over the whole run, also in a shard's report. Absent in reports of earlier
   * versions and in pooled baselines.
   */
  first_trials?: number;
  /**
   * True when the adaptive screen gave the scenario extra trials (numbered n+1 and up) because its
   * first trials passed less often than the baseline's. Absent where first_trials is.
   */
  extended?: boolean;
  trials: TrialReport[];
  summary: ScenarioSummary;
  /**
   * Layer 1 per subcommand, pooled over the scenario's evaluated trials ("(none)" when there is no
   * subcommand). Absent in reports of earlier versions.
   */
  by_subcommand?: Record<string, SubcommandSummary>;
  /**
   * How the agent called the target, pooled over the evaluated trials that record it: what the
   * base-vs-head diff of a regressed scenario reads. Absent when no trial records it (reports of
   * earlier versions).
   */
  behaviour?: BehaviourSummary;
}

/**
 * How the agent called the target in one trial (evaluate/behaviour.ts). Option names and shapes are
 * read as the `target_invocation` event's (docs/events.md); each is cut to 80 characters, and at
 * most 40 of each are kept (the most used).
 */
export interface TrialBehaviour {
  /** Calls using each option name (a call that repeats an option counts once). */
  options: Record<string, number>;
  /** Calls per command shape: the subcommand ("(none)") then its distinct options, sorted ("cat --icsv --ojson"). */
  shapes: Record<string, number>;
  /** The trial's first failed call; null when none failed. */
  first_failure: FailedCall | null;
}

/** A failed call of the target: agent-controlled text, to be rendered inert. */
export interface FailedCall {
  /** Cut to 200 characters. */
  command: string;
  exit_code: number;
  /** The start of its tool call's stderr (its stdout when stderr is empty), up to 400 characters; null when unknown. */
  stderr: string | null;
}

/** TrialBehaviour pooled over a scenario's evaluated trials, with the calls, subcommands and help calls. */
export interface BehaviourSummary {
  /** Evaluated trials pooled (those that record their behaviour). */
  trials: number;
  /** Target calls in them. */
  calls: number;
  /** Calls asking for help (`--help`, `-h`, subcommand `help`). */
  help_calls: number;
  /** Calls per subcommand ("(none)"). */
  subcommands: Record<string, number>;
  options: Record<string, number>;
  shapes: Record<string, number>;
  /** The first failed call of the first failing trial that has one (else of any trial), with its trial. */
  first_failure: (FailedCall & { trial: number }) | null;
}

/** A file of a scenario's treatment: its path from the repository root and its sha256 (null: unreadable). */
export interface TreatmentFileReport {
  path: string;
  sha256: string | null;
}

/**
 * How a guidance file reached the agent's model: `system_prompt` (in the system prompt its model
 * was given: the built-in agent's work dir AGENTS.md, or `system` mode), `cli_context_file` (the
 * work dir's AGENTS.md, which the agent's CLI loads into its context itself), `work_dir_only` (in
 * the work dir, but whether the agent reads it is not known: the command agent), `not_shown` (no
 * model was shown it: oracle, null, replay, a command agent without `{system}` in `system` mode).
 */
export type GuidanceDelivery = "system_prompt" | "cli_context_file" | "work_dir_only" | "not_shown";

export const GUIDANCE_DELIVERIES: readonly GuidanceDelivery[] = [
  "system_prompt",
  "cli_context_file",
  "work_dir_only",
  "not_shown",
];

/** The treatment a scenario entry ran with: its guidance (its variant's, else its own) and the tool's build. */
export interface ReportTreatment {
  /**
   * At most one today; a list, so more kinds of guidance can join. `delivery`: how it reached the
   * agent's model (absent in reports of earlier versions, and in a pooled baseline's entries).
   */
  guidance: Array<TreatmentFileReport & { mode: string; delivery?: GuidanceDelivery }>;
  /** `target.binary` when it is a file in the repository; empty when the build cannot be known. */
  tool: TreatmentFileReport[];
}

/** One subcommand's invocations, pooled over a scenario's evaluated trials. */
export interface SubcommandSummary {
  /** Evaluated trials that invoked it at least once. */
  trials: number;
  commands: number;
  errors: number;
  /** errors / commands with a known exit code, pooled; null when none had one. */
  error_rate: number | null;
  retries: number;
  help_invocations: number;
}

export interface CategorySummary {
  tasks: number;
  passed: number;
  score: number;
  max_score: number;
  rate: number | null;
  /** passed / (tasks - errors - skipped). */
  pass_rate: number | null;
  errors: number;
}

export interface RunSummary {
  outcome: "pass" | "fail" | "error";
  scenarios: number;
  scenarios_passed: number;
  trials: number;
  passed: number;
  failed: number;
  errors: number;
  skipped: number;
  /** passed / (passed + failed). */
  pass_rate: number | null;
  /*
   * Scope of every figure below (docs/metrics.md "Run totals"): spend — tokens, cost, duration — and the
   * count of end reasons cover every trial that ran, errors included, because they were paid for.
   * Everything else — tasks, score, turns, tool calls, and every rate and per-task average — covers
   * evaluated trials only (pass or fail), as bashkit-eval's EvalSummary counts its tasks.
   */
  // bashkit-eval's EvalSummary ("tasks" = evaluated trials).
  total_tasks: number;
  total_passed: number;
  total_score: number;
  total_max_score: number;
  overall_rate: number | null;
  total_tool_calls: number;
  tool_calls_ok: number;
  tool_calls_error: number;
  tool_call_success_rate: number | null;
  total_turns: number;
  avg_turns_per_task: number | null;
  avg_tool_calls_per_task: number | null;
  total_input_tokens: number;
  total_output_tokens: number;
  total_cache_read_tokens: number;
  total_cache_write_tokens: number;
  total_duration_ms: number;
  avg_duration_ms: number | null;
  /** The known costs summed (agent and judge); trials_cost_unknown says how many were left out. */
  total_cost_usd: number;
  judge_cost_usd: number;
  /**
   * How the trials that ran ended (natural_stop, turn_limit, timeout, …), counted; a trial without
   * an end reason is not counted. Absent in reports of earlier versions.
   */
  end_reasons?: Partial<Record<EndReason, number>>;
  /**
   * Trials whose agent or judge cost is unknown (a model missing from the price table): their
   * tokens are in the totals, their cost is not. Absent in reports of older versions.
   */
  trials_cost_unknown?: number;
  /**
   * Replayed trials whose turns, natural stop, tokens and cost are their recording's
   * (execution.recorded), not measured by this run; absent when none.
   */
  trials_recorded?: number;
  /** Of those, the trials whose cost was not recorded but priced now from their recorded tokens; absent when none. */
  trials_cost_priced?: number;
  by_category: Record<string, CategorySummary>;
}

export interface RunInfo {
  id: string;
  started_at: string;
  ended_at: string;
  harness_version: string;
  agent: string;
  /**
   * Why this agent ran when none was asked for (the CLI's default): "no ANTHROPIC_API_KEY set; this
   * run used no model". Absent when the agent was chosen, and in reports of earlier versions.
   */
  agent_reason?: string;
  model: string | null;
  /**
   * A matrix's models (two or more), in the order given; absent in a one-model run. In an agent
   * matrix, every model its agents ran with (`entries` pairs them with their agents).
   */
  models?: string[];
  /** An agent matrix's agents (two or more), in the order given; `agent` is the first. Absent otherwise. */
  agents?: string[];
  /**
   * An agent matrix's entries, in the order given: each agent with each of its models (null for an
   * agent without a model, the oracle's). Absent outside an agent matrix.
   */
  entries?: MatrixEntryInfo[];
  /** The judge of the judged scenarios without a judge model of their own; null when no trial was judged by it. */
  judge_model: string | null;
  git_sha: string | null;
  git_ref: string | null;
  /** Hash of the settings that change results (agent, model, limits, scenario hashes). */
  settings_hash: string;
  /**
   * Hash of the settings that change what a trial measures, without the trial count or the
   * scenarios (agent, model, judge, turn limit, timeouts, sandbox): runs with equal hashes can be
   * pooled into one baseline scenario by scenario. Absent in reports of older versions.
   */
  evaluation_hash?: string;
  /**
   * The sandboxes its trials really ran in (`auto` resolved), sorted: a run that fell back to local
   * is never pooled with bwrap runs. Absent in reports of older versions: then taken from the
   * trials' `sandbox`, and where they do not say either, unknown (pooled with any).
   */
  sandbox_used?: SandboxMode[];
  /** The k of every scenario's pass@k and pass^k (absent in reports of older versions: k was n). */
  pass_k?: number;
  /**
   * Extra trials the run's design gave a scenario whose first trials did worse than the baseline (0:
   * no adaptive design — no baseline, one trial per scenario, a shard). A saved report's decision
   * (`compare`, `report`) states the power of this design. Absent in reports of older versions.
   */
  extra_trials?: number;
  /** Prices used for cost_usd, USD per million tokens. */
  price_table: Record<string, ModelPrice>;
  /** True when the run was interrupted or cut by a budget. */
  incomplete: boolean;
  /**
   * What a reader must not miss about how the run was made, shown in every report and the comment:
   * today, that `sandbox: auto` fell back to the local sandbox (the agent was not isolated). Absent
   * when there is none, and in reports of earlier versions.
   */
  warnings?: string[];
  shard: { index: number; count: number } | null;
}

/** One entry of an agent matrix: an agent and the model it ran with. */
export interface MatrixEntryInfo {
  agent: string;
  model: string | null;
}

export interface ModelPrice {
  input: number;
  output: number;
  cache_read: number;
  cache_write: number;
}

export interface Report {
  schema_version: number;
  run: RunInfo;
  scenarios: ScenarioReport[];
  summary: RunSummary;
  /** A model-matrix run's cross-model view (results/model-matrix.ts); absent in a one-model run. */
  model_matrix?: ModelMatrix;
}
