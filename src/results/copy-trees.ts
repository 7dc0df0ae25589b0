/**
 * `merge` copies every shard's trial folders: thousands of small files. One copy at a time spends
 * its time waiting on each file's open/write/close, so files are copied a bounded number at a time.
 */
import { constants } from "node:fs";
import { copyFile, lstat, mkdir, readdir } from "node:fs/promises";
import path from "node:path";
import { ConfigError, describeError } from "../errors.js";

/** Enough copies in flight to keep the disk busy, few enough to stay far under the open-file limit. */
export const COPY_PARALLELISM = 32;

export interface TreeCopy {
  /** A file or a folder. */
  from: string;
  to: string;
}

type FileCopy = TreeCopy;

/**
 * Runs `work` on every item with at most `limit` running at once. On a failure no new item is
 * started, the ones in flight are awaited (nothing is left writing after the error), and the
 * first error is thrown.
 */
export async function forEachBounded<T>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | null = null;
  const worker = async (): Promise<void> => {
    while (failure === null && next < items.length) {
      const item = items[next++] as T;
      try {
        await work(item);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  if (failure !== null) throw (failure as { error: unknown }).error;
}

function copyFailed(action: string, file: string, error: unknown): ConfigError {
  return new ConfigError(
    `could not ${action}: ${describeError(error)}; check that the folder is writable and the disk has room, then run merge again`,
    file,
  );
}

/**
 * Lists the files under one file or folder, creating their folders under the target, and returns
 * the subfolders still to list. Only folders and regular files are followed: a link would pull
 * another file of the machine along.
 */
async function planLevel(tree: TreeCopy, files: FileCopy[]): Promise<TreeCopy[]> {
  const info = await lstat(tree.from).catch((error: unknown) => {
    throw copyFailed("read it", tree.from, error);
  });
  if (info.isFile()) {
    files.push(tree);
    return [];
  }
  if (!info.isDirectory()) return [];
  await mkdir(tree.to, { recursive: true }).catch((error: unknown) => {
    throw copyFailed("create the folder", tree.to, error);
  });
  const entries = await readdir(tree.from, { withFileTypes: true }).catch((error: unknown) => {
    throw copyFailed("list the folder", tree.from, error);
  });
  const folders: TreeCopy[] = [];
  for (const entry of entries) {
    const copy = { from: path.join(tree.from, entry.name), to: path.join(tree.to, entry.name) };
    if (entry.isDirectory()) folders.push(copy);
    else if (entry.isFile()) files.push(copy);
  }
  return folders;
}

/**
 * Copies each file or folder to its target, `parallelism` files at a time, and returns how many
 * files it wrote. A file already at its target is left as it is (a merge never overwrites); any
 * other failure is a ConfigError naming the file, thrown after the copies in flight have ended.
 */
export async function copyTrees(trees: readonly TreeCopy[], parallelism = COPY_PARALLELISM): Promise<number> {
  const files: FileCopy[] = [];
  // Folder by folder, one depth at a time, so a single deep tree is listed in parallel too.
  let level: TreeCopy[] = [...trees];
  while (level.length > 0) {
    const deeper: TreeCopy[] = [];
    await forEachBounded(level, parallelism, async (tree) => {
      deeper.push(...(await planLevel(tree, files)));
    });
    level = deeper;
  }
  let written = 0;
  await forEachBounded(files, parallelism, async ({ from, to }) => {
    try {
      await copyFile(from, to, constants.COPYFILE_EXCL);
      written += 1;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "EEXIST") return;
      throw copyFailed(`copy it to ${to}`, from, error);
    }
  });
  return written;
}
