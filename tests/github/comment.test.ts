import { getOctokit } from "@actions/github";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { findMarkedComment, upsertComment } from "../../src/github/comment.js";
import type { GitHubClient } from "../../src/github/types.js";
import { formatCommentMarker } from "../../src/render/pr-comment.js";
import { type GitHubFake, startGitHubFake } from "../support/github-server.js";

let fake: GitHubFake;
let github: GitHubClient;
const marker = formatCommentMarker("llm-tool-test");

beforeEach(async () => {
  fake = await startGitHubFake();
  github = getOctokit("ghs_token", { baseUrl: fake.url });
});

afterEach(async () => {
  await fake.close();
});

function repo() {
  return { owner: fake.owner, repo: fake.repo };
}

describe("upsertComment", () => {
  it("creates the comment, then edits the same one in place", async () => {
    const first = await upsertComment(github, repo(), 7, marker, `${marker}\nfirst`);
    expect(first.action).toBe("created");
    expect(first.url).toBe(`${fake.serverUrl}/${fake.owner}/${fake.repo}/pull/7#issuecomment-${first.id}`);
    const second = await upsertComment(github, repo(), 7, marker, `${marker}\nsecond`);
    expect(second).toEqual({ action: "updated", id: first.id, url: first.url });
    expect(fake.comments.map((c) => c.body)).toEqual([`${marker}\nsecond`]);
  });

  it("searches every page for the marker", async () => {
    for (let i = 0; i < 250; i += 1) fake.addComment(7, `comment ${i}`);
    const mine = fake.addComment(7, `${marker}\nold`);
    const result = await upsertComment(github, repo(), 7, marker, `${marker}\nnew`);
    expect(result).toMatchObject({ action: "updated", id: mine.id });
    const pages = fake.requests.filter((r) => r.method === "GET").map((r) => r.query.page);
    expect(pages).toEqual(["1", "2", "3"]);
    expect(fake.requests.filter((r) => r.method === "GET").every((r) => r.query.per_page === "100")).toBe(
      true,
    );
  });

  it("keeps comments of other keys and other pull requests apart", async () => {
    const other = formatCommentMarker("llm-tool-test-docs");
    fake.addComment(7, `${other}\ndocs suite`);
    fake.addComment(8, `${marker}\nanother PR`);
    const result = await upsertComment(github, repo(), 7, marker, `${marker}\nmain suite`);
    expect(result.action).toBe("created");
    expect(fake.comments.map((c) => [c.issueNumber, c.body])).toEqual([
      [7, `${other}\ndocs suite`],
      [8, `${marker}\nanother PR`],
      [7, `${marker}\nmain suite`],
    ]);
    expect(await findMarkedComment(github, repo(), 9, marker)).toBeNull();
  });

  it("refuses a body without its marker (it could never be found again)", async () => {
    await expect(upsertComment(github, repo(), 7, marker, "no marker")).rejects.toThrow(
      /must contain its marker/,
    );
    expect(fake.requests).toHaveLength(0);
  });

  it("passes the API's refusal on to the caller", async () => {
    fake.failures.createComment = 403;
    await expect(upsertComment(github, repo(), 7, marker, `${marker}\nx`)).rejects.toMatchObject({
      status: 403,
    });
  });
});

describe("formatCommentMarker", () => {
  it("is a hidden HTML comment naming the key", () => {
    expect(formatCommentMarker("nightly")).toBe("<!-- llm-tool-test:nightly -->");
  });
});
