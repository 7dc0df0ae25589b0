/**
 * One sticky pull request comment per comment key: found by a hidden marker (searching every page
 * of comments), edited in place when it exists, created otherwise.
 */
import type { CommentData, GitHubClient, RepoRef } from "./types.js";

const PER_PAGE = 100;
/** A runaway pagination guard: 100 pages of 100 comments. */
const MAX_PAGES = 100;

export interface UpsertResult {
  action: "created" | "updated";
  id: number;
  url: string;
}

/** The first comment whose body carries the marker, or null; reads every page until found. */
export async function findMarkedComment(
  github: GitHubClient,
  repo: RepoRef,
  issueNumber: number,
  marker: string,
): Promise<CommentData | null> {
  for (let page = 1; page <= MAX_PAGES; page += 1) {
    const { data } = await github.rest.issues.listComments({
      ...repo,
      issue_number: issueNumber,
      per_page: PER_PAGE,
      page,
    });
    const found = data.find((comment) => comment.body?.includes(marker));
    if (found) return found;
    if (data.length < PER_PAGE) return null;
  }
  return null;
}

/** Creates or updates the comment; `body` must already contain the marker. */
export async function upsertComment(
  github: GitHubClient,
  repo: RepoRef,
  issueNumber: number,
  marker: string,
  body: string,
): Promise<UpsertResult> {
  if (!body.includes(marker)) throw new Error("the comment body must contain its marker");
  const existing = await findMarkedComment(github, repo, issueNumber, marker);
  if (existing) {
    const { data } = await github.rest.issues.updateComment({ ...repo, comment_id: existing.id, body });
    return { action: "updated", id: data.id, url: data.html_url };
  }
  const { data } = await github.rest.issues.createComment({ ...repo, issue_number: issueNumber, body });
  return { action: "created", id: data.id, url: data.html_url };
}
