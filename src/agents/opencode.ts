/**
 * The OpenCode CLI (`opencode` of the opencode-ai package) as the agent under test.
 *
 * It runs non-interactively in the trial's work dir (`opencode run --format json`, the task on
 * stdin), with Anthropic's provider pointed at a loopback credential proxy holding the real key
 * (OpenCode gets a placeholder, so its bash tool, which inherits its environment, never sees the
 * key). Its whole configuration is given in OPENCODE_CONFIG_CONTENT: only the bash tool by default
 * (every other permission denied, so the other tools are not offered), permissions granted without
 * asking (the sandbox is the boundary), no sharing, no autoupdate, no snapshots, no LSP or
 * formatter, the harness's system prompt as an instructions file. Its data, cache and config live
 * in the sandbox's TMPDIR (XDG_* variables), never in the work dir or the user's home; the models
 * list is its bundled one (no models.dev fetch) and its config dir is marked as already holding
 * its plugin package, so it does not try to install one from npm. AGENTS.md guidance is OpenCode's
 * own instructions file, read as it is.
 *
 * Its JSON lines become the trial's events: one `model_response` per step (step_start ..
 * step_finish, with the step's tokens and OpenCode's cost when it prices the model), then the
 * step's bash calls as `tool_call`/`tool_result` (OpenCode reports a call once it has finished: its
 * output, stdout and stderr together, and its exit status). OpenCode's own step limit only asks
 * the model to stop, so the harness ends it when it starts a step past the turn limit.
 */
import { realpathSync, statSync } from "node:fs";
import path from "node:path";
import { ConfigError } from "../errors.js";
import { providerOfModel } from "../model/provider.js";
import type { ExecResult } from "../sandbox/types.js";
import type { EventSink, TokenUsage } from "../transcript/events.js";
import { type CliBinarySpec, isExecutableFile, resolveCliBinary } from "./cli-binary.js";
import { PLACEHOLDER_API_KEY } from "./credential-proxy.js";
import {
  type AgentCliOptions,
  asRecord,
  cutShort,
  outcomeAfter,
  prepareAgentCli,
  readJsonLine,
  resolveAgentCliOptions,
  runAgentCliBehindProxy,
  stderrPart,
} from "./external-agent-run.js";
import type { Agent, AgentContext, AgentOutcome } from "./types.js";

/** The npm package the action installs, at the version the tests run against. */
export const OPENCODE_PACKAGE = "opencode-ai";
export const OPENCODE_VERSION = "1.18.33";
export const OPENCODE_BINARY = "opencode";
export const OPENCODE_BIN_ENV = "LLM_TOOL_TEST_OPENCODE_BIN";
const DEFAULT_OPENCODE_TOOLS: readonly string[] = ["bash"];
const DEFAULT_BASE_URL = "https://api.anthropic.com";
/** OpenCode's provider for the models it runs here (the model id's own provider must be Anthropic). */
const PROVIDER_ID = "anthropic";
/** The npm package's bin before its postinstall links the native binary is a small placeholder. */
const PLACEHOLDER_MAX_BYTES = 4096;
/** The package OpenCode installs into each config dir unless it is there already. */
const PLUGIN_PACKAGE = "@opencode-ai/plugin";

/** Base URL default https://api.anthropic.com; the binary's search is resolveOpenCodeBinary's. */
export interface OpenCodeAgentOptions extends AgentCliOptions {
  /** OpenCode tools offered to the model (their permission ids); default ["bash"]. */
  tools?: readonly string[];
}

export function createOpenCodeAgent(options: OpenCodeAgentOptions): Agent {
  const { env, binary, now } = resolveAgentCliOptions(
    options,
    resolveOpenCodeBinary,
    () =>
      new ConfigError(
        "the opencode agent needs an API key: set ANTHROPIC_API_KEY (it reaches OpenCode only through a local proxy)",
        "--agent",
      ),
  );
  const tools = options.tools ?? DEFAULT_OPENCODE_TOOLS;

  async function run(context: AgentContext): Promise<AgentOutcome> {
    // The system prompt goes in as a file OpenCode reads as instructions.
    const prepared = await prepareAgentCli(
      context,
      { script: PREPARE_SCRIPT, stdin: context.systemPrompt, what: "OpenCode's state dir" },
      (stdout) => stdout.trim() !== "",
    );
    if ("outcome" in prepared) return prepared.outcome;
    const stateDir = prepared.stdout.trim();

    // OpenCode's own step limit only asks the model to stop: past the turn limit it is ended.
    const stop = new AbortController();
    const mapper = createOpenCodeStreamMapper(context.events, now, {
      maxTurns: context.maxTurns,
      onTurnLimit: () => stop.abort(),
    });
    return runAgentCliBehindProxy(context, prepared.runProcess, {
      proxy: { apiKey: options.apiKey, upstream: options.baseURL || DEFAULT_BASE_URL, proxyEnv: env },
      maxApiRequests: options.maxApiRequests,
      mapper,
      launch: (proxy) => ({
        file: binary,
        args: buildOpenCodeArgs(context),
        extraEnv: buildOpenCodeEnv(context, { proxyUrl: proxy.url, stateDir, tools }),
        stop: stop.signal,
      }),
      finish: (result) => mapper.finish(result, context.signal),
    });
  }

  return { name: "opencode", hostFiles: [{ path: binary, use: "execute" }], run };
}

/**
 * Makes OpenCode's state dir in TMPDIR (XDG config, data, cache and state), writes the system
 * prompt from stdin into it, and marks the config dir as holding OpenCode's plugin package (an
 * empty node_modules and a lock naming it), so OpenCode does not install it from npm there. Prints
 * the state dir. `command -p` finds the system's tools, never the target shim.
 */
const PREPARE_SCRIPT = `set -e
state="\${TMPDIR:-/tmp}/opencode-state"
config="$state/config/opencode"
command -p mkdir -p "$config/node_modules" "$state/data" "$state/cache" "$state/state"
command -p cat > "$state/system-prompt.md"
printf '{"dependencies":{"${PLUGIN_PACKAGE}":"${OPENCODE_VERSION}"}}\\n' > "$config/package.json"
printf '{"lockfileVersion":3,"packages":{"":{"dependencies":{"${PLUGIN_PACKAGE}":"${OPENCODE_VERSION}"}}}}\\n' > "$config/package-lock.json"
printf '%s\\n' "$state"`;

/** The model id OpenCode is given: the provider's own id, under OpenCode's Anthropic provider. */
function openCodeModel(model: string): string {
  return `${PROVIDER_ID}/${providerOfModel(model)?.model ?? model}`;
}

export function buildOpenCodeArgs(context: AgentContext): string[] {
  return [
    "run",
    "--format",
    "json",
    "--model",
    openCodeModel(context.model),
    // A title given: no extra model call to make one up.
    "--title",
    `llm-tool-test ${context.scenarioKey} #${context.trial}`,
    // Any permission still asked for is granted (the sandbox is the boundary).
    "--auto",
  ];
}

/** OpenCode's configuration (OPENCODE_CONFIG_CONTENT) for one trial. */
export function buildOpenCodeConfig(
  context: Pick<AgentContext, "model" | "systemPrompt">,
  settings: { proxyUrl: string; stateDir: string; tools: readonly string[] },
): Record<string, unknown> {
  const model = providerOfModel(context.model)?.model ?? context.model;
  const permission: Record<string, string> = { "*": "deny" };
  for (const tool of settings.tools) permission[tool] = "allow";
  // Paths outside the work dir (the sandbox's /data...) and a repeated command are not questions here.
  permission.external_directory = "allow";
  permission.doom_loop = "allow";
  return {
    autoupdate: false,
    share: "disabled",
    snapshot: false,
    lsp: false,
    formatter: false,
    enabled_providers: [PROVIDER_ID],
    model: openCodeModel(context.model),
    small_model: openCodeModel(context.model),
    provider: {
      [PROVIDER_ID]: {
        options: { baseURL: `${settings.proxyUrl}/v1`, apiKey: PLACEHOLDER_API_KEY },
        // Declared, so a model OpenCode's bundled list does not know runs too (unpriced by it).
        models: { [model]: {} },
      },
    },
    permission,
    ...(context.systemPrompt.length > 0
      ? { instructions: [path.posix.join(settings.stateDir, "system-prompt.md")] }
      : {}),
  };
}

function buildOpenCodeEnv(
  context: AgentContext,
  settings: { proxyUrl: string; stateDir: string; tools: readonly string[] },
): Record<string, string> {
  const commandTimeout = String(Math.max(1000, Math.round(context.commandTimeoutMs)));
  const state = settings.stateDir;
  return {
    OPENCODE_CONFIG_CONTENT: JSON.stringify(buildOpenCodeConfig(context, settings)),
    XDG_CONFIG_HOME: `${state}/config`,
    XDG_DATA_HOME: `${state}/data`,
    XDG_CACHE_HOME: `${state}/cache`,
    XDG_STATE_HOME: `${state}/state`,
    OPENCODE_DISABLE_AUTOUPDATE: "1",
    OPENCODE_DISABLE_MODELS_FETCH: "1",
    OPENCODE_DISABLE_SHARE: "1",
    OPENCODE_DISABLE_DEFAULT_PLUGINS: "1",
    OPENCODE_PURE: "1",
    OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
    // Nothing of the user's Claude Code setup (~/.claude) or other skill folders.
    OPENCODE_DISABLE_CLAUDE_CODE: "1",
    OPENCODE_DISABLE_EXTERNAL_SKILLS: "1",
    // OpenCode's own limit for one bash call, the scenario's command_timeout.
    OPENCODE_EXPERIMENTAL_BASH_DEFAULT_TIMEOUT_MS: commandTimeout,
  };
}

/**
 * The `opencode` binary: `LLM_TOOL_TEST_OPENCODE_BIN`, else `opencode` on PATH, else the opencode-ai
 * package in a node_modules above the module or the cwd (`npm run install-opencode`).
 */
export function resolveOpenCodeBinary(
  env: Record<string, string | undefined>,
  searchFrom?: readonly string[],
): string {
  return resolveCliBinary(OPENCODE_CLI, env, searchFrom);
}

const OPENCODE_CLI: CliBinarySpec = {
  agent: "opencode",
  label: "the OpenCode CLI",
  envVar: OPENCODE_BIN_ENV,
  command: OPENCODE_BINARY,
  packageName: OPENCODE_PACKAGE,
  version: OPENCODE_VERSION,
  /** Its native binary, linked by its postinstall, else (scripts disabled) its platform package's. */
  findInNodeModules(nodeModules) {
    const bin = path.join(nodeModules, OPENCODE_PACKAGE, "bin", "opencode.exe");
    if (isExecutableFile(bin) && statSync(bin).size > PLACEHOLDER_MAX_BYTES) return realpathSync(bin);
    for (const name of platformPackages()) {
      const native = path.join(nodeModules, name, "bin", OPENCODE_BINARY);
      if (isExecutableFile(native)) return realpathSync(native);
    }
    return null;
  },
};

/** The platform packages that can hold this machine's binary, preferred first. */
function platformPackages(): string[] {
  const platform = process.platform === "win32" ? "windows" : process.platform;
  const base = `opencode-${platform}-${process.arch}`;
  if (process.platform !== "linux") return [base, `${base}-baseline`];
  const report = process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined;
  const musl = report !== undefined && report.header?.glibcVersionRuntime === undefined;
  return musl ? [`${base}-musl`, `${base}-baseline-musl`] : [base, `${base}-baseline`];
}

// ---- The stream ----

interface ToolPart {
  id: string;
  name: string;
  input: unknown;
  status: string;
  output: string;
  exit: number | null;
  truncated: boolean;
  timedOut: boolean;
  error: string | null;
  durationMs: number;
  /** Epoch ms OpenCode reports for the command's start and end (null when absent). */
  startedAtMs: number | null;
  endedAtMs: number | null;
}

interface Step {
  startedAt: number;
  /**
   * Epoch ms before which none of the step's commands can have started: when the previous step
   * finished (or the mapper started). Bounds the times OpenCode reports for them.
   */
  notBeforeMs: number;
  texts: string[];
  tools: ToolPart[];
}

export interface OpenCodeStreamMapper {
  push(line: string): void;
  /** Model turns so far (steps started). */
  turns(): number;
  /** The outcome once the process has exited. */
  finish(exec: Pick<ExecResult, "exit_code" | "stderr" | "timed_out">, signal: AbortSignal): AgentOutcome;
}

/** Past this many steps the agent is ended (a step started past it is the turn limit). */
export interface OpenCodeLimits {
  maxTurns: number;
  onTurnLimit: () => void;
  /** The wall clock (epoch ms) the event writer stamps with; default Date.now. */
  wallClock?: () => number;
}

/**
 * Turns OpenCode's `--format json` lines into trial events as they arrive. A step's response is
 * emitted at its step_finish (which carries its tokens and cost), then its bash calls.
 */
export function createOpenCodeStreamMapper(
  events: EventSink,
  now: () => number,
  limits: OpenCodeLimits,
): OpenCodeStreamMapper {
  const wallClock = limits.wallClock ?? Date.now;
  let step: Step | null = null;
  let previousStepEndMs = wallClock();
  let emitted = 0;
  let started = 0;
  let lastReason: string | null = null;
  let turnLimit = false;
  const errors: { name: string; message: string; status: number | null }[] = [];

  const openStep = (): Step => {
    step ??= { startedAt: now(), notBeforeMs: previousStepEndMs, texts: [], tools: [] };
    return step;
  };

  function finishStep(part: Record<string, unknown>): void {
    const current = openStep();
    step = null;
    previousStepEndMs = wallClock();
    emitted += 1;
    const reason = typeof part.reason === "string" ? part.reason : null;
    lastReason = reason;
    const cost = typeof part.cost === "number" && Number.isFinite(part.cost) ? part.cost : 0;
    events.emit({
      type: "model_response",
      turn: emitted,
      stop_reason: mapStopReason(reason, current.tools.length > 0),
      usage: readUsage(part.tokens),
      text: current.texts.join("\n"),
      tool_uses: current.tools.map((tool) => ({ id: tool.id, name: tool.name, input: tool.input })),
      duration_ms: Math.max(0, Math.round(now() - current.startedAt)),
      // OpenCode prices only the models its bundled list knows; 0 is "not priced", not free.
      ...(cost > 0 ? { cost_usd: cost } : {}),
    });
    for (const tool of current.tools) emitToolCall(tool, emitted, current.notBeforeMs);
  }

  /**
   * A finished call's tool_call and tool_result, stamped when OpenCode says the command started and
   * ended (it reports the call only once it has finished), so that the shim's records of it fall in
   * its window. The times are kept within the step (after the previous step's end, not in the future).
   */
  function emitToolCall(tool: ToolPart, turn: number, notBeforeMs: number): void {
    if (tool.name !== "bash") return;
    const input = tool.input as { command?: unknown } | null;
    if (tool.status !== "completed") {
      // Refused or malformed: the command never ran, so it is no tool call of the shell.
      events.emit({
        type: "agent_output",
        text: `OpenCode's bash call failed: ${tool.error ?? tool.status}`,
      });
      return;
    }
    const command = input && typeof input.command === "string" ? input.command : JSON.stringify(tool.input);
    const startedAt = Math.max(notBeforeMs, tool.startedAtMs ?? Number.POSITIVE_INFINITY);
    const endedAt = Math.max(startedAt, tool.endedAtMs ?? Number.POSITIVE_INFINITY);
    events.emit({ type: "tool_call", call_id: tool.id, turn, command }, startedAt);
    events.emit(
      {
        type: "tool_result",
        call_id: tool.id,
        // OpenCode runs the command with stdout and stderr on one pipe.
        stdout: tool.output,
        stderr: "",
        exit_code: tool.exit ?? (tool.timedOut ? 124 : 1),
        duration_ms: tool.durationMs,
        truncated: tool.truncated,
        timed_out: tool.timedOut,
      },
      endedAt,
    );
  }

  function handlePart(type: unknown, part: Record<string, unknown>): void {
    // Past the limit OpenCode is being ended: what it still streams before the kill lands (sooner or
    // later, as the machine is loaded) is no turn of the trial.
    if (turnLimit) return;
    switch (type) {
      case "step_start":
        if (step) finishStep({});
        started += 1;
        if (started > limits.maxTurns) {
          turnLimit = true;
          limits.onTurnLimit();
          break;
        }
        openStep();
        break;
      case "text":
      case "reasoning":
        if (type === "text" && typeof part.text === "string" && part.text.length > 0) {
          openStep().texts.push(part.text);
        }
        break;
      case "tool_use":
        openStep().tools.push(readToolPart(part));
        break;
      case "step_finish":
        finishStep(part);
        break;
      default:
        break;
    }
  }

  return {
    push(raw) {
      const read = readJsonLine(raw, (event) => events.emit(event));
      if (!read) return;
      const { line, text } = read;
      if (line.type === "error") {
        const error = readError(line.error);
        errors.push(error);
        events.emit({ type: "agent_output", text: `OpenCode error ${error.name}: ${error.message}` });
        return;
      }
      if (["step_start", "text", "reasoning", "tool_use", "step_finish"].includes(String(line.type))) {
        handlePart(line.type, asRecord(line.part));
        return;
      }
      // Kept as-is: lines a later version adds are still in the transcript.
      events.emit({ type: "agent_output", text });
    },
    turns: () => emitted + (step ? 1 : 0),
    finish(exec, signal) {
      // A step cut short (killed at the limit, a crash) is a response only if the model's answer
      // had arrived (its text or calls); a request still in flight is none.
      const open = step as Step | null;
      if (open && (open.texts.length > 0 || open.tools.length > 0)) finishStep({ reason: null });
      step = null;
      const outcome = outcomeAfter(emitted);
      // Ended past the turn limit: its kill is no timeout (the trial's abort still comes first).
      if (turnLimit && !signal.aborted) return outcome("turn_limit");
      const cut = cutShort(exec, signal);
      if (cut) return outcome(cut);
      const stderr = stderrPart(exec.stderr);
      const apiError = errors.find((error) => error.status !== null);
      if (apiError) {
        return outcome("infra_error", `the model API answered ${apiError.status}: ${apiError.message}`);
      }
      if (errors.length > 0) {
        const messages = errors.map((error) => `${error.name}: ${error.message}`).join("; ");
        return outcome("agent_crash", `opencode reported ${messages} (exit code ${exec.exit_code})${stderr}`);
      }
      if (exec.exit_code !== 0) {
        return outcome("agent_crash", `opencode exited with code ${exec.exit_code}${stderr}`);
      }
      if (emitted === 0) return outcome("agent_crash", `opencode ran no step${stderr}`);
      if (lastReason === "tool-calls") {
        return outcome("agent_crash", `opencode stopped after a step that called tools${stderr}`);
      }
      return outcome("natural_stop");
    },
  };
}

function readToolPart(part: Record<string, unknown>): ToolPart {
  const state = asRecord(part.state);
  const metadata = asRecord(state.metadata);
  const time = asRecord(state.time);
  const start = typeof time.start === "number" ? time.start : null;
  const end = typeof time.end === "number" ? time.end : null;
  // metadata.output is the command's output as it ran; state.output is what the model read
  // (cut to OpenCode's limits, with its notes, such as a timeout's).
  const shown = typeof state.output === "string" ? state.output : "";
  return {
    id: typeof part.callID === "string" ? part.callID : String(part.id ?? ""),
    name: typeof part.tool === "string" ? part.tool : "?",
    input: state.input ?? null,
    status: typeof state.status === "string" ? state.status : "unknown",
    output: typeof metadata.output === "string" ? metadata.output : shown,
    timedOut: metadata.exit === null && shown.includes("terminated command after exceeding timeout"),
    exit: typeof metadata.exit === "number" ? metadata.exit : null,
    truncated: metadata.truncated === true,
    error: typeof state.error === "string" ? state.error : null,
    durationMs: start !== null && end !== null ? Math.max(0, end - start) : 0,
    startedAtMs: start,
    endedAtMs: end,
  };
}

function readError(value: unknown): { name: string; message: string; status: number | null } {
  const error = asRecord(value);
  const data = asRecord(error.data);
  const status = typeof data.statusCode === "number" ? data.statusCode : null;
  const message = typeof data.message === "string" ? data.message : JSON.stringify(value).slice(0, 500);
  return { name: typeof error.name === "string" ? error.name : "Error", message, status };
}

/** OpenCode's finish reasons (the AI SDK's) in the Messages API's words where there is one. */
function mapStopReason(reason: string | null, calledTools: boolean): string | null {
  switch (reason) {
    case "tool-calls":
      return "tool_use";
    case "stop":
      return "end_turn";
    case "length":
      return "max_tokens";
    case null:
      return calledTools ? "tool_use" : null;
    default:
      return reason;
  }
}

function readUsage(value: unknown): TokenUsage {
  const tokens = asRecord(value);
  const cache = asRecord(tokens.cache);
  const count = (raw: unknown) => (typeof raw === "number" && Number.isFinite(raw) ? raw : 0);
  return {
    input_tokens: count(tokens.input),
    // Reasoning tokens are billed as output.
    output_tokens: count(tokens.output) + count(tokens.reasoning),
    cache_read_tokens: count(cache.read),
    cache_write_tokens: count(cache.write),
  };
}
