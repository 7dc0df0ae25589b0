import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ConfigError } from "../../src/errors.js";
import { loadFinishedTrials, readManifest } from "../../src/run/manifest.js";
import type { PlannedTrial } from "../../src/run/plan.js";
import { trialFolderOf } from "../../src/run/trial.js";

const folders: string[] = [];
afterEach(async () => {
  await Promise.all(folders.splice(0).map((folder) => rm(folder, { recursive: true, force: true })));
});

async function outDir(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "manifest-test-"));
  folders.push(dir);
  return dir;
}

const deep = (depth: number) => `{"a":${"[".repeat(depth)}${"]".repeat(depth)}}`;

describe("reading an interrupted run to resume it", () => {
  it("refuses a manifest nesting too deep with its file and line, before parsing it", async () => {
    const dir = await outDir();
    await writeFile(path.join(dir, "run.json"), `{\n"x": 1,\n${deep(50_000)}\n}`);
    const error = await readManifest(dir).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConfigError);
    expect(String((error as Error).message)).toMatch(/nests more than 100 levels/);
    expect(String((error as Error).message)).toContain(`${path.join(dir, "run.json")}:3`);
  });

  it("refuses a trial result nesting too deep; a torn one simply runs again", async () => {
    const dir = await outDir();
    const planned = [
      { scenarioKey: "deep", trial: 1, key: "deep#1" },
      { scenarioKey: "torn", trial: 1, key: "torn#1" },
      { scenarioKey: "done", trial: 1, key: "done#1" },
    ] as unknown as PlannedTrial[];
    const write = async (index: number, text: string) => {
      const folder = path.join(dir, trialFolderOf(planned[index]!));
      await mkdir(folder, { recursive: true });
      await writeFile(path.join(folder, "result.json"), text);
    };
    await write(1, '{"outcome": "pa');
    await write(2, '{"outcome": "pass", "trial": 1}');
    expect([...(await loadFinishedTrials(dir, planned)).keys()]).toEqual(["done#1"]);
    await write(0, deep(50_000));
    await expect(loadFinishedTrials(dir, planned)).rejects.toThrow(/nests more than 100 levels/);
  });
});
