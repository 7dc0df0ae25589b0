/**
 * Google's Gemini CLI (`gemini` of the @google/gemini-cli package) as the agent under test.
 *
 * It runs headless in the trial's work dir with the sandboxed environment: the task on stdin,
 * `--output-format stream-json`, YOLO approval (the sandbox is the boundary), the model, and
 * `--debug` (only then does a shell call's result in the stream carry its exit code). Its home is
 * a folder in the sandbox's TMPDIR (GEMINI_CLI_HOME) holding its settings: API-key auth, only the
 * shell tool by default, the run's turn limit, the scenario's command timeout, AGENTS.md as the
 * context file name (the work dir's guidance), the harness's system prompt as its global context
 * file, and telemetry, usage statistics, update checks, IDE integration and folder trust off. A
 * work dir's own `.gemini/settings.json` is the project's settings and applies over these, as it
 * would in the user's repository (Gemini CLI takes system settings that could outrank it only
 * from a root-owned folder); the events say when there is one. The real API key never enters its
 * environment, which its shell tool inherits: it talks to a loopback credential proxy
 * (GOOGLE_GEMINI_BASE_URL) with a placeholder key.
 *
 * Its stream becomes the trial's events: one `model_response` per model turn (the assistant text
 * and tool calls between two rounds of tool results), `tool_call`/`tool_result` per shell call
 * with the exit code the CLI reports, as they happen. Gemini CLI reports tokens for the whole run
 * only (its final `result` line): they go on its final answer, input without the cached part,
 * thinking counted as output (as Gemini bills it); a run that ends right after tool calls (the
 * turn limit) has them in its transcript only. It reports no cost. The target shim still records
 * every real invocation of the tool.
 */
import { closeSync, openSync, readSync, realpathSync } from "node:fs";
import { constants as osConstants } from "node:os";
import path from "node:path";
import type { ExecResult, HostFile } from "../sandbox/types.js";
import type { EventSink, TokenUsage } from "../transcript/events.js";
import { type CliBinarySpec, isReadableFile, resolveCliBinary } from "./cli-binary.js";
import { PLACEHOLDER_API_KEY } from "./credential-proxy.js";
import {
  type AgentCliOptions,
  asRecord,
  cutShort,
  describeOtherToolCall,
  outcomeAfter,
  prepareAgentCli,
  readJsonLine,
  resolveAgentCliOptions,
  runAgentCliBehindProxy,
  stderrTail,
} from "./external-agent-run.js";
import type { Agent, AgentContext, AgentOutcome } from "./types.js";

/** What the action installs and the tests run against (the devDependency's exact version). */
export const GEMINI_CLI_PACKAGE = "@google/gemini-cli";
export const GEMINI_CLI_VERSION = "0.61.0";
export const GEMINI_BIN_NAME = "gemini";
export const GEMINI_BIN_ENV = "LLM_TOOL_TEST_GEMINI_BIN";
/** The variable the front ends read the Gemini API key from. */
export const GEMINI_API_KEY_ENV = "GEMINI_API_KEY";
const GEMINI_SHELL_TOOL = "run_shell_command";
const DEFAULT_GEMINI_TOOLS: readonly string[] = [GEMINI_SHELL_TOOL];
const DEFAULT_GEMINI_BASE_URL = "https://generativelanguage.googleapis.com";
const DEFAULT_GEMINI_MAX_RETRIES = 4;

const GEMINI_BINARY: CliBinarySpec = {
  agent: "gemini-cli",
  label: GEMINI_CLI_PACKAGE,
  envVar: GEMINI_BIN_ENV,
  command: GEMINI_BIN_NAME,
  packageName: GEMINI_CLI_PACKAGE,
  version: GEMINI_CLI_VERSION,
  /** Its bundled script (npm sets the executable bit on the bin link's target only). */
  findInNodeModules(nodeModules) {
    const bin = path.join(nodeModules, ...GEMINI_CLI_PACKAGE.split("/"), "bundle", "gemini.js");
    return isReadableFile(bin) ? realpathSync(bin) : null;
  },
};
/** Exit code of a shell call the CLI refused to run (its own policy) or could not start. */
const NOT_RUN_EXIT_CODE = 1;

/** Base URL default https://generativelanguage.googleapis.com; the program's search is resolveGeminiBinary's. */
export interface GeminiCliAgentOptions extends AgentCliOptions {
  /** Gemini CLI tools offered to the model; default ["run_shell_command"]. */
  tools?: readonly string[];
  /** Gemini CLI's retries of a failed API call; default 4. */
  maxRetries?: number;
}

export function createGeminiCliAgent(options: GeminiCliAgentOptions): Agent {
  // The registry says which variable; this guards the library's direct callers.
  const { env, binary, now } = resolveAgentCliOptions(
    options,
    resolveGeminiBinary,
    () => new Error("createGeminiCliAgent needs a non-empty apiKey"),
  );
  const launch = launchCommand(binary);
  const tools = options.tools ?? DEFAULT_GEMINI_TOOLS;
  const maxRetries = options.maxRetries ?? DEFAULT_GEMINI_MAX_RETRIES;

  async function run(context: AgentContext): Promise<AgentOutcome> {
    const settings = JSON.stringify(buildGeminiSettings(context, { tools, maxRetries }), null, 2);
    const prepared = await prepareAgentCli(
      context,
      {
        script: PREPARE_SCRIPT,
        stdin: `${settings}\n${SETTINGS_END}\n${context.systemPrompt}`,
        what: "Gemini CLI's settings",
        stderrEnd: "tail",
      },
      (stdout) => stdout.trim().split("\n")[0] !== "",
    );
    if ("outcome" in prepared) return prepared.outcome;
    const [home, projectSettings] = prepared.stdout.trim().split("\n") as [string, string | undefined];

    if (projectSettings === "1") {
      context.events.emit({
        type: "agent_output",
        text: "the work dir has .gemini/settings.json: Gemini CLI applies it over the harness's settings (turn limit and tools included), as in a project of its own",
      });
    }
    const mapper = createGeminiStreamMapper(context.events, now);
    return runAgentCliBehindProxy(context, prepared.runProcess, {
      proxy: {
        api: "gemini",
        apiKey: options.apiKey,
        upstream: options.baseURL || DEFAULT_GEMINI_BASE_URL,
        proxyEnv: env,
      },
      maxApiRequests: options.maxApiRequests,
      mapper,
      binary,
      launch: (proxy) => ({
        file: launch.file,
        args: [...launch.args, ...buildGeminiArgs(context)],
        extraEnv: buildGeminiEnv({ proxyUrl: proxy.url, home }),
        // The CLI is a Node script: its package (and node_modules) must be visible in bwrap.
        programs: launch.programs,
      }),
      onRunError: () => mapper.flush(),
      finish: (result) => mapper.finish(result, context.signal),
    });
  }

  // A script: node runs, and reads it.
  const hostFiles: HostFile[] =
    launch.file === binary
      ? [{ path: binary, use: "execute" }]
      : [
          { path: launch.file, use: "execute" },
          { path: binary, use: "read" },
        ];
  return { name: "gemini-cli", hostFiles, run };
}

/** Separates the settings from the system prompt on the prepare script's stdin. */
const SETTINGS_END = "--- llm-tool-test: end of settings ---";

/**
 * Makes Gemini CLI's home in TMPDIR: `.gemini/settings.json` (the lines of stdin up to
 * SETTINGS_END) and `.gemini/AGENTS.md`, its global context file (the rest: the system prompt).
 * Prints the home, then 1 when the work dir has settings of its own (else 0). `command -p` finds
 * the system's tools, never the target shim.
 */
const PREPARE_SCRIPT = `set -e
home="\${TMPDIR:-/tmp}/gemini-cli-home"
command -p mkdir -p "$home/.gemini"
: > "$home/.gemini/settings.json"
while IFS= read -r line; do
  [ "$line" = "${SETTINGS_END}" ] && break
  printf '%s\\n' "$line" >> "$home/.gemini/settings.json"
done
command -p cat > "$home/.gemini/AGENTS.md"
project=0
[ -f .gemini/settings.json ] && project=1
printf '%s\\n%s\\n' "$home" "$project"`;

export function buildGeminiArgs(context: AgentContext): string[] {
  return ["--output-format", "stream-json", "--approval-mode", "yolo", "--model", context.model, "--debug"];
}

/** Gemini CLI's settings for one trial (its user and system settings). */
export function buildGeminiSettings(
  context: AgentContext,
  { tools, maxRetries }: { tools: readonly string[]; maxRetries: number },
): Record<string, unknown> {
  return {
    security: { auth: { selectedType: "gemini-api-key" }, folderTrust: { enabled: false } },
    general: {
      enableAutoUpdate: false,
      enableAutoUpdateNotification: false,
      checkpointing: { enabled: false },
      maxAttempts: Math.max(1, Math.floor(maxRetries) + 1),
    },
    privacy: { usageStatisticsEnabled: false },
    telemetry: { enabled: false },
    ide: { enabled: false },
    context: { fileName: ["AGENTS.md", "GEMINI.md"] },
    model: { maxSessionTurns: context.maxTurns },
    tools: {
      core: [...tools],
      shell: {
        enableInteractiveShell: false,
        // Seconds without output before the CLI ends a shell call: the scenario's command timeout.
        inactivityTimeout: Math.max(1, Math.ceil(context.commandTimeoutMs / 1000)),
      },
    },
  };
}

function buildGeminiEnv(settings: { proxyUrl: string; home: string }): Record<string, string> {
  return {
    GOOGLE_GEMINI_BASE_URL: settings.proxyUrl,
    GEMINI_API_KEY: PLACEHOLDER_API_KEY,
    GEMINI_CLI_HOME: settings.home,
    // One process: it would otherwise start itself again with a larger heap.
    GEMINI_CLI_NO_RELAUNCH: "1",
  };
}

/**
 * The `gemini` program: `LLM_TOOL_TEST_GEMINI_BIN`, else `gemini` on PATH, else this package's
 * devDependency (@google/gemini-cli in a node_modules above the module or the cwd).
 */
export function resolveGeminiBinary(
  env: Record<string, string | undefined>,
  searchFrom?: readonly string[],
): string {
  return resolveCliBinary(GEMINI_BINARY, env, searchFrom);
}

/**
 * How to start the program: a Node script runs with this process's node (the sandbox need not
 * have one on PATH), its folder and node_modules made visible; anything else runs as it is.
 */
function launchCommand(binary: string): { file: string; args: string[]; programs: string[] } {
  if (isNodeScript(binary)) return { file: process.execPath, args: [binary], programs: [binary] };
  return { file: binary, args: [], programs: [] };
}

function isNodeScript(file: string): boolean {
  if (/\.[cm]?js$/.test(file)) return true;
  try {
    const fd = openSync(file, "r");
    try {
      const head = Buffer.alloc(128);
      const read = readSync(fd, head, 0, head.length, 0);
      const firstLine = head.subarray(0, read).toString("latin1").split("\n")[0] ?? "";
      return firstLine.startsWith("#!") && /\bnode\b/.test(firstLine);
    } finally {
      closeSync(fd);
    }
  } catch {
    return false;
  }
}

// ---- The stream ----

interface PendingTurn {
  texts: string[];
  toolUses: { id: string; name: string; input: unknown }[];
  startedAt: number;
  /** Its model_response is out (at its first tool call, before the tools run). */
  emitted: boolean;
}

interface ResultLine {
  status: string;
  errorType: string | null;
  errorMessage: string | null;
}

export interface GeminiStreamMapper {
  push(line: string): void;
  /** Model turns so far. */
  turns(): number;
  /** Emits a held final answer, without the run's totals. */
  flush(): void;
  /** The outcome once the process has exited. */
  finish(exec: Pick<ExecResult, "exit_code" | "stderr" | "timed_out">, signal: AbortSignal): AgentOutcome;
}

/**
 * Turns Gemini CLI's stream-json lines into trial events as they arrive. A turn is the assistant
 * text and tool calls the CLI prints between two rounds of tool results. A turn with tool calls
 * is emitted at its first call, before the tools run (the shim's records are matched to the calls
 * by time), each call as it comes; a final answer is held until the `result` line, whose token
 * totals for the whole run (the only ones the CLI reports) it carries. A run that ends right after
 * tool calls (the turn limit) has no response left to carry them: they are said in the transcript.
 */
export function createGeminiStreamMapper(events: EventSink, now: () => number): GeminiStreamMapper {
  const state: StreamState = {
    events,
    now,
    current: null,
    turns: 0,
    result: null,
    totals: null,
    openCalls: new Map(),
    otherToolCalls: new Map(),
  };
  return {
    push(raw) {
      const read = readJsonLine(raw, (event) => events.emit(event));
      if (read) handleLine(state, read.line, read.text);
    },
    turns: () => state.turns + (state.current && !state.current.emitted ? 1 : 0),
    flush() {
      emitResponse(state, null);
    },
    finish(exec, signal) {
      if (state.current && !state.current.emitted) emitResponse(state, state.totals);
      else if (state.totals) reportUncarriedTotals(state, state.totals);
      state.current = null;
      return decideOutcome(state.result, state.turns, exec, signal);
    },
  };
}

interface StreamState {
  events: EventSink;
  now: () => number;
  /** The turn being streamed. */
  current: PendingTurn | null;
  /** Responses emitted so far. */
  turns: number;
  result: ResultLine | null;
  totals: TokenUsage | null;
  /** Shell calls without a result yet: call id → start time. */
  openCalls: Map<string, number>;
  /** Calls of tools other than the shell, by id: their results carry no exit code. */
  otherToolCalls: Map<string, string>;
}

function handleLine(state: StreamState, line: Record<string, unknown>, text: string): void {
  switch (line.type) {
    case "init":
      state.events.emit({
        type: "agent_output",
        text: `Gemini CLI started: model ${String(line.model ?? "?")}, session ${String(line.session_id ?? "?")}`,
      });
      break;
    case "message":
      // The user's message is the task, already in the events.
      if (line.role === "assistant" && typeof line.content === "string") {
        const turn = openTurn(state);
        if (turn.emitted) state.events.emit({ type: "agent_output", text: line.content });
        else turn.texts.push(line.content);
      }
      break;
    case "tool_use": {
      const id = typeof line.tool_id === "string" ? line.tool_id : `call-${state.turns + 1}`;
      const name = String(line.tool_name ?? "");
      const toolUse = { id, name, input: line.parameters ?? {} };
      const turn = openTurn(state);
      turn.toolUses.push(toolUse);
      if (!turn.emitted) emitResponse(state, null);
      emitToolCall(state, toolUse);
      break;
    }
    case "tool_result":
      // The turn's calls are all out: the next text or call is the next turn's.
      if (state.current?.emitted) state.current = null;
      handleToolResult(state, line);
      break;
    case "error":
      state.events.emit({
        type: "agent_output",
        text: `Gemini CLI ${String(line.severity ?? "error")}: ${String(line.message ?? "")}`,
      });
      break;
    case "result": {
      const error = asRecord(line.error);
      state.result = {
        status: typeof line.status === "string" ? line.status : "unknown",
        errorType: typeof error.type === "string" ? error.type : null,
        errorMessage: typeof error.message === "string" ? error.message : null,
      };
      state.totals = readTotals(asRecord(line.stats));
      break;
    }
    default:
      // Kept as-is: lines this version adds are still in the transcript.
      state.events.emit({ type: "agent_output", text });
  }
}

/** The turn being streamed, or a new one. */
function openTurn(state: StreamState): PendingTurn {
  state.current ??= { texts: [], toolUses: [], startedAt: state.now(), emitted: false };
  return state.current;
}

/** The streamed turn's model_response, with `usage` (the run's totals, for the last one) or none. */
function emitResponse(state: StreamState, usage: TokenUsage | null): void {
  const turn = state.current;
  if (!turn || turn.emitted) return;
  turn.emitted = true;
  state.turns += 1;
  state.events.emit({
    type: "model_response",
    turn: state.turns,
    stop_reason: turn.toolUses.length > 0 ? "tool_use" : "end_turn",
    usage: usage ?? { input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0 },
    text: turn.texts.join(""),
    tool_uses: [...turn.toolUses],
    duration_ms: Math.max(0, Math.round(state.now() - turn.startedAt)),
  });
}

function emitToolCall(state: StreamState, toolUse: PendingTurn["toolUses"][number]): void {
  if (state.openCalls.has(toolUse.id)) return;
  state.openCalls.set(toolUse.id, state.now());
  if (toolUse.name !== GEMINI_SHELL_TOOL) {
    // A tool call of its own kind: a file edit or read, or a tool the CLI refuses.
    state.otherToolCalls.set(toolUse.id, toolUse.name);
    const command = describeOtherToolCall(toolUse.name, toolUse.input);
    state.events.emit({
      type: "tool_call",
      call_id: toolUse.id,
      turn: state.turns,
      command,
      tool: toolUse.name,
    });
    return;
  }
  const input = asRecord(toolUse.input);
  const command = typeof input.command === "string" ? input.command : JSON.stringify(toolUse.input);
  state.events.emit({ type: "tool_call", call_id: toolUse.id, turn: state.turns, command });
}

/** Totals with no response left to carry them: in the transcript, so that they are not lost unsaid. */
function reportUncarriedTotals(state: StreamState, totals: TokenUsage): void {
  if (!Object.values(totals).some((count) => count > 0)) return;
  state.events.emit({
    type: "agent_output",
    text: `Gemini CLI reported ${totals.input_tokens} input (${totals.cache_read_tokens} more cached) and ${totals.output_tokens} output tokens for the run; its last turn's response was out before it ended, so the trial's token counts leave them out`,
  });
}

/**
 * A shell call's result. With --debug the CLI prints what the model is told: `Output: …`, then
 * `Error: …`, `Exit Code: N`, `Signal: N`, `Background PIDs: …`, `Process Group PGID: N` when they
 * apply (no Exit Code line: 0). Any other text is a call that did not run as a command (the CLI's
 * own refusal, a timeout, a cancel). A refusal before any shell started (its block of `$(…)`, bad
 * parameters) is marked `not_run`: the command typed no invocation of the target, so the model's
 * retry is not taken for it.
 */
function handleToolResult(state: StreamState, line: Record<string, unknown>): void {
  const id = typeof line.tool_id === "string" ? line.tool_id : "";
  const startedAt = state.openCalls.get(id);
  if (startedAt === undefined) return;
  state.openCalls.delete(id);
  const output = typeof line.output === "string" ? line.output : "";
  const errorMessage =
    typeof asRecord(line.error).message === "string" ? String(asRecord(line.error).message) : "";
  if (state.otherToolCalls.delete(id)) {
    const failed = line.status === "error" || errorMessage !== "";
    state.events.emit({
      type: "tool_result",
      call_id: id,
      stdout: failed ? "" : output,
      stderr: failed ? [output, errorMessage].filter(Boolean).join("\n") : "",
      exit_code: failed ? NOT_RUN_EXIT_CODE : 0,
      duration_ms: Math.max(0, Math.round(state.now() - startedAt)),
      truncated: false,
      timed_out: false,
      // A tool the CLI does not offer: refused before anything ran.
      ...(failed && isUnofferedTool(asRecord(line.error).type, errorMessage) ? { not_run: true } : {}),
    });
    return;
  }
  const parsed = parseShellOutput(output);
  const timedOut = /exceeded the timeout/i.test(output.slice(0, 300));
  const notRun = parsed === null && !timedOut && isRefusedBeforeRun(output, asRecord(line.error).type);
  state.events.emit({
    type: "tool_result",
    call_id: id,
    stdout: parsed ? parsed.output : "",
    stderr: parsed ? "" : [output, errorMessage].filter(Boolean).join("\n"),
    exit_code: parsed ? parsed.exitCode : NOT_RUN_EXIT_CODE,
    duration_ms: Math.max(0, Math.round(state.now() - startedAt)),
    truncated: false,
    timed_out: timedOut,
    ...(notRun ? { not_run: true } : {}),
  });
}

/** Gemini CLI refused a call of a tool it does not register (not in `tools.core`, or unknown). */
function isUnofferedTool(errorType: unknown, message: string): boolean {
  return errorType === "tool_not_registered" || /not found in registry|not registered/i.test(message);
}

/** Gemini CLI's shell tool ended the call before starting a shell: its block of `$(…)`, bad parameters. */
function isRefusedBeforeRun(output: string, errorType: unknown): boolean {
  return errorType === "invalid_tool_params" || /^Blocked:|before it could start/.test(output);
}

/** The lines the CLI appends after the output, last first (each at most once, in this order). */
const TRAILER_FROM_END = ["Process Group PGID", "Background PIDs", "Signal", "Exit Code", "Error"] as const;

/**
 * The output and exit code of a shell call's result text, or null when it is not a command's
 * (`Output: …` and its trailer). The trailer is read from the end in the CLI's order, so output
 * that merely contains such a line stays output; output whose last line looks like the trailer
 * cannot be told from it (the CLI tells the model the same).
 */
export function parseShellOutput(text: string): { output: string; exitCode: number } | null {
  if (!text.startsWith("Output: ")) return null;
  let rest = text;
  const trailer: Partial<Record<(typeof TRAILER_FROM_END)[number], string>> = {};
  for (const name of TRAILER_FROM_END) {
    const at = rest.lastIndexOf(`\n${name}: `);
    if (at === -1 || rest.indexOf("\n", at + 1) !== -1) continue;
    trailer[name] = rest.slice(at + name.length + 3);
    rest = rest.slice(0, at);
  }
  const body = rest.slice("Output: ".length);
  const exit = trailer["Exit Code"];
  const signal = trailer.Signal;
  let exitCode = 0;
  if (exit !== undefined && /^-?\d+$/.test(exit)) exitCode = Number(exit);
  else if (signal !== undefined) exitCode = 128 + signalNumber(signal);
  else if (trailer.Error !== undefined) exitCode = NOT_RUN_EXIT_CODE;
  return { output: body === "(empty)" ? "" : body, exitCode };
}

function signalNumber(signal: string): number {
  if (/^\d+$/.test(signal)) return Number(signal);
  const known = (osConstants.signals as Record<string, number>)[signal];
  return known ?? 0;
}

/**
 * The run's tokens from the result's stats: input without its cached part, the cached part as
 * cache reads, output with thinking (total − input: Gemini bills thoughts as output).
 */
function readTotals(stats: Record<string, unknown>): TokenUsage | null {
  const number = (name: string) => {
    const value = stats[name];
    return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : null;
  };
  const input = number("input_tokens");
  if (input === null) return null;
  const cached = number("cached") ?? 0;
  const output = number("output_tokens") ?? 0;
  const total = number("total_tokens");
  return {
    input_tokens: Math.max(0, input - cached),
    output_tokens: total !== null ? Math.max(output, total - input) : output,
    cache_read_tokens: cached,
    cache_write_tokens: 0,
  };
}

/** How the run ended, from the abort signal, the process and its result line. */
function decideOutcome(
  final: ResultLine | null,
  turns: number,
  exec: Pick<ExecResult, "exit_code" | "stderr" | "timed_out">,
  signal: AbortSignal,
): AgentOutcome {
  const outcome = outcomeAfter(turns);
  const cut = cutShort(exec, signal);
  if (cut) return outcome(cut);
  if (!final) {
    const stderr = stderrTail(exec.stderr);
    return outcome(
      "agent_crash",
      `gemini exited with code ${exec.exit_code} without a result line${stderr ? `; stderr ends: ${stderr}` : ""}`,
    );
  }
  if (final.status === "success" && exec.exit_code === 0) return outcome("natural_stop");
  if (final.errorType === "FatalTurnLimitedError") return outcome("turn_limit");
  const message = final.errorMessage ?? final.status;
  const apiStatus = /"code":\s*(\d{3})\b/.exec(message) ?? /\bstatus(?: code)?:? (\d{3})\b/i.exec(message);
  if (apiStatus || /\[API Error/.test(message)) {
    const status = apiStatus ? ` ${apiStatus[1]}` : " with an error";
    return outcome("infra_error", `the model API answered${status}: ${message}`);
  }
  return outcome(
    "agent_crash",
    `gemini ended with ${final.errorType ?? final.status} and exit code ${exec.exit_code}: ${message}`,
  );
}
