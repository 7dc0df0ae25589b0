import { getOctokit } from "@actions/github";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { findMarkedComment, findViewerLogin, isAuthoredBy, upsertComment } from "../../src/github/comment.js";
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
    expect(await findMarkedComment(github, repo(), 9, marker, "github-actions")).toBeNull();
  });

  it("refuses a body that does not start with its marker (it could never be found again)", async () => {
    await expect(upsertComment(github, repo(), 7, marker, "no marker")).rejects.toThrow(
      /must start with its marker/,
    );
    await expect(upsertComment(github, repo(), 7, marker, `text\n${marker}`)).rejects.toThrow(
      /must start with its marker/,
    );
    expect(fake.requests).toHaveLength(0);
  });

  it("asks GraphQL who the token is (GET /user is refused for the workflow token)", async () => {
    await upsertComment(github, repo(), 7, marker, `${marker}\nfirst`);
    const graphql = fake.requests.filter((r) => r.path === "/graphql");
    expect(graphql).toHaveLength(1);
    expect(JSON.parse(graphql[0]!.body.toString("utf8")).query).toBe("query { viewer { login } }");
    expect(fake.requests.some((r) => r.path === "/user")).toBe(false);
  });

  it("ignores a marker planted in another user's comment and creates its own", async () => {
    const planted = fake.addComment(7, `${marker}\nplanted by someone else`, {
      login: "mallory",
      type: "User",
    });
    const result = await upsertComment(github, repo(), 7, marker, `${marker}\nours`);
    expect(result.action).toBe("created");
    expect(result.id).not.toBe(planted.id);
    expect(fake.comments.find((c) => c.id === planted.id)?.body).toBe(`${marker}\nplanted by someone else`);
    expect(fake.requests.some((r) => r.method === "PATCH")).toBe(false);
    // The next run finds its own comment, not the planted one.
    const again = await upsertComment(github, repo(), 7, marker, `${marker}\nours again`);
    expect(again).toMatchObject({ action: "updated", id: result.id });
  });

  it("ignores another app's marked comment", async () => {
    fake.addComment(7, `${marker}\nanother app`, { login: "other-app[bot]", type: "Bot" });
    fake.addComment(7, `${marker}\nlook-alike`, { login: "github-actions-x[bot]", type: "Bot" });
    const result = await upsertComment(github, repo(), 7, marker, `${marker}\nours`);
    expect(result.action).toBe("created");
    expect(fake.comments.map((c) => c.body)).toEqual([
      `${marker}\nanother app`,
      `${marker}\nlook-alike`,
      `${marker}\nours`,
    ]);
  });

  it("ignores a comment of ours that only quotes the marker further down", async () => {
    fake.addComment(7, `quoting: ${marker}`);
    const result = await upsertComment(github, repo(), 7, marker, `${marker}\nours`);
    expect(result.action).toBe("created");
  });

  it("finds its comment when the token is a user (a personal token): same login in both APIs", async () => {
    fake.identity.user = { login: "Octo-Maintainer", type: "User" };
    fake.identity.viewerLogin = "octo-maintainer";
    const mine = fake.addComment(7, `${marker}\nold`);
    fake.addComment(7, `${marker}\nold`, { login: "octo-maintainer[bot]", type: "Bot" });
    const result = await upsertComment(github, repo(), 7, marker, `${marker}\nnew`);
    expect(result).toMatchObject({ action: "updated", id: mine.id });
  });

  it("does not post when GraphQL cannot name the token's identity", async () => {
    fake.failures.graphql = 401;
    await expect(upsertComment(github, repo(), 7, marker, `${marker}\nx`)).rejects.toMatchObject({
      status: 401,
    });
    expect(fake.requests.filter((r) => r.path !== "/graphql")).toHaveLength(0);
  });

  it("passes the API's refusal on to the caller", async () => {
    fake.failures.createComment = 403;
    await expect(upsertComment(github, repo(), 7, marker, `${marker}\nx`)).rejects.toMatchObject({
      status: 403,
    });
  });
});

describe("findViewerLogin", () => {
  it("reads the login GraphQL's viewer answers", async () => {
    expect(await findViewerLogin(github)).toBe("github-actions");
  });
});

describe("isAuthoredBy", () => {
  const comment = (login: string, type: string) => ({ id: 1, html_url: "", user: { login, type } });
  it("matches the Actions bot in both forms: GraphQL's github-actions, REST's github-actions[bot]", () => {
    expect(isAuthoredBy(comment("github-actions[bot]", "Bot"), "github-actions")).toBe(true);
    expect(isAuthoredBy(comment("github-actions[bot]", "Bot"), "github-actions[bot]")).toBe(true);
    expect(isAuthoredBy(comment("GitHub-Actions[bot]", "Bot"), "github-actions")).toBe(true);
  });
  it("matches no one else", () => {
    expect(isAuthoredBy(comment("github-actions", "User"), "github-actions[bot]")).toBe(false);
    expect(isAuthoredBy(comment("mallory", "User"), "github-actions")).toBe(false);
    expect(isAuthoredBy(comment("github-actions-fan[bot]", "Bot"), "github-actions")).toBe(false);
    expect(isAuthoredBy(comment("alice[bot]", "User"), "alice")).toBe(false);
    expect(isAuthoredBy({ id: 1, html_url: "" }, "github-actions")).toBe(false);
  });
});

describe("formatCommentMarker", () => {
  it("is a hidden HTML comment naming the key", () => {
    expect(formatCommentMarker("nightly")).toBe("<!-- llm-tool-test:nightly -->");
  });
});
