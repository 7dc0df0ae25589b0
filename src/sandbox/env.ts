import { PROCESS_MARKER_ENV } from "./marked-processes.js";
import { collectSecretValues } from "./secrets.js";

export interface AgentEnvironmentOptions {
  parentEnv: Record<string, string | undefined>;
  /** HOME as the agent sees it; null: not set (a bashkit home layout that had none). */
  homeDir: string | null;
  /** TMPDIR as the agent sees it. */
  tmpDir: string;
  /** Directories put first on PATH (the target shim's directory). */
  pathPrefix?: string[];
  /** PATH after the prefix; default the parent's PATH (bwrap passes the sandbox's own). */
  basePath?: string;
  /** The scenario's `target.env` (merged with a variant's env): literal values, kept as written. */
  targetEnv: Record<string, string>;
  /** Set last (e.g. variables a driver needs). */
  extra?: Record<string, string>;
  /** USER and LOGNAME; default `agent`. */
  userName?: string;
  /** The trial's process marker (marked-processes.ts), set after everything else. */
  processMarker?: string;
}

const FALLBACK_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/**
 * The environment of the agent's commands, built from scratch rather than copied: PATH, HOME,
 * TMPDIR, USER/LOGNAME, LANG/LC_ALL, TERM=dumb, NO_COLOR=1, TZ (when the parent sets it), then the
 * scenario's target env, then `extra`, then the trial's process marker (its leftovers are found by
 * it when the trial ends). Nothing else comes from the parent.
 *
 * `CI` is deliberately not set: it changes the behaviour of many CLIs (the tool under test among
 * them), and the point is to measure the tool as a user's agent meets it. A scenario that wants it
 * sets it in `target.env`.
 *
 * Secret values of the parent never pass: an entry of `targetEnv`/`extra` whose value contains one
 * of the parent's secret values is dropped. Secret-looking names with literal values written by
 * the scenario author (a test token for a fake service) are kept.
 */
export function buildAgentEnvironment(options: AgentEnvironmentOptions): Record<string, string> {
  const { parentEnv } = options;
  const env: Record<string, string> = {};
  const basePath = options.basePath ?? parentEnv.PATH ?? FALLBACK_PATH;
  env.PATH = [...(options.pathPrefix ?? []), basePath].filter((part) => part.length > 0).join(":");
  if (options.homeDir !== null) env.HOME = options.homeDir;
  env.TMPDIR = options.tmpDir;
  const user = options.userName ?? "agent";
  env.USER = user;
  env.LOGNAME = user;
  const locale = pickUtf8Locale(parentEnv);
  env.LANG = locale;
  env.LC_ALL = locale;
  env.TERM = "dumb";
  env.NO_COLOR = "1";
  const tz = parentEnv.TZ;
  if (tz !== undefined && tz.length > 0) env.TZ = tz;

  const secretValues = collectSecretValues(parentEnv);
  const leaks = (value: string) => secretValues.some((secret) => value.includes(secret));
  for (const source of [options.targetEnv, options.extra ?? {}]) {
    for (const [name, value] of Object.entries(source)) {
      if (leaks(value)) continue;
      env[name] = value;
    }
  }
  if (options.processMarker !== undefined) env[PROCESS_MARKER_ENV] = options.processMarker;
  return env;
}

/** The parent's UTF-8 locale when it has one (LC_ALL, then LANG), else C.UTF-8. */
function pickUtf8Locale(parentEnv: Record<string, string | undefined>): string {
  for (const name of ["LC_ALL", "LANG"]) {
    const value = parentEnv[name];
    if (value && /utf-?8/i.test(value)) return value;
  }
  return "C.UTF-8";
}
