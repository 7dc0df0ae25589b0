/** One real invocation of the target binary, as the PATH shim recorded it. */
export interface TargetInvocationRecord {
  /** argv[0] is the binary's name (the shim's name), then the arguments exactly as passed. */
  argv: string[];
  exit_code: number;
  duration_ms: number;
  cwd: string | null;
  started_at_ms: number;
}

export interface ExecOptions {
  /** Run with `bash -c`. */
  command: string;
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
  /** Cap for each of stdout and stderr; head and tail are kept, the middle marked as cut. */
  outputCapBytes: number;
  stdin?: string;
  signal?: AbortSignal;
  /** The shell binary; default `bash` looked up on `env.PATH`. */
  shell?: string;
  /** Where the spawned process group is tracked (besides the process-wide registry). */
  processGroups?: ProcessGroupRegistry;
}

/** A process run with an argv (no shell): bwrap, external agent CLIs. */
export interface ProcessOptions {
  file: string;
  args: string[];
  cwd: string;
  /** The complete environment: never merged with the parent's. */
  env: Record<string, string>;
  timeoutMs: number;
  outputCapBytes: number;
  stdin?: string;
  signal?: AbortSignal;
  /**
   * Called with every complete stdout line (without its newline) as it arrives, for the first
   * `streamCapBytes` of stdout (default outputCapBytes); past them the middle is cut (onStdoutCut,
   * else a line saying so) and the last half of outputCapBytes follows once the process ended.
   */
  onStdoutLine?: (line: string) => void;
  onStdoutCut?: (droppedBytes: number) => void;
  streamCapBytes?: number;
  processGroups?: ProcessGroupRegistry;
  /**
   * Where it starts, settled when it starts (a trial's cgroup: trial-cgroup.ts): possibly another
   * argv that starts it there, and the runner to spawn it from; absent: as given, from a shared runner.
   */
  place?: (file: string, args: string[]) => Promise<ProcessPlacement>;
}

/** A process as it must be started to be contained (see ProcessOptions.place). */
export interface ProcessPlacement {
  file: string;
  args: string[];
  /** A dedicated runner to spawn it from, else a shared one. */
  runner?: DedicatedProcessRunner;
}

/**
 * A process runner of one owner's alone: a trial's, placed in the trial's cgroup, so that every
 * process it spawns is born there (trial-cgroup.ts). Idle, it does not keep the harness alive.
 */
export interface DedicatedProcessRunner {
  readonly pid: number;
  /** False once it died or was closed: its runs then fail with an infrastructure error. */
  readonly alive: boolean;
  /** Kills it (SIGKILL); runs in flight fail. */
  close(): void;
}

/** Process groups spawned by a trial, so leftovers (background children) can be ended with it. */
export interface ProcessGroupRegistry {
  track(pgid: number): void;
  untrack(pgid: number): void;
  /** Tracked groups that may still have members. */
  list(): number[];
}

/** A host file a sandboxed process needs: read (a script node runs) or run (a binary). */
export interface HostFile {
  path: string;
  use: "read" | "execute";
}

export interface ExecResult {
  stdout: string;
  stderr: string;
  /** Exit code; 124 when timed out, 128+n when killed by signal n. */
  exit_code: number;
  duration_ms: number;
  timed_out: boolean;
  truncated: boolean;
  /**
   * The agent's persistent shell is gone after this call (a timeout killed it, or its runner was
   * killed): the next call starts a fresh one. Absent otherwise.
   */
  shell_exited?: boolean;
}

/** A fresh work dir for one trial, its environment, and the commands run in it. */
export interface TrialSandbox {
  mode: "local" | "bwrap";
  /** Host path that the sandbox sees as `/` (bwrap) or the work dir itself (local). */
  root: string;
  /** Host path of the agent's working directory. */
  workDir: string;
  /** The working directory as the agent sees it (same as workDir in local mode). */
  visibleWorkDir: string;
  /** Environment of the agent's commands: scrubbed, HOME the work dir (or its home layout's), shim first on PATH. */
  agentEnv: Record<string, string>;
  /**
   * An agent's bash call, in the trial's persistent shell (persistent-shell.ts: cwd, variables,
   * functions and aliases last from one call to the next; started at the first call, and again
   * after it exited or timed out): shim active, recorded by the shim.
   */
  runAgentCommand(command: string, options: { timeoutMs: number; signal?: AbortSignal }): Promise<ExecResult>;
  /** Ends the agent's shell: the next call starts a fresh one (the bash tool's `restart`). */
  restartAgentShell(): Promise<void>;
  /**
   * A command in a fresh `bash -c` of its own (bwrap: a sandbox of its own), as every agent call
   * ran before the persistent shell: for comparison (bench/) and one-off uses. Shim active.
   */
  runAgentCommandAlone(
    command: string,
    options: { timeoutMs: number; signal?: AbortSignal },
  ): Promise<ExecResult>;
  /**
   * An external agent's process (an agent CLI) with an argv: agent env plus `env` (values holding a
   * parent secret are dropped), cwd the work dir, shim active. bwrap: run inside with the scenario's
   * network (without it, only `loopbackPorts` of the host's 127.0.0.1 are bridged in) and the
   * binary's directories bound read-only.
   */
  runAgentProcess(
    file: string,
    args: string[],
    options: {
      timeoutMs: number;
      signal?: AbortSignal;
      env?: Record<string, string>;
      onStdoutLine?: (line: string) => void;
      onStdoutCut?: (droppedBytes: number) => void;
      /** Streamed stdout kept before the middle is cut (see ProcessOptions); default 1 MiB. */
      streamCapBytes?: number;
      /** Host programs it runs, made visible inside (bwrap; see program-binds.ts). */
      programs?: string[];
      stdin?: string;
      /** Host loopback ports it must reach with the network off (its credential proxy). */
      loopbackPorts?: number[];
    },
  ): Promise<ExecResult>;
  /**
   * A gate's command, in a clean room of its own (gate-room.ts): the work dir at the same place,
   * everything else (system folders, /etc, a fresh empty HOME and TMPDIR) from the host image, the
   * scenario env without the shim; never recorded. `env` adds variables (script gates); the output
   * cap defaults to a larger one than the agent's, so JSON output stays parseable; `signal` ends it.
   */
  runGateCommand(
    command: string,
    options: {
      timeoutMs: number;
      env?: Record<string, string>;
      outputCapBytes?: number;
      signal?: AbortSignal;
    },
  ): Promise<ExecResult>;
  /** A scenario path on the host: relative to the work dir; absolute paths resolve inside the root.
   * Lexical only (symlinks not looked at): file gates walk `gateFiles` instead. */
  resolvePath(path: string): string;
  /** The files file gates may read (src/evaluate/gate-files.ts). */
  gateFiles: GateFileTree;
  /** Invocations recorded by the shim so far, in start order. */
  readTargetInvocations(): Promise<TargetInvocationRecord[]>;
  /**
   * Ends every process the trial started (setsid, double-forked and environment-clearing ones
   * included, as dispose does) while keeping the sandbox: called when the agent is done, so that
   * nothing it left runs while the gates judge its work.
   */
  endAgentProcesses(): Promise<void>;
  dispose(): Promise<void>;
}

/** The agent's files as file gates see them: nothing outside `root` (docs/sandbox.md). */
export interface GateFileTree {
  /** Host folder the agent's absolute paths name (bwrap: the sandbox's `/`; local: the work dir). */
  root: string;
  /** Host folder of the work dir, where relative paths start. */
  workDir: string;
  /**
   * What an absolute symlink target names: `root`, a path inside the tree (bwrap, where the tree is
   * the agent's `/`); `host`, a host path (local mode), inside the tree only under `root` itself.
   */
  absoluteLinks: "root" | "host";
}
