/**
 * Layer 2 (docs/scenarios.md "Gates (layer 2)"): every gate runs, in declaration order, after the agent stopped; none
 * short-circuits, and a gate that throws becomes a failed result carrying the error. Gate commands
 * run through the sandbox in a clean room (the work dir, the scenario env, no shim: not counted in
 * layer 1; nothing else the agent wrote: see gate-room.ts). File gates read only the agent's own
 * regular files, bounded (gate-files.ts). Every gate has a deadline (its command's timeout, plus a
 * grace) and stops when the run is cancelled. Messages say why a gate failed: the command, its exit
 * code and the head of its output; what a file gate found; the JSON parse error or the values a
 * JSONPath selected; each is cut at MAX_GATE_MESSAGE_CHARS.
 *
 * Behaviour gates (`forbidden_commands`, `max_invocations`, `no_loops`) judge the shim's record of
 * the target's calls, what really ran, not what the agent typed: a forbidden option behind `env`,
 * `xargs`, `sh -c`, `eval`, a variable or a script is still seen. Without that record, or when a
 * call ran around the shim, they fail closed; their messages quote the offending calls.
 *
 * bashkit-eval checks behave as in bashkit-eval: `exit_code:N` looks at the agent's last tool call
 * (none: fails), `stdout_*` at any tool call's stdout, `stderr_empty` at every call (none: passes),
 * `file_exists` accepts a file or a directory, `llm_judge` is a stub that passes (use
 * `evaluation.judge` for a real judge), and a check of an unknown type (`unsupported_check`) fails.
 */
import { describeError } from "../errors.js";
import { describeExcessNesting, findExcessNesting } from "../json-nesting.js";
import type { GateResult, InvocationSource } from "../results/types.js";
import type { ExecResult, TrialSandbox } from "../sandbox/types.js";
import type { GateSpec, GateType } from "../scenario/types.js";
import type { EventOf, TrialEvent } from "../transcript/events.js";
import { describeKind, kindProblem, lookUpGatePath, readGateFile as readTreeFile } from "./gate-files.js";
import { type Invocation, isFailedExit, isSigpipeExit } from "./invocations.js";
import { applyJsonPathAssertion, queryJsonPath } from "./json-path.js";
import { compilePattern } from "./regex.js";

/**
 * Variables a `script` gate sees (besides the scenario env):
 * - LLM_TOOL_TEST_WORK_DIR: the trial's work dir, as the gate command sees it;
 * - LLM_TOOL_TEST_EVENTS: path of the trial's events.jsonl (docs/events.md);
 * - LLM_TOOL_TEST_SCENARIO: the scenario id; LLM_TOOL_TEST_SCENARIO_DIR: the folder of its file
 *   (for scripts shipped next to the scenario);
 * - LLM_TOOL_TEST_MODEL: the tested model ("" when the agent has none);
 * - LLM_TOOL_TEST_TRIAL: the trial number (1-based).
 */
export function buildScriptEnv(input: {
  workDir: string;
  eventsPath: string;
  scenarioId: string;
  scenarioDir: string;
  model: string | null;
  trial: number;
}): Record<string, string> {
  return {
    LLM_TOOL_TEST_WORK_DIR: input.workDir,
    LLM_TOOL_TEST_EVENTS: input.eventsPath,
    LLM_TOOL_TEST_SCENARIO: input.scenarioId,
    LLM_TOOL_TEST_SCENARIO_DIR: input.scenarioDir,
    LLM_TOOL_TEST_MODEL: input.model ?? "",
    LLM_TOOL_TEST_TRIAL: String(input.trial),
  };
}

export interface GateContext {
  sandbox: Pick<TrialSandbox, "runGateCommand" | "gateFiles">;
  events: readonly TrialEvent[];
  /** Layer 1 invocations (for `no_transcript_errors` and the behaviour gates). */
  invocations: readonly Invocation[];
  /** Where they came from: the behaviour gates judge only the shim's record. */
  invocationSource: InvocationSource;
  /**
   * What the behaviour gates judge: the invocations and the shim's records layer 1 does not count
   * (ExtractedInvocations.recordedCalls).
   */
  recordedCalls: readonly Invocation[];
  /** Extra env of `script` gates; see buildScriptEnv. */
  scriptEnv: Record<string, string>;
  /** Timeout of each gate command; a gate of any kind is given up this long plus GATE_GRACE_MS after it started. */
  gateTimeoutMs: number;
  /** The run's cancellation: the gate in progress is ended and the rest are not run. */
  signal?: AbortSignal;
}

/** `no_loops` without `repeats`: the same failing call a third time fails the gate. */
export const DEFAULT_LOOP_REPEATS = 3;

/** How the gates' docs describe a regex parameter. */
const RE2_PATTERN =
  "Regular expression in RE2 syntax, JavaScript spellings accepted (linear-time matching: no backreferences or lookaround)";

/** How much of a command's output or a file a message quotes. */
const HEAD_CHARS = 300;
/** A gate's message (it quotes the agent's output and files) is cut here. */
export const MAX_GATE_MESSAGE_CHARS = 2000;
/** A script gate's metrics kept, and the length of their names. */
const MAX_SCRIPT_METRICS = 50;
const MAX_METRIC_NAME_CHARS = 100;
/** After its command's timeout, how long a gate may take to end it (kill, grace) before it is given up. */
export const GATE_GRACE_MS = 10_000;

export async function evaluateGates(gates: readonly GateSpec[], context: GateContext): Promise<GateResult[]> {
  const toolCalls = collectToolCalls(context.events);
  const results: GateResult[] = [];
  for (const gate of gates) {
    let outcome: GateOutcome;
    if (context.signal?.aborted) {
      outcome = { passed: false, message: "not evaluated: the run was cancelled" };
    } else {
      try {
        outcome = await withDeadline(evaluateGate(gate, context, toolCalls), context);
      } catch (error) {
        outcome = {
          passed: false,
          message: `gate error: ${describeError(error)}`,
        };
      }
    }
    const result: GateResult = {
      gate_type: gate.type,
      passed: outcome.passed,
      message: truncate(outcome.message, MAX_GATE_MESSAGE_CHARS),
      weight: gate.weight,
    };
    if (gate.description !== undefined) result.description = gate.description;
    if (outcome.metrics) result.metrics = outcome.metrics;
    results.push(result);
  }
  return results;
}

/**
 * The gate's outcome, or a failure once its deadline passed or the run was cancelled: whatever a
 * gate is doing, the trial goes on (a command is ended by its own timeout and signal; this is the
 * backstop for anything else).
 */
async function withDeadline(evaluation: Promise<GateOutcome>, context: GateContext): Promise<GateOutcome> {
  const limitMs = context.gateTimeoutMs + GATE_GRACE_MS;
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const stopped = new Promise<GateOutcome>((resolve) => {
    timer = setTimeout(
      () => resolve({ passed: false, message: `gate did not finish within ${limitMs} ms, given up` }),
      limitMs,
    );
    onAbort = () => resolve({ passed: false, message: "not evaluated: the run was cancelled" });
    // The gate may have seen the cancel before this listener was added.
    if (context.signal?.aborted) onAbort();
    else context.signal?.addEventListener("abort", onAbort, { once: true });
  });
  try {
    return await Promise.race([evaluation, stopped]);
  } finally {
    clearTimeout(timer);
    if (onAbort) context.signal?.removeEventListener("abort", onAbort);
  }
}

/** Partial score: the weights of the passed gates over the weights of all gates. */
export function scoreGates(results: readonly GateResult[]): {
  score: number;
  max_score: number;
  gates_passed: number;
  gates_total: number;
} {
  let score = 0;
  let maxScore = 0;
  let passed = 0;
  for (const result of results) {
    maxScore += result.weight;
    if (result.passed) {
      score += result.weight;
      passed += 1;
    }
  }
  return { score, max_score: maxScore, gates_passed: passed, gates_total: results.length };
}

interface GateOutcome {
  passed: boolean;
  message: string;
  metrics?: Record<string, number>;
}

/** A tool call of the agent with its result (null: none was recorded). */
interface ToolCall {
  command: string;
  result: EventOf<"tool_result"> | null;
}

const NO_FINAL_ANSWER = "the agent gave no final answer (no text in its last message)";

/**
 * The agent's final answer: the text of its last model response that has any (the built-in agent,
 * claude-code, replay); for an agent whose transcript is its stdout (`command`), that stdout, the
 * cut's marker left out. Null when there is none.
 */
function finalAnswerOf(events: readonly TrialEvent[]): string | null {
  let last: string | null = null;
  let sawResponse = false;
  const output: string[] = [];
  for (const event of events) {
    if (event.type === "model_response") {
      sawResponse = true;
      if (event.text.trim() !== "") last = event.text;
    } else if (event.type === "agent_output" && !event.truncated) {
      output.push(event.text);
    }
  }
  if (sawResponse) return last;
  const text = output.join("\n");
  return text.trim() === "" ? null : text;
}

function collectToolCalls(events: readonly TrialEvent[]): ToolCall[] {
  const results = new Map<string, EventOf<"tool_result">>();
  for (const event of events) if (event.type === "tool_result") results.set(event.call_id, event);
  const calls: ToolCall[] = [];
  for (const event of events) {
    // Shell calls only: another tool's call (a file edit) ran no command.
    if (event.type === "tool_call" && event.tool === undefined)
      calls.push({ command: event.command, result: results.get(event.call_id) ?? null });
  }
  return calls;
}

type GateOf<T extends GateType> = Extract<GateSpec, { type: T }>;

/** A gate's own parameters: the fields of its spec besides the common ones and what the loader derives. */
type GateParamName<T extends GateType> = Exclude<
  keyof GateOf<T>,
  "type" | "weight" | "description" | "parsed"
>;

/**
 * How a gate parameter is validated when a scenario is loaded (scenario/gates.ts). Defined with the
 * registry, which the scenario format's gate schemas and lists (scenario/format.ts) derive from.
 */
export type GateParamKind =
  | "command"
  | "text"
  | "path"
  | "regex"
  | "jsonpath"
  | "assertion"
  | "exit_code"
  | "count"
  | "subcommands"
  | "options"
  | "regexes"
  | "count_map"
  | "repeats";

export interface GateDefinition<T extends GateType> {
  /** Its parameters, required unless listed in `optional`, and how the scenario loader validates each. */
  params: { readonly [K in GateParamName<T>]-?: GateParamKind };
  /**
   * Its docs, in the scenario schema (scenario/format.ts) and so the editor; the docs' gate table
   * is checked against them (tests/evaluate/gates-contract.test.ts).
   */
  docs: { description: string; params: { readonly [K in GateParamName<T>]-?: string } };
  /** Parameters that may be left out. */
  optional?: readonly GateParamName<T>[];
  /** Of these (optional) parameters, a scenario must give at least one. */
  atLeastOne?: readonly GateParamName<T>[];
  /**
   * The gate judges the shim's record of the target's calls (what ran, not what the agent typed),
   * so a scenario using it must name `target.binary`; the loader says so.
   */
  needsShim?: true;
  evaluate(
    gate: GateOf<T>,
    context: GateContext,
    toolCalls: readonly ToolCall[],
  ): Promise<GateOutcome> | GateOutcome;
}

/**
 * Every gate type with its parameters and its evaluator, in the order error messages list them.
 * The mapped type makes a gate type of GateSpec without an entry here a compile error (and so do
 * parameters that do not match its fields; tests/evaluate/gate-exhaustiveness.test.ts proves it).
 *
 * To add a gate: its member of GateSpec (src/scenario/types.ts) and its entry here, docs included
 * (then `npm run schemas`); tests/evaluate/gates-contract.test.ts asks for its row in the gate table.
 */
export const GATES: { readonly [T in GateType]: GateDefinition<T> } = {
  command_succeeds: {
    docs: {
      description: "Run a shell command in the work dir after the agent stops; passes when it exits 0.",
      params: { command: "Shell command run with bash in the trial's work dir." },
    },
    params: { command: "command" },
    async evaluate(gate, context) {
      const run = await runCommand(context, gate.command);
      return { passed: run.exit_code === 0, message: describeRun(gate.command, run) };
    },
  },
  command_output_contains: {
    docs: {
      description: "Run a command; passes when its stdout contains the substring.",
      params: {
        command: "Shell command run with bash in the trial's work dir.",
        substring: "Text that stdout must contain (case-sensitive).",
      },
    },
    params: { command: "command", substring: "text" },
    async evaluate(gate, context) {
      const run = await runCommand(context, gate.command);
      const passed = run.stdout.includes(gate.substring);
      return {
        passed,
        message: `stdout ${passed ? "contains" : "does not contain"} ${JSON.stringify(gate.substring)}; ${describeRun(gate.command, run)}`,
      };
    },
  },
  command_output_matches: {
    docs: {
      description: "Run a command; passes when its stdout matches the regex.",
      params: {
        command: "Shell command run with bash in the trial's work dir.",
        pattern: `${RE2_PATTERN}; checked when the scenario loads.`,
      },
    },
    params: { command: "command", pattern: "regex" },
    async evaluate(gate, context) {
      const regex = compilePattern(gate.pattern);
      const run = await runCommand(context, gate.command);
      const passed = regex.test(run.stdout);
      return {
        passed,
        message: `stdout ${passed ? "matches" : "does not match"} /${gate.pattern}/; ${describeRun(gate.command, run)}`,
      };
    },
  },
  command_json_path: {
    docs: {
      description:
        "Run a command, parse its stdout as JSON and apply an assertion to the value at a JSONPath.",
      params: {
        command: "Shell command whose stdout is JSON.",
        path: "JSONPath starting with $, e.g. $.items[0].name; checked when the scenario loads.",
        assertion:
          "One of: exists, equals <json>, contains <text>, len >= N, len == N, len > N, len <= N, len < N.",
      },
    },
    params: { command: "command", path: "jsonpath", assertion: "assertion" },
    evaluate: (gate, context) => evaluateJsonPathGate(gate, context),
  },
  file_exists: {
    docs: {
      description:
        "Passes when the path exists, a regular file or a directory (relative to the work dir; a symbolic link is followed only inside the sandbox).",
      params: { path: "Path relative to the work dir (absolute inside the bwrap sandbox root)." },
    },
    params: { path: "path" },
    async evaluate(gate, context) {
      const entry = await lookUpGatePath(context.sandbox.gateFiles, gate.path);
      if (!entry.found) return { passed: false, message: `${gate.path}: ${entry.reason}` };
      const kind = describeKind(entry.stats);
      if (kind === "directory") return { passed: true, message: `${gate.path}: found a directory` };
      if (kind !== "file") return { passed: false, message: `${gate.path}: ${kindProblem(kind)}` };
      return { passed: true, message: `${gate.path}: found a file (${entry.stats.size} bytes)` };
    },
  },
  file_contains: {
    docs: {
      description: "Passes when the file contains the substring.",
      params: {
        path: "Path relative to the work dir (absolute inside the bwrap sandbox root).",
        substring: "Text the file must contain (case-sensitive).",
      },
    },
    params: { path: "path", substring: "text" },
    async evaluate(gate, context) {
      const file = await readGateFile(context, gate.path);
      if ("problem" in file) return { passed: false, message: file.problem };
      const passed = file.text.includes(gate.substring);
      return {
        passed,
        message: `${gate.path} (${file.size} bytes) ${passed ? "contains" : "does not contain"} ${JSON.stringify(gate.substring)}${passed ? "" : `; head: ${quoteHead(file.text)}`}`,
      };
    },
  },
  file_matches: {
    docs: {
      description: "Passes when the file's content matches the regex.",
      params: {
        path: "Path relative to the work dir (absolute inside the bwrap sandbox root).",
        pattern: `${RE2_PATTERN}.`,
      },
    },
    params: { path: "path", pattern: "regex" },
    async evaluate(gate, context) {
      const regex = compilePattern(gate.pattern);
      const file = await readGateFile(context, gate.path);
      if ("problem" in file) return { passed: false, message: file.problem };
      const passed = regex.test(file.text);
      return {
        passed,
        message: `${gate.path} (${file.size} bytes) ${passed ? "matches" : "does not match"} /${gate.pattern}/${passed ? "" : `; head: ${quoteHead(file.text)}`}`,
      };
    },
  },
  final_answer_contains: {
    docs: {
      description:
        "Passes when the agent's final answer (the text of its last message; a command agent's stdout) contains the substring.",
      params: { substring: "Text the final answer must contain (case-sensitive)." },
    },
    params: { substring: "text" },
    evaluate(gate, context) {
      const answer = finalAnswerOf(context.events);
      if (answer === null) return { passed: false, message: NO_FINAL_ANSWER };
      const passed = answer.includes(gate.substring);
      return {
        passed,
        message: `the final answer ${passed ? "contains" : "does not contain"} ${JSON.stringify(gate.substring)}${passed ? "" : `; it reads: ${quoteHead(answer)}`}`,
      };
    },
  },
  final_answer_matches: {
    docs: {
      description:
        "Passes when the agent's final answer (the text of its last message; a command agent's stdout) matches the regex.",
      params: { pattern: `${RE2_PATTERN}.` },
    },
    params: { pattern: "regex" },
    evaluate(gate, context) {
      const regex = compilePattern(gate.pattern);
      const answer = finalAnswerOf(context.events);
      if (answer === null) return { passed: false, message: NO_FINAL_ANSWER };
      const passed = regex.test(answer);
      return {
        passed,
        message: `the final answer ${passed ? "matches" : "does not match"} /${gate.pattern}/${passed ? "" : `; it reads: ${quoteHead(answer)}`}`,
      };
    },
  },
  no_transcript_errors: {
    docs: {
      description: "Passes when no invocation of the target tool exited non-zero.",
      params: {},
    },
    params: {},
    evaluate: (_gate, context) => evaluateNoTranscriptErrors(context.invocations),
  },
  script: {
    docs: {
      description:
        "Run a script; exit 0 passes. If it prints JSON {passed, message, metrics} on stdout, that wins. It gets LLM_TOOL_TEST_* variables.",
      params: { command: "Shell command or script path run in the work dir." },
    },
    params: { command: "command" },
    evaluate: (gate, context) => evaluateScriptGate(gate.command, context),
  },
  // behaviour gates, from the shim's record of the target's calls
  forbidden_commands: {
    docs: {
      description:
        "Passes when no call of the target used a forbidden subcommand, option or pattern, judged from the shim's record of what ran (so `env`, `xargs`, `sh -c`, `eval`, a variable or a script hide nothing). Needs target.binary; fails closed when a call ran around the shim. Give at least one of subcommands, options, patterns.",
      params: {
        subcommands:
          "Subcommands that must never be called (as layer 1 reads them: command_pattern's group 1, else the first non-option argument).",
        options:
          'Option names that must never be used, as the tool spells them (e.g. "--force"); `--force=yes` uses `--force`; a cluster such as `-rf` is one option as typed (use a pattern for it).',
        patterns: `${RE2_PATTERN}, searched in each call's command line: the binary's name and its arguments, shell-quoted, joined with spaces (e.g. "^mlr .* --ojson"); checked when the scenario loads.`,
      },
    },
    params: { subcommands: "subcommands", options: "options", patterns: "regexes" },
    optional: ["subcommands", "options", "patterns"],
    atLeastOne: ["subcommands", "options", "patterns"],
    needsShim: true,
    evaluate: (gate, context) => evaluateForbiddenCommands(gate, context),
  },
  max_invocations: {
    docs: {
      description:
        "Passes when the target was called at most `total` times, and each listed subcommand at most its number of times, judged from the shim's record. Needs target.binary; fails closed when a call ran around the shim. Give total, subcommands or both.",
      params: {
        total: "Most calls of the target in the trial, all subcommands together.",
        subcommands: "Most calls per subcommand, e.g. {sort: 3}.",
      },
    },
    params: { total: "count", subcommands: "count_map" },
    optional: ["total", "subcommands"],
    atLeastOne: ["total", "subcommands"],
    needsShim: true,
    evaluate: (gate, context) => evaluateMaxInvocations(gate, context),
  },
  no_loops: {
    docs: {
      description:
        "Fails when the same call of the target (same argv) failed `repeats` times or more in the trial (a non-zero exit; SIGPIPE's 141 is no failure), judged from the shim's record. Needs target.binary; fails closed when a call ran around the shim.",
      params: {
        repeats: `How many identical failing calls fail the gate (default ${DEFAULT_LOOP_REPEATS}, at least 2).`,
      },
    },
    params: { repeats: "repeats" },
    optional: ["repeats"],
    needsShim: true,
    evaluate: (gate, context) => evaluateNoLoops(gate.repeats ?? DEFAULT_LOOP_REPEATS, context),
  },
  // bashkit-eval checks
  exit_code: {
    docs: {
      description: "bashkit-eval: the agent's last tool call exited with this code (no tool calls: fails).",
      params: { code: "Expected exit code." },
    },
    params: { code: "exit_code" },
    evaluate(gate, _context, toolCalls) {
      const last = toolCalls.at(-1);
      if (!last)
        return {
          passed: false,
          message: `expected exit code ${gate.code}, but the agent made no tool calls`,
        };
      if (!last.result) {
        return {
          passed: false,
          message: `the last tool call (${quoteHead(last.command, 120)}) has no result`,
        };
      }
      const passed = last.result.exit_code === gate.code;
      return {
        passed,
        message: `last tool call exited ${last.result.exit_code}${passed ? "" : ` (expected ${gate.code})`}: ${quoteHead(last.command, 120)}`,
      };
    },
  },
  stdout_contains: {
    docs: {
      description: "bashkit-eval: some tool call's stdout contains the text.",
      params: { substring: "Text some tool call's stdout must contain (case-sensitive)." },
    },
    params: { substring: "text" },
    evaluate(gate, _context, toolCalls) {
      const index = toolCalls.findIndex((call) => call.result?.stdout.includes(gate.substring));
      return describeAnyCall(toolCalls, index, `contains ${JSON.stringify(gate.substring)}`);
    },
  },
  stdout_regex: {
    docs: {
      description: "bashkit-eval: some tool call's stdout matches the regex.",
      params: { pattern: `${RE2_PATTERN}.` },
    },
    params: { pattern: "regex" },
    evaluate(gate, _context, toolCalls) {
      const regex = compilePattern(gate.pattern);
      const index = toolCalls.findIndex((call) => call.result !== null && regex.test(call.result.stdout));
      return describeAnyCall(toolCalls, index, `matches /${gate.pattern}/`);
    },
  },
  stderr_empty: {
    docs: { description: "bashkit-eval: every tool call's stderr is empty.", params: {} },
    params: {},
    evaluate(_gate, _context, toolCalls) {
      const offenders = toolCalls.filter((call) => call.result !== null && call.result.stderr !== "");
      if (offenders.length === 0) {
        return { passed: true, message: `stderr empty in all ${toolCalls.length} tool calls` };
      }
      const first = offenders[0] as ToolCall;
      return {
        passed: false,
        message: `${offenders.length} of ${toolCalls.length} tool calls wrote to stderr; first: ${quoteHead(first.command, 120)} → stderr ${quoteHead(first.result?.stderr ?? "")}`,
      };
    },
  },
  dir_exists: {
    docs: {
      description: "bashkit-eval: the path is a directory after the run.",
      params: { path: "Directory path (relative to the work dir, or absolute inside the bwrap root)." },
    },
    params: { path: "path" },
    async evaluate(gate, context) {
      const entry = await lookUpGatePath(context.sandbox.gateFiles, gate.path);
      if (!entry.found) return { passed: false, message: `${gate.path}: ${entry.reason}` };
      const kind = describeKind(entry.stats);
      if (kind !== "directory")
        return { passed: false, message: `${gate.path}: found a ${kind}, not a directory` };
      return { passed: true, message: `${gate.path}: found a directory` };
    },
  },
  file_line_regex: {
    docs: {
      description: "bashkit-eval: some single line of the file matches the regex.",
      params: {
        path: "File path (relative to the work dir, or absolute inside the bwrap root).",
        pattern: "Regular expression matched against each line.",
      },
    },
    params: { path: "path", pattern: "regex" },
    async evaluate(gate, context) {
      const regex = compilePattern(gate.pattern);
      const file = await readGateFile(context, gate.path);
      if ("problem" in file) return { passed: false, message: file.problem };
      const lines = file.text.split("\n").map((line) => (line.endsWith("\r") ? line.slice(0, -1) : line));
      const index = lines.findIndex((line) => regex.test(line));
      if (index !== -1)
        return { passed: true, message: `${gate.path} line ${index + 1} matches /${gate.pattern}/` };
      return {
        passed: false,
        message: `no line of ${gate.path} (${lines.length} lines) matches /${gate.pattern}/; head: ${quoteHead(file.text)}`,
      };
    },
  },
  tool_calls_min: {
    docs: {
      description: "bashkit-eval: the agent made at least this many tool calls.",
      params: { count: "Minimum number of tool calls." },
    },
    params: { count: "count" },
    evaluate(gate, _context, toolCalls) {
      const count = countToolCalls(toolCalls);
      return {
        passed: count >= gate.count,
        message: `${count} tool calls (expected at least ${gate.count})`,
      };
    },
  },
  tool_calls_max: {
    docs: {
      description: "bashkit-eval: the agent made at most this many tool calls.",
      params: { count: "Maximum number of tool calls." },
    },
    params: { count: "count" },
    evaluate(gate, _context, toolCalls) {
      const count = countToolCalls(toolCalls);
      return { passed: count <= gate.count, message: `${count} tool calls (expected at most ${gate.count})` };
    },
  },
  llm_judge: {
    docs: {
      description:
        "bashkit-eval's llm_judge stub: always passes, weight 0. Use evaluation.judge for a real judge.",
      params: { prompt: "The judge prompt (informational)." },
    },
    params: { prompt: "text" },
    evaluate: () => ({
      passed: true,
      message:
        "not evaluated: llm_judge checks are a stub, as in bashkit-eval; configure evaluation.judge with a rubric for a real judge",
    }),
  },
  unsupported_check: {
    docs: {
      description:
        "What a bashkit-eval check of an unknown type becomes: it always fails, naming the check (bashkit-eval fails unknown checks too).",
      params: { check: "The check string, as the dataset wrote it." },
    },
    params: { check: "text" },
    evaluate(gate) {
      const colon = gate.check.indexOf(":");
      const type = colon === -1 ? gate.check : gate.check.slice(0, colon);
      return {
        passed: false,
        message: `unsupported check type \`${type}\` (${JSON.stringify(gate.check)}): this version of llm-tool-test cannot evaluate it, so it fails, as bashkit-eval fails checks it does not know`,
      };
    },
  },
};

async function evaluateGate(
  gate: GateSpec,
  context: GateContext,
  toolCalls: readonly ToolCall[],
): Promise<GateOutcome> {
  // Reports and hand-built specs may carry a type this version does not know.
  if (!Object.hasOwn(GATES, gate.type)) {
    return { passed: false, message: `unknown gate type ${JSON.stringify(gate.type)}` };
  }
  // Sound: GATES pairs every type with the evaluator of that type's spec.
  const definition = GATES[gate.type] as unknown as GateDefinition<GateType>;
  return definition.evaluate(gate, context, toolCalls);
}

/** Tool calls that completed, as bashkit-eval counts them (and execution.tool_calls). */
function countToolCalls(toolCalls: readonly ToolCall[]): number {
  return toolCalls.filter((call) => call.result !== null).length;
}

function describeAnyCall(toolCalls: readonly ToolCall[], index: number, what: string): GateOutcome {
  if (index !== -1) {
    const call = toolCalls[index] as ToolCall;
    return {
      passed: true,
      message: `stdout of tool call ${index + 1} ${what}: ${quoteHead(call.command, 120)}`,
    };
  }
  if (toolCalls.length === 0) return { passed: false, message: `no tool calls, so no stdout that ${what}` };
  const last = toolCalls.at(-1) as ToolCall;
  return {
    passed: false,
    message: `no stdout of ${toolCalls.length} tool calls ${what}; last stdout: ${quoteHead(last.result?.stdout ?? "")}`,
  };
}

async function evaluateJsonPathGate(
  gate: Extract<GateSpec, { type: "command_json_path" }>,
  context: GateContext,
): Promise<GateOutcome> {
  const run = await runCommand(context, gate.command);
  // An agent can print JSON deep enough to overflow the stack of the JSONPath walk.
  if (findExcessNesting(run.stdout) !== null) {
    return {
      passed: false,
      message: `stdout is not usable JSON (${describeExcessNesting()}); ${describeRun(gate.command, run)}`,
    };
  }
  let json: unknown;
  try {
    json = JSON.parse(run.stdout);
  } catch (error) {
    return {
      passed: false,
      message: `stdout is not JSON (${describeError(error)}); ${describeRun(gate.command, run)}`,
    };
  }
  const values = queryJsonPath(json, gate.path);
  const verdict = applyJsonPathAssertion(values, gate.parsed, gate.path);
  const exit = run.exit_code === 0 ? "" : ` (the command exited ${run.exit_code})`;
  return {
    passed: verdict.passed,
    message: `${gate.path} ${gate.assertion}: ${verdict.message}${exit}; command: ${quoteHead(gate.command, 120)}`,
  };
}

function evaluateNoTranscriptErrors(invocations: readonly Invocation[]): GateOutcome {
  if (invocations.length === 0) return { passed: true, message: "no target invocations to check" };
  // Fail closed: a call the shim did not record may have failed unseen.
  const around = invocations.filter((invocation) => invocation.around_shim === true);
  const failed = invocations.filter((invocation) => isFailedExit(invocation.exit_code));
  if (failed.length === 0 && around.length > 0) {
    return {
      passed: false,
      message: `${around.length} of ${invocations.length} target invocations ran around the shim (e.g. ${quoteHead(around[0]?.command ?? "", 80)}): their errors cannot all be seen`,
    };
  }
  if (failed.length === 0) {
    const unknown = invocations.filter((invocation) => invocation.exit_code === null).length;
    const sigpipe = invocations.filter((invocation) => isSigpipeExit(invocation.exit_code)).length;
    const notes = [
      unknown > 0 ? `${unknown} with unknown exit code` : "",
      sigpipe > 0 ? `${sigpipe} killed by SIGPIPE, its reader closed the pipe: not an error` : "",
    ].filter(Boolean);
    const note = notes.length > 0 ? ` (${notes.join("; ")})` : "";
    return { passed: true, message: `none of ${invocations.length} target invocations failed${note}` };
  }
  const listed = failed
    .slice(0, 3)
    .map((invocation) => `${quoteHead(invocation.command, 80)} → ${invocation.exit_code}`)
    .join("; ");
  const more = failed.length > 3 ? `; and ${failed.length - 3} more` : "";
  const aroundNote = around.length > 0 ? `; ${around.length} ran around the shim` : "";
  return {
    passed: false,
    message: `${failed.length} of ${invocations.length} target invocations failed: ${listed}${more}${aroundNote}`,
  };
}

/** How many offending calls (or subcommands, or repeated calls) a behaviour gate's message lists. */
const LISTED_OFFENDERS = 3;
/** How much of one call's command line a behaviour gate's message quotes, and of a subcommand's name. */
const CALL_CHARS = 120;
const NAME_CHARS = 80;

/**
 * Why the shim's record cannot settle a behaviour gate, or null when it can: the trial has no shim
 * record (no `target.binary`: only what the agent typed, which `env`, `sh -c` or a script hide),
 * or some calls ran around the shim (by the tool's real path, in local mode), so what they ran is
 * only partly known. Either way the gate fails closed.
 */
function describeUnjudgeableRecord(context: GateContext): string | null {
  if (context.invocationSource !== "shim") {
    return `cannot judge: this gate reads the shim's record of the target's calls, and this trial has none (invocations from ${context.invocationSource}); name the tool in \`target.binary\``;
  }
  const around = context.recordedCalls.filter((invocation) => invocation.around_shim === true);
  if (around.length === 0) return null;
  return `cannot judge: ${around.length} of ${context.recordedCalls.length} target invocations ran around the shim (e.g. ${quoteHead(around[0]?.command ?? "", CALL_CHARS)}): what they ran cannot all be seen`;
}

/** "a; b; c; and 2 more" */
function listSome(items: readonly string[]): string {
  const listed = items.slice(0, LISTED_OFFENDERS).join("; ");
  return items.length > LISTED_OFFENDERS ? `${listed}; and ${items.length - LISTED_OFFENDERS} more` : listed;
}

function evaluateForbiddenCommands(gate: GateOf<"forbidden_commands">, context: GateContext): GateOutcome {
  const subcommands = new Set(gate.subcommands ?? []);
  const options = new Set(gate.options ?? []);
  const patterns = (gate.patterns ?? []).map((source) => compilePattern(source));
  const offences: string[] = [];
  for (const invocation of context.recordedCalls) {
    const why: string[] = [];
    if (invocation.subcommand !== null && subcommands.has(invocation.subcommand))
      why.push(`subcommand ${quoteHead(invocation.subcommand, NAME_CHARS)}`);
    for (const option of new Set(invocation.options))
      if (options.has(option)) why.push(`option \`${option}\``);
    for (const pattern of patterns)
      if (pattern.test(invocation.command)) why.push(`pattern /${pattern.source}/`);
    if (why.length > 0) offences.push(`${quoteHead(invocation.command, CALL_CHARS)} (${why.join(", ")})`);
  }
  const total = context.recordedCalls.length;
  if (offences.length > 0) {
    return {
      passed: false,
      message: `${offences.length} of ${total} target invocations used what is forbidden: ${listSome(offences)}`,
    };
  }
  const unjudgeable = describeUnjudgeableRecord(context);
  if (unjudgeable) return { passed: false, message: unjudgeable };
  return {
    passed: true,
    message: `none of ${total} target invocations used a forbidden subcommand, option or pattern`,
  };
}

function evaluateMaxInvocations(gate: GateOf<"max_invocations">, context: GateContext): GateOutcome {
  const invocations = context.recordedCalls;
  const callsOf = (subcommand: string) =>
    invocations.filter((invocation) => invocation.subcommand === subcommand);
  const over: string[] = [];
  if (gate.total !== undefined && invocations.length > gate.total) {
    over.push(`${invocations.length} target invocations in all (at most ${gate.total})`);
  }
  for (const [subcommand, limit] of Object.entries(gate.subcommands ?? {})) {
    const calls = callsOf(subcommand);
    if (calls.length > limit) {
      over.push(
        `${quoteHead(subcommand, NAME_CHARS)} called ${calls.length} times (at most ${limit}), first ${quoteHead(calls[0]?.command ?? "", CALL_CHARS)}`,
      );
    }
  }
  if (over.length > 0) return { passed: false, message: listSome(over) };
  const unjudgeable = describeUnjudgeableRecord(context);
  if (unjudgeable) return { passed: false, message: unjudgeable };
  const counts = [
    ...(gate.total !== undefined ? [`${invocations.length} in all (at most ${gate.total})`] : []),
    ...Object.entries(gate.subcommands ?? {}).map(
      ([subcommand, limit]) =>
        `${quoteHead(subcommand, NAME_CHARS)} ${callsOf(subcommand).length} (at most ${limit})`,
    ),
  ];
  return { passed: true, message: `within the limits: ${counts.join("; ")}` };
}

function evaluateNoLoops(repeats: number, context: GateContext): GateOutcome {
  // The same call is the same argv (a call typed around the shim has only its text).
  const failures = new Map<string, Invocation[]>();
  for (const invocation of context.recordedCalls) {
    if (!isFailedExit(invocation.exit_code)) continue;
    const key = invocation.argv ? JSON.stringify(invocation.argv) : `typed:${invocation.command}`;
    failures.set(key, [...(failures.get(key) ?? []), invocation]);
  }
  const groups = [...failures.values()].sort((a, b) => b.length - a.length);
  const loops = groups.filter((group) => group.length >= repeats);
  if (loops.length > 0) {
    const listed = loops.map((group) => {
      const first = group[0] as Invocation;
      const codes = [...new Set(group.map((invocation) => invocation.exit_code))].join(", ");
      return `${quoteHead(first.command, CALL_CHARS)} failed ${group.length} times (exit ${codes})`;
    });
    return {
      passed: false,
      message: `the same failing call ran ${repeats} or more times: ${listSome(listed)}`,
    };
  }
  const unjudgeable = describeUnjudgeableRecord(context);
  if (unjudgeable) return { passed: false, message: unjudgeable };
  const failed = groups.reduce((sum, group) => sum + group.length, 0);
  const most = groups[0]?.length ?? 0;
  return {
    passed: true,
    message:
      failed === 0
        ? `none of ${context.recordedCalls.length} target invocations failed`
        : `no failing call ran ${repeats} times (${failed} failed calls; the most repeated failed ${most} time${most === 1 ? "" : "s"})`,
  };
}

/** Exit 0 passes, unless stdout (or its last line) is JSON `{passed, message?, metrics?}`, which wins. */
async function evaluateScriptGate(command: string, context: GateContext): Promise<GateOutcome> {
  const run = await context.sandbox.runGateCommand(command, {
    timeoutMs: context.gateTimeoutMs,
    env: context.scriptEnv,
    ...(context.signal ? { signal: context.signal } : {}),
  });
  const report = parseScriptReport(run.stdout);
  if (report) {
    const outcome: GateOutcome = {
      passed: report.passed,
      message:
        report.message ?? `script reported ${report.passed ? "pass" : "fail"}; ${describeRun(command, run)}`,
    };
    if (report.metrics) outcome.metrics = report.metrics;
    return outcome;
  }
  return { passed: run.exit_code === 0, message: describeRun(command, run) };
}

function parseScriptReport(
  stdout: string,
): { passed: boolean; message?: string; metrics?: Record<string, number> } | null {
  const trimmed = stdout.trim();
  if (trimmed === "") return null;
  const lastLine = trimmed.slice(trimmed.lastIndexOf("\n") + 1).trim();
  for (const candidate of lastLine === trimmed ? [trimmed] : [trimmed, lastLine]) {
    if (!candidate.startsWith("{")) continue;
    let data: unknown;
    try {
      data = JSON.parse(candidate);
    } catch {
      continue;
    }
    if (data === null || typeof data !== "object" || Array.isArray(data)) continue;
    const record = data as Record<string, unknown>;
    if (typeof record.passed !== "boolean") continue;
    const report: { passed: boolean; message?: string; metrics?: Record<string, number> } = {
      passed: record.passed,
    };
    if (typeof record.message === "string") report.message = record.message;
    if (record.metrics !== null && typeof record.metrics === "object" && !Array.isArray(record.metrics)) {
      const metrics: Record<string, number> = {};
      for (const [name, value] of Object.entries(record.metrics as Record<string, unknown>)) {
        if (Object.keys(metrics).length >= MAX_SCRIPT_METRICS) break;
        if (name.length > MAX_METRIC_NAME_CHARS) continue;
        if (typeof value === "number" && Number.isFinite(value)) metrics[name] = value;
      }
      if (Object.keys(metrics).length > 0) report.metrics = metrics;
    }
    return report;
  }
  return null;
}

function runCommand(context: GateContext, command: string): Promise<ExecResult> {
  return context.sandbox.runGateCommand(command, {
    timeoutMs: context.gateTimeoutMs,
    ...(context.signal ? { signal: context.signal } : {}),
  });
}

/** `cmd` exited N (timed out) — stdout "…" stderr "…" */
function describeRun(command: string, run: ExecResult): string {
  const timedOut = run.timed_out ? ` (timed out after ${run.duration_ms} ms)` : "";
  const cut = run.truncated ? " (output cut at the cap)" : "";
  const parts = [`\`${truncate(command, 200)}\` exited ${run.exit_code}${timedOut}${cut}`];
  parts.push(run.stdout === "" ? "stdout empty" : `stdout ${quoteHead(run.stdout)}`);
  if (run.stderr !== "") parts.push(`stderr ${quoteHead(run.stderr)}`);
  return parts.join("; ");
}

/** The head of a text as a JSON string (newlines visible), marked when cut. */
function quoteHead(text: string, max = HEAD_CHARS): string {
  if (text.length <= max) return JSON.stringify(text);
  return `${JSON.stringify(text.slice(0, max))}… (${text.length} chars)`;
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}

/** The file's text, or a message saying why it could not be read. */
function readGateFile(context: GateContext, path: string) {
  return readTreeFile(context.sandbox.gateFiles, path);
}
