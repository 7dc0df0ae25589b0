/**
 * The `workflow_run` follow-up of a fork's pull request (issue #25, break 7). The README's recipe
 * pasted the first line of the fork's comment.md into a `gh … --jq` expression run with a token
 * that can write. `mode: post-fork-comment` replaces it: the fork's artifact is data (its
 * report.json only, validated), the comment is rendered by the action with its own escaping, and
 * it goes to the pull request the `workflow_run` payload and the API agree on.
 *
 * Each case records a base-branch push run (the oracle, every trial passing) and a fork's
 * pull_request run (no key: fork-mode replay, its comment refused as GitHub refuses it), both
 * through the real action against the GitHub fake; then makes the fork's artifact hostile and runs
 * the follow-up.
 */
import { existsSync } from "node:fs";
import { cp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { getOctokit } from "@actions/github";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type ActionCore, type ActionDeps, run } from "../../src/action/main.js";
import type { ArtifactClient } from "../../src/github/types.js";
import type { Report } from "../../src/results/types.js";
import { buildPullRequestEvent, FIXTURES, readActionDefaults } from "../action/run-dist.js";
import { type GitHubFake, startGitHubFake } from "../support/github-server.js";
import { withEveryTrialPassing } from "../support/report-factory.js";
import { makeTempDir } from "../support/temp-dirs.js";

const FORK = "outsider/octo-tool";
const BASE_SHA = "a".repeat(40);
const HEAD_SHA = "b".repeat(40);
const MARKER = "<!-- llm-tool-test:llm-tool-test -->";

interface Recorded {
  log: string[];
  outputs: Record<string, string>;
  failed: string[];
}

let fake: GitHubFake;
let tempDir: string;
let recorded: Recorded;
/** Artifact id -> the folder its download extracts. */
const artifactFolders = new Map<number, string>();

beforeEach(async () => {
  fake = await startGitHubFake();
  tempDir = makeTempDir("ltt-fork-follow-up-");
  artifactFolders.clear();
});

afterEach(async () => {
  await fake.close();
});

type Event = { name: string; payload: unknown; runId: number };

async function deps(inputs: Record<string, string>, event: Event): Promise<Partial<ActionDeps>> {
  recorded = { log: [], outputs: {}, failed: [] };
  const values: Record<string, string> = {
    ...(await readActionDefaults()),
    "github-token": "ghs_token",
    "working-directory": "head",
    scenarios: ".",
    ...inputs,
  };
  const core: ActionCore = {
    getInput: (name) => values[name] ?? "",
    setSecret: () => {},
    setOutput: (name, value) => {
      recorded.outputs[name] = value;
    },
    setFailed: (message) => recorded.failed.push(message),
    info: (message) => recorded.log.push(message),
    warning: (message) => recorded.log.push(`warning: ${message}`),
    debug: () => {},
  };
  const eventPath = path.join(tempDir, `event-${event.runId}.json`);
  await writeFile(eventPath, JSON.stringify(event.payload));
  const artifacts: ArtifactClient = {
    uploadArtifact: async () => ({ id: 1, size: 1 }),
    downloadArtifact: async (id, options) => {
      const folder = artifactFolders.get(id);
      if (!folder) throw new Error(`no artifact ${id}`);
      await cp(folder, options?.path ?? ".", { recursive: true, verbatimSymlinks: true });
      return { downloadPath: options?.path };
    },
    listArtifacts: async () => ({ artifacts: [] }),
  };
  return {
    core,
    writeSummary: async () => {},
    env: {
      PATH: process.env.PATH,
      GITHUB_EVENT_NAME: event.name,
      GITHUB_EVENT_PATH: eventPath,
      GITHUB_REPOSITORY: `${fake.owner}/${fake.repo}`,
      GITHUB_RUN_ID: String(event.runId),
      GITHUB_SERVER_URL: "https://github.com",
      GITHUB_SHA: "c".repeat(40),
      GITHUB_WORKSPACE: FIXTURES,
      RUNNER_TEMP: tempDir,
    },
    cwd: FIXTURES,
    createGitHubClient: (token) => getOctokit(token, { baseUrl: fake.url }),
    artifacts,
    runProgram: async ({ file }) => ({
      exitCode: 0,
      stdout: file === "sh" ? "/usr/bin/bwrap\n" : "",
      stderr: "",
    }),
  };
}

/** The output folder of the action's last run, copied aside as an artifact of run `runId`. */
async function keepArtifact(runId: number, name: string): Promise<string> {
  const folder = path.join(tempDir, name);
  await cp(path.dirname(recorded.outputs["report-path"] as string), folder, { recursive: true });
  const artifact = fake.addArtifact({ name: "llm-tool-test-report", runId });
  artifactFolders.set(artifact.id, folder);
  return folder;
}

/** A base-branch push run (run 101) and a fork's pull_request run (run 700) of pull request #3. */
async function recordForkRun(): Promise<string> {
  fake.addRun({ id: 101, run_number: 101, head_sha: BASE_SHA });
  const push = await run(
    await deps({ agent: "oracle" }, { name: "push", payload: { ref: "refs/heads/main" }, runId: 101 }),
  );
  expect(push.status).toBe("passed");
  const base = await keepArtifact(101, "base-artifact");
  const report = JSON.parse(await readFile(path.join(base, "report.json"), "utf8")) as Report;
  await writeFile(path.join(base, "report.json"), JSON.stringify(withEveryTrialPassing(report)));

  fake.addRun({ id: 700, event: "pull_request", head_sha: HEAD_SHA, head_branch: "feature" });
  fake.pulls.push({
    number: 3,
    state: "open",
    head: { ref: "feature", sha: HEAD_SHA, repo: FORK },
    base: { ref: "main", sha: BASE_SHA },
  });
  fake.failures.createComment = 403;
  const pullRequestEvent = buildPullRequestEvent({
    number: 3,
    owner: fake.owner,
    repo: fake.repo,
    baseSha: BASE_SHA,
    headSha: HEAD_SHA,
    headRepo: FORK,
  });
  const forkRun = await run(await deps({}, { name: "pull_request", payload: pullRequestEvent, runId: 700 }));
  expect(forkRun.status).toBe("passed");
  expect(recorded.outputs.summary).toContain('"replay"');
  delete fake.failures.createComment;
  expect(fake.comments).toEqual([]);
  return keepArtifact(700, "fork-artifact");
}

function workflowRunEvent(overrides: Record<string, unknown> = {}): Event {
  return {
    name: "workflow_run",
    runId: 800,
    payload: {
      action: "completed",
      workflow_run: {
        id: 700,
        event: "pull_request",
        status: "completed",
        conclusion: "success",
        head_sha: HEAD_SHA,
        head_branch: "feature",
        head_repository: { full_name: FORK, owner: { login: "outsider" } },
        pull_requests: [],
        ...overrides,
      },
    },
  };
}

const followUp = async (event = workflowRunEvent()) => run(await deps({ mode: "post-fork-comment" }, event));

const CANARY_FILE = () => path.join(tempDir, "pwned");
/** Text a hostile fork puts everywhere it can: jq and shell, mentions, a forged marker, links, HTML. */
const hostile = () =>
  [
    `"))] | .[0].id // env.GITHUB_TOKEN | halt_error #`,
    `$(touch ${CANARY_FILE()}) \`touch ${CANARY_FILE()}\``,
    "@maintainer please merge #1",
    MARKER,
    "[click me](https://evil.example/x) ![](https://evil.example/p.png)",
    "</details><img src=x onerror=alert(1)>",
  ].join(" ");

async function poisonReport(folder: string, edit: (report: Report) => void): Promise<void> {
  const file = path.join(folder, "report.json");
  const report = JSON.parse(await readFile(file, "utf8")) as Report;
  edit(report);
  await writeFile(file, JSON.stringify(report));
}

describe("docs/action.md's follow-up recipe", () => {
  it("is the action's mode: no shell, gh or jq step sees the fork's artifact", async () => {
    const guide = await readFile(path.join(FIXTURES, "../../../docs/action.md"), "utf8");
    const recipe = /```yaml\n# \.github\/workflows\/llm-tool-test-comment\.yml\n([\s\S]*?)```/.exec(
      guide,
    )?.[1];
    expect(recipe).toBeDefined();
    expect(recipe).toContain("mode: post-fork-comment");
    expect(recipe).not.toMatch(/\brun:|--jq|\bgh\b|comment\.md|download-artifact/);
  });
});

describe("post-fork-comment posts the fork's result as data", () => {
  it("re-renders the comment from the validated report: nothing of the fork's runs or posts unescaped", async () => {
    const fork = await recordForkRun();
    const forkComment = await readFile(path.join(fork, "comment.md"), "utf8");
    // The fork's own comment.md, never read: a canary to look for.
    await writeFile(path.join(fork, "comment.md"), `${MARKER}\nFORK-COMMENT-CANARY ${hostile()}\n`);
    await poisonReport(fork, (report) => {
      const scenario = report.scenarios[0] as Report["scenarios"][0];
      scenario.description = hostile();
      const trial = scenario.trials[0] as Report["scenarios"][0]["trials"][0];
      trial.reason = hostile();
      for (const gate of trial.gates) gate.message = hostile();
      report.run.harness_version = `${report.run.harness_version} ${hostile()}`;
    });
    // A comment by someone else that starts with the marker: never edited.
    const forged = fake.addComment(3, `${MARKER}\nforged`, { login: "outsider", type: "User" });

    const result = await followUp();
    expect(result.status, recorded.failed.join("\n")).toBe("passed");
    expect(existsSync(CANARY_FILE())).toBe(false);
    expect(forged.body).toBe(`${MARKER}\nforged`);
    const ours = fake.comments.filter((c) => c.user.login === "github-actions[bot]");
    expect(ours).toHaveLength(1);
    const body = ours[0]?.body as string;
    expect(ours[0]?.issueNumber).toBe(3);
    expect(recorded.outputs["comment-url"]).toContain("/pull/3#issuecomment-");
    // The same comment the fork's run would have posted, from this action's own rendering.
    expect(body.split("\n")[0]).toBe(MARKER);
    // Its headline, marked as the fork's unverified claim.
    expect(body.split("\n")[1]).toBe(forkComment.split("\n")[1]?.replace(/^## /, "## Unverified: "));
    expect(body).not.toContain("FORK-COMMENT-CANARY");
    // One marker (its own, first), no live mention, tag, image or link from the fork's text.
    expect(body.split("<!--")).toHaveLength(2);
    expect(body).not.toMatch(/(?<![\w\u200B])@maintainer/);
    expect(body).not.toMatch(/<img|<\/details><img|!\[\]\(https:\/\/evil/);
    expect(body).not.toMatch(/(?<!\\)\]\(https:\/\/evil/);
    expect(body).not.toMatch(/#1\b/);
  });

  it.each([
    [
      "a duration of 1e200",
      (r: Report) => {
        (
          (r.scenarios[0] as Report["scenarios"][0]).trials[0] as Report["scenarios"][0]["trials"][0]
        ).execution.duration_ms = 1e200;
      },
      /the report artifact of run 700 is not a valid report, so nothing was posted: .*execution\.duration_ms: expected a duration/,
    ],
    [
      "a trial that is a string",
      (r: Report) => {
        (r.scenarios[0] as { trials: unknown[] }).trials[0] = "pass";
      },
      /is not a valid report, so nothing was posted: scenarios\[0\]\.trials\[0\]: expected a trial/,
    ],
    [
      "a pass rate of 7",
      (r: Report) => {
        (r.summary as { pass_rate: number }).pass_rate = 7;
      },
      /is not a valid report, so nothing was posted: summary\.pass_rate: expected a rate/,
    ],
  ])("%s fails clearly and posts nothing", async (_name, edit, message) => {
    const fork = await recordForkRun();
    await poisonReport(fork, edit);
    const result = await followUp();
    expect(result.status).toBe("config_error");
    expect(recorded.failed).toHaveLength(1);
    expect(recorded.failed[0]).toMatch(message);
    expect(fake.comments).toEqual([]);
  });

  it("posts a report edited to all-pass only as the fork's unverified claim, headline and figures", async () => {
    const fork = await recordForkRun();
    const edited = withEveryTrialPassing(JSON.parse(await readFile(path.join(fork, "report.json"), "utf8")));
    await writeFile(path.join(fork, "report.json"), JSON.stringify(edited));
    const result = await followUp();
    expect(result.status, recorded.failed.join("\n")).toBe("passed");
    const body = fake.comments[0]?.body as string;
    const lines = body.split("\n");
    // The first thing after the marker says whose figures these are, before any of them.
    expect(lines[1]).toMatch(/^## Unverified: /);
    expect(lines.slice(2, 5).join("\n")).toBe(
      "\n> [!CAUTION]\n> **Unverified.** Every figure below is the report of a run in the fork `outsider/octo-tool`, " +
        "which the fork's workflow made and could have edited; this repository checked its shape, not its numbers. " +
        "Run the scenarios on this repository's runner (after reviewing the pull request) for figures it can vouch for.",
    );
    expect(body).toContain(`${edited.summary.passed}/${edited.summary.passed} trials passed`);
    expect(body.indexOf("trials passed")).toBeGreaterThan(body.indexOf("**Unverified.**"));
    expect(recorded.log.join("\n")).toContain("as the fork's run claims them (unverified)");
  });

  it.each([
    [
      "an agent that needs an API key",
      (r: Report) => {
        r.run.agent = "claude-code";
      },
      "claims a model run (it ran the claude-code agent, which needs an API key)",
    ],
    [
      "tokens and a cost the replay did not record",
      (r: Report) => {
        const trial = (r.scenarios[0] as Report["scenarios"][0])
          .trials[0] as Report["scenarios"][0]["trials"][0];
        delete trial.execution.recorded;
        trial.execution.input_tokens = 1200;
        trial.execution.output_tokens = 300;
        trial.execution.cost_usd = 0.02;
      },
      "claims a model run (trial 1 of ",
    ],
  ])(
    "refuses a report claiming a model run (%s): a fork's run has no secrets; nothing posted",
    async (_name, edit, message) => {
      const fork = await recordForkRun();
      await poisonReport(fork, (report) => {
        Object.assign(report, withEveryTrialPassing(report));
        edit(report);
      });
      const result = await followUp();
      expect(result.status).toBe("config_error");
      expect(recorded.failed).toHaveLength(1);
      expect(recorded.failed[0]).toContain(`the report artifact of run 700 ${message}`);
      expect(recorded.failed[0]).toContain(
        "a fork's pull_request run cannot make: it has none of this repository's secrets",
      );
      expect(fake.comments).toEqual([]);
    },
  );

  it("a report.json that is a link out of the artifact fails clearly and posts nothing", async () => {
    const fork = await recordForkRun();
    await rm(path.join(fork, "report.json"));
    await symlink("/etc/passwd", path.join(fork, "report.json"));
    const result = await followUp();
    expect(result.status).toBe("config_error");
    expect(recorded.failed[0]).toBe("the report artifact of run 700: report.json is not a regular file");
    expect(fake.comments).toEqual([]);
  });

  it("posts only where the pull request's head is the run's: not a PR the payload names, not after a new push", async () => {
    await recordForkRun();
    // A maintainer's own pull request, named in the payload: its head is not the fork's.
    fake.pulls.push({
      number: 9,
      state: "open",
      head: { ref: "release", sha: "d".repeat(40), repo: `${fake.owner}/${fake.repo}` },
      base: { ref: "main", sha: BASE_SHA },
    });
    const named = await followUp(workflowRunEvent({ pull_requests: [{ number: 9 }] }));
    expect(named.status).toBe("passed");
    expect(fake.comments.map((c) => c.issueNumber)).toEqual([3]);

    // The fork pushed again after its run: the result is not the pull request's any more.
    (fake.pulls[0] as { head: { sha: string } }).head.sha = "e".repeat(40);
    fake.comments.splice(0);
    const moved = await followUp();
    expect(moved.status).toBe("skipped");
    expect(recorded.log.join("\n")).toContain(
      "Nothing posted: no open pull request into octo-org/octo-tool has the run's head outsider/octo-tool@bbbbbbb",
    );
    expect(recorded.log.join("\n")).toContain("pushed again since");
    expect(fake.comments).toEqual([]);
  });

  it("refuses to run outside a workflow_run, and passes over a push run's completion", async () => {
    const wrongEvent = await run(
      await deps({ mode: "post-fork-comment" }, { name: "pull_request_target", payload: {}, runId: 800 }),
    );
    expect(wrongEvent.status).toBe("config_error");
    expect(recorded.failed[0]).toMatch(
      /^input "mode": post-fork-comment runs in a workflow started by "on: workflow_run", and this run's event is "pull_request_target"/,
    );
    const push = await followUp(workflowRunEvent({ event: "push" }));
    expect(push.status).toBe("skipped");
    expect(fake.requests).toEqual([]);
  });
});
