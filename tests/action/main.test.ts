/**
 * `run(deps)` in process, with a recording core, a recording artifact client, the real Octokit
 * against the fake GitHub API, and the oracle agent on the fixture suites: the paths the bundled
 * end-to-end tests do not take.
 */
import { cp, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { getOctokit } from "@actions/github";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type ActionCore, type ActionDeps, run } from "../../src/action/main.js";
import type { Comparison } from "../../src/compare/types.js";
import { JUDGE_TOOL_NAME } from "../../src/evaluate/judge.js";
import type { ArtifactClient } from "../../src/github/types.js";
import type { Report } from "../../src/results/types.js";
import {
  geminiShellCall,
  geminiText,
  geminiTurnOf,
  offersShell,
  startGeminiServer,
} from "../support/gemini-server.js";
import { type GitHubFake, startGitHubFake } from "../support/github-server.js";
import { bashCall, finalText, scriptByTurn, startModelServer, toolUse } from "../support/model-server.js";
import {
  openAiBashCall,
  openAiScriptByTurn,
  openAiText,
  startOpenAiServer,
} from "../support/openai-server.js";
import { withEveryTrialPassing } from "../support/report-factory.js";
import { makeTempDir } from "../support/temp-dirs.js";
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
  tempDir = makeTempDir("action-main-");
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
    /** `owner/name` of the pull request's head repository: a fork when it is not the fake's. */
    headRepo?: string;
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
            ...(options.headRepo ? { headRepo: options.headRepo } : {}),
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
    runProgram: async ({ file }) => ({
      exitCode: 0,
      stdout: file === "sh" ? "/usr/bin/bwrap\n" : "",
      stderr: "",
    }),
  };
}

/** A Gemini server scripted to list the two files in one shell call, then finish. */
function startListingGemini() {
  const script = [geminiShellCall("ls -1 alpha.txt beta.txt > listing.txt"), geminiText("done")];
  return startGeminiServer((request) =>
    offersShell(request) ? (script[geminiTurnOf(request)] ?? geminiText("done")) : geminiText("ok"),
  );
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
    expect(JSON.parse(recorded.outputs.decision!)).toMatchObject({
      failed: true,
      basis: "outcome",
      not_compared: [],
      treatment_changed: [],
    });
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

  it("passes over a base-branch artifact whose report is out of range, and still gates on the others (issue #25)", async () => {
    const push = await run(
      await createDeps({ agent: "oracle", "working-directory": "head", scenarios: "." }),
    );
    expect(push.status).toBe("passed");
    const pushed = JSON.parse(await readFile(recorded.outputs["report-path"]!, "utf8")) as Report;
    const passing = withEveryTrialPassing(pushed);
    const hostile = structuredClone(passing);
    hostile.scenarios[0]!.trials[0]!.execution.duration_ms = 1e200;
    const bodies = new Map<number, string>();
    for (const [id, sha, hoursAgo, report] of [
      [101, "a".repeat(40), 5, hostile],
      [102, "d".repeat(40), 2, passing],
      [103, "e".repeat(40), 9, passing],
    ] as const) {
      fake.addRun({
        id,
        run_number: id,
        head_sha: sha,
        created_at: new Date(Date.now() - hoursAgo * 3600_000).toISOString(),
      });
      bodies.set(fake.addArtifact({ name: "llm-tool-test-report", runId: id }).id, JSON.stringify(report));
    }
    recorded = { log: [], outputs: {}, secrets: [], failed: [], summaries: [], uploads: [] };
    const result = await run(
      await createDeps(
        {
          agent: "oracle",
          "working-directory": "head",
          scenarios: ".",
          "baseline-runs": "2",
          "extra-trials": "0",
        },
        {
          event: "pull_request",
          artifacts: {
            downloadArtifact: async (id, options) => {
              await writeFile(path.join(options?.path ?? ".", "report.json"), bodies.get(id)!);
              return { downloadPath: options?.path };
            },
          },
        },
      ),
    );
    const log = recorded.log.map((l) => l.message);
    expect(log).toContainEqual(
      expect.stringMatching(
        /^Passed over for the baseline: the baseline artifact of run #101 \(`aaaaaaa`\) holds no usable report\.json \(.*scenarios\[0\]\.trials\[0\]\.execution\.duration_ms: expected a duration <= 100000000000 ms, found 1e\+200/,
      ),
    );
    expect(log).toContain("The baseline pools 2 of 2 base-branch run(s).");
    // count_items passed in both good runs and fails here: the check still gates.
    expect(result.status).toBe("failed");
    expect(JSON.parse(recorded.outputs.decision!)).toMatchObject({ failed: true });
    // The downloaded base runs one by one, beside the report: history.html in the artifact.
    const history = await readFile(
      path.join(path.dirname(recorded.outputs["report-path"]!), "history.html"),
      "utf8",
    );
    expect(history).toContain("llm-tool-test history");
    expect(history).toMatch(/2 base-branch run\(s\), oldest first/);
    // Listed with the pool's exclusions, with why (comparison.json's decision).
    const { decision } = JSON.parse(
      await readFile(path.join(path.dirname(recorded.outputs["report-path"]!), "comparison.json"), "utf8"),
    );
    expect(decision.baseline.excluded).toEqual([
      {
        label: "run #101 (`aaaaaaa`)",
        scenario: null,
        reason: expect.stringMatching(
          /^not a valid report: scenarios\[0\]\.trials\[0\]\.execution\.duration_ms: /,
        ),
      },
    ]);
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
    const passing = JSON.stringify(withEveryTrialPassing(pushed));
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
    // The artifact's history page, said in the footer (written because there were base runs).
    expect(fake.comments[0]?.body).toMatch(
      /\[Report artifact\]\([^)]+\) \(with `history\.html`: this run beside the 2 base-branch runs, one by one\)/,
    );
    expect(recorded.uploads[0]?.files).toContain("history.html");
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
          ...(judged ? ["  judge: {enabled: true, rubric: rubric.yml, pass_threshold: 0.5}"] : []),
          "",
        ].join("\n");
      await mkdir(path.join(suite, "scenarios/slow"), { recursive: true });
      await writeFile(path.join(suite, "scenarios/greet.yaml"), scenario("greet", true));
      await writeFile(path.join(suite, "scenarios/slow/long.yaml"), scenario("long", false));
      await writeFile(
        // Beside the scenarios (a rubric stays inside the scenario's folder), out of the *.yaml glob.
        path.join(suite, "scenarios/rubric.yml"),
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

  it("sets up the runner's sandbox through runProgram before a run (a failed setup warns), not for a merge", async () => {
    const programs: string[] = [];
    const runProgram: ActionDeps["runProgram"] = async ({ file, args }) => {
      programs.push([file, ...args].join(" "));
      return { exitCode: 1, stdout: "", stderr: "sudo: a password is required" };
    };
    const deps = await createDeps({ agent: "oracle", "working-directory": "base", scenarios: "." });
    expect((await run({ ...deps, runProgram })).status).toBe("passed");
    expect(programs.slice(0, 2)).toEqual(["test -x /usr/bin/bwrap", "sudo -n apt-get update"]);
    expect(recorded.log).toContainEqual({
      level: "warning",
      message: expect.stringMatching(
        /^could not install bubblewrap \(exit 1: sudo: a password is required\)/,
      ),
    });

    programs.length = 0;
    const merge = await run({ ...(await createDeps({ agent: "oracle", mode: "merge" })), runProgram });
    expect(merge.status).toBe("config_error");
    expect(programs).toEqual([]);
  });

  it("fails closed where bwrap does not work: sandbox auto is a configuration error, an explicit local runs", async () => {
    // A trusted program that fails as a blocked bwrap does (a bwrap on PATH is never run); the
    // runner's setup cannot fix it.
    const env = { PATH: process.env.PATH ?? "", LLM_TOOL_TEST_BWRAP: "/bin/false" };
    const refused = await run(
      await createDeps({ agent: "oracle", "working-directory": "base", scenarios: "." }, { env }),
    );
    expect(refused.status).toBe("config_error");
    expect(recorded.failed.join("\n")).toContain("`bwrap --ro-bind / / true` failed (exit 1");
    expect(recorded.failed.join("\n")).toContain("in CI it does not fall back to the local sandbox");
    expect(recorded.failed.join("\n")).toContain("sandbox: local");
    expect(recorded.uploads).toEqual([]);

    recorded.failed.length = 0;
    const local = await run(
      await createDeps(
        { agent: "oracle", "working-directory": "base", scenarios: ".", sandbox: "local" },
        { env },
      ),
    );
    expect(local.status, recorded.failed.join("\n")).toBe("passed");
  });

  it("leaves the runner's AppArmor and sysctl as it found them once the run is over (issue #25)", async () => {
    // A runner where only the sysctl makes bwrap work: the setup installs the profile, then sets it.
    const programs: string[] = [];
    let restricted = true;
    const runProgram: ActionDeps["runProgram"] = async ({ file, args }) => {
      const line = [file, ...args].join(" ");
      programs.push(line);
      if (line === "sysctl -n kernel.apparmor_restrict_unprivileged_userns")
        return { exitCode: 0, stdout: "1\n", stderr: "" };
      if (line.startsWith("sudo -n sysctl -w")) restricted = line.endsWith("=1");
      if (file === "/usr/bin/bwrap" && restricted)
        return { exitCode: 1, stdout: "", stderr: "bwrap: setting up uid map: Permission denied" };
      if (line.startsWith("test -e")) return { exitCode: 1, stdout: "", stderr: "" };
      return { exitCode: 0, stdout: "", stderr: "" };
    };
    const deps = await createDeps({ agent: "oracle", "working-directory": "base", scenarios: "." });
    expect((await run({ ...deps, runProgram })).status).toBe("passed");
    expect(programs.slice(-3)).toEqual([
      "sudo -n sysctl -w kernel.apparmor_restrict_unprivileged_userns=1",
      "sudo -n apparmor_parser -R /etc/apparmor.d/bwrap",
      "sudo -n rm -f /etc/apparmor.d/bwrap",
    ]);
    expect(restricted).toBe(true);
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

describe("a pull request without secrets (fork-mode)", () => {
  const FORK = "outsider/octo-tool";

  /**
   * A push run of the head suite with the oracle (count_items fails, list_files passes), its output
   * folder copied aside as the base branch's artifact: report.json and each trial's events.jsonl.
   * `passing` rewrites the recorded outcomes to passes, as a base branch where count_items passed.
   */
  async function recordBaseline(options: { passing?: boolean } = {}): Promise<string> {
    const push = await run(
      await createDeps({ agent: "oracle", "working-directory": "head", scenarios: "." }),
    );
    expect(push.status).toBe("passed");
    const folder = path.join(tempDir, "recorded");
    await cp(path.dirname(recorded.outputs["report-path"]!), folder, { recursive: true });
    if (options.passing) {
      const report = JSON.parse(await readFile(path.join(folder, "report.json"), "utf8")) as Report;
      await writeFile(path.join(folder, "report.json"), JSON.stringify(withEveryTrialPassing(report)));
    }
    recorded = { log: [], outputs: {}, secrets: [], failed: [], summaries: [], uploads: [] };
    return folder;
  }

  function addBaseRun(id: number): void {
    fake.addRun({ id, run_number: id, head_sha: "a".repeat(40), created_at: new Date().toISOString() });
    fake.addArtifact({ name: "llm-tool-test-report", runId: id });
  }

  const downloadFrom = (folder: string): Partial<ArtifactClient> => ({
    downloadArtifact: async (_id, options) => {
      await cp(folder, options?.path ?? ".", { recursive: true });
      return { downloadPath: options?.path };
    },
  });

  it("replays the baseline's transcripts against this build: no model, the result in the summary and outputs", async () => {
    const folder = await recordBaseline({ passing: true });
    addBaseRun(101);
    // A fork's token cannot write: the comment is refused as GitHub refuses it.
    fake.failures.createComment = 403;
    const model = await startModelServer(() => finalText("never asked"));
    try {
      const result = await run(
        await createDeps(
          { "working-directory": "head", scenarios: ".", "base-url": model.url },
          { event: "pull_request", headRepo: FORK, artifacts: downloadFrom(folder) },
        ),
      );
      expect(model.messageRequests()).toHaveLength(0);
      const report = JSON.parse(await readFile(recorded.outputs["report-path"]!, "utf8")) as Report;
      expect(report.run.agent).toBe("replay");
      const trials = report.scenarios.flatMap((s) => s.trials);
      expect(trials).toHaveLength(6);
      expect(trials.every((t) => t.replay !== undefined && t.replay.recorded_calls > 0)).toBe(true);
      // The replay compares with the run it replayed: count_items passed there and fails now.
      const summary = JSON.parse(recorded.outputs.summary!);
      expect(summary.replay).toEqual({ replayed: "run #101 (`aaaaaaa`)", agent: "replay" });
      expect(summary.baseline).toMatchObject({ status: "found", run_id: 101 });
      expect(summary.comparison.newly_failing).toEqual(["count_items"]);
      const decision = JSON.parse(recorded.outputs.decision!);
      // 3 of 3 recorded passes, 0 of 3 now: newly failing, yet one base run of 3 trials cannot
      // show a regression: inconclusive, which does not fail the check.
      expect(decision).toMatchObject({ failed: false, fail_on: "regression", basis: "inconclusive" });
      expect(result.status).toBe("passed");
      // The summary says it is a replay, what a replay can and cannot show, and where the comment is.
      expect(recorded.summaries).toHaveLength(1);
      const text = recorded.summaries[0]!;
      expect(text.split("\n")[0]).toBe("## 🔁 llm-tool-test: replay of the baseline's recorded calls");
      expect(text).toContain(`This pull request comes from a fork (${FORK})`);
      expect(text).toContain("the tool calls recorded in the baseline run #101 (`aaaaaaa`) were re-issued");
      expect(text).toContain("it cannot show how a model would react to the change");
      expect(text).toContain("a `workflow_run` follow-up workflow can post it");
      // Not an error: the log says why there is no comment and what carries it.
      const log = recorded.log.map((l) => l.message);
      expect(log.some((m) => m.startsWith("Replaying the recorded calls of run #101 (`aaaaaaa`)"))).toBe(
        true,
      );
      expect(recorded.log.find((l) => l.message.includes("comment was not posted"))).toMatchObject({
        level: "info",
      });
      expect(recorded.log.filter((l) => l.level === "warning" && l.message.includes("comment"))).toEqual([]);
      expect(recorded.uploads[0]?.files).toEqual(expect.arrayContaining(["comment.md", "report.json"]));
      const comment = await readFile(
        path.join(path.dirname(recorded.outputs["report-path"]!), "comment.md"),
        "utf8",
      );
      expect(comment).toContain("<!-- llm-tool-test:llm-tool-test -->");
    } finally {
      await model.close();
    }
  });

  it("applies fail-on to the replayed trials", async () => {
    const folder = await recordBaseline();
    addBaseRun(102);
    const result = await run(
      await createDeps(
        { "working-directory": "head", scenarios: ".", "fail-on": "outcome" },
        { event: "pull_request", headRepo: FORK, artifacts: downloadFrom(folder) },
      ),
    );
    // count_items' recorded calls fail their gate again: `outcome` fails the check.
    expect(result.status).toBe("failed");
    expect(recorded.failed[0]).toMatch(/^llm-tool-test: Failed: 3\/6 trials failed \(fail-on: outcome\)/);
    expect(recorded.outputs.outcome).toBe("fail");
  });

  it("skips, saying why, when no baseline has transcripts to replay", async () => {
    // A base-branch run whose artifact holds a report without the trials' folders.
    const folder = await recordBaseline();
    await rm(path.join(folder, "trials"), { recursive: true, force: true });
    addBaseRun(103);
    const result = await run(
      await createDeps(
        { "working-directory": "head", scenarios: "." },
        { event: "pull_request", headRepo: FORK, artifacts: downloadFrom(folder) },
      ),
    );
    expect(result.status).toBe("skipped");
    expect(result.message).toMatch(
      new RegExp(
        `^This pull request comes from a fork \\(${FORK}\\), and GitHub gives such workflow runs no secrets, so there is no Anthropic API key, and fork-mode replay found nothing to replay: no baseline report has its trials' transcripts \\(.*no trial transcripts.*\\)\\. The scenarios were not run, and the check passes\\.$`,
      ),
    );
    expect(recorded.outputs.outcome).toBe("skipped");
    expect(recorded.summaries[0]).toContain("## ⏭️ llm-tool-test: skipped");
    expect(recorded.uploads).toHaveLength(0);
  });

  it("skips, saying why, when there is no baseline at all", async () => {
    const result = await run(
      await createDeps(
        { "working-directory": "head", scenarios: "." },
        { event: "pull_request", headRepo: FORK },
      ),
    );
    expect(result.status).toBe("skipped");
    expect(result.message).toContain(
      "fork-mode replay found nothing to replay: no baseline: no successful push run of this workflow on `main` yet",
    );
    expect(JSON.parse(recorded.outputs.summary!)).toMatchObject({ outcome: "skipped" });
  });

  it("skips as before with fork-mode skip, looking nothing up", async () => {
    addBaseRun(104);
    const result = await run(
      await createDeps(
        { "working-directory": "head", scenarios: ".", "fork-mode": "skip" },
        { event: "pull_request", headRepo: FORK },
      ),
    );
    expect(result.status).toBe("skipped");
    expect(result.message).toBe(
      `This pull request comes from a fork (${FORK}), and GitHub gives such workflow runs no secrets, so there is no Anthropic API key: the scenarios were not run, and the check passes. They run on pull requests from branches of this repository, and on the push to the base branch after merging.`,
    );
    expect(fake.requests).toHaveLength(0);
    expect(recorded.uploads).toHaveLength(0);
  });
});

describe("models and providers", () => {
  it("runs a two-model matrix from the models input, one Anthropic and one OpenAI-compatible model", async () => {
    const anthropicKey = "sk-ant-matrix-canary-7d41a9";
    const openaiKey = "sk-openai-matrix-canary-3f92c0";
    const anthropic = await startModelServer(
      scriptByTurn([bashCall("ls -1 alpha.txt beta.txt > listing.txt"), finalText("done")]),
    );
    const openai = await startOpenAiServer(
      openAiScriptByTurn([openAiBashCall("ls -1 alpha.txt beta.txt > listing.txt"), openAiText("done")]),
    );
    try {
      const result = await run(
        await createDeps({
          "working-directory": "head",
          scenarios: "list-files.yaml",
          trials: "1",
          models: "claude-haiku-4-5\nopenai:gpt-5-mini",
          "anthropic-api-key": anthropicKey,
          "openai-api-key": openaiKey,
          "base-url": anthropic.url,
          "openai-base-url": openai.url,
        }),
      );
      expect(recorded.failed).toEqual([]);
      expect(result.status).toBe("passed");
      const report = JSON.parse(await readFile(recorded.outputs["report-path"]!, "utf8")) as Report;
      expect(report.run.models).toEqual(["claude-haiku-4-5", "openai:gpt-5-mini"]);
      expect(report.model_matrix).toBeDefined();
      expect(report.scenarios.map((s) => [s.model, s.trials.map((t) => t.outcome)])).toEqual([
        ["claude-haiku-4-5", ["pass"]],
        ["openai:gpt-5-mini", ["pass"]],
      ]);
      // Each provider's calls went to its own base URL with its own key.
      expect(
        anthropic.messageRequests().every((r) => r.headers.authorization === `Bearer ${anthropicKey}`),
      ).toBe(true);
      expect(anthropic.messageRequests()).toHaveLength(2);
      expect(openai.requests).toHaveLength(2);
      expect(openai.requests.every((r) => r.headers.authorization === `Bearer ${openaiKey}`)).toBe(true);
      expect(openai.requests[0]?.body.model).toBe("gpt-5-mini");
      expect(recorded.secrets).toEqual(expect.arrayContaining([anthropicKey, openaiKey]));
      const published = [
        ...recorded.summaries,
        JSON.stringify(recorded.log),
        JSON.stringify(recorded.outputs),
      ];
      for (const text of published) {
        expect(text).not.toContain(anthropicKey);
        expect(text).not.toContain(openaiKey);
      }
    } finally {
      await anthropic.close();
      await openai.close();
    }
  });

  it("runs an agent matrix from the agent input: the built-in agent at its own base URL, and the oracle", async () => {
    const key = "sk-ant-agents-canary-51c2e0";
    const own = await startModelServer(
      scriptByTurn([bashCall("ls -1 alpha.txt beta.txt > listing.txt"), finalText("done")]),
    );
    const shared = await startModelServer(() => finalText("not this one"));
    try {
      const result = await run(
        await createDeps({
          "working-directory": "head",
          scenarios: "list-files.yaml",
          trials: "1",
          agent: "anthropic, oracle",
          "anthropic-api-key": key,
          "base-url": `${shared.url}\nanthropic=${own.url}`,
        }),
      );
      expect(recorded.failed).toEqual([]);
      expect(result.status).toBe("passed");
      const report = JSON.parse(await readFile(recorded.outputs["report-path"]!, "utf8")) as Report;
      expect(report.run.agents).toEqual(["anthropic", "oracle"]);
      expect(report.model_matrix?.models).toEqual(["anthropic · claude-haiku-4-5", "oracle"]);
      expect(report.scenarios.map((s) => [s.agent, s.model ?? null, s.trials.map((t) => t.outcome)])).toEqual(
        [
          ["anthropic", "claude-haiku-4-5", ["pass"]],
          ["oracle", null, ["pass"]],
        ],
      );
      // The built-in agent's calls went to its own base URL; the run's (the judge's) saw none.
      expect(own.messageRequests()).toHaveLength(2);
      expect(shared.messageRequests()).toHaveLength(0);
      expect(recorded.summaries.join("\n")).toContain("anthropic · claude-haiku-4-5");
    } finally {
      await own.close();
      await shared.close();
    }
  });

  it("runs an openai: model with openai-api-key and no Anthropic key", async () => {
    const openaiKey = "sk-openai-single-canary-5e18b7";
    const openai = await startOpenAiServer(
      openAiScriptByTurn([openAiBashCall("ls -1 alpha.txt beta.txt > listing.txt"), openAiText("done")]),
    );
    try {
      const result = await run(
        await createDeps({
          "working-directory": "head",
          scenarios: "list-files.yaml",
          trials: "1",
          model: "openai:gpt-5.2",
          "openai-api-key": openaiKey,
          "openai-base-url": openai.url,
        }),
      );
      expect(recorded.failed).toEqual([]);
      expect(result.status).toBe("passed");
      const report = JSON.parse(await readFile(recorded.outputs["report-path"]!, "utf8")) as Report;
      expect(report.run.model).toBe("openai:gpt-5.2");
      expect(openai.requests.map((r) => r.body.model)).toEqual(["gpt-5.2", "gpt-5.2"]);
      expect(recorded.secrets).toContain(openaiKey);
    } finally {
      await openai.close();
    }
  });

  it("runs agent: gemini-cli with gemini-api-key: the real Gemini CLI, the key masked and kept out of what is published", async () => {
    const geminiKey = "AIza-action-gemini-canary-3c71";
    const gemini = await startListingGemini();
    try {
      const result = await run(
        await createDeps(
          {
            "working-directory": "head",
            scenarios: "list-files.yaml",
            trials: "1",
            agent: "gemini-cli",
            model: "gemini-2.5-flash",
            "gemini-api-key": geminiKey,
          },
          { env: { GOOGLE_GEMINI_BASE_URL: gemini.url } },
        ),
      );
      expect(recorded.failed).toEqual([]);
      expect(result.status).toBe("passed");
      const report = JSON.parse(await readFile(recorded.outputs["report-path"]!, "utf8")) as Report;
      expect(report.run.model).toBe("gemini-2.5-flash");
      expect(report.scenarios[0]?.trials[0]?.interaction.total_commands).toBe(1);
      expect(
        gemini
          .generateRequests()
          .filter(offersShell)
          .map((r) => r.model),
      ).toEqual(["gemini-2.5-flash", "gemini-2.5-flash"]);
      expect(gemini.requests.every((r) => r.headers["x-goog-api-key"] === geminiKey)).toBe(true);
      expect(recorded.secrets).toContain(geminiKey);
      for (const text of [
        ...recorded.summaries,
        JSON.stringify(recorded.log),
        JSON.stringify(recorded.outputs),
      ]) {
        expect(text).not.toContain(geminiKey);
      }
    } finally {
      await gemini.close();
    }
  }, 120_000);

  it.each([
    ["alone, from gemini-base-url", "gemini-cli", (url: string) => url],
    [
      "in an agent matrix, from gemini-base-url's gemini-cli= line",
      "gemini-cli, oracle",
      (url: string) => `gemini-cli=${url}`,
    ],
  ])(
    "runs gemini-cli %s, not GOOGLE_GEMINI_BASE_URL's server",
    async (_how, agent, input) => {
      const gemini = await startListingGemini();
      const environment = await startGeminiServer(() => geminiText("not this one"));
      try {
        const result = await run(
          await createDeps(
            {
              "working-directory": "head",
              scenarios: "list-files.yaml",
              trials: "1",
              agent,
              models: "gemini-cli=gemini-2.5-flash",
              "gemini-api-key": "AIza-action-gemini-base-url-5d02",
              "gemini-base-url": input(gemini.url),
            },
            { env: { GOOGLE_GEMINI_BASE_URL: environment.url } },
          ),
        );
        expect(recorded.failed).toEqual([]);
        expect(result.status).toBe("passed");
        const report = JSON.parse(await readFile(recorded.outputs["report-path"]!, "utf8")) as Report;
        const geminiScenario = report.scenarios.find((s) => s.agent !== "oracle");
        expect(report.run.model).toBe("gemini-2.5-flash");
        expect(geminiScenario?.trials.map((t) => t.outcome)).toEqual(["pass"]);
        expect(gemini.generateRequests().filter(offersShell)).toHaveLength(2);
        expect(environment.requests).toHaveLength(0);
      } finally {
        await gemini.close();
        await environment.close();
      }
    },
    120_000,
  );

  it("names gemini-api-key when agent: gemini-cli has no key, whatever the Anthropic key", async () => {
    const result = await run(
      await createDeps({
        "working-directory": "head",
        scenarios: ".",
        agent: "gemini-cli",
        model: "gemini-2.5-flash",
        "anthropic-api-key": "sk-ant-not-the-right-one",
      }),
    );
    expect(result.status).toBe("config_error");
    expect(recorded.failed).toEqual([
      `input "gemini-api-key" is empty, and the gemini-cli agent needs an API key: add "gemini-api-key: \${{ secrets.GEMINI_API_KEY }}" to the step (or use "agent: oracle" to try the scenarios without a model)`,
    ]);
  });

  it.each([
    [{ model: "openai:gpt-5.2" }, "openai-api-key", "OPENAI_API_KEY"],
    [
      { models: "openai:gpt-5.2, claude-haiku-4-5", "openai-api-key": "sk-openai-x1" },
      "anthropic-api-key",
      "ANTHROPIC_API_KEY",
    ],
  ])("names the input of the missing key: %o", async (inputs, input, secret) => {
    const result = await run(await createDeps({ "working-directory": "head", scenarios: ".", ...inputs }));
    expect(result.status).toBe("config_error");
    expect(recorded.failed).toEqual([
      `input "${input}" is empty, and the anthropic agent needs an API key: add "${input}: \${{ secrets.${secret} }}" to the step (or use "agent: oracle" to try the scenarios without a model)`,
    ]);
  });
});

describe("bashkit datasets", () => {
  /** One task whose check passes only where bashkit made HOME (/home/eval) at start; the null agent does nothing. */
  async function homeDataset(): Promise<string> {
    const folder = makeTempDir("action-bashkit-");
    const task = {
      id: "home_made",
      category: "basic",
      description: "HOME was made at start",
      prompt: "Nothing to do.",
      files: {},
      expectations: [{ check: "file_exists:/home/eval" }],
    };
    await writeFile(path.join(folder, "home.jsonl"), `${JSON.stringify(task)}\n`);
    return folder;
  }

  it.each([
    ["", "bashkit-home-created", "pass"],
    ["2026-02-09", "bashkit-home-unset", "fail"],
    ["bashkit-home-missing", "bashkit-home-missing", "fail"],
  ])(
    "gives every task bashkit-home %j's layout, as the CLI's --bashkit-home",
    async (input, layout, outcome) => {
      const result = await run(
        await createDeps({
          agent: "null",
          "working-directory": await homeDataset(),
          scenarios: "home.jsonl",
          trials: "1",
          "fail-on": "never",
          "bashkit-home": input,
        }),
      );
      expect(recorded.failed).toEqual([]);
      expect(result.status).toBe("passed");
      const report = JSON.parse(await readFile(recorded.outputs["report-path"]!, "utf8")) as Report;
      expect(report.scenarios[0]?.trials.map((t) => [t.home_layout, t.outcome])).toEqual([[layout, outcome]]);
    },
  );

  it("refuses a bashkit-home that is no layout, current or date, naming the input and the accepted forms", async () => {
    const result = await run(
      await createDeps({
        agent: "null",
        "working-directory": await homeDataset(),
        "bashkit-home": "home-eval",
      }),
    );
    expect(result.status).toBe("config_error");
    expect(recorded.failed).toEqual([
      'input "bashkit-home": expected current, bashkit-home-unset, bashkit-home-missing, bashkit-home-created, or a date such as 2026-05-26 or 2026-05-26T12:00Z (the bashkit at that moment, UTC; a day alone is its start), found "home-eval"',
    ]);
    expect(recorded.log.filter((l) => l.message.includes("    at "))).toEqual([]);
  });
});

describe("tolerance-gates", () => {
  it("refuses a gate on a metric it cannot gate before running anything, naming the input", async () => {
    const result = await run(
      await createDeps({
        agent: "oracle",
        "working-directory": "head",
        scenarios: ".",
        baseline: "../reports/base.json",
        "tolerance-gates": "input_tokens:+20%,error_rate:+5%",
      }),
    );
    expect(result.status).toBe("config_error");
    expect(recorded.failed[0]).toMatch(
      /^input "tolerance-gates": "error_rate" cannot have a tolerance gate; one of cost_usd, /,
    );
    expect(recorded.uploads).toEqual([]);
  });
});

describe("the setup shared with the CLI names the action's inputs, not the CLI's flags", () => {
  it("a judge that is the model under test: input judge-model, and no --force-judge to offer", async () => {
    const folder = makeTempDir("action-judged-");
    await writeFile(
      path.join(folder, "r.yaml"),
      "criteria:\n  - id: done\n    weight: 1\n    description: did it\n",
    );
    await writeFile(path.join(folder, "judged.yaml"), "task: t\nevaluation: {judge: {rubric: r.yaml}}\n");
    const result = await run(
      await createDeps({
        "working-directory": folder,
        scenarios: ".",
        agent: "anthropic",
        model: "claude-haiku-4-5",
        "judge-model": "claude-haiku-4-5",
        "anthropic-api-key": "sk-ant-never-sent",
      }),
    );
    expect(result.status).toBe("config_error");
    expect(recorded.failed).toEqual([
      'input "judge-model": scenario judged: the judge model claude-haiku-4-5 is the model under test, and a model grading itself is biased; choose another judge model (evaluation.judge.model, input "judge-model" or LLM_TOOL_TEST_JUDGE)',
    ]);
  });

  it("a relative agent-command program that does not exist: input agent-command", async () => {
    const result = await run(
      await createDeps({
        "working-directory": "head",
        scenarios: ".",
        agent: "command",
        "agent-command": "./no-such-agent {prompt}",
      }),
    );
    expect(result.status).toBe("config_error");
    expect(recorded.failed).toEqual([
      expect.stringMatching(
        /^input "agent-command": the agent command's program "\.\/no-such-agent" does not exist: /,
      ),
    ]);
  });
});
