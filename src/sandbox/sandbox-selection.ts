/**
 * Which sandbox mode a trial runs in. `local` and `bwrap` are taken as asked (an unusable bwrap is
 * the user's configuration to fix: the bwrap strategy, and the run's preflight before it, stop with
 * a ConfigError saying how); `auto` is bwrap where bwrap really works here, else local, with a
 * warning that the agent was not isolated. bwrap is probed once per selector (one per run): the
 * probe runs bwrap with the namespaces the sandbox uses on `true`.
 */
import { ConfigError, describeError } from "../errors.js";
import type { SandboxMode, SandboxSetting } from "../scenario/types.js";
import { probeBwrap } from "./bwrap.js";
import { resolveRealBinary } from "./shim.js";

export interface SandboxSelection {
  mode: SandboxMode;
  /** Set when `auto` fell back to local: why, and what that means (for the log, report and comment). */
  warning: string | null;
}

export interface SandboxSelector {
  /** The mode for a setting (never throws: an unusable explicit bwrap fails where it is opened). */
  select(setting: SandboxSetting): Promise<SandboxSelection>;
  /** The warnings of the selections made so far, each once. */
  warnings(): string[];
  /** The modes of the selections made so far, sorted (after the preflight: every mode the run uses). */
  selected(): SandboxMode[];
}

export interface SandboxSelectorOptions {
  /** Where bwrap is looked up (the parent's PATH). */
  searchPath: string;
  /** bwrap binary; default `bwrap` on `searchPath`. */
  bwrapPath?: string;
}

type BwrapUsability = { usable: true } | { usable: false; error: unknown };

export function createSandboxSelector(options: SandboxSelectorOptions): SandboxSelector {
  let usability: Promise<BwrapUsability> | undefined;
  const issued = new Set<string>();
  const probe = () => {
    usability ??= (async (): Promise<BwrapUsability> => {
      const found =
        options.bwrapPath ?? (await resolveRealBinary("bwrap", options.searchPath).catch(() => null));
      try {
        await probeBwrap(found, options.searchPath);
        return { usable: true };
      } catch (error) {
        return { usable: false, error };
      }
    })();
    return usability;
  };
  const choose: Record<SandboxSetting, () => Promise<SandboxSelection>> = {
    local: async () => ({ mode: "local", warning: null }),
    bwrap: async () => ({ mode: "bwrap", warning: null }),
    auto: async () => {
      const found = await probe();
      if (found.usable) return { mode: "bwrap", warning: null };
      const warning = describeFallback(found.error);
      issued.add(warning);
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
  };
}

/** The warning of an `auto` run that fell back to local. */
function describeFallback(error: unknown): string {
  const reason = error instanceof ConfigError ? error.message : describeError(error);
  return (
    `the agent was NOT isolated: sandbox "auto" ran its trials in the local sandbox because bwrap does not work here (${reason.replace(/^sandbox "bwrap" /, "")}). ` +
    "In the local sandbox the agent's commands run as this user, with this machine's files and network, and can see the processes of the harness and of its parents; " +
    "install bubblewrap and allow user namespaces (the action does this on GitHub-hosted runners), or set sandbox: local to accept this."
  );
}
