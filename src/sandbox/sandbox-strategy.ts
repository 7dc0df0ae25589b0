/**
 * What differs between the sandbox modes (local, bwrap), behind one interface: where a trial's
 * directories live on the host, what its commands see (work dir, TMPDIR, shim dir, user, PATH) and
 * how a command is started inside. Everything else about a trial's sandbox is the same in every
 * mode and lives in trial-sandbox.ts.
 */
import type { HomeLayout } from "../scenario/types.js";
import type { GateRoomPaths } from "./gate-room.js";
import type { ExecResult, ProcessGroupRegistry, ProcessOptions } from "./types.js";

/** A trial's host directories, made fresh under its temp dir `base`. */
export interface TrialLayout {
  /** The trial's temp dir (removed on dispose); commands that need a host cwd run here. */
  base: string;
  /** Host dir commands see as `/` (local: the work dir itself). */
  root: string;
  /** Host dir of the agent's working directory (HOME too, unless a home layout says otherwise). */
  workDir: string;
  /** Host dir of TMPDIR. */
  tmpDir: string;
  /** Host dir of the shim scripts, outside the work dir. */
  shimDir: string;
  /** Host dir of the shim's record channel (a FIFO), outside the work dir. */
  logDir: string;
}

interface RunSettings {
  /** The complete environment: never merged with the parent's. */
  env: Record<string, string>;
  timeoutMs: number;
  outputCapBytes: number;
  signal?: AbortSignal;
  /** Host paths the command must see at the same place (bwrap binds them read-only; local sees the host). */
  hostPaths?: string[];
  /**
   * The agent's command, once the shim is installed: bwrap then covers the target's own paths
   * with the shim (shim-cover.ts). Setup and gate commands see the real binary.
   */
  shimmed?: boolean;
}

export interface ProcessSettings extends RunSettings {
  onStdoutLine?: (line: string) => void;
  onStdoutCut?: (droppedBytes: number) => void;
  streamCapBytes?: number;
  /** Host programs the process runs (bwrap binds them; local mode sees the host). */
  programs?: string[];
  stdin?: string;
  /**
   * Ports of the host's 127.0.0.1 the process must reach even with the network off (an agent CLI's
   * credential proxy): bwrap bridges them in (loopback-bridge.ts); local mode shares the host's
   * network anyway.
   */
  loopbackPorts?: number[];
}

/** A trial's sandbox as its commands see it, and how they are started in it. */
export interface SandboxInterior {
  /** The work dir, TMPDIR, shim dir and shim log dir as commands see them. */
  workDir: string;
  /** HOME as the agent's commands see it; null: not set (a home layout without one). */
  home: string | null;
  tmpDir: string;
  shimDir: string;
  logDir: string;
  userName: string;
  /** PATH after the shim's directory. */
  basePath: string;
  /** A `bash -c` command in the work dir. */
  runShell(command: string, run: RunSettings): Promise<ExecResult>;
  /** The host's bash the agent's persistent shell runs (copies of it: persistent-shell.ts). */
  shellBash: string;
  /**
   * The agent's persistent shell: `shellLauncher(dir, …)` in the work dir, the host folder
   * `controlDir` (its FIFOs) visible inside at `dir` (bwrap: bound read-only), until it exits or
   * `run.signal` ends it (bwrap: one sandbox for the whole shell).
   */
  startShell(controlDir: string, run: RunSettings): { visibleDir: string; exited: Promise<ExecResult> };
  /** A process with an argv in the work dir (an agent CLI). */
  runProcess(file: string, args: string[], run: ProcessSettings): Promise<ExecResult>;
  /** HOME and TMPDIR of a gate's clean room, as its commands see them (gate-room.ts). */
  gateRoom: GateRoomPaths;
  /** A gate's `bash -c` in the work dir, in a clean room made afresh for it (gate-room.ts). */
  runGateShell(command: string, run: RunSettings): Promise<ExecResult>;
  /** The real target binary as the shim must call it; looked up after setup, which may build it. */
  resolveTarget(binary: string): Promise<string>;
  /** The argv[0] the shim gives the real binary, when not the path it runs (bwrap: the covered path). */
  targetArgv0?: string;
  /**
   * Ends every process the trial's commands left, where the mode can (local: every process of the
   * agent's own account); true when that ended them all (no marker sweep needed).
   */
  endProcesses?(): Promise<boolean>;
  /**
   * What the interior holds beyond the trial's processes (local: the agent's account), given back;
   * `keepFiles` when the trial's folder is kept (else files only the account could remove go).
   */
  close?(options: { keepFiles: boolean }): Promise<void>;
  /**
   * Called as the sandbox's removal starts, before anything in it is awaited (the trial is returned
   * while its removal goes on): local, a later trial's account waits until this one's files are gone.
   */
  ending?(): void;
}

/** One sandbox mode, already checked usable on this host. */
export interface SandboxStrategy {
  /**
   * Whether the mode itself ends every process a command leaves (bwrap: a pid namespace per
   * command, --die-with-parent). Then the trial needs no cgroup and no marker sweep.
   */
  endsLeftoverProcesses: boolean;
  /**
   * Where the trial's temp dir goes, given the one asked for (default: there). Local mode with an
   * agent account needs a folder that account can pass through.
   */
  chooseTmpRoot?(tmpRoot: string): Promise<string>;
  /** Where the sandbox's root, work dir and TMPDIR go under the trial's temp dir `base`. */
  layOut(base: string): Pick<TrialLayout, "root" | "workDir" | "tmpDir">;
  /**
   * Once the work dir holds the fixture, files and guidance: what the mode adds around it, then
   * the interior its commands run in. Every process started there goes through `processes`.
   */
  open(layout: TrialLayout, processes: TrialProcesses): Promise<SandboxInterior>;
}

/** How a trial's processes are kept track of, so that none outlives it (trial-sandbox.ts owns it). */
export interface TrialProcesses {
  /** Where each spawned process group is tracked. */
  groups: ProcessGroupRegistry;
  /** How its processes start inside the trial's cgroup, when it has one (ProcessOptions.place). */
  place?: ProcessOptions["place"];
}

/** What a mode is chosen with. */
export interface SandboxStrategyOptions {
  /** The parent's PATH (where the target binary and bash are looked up; never bwrap). */
  parentPath: string;
  /** The harness's environment, for LLM_TOOL_TEST_BWRAP (trusted-bwrap.ts). */
  parentEnv?: Record<string, string | undefined>;
  /** The scenario's `target.binary`, if any. */
  targetBinary: string | undefined;
  /** Whether commands may use the network (bwrap; local mode cannot take it away). */
  network: boolean;
  /** bwrap binary; default the trusted one (trusted-bwrap.ts), never one found on PATH. */
  bwrapPath?: string;
  /** bwrap: more host paths bound read-only at the same place (tools the target needs). */
  readOnlyPaths?: string[];
  /** bwrap: the sandbox's hostname (default `sandbox`; local mode cannot change it). */
  hostname?: string;
  /** bwrap: system folders writable copy-on-write, discarded with the trial (local mode: never). */
  writableSystemDirs?: boolean;
  /**
   * Where the agent starts and what HOME is (a bashkit dataset's): bwrap at those paths, local
   * mode at those paths under its work dir (where it puts a scenario's absolute paths). Absent:
   * the work dir is HOME and cwd.
   */
  home?: HomeLayout;
}
