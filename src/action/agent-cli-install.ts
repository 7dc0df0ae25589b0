/**
 * The agent CLIs the action can run (`agent: claude-code`, `codex`, `gemini-cli`, `opencode`) must be on the
 * runner. One the workflow provides (its LLM_TOOL_TEST_..._BIN variable, PATH, the action's own
 * node_modules) is used as it is, unless it lies in the workspace: a pull request controls that checkout, and a CLI it commits
 * (`node_modules/<package>`, a `.bin` link) would run with the API key's proxy. Otherwise the action
 * installs the pinned version with npm into a folder of its own in the runner's temp, from "/" (no
 * project's .npmrc), so a workflow needs no setup step. Either way the log says which binary runs.
 */
import { realpathSync } from "node:fs";
import path from "node:path";
import { CLAUDE_BIN_ENV, resolveClaudeBinary } from "../agents/claude-code.js";
import {
  CODEX_BIN_ENV,
  CODEX_BINARY_NAME,
  CODEX_PACKAGE,
  CODEX_VERSION,
  resolveCodexBinary,
} from "../agents/codex.js";
import {
  GEMINI_BIN_ENV,
  GEMINI_BIN_NAME,
  GEMINI_CLI_PACKAGE,
  GEMINI_CLI_VERSION,
  resolveGeminiBinary,
} from "../agents/gemini-cli.js";
import {
  OPENCODE_BIN_ENV,
  OPENCODE_BINARY,
  OPENCODE_PACKAGE,
  OPENCODE_VERSION,
  resolveOpenCodeBinary,
} from "../agents/opencode.js";
import type { AgentName } from "../agents/registry.js";
import { ConfigError, isConfigError } from "../errors.js";
import type { RunProgram } from "./run-program.js";

/** An agent CLI the action can install: what npm installs, and how its binary is found. */
export interface AgentCli {
  /** For the log: "Claude Code". */
  label: string;
  packageName: string;
  /** What the action installs: the version the tests run against (tests/action/agent-cli-install.test.ts checks). */
  version: string;
  /** Its command on PATH. */
  command: string;
  /** The variable that names the binary instead. */
  envVar: string;
  /** The binary from envVar, PATH or a node_modules under `searchFrom`; a ConfigError when there is none. */
  resolve(env: Record<string, string | undefined>, searchFrom?: readonly string[]): string;
}

export const CLAUDE_CODE_PACKAGE = "@anthropic-ai/claude-code";
export const CLAUDE_CODE_VERSION = "2.1.197";

export const AGENT_CLIS = {
  "claude-code": {
    label: "Claude Code",
    packageName: CLAUDE_CODE_PACKAGE,
    version: CLAUDE_CODE_VERSION,
    command: "claude",
    envVar: CLAUDE_BIN_ENV,
    resolve: resolveClaudeBinary,
  },
  codex: {
    label: "Codex",
    packageName: CODEX_PACKAGE,
    version: CODEX_VERSION,
    command: CODEX_BINARY_NAME,
    envVar: CODEX_BIN_ENV,
    resolve: resolveCodexBinary,
  },
  "gemini-cli": {
    label: "Gemini CLI",
    packageName: GEMINI_CLI_PACKAGE,
    version: GEMINI_CLI_VERSION,
    command: GEMINI_BIN_NAME,
    envVar: GEMINI_BIN_ENV,
    resolve: resolveGeminiBinary,
  },
  opencode: {
    label: "OpenCode",
    packageName: OPENCODE_PACKAGE,
    version: OPENCODE_VERSION,
    command: OPENCODE_BINARY,
    envVar: OPENCODE_BIN_ENV,
    resolve: resolveOpenCodeBinary,
  },
} as const satisfies Partial<Record<AgentName, AgentCli>>;

/** The CLI `agent` runs, or null for an agent that runs none (the built-in loop, oracle, …). */
export function agentCliOf(agent: AgentName): AgentCli | null {
  return (AGENT_CLIS as Partial<Record<AgentName, AgentCli>>)[agent] ?? null;
}

const STDERR_TAIL_CHARS = 800;
/** npm installing an agent CLI on a slow runner. */
const INSTALL_TIMEOUT_MS = 10 * 60_000;

export interface ProvideAgentCliInput {
  /** The action's environment (the CLI's variable, PATH, npm's settings). */
  env: Record<string, string | undefined>;
  /** Where npm installs it when none is found (a folder of the runner's temp). */
  installDir: string;
  runProgram: RunProgram;
  log(message: string): void;
  /** Where to look for node_modules/<package>; default the CLI's own search (one found in the workspace is ignored). */
  searchFrom?: readonly string[];
  /** The checkout the pull request controls: no binary found in it is used. */
  workspace?: string;
}

/** The path of the CLI's binary to run: the workflow's, else a fresh install of the pinned version. */
export async function provideAgentCli(cli: AgentCli, input: ProvideAgentCliInput): Promise<string> {
  const { env, log } = input;
  try {
    const found = cli.resolve(env, input.searchFrom);
    const inWorkspace = input.workspace !== undefined && isInside(found, input.workspace);
    if (!inWorkspace) {
      log(`${cli.label}: using ${found} (${describeWhereFound(cli, found, env)}).`);
      return found;
    }
    log(
      `${cli.label}: ignoring ${found} (${describeWhereFound(cli, found, env)}): it is in the workspace, which the pull request controls; the agent's program never comes from it.`,
    );
  } catch (error) {
    // A wrong variable is the workflow's to fix, not a reason to install another.
    if (!isConfigError(error) || env[cli.envVar]) throw error;
  }
  const spec = `${cli.packageName}@${cli.version}`;
  log(`${cli.label}: no \`${cli.command}\` on PATH; installing ${spec} with npm into ${input.installDir}.`);
  const result = await input.runProgram({
    file: "npm",
    args: ["install", "--global", "--prefix", input.installDir, "--no-audit", "--no-fund", spec],
    env: npmEnvironment(env),
    timeoutMs: INSTALL_TIMEOUT_MS,
  });
  if (result.exitCode !== 0) {
    throw new ConfigError(
      `could not install ${spec} for "agent: ${agentOf(cli)}" (npm exited with ${result.exitCode}): ${result.stderr.trim().slice(-STDERR_TAIL_CHARS)}; install it in an earlier step or set ${cli.envVar}`,
    );
  }
  let installed: string;
  try {
    installed = cli.resolve({ PATH: path.join(input.installDir, "bin") }, [
      path.join(input.installDir, "lib"),
    ]);
  } catch {
    throw new ConfigError(
      `npm installed ${spec} into ${input.installDir}, but no \`${cli.command}\` binary is there (were install scripts disabled?); install it in an earlier step or set ${cli.envVar}`,
    );
  }
  log(`${cli.label}: using ${installed} (${spec}, installed by the action).`);
  return installed;
}

/** Whether `file`, links resolved, is in `dir` (links resolved too). */
function isInside(file: string, dir: string): boolean {
  const real = (p: string) => {
    try {
      return realpathSync(p);
    } catch {
      return path.resolve(p);
    }
  };
  const relative = path.relative(real(dir), real(file));
  return relative === "" || (!relative.startsWith("..") && !path.isAbsolute(relative));
}

function agentOf(cli: AgentCli): string {
  return Object.entries(AGENT_CLIS).find(([, entry]) => entry === cli)?.[0] ?? cli.command;
}

function describeWhereFound(cli: AgentCli, binary: string, env: Record<string, string | undefined>): string {
  if (env[cli.envVar]) return `from ${cli.envVar}`;
  const onPath = (env.PATH ?? "")
    .split(path.delimiter)
    .some((dir) => dir && path.join(dir, cli.command) === binary);
  return onPath ? "found on PATH" : "found in node_modules";
}

/**
 * What npm needs (its settings, proxies, certificates, a home for its cache), and not the
 * action's secrets.
 */
function npmEnvironment(env: Record<string, string | undefined>): Record<string, string> {
  const wanted =
    /^(PATH|HOME|USER|TMPDIR|TEMP|TMP|RUNNER_TEMP|NODE_EXTRA_CA_CERTS|SSL_CERT_FILE|SSL_CERT_DIR|npm_config_.*|NPM_CONFIG_.*|https?_proxy|HTTPS?_PROXY|no_proxy|NO_PROXY)$/;
  return Object.fromEntries(
    Object.entries(env).filter(
      (entry): entry is [string, string] => wanted.test(entry[0]) && entry[1] !== undefined,
    ),
  );
}
