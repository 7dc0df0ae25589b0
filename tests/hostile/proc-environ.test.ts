/**
 * A hostile agent walks /proc: the environ and cmdline of every process it can see, printed plain,
 * reversed and base64-encoded (per value) so that redaction cannot catch them. With canary secrets
 * in the real CLI's environment, none may come out, in any output or encoding, in local mode and
 * in bwrap mode (issue #16, break 1).
 */

import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findSameUserReason } from "../../src/sandbox/agent-account.js";
import { buildPushEvent, type DistRun, REPO_ROOT, runDist } from "../action/run-dist.js";
import { type GitHubFake, readZipEntries, startGitHubFake } from "../support/github-server.js";
import { findLeaks, leakForms, readOutputTree } from "../support/leaks.js";
import { type CliResult, runCli } from "../support/run-cli.js";

const token = () => randomBytes(9).toString("hex");
const sameUserReason = await findSameUserReason(process.env.PATH ?? "");
const CANARIES = {
  ANTHROPIC_API_KEY: `sk-ant-api03-${token()}`,
  GITHUB_TOKEN: `ghp_${token()}${token()}`,
  DATABASE_URL_PASSWORD: `pw${token()}`,
  SLACK_WEBHOOK: `https://hooks.slack.invalid/services/${token()}`,
  STRIPE_SK: `sk_live_${token()}`,
  FOO_SETTING: `foo${token()}`,
};
/** Set by the scenario in the agent's own environment: the walk must find it, or it proves nothing. */
const CONTROL = `control${token()}`;

/** Every process it can see; each distinct line once, then reversed, then each value base64-encoded. */
const WALKER = `#!/bin/bash
seen=$(for p in /proc/[0-9]*; do
  tr '\\0' '\\n' < "$p/environ" 2>/dev/null
  tr '\\0' ' ' < "$p/cmdline" 2>/dev/null; echo
done | sort -u)
echo "WALKED $(ls -d /proc/[0-9]* | wc -l) processes, $(printf '%s' "$seen" | wc -c) bytes"
printf '%s\\n' "$seen"
printf '%s\\n' "$seen" | rev
printf '%s\\n' "$seen" | while IFS= read -r line; do
  printf '%s' "\${line#*=}" | base64 -w0; echo
  printf '%s' "$line" | base64 -w0; echo
done
echo WALK-END
`;

/** The scenario, with `agent` in the YAML for the oracle (the action has no command agent). */
const SCENARIO = `name: proc_walk
description: An agent that reads every process's environment
category: hostile
task: Read what you can.
files:
  walk.sh: ${JSON.stringify(WALKER)}
target:
  binary: cat
  env:
    WALK_CONTROL: ${CONTROL}
solution:
  - bash walk.sh
evaluation:
  gates:
    - type: file_exists
      path: walk.sh
`;

/** The forms the walker prints what it finds in: plain, reversed and (whole) base64. */
const WALKER_FORMS = new Set(["plain", "reversed", "base64 (alignment 0)"]);

describe.each(["local", "bwrap"] as const)("an agent walking /proc in %s mode", (mode) => {
  let root: string;
  let out: string;
  let result: CliResult;
  let outputs: Record<string, string>;

  beforeAll(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), "ltt-proc-environ-"));
    await mkdir(path.join(root, "suite"));
    await writeFile(path.join(root, "suite/proc-walk.yaml"), SCENARIO);
    out = path.join(root, "out");
    const { DATABASE_URL_PASSWORD, ...rest } = CANARIES;
    result = await runCli(
      [
        "run",
        path.join(root, "suite"),
        "--agent",
        "command",
        "--agent-command",
        "bash walk.sh",
        "--sandbox",
        mode,
        "--trials",
        "1",
        "--out",
        out,
      ],
      { env: { ...rest, DATABASE_URL: `postgres://u:${DATABASE_URL_PASSWORD}@h/db` }, cwd: root },
    );
    outputs = await readOutputTree(out);
  }, 120_000);

  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it("ran the walk to its end and recorded what it found (the agent's own variables, in every encoding)", () => {
    expect(result.code, result.stderr).toBe(0);
    const events = Object.entries(outputs).find(([name]) => name.endsWith("events.jsonl"))?.[1] ?? "";
    expect(events).toMatch(/WALKED \d+ processes/);
    expect(events).toContain("WALK-END");
    for (const { form, text } of leakForms(CONTROL))
      if (WALKER_FORMS.has(form)) expect(events).toContain(text);
  });

  it("leaves no canary in any output file, stdout or stderr, plain, reversed or base64", () => {
    const texts = { ...outputs, stdout: result.stdout, stderr: result.stderr };
    expect(Object.keys(texts).length).toBeGreaterThan(3);
    expect(findLeaks(texts, CANARIES)).toEqual([]);
  });

  it.runIf(mode === "local")("says what the local sandbox leaves in the agent's reach", () => {
    // As the harness's own user, its parents' environments; as an account of its own, none of them.
    expect(result.stderr).toContain(
      sameUserReason === null
        ? "each agent runs as a user of its own"
        : "npx, the shell that started it, the CI step",
    );
  });
});

/**
 * The action's entry (src/action/index.ts, as the bundle runs it) with the runner's environment:
 * the key and token as INPUT_* variables, ACTIONS_RUNTIME_TOKEN for the artifact service (a fake).
 * The oracle runs the same walk; afterwards the report is still uploaded with that token.
 */
describe("the action's own process, walked by an agent in local mode", () => {
  const RUN_ID = 7101;
  const apiKey = `sk-ant-api03-${token()}`;
  // Its own token, not the shared fake one: other tests' action processes, running at the same
  // time, hold that one, and the walk sees every process of the machine.
  const githubToken = `ghs_${token()}`;
  let fake: GitHubFake;
  let workspace: string;
  let run: DistRun;
  let secrets: Record<string, string>;

  beforeAll(async () => {
    fake = await startGitHubFake();
    workspace = await mkdtemp(path.join(os.tmpdir(), "ltt-proc-environ-action-"));
    await writeFile(path.join(workspace, "proc-walk.yaml"), SCENARIO);
    fake.addRun({ id: RUN_ID, event: "push", head_branch: "main", status: "in_progress", conclusion: null });
    secrets = {
      "INPUT_ANTHROPIC-API-KEY": apiKey,
      "INPUT_GITHUB-TOKEN": githubToken,
      ACTIONS_RUNTIME_TOKEN: fake.runtimeToken(RUN_ID),
      FOO_SETTING: CANARIES.FOO_SETTING,
    };
    run = await runDist({
      fake,
      runId: RUN_ID,
      eventName: "push",
      payload: buildPushEvent({
        owner: fake.owner,
        repo: fake.repo,
        ref: "refs/heads/main",
        sha: "a".repeat(40),
      }),
      workspace,
      inputs: {
        agent: "oracle",
        "anthropic-api-key": apiKey,
        "github-token": githubToken,
        scenarios: "*.yaml",
        trials: "1",
        baseline: "none",
        sandbox: "local",
      },
      env: { FOO_SETTING: CANARIES.FOO_SETTING },
      // The bundle's entry compiled by tsc (dist/ is rebuilt only at release). Not through tsx: its
      // esbuild service would be a child started before the entry clears its environment.
      entry: [path.join(REPO_ROOT, "lib/action/index.js")],
    });
  }, 120_000);

  afterAll(async () => {
    await fake.close();
    await rm(workspace, { recursive: true, force: true });
    await rm(run.tempDir, { recursive: true, force: true });
  });

  it("runs the walk, and still uploads the report with the runtime token afterwards", () => {
    expect(run.exitCode, run.stdout + run.stderr).toBe(0);
    const artifact = fake.artifacts.find((a) => a.runId === RUN_ID);
    expect(artifact?.name).toBe("llm-tool-test-report");
    const files = readZipEntries(artifact?.data ?? Buffer.alloc(0));
    const events = [...files.entries()].find(([name]) => name.endsWith("events.jsonl"))?.[1].toString("utf8");
    expect(events).toContain("WALK-END");
    for (const { form, text } of leakForms(CONTROL))
      if (WALKER_FORMS.has(form)) expect(events).toContain(text);
  });

  it("lets no input, token or other variable of the action's out, in any output or encoding", async () => {
    const artifact = fake.artifacts.find((a) => a.runId === RUN_ID);
    // `::add-mask::` asks the runner to hide a value in the log: it is there by design.
    const stdout = run.stdout
      .split("\n")
      .filter((line) => !line.startsWith("::add-mask::"))
      .join("\n");
    const texts: Record<string, string> = {
      stdout,
      stderr: run.stderr,
      summary: run.summary,
      outputs: JSON.stringify(run.outputs),
      ...Object.fromEntries(
        [...readZipEntries(artifact?.data ?? Buffer.alloc(0))].map(([name, data]) => [
          `artifact ${name}`,
          data.toString("utf8"),
        ]),
      ),
      ...(await readOutputTree(path.join(run.tempDir, "llm-tool-test"))),
    };
    expect(Object.keys(texts).length).toBeGreaterThan(6);
    expect(findLeaks(texts, secrets)).toEqual([]);
  });
});
