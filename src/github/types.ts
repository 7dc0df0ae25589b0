/**
 * The slices of the GitHub clients this folder uses, as structural types: the action passes the
 * real Octokit (`@actions/github`) and artifact client (`@actions/artifact`); nothing here imports
 * them, so these modules run against any object of the same shape.
 */

export interface RepoRef {
  owner: string;
  repo: string;
}

export interface WorkflowRunData {
  id: number;
  run_number: number;
  workflow_id: number;
  head_sha: string;
  head_branch: string | null;
  event: string;
  status: string | null;
  conclusion: string | null;
  created_at: string;
  html_url: string;
  head_commit?: { timestamp: string } | null;
}

export interface ArtifactData {
  id: number;
  name: string;
  expired: boolean;
  size_in_bytes: number;
  created_at?: string | null;
  expires_at?: string | null;
}

export interface CommentData {
  id: number;
  body?: string;
  html_url: string;
  /** The author (REST: a bot's login ends in `[bot]`, its type is "Bot"). */
  user?: { login?: string; type?: string } | null;
}

/** A pull request as REST shows it (the fields the fork follow-up checks). */
export interface PullRequestData {
  number: number;
  state: string;
  head: { ref: string; sha: string; repo?: { full_name?: string } | null };
  base: { ref: string; sha: string; repo?: { full_name?: string } | null };
}

type Repo = { owner: string; repo: string };

/** What of Octokit's `rest` and `graphql` APIs is used. */
export interface GitHubClient {
  graphql<T>(query: string, parameters?: Record<string, unknown>): Promise<T>;
  rest: {
    actions: {
      getWorkflowRun(params: Repo & { run_id: number }): Promise<{ data: WorkflowRunData }>;
      listWorkflowRuns(
        params: Repo & {
          workflow_id: number | string;
          branch?: string;
          event?: string;
          status?: "success";
          per_page?: number;
          page?: number;
        },
      ): Promise<{ data: { total_count: number; workflow_runs: WorkflowRunData[] } }>;
      listWorkflowRunArtifacts(
        params: Repo & { run_id: number; name?: string; per_page?: number; page?: number },
      ): Promise<{ data: { total_count: number; artifacts: ArtifactData[] } }>;
    };
    pulls: {
      get(params: Repo & { pull_number: number }): Promise<{ data: PullRequestData }>;
      list(
        params: Repo & { head?: string; state?: "open" | "closed" | "all"; per_page?: number; page?: number },
      ): Promise<{ data: PullRequestData[] }>;
    };
    issues: {
      listComments(
        params: Repo & { issue_number: number; per_page?: number; page?: number },
      ): Promise<{ data: CommentData[] }>;
      createComment(params: Repo & { issue_number: number; body: string }): Promise<{ data: CommentData }>;
      updateComment(params: Repo & { comment_id: number; body: string }): Promise<{ data: CommentData }>;
    };
  };
}

export interface FindBy {
  token: string;
  workflowRunId: number;
  repositoryOwner: string;
  repositoryName: string;
}

/** What of `@actions/artifact`'s client is used. */
export interface ArtifactClient {
  uploadArtifact(
    name: string,
    files: string[],
    rootDirectory: string,
    options?: { retentionDays?: number; compressionLevel?: number },
  ): Promise<{ id?: number; size?: number }>;
  downloadArtifact(
    artifactId: number,
    options?: { path?: string; findBy?: FindBy },
  ): Promise<{ downloadPath?: string }>;
  /** This workflow run's artifacts (`latest`: the newest of each name). */
  listArtifacts(options?: {
    latest?: boolean;
  }): Promise<{ artifacts: { id: number; name: string; size: number }[] }>;
}
