/**
 * Which bwrap the sandbox runs. Never the first `bwrap` on PATH: whoever can write a folder on the
 * harness's PATH (`~/.local/bin`, `node_modules/.bin`, a step earlier in the CI job) would otherwise
 * choose the program that builds every sandbox, and the harness would run it with the trial's
 * environment. The distribution's `/usr/bin/bwrap` is used, the one the action's setup installs and
 * its AppArmor profile names; `LLM_TOOL_TEST_BWRAP` may name another (NixOS, a bwrap built from
 * source), and is trusted only as a file that only root can change: it and every folder above it
 * owned by root and writable by no group or other user (a sticky folder such as /tmp excepted).
 */
import { realpath, stat } from "node:fs/promises";
import path from "node:path";
import { ConfigError } from "../errors.js";

export const SYSTEM_BWRAP = "/usr/bin/bwrap";
/** Names another bwrap than /usr/bin/bwrap; trusted only if only root can change it. */
const BWRAP_OVERRIDE_VARIABLE = "LLM_TOOL_TEST_BWRAP";

const INSTALL_HINT = "install it (sudo apt-get install -y bubblewrap) or use the local sandbox";

/**
 * The bwrap to run (its real path): `LLM_TOOL_TEST_BWRAP` of the harness's environment `env` when
 * set, else /usr/bin/bwrap. A
 * ConfigError saying why when it is missing or could be changed by someone other than root.
 */
export async function locateTrustedBwrap(env: Record<string, string | undefined>): Promise<string> {
  const override = env[BWRAP_OVERRIDE_VARIABLE]?.trim();
  const named = override ? override : SYSTEM_BWRAP;
  const source = override ? `${BWRAP_OVERRIDE_VARIABLE}=${override}` : SYSTEM_BWRAP;
  if (!path.isAbsolute(named)) {
    throw new ConfigError(`sandbox "bwrap": ${source} is not an absolute path: name bwrap by its full path`);
  }
  const real = await realpath(named).catch(() => null);
  const info = real ? await stat(real).catch(() => null) : null;
  if (!real || !info?.isFile() || (info.mode & 0o111) === 0) {
    throw new ConfigError(
      `sandbox "bwrap" needs bubblewrap at ${source}, but it is not there (a bwrap elsewhere on PATH is never used): ${INSTALL_HINT}` +
        (override ? "" : `, or set ${BWRAP_OVERRIDE_VARIABLE} to a bwrap that only root can change`),
    );
  }
  const unsafe = await findChangeableByOthers(real);
  if (unsafe) {
    throw new ConfigError(
      `sandbox "bwrap": ${source} is not trusted: ${unsafe}, so someone other than root could replace the program that builds every sandbox. ` +
        `Use a bwrap that root owns in folders only root can write (the distribution's ${SYSTEM_BWRAP}), or use the local sandbox`,
    );
  }
  return real;
}

/** Why `file` (a real path) could be changed by someone other than root, or null. */
async function findChangeableByOthers(file: string): Promise<string | null> {
  for (let current = file; ; current = path.dirname(current)) {
    const info = await stat(current).catch(() => null);
    if (!info) return `${current} cannot be examined`;
    if (info.uid !== 0) return `${current} is owned by uid ${info.uid}, not root`;
    // A root-owned sticky folder (/tmp) lets no one else rename or remove root's entries in it.
    const sticky = info.isDirectory() && (info.mode & 0o1000) !== 0 && current !== file;
    if ((info.mode & 0o022) !== 0 && !sticky) {
      return `${current} is writable by ${(info.mode & 0o002) !== 0 ? "every user" : "its group"}`;
    }
    if (path.dirname(current) === current) return null;
  }
}
