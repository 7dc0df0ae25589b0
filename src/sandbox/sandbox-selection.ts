/**
 * Which sandbox mode a trial runs in. `local` and `bwrap` are taken as asked (an unusable bwrap is
 * the user's configuration to fix: the bwrap strategy, and the run's preflight before it, stop with
 * a ConfigError saying how); `auto` is bwrap where bwrap really works here, else local, with a
 * warning that the agent was not isolated. bwrap is probed once per selector (one per run): the
 * probe runs bwrap with the namespaces the sandbox uses on `true`.
 *
 * Where the local sandbox cannot run the agent as a user of its own (agent-account.ts), every
 * selection of it adds a warning saying so, for the log, the report and the comment.
 *
 * In CI (`failClosed`) `auto` never falls back: a job that holds secrets and gates merges must not
 * run agents unsandboxed because bwrap broke on its runner. It stops with a ConfigError saying why
 * bwrap failed and the two ways out; only an explicit `local` runs there.
 */
import { ConfigError, describeError } from "../errors.js";
import type { SandboxMode, SandboxSetting } from "../scenario/types.js";
import {
  findSameUserReason,
  findSharedTempReason,
  sameUserWarning,
  sharedTempWarning,
} from "./agent-account.js";
import { probeBwrap } from "./bwrap.js";
import { locateTrustedBwrap } from "./trusted-bwrap.js";

interface SandboxSelection {
  mode: SandboxMode;
  /** Set when `auto` fell back to local: why, and what that means (for the log, report and comment). */
  warning: string | null;
}

export interface SandboxSelector {
  /**
   * The mode for a setting. An unusable explicit bwrap fails where it is opened; an `auto` that
   * cannot have bwrap throws a ConfigError when the selector fails closed (CI), else falls back.
   */
  select(setting: SandboxSetting): Promise<SandboxSelection>;
  /** The warnings of the selections made so far, each once. */
  warnings(): string[];
  /** The modes of the selections made so far, sorted (after the preflight: every mode the run uses). */
  selected(): SandboxMode[];
  /** Checks that the trusted bwrap runs here: a ConfigError saying how to fix it otherwise. */
  requireBwrap(): Promise<void>;
}

export interface SandboxSelectorOptions {
  /** Where bwrap is looked up (the parent's PATH). */
  searchPath: string;
  /** bwrap binary; default the trusted one (trusted-bwrap.ts), never one found on PATH. */
  bwrapPath?: string;
  /** The harness's environment, for LLM_TOOL_TEST_BWRAP; default none (/usr/bin/bwrap). */
  env?: Record<string, string | undefined>;
  /** CI: `auto` where bwrap does not work is a ConfigError instead of a fallback to local. */
  failClosed?: boolean;
}

/**
 * Whether `env` is a CI job's: `CI` set to anything but empty, `0` or `false` (GitHub Actions,
 * GitLab, CircleCI and most others set `CI=true`).
 */
export function isCiEnvironment(env: Record<string, string | undefined>): boolean {
  const value = env.CI?.trim().toLowerCase();
  return value !== undefined && value !== "" && value !== "0" && value !== "false";
}

type BwrapUsability = { usable: true } | { usable: false; error: unknown };

export function createSandboxSelector(options: SandboxSelectorOptions): SandboxSelector {
  let usability: Promise<BwrapUsability> | undefined;
  const issued = new Set<string>();
  const requireBwrap = async () => {
    await probeBwrap(options.bwrapPath ?? (await locateTrustedBwrap(options.env ?? {})));
  };
  const probe = () => {
    usability ??= (async (): Promise<BwrapUsability> => {
      try {
        await requireBwrap();
        return { usable: true };
      } catch (error) {
        return { usable: false, error };
      }
    })();
    return usability;
  };
  // Where the local sandbox cannot run the agent as another user, or give its trials temp folders
  // of their own, every run using it says so.
  const noteLocalUser = async () => {
    const reason = await findSameUserReason(options.searchPath);
    if (reason !== null) issued.add(sameUserWarning(reason));
    const sharedTemp = await findSharedTempReason(options.searchPath);
    if (sharedTemp !== null) issued.add(sharedTempWarning(sharedTemp));
  };
  const choose: Record<SandboxSetting, () => Promise<SandboxSelection>> = {
    local: async () => {
      await noteLocalUser();
      return { mode: "local", warning: null };
    },
    bwrap: async () => ({ mode: "bwrap", warning: null }),
    auto: async () => {
      const found = await probe();
      if (found.usable) return { mode: "bwrap", warning: null };
      if (options.failClosed) throw refuseFallback(found.error);
      const warning = describeFallback(found.error);
      issued.add(warning);
      await noteLocalUser();
      return { mode: "local", warning };
    },
  };
  const modes = new Set<SandboxMode>();
  return {
    select: async (setting) => {
      const selection = await choose[setting]();
      modes.add(selection.mode);
      return selection;
    },
    warnings: () => [...issued],
    selected: () => [...modes].sort(),
    requireBwrap,
  };
}

/** Why bwrap did not work, as the probe said. */
function describeProbeFailure(error: unknown): string {
  const reason = error instanceof ConfigError ? error.message : describeError(error);
  return reason.replace(/^sandbox "bwrap" /, "");
}

/** The error of an `auto` run in CI where bwrap does not work. */
function refuseFallback(error: unknown): ConfigError {
  return new ConfigError(
    `sandbox "auto" cannot use bwrap here (${describeProbeFailure(error)}), and in CI it does not fall back to the local sandbox, where the agent runs on the runner itself. ` +
      "Either make bwrap work (install bubblewrap and allow it user namespaces; the action's sandbox-setup does this on GitHub-hosted Ubuntu runners), " +
      "or choose the local sandbox explicitly (the action's `sandbox: local`, the CLI's `--sandbox local`, or `sandbox: local` in the scenario) to accept what it leaves in the agent's reach (docs/sandbox.md).",
  );
}

/** The warning of an `auto` run that fell back to local. */
function describeFallback(error: unknown): string {
  return (
    `the agent was NOT isolated: sandbox "auto" ran its trials in the local sandbox because bwrap does not work here (${describeProbeFailure(error)}). ` +
    "In the local sandbox the agent's commands run as this user, with this machine's files and network, and can see the processes of the harness and of its parents; " +
    "install bubblewrap and allow user namespaces (the action does this on GitHub-hosted runners), or set sandbox: local to accept this."
  );
}
