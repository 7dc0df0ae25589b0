import { linkSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { lookUpGatePath, MAX_GATE_FILE_BYTES, readGateFile } from "../../src/evaluate/gate-files.js";
import type { GateFileTree } from "../../src/sandbox/types.js";
import { makeTempDir } from "../support/temp-dirs.js";

/** A local-mode tree (the work dir is the root) beside a folder outside it. */
function localTree(): { tree: GateFileTree; outside: string } {
  const base = makeTempDir("ltt-gate-files-");
  const root = path.join(base, "work");
  const outside = path.join(base, "outside");
  mkdirSync(root);
  mkdirSync(outside);
  writeFileSync(path.join(outside, "secret.txt"), "SECRET\n");
  return { tree: { root, workDir: root, absoluteLinks: "host" }, outside };
}

/** A bwrap-mode tree: the root is the agent's `/`, the work dir /home/eval inside it. */
function bwrapTree(): GateFileTree {
  const base = makeTempDir("ltt-gate-files-");
  const root = path.join(base, "root");
  mkdirSync(path.join(root, "home", "eval"), { recursive: true });
  return { root, workDir: path.join(root, "home", "eval"), absoluteLinks: "root" };
}

describe("readGateFile", () => {
  it("reads a regular file, and says why it cannot read what is missing or a directory", async () => {
    const { tree } = localTree();
    writeFileSync(path.join(tree.root, "a.txt"), "hello\n");
    mkdirSync(path.join(tree.root, "dir"));
    expect(await readGateFile(tree, "a.txt")).toEqual({ text: "hello\n", size: 6 });
    expect(await readGateFile(tree, "/a.txt")).toEqual({ text: "hello\n", size: 6 });
    expect(await readGateFile(tree, "nope.txt")).toEqual({ problem: "nope.txt: not found" });
    expect(await readGateFile(tree, "a.txt/x")).toEqual({ problem: "a.txt/x: not found" });
    expect(await readGateFile(tree, "dir")).toEqual({ problem: "dir: is a directory, not a file" });
  });

  it("cut: a file past the bound gives its first bytes, in whole characters, and its size", async () => {
    const { tree } = localTree();
    // "é" is two bytes: a bound of 4 falls inside the second one.
    writeFileSync(path.join(tree.root, "long.md"), "abcé and more");
    expect(await readGateFile(tree, "long.md", 4, { cut: true })).toEqual({
      text: "abc",
      size: 14,
      cut: true,
    });
    expect(await readGateFile(tree, "long.md", 5, { cut: true })).toEqual({
      text: "abcé",
      size: 14,
      cut: true,
    });
    expect(await readGateFile(tree, "long.md", 14, { cut: true })).toEqual({
      text: "abcé and more",
      size: 14,
    });
    expect(await readGateFile(tree, "long.md", 4)).toEqual({
      problem: "long.md: too large to check (14 bytes; file gates read at most 4 bytes)",
    });
  });

  it("refuses `..` that climbs out of the tree, directly or through a link", async () => {
    const { tree } = localTree();
    symlinkSync("../outside/secret.txt", path.join(tree.root, "up.txt"));
    mkdirSync(path.join(tree.root, "sub"));
    expect(await readGateFile(tree, "../outside/secret.txt")).toEqual({
      problem: '../outside/secret.txt: "../outside/secret.txt" leaves the sandbox through ".."',
    });
    expect(await readGateFile(tree, "up.txt")).toEqual({
      problem: 'up.txt: "up.txt" leaves the sandbox through ".."',
    });
    // `..` inside the tree is fine.
    writeFileSync(path.join(tree.root, "b.txt"), "b");
    expect(await readGateFile(tree, "sub/../b.txt")).toEqual({ text: "b", size: 1 });
  });

  it("local mode: follows absolute links into the work dir, refuses those out of it", async () => {
    const { tree, outside } = localTree();
    writeFileSync(path.join(tree.root, "real.txt"), "mine");
    symlinkSync(path.join(tree.root, "real.txt"), path.join(tree.root, "in.txt"));
    symlinkSync(path.join(outside, "secret.txt"), path.join(tree.root, "out.txt"));
    // A prefix of the root's name is not the root.
    symlinkSync(`${tree.root}x/secret.txt`, path.join(tree.root, "sibling.txt"));
    expect(await readGateFile(tree, "in.txt")).toEqual({ text: "mine", size: 4 });
    const refused = await readGateFile(tree, "out.txt");
    expect(refused).toEqual({
      problem: `out.txt: the symbolic link out.txt points outside the work dir (to ${JSON.stringify(path.join(outside, "secret.txt"))}); file gates read only the agent's own files`,
    });
    expect(JSON.stringify(await readGateFile(tree, "sibling.txt"))).toContain("points outside the work dir");
  });

  it("bwrap mode: an absolute link names a path inside the sandbox, never the host's", async () => {
    const tree = bwrapTree();
    mkdirSync(path.join(tree.root, "data"));
    writeFileSync(path.join(tree.root, "data", "out.txt"), "inside");
    symlinkSync("/data/out.txt", path.join(tree.workDir, "link.txt"));
    // The host's /etc/hostname exists; the sandbox root has no such file.
    symlinkSync("/etc/hostname", path.join(tree.workDir, "host.txt"));
    expect(await readGateFile(tree, "link.txt")).toEqual({ text: "inside", size: 6 });
    expect(await readGateFile(tree, "/data/out.txt")).toEqual({ text: "inside", size: 6 });
    expect(await readGateFile(tree, "host.txt")).toEqual({ problem: "host.txt: not found" });
  });

  it("bwrap mode: a work dir (or a folder above it) replaced by a link leads nowhere outside", async () => {
    const tree = bwrapTree();
    const outside = makeTempDir("ltt-gate-files-outside-");
    writeFileSync(path.join(outside, "result.txt"), "SECRET");
    const home = path.join(tree.root, "home");
    rmSync(home, { recursive: true });
    symlinkSync(outside, home);
    expect(await readGateFile(tree, "result.txt")).toEqual({ problem: "result.txt: not found" });
  });

  it("local mode: reads no file with a second hard link (it could be a host file's)", async () => {
    const { tree, outside } = localTree();
    linkSync(path.join(outside, "secret.txt"), path.join(tree.root, "hard.txt"));
    expect(await readGateFile(tree, "hard.txt")).toEqual({
      problem:
        "hard.txt: has 2 hard links; in local mode file gates read no file with more than one (another could be a host file's)",
    });
    // bwrap's tree is the agent's alone (no hard link crosses into the host's mounts).
    const inside = bwrapTree();
    writeFileSync(path.join(inside.workDir, "a.txt"), "a");
    linkSync(path.join(inside.workDir, "a.txt"), path.join(inside.workDir, "b.txt"));
    expect(await readGateFile(inside, "b.txt")).toEqual({ text: "a", size: 1 });
  });

  it("refuses a link loop, and a tree whose root is itself a link", async () => {
    const { tree, outside } = localTree();
    symlinkSync("b", path.join(tree.root, "a"));
    symlinkSync("a", path.join(tree.root, "b"));
    expect(await readGateFile(tree, "a")).toEqual({ problem: 'a: too many symbolic links in "a"' });
    const linkedRoot = path.join(outside, "linked-root");
    symlinkSync(tree.root, linkedRoot);
    const result = await readGateFile({ ...tree, root: linkedRoot, workDir: linkedRoot }, "a");
    expect(JSON.stringify(result)).toContain("is no longer a directory");
  });

  it("reads no socket, and no file larger than the bound", async () => {
    const { tree } = localTree();
    const socketPath = path.join(tree.root, "s.sock");
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(socketPath, resolve));
    try {
      expect(await readGateFile(tree, "s.sock")).toEqual({
        problem: "s.sock: is a socket, not a regular file; file gates read only regular files",
      });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    writeFileSync(path.join(tree.root, "big.txt"), "x".repeat(101));
    expect(await readGateFile(tree, "big.txt", 100)).toEqual({
      problem: `big.txt: too large to check (101 bytes; file gates read at most 100 bytes)`,
    });
    expect(await readGateFile(tree, "big.txt", 101)).toEqual({ text: "x".repeat(101), size: 101 });
    expect(MAX_GATE_FILE_BYTES).toBe(10 * 1024 * 1024);
  });
});

describe("lookUpGatePath", () => {
  it("finds directories through links inside the tree", async () => {
    const { tree } = localTree();
    mkdirSync(path.join(tree.root, "real"));
    symlinkSync("real", path.join(tree.root, "alias"));
    const entry = await lookUpGatePath(tree, "alias");
    expect(entry.found && entry.stats.isDirectory()).toBe(true);
    expect(entry.found && entry.hostPath).toBe(path.join(tree.root, "real"));
  });
});
