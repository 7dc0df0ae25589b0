/**
 * The Claude Code CLI (`claude` of the @anthropic-ai/claude-code package) as the agent under test.
 *
 * It runs non-interactively in the trial's work dir with the sandboxed environment (`claude -p`
 * with the task on stdin, `--output-format stream-json --verbose --include-partial-messages`),
 * only the Bash tool by default, permissions bypassed (the sandbox is the boundary), the harness's
 * system prompt appended, the guidance in the work dir as CLAUDE.md (a link to AGENTS.md, removed
 * afterwards), its configuration in the sandbox's TMPDIR (no user config, nothing left in the work
 * dir) and non-essential traffic off. The real API key never enters its environment, which its
 * Bash tool inherits: it talks to a loopback credential proxy with a placeholder key.
 *
 * Its stream becomes the trial's events: one `model_response` per API message (lines that share a
 * message id are one turn; usage from the streamed message_start/message_delta), `tool_call` and
 * `tool_result` per Bash call, `model_error` per API retry it reports, and the final `result`'s
 * cost on the last response. The target shim still records every real invocation of the tool.
 */
import { realpathSync, statSync } from "node:fs";
import path from "node:path";
import { ConfigError } from "../errors.js";
import type { ExecResult } from "../sandbox/types.js";
import type { EventSink, TokenUsage } from "../transcript/events.js";
import { type CliBinarySpec, isExecutableFile, resolveCliBinary } from "./cli-binary.js";
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
  stderrPart,
} from "./external-agent-run.js";
import type { Agent, AgentContext, AgentOutcome } from "./types.js";

export const CLAUDE_BIN_ENV = "LLM_TOOL_TEST_CLAUDE_BIN";
const DEFAULT_CLAUDE_TOOLS: readonly string[] = ["Bash"];
const DEFAULT_BASE_URL = "https://api.anthropic.com";
const DEFAULT_CLAUDE_MAX_RETRIES = 4;
/** The npm package's bin is a small placeholder until its postinstall links the native binary. */
const PLACEHOLDER_MAX_BYTES = 4096;

/** Base URL default https://api.anthropic.com; the binary's search is resolveClaudeBinary's. */
export interface ClaudeCodeAgentOptions extends AgentCliOptions {
  /** Claude Code tools offered to the model; default ["Bash"]. */
  tools?: readonly string[];
  /** Claude Code's retries of a failed API call (it would retry even a 401 ten times); default 4. */
  maxRetries?: number;
}

export function createClaudeCodeAgent(options: ClaudeCodeAgentOptions): Agent {
  const { env, binary, now } = resolveAgentCliOptions(
    options,
    resolveClaudeBinary,
    () =>
      new ConfigError(
        "the claude-code agent needs an API key: set ANTHROPIC_API_KEY (it reaches Claude Code only through a local proxy)",
        "--agent",
      ),
  );
  const tools = options.tools ?? DEFAULT_CLAUDE_TOOLS;

  async function run(context: AgentContext): Promise<AgentOutcome> {
    const prepared = await prepareAgentCli(
      context,
      { script: CLAUDE_PREPARE_SCRIPT, what: "the work dir for Claude Code" },
      (stdout) => Boolean(stdout.split("\n")[1]),
    );
    if ("outcome" in prepared) return prepared.outcome;
    const { runProcess } = prepared;
    const [linked, configDir, shadowed] = prepared.stdout.split("\n") as [string, string, string];
    const mapper = createClaudeStreamMapper(context.events, now);
    const outcome = await runAgentCliBehindProxy(context, runProcess, {
      proxy: { apiKey: options.apiKey, upstream: options.baseURL || DEFAULT_BASE_URL, proxyEnv: env },
      maxApiRequests: options.maxApiRequests,
      mapper,
      launch: (proxy) => ({
        file: binary,
        args: buildClaudeArgs(context, tools),
        extraEnv: buildClaudeEnv(context, {
          proxyUrl: proxy.url,
          configDir,
          maxRetries: options.maxRetries ?? DEFAULT_CLAUDE_MAX_RETRIES,
        }),
      }),
      finish: (result) => mapper.finish(result, context.signal),
      // After an abort no process can run here any more, so the link then stays in the work dir.
      cleanUp: async () => {
        if (linked === "1" && !context.signal.aborted) {
          await runProcess("bash", ["-c", UNLINK_SCRIPT]).catch(() => undefined);
        }
      },
    });
    return shadowed === "1" ? { ...outcome, guidanceNotShown: SHADOWED_GUIDANCE } : outcome;
  }

  return { name: "claude-code", hostFiles: [{ path: binary, use: "execute" }], run };
}

/**
 * Creates CLAUDE.md -> AGENTS.md when the work dir has guidance for agents but no CLAUDE.md (Claude
 * Code reads only CLAUDE.md), and a config dir in TMPDIR. Prints "1" when it linked, then the
 * config dir, then "1" when AGENTS.md is shadowed: the work dir has a CLAUDE.md of its own, neither
 * a link to AGENTS.md nor importing it (`@AGENTS.md`), which Claude Code reads instead. `command -p`
 * finds the system's tools, never the target shim.
 */
export const CLAUDE_PREPARE_SCRIPT = `set -e
config="\${TMPDIR:-/tmp}/claude-code-config"
command -p mkdir -p "$config"
linked=0
shadowed=0
if [ -f AGENTS.md ] && [ ! -e CLAUDE.md ] && [ ! -L CLAUDE.md ]; then
  command -p ln -s AGENTS.md CLAUDE.md && linked=1
elif [ -f AGENTS.md ] && [ "$(command -p readlink CLAUDE.md || true)" != AGENTS.md ] &&
  ! command -p grep -Eqs '@(\\./)?AGENTS\\.md' CLAUDE.md; then
  shadowed=1
fi
printf '%s\\n%s\\n%s\\n' "$linked" "$config" "$shadowed"`;

const SHADOWED_GUIDANCE =
  "the work dir has a CLAUDE.md of its own, which Claude Code reads instead of AGENTS.md";

const UNLINK_SCRIPT = `if [ -L CLAUDE.md ] && [ "$(command -p readlink CLAUDE.md)" = AGENTS.md ]; then command -p rm -f CLAUDE.md; fi`;

export function buildClaudeArgs(context: AgentContext, tools: readonly string[]): string[] {
  const args = [
    "-p",
    "--output-format",
    "stream-json",
    "--verbose",
    "--include-partial-messages",
    "--model",
    context.model,
    "--max-turns",
    String(context.maxTurns),
    "--permission-mode",
    "bypassPermissions",
    "--no-session-persistence",
    // One comma-separated value: the option is variadic and would swallow what follows.
    `--tools=${tools.join(",")}`,
  ];
  if (context.systemPrompt.length > 0) args.push("--append-system-prompt", context.systemPrompt);
  return args;
}

function buildClaudeEnv(
  context: AgentContext,
  settings: { proxyUrl: string; configDir: string; maxRetries: number },
): Record<string, string> {
  const commandTimeout = String(Math.max(1000, Math.round(context.commandTimeoutMs)));
  return {
    ANTHROPIC_BASE_URL: settings.proxyUrl,
    ANTHROPIC_API_KEY: PLACEHOLDER_API_KEY,
    CLAUDE_CONFIG_DIR: settings.configDir,
    CLAUDE_CODE_MAX_RETRIES: String(Math.max(0, Math.floor(settings.maxRetries))),
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_AUTOUPDATER: "1",
    DISABLE_TELEMETRY: "1",
    DISABLE_ERROR_REPORTING: "1",
    DISABLE_BUG_COMMAND: "1",
    // bypassPermissions is refused under root unless Claude Code is told it is sandboxed (it is).
    IS_SANDBOX: "1",
    // Claude Code's own limit for one Bash call, the scenario's command_timeout.
    BASH_DEFAULT_TIMEOUT_MS: commandTimeout,
    BASH_MAX_TIMEOUT_MS: commandTimeout,
  };
}

/**
 * The `claude` binary: `LLM_TOOL_TEST_CLAUDE_BIN`, else `claude` on PATH, else this package's
 * devDependency (@anthropic-ai/claude-code in a node_modules above the module or the cwd).
 */
export function resolveClaudeBinary(
  env: Record<string, string | undefined>,
  searchFrom?: readonly string[],
): string {
  return resolveCliBinary(CLAUDE_BINARY, env, searchFrom);
}

const CLAUDE_BINARY: CliBinarySpec = {
  agent: "claude-code",
  label: "the Claude Code CLI",
  envVar: CLAUDE_BIN_ENV,
  command: "claude",
  packageName: "@anthropic-ai/claude-code",
  /** Its native binary, linked by its postinstall, else (scripts disabled) its platform package's. */
  findInNodeModules(nodeModules) {
    const scope = path.join(nodeModules, "@anthropic-ai");
    const bin = path.join(scope, "claude-code", "bin", "claude.exe");
    if (isExecutableFile(bin) && statSync(bin).size > PLACEHOLDER_MAX_BYTES) return realpathSync(bin);
    const native = path.join(scope, `claude-code-${platformKey()}`, "claude");
    return isExecutableFile(native) ? realpathSync(native) : null;
  },
};

function platformKey(): string {
  if (process.platform !== "linux") return `${process.platform}-${process.arch}`;
  const report = process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined;
  const musl = report !== undefined && report.header?.glibcVersionRuntime === undefined;
  return `linux-${process.arch}${musl ? "-musl" : ""}`;
}

// ---- The stream ----

interface PendingMessage {
  id: string;
  texts: string[];
  toolUses: { id: string; name: string; input: unknown }[];
  usage: TokenUsage;
  /** Usage came from the raw message_start/message_delta events (exact), not an assistant line. */
  exactUsage: boolean;
  stopReason: string | null;
  startedAt: number;
  stoppedAt: number | null;
}

interface ResultLine {
  subtype: string;
  is_error: boolean;
  num_turns: number | null;
  result: string | null;
  total_cost_usd: number | null;
  api_error_status: number | null;
  errors: string[];
}

export interface ClaudeStreamMapper {
  push(line: string): void;
  /** Model turns so far. */
  turns(): number;
  /** The outcome once the process has exited. */
  finish(exec: Pick<ExecResult, "exit_code" | "stderr" | "timed_out">, signal: AbortSignal): AgentOutcome;
}

/**
 * Turns Claude Code's stream-json lines into trial events as they arrive. A response with tool
 * calls is emitted when its message stops (before the tools run); one without is held until the
 * next line, so that the final one carries the run's reported cost.
 */
export function createClaudeStreamMapper(events: EventSink, now: () => number): ClaudeStreamMapper {
  const stream: StreamState = {
    events,
    now,
    pending: null,
    lastFlushedId: null,
    turns: 0,
    result: null,
    openCalls: new Map(),
    otherToolCalls: new Map(),
    backgroundCalls: new Set(),
  };
  return {
    push(raw) {
      const read = readJsonLine(raw, (event) => events.emit(event));
      if (!read) return;
      const { line, text } = read;
      switch (line.type) {
        case "stream_event":
          handleStreamEvent(stream, asRecord(line.event));
          break;
        case "assistant":
          handleAssistantLine(stream, line);
          break;
        case "user":
          handleUserLine(stream, line);
          break;
        case "system":
          handleSystemLine(stream, line);
          break;
        case "result":
          handleResultLine(stream, line);
          break;
        default:
          // Kept as-is: lines this version adds are still in the transcript.
          events.emit({ type: "agent_output", text });
      }
    },
    turns: () => stream.turns + (stream.pending ? 1 : 0),
    finish(exec, signal) {
      flushResponse(stream);
      return decideOutcome(stream.result, stream.turns, exec, signal);
    },
  };
}

/** What the mapper holds between lines. */
interface StreamState {
  events: EventSink;
  now: () => number;
  /** The response being assembled, not yet emitted. */
  pending: PendingMessage | null;
  lastFlushedId: string | null;
  /** Responses emitted so far. */
  turns: number;
  result: ResultLine | null;
  /** Bash calls emitted without a result yet: call id → start time. */
  openCalls: Map<string, number>;
  /** Open calls of another tool than Bash (a file edit, a tool it does not offer): id → its name. */
  otherToolCalls: Map<string, string>;
  /** Bash calls the model ran with `run_in_background`. */
  backgroundCalls: Set<string>;
}

type ToolUse = PendingMessage["toolUses"][number];

/** Emit the pending response (with the run's cost, for the last one), then its Bash calls. */
function flushResponse(stream: StreamState, cost?: number): void {
  const message = stream.pending;
  if (!message) return;
  stream.pending = null;
  stream.lastFlushedId = message.id;
  stream.turns += 1;
  const finishedAt = message.stoppedAt ?? stream.now();
  stream.events.emit({
    type: "model_response",
    turn: stream.turns,
    stop_reason: message.stopReason ?? (message.toolUses.length > 0 ? "tool_use" : null),
    usage: message.usage,
    text: message.texts.join("\n"),
    tool_uses: message.toolUses,
    duration_ms: Math.max(0, Math.round(finishedAt - message.startedAt)),
    ...(cost !== undefined ? { cost_usd: cost } : {}),
  });
  for (const toolUse of message.toolUses) emitToolCall(stream, toolUse);
}

function emitToolCall(stream: StreamState, toolUse: ToolUse): void {
  if (stream.openCalls.has(toolUse.id)) return;
  stream.openCalls.set(toolUse.id, stream.now());
  const turn = Math.max(stream.turns, 1);
  if (toolUse.name !== "Bash") {
    // A tool call of its own kind: it runs no command (a file edit), or Claude Code refuses it.
    stream.otherToolCalls.set(toolUse.id, toolUse.name);
    const command = describeOtherToolCall(toolUse.name, toolUse.input);
    stream.events.emit({ type: "tool_call", call_id: toolUse.id, turn, command, tool: toolUse.name });
    return;
  }
  const input = toolUse.input as { command?: unknown; run_in_background?: unknown } | null;
  const command = input && typeof input.command === "string" ? input.command : JSON.stringify(toolUse.input);
  if (input?.run_in_background === true) stream.backgroundCalls.add(toolUse.id);
  stream.events.emit({ type: "tool_call", call_id: toolUse.id, turn, command });
}

/** The pending response with this id; a different one pending is emitted first. */
function openResponse(
  stream: StreamState,
  id: string,
  usage: TokenUsage,
  exactUsage: boolean,
): PendingMessage {
  if (stream.pending && stream.pending.id !== id) flushResponse(stream);
  stream.pending ??= {
    id,
    texts: [],
    toolUses: [],
    usage,
    exactUsage,
    stopReason: null,
    startedAt: stream.now(),
    stoppedAt: null,
  };
  return stream.pending;
}

/** The raw API events: a response's start, its usage and stop reason, its end. */
function handleStreamEvent(stream: StreamState, event: Record<string, unknown>): void {
  switch (event.type) {
    case "message_start": {
      const message = asRecord(event.message);
      const id = typeof message.id === "string" ? message.id : `message-${stream.turns + 1}`;
      openResponse(stream, id, readUsage(message.usage), true);
      break;
    }
    case "message_delta": {
      const pending = stream.pending;
      if (!pending) break;
      const delta = asRecord(event.delta);
      if (typeof delta.stop_reason === "string") pending.stopReason = delta.stop_reason;
      if (pending.exactUsage) pending.usage = mergeUsage(pending.usage, asRecord(event.usage));
      break;
    }
    case "message_stop":
      if (!stream.pending) break;
      stream.pending.stoppedAt = stream.now();
      // Its tools run next: the response goes out now. A final answer waits for the cost.
      if (stream.pending.toolUses.length > 0) flushResponse(stream);
      break;
    default:
      break; // content deltas: the assistant lines carry the complete blocks
  }
}

/** A response's complete content blocks (text, tool uses), or Claude Code's own notice. */
function handleAssistantLine(stream: StreamState, line: Record<string, unknown>): void {
  const message = asRecord(line.message);
  const content = Array.isArray(message.content) ? (message.content as Record<string, unknown>[]) : [];
  if (message.model === "<synthetic>") {
    // Claude Code's own notice (an API error it gave up on), not a model turn.
    const text = content.map((block) => (typeof block.text === "string" ? block.text : "")).join("\n");
    if (text) stream.events.emit({ type: "agent_output", text });
    return;
  }
  const id = typeof message.id === "string" ? message.id : `message-${stream.turns + 1}`;
  const toolUses = content
    .filter((block) => block.type === "tool_use")
    .map((block) => ({ id: String(block.id), name: String(block.name), input: block.input }));
  if (id === stream.lastFlushedId && stream.pending?.id !== id) {
    // A block that arrived after its message was emitted: still run-able tool calls.
    for (const toolUse of toolUses) emitToolCall(stream, toolUse);
    return;
  }
  const target = openResponse(stream, id, readUsage(message.usage), false);
  if (!target.exactUsage) target.usage = readUsage(message.usage);
  if (typeof message.stop_reason === "string") target.stopReason = message.stop_reason;
  for (const block of content) {
    if (block.type === "text" && typeof block.text === "string" && block.text.length > 0) {
      target.texts.push(block.text);
    }
  }
  target.toolUses.push(...toolUses);
}

/** Tool results: one `tool_result` event per tool call. */
function handleUserLine(stream: StreamState, line: Record<string, unknown>): void {
  flushResponse(stream);
  const message = asRecord(line.message);
  const content = Array.isArray(message.content) ? (message.content as Record<string, unknown>[]) : [];
  const detail = asRecord(line.tool_use_result);
  for (const block of content) {
    if (block.type !== "tool_result" || typeof block.tool_use_id !== "string") continue;
    const startedAt = stream.openCalls.get(block.tool_use_id);
    if (startedAt === undefined) continue; // not a call it showed
    stream.openCalls.delete(block.tool_use_id);
    const text = readToolResultText(block.content);
    const isError = block.is_error === true;
    const duration_ms = Math.max(0, Math.round(stream.now() - startedAt));
    if (stream.otherToolCalls.has(block.tool_use_id)) {
      stream.events.emit({
        type: "tool_result",
        call_id: block.tool_use_id,
        stdout: isError ? "" : text,
        stderr: isError ? text : "",
        exit_code: isError ? 1 : 0,
        duration_ms,
        truncated: false,
        timed_out: false,
        // A tool it does not offer: refused before anything ran.
        ...(isError && /No such tool available/i.test(text) ? { not_run: true } : {}),
      });
      continue;
    }
    const exitMatch = isError ? /^(?:Error: )?Exit code (\d+)\n?/.exec(text) : null;
    const separate = typeof detail.stdout === "string" && content.length === 1;
    stream.events.emit({
      type: "tool_result",
      call_id: block.tool_use_id,
      stdout: separate ? String(detail.stdout) : exitMatch ? text.slice(exitMatch[0].length) : text,
      stderr: separate && typeof detail.stderr === "string" ? detail.stderr : "",
      exit_code: exitMatch ? Number(exitMatch[1]) : isError ? 1 : 0,
      duration_ms,
      truncated: false,
      timed_out: detail.interrupted === true || (isError && /timed out/i.test(text.slice(0, 200))),
      // Its command goes on after this result; the shim records what it runs.
      ...(stream.backgroundCalls.has(block.tool_use_id) || typeof detail.backgroundTaskId === "string"
        ? { background: true }
        : {}),
    });
  }
}

/** Claude Code's start (version, model, tools) and its API retries. */
function handleSystemLine(stream: StreamState, line: Record<string, unknown>): void {
  if (line.subtype === "init") {
    const tools = Array.isArray(line.tools) ? line.tools.join(", ") : "?";
    stream.events.emit({
      type: "agent_output",
      text: `Claude Code ${String(line.claude_code_version ?? "")} started: model ${String(line.model ?? "?")}, tools ${tools}, permission mode ${String(line.permissionMode ?? "?")}`,
    });
  } else if (line.subtype === "api_retry") {
    const delay = Number(line.retry_delay_ms);
    stream.events.emit({
      type: "model_error",
      turn: stream.turns + 1,
      attempt: Number(line.attempt) || 1,
      status: typeof line.error_status === "number" ? line.error_status : null,
      message: typeof line.error === "string" ? line.error : "API error",
      will_retry: true,
      retry_after_ms: Number.isFinite(delay) ? Math.round(delay) : null,
    });
  }
}

/** The run's last line: its cost goes on the final response; the rest decides the outcome. */
function handleResultLine(stream: StreamState, line: Record<string, unknown>): void {
  const cost = typeof line.total_cost_usd === "number" ? line.total_cost_usd : null;
  flushResponse(stream, cost !== null && cost > 0 ? cost : undefined);
  stream.result = {
    subtype: typeof line.subtype === "string" ? line.subtype : "unknown",
    is_error: line.is_error === true,
    num_turns: typeof line.num_turns === "number" ? line.num_turns : null,
    result: typeof line.result === "string" ? line.result : null,
    total_cost_usd: cost,
    api_error_status: typeof line.api_error_status === "number" ? line.api_error_status : null,
    errors: Array.isArray(line.errors) ? line.errors.map(String) : [],
  };
  const denials = Array.isArray(line.permission_denials) ? line.permission_denials : [];
  if (denials.length > 0) {
    stream.events.emit({
      type: "agent_output",
      text: `Claude Code denied tool uses: ${JSON.stringify(denials)}`,
    });
  }
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
  const stderr = stderrPart(exec.stderr);
  if (!final) {
    return outcome("agent_crash", `claude exited with code ${exec.exit_code} without a result line${stderr}`);
  }
  if (final.subtype === "error_max_turns") return outcome("turn_limit");
  if (final.subtype === "success" && !final.is_error && exec.exit_code === 0) return outcome("natural_stop");
  const message = [final.result, ...final.errors].filter((part) => part).join("; ") || final.subtype;
  if (final.api_error_status !== null) {
    return outcome("infra_error", `the model API answered ${final.api_error_status}: ${message}`);
  }
  return outcome(
    "agent_crash",
    `claude ended with ${final.subtype}${final.is_error ? " (error)" : ""} and exit code ${exec.exit_code}: ${message}${stderr}`,
  );
}

function readUsage(value: unknown): TokenUsage {
  return mergeUsage(
    { input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0 },
    asRecord(value),
  );
}

/** Fields present in `raw` (API names) replace those in `usage`. */
function mergeUsage(usage: TokenUsage, raw: Record<string, unknown>): TokenUsage {
  const pick = (name: string, fallback: number) => {
    const value = raw[name];
    return typeof value === "number" && Number.isFinite(value) ? value : fallback;
  };
  return {
    input_tokens: pick("input_tokens", usage.input_tokens),
    output_tokens: pick("output_tokens", usage.output_tokens),
    cache_read_tokens: pick("cache_read_input_tokens", usage.cache_read_tokens),
    cache_write_tokens: pick("cache_creation_input_tokens", usage.cache_write_tokens),
  };
}

function readToolResultText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((block) => {
      const record = asRecord(block);
      return typeof record.text === "string" ? record.text : "";
    })
    .join("\n");
}
