/**
 * Making bwrap work on the runner before a run whose sandbox may be bwrap (`auto` or `bwrap`).
 * GitHub's Ubuntu 24.04 images ship bubblewrap but let AppArmor block unprivileged user namespaces
 * (`bwrap: setting up uid map: Permission denied`); the runner user has passwordless sudo. So:
 * install bubblewrap if it is missing, probe it with the namespaces the sandbox uses, and on the
 * AppArmor symptom install an AppArmor profile that lets bwrap create user namespaces (as Ubuntu
 * does for its own unprivileged sandboxes), or else turn the restriction off with sysctl, then
 * probe again. What cannot be fixed is a warning; the run then stops (`auto` does not fall back in
 * CI: sandbox-selection.ts) unless the sandbox is `local`.
 *
 * Once bwrap works, bash's loadable builtins are installed if missing (the brokered target's calls
 * start fewer processes with them; nothing depends on them).
 *
 * Only the distribution's `/usr/bin/bwrap` is trusted (never whichever `bwrap` is first on PATH:
 * a folder earlier on PATH could hold any program, which the profile would then let create user
 * namespaces unconfined). The runner is left as it was found: `restoreSandboxSetup` removes the
 * profile and puts the sysctl back once the run is over (the package stays installed).
 *
 * Every command goes through the injected RunProgram (tests use a fake; nothing here needs root).
 */
import { bwrapProbeArgs } from "../sandbox/bwrap.js";
import { LOADABLES_DIR } from "../sandbox/shim-broker.js";
// The bubblewrap package's binary: the only one the setup probes and the profile names, and the one the sandbox runs.
import { SYSTEM_BWRAP } from "../sandbox/trusted-bwrap.js";
import type { ProgramOutcome, RunProgram } from "./run-program.js";

/** One setup command with an argv (and optional stdin). */
type SetupCommand = (file: string, args: string[], stdin?: string) => Promise<ProgramOutcome>;

export const BWRAP_APPARMOR_PROFILE_PATH = "/etc/apparmor.d/bwrap";
const RESTRICTION_SYSCTL = "kernel.apparmor_restrict_unprivileged_userns";
/** apt-get update and install can take minutes on a cold mirror. */
const SETUP_COMMAND_TIMEOUT_MS = 600_000;

/**
 * The profile Ubuntu 24.04's own unprivileged sandboxes get: unconfined, allowed user namespaces.
 * The path is quoted (AppArmor's syntax for a path with any character in it).
 */
export function renderBwrapAppArmorProfile(bwrapPath: string): string {
  if (!/^\/[A-Za-z0-9/._-]+$/.test(bwrapPath)) throw new Error(`not a plain absolute path: ${bwrapPath}`);
  return [
    "abi <abi/4.0>,",
    "include <tunables/global>",
    "",
    `profile bwrap "${bwrapPath}" flags=(unconfined) {`,
    "  userns,",
    "}",
    "",
  ].join("\n");
}

export interface SandboxSetupLog {
  info(message: string): void;
  warn(message: string): void;
}

export interface SandboxSetupResult {
  /** Whether bwrap runs with the sandbox's namespaces once the setup is done. */
  usable: boolean;
  /** What the setup changed on the machine, in order (empty when bwrap already worked). */
  changes: string[];
  /** The sudo commands that undo the changes (restoreSandboxSetup), in the order to run them. */
  undo: string[][];
}

/** The setup's commands through `run`, with a minimal environment (no secret of the action's). */
function createSetupCommand(run: RunProgram, env: Record<string, string | undefined>): SetupCommand {
  const commandEnv: Record<string, string> = {
    PATH: env.PATH ?? "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
    HOME: env.HOME ?? "/tmp",
    LANG: "C.UTF-8",
    DEBIAN_FRONTEND: "noninteractive",
  };
  return (file, args, stdin) =>
    run({
      file,
      args,
      env: commandEnv,
      timeoutMs: SETUP_COMMAND_TIMEOUT_MS,
      ...(stdin !== undefined ? { stdin } : {}),
    });
}

/**
 * The setup, when the run may use bwrap (sandbox auto or bwrap), the `sandbox-setup` input allows it
 * and the runner is Linux; returns null when it was not run.
 */
export async function setUpSandboxFor(
  settings: { sandbox: string | null; sandboxSetup: boolean },
  machine: { runProgram: RunProgram; env: Record<string, string | undefined> },
  log: SandboxSetupLog,
  platform: NodeJS.Platform = process.platform,
): Promise<SandboxSetupResult | null> {
  if (!settings.sandboxSetup || settings.sandbox === "local" || platform !== "linux") return null;
  const run = createSetupCommand(machine.runProgram, machine.env);
  const result = await setUpSandbox(run, log);
  if (result.usable) await installLoadableBuiltins(run, log, result.changes);
  for (const change of result.changes) log.info(`Sandbox setup: ${change}.`);
  return result;
}

/**
 * Undoes what the setup changed to the runner's security settings (the AppArmor profile, the
 * sysctl), newest first. Never throws: what cannot be undone is a warning.
 */
export async function restoreSandboxSetup(
  result: SandboxSetupResult | null,
  machine: { runProgram: RunProgram; env: Record<string, string | undefined> },
  log: SandboxSetupLog,
): Promise<void> {
  if (!result || result.undo.length === 0) return;
  const run = createSetupCommand(machine.runProgram, machine.env);
  for (const args of result.undo) {
    const outcome = await run("sudo", ["-n", ...args]);
    if (outcome.exitCode === 0) log.info(`Sandbox setup undone: ${args.join(" ")}.`);
    else log.warn(`could not undo the sandbox setup (${args.join(" ")}: ${describeFailure(outcome)}).`);
  }
}

/** Install, probe, unblock, probe again. Never throws: a setup that fails is a warning. */
async function setUpSandbox(run: SetupCommand, log: SandboxSetupLog): Promise<SandboxSetupResult> {
  const changes: string[] = [];
  // Undo steps, newest first.
  const undo: string[][] = [];
  // sudo -n: never wait for a password that will not come.
  const sudo = (args: string[], stdin?: string) => run("sudo", ["-n", ...args], stdin);
  let bwrapPath = await locateBwrap(run);
  if (!bwrapPath) {
    log.info("bubblewrap is not installed: installing it (sudo apt-get install -y bubblewrap).");
    const update = await sudo(["apt-get", "update"]);
    const install = update.exitCode === 0 ? await sudo(["apt-get", "install", "-y", "bubblewrap"]) : update;
    bwrapPath = await locateBwrap(run);
    if (install.exitCode !== 0 || !bwrapPath) {
      log.warn(
        `could not install bubblewrap (${describeFailure(install)}): the run stops unless the sandbox is local (set sandbox: local to accept an agent on the runner itself).`,
      );
      return { usable: false, changes, undo };
    }
    changes.push("installed the bubblewrap package");
  }

  let probe = await probeBwrap(run, bwrapPath);
  if (probe.exitCode === 0) return { usable: true, changes, undo };
  if (!isUserNamespaceDenial(probe)) {
    log.warn(`bwrap does not work on this runner (${describeFailure(probe)}); the action cannot fix this.`);
    return { usable: false, changes, undo };
  }

  // A profile already there is the runner's own: never overwritten (nor removed afterwards).
  const existing = await run("test", ["-e", BWRAP_APPARMOR_PROFILE_PATH]);
  if (existing.exitCode !== 0) {
    log.info(
      `AppArmor blocks bwrap's user namespaces (${describeFailure(probe)}): installing an AppArmor profile for ${bwrapPath} at ${BWRAP_APPARMOR_PROFILE_PATH}, removed again when the run ends.`,
    );
    const written = await sudo(["tee", BWRAP_APPARMOR_PROFILE_PATH], renderBwrapAppArmorProfile(bwrapPath));
    if (written.exitCode === 0) undo.unshift(["rm", "-f", BWRAP_APPARMOR_PROFILE_PATH]);
    const loaded =
      written.exitCode === 0 ? await sudo(["apparmor_parser", "-r", BWRAP_APPARMOR_PROFILE_PATH]) : written;
    if (loaded.exitCode === 0) {
      undo.unshift(["apparmor_parser", "-R", BWRAP_APPARMOR_PROFILE_PATH]);
      changes.push(
        `installed the AppArmor profile ${BWRAP_APPARMOR_PROFILE_PATH} (bwrap may create user namespaces)`,
      );
      probe = await probeBwrap(run, bwrapPath);
      if (probe.exitCode === 0) return { usable: true, changes, undo };
    }
  }

  const before = (await run("sysctl", ["-n", RESTRICTION_SYSCTL])).stdout.trim();
  // Where the old value cannot be read, 1: the restriction was on, or bwrap would have worked.
  const previous = /^\d+$/.test(before) ? before : "1";
  log.info(`The profile did not help: setting ${RESTRICTION_SYSCTL}=0 until the run ends.`);
  const sysctl = await sudo(["sysctl", "-w", `${RESTRICTION_SYSCTL}=0`]);
  if (sysctl.exitCode === 0) {
    undo.unshift(["sysctl", "-w", `${RESTRICTION_SYSCTL}=${previous}`]);
    changes.push(`set ${RESTRICTION_SYSCTL}=0 (unprivileged user namespaces allowed for every program)`);
    probe = await probeBwrap(run, bwrapPath);
    if (probe.exitCode === 0) return { usable: true, changes, undo };
  }
  log.warn(
    `could not make bwrap work on this runner (${describeFailure(probe)}): the run stops unless the sandbox is local (set sandbox: local to accept an agent on the runner itself).`,
  );
  return { usable: false, changes, undo };
}

/**
 * bash's loadable builtins (Debian's bash-builtins), which spare the broker's requester its process
 * starts on each call of the target (shim-broker.ts). Without them it uses the system's commands,
 * slower: a failed install is a note, not a warning.
 */
async function installLoadableBuiltins(
  run: SetupCommand,
  log: SandboxSetupLog,
  changes: string[],
): Promise<void> {
  if ((await run("test", ["-e", `${LOADABLES_DIR}/mktemp`])).exitCode === 0) return;
  const update = await run("sudo", ["-n", "apt-get", "update"]);
  const install =
    update.exitCode === 0 ? await run("sudo", ["-n", "apt-get", "install", "-y", "bash-builtins"]) : update;
  if (install.exitCode === 0)
    changes.push("installed the bash-builtins package (the target's calls start fewer processes)");
  else
    log.info(
      `bash-builtins could not be installed (${describeFailure(install)}): each call of the target starts a few more processes.`,
    );
}

/** The distribution's bwrap, if it is installed; never one found on PATH. */
async function locateBwrap(run: SetupCommand): Promise<string | null> {
  const found = await run("test", ["-x", SYSTEM_BWRAP]);
  return found.exitCode === 0 ? SYSTEM_BWRAP : null;
}

function probeBwrap(run: SetupCommand, bwrapPath: string): Promise<ProgramOutcome> {
  return run(bwrapPath, [...bwrapProbeArgs(true), "true"]);
}

/** What AppArmor's restriction (or a disabled user namespace) looks like from bwrap. */
function isUserNamespaceDenial(outcome: ProgramOutcome): boolean {
  return /uid map|user namespace|Permission denied|Operation not permitted/i.test(outcome.stderr);
}

function describeFailure(outcome: ProgramOutcome): string {
  const line = outcome.stderr.trim().split("\n")[0]?.trim();
  return `exit ${outcome.exitCode}${line ? `: ${line}` : ""}`;
}
