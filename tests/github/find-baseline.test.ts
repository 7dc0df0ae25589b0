/**
 * The baseline lookup against the fake GitHub REST API with the real Octokit; the artifact
 * download goes through a small recording client that extracts a given report.
 */
import { copyFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { getOctokit } from "@actions/github";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { findBaseline, findBaselines, orderCandidates } from "../../src/github/find-baseline.js";
import type { ArtifactClient, FindBy, GitHubClient, WorkflowRunData } from "../../src/github/types.js";
import { type GitHubFake, startGitHubFake } from "../support/github-server.js";
import { makeTempDir } from "../support/temp-dirs.js";

const REPORT = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  "../fixtures/action/reports/base.json",
);
const BASE_SHA = "a".repeat(40);
const ARTIFACT = "llm-tool-test-report";

let fake: GitHubFake;
let github: GitHubClient;
let downloads: { id: number; path?: string; findBy?: FindBy }[];

/** Extracts `report.json` (or `content`) into the requested folder, like the real client would. */
function createArtifactClient(content: string | null = null, failure: Error | null = null): ArtifactClient {
  return {
    uploadArtifact: async () => {
      throw new Error("not used");
    },
    listArtifacts: async () => {
      throw new Error("not used");
    },
    downloadArtifact: async (id, options) => {
      downloads.push({ id, ...options });
      if (failure) throw failure;
      const target = path.join(options?.path ?? ".", "report.json");
      if (content === null) await copyFile(REPORT, target);
      else await writeFile(target, content);
      return { downloadPath: options?.path };
    },
  };
}

async function query(runId = 500) {
  return {
    repo: { owner: fake.owner, repo: fake.repo },
    runId,
    baseBranch: "main",
    baseSha: BASE_SHA,
    artifactName: ARTIFACT,
    token: "ghs_token",
    downloadDir: makeTempDir("baseline-"),
  };
}

beforeEach(async () => {
  fake = await startGitHubFake();
  github = getOctokit("ghs_token", { baseUrl: fake.url });
  downloads = [];
  fake.addRun({
    id: 500,
    event: "pull_request",
    head_branch: "feature",
    status: "in_progress",
    conclusion: null,
  });
});

afterEach(async () => {
  await fake.close();
});

describe("findBaseline", () => {
  it("prefers the run of the PR's base commit over a newer one, and downloads its artifact cross-run", async () => {
    fake.addRun({ id: 11, run_number: 11, head_sha: BASE_SHA, created_at: "2025-01-01T10:00:00Z" });
    fake.addRun({ id: 12, run_number: 12, head_sha: "b".repeat(40), created_at: "2025-01-01T12:00:00Z" });
    const exact = fake.addArtifact({ name: ARTIFACT, runId: 11 });
    fake.addArtifact({ name: ARTIFACT, runId: 12 });
    const result = await findBaseline(github, createArtifactClient(), await query());
    expect(result.status).toBe("found");
    if (result.status !== "found") return;
    expect(result.source).toMatchObject({
      kind: "auto",
      sha: BASE_SHA,
      runId: 11,
      runNumber: 11,
      artifactId: exact.id,
      matchesBaseSha: true,
      createdAt: "2025-01-01T10:00:00Z",
      runUrl: `${fake.serverUrl}/${fake.owner}/${fake.repo}/actions/runs/11`,
    });
    expect(result.report.run.id).toBe("run-base");
    expect(downloads).toEqual([
      {
        id: exact.id,
        path: expect.stringMatching(/run-11$/),
        findBy: {
          token: "ghs_token",
          workflowRunId: 11,
          repositoryOwner: fake.owner,
          repositoryName: fake.repo,
        },
      },
    ]);
  });

  it("takes the newest run when the base commit has none, skipping runs without the artifact", async () => {
    fake.addRun({ id: 21, run_number: 21, head_sha: "c".repeat(40), created_at: "2025-01-01T10:00:00Z" });
    fake.addRun({ id: 22, run_number: 22, head_sha: "d".repeat(40), created_at: "2025-01-01T12:00:00Z" });
    fake.addArtifact({ name: ARTIFACT, runId: 21 });
    fake.addArtifact({ name: "some-other-artifact", runId: 22 });
    const result = await findBaseline(github, createArtifactClient(), await query());
    expect(result.status === "found" && result.source).toMatchObject({ runId: 21, matchesBaseSha: false });
  });

  it("only searches successful push runs of this workflow on the base branch", async () => {
    fake.addRun({ id: 31, head_sha: BASE_SHA, event: "pull_request" });
    fake.addRun({ id: 32, head_sha: BASE_SHA, conclusion: "failure" });
    fake.addRun({ id: 33, head_sha: BASE_SHA, head_branch: "release" });
    fake.addRun({ id: 34, head_sha: BASE_SHA, workflow_id: 99 });
    for (const runId of [31, 32, 33, 34]) fake.addArtifact({ name: ARTIFACT, runId });
    const result = await findBaseline(github, createArtifactClient(), await query());
    expect(result).toEqual({
      status: "missing",
      reason:
        "no successful push run of this workflow on `main` yet (the workflow must also run on push to `main` to produce the baseline)",
    });
    expect(downloads).toHaveLength(0);
  });

  it("reports an expired artifact without downloading it", async () => {
    fake.addRun({ id: 41, run_number: 41, head_sha: BASE_SHA });
    fake.addArtifact({ name: ARTIFACT, runId: 41, expired: true });
    const result = await findBaseline(github, createArtifactClient(), await query());
    expect(result).toEqual({
      status: "missing",
      reason: "the baseline artifact of run #41 (`aaaaaaa`) has expired",
    });
    expect(downloads).toHaveLength(0);
  });

  it("treats a 410 on download as expired", async () => {
    fake.addRun({ id: 42, run_number: 42, head_sha: BASE_SHA });
    fake.addArtifact({ name: ARTIFACT, runId: 42 });
    const gone = Object.assign(new Error("Artifact has expired"), { status: 410 });
    const result = await findBaseline(github, createArtifactClient(null, gone), await query());
    expect(result).toEqual({
      status: "missing",
      reason: "the baseline artifact of run #42 (`aaaaaaa`) has expired",
    });
  });

  it("says when no run has the artifact, and when the artifact holds no report", async () => {
    fake.addRun({ id: 51, run_number: 51, head_sha: BASE_SHA });
    const none = await findBaseline(github, createArtifactClient(), await query());
    expect(none).toEqual({
      status: "missing",
      reason: `run #51 (\`aaaaaaa\`) on \`main\` has no artifact \`${ARTIFACT}\``,
    });
    fake.addArtifact({ name: ARTIFACT, runId: 51 });
    const broken = await findBaseline(github, createArtifactClient("{ not json"), await query());
    expect(broken.status).toBe("missing");
    expect(broken.status === "missing" && broken.reason).toMatch(
      /^the baseline artifact of run #51 \(`aaaaaaa`\) holds no usable report.json \(.*not valid JSON/,
    );
  });

  it("turns an API failure into a reason with the HTTP status", async () => {
    fake.failures.listWorkflowRuns = 403;
    const result = await findBaseline(github, createArtifactClient(), await query());
    expect(result.status === "missing" && result.reason).toMatch(
      /^the workflow runs could not be listed \(HTTP 403: forced failure of listWorkflowRuns/,
    );
  });
});

describe("findBaselines", () => {
  it("collects up to maxRuns reports, the base commit's run first, passing over runs without the artifact", async () => {
    fake.addRun({ id: 61, run_number: 61, head_sha: "c".repeat(40), created_at: "2025-01-01T09:00:00Z" });
    fake.addRun({ id: 62, run_number: 62, head_sha: BASE_SHA, created_at: "2025-01-01T10:00:00Z" });
    fake.addRun({ id: 63, run_number: 63, head_sha: "d".repeat(40), created_at: "2025-01-01T11:00:00Z" });
    fake.addRun({ id: 64, run_number: 64, head_sha: "e".repeat(40), created_at: "2025-01-01T12:00:00Z" });
    fake.addRun({ id: 65, run_number: 65, head_sha: "f".repeat(40), created_at: "2025-01-01T08:00:00Z" });
    for (const runId of [61, 62, 64, 65]) fake.addArtifact({ name: ARTIFACT, runId });
    const result = await findBaselines(github, createArtifactClient(), { ...(await query()), maxRuns: 3 });
    expect(result.status).toBe("found");
    if (result.status !== "found") return;
    expect(result.baselines.map((b) => b.source.runId)).toEqual([62, 64, 61]);
    expect(result.baselines.map((b) => b.source.matchesBaseSha)).toEqual([true, false, false]);
    expect(result.skipped).toEqual([`run #63 (\`ddddddd\`) on \`main\` has no artifact \`${ARTIFACT}\``]);
    // Run 65 was never needed.
    expect(downloads.map((d) => d.findBy?.workflowRunId)).toEqual([62, 64, 61]);
  });

  it("lists enough runs for a large baseline-runs: 35 of 40 pooled, not the first page of 30", async () => {
    for (let i = 0; i < 40; i++) {
      const id = 100 + i;
      fake.addRun({
        id,
        run_number: id,
        head_sha: i === 39 ? BASE_SHA : `${i}`.padStart(40, "a"),
        created_at: new Date(Date.UTC(2025, 0, 1, 0, i)).toISOString(),
      });
      fake.addArtifact({ name: ARTIFACT, runId: id });
    }
    const result = await findBaselines(github, createArtifactClient(), { ...(await query()), maxRuns: 35 });
    expect(result.status).toBe("found");
    if (result.status !== "found") return;
    expect(result.baselines).toHaveLength(35);
    expect(result.baselines[0]!.source.runId).toBe(139);
  });

  it("keeps what it found when an older artifact has expired, and stops there", async () => {
    fake.addRun({ id: 71, run_number: 71, head_sha: "c".repeat(40), created_at: "2025-01-01T12:00:00Z" });
    fake.addRun({ id: 72, run_number: 72, head_sha: "d".repeat(40), created_at: "2025-01-01T11:00:00Z" });
    fake.addRun({ id: 73, run_number: 73, head_sha: "e".repeat(40), created_at: "2025-01-01T10:00:00Z" });
    fake.addArtifact({ name: ARTIFACT, runId: 71 });
    fake.addArtifact({ name: ARTIFACT, runId: 72, expired: true });
    fake.addArtifact({ name: ARTIFACT, runId: 73 });
    const result = await findBaselines(github, createArtifactClient(), { ...(await query()), maxRuns: 4 });
    expect(result.status === "found" && result.baselines.map((b) => b.source.runId)).toEqual([71]);
    expect(result.status === "found" && result.skipped).toEqual([
      "the baseline artifact of run #72 (`ddddddd`) has expired",
    ]);
  });
});

describe("orderCandidates", () => {
  const run = (id: number, sha: string, created: string): WorkflowRunData => ({
    id,
    run_number: id,
    workflow_id: 1,
    head_sha: sha,
    head_branch: "main",
    event: "push",
    status: "completed",
    conclusion: "success",
    created_at: created,
    html_url: "",
  });

  it("puts the base commit's runs first, then newest first", () => {
    const ordered = orderCandidates(
      [
        run(1, "x", "2025-01-01T00:00:00Z"),
        run(2, "base", "2025-01-02T00:00:00Z"),
        run(3, "y", "2025-01-03T00:00:00Z"),
        run(4, "base", "2025-01-01T12:00:00Z"),
      ],
      "base",
    );
    expect(ordered.map((r) => r.id)).toEqual([2, 4, 3, 1]);
  });
});
