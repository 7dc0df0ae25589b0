/**
 * One trial of an agent CLI (Claude Code, Codex, Gemini CLI, OpenCode), the part every one of them
 * shares: a script prepares the CLI's state in the sandbox, a credential proxy holds the real API
 * key, the CLI runs with its stdout streamed into the agent's event mapper, and every failure on the
 * way is an outcome of the trial, never a throw. Each agent module keeps only what is its own: the
 * script, the proxy's API profile and hooks, the mapper, the CLI's arguments and environment.
 */
import { describeError } from "../errors.js";
import type { ExecResult } from "../sandbox/types.js";
import type { EndReason, EventInput } from "../transcript/events.js";
import { classifyAbort } from "./abort-reason.js";
import {
  type CredentialProxy,
  type CredentialProxyOptions,
  type ProxyRefusal,
  startCredentialProxy,
} from "./credential-proxy.js";
import { emitOutputCut } from "./output-cut.js";
import type { AgentContext, AgentOutcome, AgentProcessOptions } from "./types.js";

type RunProcess = NonNullable<AgentContext["runProcess"]>;

/** How much of a CLI's stderr an error quotes. */
const STDERR_CHARS = 800;
/** A CLI's stdout streamed before its middle is cut (head and tail kept): a long session runs to megabytes. */
const STREAM_CAP_BYTES = 32 * 1024 * 1024;

/** The options every agent CLI takes; each adds its own (tools, retries). */
export interface AgentCliOptions {
  /** The real API key; it reaches only the proxy, never the agent's environment. */
  apiKey: string;
  /** The real API's base URL; default the CLI's provider's. */
  baseURL?: string;
  /** Path of the CLI's program; default: resolved by the CLI's binary search (cli-binary.ts). */
  binary?: string;
  /**
   * For resolving the program (its LLM_TOOL_TEST_..._BIN, PATH) and the proxy's upstream proxy
   * (HTTPS_PROXY...); default process.env. Never passed to the CLI: it gets the agent's own.
   */
  env?: Record<string, string | undefined>;
  /** Milliseconds, for turn and tool durations. */
  now?: () => number;
  /** API requests the credential proxy forwards per trial at most; default DEFAULT_MAX_PROXY_REQUESTS. */
  maxApiRequests?: number;
}

/**
 * The options' defaults, one way for every CLI: `missingKey` is thrown without a key, the program
 * is found by `resolveBinary` unless given, the clock is the performance clock.
 */
export function resolveAgentCliOptions(
  options: AgentCliOptions,
  resolveBinary: (env: Record<string, string | undefined>) => string,
  missingKey: () => Error,
): { env: Record<string, string | undefined>; binary: string; now: () => number } {
  if (!options.apiKey) throw missingKey();
  const env = options.env ?? process.env;
  return {
    env,
    binary: options.binary ?? resolveBinary(env),
    now: options.now ?? (() => performance.now()),
  };
}

export interface AgentPreparation {
  /** A bash script run in the work dir; what it prints is the state it made. */
  script: string;
  stdin?: string;
  /** What it prepares, for the error: "a home for Codex". */
  what: string;
  /** Which end of a failed script's stderr says why: its head (default), or its tail. */
  stderrEnd?: "head" | "tail";
}

export type PreparedAgent = { runProcess: RunProcess; stdout: string } | { outcome: AgentOutcome };

/**
 * Runs the preparation script, unless the harness cannot run agent CLIs or the trial is already
 * over. `made` says whether its output names what the CLI needs (a failed or silent script is an
 * infra error naming `what`).
 */
export async function prepareAgentCli(
  context: AgentContext,
  preparation: AgentPreparation,
  made: (stdout: string) => boolean,
): Promise<PreparedAgent> {
  const runProcess = context.runProcess;
  if (!runProcess) {
    return {
      outcome: { reason: "infra_error", error: "the harness cannot run external agents here", turns: 0 },
    };
  }
  if (context.signal.aborted) return { outcome: { reason: classifyAbort(context.signal), turns: 0 } };
  const cleared = await removeUndeclaredAgentConfig(context, runProcess);
  if (cleared !== null) return { outcome: cleared };
  const prepared = await runProcess(
    "bash",
    ["-c", preparation.script],
    preparation.stdin === undefined ? undefined : { stdin: preparation.stdin },
  );
  if (context.signal.aborted) return { outcome: { reason: classifyAbort(context.signal), turns: 0 } };
  if (prepared.exit_code !== 0 || !made(prepared.stdout)) {
    const quote = preparation.stderrEnd === "tail" ? stderrTail : stderrHead;
    const why = quote(prepared.stderr) || `exit code ${prepared.exit_code}`;
    return {
      outcome: { reason: "infra_error", error: `could not prepare ${preparation.what}: ${why}`, turns: 0 },
    };
  }
  return { runProcess, stdout: prepared.stdout };
}

/**
 * Where agent CLIs read a project's own configuration in their work dir (settings, tools, MCP
 * servers, turn limits), over the harness's settings.
 */
const AGENT_CONFIG_PATHS = [
  ".gemini",
  ".codex",
  ".claude",
  ".opencode",
  "opencode.json",
  "opencode.jsonc",
  ".mcp.json",
] as const;

/** Removes each path given ($@) that exists in the work dir, and prints the ones it removed. */
const REMOVE_CONFIG_SCRIPT = `for entry in "$@"; do
  if [ -e "$entry" ] || [ -L "$entry" ]; then command -p rm -rf -- "$entry" && printf '%s\\n' "$entry"; fi
done`;

/**
 * An agent CLI's configuration in the work dir is part of the measurement only when the scenario
 * declares it (one of its inline `files`, or in one of its folders): any other (copied with a
 * fixture, made by setup, left by the tool) is removed before the CLI starts, never silently
 * applied, and the events say so. Null when done; an outcome when it could not be done.
 */
async function removeUndeclaredAgentConfig(
  context: AgentContext,
  runProcess: RunProcess,
): Promise<AgentOutcome | null> {
  const declared = Object.keys(context.scenario.files).map((file) => file.replace(/^\.\//, ""));
  const undeclared = AGENT_CONFIG_PATHS.filter(
    (entry) => !declared.some((file) => file === entry || file.startsWith(`${entry}/`)),
  );
  if (undeclared.length === 0) return null;
  const removal = await runProcess("bash", [
    "-c",
    REMOVE_CONFIG_SCRIPT,
    "remove-agent-config",
    ...undeclared,
  ]);
  if (removal.exit_code !== 0) {
    return {
      reason: "infra_error",
      error: `could not remove the work dir's agent configuration that the scenario does not declare: ${stderrHead(removal.stderr) || `exit code ${removal.exit_code}`}`,
      turns: 0,
    };
  }
  const removed = removal.stdout.split("\n").filter((line) => line !== "");
  if (removed.length > 0) {
    context.events.emit({
      type: "agent_output",
      text: `removed the work dir's agent configuration that the scenario does not declare (${removed.join(", ")}): an agent CLI would apply it over the harness's settings; declare it in the scenario's files to measure with it`,
    });
  }
  return null;
}

/** How the CLI is started once its proxy listens. */
interface AgentLaunch {
  file: string;
  args: string[];
  extraEnv: Record<string, string>;
  programs?: string[];
  stop?: AbortSignal;
}

export interface AgentCliRun {
  /** The real API key, its upstream and API profile, and any hooks of the agent's own. */
  proxy: Omit<CredentialProxyOptions, "onRefusal" | "maxRequests">;
  maxApiRequests: number | undefined;
  /** The agent's stream mapper: fed every stdout line, asked how many turns were taken. */
  mapper: { push(line: string): void; turns(): number };
  launch(proxy: CredentialProxy): AgentLaunch;
  /** The outcome from the mapper once the CLI exited (refused requests at hand); the cap's note is added. */
  finish(result: ExecResult, refusals: readonly ProxyRefusal[]): AgentOutcome;
  /** The binary named when the CLI could not be run (default the launched file). */
  binary?: string;
  /** Before the outcome of a CLI that could not be run (a mapper's pending lines). */
  onRunError?(): void;
  /** After the proxy closed, whether or not the CLI ran (what the preparation left in the work dir). */
  cleanUp?(): Promise<void>;
}

/** Starts the credential proxy, runs the CLI through it, and maps how it ended. */
export async function runAgentCliBehindProxy(
  context: AgentContext,
  runProcess: RunProcess,
  run: AgentCliRun,
): Promise<AgentOutcome> {
  const { mapper } = run;
  let proxy: CredentialProxy;
  try {
    proxy = await startCredentialProxy({
      ...run.proxy,
      ...(run.maxApiRequests !== undefined ? { maxRequests: run.maxApiRequests } : {}),
      // Each refusal is in the trial's events, so the report says why the agent's call failed.
      onRefusal: (refusal) => context.events.emit(refusalEvent(refusal, mapper.turns())),
    });
  } catch (error) {
    await run.cleanUp?.();
    return {
      reason: "infra_error",
      error: `could not start the API proxy: ${describeError(error)}`,
      turns: 0,
    };
  }

  const launch = run.launch(proxy);
  let result: ExecResult;
  try {
    const options: AgentProcessOptions = {
      stdin: context.task,
      extraEnv: launch.extraEnv,
      onStdoutLine: (line) => mapper.push(line),
      onStdoutCut: (droppedBytes) => emitOutputCut(context.events, droppedBytes),
      streamCapBytes: STREAM_CAP_BYTES,
      // Its one way out when the scenario has no network.
      loopbackPorts: [proxy.port],
      ...(launch.programs ? { programs: launch.programs } : {}),
      ...(launch.stop ? { stop: launch.stop } : {}),
    };
    result = await runProcess(launch.file, launch.args, options);
  } catch (error) {
    run.onRunError?.();
    return {
      reason: context.signal.aborted ? classifyAbort(context.signal) : "infra_error",
      error: `could not run ${run.binary ?? launch.file}: ${describeError(error)}`,
      turns: mapper.turns(),
    };
  } finally {
    await proxy.close();
    await run.cleanUp?.();
  }
  const refusals = proxy.refused();
  return withCapNote(run.finish(result, refusals), refusals);
}

/**
 * A `tool_call`'s `command` for a call of another tool than the shell (a file edit, a read, a tool
 * the CLI refuses): the tool's name and its input as JSON, cut at 200 characters.
 */
export function describeOtherToolCall(name: string, input: unknown): string {
  const json = JSON.stringify(input) ?? "";
  return `${name} ${json.length > 200 ? `${json.slice(0, 200)}…` : json}`;
}

/**
 * A CLI's stdout line as a JSON object, and its trimmed text; null for a blank line, and for a
 * line that is not JSON, which is kept in the transcript as it came (`emit`).
 */
export function readJsonLine(
  raw: string,
  emit: (event: EventInput) => void,
): { line: Record<string, unknown>; text: string } | null {
  const text = raw.trim();
  if (text.length === 0) return null;
  try {
    return { line: asRecord(JSON.parse(text)), text };
  } catch {
    emit({ type: "agent_output", text: raw });
    return null;
  }
}

/** A JSON value as an object; anything else as an empty one. */
export function asRecord(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

/** An outcome after `turns` turns, with an error when there is one. */
export function outcomeAfter(turns: number): (reason: EndReason, error?: string) => AgentOutcome {
  return (reason, error) => (error === undefined ? { reason, turns } : { reason, error, turns });
}

/** How a CLI's run was cut short, whatever it printed: the trial aborted (its reason), or timed out; else null. */
export function cutShort(exec: Pick<ExecResult, "timed_out">, signal: AbortSignal): EndReason | null {
  if (signal.aborted) return classifyAbort(signal);
  return exec.timed_out ? "timeout" : null;
}

/** `; stderr: <its head>` for an error message, or nothing when the CLI said nothing there. */
export function stderrPart(stderr: string): string {
  const head = stderrHead(stderr);
  return head ? `; stderr: ${head}` : "";
}

/** The start of a CLI's stderr, where most CLIs say what went wrong. */
function stderrHead(text: string): string {
  const trimmed = text.trim();
  return trimmed.length > STDERR_CHARS ? `${trimmed.slice(0, STDERR_CHARS)}…` : trimmed;
}

/** The end of a CLI's stderr: for one whose head is its own logging (Gemini CLI in debug mode). */
export function stderrTail(text: string): string {
  const trimmed = text.trim();
  return trimmed.length > STDERR_CHARS ? `…${trimmed.slice(-STDERR_CHARS)}` : trimmed;
}

/** A refused API request as the trial's events show it: a model error that will not be retried. */
function refusalEvent(refusal: ProxyRefusal, turns: number) {
  return {
    type: "model_error" as const,
    turn: turns + 1,
    attempt: 1,
    status: 403,
    message: refusal.message,
    will_retry: false,
    retry_after_ms: null,
  };
}

/** A trial that ran into the request cap ends saying so, whatever the CLI made of the 403. */
function withCapNote(outcome: AgentOutcome, refusals: readonly ProxyRefusal[]): AgentOutcome {
  const cap = refusals.find((refusal) => refusal.reason === "request_cap");
  if (!cap) return outcome;
  return { ...outcome, error: outcome.error ? `${cap.message}; ${outcome.error}` : cap.message };
}
