/**
 * One sticky pull request comment per comment key: found by a hidden marker (searching every page
 * of comments), edited in place when it exists, created otherwise. Only comments written by the
 * token's own identity count: anyone can post a comment that starts with the marker, and editing
 * theirs would put our report under their name (or let them steer where it goes).
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

/**
 * The login of the token's own identity, from GraphQL's `viewer` (REST's `GET /user` is refused
 * for the workflow's GITHUB_TOKEN and for GitHub App installation tokens).
 */
export async function findViewerLogin(github: GitHubClient): Promise<string> {
  const answer = await github.graphql<{ viewer?: { login?: unknown } }>("query { viewer { login } }");
  const login = answer?.viewer?.login;
  if (typeof login !== "string" || login.length === 0) {
    throw new Error("GitHub did not name the token's own identity (GraphQL viewer.login)");
  }
  return login;
}

/**
 * Whether `viewer` (GraphQL's login) wrote the comment. GraphQL names an App's bot without the
 * `[bot]` that REST's `user.login` carries (the Actions bot is `github-actions` there and
 * `github-actions[bot]` here): for a bot author either form matches. Logins are case-insensitive.
 */
export function isAuthoredBy(comment: CommentData, viewer: string): boolean {
  const author = comment.user?.login?.toLowerCase();
  if (!author) return false;
  const login = viewer.toLowerCase();
  if (author === login) return true;
  return comment.user?.type === "Bot" && !login.endsWith("[bot]") && author === `${login}[bot]`;
}

/**
 * The first comment by `author` whose body starts with the marker (our comments always do), or
 * null; reads every page until found.
 */
export async function findMarkedComment(
  github: GitHubClient,
  repo: RepoRef,
  issueNumber: number,
  marker: string,
  author: string,
): Promise<CommentData | null> {
  for (let page = 1; page <= MAX_PAGES; page += 1) {
    const { data } = await github.rest.issues.listComments({
      ...repo,
      issue_number: issueNumber,
      per_page: PER_PAGE,
      page,
    });
    const found = data.find(
      (comment) => isAuthoredBy(comment, author) && (comment.body ?? "").startsWith(marker),
    );
    if (found) return found;
    if (data.length < PER_PAGE) return null;
  }
  return null;
}

/** Creates or updates the comment; `body` must start with the marker. */
export async function upsertComment(
  github: GitHubClient,
  repo: RepoRef,
  issueNumber: number,
  marker: string,
  body: string,
): Promise<UpsertResult> {
  if (!body.startsWith(marker)) throw new Error("the comment body must start with its marker");
  const author = await findViewerLogin(github);
  const existing = await findMarkedComment(github, repo, issueNumber, marker, author);
  if (existing) {
    const { data } = await github.rest.issues.updateComment({ ...repo, comment_id: existing.id, body });
    return { action: "updated", id: data.id, url: data.html_url };
  }
  const { data } = await github.rest.issues.createComment({ ...repo, issue_number: issueNumber, body });
  return { action: "created", id: data.id, url: data.html_url };
}
