/**
 * Any other agent CLI as the agent under test, from a command template (`--agent-command`):
 * `{prompt}` (the task), `{workdir}`, `{model}` and `{system}` (the harness's system prompt) are
 * replaced, each shell-quoted, and the result runs with bash in the sandbox (agent environment,
 * work dir, target shim first on PATH). Without `{prompt}` the task goes to its stdin.
 *
 * The run's model is recorded for the trial only when the template passes `{model}`.
 *
 * Its stdout is the transcript (`agent_output` events, in chunks as it arrives; past 1 MiB the middle
 * is cut, marked by a `truncated` event, and the tail follows at the end); layer 1 comes from
 * the shim, or from `target.command_pattern` over that text. Exit 0 is a natural stop; anything
 * else an agent crash with the exit code and the head of its stderr.
 */
import { constants as fsConstants } from "node:fs";
import { access, stat } from "node:fs/promises";
import path from "node:path";
import { ConfigError, describeError } from "../errors.js";
import type { ExecResult, HostFile } from "../sandbox/types.js";
import type { EventSink } from "../transcript/events.js";
import { classifyAbort } from "./abort-reason.js";
import { emitOutputCut } from "./output-cut.js";
import type { Agent, AgentContext, AgentOutcome } from "./types.js";

const COMMAND_PLACEHOLDERS = ["prompt", "workdir", "model", "system"] as const;
type Placeholder = (typeof COMMAND_PLACEHOLDERS)[number];
/** `{name}` not preceded by `$` (a shell `${VAR}` is left alone). */
const PLACEHOLDER_PATTERN = /(?<!\$)\{([a-z_]+)\}/g;
const CHUNK_LINES = 64;
const CHUNK_CHARS = 16 * 1024;
const STDERR_HEAD_CHARS = 800;

export interface CommandAgentOptions {
  /** The command template, e.g. `my-agent --model {model} --task {prompt}`. */
  template: string;
}

export function createCommandAgent(options: CommandAgentOptions): Agent {
  const template = options.template.trim();
  validateTemplate(template);
  const placeholders = findPlaceholders(template);
  const usesPrompt = placeholders.includes("prompt");

  async function run(context: AgentContext): Promise<AgentOutcome> {
    const runProcess = context.runProcess;
    if (!runProcess) {
      return { reason: "infra_error", error: "the harness cannot run external agents here", turns: 0 };
    }
    if (context.signal.aborted) return { reason: classifyAbort(context.signal), turns: 0 };
    const command = expandCommandTemplate(template, {
      prompt: context.task,
      workdir: context.workDir,
      model: context.model,
      system: context.systemPrompt,
    });
    const output = createOutputChunker(context.events);
    const program = findCommandProgram(command);
    let result: ExecResult;
    try {
      result = await runProcess("bash", ["-c", command], {
        onStdoutLine: (line) => output.push(line),
        onStdoutCut: (droppedBytes) => {
          output.flush();
          emitOutputCut(context.events, droppedBytes);
        },
        extraEnv: {
          LLM_TOOL_TEST_MODEL: context.model,
          LLM_TOOL_TEST_MAX_TURNS: String(context.maxTurns),
        },
        ...(usesPrompt ? {} : { stdin: context.task }),
        // A script or binary of the user's (in their repository, on their PATH): the sandbox shows it.
        ...(program ? { programs: [program] } : {}),
      });
    } catch (error) {
      output.flush();
      return {
        reason: context.signal.aborted ? classifyAbort(context.signal) : "infra_error",
        error: `could not run the agent command: ${describeError(error)}`,
        turns: 0,
      };
    }
    output.flush();
    if (context.signal.aborted) return { reason: classifyAbort(context.signal), turns: 0 };
    if (result.timed_out) return { reason: "timeout", turns: 0 };
    if (result.exit_code === 0) return { reason: "natural_stop", turns: 0 };
    const stderr = result.stderr.trim();
    const head = stderr.length > STDERR_HEAD_CHARS ? `${stderr.slice(0, STDERR_HEAD_CHARS)}…` : stderr;
    return {
      reason: "agent_crash",
      error: `the agent command exited with code ${result.exit_code}${head ? `: ${head}` : " (no stderr)"}`,
      turns: 0,
    };
  }

  // The model is the agent's only when the template passes it on: else the transcript must not name it.
  // An absolute program is known now (a bare name is found on PATH, a relative one in the work dir, when it runs).
  const program = findCommandProgram(template);
  const hostFiles: HostFile[] =
    program && path.isAbsolute(program) ? [{ path: program, use: "execute" }] : [];
  return {
    name: "command",
    usesModel: placeholders.includes("model"),
    // Its model sees the system prompt only through `{system}`; whether it reads AGENTS.md is its own business.
    guidanceIntake: { systemPrompt: placeholders.includes("system"), workDirFile: "unknown" },
    hostFiles,
    run,
  };
}

/**
 * The program a shell command starts: its first word, after any `NAME=value` assignments, plain
 * or wholly single-quoted (`'/path with space/agent'`); null when it does not start with such a
 * word (expansions, double quotes, a subshell).
 */
export function findCommandProgram(command: string): string | null {
  return findProgramWord(command)?.program ?? null;
}

/** findCommandProgram's word, with where it is in `command`. */
function findProgramWord(command: string): { program: string; start: number; end: number } | null {
  const word = "[^\\s;&|<>()'\"`$\\\\]";
  const pattern = new RegExp(
    `^\\s*(?:[A-Za-z_][A-Za-z0-9_]*=${word}*\\s+)*(?:(${word}+)|'([^']+)')(?=$|[\\s;&|<>()])`,
    "d",
  );
  const match = pattern.exec(command);
  const group = match?.[1] !== undefined ? 1 : 2;
  const program = match?.[group];
  const at = match?.indices?.[group];
  if (program === undefined || !at) return null;
  // A quoted word's span includes its quotes.
  return group === 1 ? { program, start: at[0], end: at[1] } : { program, start: at[0] - 1, end: at[1] + 1 };
}

/**
 * The template with its program made absolute when it is a relative path (`./agent.sh`,
 * `agents/run.sh`): the command runs in the trial's work dir, where that path would name nothing
 * (every trial would fail with exit 127), while the user wrote it, as in their shell, from the
 * folder the run starts in (`cwd`). A program missing there, or not an executable file, is a
 * ConfigError before any trial. Names looked up on PATH, absolute paths, `~/…` and words with a
 * placeholder or an expansion (`{workdir}/agent.sh`) are left as written.
 */
export async function resolveCommandProgram(
  template: string,
  cwd: string,
  /** How the user gave the template, for the errors: the CLI's flag unless the action's input. */
  where = "--agent-command",
): Promise<string> {
  const found = findProgramWord(template.trim());
  if (!found) return template;
  const { program } = found;
  if (!program.includes("/") || path.isAbsolute(program) || program.startsWith("~")) return template;
  if (findPlaceholders(program).length > 0) return template;
  const absolute = path.resolve(cwd, program);
  const shown = JSON.stringify(program);
  const remedy = `a relative path is taken from the folder the run starts in (${cwd}); give the path from there, an absolute path or a name on PATH (a file of the trial's work dir is {workdir}/NAME)`;
  const info = await stat(absolute).catch(() => null);
  if (!info) throw new ConfigError(`the agent command's program ${shown} does not exist: ${remedy}`, where);
  if (!info.isFile())
    throw new ConfigError(`the agent command's program ${shown} is not a file: ${remedy}`, where);
  const executable = await access(absolute, fsConstants.X_OK).then(
    () => true,
    () => false,
  );
  if (!executable) {
    throw new ConfigError(
      `the agent command's program ${shown} (${absolute}) is not executable: make it so (chmod +x), or start the command with its interpreter`,
      where,
    );
  }
  const trimmed = template.trim();
  return `${trimmed.slice(0, found.start)}${quoteProgramPath(absolute)}${trimmed.slice(found.end)}`;
}

/** A path as the template's first word: bare when plain, else single-quoted (findCommandProgram reads both). */
function quoteProgramPath(file: string): string {
  return /^[A-Za-z0-9_\-./+@%:,=]+$/.test(file) ? file : quoteForBash(file);
}

/** Replaces each known placeholder with its value, single-quoted for bash. */
export function expandCommandTemplate(template: string, values: Record<Placeholder, string>): string {
  return template.replace(PLACEHOLDER_PATTERN, (whole, name: string) =>
    isPlaceholder(name) ? quoteForBash(values[name]) : whole,
  );
}

/** An empty template or an unknown `{placeholder}` (a typo) is the user's to fix. */
function validateTemplate(template: string): void {
  if (template.length === 0) {
    throw new ConfigError(
      "the command agent needs a command: pass --agent-command 'my-agent --task {prompt}'",
      "--agent-command",
    );
  }
  for (const name of findPlaceholders(template)) {
    if (!isPlaceholder(name)) {
      throw new ConfigError(
        `unknown placeholder {${name}} in the agent command; known: ${COMMAND_PLACEHOLDERS.map((p) => `{${p}}`).join(", ")}`,
        "--agent-command",
      );
    }
  }
}

function findPlaceholders(template: string): string[] {
  return [...template.matchAll(PLACEHOLDER_PATTERN)].map((match) => match[1] as string);
}

function isPlaceholder(name: string): name is Placeholder {
  return (COMMAND_PLACEHOLDERS as readonly string[]).includes(name);
}

/** `'...'` with each `'` as `'\''`: safe anywhere outside double quotes, also inside single ones. */
export function quoteForBash(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

/** Groups stdout lines into agent_output events: fewer events than lines, still streamed. */
function createOutputChunker(events: EventSink): { push(line: string): void; flush(): void } {
  let lines: string[] = [];
  let chars = 0;
  const flush = () => {
    if (lines.length === 0) return;
    events.emit({ type: "agent_output", text: lines.join("\n") });
    lines = [];
    chars = 0;
  };
  return {
    push(line) {
      lines.push(line);
      chars += line.length + 1;
      if (lines.length >= CHUNK_LINES || chars >= CHUNK_CHARS) flush();
    },
    flush,
  };
}
