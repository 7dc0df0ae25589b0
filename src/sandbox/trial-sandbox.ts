/**
 * One trial's sandbox: a fresh temporary directory with the fixture, inline files and guidance,
 * the setup commands run, a scrubbed environment and (when `target.binary` is set) the target
 * shim first on the agent's PATH. Where the directories go and how commands run inside is the
 * mode's strategy (local-strategy.ts, bwrap-strategy.ts); the rest is the same in every mode.
 *
 * Under a fresh `llm-tool-test-XXXXXX` temp dir: the mode's root, work dir and TMPDIR, `shim/`
 * (the shim scripts) and `shim-log/records`, the FIFO through which the shim's records reach the
 * harness (shim-channel.ts says why a FIFO, and what the agent can and cannot do to it).
 *
 * Output caps (per stream, head and tail kept): 128 KiB for the agent's and setup commands (what a
 * model can usefully read), 8 MiB for gate commands (so JSON output stays parseable); an external
 * agent's stdout (its transcript) streams up to 1 MiB by default, then only its tail is kept.
 */
import { existsSync } from "node:fs";
import { chmod, copyFile, cp, mkdir, mkdtemp, readdir, realpath, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { ConfigError, describeError, InfraError } from "../errors.js";
import type { HomeLayout, SandboxMode, Scenario, Variant } from "../scenario/types.js";
import type { EventSink } from "../transcript/events.js";
import { SANDBOX_PATH } from "./bwrap.js";
import { createBwrapStrategy } from "./bwrap-strategy.js";
import { buildAgentEnvironment } from "./env.js";
import { createProcessGroupRegistry, killAllProcessGroups, warmProcessRunners } from "./exec.js";
import { createLocalStrategy } from "./local-strategy.js";
import { createProcessMarker, killMarkedProcesses, PROCESS_MARKER_ENV } from "./marked-processes.js";
import { createAgentShell, SHELL_OUTPUT_CAP_BYTES } from "./persistent-shell.js";
import { resolveSandboxPath } from "./sandbox-paths.js";
import type {
  SandboxInterior,
  SandboxStrategy,
  SandboxStrategyOptions,
  TrialLayout,
  TrialProcesses,
} from "./sandbox-strategy.js";
import { writeShim } from "./shim.js";
import { openShimChannel, type ShimChannel } from "./shim-channel.js";
import { createTrialCgroup, warmTrialRunners } from "./trial-cgroup.js";
import type { ExecResult, TargetInvocationRecord, TrialSandbox } from "./types.js";

const DEFAULT_OUTPUT_CAP_BYTES = 128 * 1024;
const DEFAULT_GATE_OUTPUT_CAP_BYTES = 8 * 1024 * 1024;
/** An external agent's streamed stdout (its transcript) before the middle is cut. */
const DEFAULT_AGENT_STREAM_CAP_BYTES = 1024 * 1024;
const DEFAULT_SETUP_TIMEOUT_MS = 300_000;
const STDERR_HEAD_CHARS = 800;

export interface TrialSandboxOptions {
  scenario: Scenario;
  variant?: Variant;
  mode: SandboxMode;
  /** The trial's output folder. */
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
  /** bwrap binary; default the trusted one (trusted-bwrap.ts), never one found on PATH. */
  bwrapPath?: string;
  /** bwrap: more host paths bound read-only at the same place (tools the target needs). */
  readOnlyPaths?: string[];
  /** Where the agent starts and what HOME is; default the scenario's (`machine.home`), else the work dir. */
  home?: HomeLayout;
}

/** One strategy per sandbox mode; a mode without one does not compile. */
const SANDBOX_STRATEGIES: Record<
  SandboxMode,
  (options: SandboxStrategyOptions) => SandboxStrategy | Promise<SandboxStrategy>
> = {
  local: createLocalStrategy,
  bwrap: createBwrapStrategy,
};

/**
 * Starts the process runners a run's trials will use before they need them: in local mode, where
 * trial cgroups can be made, one of its own for each trial at once; else the shared ones.
 */
export async function warmSandboxRunners(modes: readonly SandboxMode[], trialsAtOnce: number): Promise<void> {
  const ownRunners = modes.includes("local") && (await warmTrialRunners(trialsAtOnce));
  if (!ownRunners || modes.some((mode) => mode !== "local")) warmProcessRunners();
}

/** Create the sandbox, run setup and install the shim. Setup failure → InfraError (cleaned up). */
export async function createTrialSandbox(options: TrialSandboxOptions): Promise<TrialSandbox> {
  const { scenario, variant } = options;
  const home = options.home ?? scenario.machine?.home;
  // Chosen (and checked) before anything is created: an unusable bwrap is the user's configuration to fix.
  const strategy = await SANDBOX_STRATEGIES[options.mode]({
    parentPath: options.parentEnv.PATH ?? SANDBOX_PATH,
    parentEnv: options.parentEnv,
    targetBinary: scenario.target.binary,
    network: scenario.network === true,
    bwrapPath: options.bwrapPath,
    readOnlyPaths: options.readOnlyPaths,
    hostname: scenario.machine?.hostname,
    writableSystemDirs: scenario.machine?.writableSystemDirs,
    ...(home ? { home } : {}),
  });
  const tmpRoot = options.tmpRoot ?? os.tmpdir();
  const base = await createTrialBase((await strategy.chooseTmpRoot?.(tmpRoot)) ?? tmpRoot);
  const cleanup = await createCleanup(base, options.keepWorkDir === true, strategy.endsLeftoverProcesses);
  try {
    const layout = await createLayout(strategy, base);
    await fillWorkDir(scenario, variant, layout);
    const interior = await strategy.open(layout, cleanup.processes);
    cleanup.adopt(interior);
    const environments = createEnvironments(options, interior, cleanup.trialMarker);
    await runSetup(options, interior, environments.setup);
    // After setup, which may have built or installed the target.
    const binary = scenario.target.binary;
    const shimChannel = binary ? await installShim(binary, layout, interior, options.parentEnv) : null;
    if (shimChannel) cleanup.onDispose(() => shimChannel.close());
    return assembleSandbox({ options, layout, interior, environments, cleanup, shimChannel });
  } catch (error) {
    await cleanup.dispose();
    throw error;
  }
}

async function createTrialBase(tmpRoot: string): Promise<string> {
  // Off the event loop: at high concurrency (-j 32) synchronous calls here were a steady share of
  // the harness's CPU samples, holding up every other trial's model calls and commands.
  await mkdir(tmpRoot, { recursive: true });
  // realpath: on macOS the temp dir is behind a symlink and `pwd` would disagree with workDir.
  return realpath(await mkdtemp(path.join(tmpRoot, "llm-tool-test-")));
}

interface Cleanup {
  processes: TrialProcesses;
  /** In the environment of every command of the trial: its survivors are found by it. */
  trialMarker: string;
  /** Agent processes' own markers, so a killed agent's tree can be ended on its own. */
  processMarkers: string[];
  /** Run once every process is gone, before the temp dir goes. */
  onDispose(action: () => void): void;
  /** The interior's own way to end processes and what it holds (SandboxInterior.endProcesses, close). */
  adopt(interior: SandboxInterior): void;
  /** Ends every process of the trial; later commands (gates) may still run. */
  endProcesses(): Promise<void>;
  /** Says at once, before anything is awaited, that the sandbox goes (SandboxInterior.ending). */
  ending(): void;
  dispose(): Promise<void>;
}

/**
 * What disposing a trial's sandbox ends: its process groups, its cgroup (which holds even a process
 * that cleared its environment) or, without one, every process carrying one of its markers, its
 * temp dir. A mode that ends leftovers itself (bwrap's pid namespace) gets no cgroup and no marker
 * sweep: the sweep reads every process's environment in /proc, work no trial need do twice.
 */
async function createCleanup(
  base: string,
  keepWorkDir: boolean,
  modeEndsLeftovers: boolean,
): Promise<Cleanup> {
  const groups = createProcessGroupRegistry();
  const trialMarker = createProcessMarker();
  const processMarkers = [trialMarker];
  const cgroup = modeEndsLeftovers ? null : await createTrialCgroup();
  const actions: (() => void)[] = [];
  let interior: SandboxInterior | undefined;
  let disposed = false;
  const endProcesses = async () => {
    await killAllProcessGroups(groups);
    // Every process born in the cgroup is ended with it. What started outside one: every process
    // of the agent's own account ends with the account; else the markers' sweep.
    if (modeEndsLeftovers || ((await cgroup?.endProcesses()) ?? false)) return;
    if ((await interior?.endProcesses?.()) ?? false) return;
    for (const marker of processMarkers) await killMarkedProcesses(marker);
  };
  return {
    processes: { groups, ...(cgroup ? { place: cgroup.place } : {}) },
    trialMarker,
    processMarkers,
    onDispose: (action) => actions.push(action),
    adopt: (adopted) => {
      interior = adopted;
    },
    endProcesses,
    ending: () => interior?.ending?.(),
    async dispose() {
      if (disposed) return;
      disposed = true;
      await endProcesses();
      await cgroup?.dispose();
      await interior?.close?.({ keepFiles: keepWorkDir });
      for (const action of actions) action();
      if (!keepWorkDir) await removeTree(base);
    },
  };
}

async function createLayout(strategy: SandboxStrategy, base: string): Promise<TrialLayout> {
  const layout: TrialLayout = {
    base,
    ...strategy.layOut(base),
    shimDir: path.join(base, "shim"),
    logDir: path.join(base, "shim-log"),
  };
  await mkdir(layout.workDir, { recursive: true });
  await mkdir(layout.tmpDir, { recursive: true });
  await chmod(layout.tmpDir, 0o1777);
  return layout;
}

/** The name the guidance file has in the work dir, where the agents (and their CLIs) look for it. */
export const WORK_DIR_GUIDANCE_FILE = "AGENTS.md";

/** The fixture, the inline files and (unless it only goes in the system prompt) the guidance file. */
async function fillWorkDir(
  scenario: Scenario,
  variant: Variant | undefined,
  layout: TrialLayout,
): Promise<void> {
  if (scenario.fixture) await copyFixture(scenario.fixture, layout.workDir, scenario);
  await writeInlineFiles(scenario, layout.root, layout.workDir);
  const guidance = variant?.guidance ?? scenario.guidance;
  if (guidance && (guidance.mode === "workdir" || guidance.mode === "both")) {
    await copyFile(guidance.file, path.join(layout.workDir, WORK_DIR_GUIDANCE_FILE)).catch(
      (error: unknown) => {
        throw new ConfigError(
          `guidance file ${guidance.file} cannot be read: ${describeError(error)}`,
          scenario.source.file,
        );
      },
    );
  }
}

interface Environments {
  /** The agent's: the shim first on PATH. */
  agent: Record<string, string>;
  /** Setup commands': no shim, HOME the agent's. */
  setup: Record<string, string>;
  /** A gate command's, with `extra` (script gates): no shim, HOME and TMPDIR the gate room's. */
  gate(extra?: Record<string, string>): Record<string, string>;
  build(pathPrefix: string[], extra?: Record<string, string>): Record<string, string>;
  shimPathPrefix: string[];
}

function createEnvironments(
  options: TrialSandboxOptions,
  interior: SandboxInterior,
  trialMarker: string,
): Environments {
  const { scenario, variant } = options;
  const targetEnv = { ...scenario.target.env, ...(variant?.env ?? {}) };
  const buildIn = (
    room: { home: string | null; tmpDir: string; basePath?: string },
    pathPrefix: string[],
    extra?: Record<string, string>,
  ) =>
    buildAgentEnvironment({
      parentEnv: options.parentEnv,
      homeDir: room.home,
      tmpDir: room.tmpDir,
      pathPrefix,
      basePath: room.basePath ?? interior.basePath,
      targetEnv,
      ...(extra ? { extra } : {}),
      userName: interior.userName,
      processMarker: trialMarker,
    });
  const agentRoom = { home: interior.home, tmpDir: interior.tmpDir };
  const build = (pathPrefix: string[], extra?: Record<string, string>) =>
    buildIn(agentRoom, pathPrefix, extra);
  const shimPathPrefix = scenario.target.binary ? [interior.shimDir] : [];
  // Relative and empty PATH entries name the gate's cwd, the agent's work dir: its `./jq` is not the host's.
  const gateRoom = { ...interior.gateRoom, basePath: absolutePathEntries(interior.basePath) };
  const gate = buildIn(gateRoom, []);
  return {
    agent: build(shimPathPrefix),
    setup: build([]),
    gate: (extra) => (extra ? buildIn(gateRoom, [], extra) : gate),
    build,
    shimPathPrefix,
  };
}

function absolutePathEntries(searchPath: string): string {
  return (
    searchPath
      .split(":")
      .filter((entry) => path.isAbsolute(entry))
      .join(":") || SANDBOX_PATH
  );
}

async function runSetup(
  options: TrialSandboxOptions,
  interior: SandboxInterior,
  env: Record<string, string>,
): Promise<void> {
  for (const command of options.scenario.setup) {
    const result = await interior.runShell(command, {
      env,
      timeoutMs: options.setupTimeoutMs ?? DEFAULT_SETUP_TIMEOUT_MS,
      outputCapBytes: options.outputCapBytes ?? DEFAULT_OUTPUT_CAP_BYTES,
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
}

/** Opens the shim's record channel and writes the target's shim, which sends its records there. */
async function installShim(
  binary: string,
  layout: TrialLayout,
  interior: SandboxInterior,
  parentEnv: Record<string, string | undefined>,
): Promise<ShimChannel> {
  const realPath = await interior.resolveTarget(binary);
  const channel = await openShimChannel(layout.logDir, parentEnv.PATH ?? SANDBOX_PATH);
  try {
    await writeShim({
      binary,
      realPath,
      ...(interior.targetArgv0 ? { argv0: interior.targetArgv0 } : {}),
      shimDir: layout.shimDir,
      logFile: path.posix.join(interior.logDir, path.basename(channel.file)),
      bash: interior.shellBash,
    });
  } catch (error) {
    channel.close();
    throw error;
  }
  return channel;
}

function assembleSandbox(parts: {
  options: TrialSandboxOptions;
  layout: TrialLayout;
  interior: SandboxInterior;
  environments: Environments;
  cleanup: Cleanup;
  shimChannel: ShimChannel | null;
}): TrialSandbox {
  const { options, layout, interior, environments, cleanup, shimChannel } = parts;
  const agentCap = options.outputCapBytes ?? DEFAULT_OUTPUT_CAP_BYTES;
  const shell = createAgentShell({
    starter: {
      start: (controlDir, signal) =>
        interior.startShell(controlDir, {
          env: environments.agent,
          // Ended by its calls' timeouts, the trial's signal, or the end of the agent's turn.
          timeoutMs: 0,
          outputCapBytes: SHELL_OUTPUT_CAP_BYTES,
          shimmed: shimChannel !== null,
          signal,
        }),
    },
    bash: interior.shellBash,
    baseDir: layout.base,
    searchPath: options.parentEnv.PATH ?? SANDBOX_PATH,
    outputCapBytes: agentCap,
  });
  // The shell is a process of the trial's like any other: it ends before the gates run.
  const endAgentProcesses = async () => {
    await shell.close();
    await cleanup.endProcesses();
  };
  return {
    mode: options.mode,
    root: layout.root,
    workDir: layout.workDir,
    visibleWorkDir: interior.workDir,
    agentEnv: environments.agent,
    runAgentCommand: (command, run) => shell.run(command, run),
    restartAgentShell: () => shell.restart(),
    runAgentCommandAlone: (command, run) =>
      interior.runShell(command, {
        env: environments.agent,
        timeoutMs: run.timeoutMs,
        outputCapBytes: agentCap,
        shimmed: shimChannel !== null,
        ...(run.signal ? { signal: run.signal } : {}),
      }),
    runAgentProcess: async (file, args, run) => {
      // Its own marker (instead of the trial's), so a killed agent's tree can be ended alone.
      const marker = createProcessMarker();
      cleanup.processMarkers.push(marker);
      const env = {
        ...(run.env ? environments.build(environments.shimPathPrefix, run.env) : environments.agent),
        [PROCESS_MARKER_ENV]: marker,
      };
      const result = await interior.runProcess(file, args, {
        env,
        shimmed: shimChannel !== null,
        timeoutMs: run.timeoutMs,
        outputCapBytes: agentCap,
        ...(run.signal ? { signal: run.signal } : {}),
        ...(run.onStdoutLine ? { onStdoutLine: run.onStdoutLine } : {}),
        ...(run.onStdoutCut ? { onStdoutCut: run.onStdoutCut } : {}),
        streamCapBytes: run.streamCapBytes ?? DEFAULT_AGENT_STREAM_CAP_BYTES,
        ...(run.programs ? { programs: run.programs } : {}),
        ...(run.stdin !== undefined ? { stdin: run.stdin } : {}),
        ...(run.loopbackPorts ? { loopbackPorts: run.loopbackPorts } : {}),
      });
      // Killed: its whole tree goes with it, not only its process group.
      if (result.timed_out || run.signal?.aborted) await killMarkedProcesses(marker);
      return result;
    },
    runGateCommand: (command, run) =>
      interior.runGateShell(command, {
        env: environments.gate(run.env),
        timeoutMs: run.timeoutMs,
        outputCapBytes: run.outputCapBytes ?? options.gateOutputCapBytes ?? DEFAULT_GATE_OUTPUT_CAP_BYTES,
        ...(run.signal ? { signal: run.signal } : {}),
        // A script gate reads its scenario's folder and the trial's events (LLM_TOOL_TEST_*).
        ...(run.env ? { hostPaths: scriptGatePaths(options) } : {}),
      }),
    resolvePath: (target) => resolveSandboxPath(target, layout.root, layout.workDir),
    gateFiles: {
      root: layout.root,
      workDir: layout.workDir,
      absoluteLinks: options.mode === "bwrap" ? "root" : "host",
    },
    readTargetInvocations: async (): Promise<TargetInvocationRecord[]> => shimChannel?.read() ?? [],
    endAgentProcesses,
    dispose: async () => {
      cleanup.ending();
      await shell.close();
      await cleanup.dispose();
    },
  };
}

/** What a script gate may read on the host: the scenario's folder and the trial's events, where they exist. */
function scriptGatePaths(options: TrialSandboxOptions): string[] {
  const wanted = [path.dirname(options.scenario.source.file), path.resolve(options.trialDir, "events.jsonl")];
  return wanted.filter((candidate) => existsSync(candidate));
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
    throw new ConfigError(
      `fixture ${fixture} cannot be copied: ${describeError(error)}`,
      scenario.source.file,
    );
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
