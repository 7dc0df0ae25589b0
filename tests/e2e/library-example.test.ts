/**
 * docs/library.md's example, used as the guide tells a user to: saved as `run-suite.mjs` in a
 * project where the packed package is installed, run with `node`, against a scripted Messages API
 * on 127.0.0.1 (its URL through ANTHROPIC_BASE_URL, as the example reads it). Every code block of
 * the guide is also type-checked against the package's own .d.ts, so no name or signature in it
 * can drift from the library.
 */
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Report } from "../../src/results/types.js";
import { installTarballOffline, packTarball } from "../support/installed-package.js";
import { findLeaks, readOutputTree } from "../support/leaks.js";
import {
  bashCall,
  finalText,
  type ModelServer,
  scriptByTurn,
  startModelServer,
} from "../support/model-server.js";
import { type CommandResult, ROOT, runCommand } from "../support/run-cli.js";
import { makeTempDir } from "../support/temp-dirs.js";

const GUIDE = path.join(ROOT, "docs/library.md");
const MARKER = "<!-- library-example -->";
const FAKE_KEY = "sk-ant-library-example-5c1f0e9a7b";
const TRIALS = 3;

const SCENARIO = `name: git_version
task: Write the version of git to version.txt.
target:
  binary: git
solution:
  - git --version > version.txt
evaluation:
  gates:
    - type: file_contains
      path: version.txt
      substring: git version
`;

/** The guide's ```js blocks, the one after the marker first. */
async function readGuideBlocks(): Promise<{ example: string; others: string[] }> {
  const guide = await readFile(GUIDE, "utf8");
  const blocks = [...guide.matchAll(/(<!-- library-example -->\n)?```js\n([\s\S]*?)```/g)];
  const marked = blocks.filter((match) => match[1] === `${MARKER}\n`);
  expect(marked, `exactly one js block after ${MARKER}`).toHaveLength(1);
  return {
    example: marked[0]?.[2] as string,
    others: blocks.filter((match) => match[1] === undefined).map((match) => match[2] as string),
  };
}

/** A user's shell: PATH, HOME and TMPDIR, the key and the base URL. */
function exampleEnv(server: ModelServer): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: process.env.HOME ?? "/tmp",
    TMPDIR: process.env.TMPDIR ?? "/tmp",
    ANTHROPIC_API_KEY: FAKE_KEY,
    ANTHROPIC_BASE_URL: server.url,
  };
}

describe("docs/library.md's example, run with node against the installed package", () => {
  let server: ModelServer;
  let project: string;
  let out: string;
  let others: string[];
  let result: CommandResult;

  beforeAll(async () => {
    const temp = makeTempDir("ltt-library-");
    project = path.join(temp, "project");
    out = path.join(project, "out");
    const blocks = await readGuideBlocks();
    others = blocks.others;
    // lib/ was compiled by tests/global-setup.ts; pack it as it is.
    await installTarballOffline(project, await packTarball(temp, { build: false }));
    await writeFile(path.join(project, "run-suite.mjs"), blocks.example);
    await mkdir(path.join(project, "scenarios"));
    await writeFile(path.join(project, "scenarios/git-version.yaml"), SCENARIO);

    // Each trial: the solution's command, then done.
    server = await startModelServer(
      scriptByTurn([bashCall("git --version > version.txt"), finalText("Done.")]),
    );
    result = await runCommand(process.execPath, ["run-suite.mjs", "scenarios", "out"], {
      cwd: project,
      env: exampleEnv(server),
    });
  }, 120_000);

  afterAll(async () => server?.close());

  it("reports each trial as it ends, then the decision, and exits 0", () => {
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout.trim().split("\n")).toEqual([
      "1/3 git_version#1: pass",
      "2/3 git_version#2: pass",
      "3/3 git_version#3: pass",
      "✅ Passed: 3/3 trials passed (fail-on: outcome)",
      "3/3 trials passed; open out/report.html",
    ]);
  });

  it("writes the report files, recording the agent and the model that ran", async () => {
    for (const file of ["report.json", "report.md", "report.html", "junit.xml"])
      expect(existsSync(path.join(out, file)), file).toBe(true);
    const report = JSON.parse(await readFile(path.join(out, "report.json"), "utf8")) as Report;
    expect(report.summary).toMatchObject({ outcome: "pass", trials: TRIALS, passed: TRIALS, errors: 0 });
    expect(report.run.agent).toBe("anthropic");
    expect(report.run.model).toBe("claude-haiku-4-5");
    expect(await readFile(path.join(out, "report.md"), "utf8")).toContain("git_version");
  });

  it("calls the model at the base URL it was given, with the key it was given", () => {
    const requests = server.messageRequests();
    expect(requests).toHaveLength(TRIALS * 2);
    for (const request of requests) {
      expect(request.headers.authorization).toBe(`Bearer ${FAKE_KEY}`);
      expect(request.body.model).toBe("claude-haiku-4-5");
    }
  });

  it("leaves the key out of every file it wrote and of what it printed, in any encoding", async () => {
    const texts = { ...(await readOutputTree(out)), stdout: result.stdout, stderr: result.stderr };
    expect(Object.keys(texts).length).toBeGreaterThan(6);
    expect(findLeaks(texts, { key: FAKE_KEY })).toEqual([]);
  });

  it("type-checks, with the guide's other code blocks, against the package's types", async () => {
    expect(others.length).toBeGreaterThanOrEqual(2);
    const files = ["run-suite.mjs"];
    for (const [index, code] of others.entries()) {
      files.push(`snippet-${index + 1}.mjs`);
      await writeFile(path.join(project, `snippet-${index + 1}.mjs`), code);
    }
    const compilerOptions = {
      target: "ES2022",
      module: "NodeNext",
      moduleResolution: "NodeNext",
      lib: ["ES2023"],
      types: ["node"],
      strict: true,
      allowJs: true,
      checkJs: true,
      noEmit: true,
      skipLibCheck: true,
    };
    await writeFile(path.join(project, "tsconfig.json"), JSON.stringify({ compilerOptions, files }));
    const tsc = await runCommand(
      process.execPath,
      [path.join(ROOT, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.json"],
      { cwd: project, env: { PATH: process.env.PATH ?? "/usr/bin:/bin" } },
    );
    expect(tsc.code, tsc.stdout + tsc.stderr).toBe(0);
  });
});
