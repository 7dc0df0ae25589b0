/**
 * Where a run may write its results. Paths under /proc, /sys and /dev (symbolic links resolved),
 * and anything on a kernel pseudo-filesystem mounted elsewhere, are refused before anything is
 * written: creating folders there fails in odd ways or never returns (`--out /proc/self/x` hung).
 * /dev/shm, where it is a tmpfs, is an ordinary (memory-backed) folder and allowed.
 */
import { realpath, stat, statfs } from "node:fs/promises";
import path from "node:path";
import { ConfigError } from "../errors.js";

const PSEUDO_ROOTS = ["/proc", "/sys", "/dev"];
/** Shared memory: a tmpfs under /dev that holds files like any folder. */
const SHARED_MEMORY = "/dev/shm";
const TMPFS_MAGIC = 0x01021994;

/** statfs magic numbers of kernel pseudo-filesystems (linux/magic.h). */
const PSEUDO_FILESYSTEMS = new Map<number, string>([
  [0x9fa0, "proc"],
  [0x62656572, "sysfs"],
  [0x1cd1, "devpts"],
  [0x27e0eb, "cgroup"],
  [0x63677270, "cgroup2"],
  [0x64626720, "debugfs"],
  [0x74726163, "tracefs"],
  [0x73636673, "securityfs"],
  [0xcafe4a11, "bpf"],
  [0x62656570, "configfs"],
  [0xde5e81e4, "efivarfs"],
  [0x6165676c, "pstore"],
  [0x42494e4d, "binfmt_misc"],
  [0x19800202, "mqueue"],
]);

/**
 * Throws a ConfigError naming `flag` when `given` (resolved against `cwd`) is no place for output:
 * on a pseudo-filesystem, or (for a folder) an existing file, or (for a file) an existing folder.
 */
export async function checkOutputPath(
  given: string,
  cwd: string,
  { flag, kind }: { flag: string; kind: "folder" | "file" },
): Promise<string> {
  const absolute = path.resolve(cwd, given);
  const { existing, rest } = await resolveExistingPart(absolute);
  const resolved = path.join(existing, ...rest);
  const refuse = (why: string): never => {
    throw new ConfigError(`${JSON.stringify(given)} ${why}; write the results to a regular ${kind}`, flag);
  };
  const type = await statfs(existing).then(
    (info) => info.type,
    () => undefined,
  );
  const isUnder = (folder: string) => resolved === folder || resolved.startsWith(`${folder}/`);
  const root = PSEUDO_ROOTS.find(isUnder);
  const sharedMemory = isUnder(SHARED_MEMORY) && type === TMPFS_MAGIC;
  if (root && !sharedMemory) {
    refuse(`is under ${root}${resolved === absolute ? "" : ` (it resolves to ${resolved})`}`);
  }
  const filesystem = type === undefined ? undefined : PSEUDO_FILESYSTEMS.get(type);
  if (filesystem) refuse(`is on a ${filesystem} pseudo-filesystem`);
  if (rest.length === 0) {
    const info = await stat(existing);
    if (kind === "folder" && !info.isDirectory()) refuse("exists and is not a folder");
    if (kind === "file" && !info.isFile()) refuse("exists and is not a regular file");
  }
  return absolute;
}

/** The longest existing prefix of `absolute`, symbolic links resolved, and the names after it. */
async function resolveExistingPart(absolute: string): Promise<{ existing: string; rest: string[] }> {
  const rest: string[] = [];
  let current = absolute;
  for (;;) {
    try {
      return { existing: await realpath(current), rest };
    } catch {
      const parent = path.dirname(current);
      if (parent === current) return { existing: current, rest };
      rest.unshift(path.basename(current));
      current = parent;
    }
  }
}
