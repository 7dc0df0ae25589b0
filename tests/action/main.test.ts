/**
 * `run(deps)` in process, with a recording core, a recording artifact client, the real Octokit
 * against the fake GitHub API, and the oracle agent on the fixture suites: the paths the bundled
 * end-to-end tests do not take.
 */
import { mkdir, mkdtemp, readFile, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { getOctokit } from "@actions/github";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type ActionCore, type ActionDeps, run } from "../../src/action/main.js";
import type { Comparison } from "../../src/compare/types.js";
import { JUDGE_TOOL_NAME } from "../../src/evaluate/judge.js";
import type { ArtifactClient } from "../../src/github/types.js";
import { assembleReport, buildScenarioReport } from "../../src/results/aggregate.js";
import type { Report } from "../../src/results/types.js";
import { type GitHubFake, startGitHubFake } from "../support/github-server.js";
import { startModelServer, toolUse } from "../support/model-server.js";
import { buildPullRequestEvent, FIXTURES, readActionDefaults } from "./run-dist.js";

interface Recorded {
  log: { level: "info" | "warning" | "debug"; message: string }[];
  outputs: Record<string, string>;
  secrets: string[];
  failed: string[];
  summaries: string[];
  uploads: { name: string; files: string[] }[];
}

let fake: GitHubFake;
let recorded: Recorded;
let tempDir: string;

beforeEach(async () => {
  fake = await startGitHubFake();
  recorded = { log: [], outputs: {}, secrets: [], failed: [], summaries: [], uploads: [] };
  tempDir = await mkdtemp(path.join(os.tmpdir(), "action-main-"));
});

afterEach(async () => {
  await fake.close();
});

async function createDeps(
  inputs: Record<string, string>,
  options: {
    event?: "push" | "pull_request";
    artifacts?: Partial<ArtifactClient>;
    env?: Record<string, string>;
  } = {},
): Promise<Partial<ActionDeps>> {
  const values: Record<string, string> = {
    ...(await readActionDefaults()),
    "github-token": "ghs_token",
    ...inputs,
  };
  const core: ActionCore = {
    getInput: (name) => values[name] ?? "",
    setSecret: (secret) => recorded.secrets.push(secret),
    setOutput: (name, value) => {
      recorded.outputs[name] = value;
    },
    setFailed: (message) => recorded.failed.push(message),
    info: (message) => recorded.log.push({ level: "info", message }),
    warning: (message) => recorded.log.push({ level: "warning", message }),
    debug: (message) => recorded.log.push({ level: "debug", message }),
  };
  const event = options.event ?? "push";
  const eventPath = path.join(tempDir, "event.json");
  fake.addRun({
    id: 700,
    event,
    head_branch: event === "push" ? "main" : "feature",
    conclusion: null,
    status: "in_progress",
  });
  await writeFile(
    eventPath,
    JSON.stringify(
      event === "pull_request"
        ? buildPullRequestEvent({
            number: 3,
            owner: fake.owner,
            repo: fake.repo,
            baseSha: "a".repeat(40),
            headSha: "b".repeat(40),
          })
        : { ref: "refs/heads/main" },
    ),
  );
  let nextId = 1;
  const artifacts: ArtifactClient = {
    uploadArtifact: async (name, files, root) => {
      recorded.uploads.push({ name, files: files.map((f) => path.relative(root, f)) });
      return { id: nextId++, size: 1 };
    },
    downloadArtifact: async () => {
      throw new Error("no download expected");
    },
    listArtifacts: async () => ({ artifacts: [] }),
    ...options.artifacts,
  };
  return {
    core,
    writeSummary: async (markdown) => {
      recorded.summaries.push(markdown);
    },
    env: {
      PATH: process.env.PATH,
      GITHUB_EVENT_NAME: event,
      GITHUB_EVENT_PATH: eventPath,
      GITHUB_REPOSITORY: `${fake.owner}/${fake.repo}`,
      GITHUB_RUN_ID: "700",
      GITHUB_SERVER_URL: "https://github.com",
      GITHUB_SHA: "c".repeat(40),
      GITHUB_WORKSPACE: FIXTURES,
      RUNNER_TEMP: tempDir,
      ...options.env,
    },
    cwd: FIXTURES,
    createGitHubClient: (token) => getOctokit(token, { baseUrl: fake.url }),
    artifacts,
    // The runner's sandbox setup (tests/action/sandbox-setup.test.ts): bwrap found and working, no sudo.
    commands: async (file) => ({ exitCode: 0, stdout: file === "sh" ? "/usr/bin/bwrap\n" : "", stderr: "" }),
  };
}

describe("run", () => {
  it("compares with a baseline file on a push, and publishes the comparison", async () => {
    const result = await run(
      await createDeps({
        agent: "oracle",
        "working-directory": "head",
        scenarios: ".",
        baseline: "../reports/base.json",
        "fail-on": "outcome",
      }),
    );
    expect(result.status).toBe("failed");
    expect(recorded.failed).toEqual([
      "llm-tool-test: Failed: 3/6 trials failed (fail-on: outcome). See the job summary and the report artifact.",
    ]);
    expect(JSON.parse(recorded.outputs.decision!)).toMatchObject({ failed: true, basis: "outcome" });
    expect(recorded.summaries).toHaveLength(1);
    expect(recorded.summaries[0]).toContain(
      "Compared with the report `../reports/base.json` (commit `0123456`",
    );
    expect(JSON.parse(recorded.outputs.summary!).baseline).toMatchObject({ status: "found", kind: "path" });
    expect(recorded.uploads).toEqual([
      {
        name: "llm-tool-test-report",
        files: expect.arrayContaining(["report.json", "report.md", "comparison.json"]),
      },
    ]);
    expect(recorded.outputs["artifact-id"]).toBe("1");
    expect(recorded.outputs["comment-url"]).toBe("");
    // Not a pull request: no comment, no lookup.
    expect(fake.requests).toHaveLength(0);
    expect(recorded.secrets).toEqual(["ghs_token"]);
  });

  it("pools the last baseline-runs base-branch artifacts, and extends the scenario that collapsed against them", async () => {
    // A push run of the same suite gives the identity and content of the base-branch runs; in them
    // count_items passed, here it fails.
    const push = await run(
      await createDeps({ agent: "oracle", "working-directory": "head", scenarios: "." }),
    );
    // fail-on regression (the default) with no baseline to regress from: neutral, the check passes.
    expect(push.status).toBe("passed");
    expect(JSON.parse(recorded.outputs.decision!)).toMatchObject({ failed: false, basis: "no_baseline" });
    const pushed = JSON.parse(await readFile(recorded.outputs["report-path"]!, "utf8")) as Report;
    const passing = JSON.stringify(
      assembleReport(
        pushed.run,
        pushed.scenarios.map(({ trials, summary: _summary, ...meta }) =>
          buildScenarioReport(
            meta,
            trials.map((t) => ({ ...t, outcome: "pass" as const, reason: null })),
          ),
        ),
      ),
    );
    const base = (id: number, sha: string, hoursAgo: number) => {
      fake.addRun({
        id,
        run_number: id,
        head_sha: sha,
        created_at: new Date(Date.now() - hoursAgo * 3600_000).toISOString(),
      });
      return fake.addArtifact({ name: "llm-tool-test-report", runId: id });
    };
    const artifactRuns = new Map(
      [base(101, "a".repeat(40), 5), base(102, "d".repeat(40), 2), base(103, "e".repeat(40), 9)].map((a) => [
        a.id,
        a.runId,
      ]),
    );
    const downloaded: number[] = [];
    recorded = { log: [], outputs: {}, secrets: [], failed: [], summaries: [], uploads: [] };

    const result = await run(
      await createDeps(
        {
          agent: "oracle",
          "working-directory": "head",
          scenarios: ".",
          "baseline-runs": "2",
          "extra-trials": "2",
        },
        {
          event: "pull_request",
          artifacts: {
            downloadArtifact: async (id, options) => {
              downloaded.push(artifactRuns.get(id)!);
              await writeFile(path.join(options?.path ?? ".", "report.json"), passing);
              return { downloadPath: options?.path };
            },
          },
        },
      ),
    );
    // The base commit's run first, then the newest: two of three.
    expect(downloaded).toEqual([101, 102]);
    const log = recorded.log.map((l) => l.message);
    expect(log).toContain("The baseline pools 2 of 2 base-branch run(s).");
    expect(log).toContain(
      "Extra trials: count_items gets 2 more (its first trials passed less often than the baseline's); 8 trial(s) planned now.",
    );
    expect(result.status).toBe("failed");
    const report = JSON.parse(await readFile(recorded.outputs["report-path"]!, "utf8")) as Report;
    const byId = Object.fromEntries(report.scenarios.map((s) => [s.id, s]));
    expect(byId.count_items).toMatchObject({ first_trials: 3, extended: true });
    expect(byId.count_items?.trials).toHaveLength(5);
    expect(byId.list_files).toMatchObject({ first_trials: 3, extended: false });
    const comparison = JSON.parse(
      await readFile(path.join(path.dirname(recorded.outputs["report-path"]!), "comparison.json"), "utf8"),
    ) as Comparison;
    expect(comparison.scenarios.find((s) => s.key === "count_items")?.base).toMatchObject({
      trials: 6,
      passed: 6,
    });
    expect(fake.comments).toHaveLength(1);
    expect(fake.comments[0]?.body).toMatch(
      /Compared with `aaaaaaa` on `main` \(\[run #101\]\([^)]*\/actions\/runs\/101\), 5 hours old\) and 1 more run, pooled\./,
    );
  });

  it("runs the command agent on globbed scenarios less the excluded ones, its judge through base-url", async () => {
    const key = "sk-ant-judge-canary-51c8e2";
    const model = await startModelServer(() => ({
      kind: "message",
      content: [toolUse({ scores: { done: 1 } }, JUDGE_TOOL_NAME, "toolu_judge")],
      stop_reason: "tool_use",
    }));
    try {
      const suite = path.join(tempDir, "suite");
      const scenario = (name: string, judged: boolean) =>
        [
          `name: ${name}`,
          "task: Write hello to out.txt.",
          "evaluation:",
          "  gates: [{type: file_contains, path: out.txt, substring: hello}]",
          ...(judged ? ["  judge: {enabled: true, rubric: rubric.yaml, pass_threshold: 0.5}"] : []),
          "",
        ].join("\n");
      await mkdir(path.join(suite, "scenarios/slow"), { recursive: true });
      await writeFile(path.join(suite, "scenarios/greet.yaml"), scenario("greet", true));
      await writeFile(path.join(suite, "scenarios/slow/long.yaml"), scenario("long", false));
      await writeFile(
        path.join(suite, "scenarios/rubric.yaml"),
        "criteria:\n  - {id: done, weight: 1, description: hello is written}\n",
      );
      const result = await run(
        await createDeps({
          agent: "command",
          "agent-command": "echo hello > out.txt && echo wrote {prompt}",
          "anthropic-api-key": key,
          "base-url": model.url,
          "working-directory": suite,
          scenarios: "scenarios/**/*.yaml\n!scenarios/slow/**",
          trials: "1",
        }),
      );
      expect(recorded.failed).toEqual([]);
      expect(result.status).toBe("passed");
      const report = JSON.parse(await readFile(recorded.outputs["report-path"]!, "utf8")) as Report;
      expect(report.run.agent).toBe("command");
      expect(report.scenarios.map((s) => [s.id, s.trials.map((t) => t.outcome)])).toEqual([
        ["greet", ["pass"]],
      ]);
      expect(recorded.log.map((l) => l.message)).toContain(
        "Running 1 scenario(s) with the command agent (1 trial(s) each unless a scenario says otherwise, 4 at once).",
      );
      // The judge reached the base-url's server with the key; the agent made no model call.
      expect(model.messageRequests()).toHaveLength(1);
      expect(model.messageRequests()[0]?.headers.authorization).toBe(`Bearer ${key}`);
      expect(recorded.secrets).toContain(key);
    } finally {
      await model.close();
    }
  });

  it("does not comment when comment is false", async () => {
    const result = await run(
      await createDeps(
        { agent: "oracle", "working-directory": "base", scenarios: ".", comment: "false" },
        { event: "pull_request" },
      ),
    );
    expect(result.status).toBe("passed");
    expect(fake.comments).toHaveLength(0);
    expect(fake.requests.some((r) => r.path.includes("/comments"))).toBe(false);
  });

  it("runs a shard: its own artifact name, no baseline lookup, no comment", async () => {
    const result = await run(
      await createDeps(
        { agent: "oracle", "working-directory": "base", scenarios: ".", shard: "1/2" },
        { event: "pull_request" },
      ),
    );
    expect(result.status).toBe("passed");
    expect(recorded.uploads.map((u) => u.name)).toEqual(["llm-tool-test-report-shard-1-of-2"]);
    const report = JSON.parse(await readFile(recorded.outputs["report-path"]!, "utf8"));
    expect(report.run.shard).toEqual({ index: 1, count: 2 });
    expect(fake.requests).toHaveLength(0);
  });

  it("turns failed uploads and summaries into warnings, and still decides the status", async () => {
    const result = await run(
      await createDeps(
        { agent: "oracle", "working-directory": "base", scenarios: "." },
        {
          artifacts: {
            uploadArtifact: async () => {
              throw new Error("Unable to get the ACTIONS_RUNTIME_TOKEN env variable");
            },
          },
        },
      ).then((deps) => ({
        ...deps,
        writeSummary: async () => {
          throw new Error("Unable to find environment variable for $GITHUB_STEP_SUMMARY");
        },
      })),
    );
    expect(result.status).toBe("passed");
    const warnings = recorded.log
      .filter((l) => l.level === "warning" && !l.message.startsWith("local sandbox:"))
      .map((l) => l.message);
    expect(warnings).toEqual([
      'The report artifact "llm-tool-test-report" could not be uploaded: Unable to get the ACTIONS_RUNTIME_TOKEN env variable',
      "The job summary could not be written: Unable to find environment variable for $GITHUB_STEP_SUMMARY",
    ]);
    expect(recorded.outputs["artifact-id"]).toBe("");
    expect(recorded.outputs.outcome).toBe("pass");
  });

  it.each([
    [
      { "working-directory": "nowhere" },
      /^input "working-directory": the folder "nowhere" does not exist \(resolved to .*nowhere\)$/,
    ],
    [
      { "working-directory": "head", scenarios: "*.json" },
      /^input "scenarios": the pattern "\*\.json" matches no file under /,
    ],
    [
      { "working-directory": "head", scenarios: ".", tags: "nightly" },
      /^no scenario left to run: 2 loaded from input "scenarios", none matching tags nightly$/,
    ],
    [
      { "working-directory": "head", scenarios: ".", baseline: "atuo" },
      /^input "baseline": .*cannot read the report file.*\(expected "auto", "none" or the path of a report.json\)$/,
    ],
    [
      { mode: "merge" },
      /^input "mode": "merge" found no artifact named "llm-tool-test-report-shard-<i>-of-<n>" in this workflow run/,
    ],
  ])("fails on %o with a clear message", async (inputs, message) => {
    const result = await run(await createDeps({ agent: "oracle", ...inputs }));
    expect(result.status).toBe("config_error");
    expect(recorded.failed).toHaveLength(1);
    expect(recorded.failed[0]).toMatch(message);
    expect(recorded.uploads).toHaveLength(0);
  });

  it("reports an unexpected error without leaking the key", async () => {
    const key = "sk-ant-secret-value-123456";
    const deps = await createDeps({
      agent: "anthropic",
      "anthropic-api-key": key,
      "working-directory": "head",
      scenarios: ".",
    });
    const result = await run({
      ...deps,
      createModelClient: () => {
        throw new Error(`client refused key ${key}`);
      },
    });
    expect(result.status).toBe("crashed");
    expect(recorded.failed).toEqual(["llm-tool-test failed unexpectedly: client refused key [REDACTED]"]);
    expect(recorded.secrets).toContain(key);
    expect(JSON.stringify(recorded.log)).not.toContain(key);
  });
});
