/**
 * Private /tmp, /var/tmp and /dev/shm for a local-mode trial that runs as an agent account
 * (agent-account.ts): without them, two trials in flight at once, on two accounts, read each
 * other's files there whenever one makes them readable by all.
 *
 * A holder process, root in a mount namespace of its own (`unshare --mount`, private propagation:
 * nothing mounted there reaches the host), lays over each shared temp folder an overlay whose lower
 * layer is the host's folder and whose upper layer sits on a tmpfs of the trial's: the agent still
 * sees what was there (a tool or a checkout under /tmp), and whatever it writes there goes to that
 * tmpfs, which no other process of the host, nor another trial, can reach. The trial's own folder
 * (usually under /tmp) is bound back over its overlay, so the work dir, the shim's files and the
 * shell's control folder are the host's, as the harness reads them. Every command of the trial
 * enters the namespace (`nsenter --mount`) before it becomes the account. When the trial ends its
 * processes are killed, the holder is told to go (its stdin closes, as it does when the harness
 * dies), and the kernel frees the namespace and its tmpfs: nothing of it stays on the host.
 */
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { InfraError } from "../errors.js";
import { startHeldProcess } from "./exec.js";

/** The programs the namespace takes, from the system folders. */
export interface NamespaceTools {
  unshare: string;
  nsenter: string;
  /** Changes the working directory once inside (nsenter's own --wd opens it before entering: out of the namespace's reach). */
  env: string;
}

/** A trial's namespace, held open until `close`. */
export interface PrivateTemp {
  /** The arguments that run a command in the namespace, from `cwd`, before the rest of its own. */
  enter(cwd: string): string[];
  /** Lets the namespace go (once the trial's processes are gone) and waits for its holder to exit. */
  close(): Promise<void>;
}

/** Run as root in the new namespace: `$1` the trial's folder, `$2` a scratch folder in it, then the folders to lay over. */
const HOLDER_SCRIPT = [
  "set -eu",
  "keep=$1; scratch=$2; shift 2",
  // The trial's folder as the host has it, before an overlay hides it.
  'exec 3<"$keep"',
  'mount -t tmpfs -o mode=0700 llm-tool-test-temp "$scratch"',
  // Its layers are named from here on: an overlay laid over /tmp would hide its path.
  'cd "$scratch"',
  "index=0",
  'for folder in "$@"; do',
  '  upper="upper$index"; work="work$index"',
  '  mkdir "$upper" "$work"',
  // The overlay's root is the upper folder: it must look as the host's (1777, root's).
  '  chmod --reference="$folder" "$upper"; chown --reference="$folder" "$upper"',
  '  mount -t overlay llm-tool-test-temp -o "lowerdir=$folder,upperdir=$upper,workdir=$work" "$folder"',
  "  index=$((index + 1))",
  "done",
  // -c: mount would otherwise resolve the link to its path, which the overlay now covers.
  'mount --no-canonicalize --bind /proc/self/fd/3 "$keep"',
  "exec 3<&-",
  'echo "ready $$"',
  // Until the harness closes stdin (or dies).
  "while read -r _; do :; done",
].join("\n");

/** How long the holder may take to lay its mounts (a busy machine). */
const READY_TIMEOUT_MS = 30_000;

/**
 * Starts the namespace of a trial whose folder is `keep`, laying over `folders`. `asRoot` says how
 * a command runs as root (itself, or through sudo); `env` is the holder's environment.
 */
export async function openPrivateTemp(options: {
  tools: NamespaceTools;
  keep: string;
  folders: readonly string[];
  asRoot(file: string, args: string[]): { file: string; args: string[] };
  bash: string;
  env: Record<string, string>;
}): Promise<PrivateTemp> {
  const { tools, keep } = options;
  // Made by the harness, closed to every other user; in the namespace only, a tmpfs covers it.
  const scratch = path.join(keep, "private-temp");
  await mkdir(scratch, { mode: 0o700 });
  const command = options.asRoot(tools.unshare, [
    "--mount",
    "--propagation",
    "private",
    "--",
    options.bash,
    // Its stdin is a socket, for which bash would read root's ~/.bashrc.
    "--norc",
    "--noprofile",
    "-c",
    HOLDER_SCRIPT,
    "llm-tool-test-private-temp",
    keep,
    scratch,
    ...options.folders,
  ]);
  const holder = startHeldProcess(command.file, command.args, options.env);
  let gone = false;
  const exited = new Promise<number | null>((resolve) => {
    holder.once("error", () => resolve(null));
    holder.once("close", (code) => resolve(code));
  }).finally(() => {
    gone = true;
  });
  let stderr = "";
  holder.stderr.setEncoding("utf8");
  holder.stderr.on("data", (chunk: string) => {
    stderr = (stderr + chunk).slice(-2000);
  });
  const pid = await new Promise<number | null>((resolve) => {
    let stdout = "";
    holder.stdout.setEncoding("utf8");
    holder.stdout.on("data", (chunk: string) => {
      stdout += chunk;
      const ready = /^ready (\d+)$/m.exec(stdout);
      if (ready) resolve(Number(ready[1]));
    });
    const timer = setTimeout(() => resolve(null), READY_TIMEOUT_MS);
    timer.unref();
    void exited.then(() => resolve(null));
  });

  if (pid === null) {
    holder.stdin.end();
    holder.kill("SIGKILL");
    const code = await exited;
    throw new InfraError(
      `could not give the trial private /tmp, /var/tmp and /dev/shm (a mount namespace through ${tools.unshare}, exit ${code ?? "none"}: ${stderr.trim() || "no answer"})`,
    );
  }
  return {
    enter: (cwd) => {
      // Its pid could be another process's by now: never enter whatever namespace that one has.
      if (gone)
        throw new InfraError(
          `the trial's private /tmp ended early (its holder exited: ${stderr.trim() || "no message"})`,
        );
      return [tools.nsenter, `--target=${pid}`, "--mount", "--", tools.env, `--chdir=${cwd}`, "--"];
    },
    async close() {
      holder.stdin.end();
      await exited;
    },
  };
}
