/**
 * The guidance author's loop through the built CLI: `init` writes the starter suite (its AGENTS.md
 * stub in `workdir` mode), `run` with the default agent (the built-in one, an API key set) against
 * a scripted Anthropic server on 127.0.0.1, and the model's first request carries the stub's text.
 * The author edits AGENTS.md; the next run's first request carries the edited text.
 */
import { execFileSync } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Report } from "../../src/results/types.js";
import {
  bashCall,
  finalText,
  type ModelServer,
  type RecordedRequest,
  scriptByTurn,
  startModelServer,
  systemOf,
} from "../support/model-server.js";
import { runCli } from "../support/run-cli.js";
import { makeTempDir } from "../support/temp-dirs.js";

const CANARY_KEY = "sk-ant-canary-init-guidance-93b7";
const STUB_LINE = "- `git --help` lists the commands and options.";
const EDITED_LINE = "- Run `git --version` once and save its output as it is.";

describe("init's starter with the default agent: the AGENTS.md stub reaches the model", () => {
  let server: ModelServer;
  let repo: string;

  beforeAll(async () => {
    // The model does what the starter asks: one command, then it says it is done.
    server = await startModelServer(
      scriptByTurn([bashCall("git --version > version.txt"), finalText("Saved.")]),
    );
    repo = makeTempDir("ltt-init-guidance-");
    execFileSync("git", ["init", "-q", "-b", "main"], { cwd: repo });
    const init = await runCli(["init", "git"], { cwd: repo });
    expect(init.code, init.stderr).toBe(0);
  });
  afterAll(async () => server?.close());

  /** `run scenarios` as a new user types it (no --agent), one trial; the run's first model request. */
  async function runStarter(name: string): Promise<{ first: RecordedRequest | undefined; report: Report }> {
    const before = server.messageRequests().length;
    const out = path.join(repo, name);
    const result = await runCli(["run", "scenarios", "--trials", "1", "--sandbox", "local", "--out", out], {
      cwd: repo,
      env: { ANTHROPIC_API_KEY: CANARY_KEY, ANTHROPIC_BASE_URL: server.url },
    });
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(await readFile(path.join(out, "report.json"), "utf8")) as Report;
    return { first: server.messageRequests()[before], report };
  }

  it("the first request's system prompt has the stub's text and its path; the report says how it got there", async () => {
    const { first, report } = await runStarter("run-1");
    expect(report.run.agent).toBe("anthropic");
    expect(report.summary.passed).toBe(1);
    const system = systemOf(first);
    expect(system).toContain(STUB_LINE);
    expect(system).toMatch(/\/AGENTS\.md:\n\n<AGENTS\.md>\n# Using git\n/);
    expect(report.scenarios[0]?.treatment?.guidance).toEqual([
      expect.objectContaining({ path: "scenarios/AGENTS.md", mode: "workdir", delivery: "system_prompt" }),
    ]);
  });

  it("after AGENTS.md is edited, the next run's first request carries the edited text", async () => {
    const file = path.join(repo, "scenarios/AGENTS.md");
    const stub = await readFile(file, "utf8");
    await writeFile(file, stub.replace(STUB_LINE, EDITED_LINE));
    const { first } = await runStarter("run-2");
    const system = systemOf(first);
    expect(system).toContain(EDITED_LINE);
    expect(system).not.toContain(STUB_LINE);
  });
});
