/**
 * The agent CLIs the action can run (`agent: claude-code`, `codex`, `gemini-cli`, `opencode`) must be on the
 * runner. One the workflow provides (its LLM_TOOL_TEST_..._BIN variable, PATH, the action's own
 * node_modules) is used as it is, unless it lies in the workspace: a pull request controls that checkout, and a CLI it commits
 * (`node_modules/<package>`, a `.bin` link) would run with the API key's proxy. Otherwise the action
 * installs the pinned version into a folder of its own in the runner's temp with `npm ci` from the
 * lock the action ships (agent-cli-locks/<agent>/, written by scripts/lock-agent-clis.mjs): every
 * package, transitive ones included, has its sha512, so npm refuses a tarball a registry or mirror
 * swapped under the same version. npm's project is that folder (no workspace's .npmrc), so a
 * workflow needs no setup step. Either way the log says which binary runs.
 */
import { existsSync, readFileSync, realpathSync } from "node:fs";
import { copyFile, mkdir, rm } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
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
  /** The folder of the lock it installs from; default the action's (agentCliLockDir). */
  lockDir?: string;
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
  const lockDir = input.lockDir ?? agentCliLockDir(agentOf(cli));
  readAgentCliLock(lockDir, cli);
  log(
    `${cli.label}: no \`${cli.command}\` on PATH; installing ${spec} with npm ci from the action's lock (every package's sha512 pinned) into ${input.installDir}.`,
  );
  // npm's project holds the lock and nothing else: no .npmrc or node_modules left there by an earlier step.
  await rm(input.installDir, { recursive: true, force: true });
  await mkdir(input.installDir, { recursive: true });
  for (const file of LOCK_FILES) await copyFile(path.join(lockDir, file), path.join(input.installDir, file));
  const result = await input.runProgram({
    file: "npm",
    // --prefix: npm's project is the install folder, whose only settings are the user's and the global ones.
    args: ["ci", "--prefix", input.installDir, "--no-audit", "--no-fund"],
    env: npmEnvironment(env),
    timeoutMs: INSTALL_TIMEOUT_MS,
  });
  if (result.exitCode !== 0) {
    const why = /\bEINTEGRITY\b/.test(result.stderr)
      ? "a downloaded tarball does not match the sha512 in the action's lock (npm EINTEGRITY): the registry or a mirror served other bytes under that version, and npm refused them"
      : `npm exited with ${result.exitCode}`;
    throw new ConfigError(
      `could not install ${cli.label} (${spec}) for "agent: ${agentOf(cli)}": ${why}: ${result.stderr.trim().slice(-STDERR_TAIL_CHARS)}; install it in an earlier step or set ${cli.envVar}`,
    );
  }
  let installed: string;
  try {
    installed = cli.resolve({ PATH: path.join(input.installDir, "node_modules", ".bin") }, [
      input.installDir,
    ]);
  } catch {
    throw new ConfigError(
      `npm installed ${spec} into ${input.installDir}, but no \`${cli.command}\` binary is there (were install scripts disabled?); install it in an earlier step or set ${cli.envVar}`,
    );
  }
  log(`${cli.label}: using ${installed} (${spec}, installed by the action from its lock).`);
  return installed;
}

/** What a lock folder holds: `npm ci` installs exactly the package-lock's tree, and checks it against package.json. */
const LOCK_FILES = ["package.json", "package-lock.json"] as const;
const LOCKS_FOLDER = "agent-cli-locks";
/**
 * Where agent-cli-locks/ is from this module: at the package's root, one folder above dist/index.js
 * (the bundled action), two above src/action/ and lib/action/. (Joined at run time: the bundler
 * would otherwise copy or rewrite what it can see.)
 */
const LOCKS_LOCATIONS = ["..", "../.."];

/** The folder of the action's lock for `agent`: agent-cli-locks/<agent>/. */
export function agentCliLockDir(agent: string): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const roots = LOCKS_LOCATIONS.map((up) => path.join(here, up, LOCKS_FOLDER));
  const root = roots.find((candidate) => existsSync(candidate)) ?? (roots.at(-1) as string);
  return path.join(root, agent);
}

/** The package.json of a CLI's lock: the CLI alone, at its exact version. */
export function agentCliLockManifest(agent: string, cli: AgentCli): Record<string, unknown> {
  return {
    name: `llm-tool-test-agent-cli-${agent}`,
    private: true,
    description: `${cli.label} as the llm-tool-test action installs it (scripts/lock-agent-clis.mjs writes this folder).`,
    dependencies: { [cli.packageName]: cli.version },
  };
}

export interface LockedPackage {
  version?: string;
  resolved?: string;
  integrity?: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

/**
 * The lock's entry a package at `key` gets for `name`, as Node resolves it: in its own node_modules,
 * else in each folder's above it.
 */
export function lockedDependency(
  packages: Record<string, LockedPackage>,
  key: string,
  name: string,
): boolean {
  for (let at = key; ; at = at.slice(0, Math.max(0, at.lastIndexOf("/node_modules/")))) {
    if (packages[at ? `${at}/node_modules/${name}` : `node_modules/${name}`]) return true;
    if (!at) return false;
  }
}

/**
 * The lock in `lockDir`, checked: it pins `cli` at its version, and every package it installs has
 * a download address and a sha512 (what lets npm ci refuse other bytes). A ConfigError naming the
 * file and the fix otherwise: a version bump without re-locking never installs something unpinned.
 * Returns how many packages it locks.
 */
export function readAgentCliLock(lockDir: string, cli: AgentCli): number {
  const fix = "run `npm run lock-agent-clis` (scripts/lock-agent-clis.mjs)";
  const read = (file: string): Record<string, unknown> => {
    const where = path.join(lockDir, file);
    try {
      return JSON.parse(readFileSync(where, "utf8")) as Record<string, unknown>;
    } catch (error) {
      throw new ConfigError(
        `${cli.label}'s lock cannot be read (${(error as Error).message.split("\n")[0]}); ${fix}`,
        where,
      );
    }
  };
  const manifest = read("package.json") as { dependencies?: Record<string, string> };
  const lockFile = path.join(lockDir, "package-lock.json");
  const lock = read("package-lock.json") as { packages?: Record<string, LockedPackage> };
  const pinned = manifest.dependencies?.[cli.packageName];
  const locked = lock.packages?.[`node_modules/${cli.packageName}`]?.version;
  if (pinned !== cli.version || locked !== cli.version) {
    throw new ConfigError(
      `locks ${cli.packageName}@${locked ?? pinned ?? "(none)"}, but the action runs ${cli.version}; ${fix}`,
      lockFile,
    );
  }
  const entries = Object.entries(lock.packages ?? {}).filter(([key]) => key !== "");
  for (const [key, entry] of entries) {
    if (
      !entry.resolved?.startsWith("https://") ||
      !/^sha512-[A-Za-z0-9+/]+={0,2}$/.test(entry.integrity ?? "")
    ) {
      throw new ConfigError(
        `"${key}" has no https download address or no sha512 integrity; ${fix}`,
        lockFile,
      );
    }
    // npm ci refuses a lock that leaves out a dependency, even an optional one for another platform.
    const wanted = { ...entry.dependencies, ...entry.optionalDependencies };
    const missing = Object.keys(wanted).filter((name) => !lockedDependency(lock.packages ?? {}, key, name));
    if (missing.length > 0) {
      throw new ConfigError(
        `"${key}" depends on ${missing.join(", ")}, which the lock leaves out (npm ci would refuse it); ${fix}`,
        lockFile,
      );
    }
  }
  return entries.length;
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
