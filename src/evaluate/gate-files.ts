/**
 * What file gates see: the agent's own files and nothing else (docs/sandbox.md "What gates see"). The harness reads them
 * on the host, so a path is walked one component at a time with lstat, never handed to the kernel
 * to resolve: a symbolic link is followed only while every step stays inside the sandbox's tree
 * (its target read as the agent's commands read it), `..` cannot climb out of it, and the last
 * component is opened with O_NOFOLLOW | O_NONBLOCK and checked to be the very file the walk found.
 * Only regular files are read (a FIFO would block, `/dev/zero` never ends), and at most
 * MAX_GATE_FILE_BYTES of them. In local mode, where the agent shares the host's file system, a file
 * with several hard links is not read either: one of them could be a host file's (in bwrap no
 * link can cross into the host's files, which are other mounts).
 */
import { constants, type Stats } from "node:fs";
import { lstat, open, readlink } from "node:fs/promises";
import path from "node:path";
import type { GateFileTree } from "../sandbox/types.js";

/** The most of a file a file gate reads; a larger file fails the gate (a partial read could mislead it). */
export const MAX_GATE_FILE_BYTES = 10 * 1024 * 1024;
/** As the kernel's limit on links followed in one lookup (ELOOP). */
const MAX_LINK_HOPS = 40;
/** How much of a link's target a message quotes (the target is the agent's text). */
const TARGET_QUOTE_CHARS = 160;

/** A path as the walk found it: where it is on the host and what it is, or why it is not there. */
export type TreeEntry =
  | { found: true; hostPath: string; stats: Stats }
  | { found: false; refused: boolean; reason: string };

/**
 * Finds `given` (relative: from the work dir; absolute: inside the tree's root) without leaving
 * the tree: a missing component is `found: false`; a link or `..` that leads out is refused.
 */
export async function lookUpGatePath(tree: GateFileTree, given: string): Promise<TreeEntry> {
  const rootInfo = await lstat(tree.root).catch(() => null);
  if (!rootInfo?.isDirectory()) {
    return refuse(`the sandbox's folder ${tree.root} is no longer a directory (the agent replaced it)`);
  }
  const start = path.isAbsolute(given) ? [] : splitPath(path.relative(tree.root, tree.workDir));
  if (start[0] === "..") return refuse("the work dir is outside the sandbox's folder");
  // Resolved components below the root (links expanded), and the components still to walk.
  const resolved: string[] = [];
  let pending = [...start, ...splitPath(given)];
  let hops = 0;
  let stats = rootInfo;
  while (pending.length > 0) {
    const name = pending[0] as string;
    pending = pending.slice(1);
    if (name === "..") {
      if (resolved.length === 0) return refuse(`${JSON.stringify(given)} leaves the sandbox through ".."`);
      resolved.pop();
      stats = await lstat(path.join(tree.root, ...resolved));
      continue;
    }
    const hostPath = path.join(tree.root, ...resolved, name);
    const info = await lstat(hostPath).catch((error: NodeJS.ErrnoException) => error);
    if (info instanceof Error) {
      if (info.code === "ENOENT" || info.code === "ENOTDIR") return missing();
      throw info;
    }
    if (info.isSymbolicLink()) {
      hops += 1;
      if (hops > MAX_LINK_HOPS) return refuse(`too many symbolic links in ${JSON.stringify(given)}`);
      const target = await readlink(hostPath);
      const link = path.join(...resolved, name);
      const followed = followLink(tree, target);
      if (followed === null) {
        return refuse(
          `the symbolic link ${link} points outside the ${tree.absoluteLinks === "root" ? "sandbox" : "work dir"} (to ${quoteTarget(target)}); file gates read only the agent's own files`,
        );
      }
      if (followed.fromRoot) resolved.length = 0;
      pending = [...followed.components, ...pending];
      continue;
    }
    if (pending.length > 0 && !info.isDirectory()) return missing();
    resolved.push(name);
    stats = info;
  }
  return { found: true, hostPath: path.join(tree.root, ...resolved), stats };
}

/**
 * The file's text (at most `maxBytes`), or why a file gate cannot read it. A larger file is a
 * problem, unless `cut`: then its first `maxBytes` (whole characters) are the text, `size` its own.
 */
export async function readGateFile(
  tree: GateFileTree,
  given: string,
  maxBytes = MAX_GATE_FILE_BYTES,
  options: { cut?: boolean } = {},
): Promise<{ text: string; size: number; cut?: true } | { problem: string }> {
  const entry = await lookUpGatePath(tree, given);
  if (!entry.found) return { problem: `${given}: ${entry.reason}` };
  const kind = describeKind(entry.stats);
  if (kind !== "file") return { problem: `${given}: ${kindProblem(kind)}` };
  if (entry.stats.size > maxBytes && !options.cut) {
    return { problem: `${given}: ${sizeProblem(entry.stats.size, maxBytes)}` };
  }
  if (tree.absoluteLinks === "host" && entry.stats.nlink > 1) {
    return {
      problem: `${given}: has ${entry.stats.nlink} hard links; in local mode file gates read no file with more than one (another could be a host file's)`,
    };
  }
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    // O_NOFOLLOW: a link put in place since the walk is not followed; O_NONBLOCK: nor does a FIFO block.
    handle = await open(
      entry.hostPath,
      constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY,
    );
  } catch (error) {
    return { problem: `${given}: cannot be opened (${(error as NodeJS.ErrnoException).code ?? "error"})` };
  }
  try {
    const opened = await handle.stat();
    // The very file the walk found: a folder swapped for a link in the meantime leads elsewhere.
    if (opened.dev !== entry.stats.dev || opened.ino !== entry.stats.ino) {
      return {
        problem: `${given}: changed while it was being read; file gates read only the agent's own files`,
      };
    }
    if (!opened.isFile()) return { problem: `${given}: ${kindProblem(describeKind(opened))}` };
    // One byte more than allowed tells a file that grew past the bound from one that ends there.
    const buffer = Buffer.alloc(Math.min(maxBytes, Math.max(opened.size, 0)) + 1);
    let length = 0;
    while (length < buffer.length) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    if (length > maxBytes && options.cut) {
      // Streaming decode: a character the cut splits is left out rather than mangled.
      const text = new TextDecoder().decode(buffer.subarray(0, maxBytes), { stream: true });
      return { text, size: Math.max(opened.size, length), cut: true };
    }
    if (length > maxBytes) return { problem: `${given}: ${sizeProblem(length, maxBytes)}` };
    return { text: buffer.subarray(0, length).toString("utf8"), size: length };
  } finally {
    await handle.close();
  }
}

export type EntryKind = "file" | "directory" | "FIFO" | "socket" | "device";

export function describeKind(stats: Stats): EntryKind {
  if (stats.isFile()) return "file";
  if (stats.isDirectory()) return "directory";
  if (stats.isFIFO()) return "FIFO";
  if (stats.isSocket()) return "socket";
  return "device";
}

/** Why a file gate does not read what is not a regular file. */
export function kindProblem(kind: EntryKind): string {
  if (kind === "directory") return "is a directory, not a file";
  return `is a ${kind}, not a regular file; file gates read only regular files`;
}

function sizeProblem(size: number, maxBytes: number): string {
  const mib = 1024 * 1024;
  const bound = maxBytes % mib === 0 ? `${maxBytes / mib} MiB` : `${maxBytes} bytes`;
  return `too large to check (${size} bytes; file gates read at most ${bound})`;
}

/** A link's target as components to walk next, from the root or from the link's folder; null: it leaves. */
function followLink(tree: GateFileTree, target: string): { fromRoot: boolean; components: string[] } | null {
  if (!path.isAbsolute(target)) return { fromRoot: false, components: splitPath(target) };
  // In bwrap the agent's `/` is the tree's root; in local mode it is the host's, so only a target
  // inside the tree's own host folder stays inside.
  if (tree.absoluteLinks === "root") return { fromRoot: true, components: splitPath(target) };
  // Not normalised: a `..` in it is walked like any other, from the folder it is reached in.
  if (target !== tree.root && !target.startsWith(`${tree.root}/`)) return null;
  return { fromRoot: true, components: splitPath(target.slice(tree.root.length)) };
}

function splitPath(text: string): string[] {
  return text.split("/").filter((part) => part !== "" && part !== ".");
}

function refuse(reason: string): TreeEntry {
  return { found: false, refused: true, reason };
}

function missing(): TreeEntry {
  return { found: false, refused: false, reason: "not found" };
}

function quoteTarget(target: string): string {
  const shown = target.length > TARGET_QUOTE_CHARS ? `${target.slice(0, TARGET_QUOTE_CHARS)}…` : target;
  return JSON.stringify(shown);
}
