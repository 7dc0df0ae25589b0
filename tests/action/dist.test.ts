/**
 * The bundled action end to end: `node dist/index.js` in a subprocess with the runner's
 * environment, against the fake GitHub services (REST API, artifact service, blob storage) and,
 * for the canary, the scripted Messages-API server. The oracle agent runs the fixture suites in
 * tests/fixtures/action/ (`head`: one passing, one failing scenario; `base`: both passing).
 */
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type GitHubFake, readZipEntries, startGitHubFake } from "../support/github-server.js";
import {
  bashCall,
  finalText,
  type ModelServer,
  scriptByTurn,
  startModelServer,
} from "../support/model-server.js";
import { makeTempDir } from "../support/temp-dirs.js";
import { buildPullRequestEvent, buildPushEvent, DIST_ENTRY, FAKE_GITHUB_TOKEN, runDist } from "./run-dist.js";

const BASE_SHA = "b".repeat(39) + "1";
const HEAD_SHA = "c".repeat(39) + "2";
const PR_NUMBER = 42;
const MARKER = "<!-- llm-tool-test:llm-tool-test -->";
/**
 * These tests check what the bundle publishes, not the statistics: one trial per scenario keeps
 * them fast and their counts small (action.yml's defaults are checked in inputs.test.ts).
 */
const ONE_TRIAL = { trials: "1" };

let fake: GitHubFake;

beforeAll(() => {
  if (!existsSync(DIST_ENTRY)) throw new Error(`${DIST_ENTRY} is missing: run "npm run bundle" first`);
});

beforeEach(async () => {
  fake = await startGitHubFake();
});

afterEach(async () => {
  await fake.close();
});

function prEvent(overrides: Partial<Parameters<typeof buildPullRequestEvent>[0]> = {}) {
  return buildPullRequestEvent({
    number: PR_NUMBER,
    owner: fake.owner,
    repo: fake.repo,
    baseSha: BASE_SHA,
    headSha: HEAD_SHA,
    ...overrides,
  });
}

/** A pull request run of the head suite with the oracle agent. */
async function runPullRequest(runId: number, inputs: Record<string, string> = {}) {
  fake.addRun({
    id: runId,
    event: "pull_request",
    head_branch: "feature",
    head_sha: HEAD_SHA,
    status: "in_progress",
    conclusion: null,
  });
  return runDist({
    fake,
    runId,
    eventName: "pull_request",
    payload: prEvent(),
    sha: "e".repeat(40),
    ref: `refs/pull/${PR_NUMBER}/merge`,
    inputs: { agent: "oracle", "working-directory": "head", scenarios: "*.yaml", ...ONE_TRIAL, ...inputs },
  });
}

/** A push run of the base suite on main: it produces the baseline artifact. */
async function runPushOnMain(runId: number, createdAt: string) {
  fake.addRun({
    id: runId,
    event: "push",
    head_branch: "main",
    head_sha: BASE_SHA,
    status: "in_progress",
    conclusion: null,
    created_at: createdAt,
  });
  const result = await runDist({
    fake,
    runId,
    eventName: "push",
    payload: buildPushEvent({ owner: fake.owner, repo: fake.repo, ref: "refs/heads/main", sha: BASE_SHA }),
    sha: BASE_SHA,
    ref: "refs/heads/main",
    inputs: { agent: "oracle", "working-directory": "base", scenarios: ".", ...ONE_TRIAL },
  });
  // The runner marks the run finished once its jobs are done.
  const run = fake.runs.find((r) => r.id === runId)!;
  run.status = "completed";
  run.conclusion = result.exitCode === 0 ? "success" : "failure";
  return result;
}

/** unzip-stream (inside @actions/artifact's download) still calls `Buffer()`: Node warns once. */
function withoutBufferDeprecation(stderr: string): string {
  return stderr
    .replace(/^\(node:\d+\) \[DEP0005\] DeprecationWarning: Buffer\(\) is deprecated.*\n/m, "")
    .replace(/^\(Use `node --trace-deprecation \.\.\.` to show where the warning was created\)\n/m, "");
}

function artifactFiles(runId: number, name = "llm-tool-test-report"): Map<string, Buffer> {
  const artifact = fake.artifacts.find((a) => a.runId === runId && a.name === name);
  if (!artifact) throw new Error(`run ${runId} uploaded no artifact`);
  return readZipEntries(artifact.data);
}

function commentsOnPr() {
  return fake.comments.filter((c) => c.issueNumber === PR_NUMBER);
}

describe("the bundled action on a pull request", () => {
  it("creates the comment on the first run and updates the same comment on the next", async () => {
    // Someone else's comments come first, over more than one page.
    for (let i = 0; i < 120; i += 1) fake.addComment(PR_NUMBER, `unrelated comment ${i}`);

    const first = await runPullRequest(301, { "fail-on": "never" });
    expect(first.stderr).toBe("");
    expect(first.exitCode).toBe(0);
    const mine = commentsOnPr().filter((c) => c.body.includes(MARKER));
    expect(mine).toHaveLength(1);
    const body = mine[0]!.body;
    expect(body.startsWith(MARKER)).toBe(true);
    // Line one is the decision: fail-on never does not gate; the run's own result follows.
    expect(body.split("\n")[1]).toBe("## ℹ️ Not gating: 1/2 trials passed (fail-on: never)");
    expect(body).toContain("This run: 1/2 trials passed (50%)");
    expect(body).toContain("**No baseline to compare with:**");
    expect(body).toContain("no successful push run of this workflow on `main` yet");
    expect(body).toContain(`[Workflow run](${fake.serverUrl}/${fake.owner}/${fake.repo}/actions/runs/301)`);
    const artifact = fake.artifacts.find((a) => a.runId === 301)!;
    expect(artifact.name).toBe("llm-tool-test-report");
    expect(body).toContain(
      `[Report artifact](${fake.serverUrl}/${fake.owner}/${fake.repo}/actions/runs/301/artifacts/${artifact.id})`,
    );
    expect(body).toContain("count_items");

    // Outputs, as the runner would read them.
    expect(first.outputs.outcome).toBe("fail");
    expect(first.outputs["pass-rate"]).toBe("0.5");
    expect(first.outputs["artifact-id"]).toBe(String(artifact.id));
    expect(first.outputs["comment-url"]).toBe(
      `${fake.serverUrl}/${fake.owner}/${fake.repo}/pull/${PR_NUMBER}#issuecomment-${mine[0]!.id}`,
    );
    expect(first.outputs["cost-usd"]).toBe("0");
    const summary = JSON.parse(first.outputs.summary!);
    expect(summary).toMatchObject({ outcome: "fail", passed: 1, failed: 1, baseline: { status: "missing" } });
    expect(first.outputs["report-path"]).toBe(
      path.join(first.tempDir, "llm-tool-test", "llm-tool-test-report", "report.json"),
    );
    const report = JSON.parse(await readFile(first.outputs["report-path"]!, "utf8"));
    expect(report.summary.outcome).toBe("fail");

    // The artifact holds the report files; the job summary the same headline.
    const files = artifactFiles(301);
    expect([...files.keys()]).toEqual(expect.arrayContaining(["report.json", "report.md"]));
    expect(JSON.parse(files.get("report.json")!.toString("utf8")).summary.failed).toBe(1);
    expect(first.summary.split("\n")[0]).toBe("## ℹ️ Not gating: 1/2 trials passed (fail-on: never)");
    expect(first.summary).toContain("## Full report");

    const second = await runPullRequest(302, { "fail-on": "never" });
    expect(second.exitCode).toBe(0);
    const after = commentsOnPr().filter((c) => c.body.includes(MARKER));
    expect(after).toHaveLength(1);
    expect(after[0]!.id).toBe(mine[0]!.id);
    expect(after[0]!.body).toContain("/actions/runs/302");
    expect(commentsOnPr()).toHaveLength(121);
    const patches = fake.requests.filter((r) => r.method === "PATCH");
    expect(patches.map((r) => r.path)).toEqual([
      `/repos/${fake.owner}/${fake.repo}/issues/comments/${mine[0]!.id}`,
    ]);
    // The search walked the pages with the workflow token.
    const listings = fake.requests.filter(
      (r) => r.method === "GET" && r.path.endsWith(`/issues/${PR_NUMBER}/comments`),
    );
    expect(listings.map((r) => r.query.page)).toEqual(["1", "2", "1", "2"]);
    expect(listings.every((r) => r.headers.authorization === `token ${FAKE_GITHUB_TOKEN}`)).toBe(true);
  });

  it("finds the base branch's baseline, downloads it and comments the comparison", async () => {
    const push = await runPushOnMain(100, new Date(Date.now() - 3 * 3600_000).toISOString());
    expect(push.stderr).toBe("");
    expect(push.exitCode).toBe(0);
    expect(push.outputs.outcome).toBe("pass");
    expect(commentsOnPr()).toHaveLength(0);
    const baseArtifact = fake.artifacts.find((a) => a.runId === 100)!;
    expect(baseArtifact.name).toBe("llm-tool-test-report");

    const pr = await runPullRequest(200, { "fail-on": "regression" });
    // The PR's count_items is another scenario (its solution changed): the pooled baseline leaves it
    // out, and with one trial of list_files nothing can regress; one base run cannot show how runs
    // vary, so the run is inconclusive, never a pass. Regressions are decided in
    // tests/action/main.test.ts and tests/compare/decision.test.ts.
    expect(pr.exitCode).toBe(0);
    expect(pr.stdout).toContain(
      "Left out of the baseline: run #100 (`bbbbbbb`), scenario `count_items`: the scenario changed since this run.",
    );
    expect(pr.stdout).toContain(
      "llm-tool-test: Inconclusive: no regression seen, but only 1 base-branch run: run-to-run variation cannot be estimated (3 needed)",
    );
    expect(JSON.parse(pr.outputs.decision!)).toMatchObject({ failed: false, basis: "inconclusive" });

    const [comment] = commentsOnPr();
    expect(comment).toBeDefined();
    expect(comment!.body.split("\n")[1]).toMatch(
      /^## 🟡 Inconclusive: no regression seen, but only 1 base-branch run/u,
    );
    expect(comment!.body.split("\n").slice(1, 3).join("\n")).not.toContain("✅");
    expect(comment!.body).toContain("only the suite test can decide");
    expect(comment!.body).toContain(`Compared with \`${BASE_SHA.slice(0, 7)}\` on \`main\``);
    expect(comment!.body).toContain("3 hours old");
    expect(comment!.body).toContain("changed since the base runs (1): `count_items`");
    expect(JSON.parse(pr.outputs.summary!)).toMatchObject({
      baseline: { status: "found", sha: BASE_SHA, run_id: 100, matches_base_sha: true },
    });
    expect([...artifactFiles(200).keys()]).toContain("comparison.json");

    // The lookup: this run's workflow, the base branch's successful push runs, the run's artifact,
    // then the cross-run download (302 to blob storage).
    const paths = fake.requests.map((r) => `${r.method} ${r.path}`);
    const repo = `/repos/${fake.owner}/${fake.repo}`;
    expect(paths).toEqual(
      expect.arrayContaining([
        `GET ${repo}/actions/runs/200`,
        `GET ${repo}/actions/workflows/77/runs`,
        `GET ${repo}/actions/runs/100/artifacts`,
        `GET ${repo}/actions/artifacts/${baseArtifact.id}/zip`,
        `GET /devstoreaccount1/actions-results/artifact-${baseArtifact.id}.zip`,
      ]),
    );
    const runsQuery = fake.requests.find((r) => r.path === `${repo}/actions/workflows/77/runs`)!.query;
    expect(runsQuery).toMatchObject({ branch: "main", event: "push", status: "success" });
  });
});

describe("the bundled action without a baseline or a key", () => {
  it("says when the base branch's artifact has expired, and stays neutral", async () => {
    fake.addRun({ id: 90, event: "push", head_branch: "main", head_sha: BASE_SHA });
    fake.addArtifact({ name: "llm-tool-test-report", runId: 90, expired: true });
    const result = await runPullRequest(310, { "fail-on": "regression" });
    expect(result.exitCode).toBe(0);
    const [comment] = commentsOnPr();
    const neutral =
      "No baseline yet: the baseline artifact of run #90 (`bbbbbbb`) has expired — this check does not gate until there is one";
    expect(comment!.body.split("\n")[1]).toBe(`## ⚪ ${neutral}`);
    expect(result.stdout).toContain(`llm-tool-test: ${neutral}.`);
    expect(JSON.parse(result.outputs.decision!)).toMatchObject({ failed: false, basis: "no_baseline" });
    // An expired artifact is never downloaded.
    expect(fake.requests.some((r) => r.path.endsWith("/zip"))).toBe(false);
  });

  it("skips a fork's pull request without the API key, successfully and saying why", async () => {
    fake.addRun({ id: 320, event: "pull_request", head_branch: "feature" });
    const result = await runDist({
      fake,
      runId: 320,
      eventName: "pull_request",
      payload: prEvent({ headRepo: "outsider/octo-tool" }),
      // The default agent (anthropic) needs the key, which forks do not get; fork-mode replay is
      // tested in process (main.test.ts).
      inputs: { "working-directory": "head", "anthropic-api-key": "", "fork-mode": "skip" },
    });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain("This pull request comes from a fork (outsider/octo-tool)");
    expect(result.summary).toContain("## ⏭️ llm-tool-test: skipped");
    expect(result.summary).toContain("a fork (outsider/octo-tool)");
    expect(result.outputs.outcome).toBe("skipped");
    expect(JSON.parse(result.outputs.summary!)).toMatchObject({ outcome: "skipped" });
    expect(fake.requests).toHaveLength(0);
    expect(fake.artifacts).toHaveLength(0);
  });

  it("fails on a missing key outside a fork, naming the input", async () => {
    fake.addRun({ id: 321, event: "pull_request", head_branch: "feature" });
    const result = await runDist({
      fake,
      runId: 321,
      eventName: "pull_request",
      payload: prEvent(),
      inputs: { "working-directory": "head" },
    });
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toMatch(
      /^::error::input "anthropic-api-key" is empty, and the anthropic agent needs/m,
    );
    expect(result.stdout).not.toMatch(/\n\s+at /);
  });

  it("fails on a bad input with the input's name and no stack trace", async () => {
    fake.addRun({ id: 322, event: "pull_request", head_branch: "feature" });
    const result = await runPullRequest(322, { trials: "three" });
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toContain('::error::input "trials" must be a whole number >= 1, got "three"');
    expect(result.stdout).not.toMatch(/\n\s+at /);
    expect(fake.requests).toHaveLength(0);
  });
});

describe("fail-on", () => {
  it("outcome: publishes everything, then fails the check because a scenario failed", async () => {
    const result = await runPullRequest(330, { "fail-on": "outcome" });
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toContain("::error::llm-tool-test: Failed: 1/2 trials failed (fail-on: outcome).");
    // Published before failing.
    expect(commentsOnPr()).toHaveLength(1);
    expect(fake.artifacts.filter((a) => a.runId === 330)).toHaveLength(1);
    expect(result.outputs.outcome).toBe("fail");
    expect(result.summary.split("\n")[0]).toBe("## ❌ Failed: 1/2 trials failed (fail-on: outcome)");
  });

  it("outcome: passes when every scenario passes", async () => {
    const result = await runPullRequest(331, {
      "fail-on": "outcome",
      "working-directory": "base",
      scenarios: ".",
    });
    expect(result.exitCode).toBe(0);
    expect(result.outputs.outcome).toBe("pass");
    expect(result.outputs["pass-rate"]).toBe("1");
  });

  it("never: a failing scenario does not fail the check", async () => {
    const result = await runPullRequest(332, { "fail-on": "never" });
    expect(result.exitCode).toBe(0);
    expect(result.outputs.outcome).toBe("fail");
    expect(result.stdout).not.toContain("::error::");
  });

  it("regression: a failing scenario with no baseline to regress from passes", async () => {
    const result = await runPullRequest(333, { "fail-on": "regression" });
    expect(result.exitCode).toBe(0);
    expect(result.outputs.outcome).toBe("fail");
  });
});

describe("publishing problems", () => {
  it("a comment that cannot be posted is a warning, not a failure", async () => {
    fake.failures.createComment = 403;
    const result = await runPullRequest(340, { "fail-on": "never" });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(/::warning::The pull request comment could not be posted \(.*403/);
    expect(result.outputs["comment-url"]).toBe("");
    expect(fake.artifacts.filter((a) => a.runId === 340)).toHaveLength(1);
  });

  it("trims a comment that would be too long, keeping the headline and the links", async () => {
    const workspace = makeTempDir("llm-tool-test-big-suite-");
    await mkdir(path.join(workspace, "suite"));
    // report.md gives each failed trial its gate's description: 48 long ones make it well past the
    // 65,000 characters a comment may hold, as 160 short ones did, in a third of the trials.
    const count = 48;
    const padding = "an unusually long explanation of what this gate checks and why it matters ".repeat(16);
    for (let i = 0; i < count; i += 1) {
      const id = `scenario_with_a_rather_long_name_${String(i).padStart(3, "0")}`;
      await writeFile(
        path.join(workspace, "suite", `${id}.yaml`),
        [
          `name: ${id}`,
          "task: Write the word done to out.txt.",
          "target:",
          "  binary: ls",
          "solution:",
          "  - ls > /dev/null",
          "evaluation:",
          "  gates:",
          "    - type: file_contains",
          "      path: out.txt",
          "      substring: done",
          `      description: ${padding.trim()}`,
          "",
        ].join("\n"),
      );
    }
    fake.addRun({ id: 350, event: "pull_request", head_branch: "feature" });
    const result = await runDist({
      fake,
      runId: 350,
      eventName: "pull_request",
      payload: prEvent(),
      workspace,
      inputs: { agent: "oracle", scenarios: "suite", concurrency: "8", "fail-on": "never", ...ONE_TRIAL },
      // 48 sandboxed trials: a bound for hangs only.
      timeoutMs: 240_000,
    });
    expect(result.exitCode).toBe(0);
    const [comment] = commentsOnPr();
    expect(comment).toBeDefined();
    expect(comment!.body.length).toBeLessThanOrEqual(65_000);
    expect(comment!.body.split("\n")[1]).toBe(`## ℹ️ Not gating: 0/${count} trials passed (fail-on: never)`);
    expect(comment!.body).toContain("cut to fit; the full report is `report.md` in the report artifact");
    expect(comment!.body).toMatch(
      /\[Report artifact\]\(.*\/actions\/runs\/350\/artifacts\/\d+\)\n\n<sub>llm-tool-test /,
    );
    // The report itself is whole: the artifact has every failure.
    const reportMd = artifactFiles(350).get("report.md")!.toString("utf8");
    expect(reportMd.length).toBeGreaterThan(65_000);
    expect(result.summary.length).toBeGreaterThan(comment!.body.length);
  }, 300_000);
});

describe("the API key", () => {
  let model: ModelServer;
  const CANARY = "sk-ant-canary-0f9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c";

  beforeEach(async () => {
    model = await startModelServer(
      scriptByTurn([
        bashCall('env | sort; echo "key=$ANTHROPIC_API_KEY"'),
        bashCall("ls -1 alpha.txt beta.txt > listing.txt"),
        // A model that repeats a secret must not get it into the report either.
        finalText(`Done. (Your key was ${CANARY}.)`),
      ]),
    );
  });

  afterEach(async () => {
    await model.close();
  });

  it("is used for the model but reaches no comment, summary, output, artifact or log", async () => {
    fake.addRun({ id: 360, event: "pull_request", head_branch: "feature" });
    const result = await runDist({
      fake,
      runId: 360,
      eventName: "pull_request",
      payload: prEvent(),
      inputs: {
        agent: "anthropic",
        "anthropic-api-key": CANARY,
        "working-directory": "head",
        scenarios: "list-files.yaml",
        ...ONE_TRIAL,
      },
      env: { ANTHROPIC_BASE_URL: model.url },
    });
    expect(result.stderr).toBe("");
    expect(result.exitCode).toBe(0);
    expect(result.outputs.outcome).toBe("pass");
    // The key did reach the model API, so its absence below means something.
    const messages = model.messageRequests();
    expect(messages.length).toBe(3);
    expect(JSON.stringify(messages[0]!.headers)).toContain(CANARY);

    // The runner hides `::add-mask::` commands; everything else in the log is visible.
    const log = `${result.stdout}\n${result.stderr}`
      .split("\n")
      .filter((line) => !line.startsWith("::add-mask::"))
      .join("\n");
    expect(result.stdout).toContain(`::add-mask::${CANARY}`);
    expect(log).not.toContain(CANARY);
    for (const comment of fake.comments) expect(comment.body).not.toContain(CANARY);
    expect(fake.comments).toHaveLength(1);
    expect(result.summary).not.toContain(CANARY);
    expect(JSON.stringify(result.outputs)).not.toContain(CANARY);
    const files = artifactFiles(360);
    expect(files.size).toBeGreaterThan(3);
    for (const [name, content] of files) {
      expect(content.toString("utf8"), name).not.toContain(CANARY);
    }
    // Nothing sent to GitHub carried it either.
    for (const request of fake.requests) expect(request.body.toString("utf8")).not.toContain(CANARY);
    // The agent's `env` showed no key, and the model's echo of it was redacted.
    const events = [...files.entries()].find(([name]) => name.endsWith("events.jsonl"))![1].toString("utf8");
    expect(events).toContain("key=");
    expect(events).not.toMatch(/key=sk-/);
    expect(events).toContain("[REDACTED]");
  });
});

describe("a matrix: shards, then the merge", () => {
  it("uploads one artifact per shard, then merges them into one report, artifact and comment", async () => {
    fake.addRun({
      id: 400,
      event: "pull_request",
      head_branch: "feature",
      status: "in_progress",
      conclusion: null,
    });
    const shard = (index: number) =>
      runDist({
        fake,
        runId: 400,
        eventName: "pull_request",
        payload: prEvent(),
        inputs: {
          agent: "oracle",
          "working-directory": "head",
          scenarios: ".",
          trials: "2",
          shard: `${index}/2`,
        },
      });
    const [first, second] = [await shard(1), await shard(2)];
    // A shard never fails the check (the merge job decides) and never comments.
    expect([first.exitCode, second.exitCode]).toEqual([0, 0]);
    expect(commentsOnPr()).toHaveLength(0);
    expect(fake.artifacts.map((a) => a.name).sort()).toEqual([
      "llm-tool-test-report-shard-1-of-2",
      "llm-tool-test-report-shard-2-of-2",
    ]);
    const shardTrials = [first, second].map((r) => JSON.parse(r.outputs.summary!).trials as number);
    expect(shardTrials[0]! + shardTrials[1]!).toBe(4);
    expect(Math.min(...shardTrials)).toBeGreaterThan(0);

    const merged = await runDist({
      fake,
      runId: 400,
      eventName: "pull_request",
      payload: prEvent(),
      inputs: { mode: "merge", "anthropic-api-key": "", "fail-on": "outcome" },
    });
    expect(withoutBufferDeprecation(merged.stderr)).toBe("");
    expect(merged.exitCode).toBe(1);
    expect(merged.stdout).toContain("Merged 2 shard(s): 4 trial(s) over 2 scenario(s).");
    expect(merged.outputs.outcome).toBe("fail");
    expect(JSON.parse(merged.outputs.summary!)).toMatchObject({
      trials: 4,
      passed: 2,
      failed: 2,
      incomplete: false,
    });
    const [comment] = commentsOnPr();
    expect(comment!.body.split("\n")[1]).toBe("## ❌ Failed: 2/4 trials failed (fail-on: outcome)");
    const files = artifactFiles(400);
    const report = JSON.parse(files.get("report.json")!.toString("utf8"));
    expect(report.run.shard).toBeNull();
    expect(report.scenarios.map((s: { id: string }) => s.id).sort()).toEqual(["count_items", "list_files"]);
    // The trials' files came along, so the report's links resolve inside the artifact.
    for (const scenario of report.scenarios) {
      for (const trial of scenario.trials) expect(files.has(trial.events_path)).toBe(true);
    }
    // The shards were downloaded through the artifact service, not the REST API.
    expect(fake.requests.filter((r) => r.path.endsWith("/ListArtifacts")).length).toBeGreaterThan(0);
    expect(fake.requests.filter((r) => r.path.endsWith("/GetSignedArtifactURL"))).toHaveLength(2);
  });

  it("fails the merge with a clear message when there are no shards", async () => {
    fake.addRun({ id: 410, event: "pull_request", head_branch: "feature" });
    const result = await runDist({
      fake,
      runId: 410,
      eventName: "pull_request",
      payload: prEvent(),
      inputs: { mode: "merge" },
    });
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toContain(
      '::error::input "mode": "merge" found no artifact named "llm-tool-test-report-shard-<i>-of-<n>" in this workflow run',
    );
  });
});

describe("a cancelled workflow", () => {
  it("stops on SIGTERM, then publishes the incomplete report", async () => {
    const workspace = makeTempDir("llm-tool-test-slow-suite-");
    for (const [name, command] of [
      ["quick", "ls > out.txt"],
      ["slow", "sleep 60; ls > out.txt"],
    ]) {
      await writeFile(
        path.join(workspace, `${name}.yaml`),
        `name: ${name}\ntask: List the files into out.txt.\ntarget:\n  binary: ls\nsolution:\n  - ${command}\nevaluation:\n  gates:\n    - type: file_exists\n      path: out.txt\n`,
      );
    }
    fake.addRun({ id: 420, event: "pull_request", head_branch: "feature" });
    const started = Date.now();
    const result = await runDist({
      fake,
      runId: 420,
      eventName: "pull_request",
      payload: prEvent(),
      workspace,
      inputs: { agent: "oracle", scenarios: ".", concurrency: "1", ...ONE_TRIAL },
      // Cancel once the slow trial has started (the quick one sorts first and finishes).
      signalWhen: { pattern: /\[1\/2\] ✓ quick/, signal: "SIGTERM" },
    });
    expect(Date.now() - started).toBeLessThan(45_000);
    expect(result.stdout).toContain("Stopping early: the run was cancelled.");
    const summary = JSON.parse(result.outputs.summary!);
    expect(summary).toMatchObject({ incomplete: true, passed: 1, skipped: 1 });
    const [comment] = commentsOnPr();
    expect(comment!.body).toContain("This run is **incomplete**");
    expect(fake.artifacts.filter((a) => a.runId === 420)).toHaveLength(1);
  });
});
