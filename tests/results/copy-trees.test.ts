import { existsSync, lstatSync } from "node:fs";
import { mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError } from "../../src/errors.js";
import { copyTrees, forEachBounded } from "../../src/results/copy-trees.js";
import { makeTempDir } from "../support/temp-dirs.js";

async function makeTree(root: string, folders: number, filesEach: number): Promise<void> {
  for (let f = 0; f < folders; f += 1) {
    const folder = path.join(root, `trial-${f}`, "nested");
    await mkdir(folder, { recursive: true });
    for (let i = 0; i < filesEach; i += 1) await writeFile(path.join(folder, `file-${i}.txt`), `${f}/${i}\n`);
  }
}

describe("copyTrees", () => {
  it("copies every file of every tree, nested folders included", async () => {
    const dir = makeTempDir("ltt-copy-trees-");
    const from = path.join(dir, "from");
    await makeTree(from, 5, 7);
    const trees = [0, 1, 2, 3, 4].map((f) => ({
      from: path.join(from, `trial-${f}`),
      to: path.join(dir, "to", `trial-${f}`),
    }));
    expect(await copyTrees(trees, 3)).toBe(35);
    for (let f = 0; f < 5; f += 1) {
      for (let i = 0; i < 7; i += 1) {
        const file = path.join(dir, "to", `trial-${f}`, "nested", `file-${i}.txt`);
        expect(await readFile(file, "utf8")).toBe(`${f}/${i}\n`);
      }
    }
  });

  it("leaves a file already at its target as it is", async () => {
    const dir = makeTempDir("ltt-copy-trees-");
    await makeTree(path.join(dir, "from"), 1, 2);
    const target = path.join(dir, "to", "nested");
    await mkdir(target, { recursive: true });
    await writeFile(path.join(target, "file-0.txt"), "kept\n");
    expect(await copyTrees([{ from: path.join(dir, "from", "trial-0"), to: path.join(dir, "to") }])).toBe(1);
    expect(await readFile(path.join(target, "file-0.txt"), "utf8")).toBe("kept\n");
    expect(await readFile(path.join(target, "file-1.txt"), "utf8")).toBe("0/1\n");
  });

  it("does not follow a link in a shard's folder to another file of the machine", async () => {
    const dir = makeTempDir("ltt-copy-trees-");
    const secret = path.join(dir, "secret.txt");
    await writeFile(secret, "secret\n");
    await mkdir(path.join(dir, "from"), { recursive: true });
    await symlink(secret, path.join(dir, "from", "events.jsonl"));
    await writeFile(path.join(dir, "from", "transcript.md"), "ok\n");
    expect(await copyTrees([{ from: path.join(dir, "from"), to: path.join(dir, "to") }])).toBe(1);
    expect(existsSync(path.join(dir, "to", "transcript.md"))).toBe(true);
    expect(() => lstatSync(path.join(dir, "to", "events.jsonl"))).toThrow();
  });

  it("a failed copy is a ConfigError naming the file, thrown after the copies in flight end", async () => {
    const dir = makeTempDir("ltt-copy-trees-");
    await makeTree(path.join(dir, "from"), 3, 4);
    const blocker = path.join(dir, "to", "blocker");
    await mkdir(path.dirname(blocker), { recursive: true });
    await writeFile(blocker, "a file where a folder should be\n");
    const source = path.join(dir, "from", "trial-1", "nested", "file-2.txt");
    const error = await copyTrees([
      { from: path.join(dir, "from", "trial-0"), to: path.join(dir, "to", "trial-0") },
      { from: source, to: path.join(blocker, "file-2.txt") },
    ]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).where).toBe(source);
    expect((error as Error).message).toMatch(/could not copy it to .*blocker.*run merge again/);
  });
});

describe("forEachBounded", () => {
  it("never runs more than its limit at once, and runs every item", async () => {
    const waiting: Array<() => void> = [];
    let running = 0;
    let most = 0;
    const done: number[] = [];
    const all = forEachBounded([1, 2, 3, 4, 5, 6, 7], 3, async (item) => {
      running += 1;
      most = Math.max(most, running);
      await new Promise<void>((resolve) => waiting.push(resolve));
      running -= 1;
      done.push(item);
    });
    // Release the started items one by one; each release lets exactly one more start.
    while (done.length < 7) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      waiting.shift()?.();
    }
    await all;
    expect(most).toBe(3);
    expect(done.sort()).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  it("on a failure starts nothing new and settles only after the items in flight end", async () => {
    const started: number[] = [];
    let slowEnded = false;
    let releaseSlow: () => void = () => {};
    const slow = new Promise<void>((resolve) => (releaseSlow = resolve));
    const all = forEachBounded([1, 2, 3, 4], 2, async (item) => {
      started.push(item);
      if (item === 1) {
        await slow;
        slowEnded = true;
      }
      if (item === 2) throw new Error("copy 2 failed");
    });
    let settled = false;
    const outcome = all.then(
      () => "resolved",
      (error: Error) => error.message,
    );
    void outcome.then(() => (settled = true));
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    releaseSlow();
    expect(await outcome).toBe("copy 2 failed");
    expect(slowEnded).toBe(true);
    expect(started).toEqual([1, 2]);
  });
});
