/**
 * OpenAI's Codex CLI (`codex` of the @openai/codex package) as the agent under test.
 *
 * It runs non-interactively in the trial's work dir (`codex exec --json`, the task on stdin), with
 * the harness's system prompt as its developer instructions, the work dir's AGENTS.md read by
 * Codex itself, its home (CODEX_HOME: state databases, no user config) in the sandbox's TMPDIR,
 * analytics, feedback, update checks, web search and the tools that reach beyond the machine off.
 * Its own sandbox and approvals are bypassed (the trial's sandbox is the boundary, as for
 * claude-code): inside bwrap, Codex 0.171's `--sandbox workspace-write` cannot build its own
 * bubblewrap jail (every command fails with "error building bubblewrap command: Read-only file
 * system"), and those failures do not even appear as command_execution items in its stream.
 * Commands run through a plain `bash -c` (allow_login_shell=false), since a login shell's profile
 * would reset PATH and hide the target shim. The real API key never enters its environment, which
 * its commands inherit: it talks to a loopback credential proxy with a placeholder key.
 *
 * Codex has no turn limit of its own, so the proxy enforces the scenario's: it counts the model's
 * answers (2xx on the Responses API) and refuses the request past max_turns.
 *
 * Its JSONL stream becomes the trial's events: one `model_response` per answer of the API (the
 * proxy's count tells which answer an item belongs to), `tool_call`/`tool_result` per
 * command_execution item with its exit code, `model_error` per API error it reports. Codex prints
 * tokens only as the run's total, and none when the run fails, so each answer's usage is read by
 * the proxy from the answer's own `response.completed` event as it relays it. Codex reports no
 * cost, so the cost is priced from the tokens (unknown for a model not in the table). The target
 * shim still records every real invocation of the tool.
 */
import { realpathSync } from "node:fs";
import path from "node:path";
import { ConfigError } from "../errors.js";
import { providerOfModel } from "../model/provider.js";
import type { ExecResult } from "../sandbox/types.js";
import type { EventInput, EventSink, TokenUsage } from "../transcript/events.js";
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

/** What the action installs when no `codex` is found: the version the tests run against. */
export const CODEX_PACKAGE = "@openai/codex";
export const CODEX_VERSION = "0.171.0";
export const CODEX_BINARY_NAME = "codex";
export const CODEX_BIN_ENV = "LLM_TOOL_TEST_CODEX_BIN";
const DEFAULT_OPENAI_BASE_URL = "https://api.openai.com/v1";
const DEFAULT_CODEX_MAX_RETRIES = 4;
/** Its provider entry: the proxy at the root, so `/responses` goes to the upstream's `/v1/responses`. */
const PROVIDER_ID = "llm_tool_test";
const RESPONSES_ENDPOINT = "POST /responses";
/**
 * Features off: tools that reach beyond the machine or the task (apps, plugins, sub-agents, goals,
 * image generation, browser and computer use), a shell snapshot (a login shell's profile), the
 * model list fetched with the key, a background daemon, and request compression (the proxy and a
 * recording server see plain JSON).
 */
const DISABLED_FEATURES: readonly string[] = [
  "multi_agent",
  "goals",
  "apps",
  "plugins",
  "remote_plugin",
  "image_generation",
  "browser_use",
  "computer_use",
  "tool_suggest",
  "skill_search",
  "sleep_tool",
  "shell_snapshot",
  "api_key_model_discovery",
  "daemon_auto_start",
  "enable_request_compression",
];

/**
 * The key is OpenAI's; the base URL the Responses API's (ending in /v1, as the OpenAI SDK's),
 * default https://api.openai.com/v1; the binary's search is resolveCodexBinary's.
 */
export interface CodexAgentOptions extends AgentCliOptions {
  /** Codex's retries of a failed request and of a dropped stream; default 4. */
  maxRetries?: number;
}

export function createCodexAgent(options: CodexAgentOptions): Agent {
  const { env, binary, now } = resolveAgentCliOptions(
    options,
    resolveCodexBinary,
    () =>
      new ConfigError(
        "the codex agent needs an OpenAI API key: set OPENAI_API_KEY (it reaches Codex only through a local proxy)",
        "--agent",
      ),
  );

  async function run(context: AgentContext): Promise<AgentOutcome> {
    const shadowing = findShadowingHelper(binary, context.scenario.target.binary);
    if (shadowing) {
      return {
        reason: "infra_error",
        error: `Codex puts its own helpers first on PATH for its commands, and ${shadowing} is one: the target shim would not see the model's calls of ${path.basename(shadowing)}; run this scenario with another agent`,
        turns: 0,
        fatal: true,
      };
    }
    const prepared = await prepareAgentCli(
      context,
      { script: PREPARE_SCRIPT, what: "a home for Codex" },
      (stdout) => stdout.trim() !== "",
    );
    if ("outcome" in prepared) return prepared.outcome;
    const codexHome = prepared.stdout.trim();

    // The model's answers so far: the proxy counts them as they arrive, before Codex prints them.
    let answers = 0;
    const maxTurns = context.maxTurns;
    const mapper = createCodexStreamMapper(context.events, now, () => answers);
    return runAgentCliBehindProxy(context, prepared.runProcess, {
      proxy: {
        apiKey: options.apiKey,
        upstream: options.baseURL || DEFAULT_OPENAI_BASE_URL,
        proxyEnv: env,
        api: "openai",
        // Codex asks for zstd or gzip; the answers' usage is read from the plain stream.
        uncompressed: true,
        admit: (endpoint) =>
          endpoint === RESPONSES_ENDPOINT && answers >= maxTurns
            ? `the trial's limit of ${maxTurns} model turns is reached (the llm-tool-test proxy refuses further requests)`
            : null,
        onUpstreamResponse: ({ endpoint, status, encoding }) => {
          if (endpoint !== RESPONSES_ENDPOINT || status < 200 || status >= 300) return undefined;
          answers += 1;
          const answer = answers;
          mapper.answerArrived(answer, Date.now());
          // Each answer's usage, from its own stream (Codex prints only the run's total).
          return encoding === "identity"
            ? createAnswerReader({
                item: (item) => mapper.answerItem(answer, item),
                usage: (usage) => mapper.answerUsage(answer, usage),
              })
            : undefined;
        },
      },
      maxApiRequests: options.maxApiRequests,
      mapper,
      launch: (proxy) => ({
        file: binary,
        args: buildCodexArgs(context, {
          proxyUrl: proxy.url,
          maxRetries: options.maxRetries ?? DEFAULT_CODEX_MAX_RETRIES,
        }),
        extraEnv: buildCodexEnv(codexHome),
      }),
      finish: (result, refusals) =>
        mapper.finish(result, context.signal, {
          turnLimit: refusals.some((refusal) => refusal.reason === "agent_limit"),
        }),
    });
  }

  return { name: "codex", hostFiles: [{ path: binary, use: "execute" }], run };
}

/**
 * The helper of Codex's package (its `codex-path` folder beside `bin/`, which it puts first on
 * its commands' PATH: today only `rg`) that has the target's name, or null.
 */
export function findShadowingHelper(binary: string, target: string | undefined): string | null {
  if (!target) return null;
  const helper = path.join(path.dirname(path.dirname(binary)), "codex-path", path.basename(target));
  return isExecutableFile(helper) ? helper : null;
}

/** A fresh CODEX_HOME in the sandbox's TMPDIR (Codex refuses one that does not exist); prints its path. */
const PREPARE_SCRIPT = `set -e
home="\${TMPDIR:-/tmp}/codex-home"
command -p mkdir -p "$home"
printf '%s\\n' "$home"`;

/** A TOML basic string (JSON's escapes are TOML's, for the text a prompt holds). */
function tomlString(text: string): string {
  return JSON.stringify(text);
}

function buildCodexArgs(context: AgentContext, settings: { proxyUrl: string; maxRetries: number }): string[] {
  const retries = Math.max(0, Math.floor(settings.maxRetries));
  const provider = [
    `name=${tomlString("llm-tool-test proxy")}`,
    `base_url=${tomlString(settings.proxyUrl)}`,
    `env_key="OPENAI_API_KEY"`,
    `wire_api="responses"`,
    `request_max_retries=${retries}`,
    `stream_max_retries=${retries}`,
  ].join(",");
  const args = [
    "exec",
    "--json",
    "--skip-git-repo-check",
    "--ephemeral",
    "--ignore-user-config",
    "--ignore-rules",
    // Codex's own sandbox (its bundled bwrap, seccomp) cannot start inside the trial's bwrap
    // jail, and its failures would be hidden from the stream; the trial's sandbox is the
    // boundary, and nobody is there to approve.
    "--dangerously-bypass-approvals-and-sandbox",
    "--model",
    providerOfModel(context.model)?.model ?? context.model,
    "-c",
    `model_provider=${tomlString(PROVIDER_ID)}`,
    "-c",
    `model_providers.${PROVIDER_ID}={${provider}}`,
    "-c",
    "allow_login_shell=false",
    "-c",
    'web_search="disabled"',
    "-c",
    "analytics.enabled=false",
    "-c",
    "feedback.enabled=false",
    "-c",
    "check_for_update_on_startup=false",
    "-c",
    'history.persistence="none"',
  ];
  for (const feature of DISABLED_FEATURES) args.push("--disable", feature);
  if (context.systemPrompt.length > 0) {
    args.push("-c", `developer_instructions=${tomlString(context.systemPrompt)}`);
  }
  return args;
}

function buildCodexEnv(codexHome: string): Record<string, string> {
  return {
    OPENAI_API_KEY: PLACEHOLDER_API_KEY,
    CODEX_HOME: codexHome,
    NO_COLOR: "1",
  };
}

/**
 * The `codex` binary: `LLM_TOOL_TEST_CODEX_BIN`, else `codex` on PATH, else this package's
 * devDependency (@openai/codex in a node_modules above the module or the cwd). An npm install's
 * `codex` is a Node launcher: the native binary beside it is run instead, so the sandbox needs no
 * Node for it.
 */
export function resolveCodexBinary(
  env: Record<string, string | undefined>,
  searchFrom?: readonly string[],
): string {
  return resolveCliBinary(CODEX_CLI, env, searchFrom);
}

const CODEX_CLI: CliBinarySpec = {
  agent: "codex",
  label: "the Codex CLI",
  envVar: CODEX_BIN_ENV,
  command: CODEX_BINARY_NAME,
  packageName: CODEX_PACKAGE,
  findInNodeModules: (nodeModules) => nativeBinaryOf(path.join(nodeModules, ...CODEX_PACKAGE.split("/"))),
  fromPath(command) {
    const real = realpathSync(command);
    // node_modules/@openai/codex/bin/codex.js: its package's native binary, when installed.
    return nativeBinaryOf(path.dirname(path.dirname(real))) ?? real;
  },
};

/**
 * The native binary of the @openai/codex package at `packageDir`: in its platform package (a
 * sibling, or nested in the package's own node_modules), or in its own vendor folder.
 */
function nativeBinaryOf(packageDir: string): string | null {
  const platform = platformPackage();
  if (!platform) return null;
  const vendored = path.join("vendor", platform.triple, "bin", CODEX_BINARY_NAME);
  const candidates = [
    path.join(path.dirname(packageDir), platform.name, vendored),
    path.join(packageDir, "node_modules", "@openai", platform.name, vendored),
    path.join(packageDir, vendored),
  ];
  for (const candidate of candidates) {
    if (isExecutableFile(candidate)) return realpathSync(candidate);
  }
  return null;
}

/** The platform package the npm launcher would pick (Linux builds are musl, static). */
function platformPackage(): { name: string; triple: string } | null {
  const arch = process.arch === "x64" ? "x86_64" : process.arch === "arm64" ? "aarch64" : null;
  if (!arch) return null;
  if (process.platform === "linux") {
    return { name: `codex-linux-${process.arch}`, triple: `${arch}-unknown-linux-musl` };
  }
  if (process.platform === "darwin") {
    return { name: `codex-darwin-${process.arch}`, triple: `${arch}-apple-darwin` };
  }
  return null;
}

// ---- The stream ----

interface PendingResponse {
  /** Which answer of the API it is (the proxy's count when it opened). */
  answer: number;
  texts: string[];
  toolUses: { id: string; name: string; input: unknown }[];
  startedAt: number;
  /** Its commands have started: it goes out as soon as its usage is known. */
  complete: boolean;
}

export interface CodexStreamMapper {
  push(line: string): void;
  /** The usage of answer `answer` (1-based), as the proxy read it from the API's stream. */
  answerUsage(answer: number, usage: TokenUsage): void;
  /** A command (a function call's `cmd`) or a message of answer `answer`, as the proxy read it. */
  answerItem(answer: number, item: { command: string } | { text: string }): void;
  /** When answer `answer` began to arrive (epoch ms): none of its commands ran before. */
  answerArrived(answer: number, atMs: number): void;
  /** Model turns so far. */
  turns(): number;
  /** The outcome once the process has exited; `turnLimit`: the proxy refused a turn past max_turns. */
  finish(
    exec: Pick<ExecResult, "exit_code" | "stderr" | "timed_out">,
    signal: AbortSignal,
    ends: { turnLimit: boolean },
  ): AgentOutcome;
}

interface CodexStreamState {
  events: EventSink;
  now: () => number;
  answers: () => number;
  pending: PendingResponse | null;
  /**
   * The pending response's command events, held until it goes out (a response comes first), with
   * when they happened (epoch ms) for their stamps.
   */
  held: Array<{ event: EventInput; at: number | undefined }>;
  /**
   * When each answer began to arrive (epoch ms). Codex prints a command's item only once it has
   * run, so its tool_call is stamped at its answer's arrival: the command ran after it, and the
   * shim's records of it fall inside the call (a later stamp would put them in a neighbour's).
   */
  answerArrivals: Map<number, number>;
  /** Responses emitted so far, and the answer of the last one. */
  emitted: number;
  lastAnswer: number;
  /** Each answer's usage, as the proxy read it. */
  answerUsage: Map<number, TokenUsage>;
  /** Each answer's commands and messages as the proxy read them, not yet matched to Codex's items. */
  answerItems: Map<number, { commands: string[]; texts: string[] }>;
  /** command_execution items emitted without a result yet: item id → start time. */
  openCalls: Map<string, number>;
  /** The run's token total (turn.completed). */
  usage: TokenUsage | null;
  end: { kind: "completed" } | { kind: "failed"; message: string } | null;
}

const ZERO_USAGE: TokenUsage = {
  input_tokens: 0,
  output_tokens: 0,
  cache_read_tokens: 0,
  cache_write_tokens: 0,
};

/**
 * Turns Codex's `exec --json` lines into trial events as they arrive. `answers` is how many
 * answers the Responses API has begun to send (the proxy counts them before Codex can print
 * anything of them), which is how items are grouped into model turns; each answer's usage comes
 * from the proxy too (`answerUsage`), since Codex prints only the run's total. A response goes out
 * once its commands have started and its usage is known, or when the next answer begins or the
 * run ends; its command events wait for it.
 */
export function createCodexStreamMapper(
  events: EventSink,
  now: () => number,
  answers: () => number,
): CodexStreamMapper {
  const stream: CodexStreamState = {
    events,
    now,
    answers,
    pending: null,
    held: [],
    emitted: 0,
    lastAnswer: 0,
    answerUsage: new Map(),
    answerItems: new Map(),
    answerArrivals: new Map(),
    openCalls: new Map(),
    usage: null,
    end: null,
  };
  return {
    push(raw) {
      const read = readJsonLine(raw, (event) => emit(stream, event));
      if (read) handleLine(stream, read.line, read.text);
    },
    answerItem(answer, item) {
      const items = stream.answerItems.get(answer) ?? { commands: [], texts: [] };
      stream.answerItems.set(answer, items);
      if ("command" in item) items.commands.push(item.command);
      else items.texts.push(item.text);
    },
    answerArrived(answer, atMs) {
      stream.answerArrivals.set(answer, atMs);
    },
    answerUsage(answer, usage) {
      stream.answerUsage.set(answer, usage);
      if (stream.pending?.answer === answer && stream.pending.complete) flushResponse(stream);
    },
    turns: () => stream.emitted + (stream.pending ? 1 : 0),
    finish(exec, signal, ends) {
      flushResponse(stream);
      closeOpenCalls(stream);
      // Answers the stream showed nothing of (hidden reasoning only) are model turns all the same.
      emitUnseenAnswers(stream, stream.answers() + 1);
      // Without the answers' own usage (a compressed stream), the run's total goes on the last one.
      if (stream.answerUsage.size === 0 && stream.usage) {
        emit(stream, {
          type: "agent_output",
          text: `Codex reported only the run's token total: ${JSON.stringify(stream.usage)}`,
        });
      }
      return decideOutcome(stream, exec, signal, ends);
    },
  };
}

/** An event now, or after the pending response when that response is still to go out. */
function emit(stream: CodexStreamState, event: EventInput): void {
  if (stream.pending && stream.held.length > 0) stream.held.push({ event, at: undefined });
  else stream.events.emit(event);
}

function handleLine(stream: CodexStreamState, line: Record<string, unknown>, text: string): void {
  switch (line.type) {
    case "thread.started":
      emit(stream, {
        type: "agent_output",
        text: `Codex started: thread ${String(line.thread_id ?? "?")}`,
      });
      break;
    case "turn.started":
      break;
    case "item.started":
      handleItem(stream, asRecord(line.item), false);
      break;
    case "item.completed":
      handleItem(stream, asRecord(line.item), true);
      break;
    case "item.updated":
      break; // progress of an item whose completion follows
    case "turn.completed":
      stream.usage = readUsage(asRecord(line.usage));
      stream.end = { kind: "completed" };
      break;
    case "turn.failed": {
      const error = asRecord(line.error);
      stream.end = {
        kind: "failed",
        message: typeof error.message === "string" ? error.message : "turn failed",
      };
      break;
    }
    case "error": {
      const message = typeof line.message === "string" ? line.message : "API error";
      emit(stream, {
        type: "model_error",
        turn: stream.emitted + 1,
        attempt: 1,
        status: readStatus(message),
        message,
        // Codex announces its stream retries as "Reconnecting... n/m".
        will_retry: /^Reconnecting/i.test(message),
        retry_after_ms: null,
      });
      break;
    }
    default:
      // Kept as-is: lines this version adds are still in the transcript.
      emit(stream, { type: "agent_output", text });
  }
}

function handleItem(stream: CodexStreamState, item: Record<string, unknown>, completed: boolean): void {
  const id = typeof item.id === "string" ? item.id : `item-${stream.openCalls.size}`;
  switch (item.type) {
    case "agent_message":
      if (completed && typeof item.text === "string" && item.text.length > 0) {
        responseFor(stream, answerOf(stream, "texts", item.text))?.texts.push(item.text);
      }
      break;
    case "reasoning":
      if (completed) responseFor(stream, Math.max(stream.answers(), 1));
      break;
    case "command_execution":
      if (!stream.openCalls.has(id)) startCommand(stream, id, item);
      if (completed) finishCommand(stream, id, item);
      break;
    case "file_change":
      // An `apply_patch` the model ran through its shell tool, which Codex applies itself.
      if (completed) recordFileChange(stream, id, item);
      break;
    case "error":
      // Codex's own warnings (an unknown model's metadata, a config notice), not the model's.
      if (completed) emit(stream, { type: "agent_output", text: `Codex: ${String(item.message ?? "")}` });
      break;
    default:
      // File changes, MCP calls, to-do lists: in the transcript, not shell calls.
      if (completed) {
        responseFor(stream, Math.max(stream.answers(), 1));
        emit(stream, {
          type: "agent_output",
          text: `Codex ${String(item.type)}: ${JSON.stringify(item)}`,
        });
      }
  }
}

/**
 * Which answer an item of Codex's stream belongs to: the first answer from the latest one opened
 * whose same command or message the proxy read and no item has matched yet. Codex may print an
 * item after the next request has gone out, so the proxy's count alone can be ahead; without a
 * match (a compressed stream), it is all there is.
 */
function answerOf(
  stream: CodexStreamState,
  kind: "commands" | "texts",
  content: string | ((read: string) => boolean),
): number {
  const current = Math.max(stream.answers(), 1);
  const matches = typeof content === "string" ? (read: string) => read === content : content;
  for (let answer = Math.max(stream.lastAnswer, 1); answer <= current; answer += 1) {
    const unmatched = stream.answerItems.get(answer)?.[kind];
    const at = unmatched?.findIndex(matches) ?? -1;
    if (unmatched && at !== -1) {
      unmatched.splice(at, 1);
      return answer;
    }
  }
  return current;
}

/**
 * The response an item belongs to: the pending one while the answer count is the same, else a new
 * one (the pending one is emitted first). Null when the item belongs to a response already emitted.
 */
function responseFor(stream: CodexStreamState, answer: number): PendingResponse | null {
  if (stream.pending && stream.pending.answer === answer) return stream.pending;
  if (!stream.pending && answer <= stream.lastAnswer) return null;
  flushResponse(stream);
  emitUnseenAnswers(stream, answer);
  stream.pending = { answer, texts: [], toolUses: [], startedAt: stream.now(), complete: false };
  stream.lastAnswer = answer;
  return stream.pending;
}

/** Answers before `before` that no item showed (hidden reasoning, a refused call): turns all the same. */
function emitUnseenAnswers(stream: CodexStreamState, before: number): void {
  while (stream.lastAnswer + 1 < before) {
    stream.lastAnswer += 1;
    emitResponse(stream, {
      answer: stream.lastAnswer,
      texts: [],
      toolUses: [],
      startedAt: stream.now(),
      complete: true,
    });
  }
}

/** A command starts: its response is complete (it goes out once its usage is known), then its tool_call. */
function startCommand(stream: CodexStreamState, id: string, item: Record<string, unknown>): void {
  const command = unwrapShellCommand(typeof item.command === "string" ? item.command : "");
  startToolCall(stream, answerOf(stream, "commands", command), { id, name: "exec_command", command });
}

/** A tool call of `answer`, held with its response when that response is still to go out. */
function startToolCall(
  stream: CodexStreamState,
  answer: number,
  use: { id: string; name: string; command: string; tool?: string },
): void {
  const response = responseFor(stream, answer);
  stream.openCalls.set(use.id, stream.now());
  const call: EventInput = {
    type: "tool_call",
    call_id: use.id,
    turn: Math.max(stream.emitted, 1),
    command: use.command,
    ...(use.tool ? { tool: use.tool } : {}),
  };
  const at = stream.answerArrivals.get(answer);
  if (!response) {
    stream.events.emit(call, at);
    return;
  }
  response.toolUses.push({ id: use.id, name: use.name, input: { command: use.command } });
  response.complete = true;
  stream.held.push({ event: { ...call, turn: stream.emitted + 1 }, at });
  if (stream.answerUsage.has(response.answer)) flushResponse(stream);
}

/**
 * A file change: the model's `apply_patch` (through exec_command, which Codex intercepts) is a tool
 * call of its own kind, with its result: the model made the call, though no shell ran it.
 */
function recordFileChange(stream: CodexStreamState, id: string, item: Record<string, unknown>): void {
  const changes = (Array.isArray(item.changes) ? item.changes : []).map((change) => asRecord(change));
  const described = changes.map(
    (change) => `${String(change.kind ?? "change")} ${String(change.path ?? "?")}`,
  );
  const answer = answerOf(stream, "commands", (read) => /^\s*apply_patch\b/.test(read));
  startToolCall(stream, answer, {
    id,
    name: "apply_patch",
    command: `apply_patch: ${described.join(", ") || "no files"}`,
    tool: "apply_patch",
  });
  const status = typeof item.status === "string" ? item.status : "";
  closeToolCall(stream, id, {
    exitCode: status === "completed" ? 0 : 1,
    stdout: "",
    stderr: status === "completed" ? "" : `Codex reports the patch as ${status || "not applied"}`,
  });
}

function finishCommand(stream: CodexStreamState, id: string, item: Record<string, unknown>): void {
  const exitCode = typeof item.exit_code === "number" ? item.exit_code : null;
  const status = typeof item.status === "string" ? item.status : "";
  closeToolCall(stream, id, {
    // Codex reports stdout and stderr interleaved, as one output.
    stdout: typeof item.aggregated_output === "string" ? item.aggregated_output : "",
    stderr: exitCode === null && status ? `Codex reports the command as ${status}, without an exit code` : "",
    // Declined or not started: no exit code; a failure all the same.
    exitCode: exitCode ?? 1,
  });
}

function closeToolCall(
  stream: CodexStreamState,
  id: string,
  result: { exitCode: number; stdout: string; stderr: string; background?: boolean },
): void {
  const startedAt = stream.openCalls.get(id) ?? stream.now();
  stream.openCalls.delete(id);
  emit(stream, {
    type: "tool_result",
    call_id: id,
    stdout: result.stdout,
    stderr: result.stderr,
    exit_code: result.exitCode,
    duration_ms: Math.max(0, Math.round(stream.now() - startedAt)),
    truncated: false,
    timed_out: false,
    ...(result.background ? { background: true } : {}),
  });
}

/**
 * Commands still running when the run ended (Codex answered the model before they finished, its
 * `yield_time_ms`, and never reported their end): closed as background runs, exit code unknown.
 */
function closeOpenCalls(stream: CodexStreamState): void {
  for (const id of [...stream.openCalls.keys()]) {
    closeToolCall(stream, id, {
      exitCode: 1,
      stdout: "",
      stderr: "Codex reported no end of this command before the run ended (it went on after Codex answered)",
      background: true,
    });
  }
}

/** The pending response, then the command events it held. */
function flushResponse(stream: CodexStreamState): void {
  const response = stream.pending;
  if (!response) return;
  stream.pending = null;
  emitResponse(stream, response);
  const held = stream.held.splice(0);
  for (const { event, at } of held) stream.events.emit(event, at);
}

/**
 * A model_response with its answer's usage, as the proxy read it; failing that (a compressed
 * stream), the last response of a finished run carries the run's total.
 */
function emitResponse(stream: CodexStreamState, response: PendingResponse): void {
  stream.emitted += 1;
  const last = stream.end !== null && response.answer >= stream.answers();
  const usage =
    stream.answerUsage.get(response.answer) ??
    (stream.answerUsage.size === 0 && last && stream.usage ? stream.usage : ZERO_USAGE);
  stream.events.emit({
    type: "model_response",
    turn: stream.emitted,
    // A text-only answer ends Codex's turn; an answer it showed nothing of (hidden reasoning, a
    // refused call) is unknown.
    stop_reason: response.toolUses.length > 0 ? "tool_use" : response.texts.length > 0 ? "end_turn" : null,
    usage,
    text: response.texts.join("\n"),
    tool_uses: response.toolUses,
    duration_ms: Math.max(0, Math.round(stream.now() - response.startedAt)),
  });
}

/** How the run ended, from the abort signal, the process, the proxy's refusals and the stream. */
function decideOutcome(
  stream: CodexStreamState,
  exec: Pick<ExecResult, "exit_code" | "stderr" | "timed_out">,
  signal: AbortSignal,
  ends: { turnLimit: boolean },
): AgentOutcome {
  const outcome = outcomeAfter(stream.emitted);
  const cut = cutShort(exec, signal);
  if (cut) return outcome(cut);
  if (ends.turnLimit) return outcome("turn_limit");
  const end = stream.end;
  if (end?.kind === "completed" && exec.exit_code === 0) return outcome("natural_stop");
  if (end?.kind === "failed") return outcome("infra_error", `Codex's turn failed: ${end.message}`);
  return outcome(
    "agent_crash",
    `codex exited with code ${exec.exit_code}${end ? "" : " without turn.completed"}${stderrPart(exec.stderr)}`,
  );
}

/** What the proxy reads of one answer as it relays it. */
export interface AnswerObserver {
  /** A function call's command (`cmd`, or `command` joined) or an assistant message's text. */
  item(item: { command: string } | { text: string }): void;
  /** The answer's own usage, from `response.completed`. */
  usage(usage: TokenUsage): void;
}

/**
 * Reads a Responses API event stream as it is relayed: each output item as it is done (commands
 * and messages, to place Codex's items) and the usage of `response.completed`.
 */
export function createAnswerReader(observer: AnswerObserver): (chunk: Buffer) => void {
  const decoder = new TextDecoder();
  let buffer = "";
  return (chunk) => {
    buffer += decoder.decode(chunk, { stream: true });
    const blocks = buffer.split(/\r?\n\r?\n/);
    buffer = blocks.pop() ?? "";
    for (const block of blocks) {
      const data = block
        .split(/\r?\n/)
        .filter((line) => line.startsWith("data:"))
        .map((line) => line.slice(5).trimStart())
        .join("\n");
      if (!data.includes('"response.output_item.done"') && !data.includes('"response.completed"')) continue;
      let event: Record<string, unknown>;
      try {
        event = asRecord(JSON.parse(data));
      } catch {
        continue;
      }
      if (event.type === "response.output_item.done") readOutputItem(asRecord(event.item), observer);
      if (event.type !== "response.completed") continue;
      const usage = asRecord(asRecord(event.response).usage);
      const details = asRecord(usage.input_tokens_details);
      observer.usage(
        readUsage({
          input_tokens: usage.input_tokens,
          cached_input_tokens: details.cached_tokens,
          output_tokens: usage.output_tokens,
        }),
      );
    }
  };
}

function readOutputItem(item: Record<string, unknown>, observer: AnswerObserver): void {
  if (item.type === "message" && item.role === "assistant" && Array.isArray(item.content)) {
    const text = item.content
      .map((part) => asRecord(part))
      .filter((part) => part.type === "output_text" && typeof part.text === "string")
      .map((part) => part.text as string)
      .join("");
    if (text) observer.item({ text });
  } else if (item.type === "function_call" && typeof item.arguments === "string") {
    let args: Record<string, unknown>;
    try {
      args = asRecord(JSON.parse(item.arguments));
    } catch {
      return;
    }
    const command =
      typeof args.cmd === "string"
        ? args.cmd
        : typeof args.command === "string"
          ? args.command
          : Array.isArray(args.command)
            ? args.command.map(String).join(" ")
            : null;
    if (command !== null) observer.item({ command });
  }
}

/** Codex's totals: input includes the cached and cache-written tokens, as OpenAI counts them. */
function readUsage(raw: Record<string, unknown>): TokenUsage {
  const pick = (name: string) => {
    const value = raw[name];
    return typeof value === "number" && Number.isFinite(value) && value > 0 ? value : 0;
  };
  const cached = pick("cached_input_tokens");
  const written = pick("cache_write_input_tokens");
  return {
    input_tokens: Math.max(0, pick("input_tokens") - cached - written),
    output_tokens: pick("output_tokens"),
    cache_read_tokens: cached,
    cache_write_tokens: written,
  };
}

/** An HTTP status in Codex's error text ("unexpected status 429 Too Many Requests: ..."). */
function readStatus(message: string): number | null {
  const match = /\bstatus(?: code)?:? (\d{3})\b/i.exec(message);
  return match ? Number(match[1]) : null;
}

/**
 * The model's own command from Codex's display of it, `/bin/bash -c '<command>'` (shell-quoted):
 * what the model asked to run, as the other agents record it. Anything else is kept as shown.
 */
export function unwrapShellCommand(shown: string): string {
  const words = splitShellWords(shown);
  if (words?.length !== 3) return shown;
  const [shell, flag, command] = words as [string, string, string];
  if (!/^(?:ba|z|da)?sh$/.test(path.basename(shell)) || (flag !== "-c" && flag !== "-lc")) return shown;
  return command;
}

/** POSIX shell words (quotes and backslashes, no expansions); null when a quote is left open. */
export function splitShellWords(text: string): string[] | null {
  const words: string[] = [];
  let word: string | null = null;
  let index = 0;
  while (index < text.length) {
    const char = text[index] as string;
    if (char === " " || char === "\t" || char === "\n") {
      if (word !== null) words.push(word);
      word = null;
      index += 1;
    } else if (char === "'") {
      const close = text.indexOf("'", index + 1);
      if (close === -1) return null;
      word = (word ?? "") + text.slice(index + 1, close);
      index = close + 1;
    } else if (char === '"') {
      let value = "";
      index += 1;
      for (;;) {
        if (index >= text.length) return null;
        const inner = text[index] as string;
        if (inner === '"') break;
        if (inner === "\\" && index + 1 < text.length && '$`"\\\n'.includes(text[index + 1] as string)) {
          if (text[index + 1] !== "\n") value += text[index + 1];
          index += 2;
        } else {
          value += inner;
          index += 1;
        }
      }
      word = (word ?? "") + value;
      index += 1;
    } else if (char === "\\") {
      if (index + 1 >= text.length) return null;
      if (text[index + 1] !== "\n") word = (word ?? "") + text[index + 1];
      index += 2;
    } else {
      word = (word ?? "") + char;
      index += 1;
    }
  }
  if (word !== null) words.push(word);
  return words;
}
