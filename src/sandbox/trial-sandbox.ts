/**
 * One trial's sandbox: a fresh temporary directory with the fixture, inline files and guidance,
 * the setup commands run, a scrubbed environment and (when `target.binary` is set) the target
 * shim first on the agent's PATH.
 *
 * Layout under a fresh `llm-tool-test-XXXXXX` temp dir:
 * - local: `work/` (the work dir, HOME and cwd), `tmp/` (TMPDIR), `shim/` (the shim scripts).
 * - bwrap: `root/` becomes `/`; the work dir is `root/home/eval` (HOME and cwd `/home/eval`),
 *   TMPDIR `/tmp` is `root/tmp`; `shim/` is bound read-only at /run/llm-tool-test/bin.
 * The shim's log is written to `<trialDir>/target-shim/`, outside the work dir.
 *
 * Output caps (per stream, head and tail kept): 128 KiB for the agent's and setup commands (what a
 * model can usefully read), 8 MiB for gate commands (so JSON output stays parseable).
 */
import { chmodSync, mkdirSync, mkdtempSync, realpathSync } from "node:fs";
import { chmod, copyFile, cp, mkdir, readdir, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { ConfigError, InfraError } from "../errors.js";
import type { Scenario, Variant } from "../scenario/types.js";
import type { EventSink } from "../transcript/events.js";
import {
  buildBwrapArgs,
  collectTargetBinds,
  ensureRootLinks,
  inspectHostSystem,
  isUnderSystemDir,
  probeBwrap,
  renderIdentityFiles,
  SANDBOX_HOME,
  SANDBOX_LOG_DIR,
  SANDBOX_PATH,
  SANDBOX_SHIM_DIR,
  SANDBOX_USER,
} from "./bwrap.js";
import { buildAgentEnvironment } from "./env.js";
import { createProcessGroupRegistry, killAllProcessGroups, runProcess, runShell } from "./exec.js";
import { createProcessMarker, killMarkedProcesses, PROCESS_MARKER_ENV } from "./marked-processes.js";
import { readShimLog, resolveRealBinary, writeShim } from "./shim.js";
import type { ExecResult, TargetInvocationRecord, TrialSandbox } from "./types.js";

export const DEFAULT_OUTPUT_CAP_BYTES = 128 * 1024;
export const DEFAULT_GATE_OUTPUT_CAP_BYTES = 8 * 1024 * 1024;
export const DEFAULT_SETUP_TIMEOUT_MS = 300_000;
const SHIM_LOG_NAME = "invocations.log";
const STDERR_HEAD_CHARS = 800;

export interface TrialSandboxOptions {
  scenario: Scenario;
  variant?: Variant;
  mode: "local" | "bwrap";
  /** The trial's output folder; the shim log goes to `<trialDir>/target-shim/`. */
  trialDir: string;
  parentEnv: Record<string, string | undefined>;
  events: EventSink;
  /** Cap per stream for the agent's and setup commands; default 128 KiB. */
  outputCapBytes?: number;
  /** Cap per stream for gate commands; default 8 MiB. */
  gateOutputCapBytes?: number;
  /** Timeout of each setup command; default 300 s. */
  setupTimeoutMs?: number;
  /** Parent of the temporary directory; default os.tmpdir(). */
  tmpRoot?: string;
  keepWorkDir?: boolean;
  /** bwrap binary; default `bwrap` on the parent's PATH. */
  bwrapPath?: string;
  /** bwrap: more host paths bound read-only at the same place (tools the target needs). */
  readOnlyPaths?: string[];
}

/** Create the sandbox, run setup and install the shim. Setup failure → InfraError (cleaned up). */
export async function createTrialSandbox(options: TrialSandboxOptions): Promise<TrialSandbox> {
  const { scenario, variant, mode } = options;
  const parentPath = options.parentEnv.PATH ?? SANDBOX_PATH;
  // Probe before creating anything: an unusable bwrap is the user's configuration to fix.
  const bwrapPath =
    mode === "bwrap"
      ? (options.bwrapPath ?? (await resolveRealBinary("bwrap", parentPath).catch(() => null)))
      : null;
  const probe = mode === "bwrap" ? await probeBwrap(bwrapPath, parentPath) : null;

  const tmpRoot = options.tmpRoot ?? os.tmpdir();
  // The few metadata calls that make the sandbox's directories are synchronous: microseconds each
  // on a local disk, where a trip through libuv's thread pool can take milliseconds while trials
  // keep every core busy.
  mkdirSync(tmpRoot, { recursive: true });
  // realpath: on macOS the temp dir is behind a symlink and `pwd` would disagree with workDir.
  const base = realpathSync(mkdtempSync(path.join(tmpRoot, "llm-tool-test-")));
  const processGroups = createProcessGroupRegistry();
  // Agent processes' trees, found by an environment marker (their tools may leave the group).
  const processMarkers: string[] = [];
  let disposed = false;
  const dispose = async () => {
    if (disposed) return;
    disposed = true;
    await killAllProcessGroups(processGroups);
    for (const marker of processMarkers) await killMarkedProcesses(marker);
    if (!options.keepWorkDir) await removeTree(base);
  };

  try {
    const root = mode === "bwrap" ? path.join(base, "root") : path.join(base, "work");
    const workDir = mode === "bwrap" ? path.join(root, SANDBOX_HOME) : root;
    const hostTmp = mode === "bwrap" ? path.join(root, "tmp") : path.join(base, "tmp");
    const shimDir = path.join(base, "shim");
    const logDir = path.join(path.resolve(options.trialDir), "target-shim");
    mkdirSync(workDir, { recursive: true });
    mkdirSync(hostTmp, { recursive: true });
    chmodSync(hostTmp, 0o1777);

    if (scenario.fixture) await copyFixture(scenario.fixture, workDir, scenario);
    await writeInlineFiles(scenario, root, workDir);
    const guidance = variant?.guidance ?? scenario.guidance;
    if (guidance && (guidance.mode === "workdir" || guidance.mode === "both")) {
      await copyFile(guidance.file, path.join(workDir, "AGENTS.md")).catch((error: unknown) => {
        throw new ConfigError(
          `guidance file ${guidance.file} cannot be read: ${describe(error)}`,
          scenario.source.file,
        );
      });
    }

    const binary = scenario.target.binary;
    const targetEnv = { ...scenario.target.env, ...(variant?.env ?? {}) };
    const visibleWorkDir = mode === "bwrap" ? SANDBOX_HOME : workDir;
    const visibleTmp = mode === "bwrap" ? "/tmp" : hostTmp;

    // bwrap: the target must be visible inside, so a bare name is found on the host first.
    let hostTarget: string | null = null;
    let basePath = parentPath;
    const readOnlyPaths = [...(options.readOnlyPaths ?? [])];
    if (mode === "bwrap") {
      basePath = SANDBOX_PATH;
      if (binary && (!binary.includes("/") || path.isAbsolute(binary))) {
        hostTarget = await resolveRealBinary(binary, parentPath);
        readOnlyPaths.push(...(await collectTargetBinds(hostTarget, base)));
        const dir = path.dirname(hostTarget);
        if (!isUnderSystemDir(dir)) basePath = `${dir}:${SANDBOX_PATH}`;
      }
    }

    const buildEnv = (pathPrefix: string[], extra?: Record<string, string>) =>
      buildAgentEnvironment({
        parentEnv: options.parentEnv,
        homeDir: visibleWorkDir,
        tmpDir: visibleTmp,
        pathPrefix,
        basePath,
        targetEnv,
        ...(extra ? { extra } : {}),
        userName: mode === "bwrap" ? SANDBOX_USER : "agent",
      });
    const gateEnv = buildEnv([]);
    const shimPathPrefix = binary ? [mode === "bwrap" ? SANDBOX_SHIM_DIR : shimDir] : [];
    const agentEnv = buildEnv(shimPathPrefix);

    let runInside: (command: string, run: RunSettings) => Promise<ExecResult>;
    let runProcessInside: (file: string, args: string[], run: ProcessSettings) => Promise<ExecResult>;
    if (mode === "bwrap" && probe && bwrapPath) {
      const host = await inspectHostSystem();
      const identity = renderIdentityFiles(probe.mapsUser);
      await mkdir(path.join(root, "etc"), { recursive: true });
      await writeFile(path.join(root, "etc", "passwd"), identity.passwd);
      await writeFile(path.join(root, "etc", "group"), identity.group);
      await writeFile(path.join(root, "etc", "hostname"), "sandbox\n");
      if (binary) {
        await mkdir(shimDir, { recursive: true });
        await mkdir(logDir, { recursive: true });
      }
      const bwrapArgs = buildBwrapArgs({
        root,
        network: scenario.network === true,
        mapsUser: probe.mapsUser,
        host,
        readOnlyPaths: [...new Set(readOnlyPaths)],
        ...(binary ? { shimDir, logDir } : {}),
      });
      runInside = async (command, run) => {
        await ensureRootLinks(root, host);
        return runProcess({
          file: bwrapPath,
          args: [...bwrapArgs, "--", host.bash, "-c", command],
          cwd: base,
          env: run.env,
          timeoutMs: run.timeoutMs,
          outputCapBytes: run.outputCapBytes,
          ...(run.signal ? { signal: run.signal } : {}),
          processGroups,
        });
      };
      // An external agent (a CLI) must reach its model API through the harness's loopback proxy,
      // so it shares the host's network; its binary's directories are bound read-only.
      runProcessInside = async (file, args, run) => {
        await ensureRootLinks(root, host);
        const binds = path.isAbsolute(file) ? await collectTargetBinds(file, base) : [];
        const agentArgs = buildBwrapArgs({
          root,
          network: true,
          mapsUser: probe.mapsUser,
          host,
          readOnlyPaths: [...new Set([...readOnlyPaths, ...binds])],
          ...(binary ? { shimDir, logDir } : {}),
        });
        return runProcess({
          file: bwrapPath,
          args: [...agentArgs, "--", file, ...args],
          cwd: base,
          ...toProcessOptions(run),
          processGroups,
        });
      };
    } else {
      const bash = await resolveShell(parentPath);
      runInside = (command, run) =>
        runShell({
          command,
          cwd: workDir,
          env: run.env,
          timeoutMs: run.timeoutMs,
          outputCapBytes: run.outputCapBytes,
          shell: bash,
          ...(run.signal ? { signal: run.signal } : {}),
          processGroups,
        });
      runProcessInside = (file, args, run) =>
        runProcess({ file, args, cwd: workDir, ...toProcessOptions(run), processGroups });
    }

    const agentCap = options.outputCapBytes ?? DEFAULT_OUTPUT_CAP_BYTES;
    for (const command of scenario.setup) {
      const result = await runInside(command, {
        env: gateEnv,
        timeoutMs: options.setupTimeoutMs ?? DEFAULT_SETUP_TIMEOUT_MS,
        outputCapBytes: agentCap,
      });
      options.events.emit({
        type: "setup",
        command,
        exit_code: result.exit_code,
        stdout: result.stdout,
        stderr: result.stderr,
        duration_ms: result.duration_ms,
      });
      if (result.exit_code !== 0) throw describeSetupFailure(command, result);
    }

    // After setup, which may have built or installed the target.
    let hostLogFile: string | null = null;
    if (binary) {
      let realInside: string;
      if (mode === "bwrap") {
        if (hostTarget) realInside = hostTarget;
        else {
          const hostPath = await resolveRealBinary(binary, "", workDir);
          assertInside(hostPath, root, `target.binary "${binary}"`);
          realInside = path.join("/", path.relative(root, hostPath));
        }
      } else {
        realInside = await resolveRealBinary(binary, parentPath, workDir);
      }
      await rm(logDir, { recursive: true, force: true });
      await mkdir(logDir, { recursive: true });
      hostLogFile = path.join(logDir, SHIM_LOG_NAME);
      await writeShim({
        binary,
        realPath: realInside,
        shimDir,
        logFile: mode === "bwrap" ? path.posix.join(SANDBOX_LOG_DIR, SHIM_LOG_NAME) : hostLogFile,
      });
    }

    const sandbox: TrialSandbox = {
      mode,
      root,
      workDir,
      visibleWorkDir,
      agentEnv,
      runAgentCommand: (command, run) =>
        runInside(command, {
          env: agentEnv,
          timeoutMs: run.timeoutMs,
          outputCapBytes: agentCap,
          ...(run.signal ? { signal: run.signal } : {}),
        }),
      runAgentProcess: async (file, args, run) => {
        const marker = createProcessMarker();
        processMarkers.push(marker);
        const env = {
          ...(run.env ? buildEnv(shimPathPrefix, run.env) : agentEnv),
          [PROCESS_MARKER_ENV]: marker,
        };
        const result = await runProcessInside(file, args, {
          env,
          timeoutMs: run.timeoutMs,
          outputCapBytes: agentCap,
          ...(run.signal ? { signal: run.signal } : {}),
          ...(run.onStdoutLine ? { onStdoutLine: run.onStdoutLine } : {}),
          ...(run.stdin !== undefined ? { stdin: run.stdin } : {}),
        });
        // Killed: its whole tree goes with it, not only its process group.
        if (result.timed_out || run.signal?.aborted) await killMarkedProcesses(marker);
        return result;
      },
      runGateCommand: (command, run) =>
        runInside(command, {
          env: run.env ? buildEnv([], run.env) : gateEnv,
          timeoutMs: run.timeoutMs,
          outputCapBytes: run.outputCapBytes ?? options.gateOutputCapBytes ?? DEFAULT_GATE_OUTPUT_CAP_BYTES,
        }),
      resolvePath: (target) => resolveSandboxPath(target, root, workDir),
      readTargetInvocations: async (): Promise<TargetInvocationRecord[]> =>
        hostLogFile ? readShimLog(hostLogFile) : [],
      dispose,
    };
    return sandbox;
  } catch (error) {
    await dispose();
    throw error;
  }
}

/** bash on each PATH, looked up once per run rather than once per trial (a stat per PATH entry). */
const shellLookups = new Map<string, Promise<string>>();

function resolveShell(searchPath: string): Promise<string> {
  let lookup = shellLookups.get(searchPath);
  if (!lookup) {
    lookup = resolveRealBinary("bash", searchPath).catch(() => "/bin/bash");
    shellLookups.set(searchPath, lookup);
  }
  return lookup;
}

interface RunSettings {
  env: Record<string, string>;
  timeoutMs: number;
  outputCapBytes: number;
  signal?: AbortSignal;
}

interface ProcessSettings extends RunSettings {
  onStdoutLine?: (line: string) => void;
  stdin?: string;
}

function toProcessOptions(run: ProcessSettings) {
  return {
    env: run.env,
    timeoutMs: run.timeoutMs,
    outputCapBytes: run.outputCapBytes,
    ...(run.signal ? { signal: run.signal } : {}),
    ...(run.onStdoutLine ? { onStdoutLine: run.onStdoutLine } : {}),
    ...(run.stdin !== undefined ? { stdin: run.stdin } : {}),
  };
}

/** Relative → the work dir; absolute → inside the root. Refuses paths that leave the root. */
export function resolveSandboxPath(target: string, root: string, workDir: string): string {
  const resolved = path.isAbsolute(target) ? path.join(root, target) : path.resolve(workDir, target);
  assertInside(resolved, root, `path "${target}"`);
  return resolved;
}

function assertInside(resolved: string, root: string, what: string): void {
  const relative = path.relative(root, resolved);
  if (relative.startsWith("..") || path.isAbsolute(relative)) {
    throw new ConfigError(`${what} leaves the sandbox: use a path inside the work dir or the sandbox root`);
  }
}

async function copyFixture(fixture: string, workDir: string, scenario: Scenario): Promise<void> {
  try {
    // verbatimSymlinks: keep relative links relative; copies keep their permission bits.
    await cp(fixture, workDir, {
      recursive: true,
      verbatimSymlinks: true,
      force: true,
      preserveTimestamps: true,
    });
  } catch (error) {
    throw new ConfigError(`fixture ${fixture} cannot be copied: ${describe(error)}`, scenario.source.file);
  }
}

async function writeInlineFiles(scenario: Scenario, root: string, workDir: string): Promise<void> {
  for (const [name, content] of Object.entries(scenario.files)) {
    const target = path.isAbsolute(name) ? path.join(root, name) : path.resolve(workDir, name);
    const relative = path.relative(root, target);
    if (relative === "" || relative.startsWith("..") || path.isAbsolute(relative)) {
      throw new ConfigError(
        `files: "${name}" leaves the sandbox: use a path relative to the work dir or an absolute path inside the sandbox`,
        `${scenario.source.file}:${scenario.source.line}`,
      );
    }
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, content);
  }
}

function describeSetupFailure(command: string, result: ExecResult): InfraError {
  const how = result.timed_out ? "timed out" : `failed with exit code ${result.exit_code}`;
  const stderr = result.stderr.trim();
  const head = stderr.length > STDERR_HEAD_CHARS ? `${stderr.slice(0, STDERR_HEAD_CHARS)}…` : stderr;
  return new InfraError(`setup command \`${command}\` ${how}${head ? `: ${head}` : " (no stderr)"}`);
}

/** rm -rf that also copes with directories the agent made unwritable. */
async function removeTree(dir: string): Promise<void> {
  try {
    await rm(dir, { recursive: true, force: true, maxRetries: 2 });
  } catch {
    await makeWritable(dir);
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }
}

async function makeWritable(dir: string): Promise<void> {
  await chmod(dir, 0o700).catch(() => undefined);
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    if (entry.isDirectory()) await makeWritable(path.join(dir, entry.name));
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
