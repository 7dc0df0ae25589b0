/**
 * `agent: claude-code` needs the Claude Code CLI on the runner. A `claude` the workflow provides
 * (LLM_TOOL_TEST_CLAUDE_BIN, PATH, a node_modules install) is used as it is; otherwise the action
 * installs the pinned version with npm into its temp folder, so a workflow needs no setup step.
 * Either way the log says which binary runs.
 */
import path from "node:path";
import { CLAUDE_BIN_ENV, resolveClaudeBinary } from "../agents/claude-code.js";
import { ConfigError, isConfigError } from "../errors.js";
import type { RunProgram } from "./run-program.js";

export const CLAUDE_CODE_PACKAGE = "@anthropic-ai/claude-code";
/** What the action installs: the version the tests run against (tests/action/claude-code-cli.test.ts checks). */
export const CLAUDE_CODE_VERSION = "2.1.197";
const STDERR_TAIL_CHARS = 800;
/** npm installing Claude Code on a slow runner. */
const INSTALL_TIMEOUT_MS = 10 * 60_000;

export interface ProvideClaudeCodeInput {
  /** The action's environment (LLM_TOOL_TEST_CLAUDE_BIN, PATH, npm's settings). */
  env: Record<string, string | undefined>;
  /** Where npm installs it when none is found (a folder of the runner's temp). */
  installDir: string;
  runProgram: RunProgram;
  log(message: string): void;
  /** Where to look for node_modules/@anthropic-ai/claude-code; default resolveClaudeBinary's. */
  searchFrom?: readonly string[];
}

/** The path of the `claude` binary to run: the workflow's, else a fresh install. */
export async function provideClaudeCode(input: ProvideClaudeCodeInput): Promise<string> {
  const { env, log } = input;
  try {
    const found = resolveClaudeBinary(env, input.searchFrom);
    log(`Claude Code: using ${found} (${describeWhereFound(found, env)}).`);
    return found;
  } catch (error) {
    // A wrong LLM_TOOL_TEST_CLAUDE_BIN is the workflow's to fix, not a reason to install another.
    if (!isConfigError(error) || env[CLAUDE_BIN_ENV]) throw error;
  }
  const spec = `${CLAUDE_CODE_PACKAGE}@${CLAUDE_CODE_VERSION}`;
  log(`Claude Code: no \`claude\` on PATH; installing ${spec} with npm into ${input.installDir}.`);
  const result = await input.runProgram({
    file: "npm",
    args: ["install", "--global", "--prefix", input.installDir, "--no-audit", "--no-fund", spec],
    env: npmEnvironment(env),
    timeoutMs: INSTALL_TIMEOUT_MS,
  });
  if (result.exitCode !== 0) {
    throw new ConfigError(
      `could not install ${spec} for "agent: claude-code" (npm exited with ${result.exitCode}): ${result.stderr.trim().slice(-STDERR_TAIL_CHARS)}; install it in an earlier step or set ${CLAUDE_BIN_ENV}`,
    );
  }
  let installed: string;
  try {
    installed = resolveClaudeBinary({ PATH: path.join(input.installDir, "bin") }, [
      path.join(input.installDir, "lib"),
    ]);
  } catch {
    throw new ConfigError(
      `npm installed ${spec} into ${input.installDir}, but no \`claude\` binary is there (were install scripts disabled?); install it in an earlier step or set ${CLAUDE_BIN_ENV}`,
    );
  }
  log(`Claude Code: using ${installed} (${spec}, installed by the action).`);
  return installed;
}

function describeWhereFound(binary: string, env: Record<string, string | undefined>): string {
  if (env[CLAUDE_BIN_ENV]) return `from ${CLAUDE_BIN_ENV}`;
  const onPath = (env.PATH ?? "")
    .split(path.delimiter)
    .some((dir) => dir && path.join(dir, "claude") === binary);
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
