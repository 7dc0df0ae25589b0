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
 * Every command goes through the injected RunProgram (tests use a fake; nothing here needs root).
 */
import { bwrapProbeArgs } from "../sandbox/bwrap.js";
import type { ProgramOutcome, RunProgram } from "./run-program.js";

/** One setup command with an argv (and optional stdin). */
type SetupCommand = (file: string, args: string[], stdin?: string) => Promise<ProgramOutcome>;

export const BWRAP_APPARMOR_PROFILE_PATH = "/etc/apparmor.d/bwrap";
const RESTRICTION_SYSCTL = "kernel.apparmor_restrict_unprivileged_userns";
/** apt-get update and install can take minutes on a cold mirror. */
const SETUP_COMMAND_TIMEOUT_MS = 600_000;

/** The profile Ubuntu 24.04's own unprivileged sandboxes get: unconfined, allowed user namespaces. */
export function renderBwrapAppArmorProfile(bwrapPath: string): string {
  return [
    "abi <abi/4.0>,",
    "include <tunables/global>",
    "",
    `profile bwrap ${bwrapPath} flags=(unconfined) {`,
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
  const result = await setUpSandbox(createSetupCommand(machine.runProgram, machine.env), log);
  for (const change of result.changes) log.info(`Sandbox setup: ${change}.`);
  return result;
}

/** Install, probe, unblock, probe again. Never throws: a setup that fails is a warning. */
async function setUpSandbox(run: SetupCommand, log: SandboxSetupLog): Promise<SandboxSetupResult> {
  const changes: string[] = [];
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
      return { usable: false, changes };
    }
    changes.push("installed the bubblewrap package");
  }

  let probe = await probeBwrap(run, bwrapPath);
  if (probe.exitCode === 0) return { usable: true, changes };
  if (!isUserNamespaceDenial(probe)) {
    log.warn(`bwrap does not work on this runner (${describeFailure(probe)}); the action cannot fix this.`);
    return { usable: false, changes };
  }

  log.info(
    `AppArmor blocks bwrap's user namespaces (${describeFailure(probe)}): installing an AppArmor profile for ${bwrapPath} at ${BWRAP_APPARMOR_PROFILE_PATH}.`,
  );
  const written = await sudo(["tee", BWRAP_APPARMOR_PROFILE_PATH], renderBwrapAppArmorProfile(bwrapPath));
  const loaded =
    written.exitCode === 0 ? await sudo(["apparmor_parser", "-r", BWRAP_APPARMOR_PROFILE_PATH]) : written;
  if (loaded.exitCode === 0) {
    changes.push(
      `installed the AppArmor profile ${BWRAP_APPARMOR_PROFILE_PATH} (bwrap may create user namespaces)`,
    );
    probe = await probeBwrap(run, bwrapPath);
    if (probe.exitCode === 0) return { usable: true, changes };
  }

  log.info(`The profile did not help: setting ${RESTRICTION_SYSCTL}=0 for this runner.`);
  const sysctl = await sudo(["sysctl", "-w", `${RESTRICTION_SYSCTL}=0`]);
  if (sysctl.exitCode === 0) {
    changes.push(`set ${RESTRICTION_SYSCTL}=0 (unprivileged user namespaces allowed for every program)`);
    probe = await probeBwrap(run, bwrapPath);
    if (probe.exitCode === 0) return { usable: true, changes };
  }
  log.warn(
    `could not make bwrap work on this runner (${describeFailure(probe)}): the run stops unless the sandbox is local (set sandbox: local to accept an agent on the runner itself).`,
  );
  return { usable: false, changes };
}

async function locateBwrap(run: SetupCommand): Promise<string | null> {
  const found = await run("sh", ["-c", "command -v bwrap"]);
  const bwrapPath = found.stdout.trim();
  return found.exitCode === 0 && bwrapPath.startsWith("/") ? bwrapPath : null;
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
