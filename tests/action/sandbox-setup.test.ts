/**
 * The action's setup of bwrap on the runner, with a fake command runner standing in for the machine
 * (no sudo in tests): which commands it issues in each state of the runner, the opt-out, and the
 * warning when nothing helps.
 */
import { describe, expect, it } from "vitest";
import type { ProgramOutcome, RunProgram } from "../../src/action/run-program.js";
import {
  BWRAP_APPARMOR_PROFILE_PATH,
  renderBwrapAppArmorProfile,
  restoreSandboxSetup,
  setUpSandboxFor,
} from "../../src/action/sandbox-setup.js";

const DENIED = "bwrap: setting up uid map: Permission denied";
/** The action's environment as the setup gets it: the runner's, plus the secrets. */
const RUNNER_ENV = { PATH: "/usr/bin:/bin", HOME: "/home/runner", ANTHROPIC_API_KEY: "sk-ant-canary-5d1e" };

/** A runner whose state changes as the setup's commands succeed, like the machine would. */
function fakeRunner(machine: {
  installed: boolean;
  /** What makes the probe pass: nothing needed, the AppArmor profile, or only the sysctl. */
  fixedBy: "nothing" | "profile" | "sysctl" | "never";
  sudoWorks?: boolean;
  /** A profile file the runner already has at BWRAP_APPARMOR_PROFILE_PATH. */
  profileExists?: boolean;
  /** The sysctl's value before the setup ("" when it cannot be read). */
  sysctlBefore?: string;
  /** Whether bash's loadable builtins are installed (default yes). */
  builtins?: boolean;
  /** Whether apt-get can install bash-builtins (default yes). */
  builtinsInstallable?: boolean;
}) {
  const commands: { line: string; stdin?: string; env: Record<string, string> }[] = [];
  let profile = false;
  let sysctl = false;
  const ok = (stdout = ""): ProgramOutcome => ({ exitCode: 0, stdout, stderr: "" });
  const fail = (stderr: string, exitCode = 1): ProgramOutcome => ({ exitCode, stdout: "", stderr });
  const runProgram: RunProgram = async ({ file, args, stdin, env }) => {
    const line = [file, ...args].join(" ");
    commands.push({ line, ...(stdin !== undefined ? { stdin } : {}), env });
    // A bwrap earlier on PATH (a folder the job can write): never asked about, never run.
    if (file === "sh") return ok("/home/runner/bin/bwrap\n");
    if (file === "test" && args[0] === "-x")
      return args[1] === "/usr/bin/bwrap" && machine.installed ? ok() : fail("");
    if (file === "test" && args[0] === "-e" && args[1] === "/usr/lib/bash/mktemp")
      return machine.builtins !== false ? ok() : fail("");
    if (file === "test" && args[0] === "-e") return machine.profileExists ? ok() : fail("");
    if (file === "sysctl" && args[0] === "-n")
      return machine.sysctlBefore === "" ? fail("permission denied") : ok(`${machine.sysctlBefore ?? "1"}\n`);
    if (file === "sudo") {
      if (machine.sudoWorks === false) return fail("sudo: a password is required");
      const command = args.slice(1).join(" ");
      if (command === "apt-get install -y bubblewrap") machine.installed = true;
      if (command === "apt-get install -y bash-builtins") {
        if (machine.builtinsInstallable === false)
          return fail("E: Unable to locate package bash-builtins", 100);
        machine.builtins = true;
      }
      if (command === `apparmor_parser -r ${BWRAP_APPARMOR_PROFILE_PATH}`) profile = true;
      if (command.startsWith("sysctl -w")) sysctl = true;
      return ok();
    }
    if (file === "/usr/bin/bwrap") {
      const works =
        machine.fixedBy === "nothing" ||
        (machine.fixedBy === "profile" && profile) ||
        (machine.fixedBy === "sysctl" && sysctl);
      return works ? ok() : fail(DENIED);
    }
    throw new Error(`unexpected command ${line}`);
  };
  return {
    run: { runProgram, env: RUNNER_ENV },
    commands,
    lines: () => commands.map((c) => c.line.split(" --")[0] as string),
  };
}

function recordingLog() {
  const entries: { level: "info" | "warn"; message: string }[] = [];
  return {
    entries,
    log: {
      info: (message: string) => entries.push({ level: "info", message }),
      warn: (message: string) => entries.push({ level: "warn", message }),
    },
    warnings: () => entries.filter((e) => e.level === "warn").map((e) => e.message),
  };
}

const AUTO = { sandbox: null, sandboxSetup: true };

describe("the action's sandbox setup", () => {
  it("changes nothing where bwrap already works", async () => {
    const machine = fakeRunner({ installed: true, fixedBy: "nothing" });
    const log = recordingLog();
    expect(await setUpSandboxFor(AUTO, machine.run, log.log, "linux")).toEqual({
      usable: true,
      changes: [],
      undo: [],
    });
    expect(machine.lines()).toEqual([
      "test -x /usr/bin/bwrap",
      "/usr/bin/bwrap",
      "test -e /usr/lib/bash/mktemp",
    ]);
    expect(machine.commands.some((c) => c.line.startsWith("sudo"))).toBe(false);
    expect(log.entries).toEqual([]);
  });

  it("installs bubblewrap when it is missing, then unblocks it with an AppArmor profile (Ubuntu 24.04)", async () => {
    const machine = fakeRunner({ installed: false, fixedBy: "profile" });
    const log = recordingLog();
    const result = await setUpSandboxFor(AUTO, machine.run, log.log, "linux");
    expect(result?.usable).toBe(true);
    expect(machine.lines()).toEqual([
      "test -x /usr/bin/bwrap",
      "sudo -n apt-get update",
      "sudo -n apt-get install -y bubblewrap",
      "test -x /usr/bin/bwrap",
      "/usr/bin/bwrap",
      `test -e ${BWRAP_APPARMOR_PROFILE_PATH}`,
      `sudo -n tee ${BWRAP_APPARMOR_PROFILE_PATH}`,
      `sudo -n apparmor_parser -r ${BWRAP_APPARMOR_PROFILE_PATH}`,
      "/usr/bin/bwrap",
      "test -e /usr/lib/bash/mktemp",
    ]);
    // The probe uses the namespaces the sandbox uses, user mapping included.
    expect(machine.commands[4]!.line).toContain("--unshare-user --uid 1000 --gid 1000 --unshare-all");
    const profile = machine.commands[6]!.stdin;
    expect(profile).toBe(renderBwrapAppArmorProfile("/usr/bin/bwrap"));
    expect(profile).toContain("abi <abi/4.0>,");
    expect(profile).toContain("include <tunables/global>");
    expect(profile).toContain('profile bwrap "/usr/bin/bwrap" flags=(unconfined) {\n  userns,\n}');
    expect(result?.changes).toEqual([
      "installed the bubblewrap package",
      `installed the AppArmor profile ${BWRAP_APPARMOR_PROFILE_PATH} (bwrap may create user namespaces)`,
    ]);
    expect(log.warnings()).toEqual([]);
  });

  it("installs bash's loadable builtins once bwrap works, if missing; a failure is a note", async () => {
    const machine = fakeRunner({ installed: true, fixedBy: "nothing", builtins: false });
    const log = recordingLog();
    const result = await setUpSandboxFor(AUTO, machine.run, log.log, "linux");
    expect(machine.lines().slice(-3)).toEqual([
      "test -e /usr/lib/bash/mktemp",
      "sudo -n apt-get update",
      "sudo -n apt-get install -y bash-builtins",
    ]);
    expect(result).toEqual({
      usable: true,
      changes: ["installed the bash-builtins package (the target's calls start fewer processes)"],
      undo: [],
    });

    const failing = fakeRunner({
      installed: true,
      fixedBy: "nothing",
      builtins: false,
      builtinsInstallable: false,
    });
    const failingLog = recordingLog();
    expect((await setUpSandboxFor(AUTO, failing.run, failingLog.log, "linux"))?.usable).toBe(true);
    expect(failingLog.warnings()).toEqual([]);
    expect(failingLog.entries.map((entry) => entry.message)).toEqual([
      "bash-builtins could not be installed (exit 100: E: Unable to locate package bash-builtins): each call of the target starts a few more processes.",
    ]);

    // Not where bwrap cannot work: the sandbox is not used.
    const broken = fakeRunner({ installed: true, fixedBy: "never", builtins: false });
    await setUpSandboxFor(AUTO, broken.run, recordingLog().log, "linux");
    expect(broken.lines()).not.toContain("test -e /usr/lib/bash/mktemp");
  });

  it("falls back to the sysctl when the profile does not help", async () => {
    const machine = fakeRunner({ installed: true, fixedBy: "sysctl" });
    const result = await setUpSandboxFor(AUTO, machine.run, recordingLog().log, "linux");
    expect(result?.usable).toBe(true);
    expect(machine.lines().slice(-3)).toEqual([
      "sudo -n sysctl -w kernel.apparmor_restrict_unprivileged_userns=0",
      "/usr/bin/bwrap",
      "test -e /usr/lib/bash/mktemp",
    ]);
  });

  it("warns, without throwing, when nothing makes bwrap work", async () => {
    const machine = fakeRunner({ installed: true, fixedBy: "never", sudoWorks: false });
    const log = recordingLog();
    const result = await setUpSandboxFor(
      { sandbox: "bwrap", sandboxSetup: true },
      machine.run,
      log.log,
      "linux",
    );
    expect(result).toEqual({ usable: false, changes: [], undo: [] });
    expect(log.warnings()).toEqual([
      `could not make bwrap work on this runner (exit 1: ${DENIED}): the run stops unless the sandbox is local (set sandbox: local to accept an agent on the runner itself).`,
    ]);
  });

  it("warns when bubblewrap cannot be installed", async () => {
    const machine = fakeRunner({ installed: false, fixedBy: "nothing", sudoWorks: false });
    const log = recordingLog();
    expect((await setUpSandboxFor(AUTO, machine.run, log.log, "linux"))?.usable).toBe(false);
    expect(log.warnings()).toHaveLength(1);
    expect(log.warnings()[0]).toMatch(
      /^could not install bubblewrap \(exit 1: sudo: a password is required\)/,
    );
  });

  it("runs its commands with a minimal environment, without the action's secrets", async () => {
    const machine = fakeRunner({ installed: false, fixedBy: "profile" });
    await setUpSandboxFor(AUTO, machine.run, recordingLog().log, "linux");
    expect(machine.commands.length).toBeGreaterThan(0);
    for (const command of machine.commands) {
      expect(command.env).toEqual({
        PATH: "/usr/bin:/bin",
        HOME: "/home/runner",
        LANG: "C.UTF-8",
        DEBIAN_FRONTEND: "noninteractive",
      });
    }
  });

  it("warns when a command cannot start (exit 127, see run-program.test.ts)", async () => {
    const runProgram: RunProgram = async ({ file }) => ({
      exitCode: 127,
      stdout: "",
      stderr: `could not start "${file}": spawn ${file} ENOENT`,
    });
    const log = recordingLog();
    const result = await setUpSandboxFor(AUTO, { runProgram, env: {} }, log.log, "linux");
    expect(result).toEqual({ usable: false, changes: [], undo: [] });
    expect(log.warnings()).toEqual([
      `could not install bubblewrap (exit 127: could not start "sudo": spawn sudo ENOENT): the run stops unless the sandbox is local (set sandbox: local to accept an agent on the runner itself).`,
    ]);
  });

  it("trusts only /usr/bin/bwrap, by full path and quoted: never a bwrap first on PATH (issue #25)", async () => {
    const machine = fakeRunner({ installed: true, fixedBy: "profile" });
    await setUpSandboxFor(AUTO, machine.run, recordingLog().log, "linux");
    expect(
      machine.commands.some((c) => c.line.includes("command -v") || c.line.includes("/home/runner/bin")),
    ).toBe(false);
    const profile = machine.commands.find(
      (c) => c.line === `sudo -n tee ${BWRAP_APPARMOR_PROFILE_PATH}`,
    )?.stdin;
    expect(profile).toContain('profile bwrap "/usr/bin/bwrap" flags=(unconfined)');
    expect(() => renderBwrapAppArmorProfile("/tmp/x y/bwrap")).toThrow(/not a plain absolute path/);
  });

  it("undoes the profile and the sysctl when the run ends, the sysctl to its previous value (issue #25)", async () => {
    const machine = fakeRunner({ installed: true, fixedBy: "sysctl", sysctlBefore: "2" });
    const log = recordingLog();
    const result = await setUpSandboxFor(AUTO, machine.run, log.log, "linux");
    expect(result?.usable).toBe(true);
    machine.commands.splice(0);
    await restoreSandboxSetup(result, machine.run, log.log);
    expect(machine.lines()).toEqual([
      "sudo -n sysctl -w kernel.apparmor_restrict_unprivileged_userns=2",
      `sudo -n apparmor_parser -R ${BWRAP_APPARMOR_PROFILE_PATH}`,
      `sudo -n rm -f ${BWRAP_APPARMOR_PROFILE_PATH}`,
    ]);
    expect(log.warnings()).toEqual([]);
  });

  it("never overwrites (nor removes) a profile the runner already has", async () => {
    const machine = fakeRunner({ installed: true, fixedBy: "sysctl", profileExists: true });
    const result = await setUpSandboxFor(AUTO, machine.run, recordingLog().log, "linux");
    expect(result?.usable).toBe(true);
    expect(machine.lines().some((line) => line.includes("tee") || line.includes("apparmor_parser"))).toBe(
      false,
    );
    expect(result?.undo).toEqual([["sysctl", "-w", "kernel.apparmor_restrict_unprivileged_userns=1"]]);
  });

  it("is skipped with sandbox-setup: false, with sandbox local, and off Linux", async () => {
    for (const [settings, platform] of [
      [{ sandbox: null, sandboxSetup: false }, "linux"],
      [{ sandbox: "local", sandboxSetup: true }, "linux"],
      [AUTO, "darwin"],
    ] as const) {
      const machine = fakeRunner({ installed: false, fixedBy: "never" });
      expect(await setUpSandboxFor(settings, machine.run, recordingLog().log, platform)).toBeNull();
      expect(machine.commands).toEqual([]);
    }
  });
});
