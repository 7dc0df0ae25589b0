/**
 * A fake of the GitHub services an action talks to, on 127.0.0.1, speaking their real wire formats
 * so the real `@actions/github` (Octokit) and `@actions/artifact` clients can be pointed at it:
 * - the REST API: workflow runs, run artifacts (download answered with a 302 to blob storage, or
 *   410 when expired), issue comments (paginated with `Link` headers, each with its author), pull
 *   requests (one by number; listed by `head=OWNER:BRANCH` and `state`), with `token` auth;
 * - the GraphQL endpoint (`POST /graphql`), answering `viewer { login }` as GitHub does for the
 *   workflow token: `github-actions`, while REST shows that bot's comments as `github-actions[bot]`;
 * - the artifact service's Twirp endpoints (ACTIONS_RESULTS_URL): CreateArtifact, FinalizeArtifact,
 *   ListArtifacts, GetSignedArtifactURL; the run is found from the ids in the runtime token's `scp`;
 * - its Azure-style blob storage: staged blocks and a committed block list for uploads, GET for
 *   downloads.
 * Every request is recorded. `readZipEntries` opens the uploaded zips.
 */
import { randomUUID } from "node:crypto";
import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { inflateRawSync } from "node:zlib";

interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

interface FakeRun {
  id: number;
  run_number: number;
  workflow_id: number;
  head_sha: string;
  head_branch: string;
  event: string;
  status: string;
  conclusion: string | null;
  created_at: string;
}

interface FakeArtifact {
  id: number;
  name: string;
  runId: number;
  expired: boolean;
  data: Buffer;
  created_at: string;
}

/** A comment's author as REST shows it (`user.login`, `user.type`). */
interface FakeUser {
  login: string;
  type: "User" | "Bot";
}

interface FakeComment {
  id: number;
  issueNumber: number;
  body: string;
  user: FakeUser;
  created_at: string;
  updated_at: string;
}

/** A pull request: its head (branch, commit, repository) and base. */
interface FakePull {
  number: number;
  state: "open" | "closed";
  head: { ref: string; sha: string; repo: string | null };
  base: { ref: string; sha: string };
}

export interface GitHubFakeOptions {
  owner?: string;
  repo?: string;
  /** Base of the html_url links (the action's GITHUB_SERVER_URL). */
  serverUrl?: string;
}

export interface GitHubFake {
  /** http://127.0.0.1:PORT: the REST API, the results service and blob storage all live here. */
  url: string;
  owner: string;
  repo: string;
  serverUrl: string;
  requests: RecordedRequest[];
  runs: FakeRun[];
  artifacts: FakeArtifact[];
  comments: FakeComment[];
  pulls: FakePull[];
  /** Who the token is: REST writes comments as `user`; GraphQL's viewer answers `viewerLogin`. */
  identity: { user: FakeUser; viewerLogin: string };
  /** Status codes to answer instead of the real behaviour, by operation. */
  failures: Partial<
    Record<"listComments" | "createComment" | "updateComment" | "listWorkflowRuns" | "graphql", number>
  >;
  addRun(run: Partial<FakeRun> & { id: number }): FakeRun;
  addArtifact(artifact: Partial<FakeArtifact> & { name: string; runId: number }): FakeArtifact;
  /** A comment by `user` (default: the token's own identity). */
  addComment(issueNumber: number, body: string, user?: FakeUser): FakeComment;
  /** An ACTIONS_RUNTIME_TOKEN for a job of this run (a JWT whose scp names the run's backend ids). */
  runtimeToken(runId: number): string;
  close(): Promise<void>;
}

const BLOB_ACCOUNT = "devstoreaccount1";
const TWIRP_PREFIX = "/twirp/github.actions.results.api.v1.ArtifactService/";

function backendIds(runId: number): { run: string; job: string } {
  return { run: `backend-run-${runId}`, job: `backend-job-${runId}` };
}

function encodeBase64Url(text: string): string {
  return Buffer.from(text).toString("base64url");
}

/** The fake's state, shared by the handlers below and exposed (in part) on the GitHubFake. */
interface FakeState {
  owner: string;
  repo: string;
  /** `/repos/OWNER/REPO`: where every REST route lives. */
  repoPath: string;
  /** http://127.0.0.1:PORT, known once listening. */
  baseUrl: string;
  serverUrl: string;
  requests: RecordedRequest[];
  runs: FakeRun[];
  artifacts: FakeArtifact[];
  comments: FakeComment[];
  pulls: FakePull[];
  failures: GitHubFake["failures"];
  identity: GitHubFake["identity"];
  blobs: Map<string, Buffer>;
  stagedBlocks: Map<string, Map<string, Buffer>>;
  /** Created but not yet finalized uploads, by run backend id + name. */
  pending: Map<string, { runId: number; name: string; blobKey: string }>;
  nextArtifactId: number;
  nextCommentId: number;
}

type Reply = { status: number; json?: unknown; body?: Buffer; headers?: Record<string, string> };

function json(status: number, value: unknown, headers: Record<string, string> = {}): Reply {
  return { status, json: value, headers };
}

function notFound(): Reply {
  return json(404, {
    message: "Not Found",
    documentation_url: "https://docs.github.com/rest",
    status: "404",
  });
}

/** The forced status of `op` (GitHubFake.failures) as GitHub would word it, else null. */
function failure(state: FakeState, op: keyof GitHubFake["failures"]): Reply | null {
  const status = state.failures[op];
  return status ? json(status, { message: `forced failure of ${op}`, status: String(status) }) : null;
}

function addRun(state: FakeState, run: Partial<FakeRun> & { id: number }): FakeRun {
  const full: FakeRun = {
    run_number: run.id % 1000,
    workflow_id: 77,
    head_sha: "0".repeat(40),
    head_branch: "main",
    event: "push",
    status: "completed",
    conclusion: "success",
    created_at: new Date().toISOString(),
    ...run,
  };
  state.runs.push(full);
  return full;
}

function addArtifact(
  state: FakeState,
  artifact: Partial<FakeArtifact> & { name: string; runId: number },
): FakeArtifact {
  const full: FakeArtifact = {
    id: state.nextArtifactId++,
    expired: false,
    data: Buffer.alloc(0),
    created_at: new Date().toISOString(),
    ...artifact,
  };
  state.artifacts.push(full);
  return full;
}

function addComment(state: FakeState, issueNumber: number, body: string, user: FakeUser): FakeComment {
  const now = new Date().toISOString();
  const comment = {
    id: state.nextCommentId++,
    issueNumber,
    body,
    user: { ...user },
    created_at: now,
    updated_at: now,
  };
  state.comments.push(comment);
  return comment;
}

function createRuntimeToken(runId: number): string {
  const ids = backendIds(runId);
  const header = encodeBase64Url(JSON.stringify({ alg: "HS256", typ: "JWT" }));
  const payload = encodeBase64Url(
    JSON.stringify({
      scp: `Actions.ExampleScope Actions.Results:${ids.run}:${ids.job}`,
      exp: 4102444800,
    }),
  );
  return `${header}.${payload}.${encodeBase64Url("fake-signature")}`;
}

// The REST shapes of the fake's records.

function runJson(state: FakeState, run: FakeRun) {
  return {
    ...run,
    name: "llm-tool-test",
    html_url: `${state.serverUrl}/${state.owner}/${state.repo}/actions/runs/${run.id}`,
    head_commit: { id: run.head_sha, timestamp: run.created_at },
    repository: { full_name: `${state.owner}/${state.repo}` },
  };
}

function artifactJson(state: FakeState, artifact: FakeArtifact) {
  const url = `${state.baseUrl}${state.repoPath}/actions/artifacts/${artifact.id}`;
  return {
    id: artifact.id,
    node_id: `A_${artifact.id}`,
    name: artifact.name,
    size_in_bytes: artifact.data.length,
    url,
    archive_download_url: `${url}/zip`,
    expired: artifact.expired,
    created_at: artifact.created_at,
    updated_at: artifact.created_at,
    expires_at: artifact.created_at,
    workflow_run: { id: artifact.runId },
  };
}

function commentJson(state: FakeState, comment: FakeComment) {
  const { baseUrl, repoPath, serverUrl, owner, repo } = state;
  return {
    id: comment.id,
    node_id: `IC_${comment.id}`,
    url: `${baseUrl}${repoPath}/issues/comments/${comment.id}`,
    html_url: `${serverUrl}/${owner}/${repo}/pull/${comment.issueNumber}#issuecomment-${comment.id}`,
    issue_url: `${baseUrl}${repoPath}/issues/${comment.issueNumber}`,
    body: comment.body,
    user: { login: comment.user.login, type: comment.user.type },
    created_at: comment.created_at,
    updated_at: comment.updated_at,
  };
}

/** One page of `items` as `per_page` and `page` ask, with GitHub's `Link` header. */
function paginate<T>(
  state: FakeState,
  items: T[],
  query: Record<string, string>,
  path: string,
): { page: T[]; headers: Record<string, string> } {
  const perPage = Math.min(100, Number(query.per_page ?? 30));
  const pageNumber = Math.max(1, Number(query.page ?? 1));
  const last = Math.max(1, Math.ceil(items.length / perPage));
  const link = (n: number, rel: string) => {
    const params = new URLSearchParams({ ...query, per_page: String(perPage), page: String(n) });
    return `<${state.baseUrl}${path}?${params}>; rel="${rel}"`;
  };
  const links: string[] = [];
  if (pageNumber < last) links.push(link(pageNumber + 1, "next"), link(last, "last"));
  if (pageNumber > 1) links.push(link(1, "first"), link(pageNumber - 1, "prev"));
  return {
    page: items.slice((pageNumber - 1) * perPage, pageNumber * perPage),
    headers: links.length > 0 ? { link: links.join(", ") } : {},
  };
}

// The REST API: one handler per route.

interface RestRequest {
  /** The full path (for pagination links). */
  path: string;
  query: Record<string, string>;
  body: Buffer;
  /** The route's one parameter (the number or name in the path). */
  param: string;
}

interface RestRoute {
  method: "GET" | "POST" | "PATCH";
  /** Matched against the path after `/repos/OWNER/REPO`; its one group is the parameter. */
  pattern: RegExp;
  handle(state: FakeState, request: RestRequest): Reply;
}

const COMMENT_TOO_LONG = "Validation Failed: body is too long (maximum is 65536 characters)";

function getRun(state: FakeState, { param }: RestRequest): Reply {
  const run = state.runs.find((r) => r.id === Number(param));
  return run ? json(200, runJson(state, run)) : notFound();
}

function listWorkflowRuns(state: FakeState, { param, query, path }: RestRequest): Reply {
  const forced = failure(state, "listWorkflowRuns");
  if (forced) return forced;
  const workflow = decodeURIComponent(param);
  const selected = state.runs
    .filter((r) => String(r.workflow_id) === workflow)
    .filter((r) => !query.branch || r.head_branch === query.branch)
    .filter((r) => !query.event || r.event === query.event)
    .filter((r) => !query.status || r.status === query.status || r.conclusion === query.status)
    .sort((a, b) => Date.parse(b.created_at) - Date.parse(a.created_at));
  const { page, headers } = paginate(state, selected, query, path);
  return json(
    200,
    { total_count: selected.length, workflow_runs: page.map((run) => runJson(state, run)) },
    headers,
  );
}

function listRunArtifacts(state: FakeState, { param, query, path }: RestRequest): Reply {
  const runId = Number(param);
  const selected = state.artifacts.filter((a) => a.runId === runId && (!query.name || a.name === query.name));
  const { page, headers } = paginate(state, selected, query, path);
  return json(
    200,
    { total_count: selected.length, artifacts: page.map((artifact) => artifactJson(state, artifact)) },
    headers,
  );
}

/** A download is a redirect to blob storage, as GitHub's is; an expired artifact is 410 Gone. */
function downloadArtifact(state: FakeState, { param }: RestRequest): Reply {
  const artifact = state.artifacts.find((a) => a.id === Number(param));
  if (!artifact) return notFound();
  if (artifact.expired) return json(410, { message: "Artifact has expired", status: "410" });
  return {
    status: 302,
    headers: {
      location: `${state.baseUrl}/${BLOB_ACCOUNT}/actions-results/artifact-${artifact.id}.zip?sig=download-${artifact.id}`,
    },
  };
}

function listComments(state: FakeState, { param, query, path }: RestRequest): Reply {
  const forced = failure(state, "listComments");
  if (forced) return forced;
  const issue = Number(param);
  const { page, headers } = paginate(
    state,
    state.comments.filter((c) => c.issueNumber === issue),
    query,
    path,
  );
  return json(
    200,
    page.map((comment) => commentJson(state, comment)),
    headers,
  );
}

function createComment(state: FakeState, { param, body }: RestRequest): Reply {
  const forced = failure(state, "createComment");
  if (forced) return forced;
  const { body: text } = JSON.parse(body.toString("utf8")) as { body: string };
  if (text.length > 65_536) return json(422, { message: COMMENT_TOO_LONG });
  return json(201, commentJson(state, addComment(state, Number(param), text, state.identity.user)));
}

function updateComment(state: FakeState, { param, body }: RestRequest): Reply {
  const forced = failure(state, "updateComment");
  if (forced) return forced;
  const comment = state.comments.find((c) => c.id === Number(param));
  if (!comment) return notFound();
  const { body: text } = JSON.parse(body.toString("utf8")) as { body: string };
  if (text.length > 65_536) return json(422, { message: COMMENT_TOO_LONG });
  comment.body = text;
  comment.updated_at = new Date().toISOString();
  return json(200, commentJson(state, comment));
}

function pullJson(state: FakeState, pull: FakePull) {
  const { serverUrl, owner, repo } = state;
  const repository = (fullName: string) => ({
    full_name: fullName,
    name: fullName.split("/")[1],
    owner: { login: fullName.split("/")[0] },
    fork: fullName !== `${owner}/${repo}`,
  });
  return {
    number: pull.number,
    state: pull.state,
    html_url: `${serverUrl}/${owner}/${repo}/pull/${pull.number}`,
    head: {
      label: `${(pull.head.repo ?? "unknown/unknown").split("/")[0]}:${pull.head.ref}`,
      ref: pull.head.ref,
      sha: pull.head.sha,
      repo: pull.head.repo === null ? null : repository(pull.head.repo),
    },
    base: {
      label: `${owner}:${pull.base.ref}`,
      ref: pull.base.ref,
      sha: pull.base.sha,
      repo: repository(`${owner}/${repo}`),
    },
  };
}

function getPull(state: FakeState, { param }: RestRequest): Reply {
  const pull = state.pulls.find((p) => p.number === Number(param));
  return pull ? json(200, pullJson(state, pull)) : notFound();
}

/** `head=OWNER:BRANCH` as GitHub filters it (the head repository's owner and the branch); `state` open by default. */
function listPulls(state: FakeState, { query, path }: RestRequest): Reply {
  const wantedState = query.state ?? "open";
  const selected = state.pulls
    .filter((p) => wantedState === "all" || p.state === wantedState)
    .filter((p) => !query.head || `${(p.head.repo ?? "").split("/")[0]}:${p.head.ref}` === query.head);
  const { page, headers } = paginate(state, selected, query, path);
  return json(
    200,
    page.map((pull) => pullJson(state, pull)),
    headers,
  );
}

/** Tried in order; the first whose method and pattern match answers. */
const REST_ROUTES: readonly RestRoute[] = [
  { method: "GET", pattern: /^\/actions\/runs\/(\d+)$/, handle: getRun },
  { method: "GET", pattern: /^\/actions\/workflows\/([^/]+)\/runs$/, handle: listWorkflowRuns },
  { method: "GET", pattern: /^\/actions\/runs\/(\d+)\/artifacts$/, handle: listRunArtifacts },
  { method: "GET", pattern: /^\/actions\/artifacts\/(\d+)\/zip$/, handle: downloadArtifact },
  { method: "GET", pattern: /^\/issues\/(\d+)\/comments$/, handle: listComments },
  { method: "POST", pattern: /^\/issues\/(\d+)\/comments$/, handle: createComment },
  { method: "PATCH", pattern: /^\/issues\/comments\/(\d+)$/, handle: updateComment },
  { method: "GET", pattern: /^\/pulls\/(\d+)$/, handle: getPull },
  { method: "GET", pattern: /^\/pulls()$/, handle: listPulls },
];

function handleRest(
  state: FakeState,
  method: string,
  path: string,
  query: Record<string, string>,
  body: Buffer,
  auth: string | undefined,
): Reply {
  if (!auth || !/^(token|bearer) \S+/i.test(auth)) {
    return json(401, { message: "Requires authentication", status: "401" });
  }
  if (method === "POST" && path === "/graphql") return handleGraphql(state, body);
  if (!path.startsWith(`${state.repoPath}/`)) return notFound();
  const rest = path.slice(state.repoPath.length);
  for (const route of REST_ROUTES) {
    const param = route.method === method ? route.pattern.exec(rest)?.[1] : undefined;
    if (param !== undefined) return route.handle(state, { path, query, body, param });
  }
  return notFound();
}

/** GraphQL: only `viewer { login }` is known; anything else is an error as GitHub words it. */
function handleGraphql(state: FakeState, body: Buffer): Reply {
  const forced = failure(state, "graphql");
  if (forced) return forced;
  const { query } = JSON.parse(body.toString("utf8") || "{}") as { query?: string };
  if (typeof query === "string" && /^\s*(query\s*)?\{\s*viewer\s*\{\s*login\s*\}\s*\}\s*$/.test(query)) {
    return json(200, { data: { viewer: { login: state.identity.viewerLogin } } });
  }
  return json(200, {
    errors: [{ type: "UNSUPPORTED", message: `the fake answers only viewer { login }, not: ${query}` }],
  });
}

// The artifact service (Twirp): one handler per method, for the run the request's backend id names.

interface TwirpRequest {
  /** The parsed JSON body. */
  fields: Record<string, unknown>;
  run: FakeRun;
  backendRun: string;
  name: string;
}

function createArtifact(state: FakeState, { run, backendRun, name }: TwirpRequest): Reply {
  if (state.artifacts.some((a) => a.runId === run.id && a.name === name)) {
    return json(409, {
      code: "already_exists",
      msg: "an artifact with this name already exists on the workflow run",
    });
  }
  const blobKey = randomUUID();
  state.pending.set(`${backendRun}/${name}`, { runId: run.id, name, blobKey });
  return json(200, {
    ok: true,
    signed_upload_url: `${state.baseUrl}/${BLOB_ACCOUNT}/actions-results/${blobKey}/${encodeURIComponent(name)}.zip?sig=upload-${blobKey}`,
  });
}

function finalizeArtifact(state: FakeState, { run, backendRun, name }: TwirpRequest): Reply {
  const upload = state.pending.get(`${backendRun}/${name}`);
  if (!upload) return json(404, { code: "not_found", msg: "no such upload" });
  state.pending.delete(`${backendRun}/${name}`);
  const data =
    state.blobs.get(`actions-results/${upload.blobKey}/${encodeURIComponent(name)}.zip`) ?? Buffer.alloc(0);
  const artifact = addArtifact(state, { name, runId: run.id, data });
  return json(200, { ok: true, artifact_id: String(artifact.id) });
}

function listArtifacts(state: FakeState, { fields, run }: TwirpRequest): Reply {
  const idFilter = (fields.id_filter as string | undefined) ?? null;
  const nameFilter = (fields.name_filter as string | undefined) ?? null;
  const list = state.artifacts
    .filter((a) => a.runId === run.id)
    .filter((a) => idFilter === null || String(a.id) === String(idFilter))
    .filter((a) => nameFilter === null || a.name === nameFilter)
    .map((a) => ({
      workflow_run_backend_id: backendIds(a.runId).run,
      workflow_job_run_backend_id: backendIds(a.runId).job,
      database_id: String(a.id),
      name: a.name,
      size: String(a.data.length),
      created_at: a.created_at,
    }));
  return json(200, { artifacts: list });
}

function getSignedArtifactUrl(state: FakeState, { run, name }: TwirpRequest): Reply {
  const artifact = state.artifacts.find((a) => a.runId === run.id && a.name === name);
  if (!artifact) return json(404, { code: "not_found", msg: "no such artifact" });
  return json(200, {
    signed_url: `${state.baseUrl}/${BLOB_ACCOUNT}/actions-results/artifact-${artifact.id}.zip?sig=download-${artifact.id}`,
  });
}

const TWIRP_METHODS: Readonly<Record<string, (state: FakeState, request: TwirpRequest) => Reply>> = {
  CreateArtifact: createArtifact,
  FinalizeArtifact: finalizeArtifact,
  ListArtifacts: listArtifacts,
  GetSignedArtifactURL: getSignedArtifactUrl,
};

function handleTwirp(state: FakeState, method: string, body: Buffer): Reply {
  const fields = JSON.parse(body.toString("utf8") || "{}") as Record<string, unknown>;
  const backendRun = String(fields.workflow_run_backend_id ?? "");
  const run = state.runs.find((r) => backendIds(r.id).run === backendRun);
  if (!run) return json(404, { code: "not_found", msg: `no workflow run for backend id ${backendRun}` });
  const handle = Object.hasOwn(TWIRP_METHODS, method) ? TWIRP_METHODS[method] : undefined;
  if (!handle) return json(404, { code: "bad_route", msg: `no handler for ${method}` });
  return handle(state, { fields, run, backendRun, name: String(fields.name ?? "") });
}

// Blob storage: staged blocks, a committed block list, downloads.

function azureHeadersNow(): { "x-ms-request-id": string; "x-ms-version": string; date: string } {
  return { "x-ms-request-id": randomUUID(), "x-ms-version": "2025-01-05", date: new Date().toUTCString() };
}

function stageBlock(state: FakeState, key: string, blockId: string, body: Buffer): Reply {
  const blocks = state.stagedBlocks.get(key) ?? new Map<string, Buffer>();
  blocks.set(blockId, body);
  state.stagedBlocks.set(key, blocks);
  return {
    status: 201,
    body: Buffer.alloc(0),
    headers: { ...azureHeadersNow(), "x-ms-request-server-encrypted": "true" },
  };
}

function commitBlockList(state: FakeState, key: string, body: Buffer): Reply {
  const azureHeaders = azureHeadersNow();
  const blocks = state.stagedBlocks.get(key) ?? new Map<string, Buffer>();
  const ids = [...body.toString("utf8").matchAll(/<(?:Latest|Uncommitted|Committed)>([^<]*)<\//g)].map(
    (x) => x[1] as string,
  );
  const missing = ids.filter((id) => !blocks.has(id));
  if (missing.length > 0)
    return { status: 400, body: Buffer.from("InvalidBlockList"), headers: azureHeaders };
  state.blobs.set(key, Buffer.concat(ids.map((id) => blocks.get(id) as Buffer)));
  state.stagedBlocks.delete(key);
  return {
    status: 201,
    body: Buffer.alloc(0),
    headers: { ...azureHeaders, etag: `"0x${Date.now().toString(16)}"`, "last-modified": azureHeaders.date },
  };
}

/** An artifact's download (the REST redirect's target), else an uploaded blob. */
function downloadBlob(state: FakeState, key: string): Reply {
  const azureHeaders = azureHeadersNow();
  const download = /^actions-results\/artifact-(\d+)\.zip$/.exec(key);
  const artifact = download ? state.artifacts.find((a) => a.id === Number(download[1])) : undefined;
  const data = artifact?.data ?? state.blobs.get(key);
  if (!data) return { status: 404, body: Buffer.from("BlobNotFound"), headers: azureHeaders };
  return {
    status: 200,
    body: data,
    headers: { ...azureHeaders, "content-type": "application/zip", "content-length": String(data.length) },
  };
}

function handleBlob(
  state: FakeState,
  method: string,
  path: string,
  query: Record<string, string>,
  body: Buffer,
): Reply {
  const key = decodeURIComponent(path.slice(`/${BLOB_ACCOUNT}/`.length));
  if (method === "PUT" && query.comp === "block") return stageBlock(state, key, query.blockid ?? "", body);
  if (method === "PUT" && query.comp === "blocklist") return commitBlockList(state, key, body);
  if (method === "GET") return downloadBlob(state, key);
  return { status: 405, body: Buffer.from("unsupported"), headers: azureHeadersNow() };
}

/** Records the request, routes it to its service, and writes the reply. */
function createRequestListener(state: FakeState): http.RequestListener {
  return (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", state.baseUrl);
      const query = Object.fromEntries(url.searchParams);
      const body = Buffer.concat(chunks);
      const method = req.method ?? "GET";
      state.requests.push({ method, path: url.pathname, query, headers: req.headers, body });
      let reply: Reply;
      try {
        if (url.pathname.startsWith(TWIRP_PREFIX)) {
          reply =
            method === "POST"
              ? handleTwirp(state, url.pathname.slice(TWIRP_PREFIX.length), body)
              : json(405, { code: "bad_route", msg: "POST only" });
        } else if (url.pathname.startsWith(`/${BLOB_ACCOUNT}/`)) {
          reply = handleBlob(state, method, url.pathname, query, body);
        } else {
          reply = handleRest(state, method, url.pathname, query, body, req.headers.authorization);
        }
      } catch (error) {
        reply = json(500, { message: `fake server error: ${(error as Error).message}` });
      }
      const payload =
        reply.json !== undefined ? Buffer.from(JSON.stringify(reply.json)) : (reply.body ?? Buffer.alloc(0));
      res.writeHead(reply.status, {
        ...(reply.json !== undefined ? { "content-type": "application/json; charset=utf-8" } : {}),
        "content-length": String(payload.length),
        ...reply.headers,
      });
      res.end(payload);
    });
  };
}

export async function startGitHubFake(options: GitHubFakeOptions = {}): Promise<GitHubFake> {
  const owner = options.owner ?? "octo-org";
  const repo = options.repo ?? "octo-tool";
  const state: FakeState = {
    owner,
    repo,
    repoPath: `/repos/${owner}/${repo}`,
    baseUrl: "",
    serverUrl: options.serverUrl ?? "",
    requests: [],
    runs: [],
    artifacts: [],
    comments: [],
    pulls: [],
    failures: {},
    identity: { user: { login: "github-actions[bot]", type: "Bot" }, viewerLogin: "github-actions" },
    blobs: new Map(),
    stagedBlocks: new Map(),
    pending: new Map(),
    nextArtifactId: 9001,
    nextCommentId: 5001,
  };
  const server = http.createServer(createRequestListener(state));
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  state.baseUrl = `http://127.0.0.1:${port}`;
  if (!state.serverUrl) state.serverUrl = `http://github.localhost:${port}`;
  return {
    url: state.baseUrl,
    owner,
    repo,
    serverUrl: state.serverUrl,
    requests: state.requests,
    runs: state.runs,
    artifacts: state.artifacts,
    comments: state.comments,
    pulls: state.pulls,
    identity: state.identity,
    failures: state.failures,
    addRun: (run) => addRun(state, run),
    addArtifact: (artifact) => addArtifact(state, artifact),
    addComment: (issueNumber, body, user = state.identity.user) => addComment(state, issueNumber, body, user),
    runtimeToken: createRuntimeToken,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, "close");
    },
  };
}

/** The entries of a zip archive (stored or deflated), read through its central directory. */
export function readZipEntries(zip: Buffer): Map<string, Buffer> {
  const entries = new Map<string, Buffer>();
  let end = zip.length - 22;
  while (end >= 0 && zip.readUInt32LE(end) !== 0x06054b50) end -= 1;
  if (end < 0) throw new Error("not a zip archive: no end of central directory");
  const count = zip.readUInt16LE(end + 10);
  let offset = zip.readUInt32LE(end + 16);
  for (let i = 0; i < count; i += 1) {
    if (zip.readUInt32LE(offset) !== 0x02014b50) throw new Error("corrupt central directory");
    const method = zip.readUInt16LE(offset + 10);
    const compressedSize = zip.readUInt32LE(offset + 20);
    const nameLength = zip.readUInt16LE(offset + 28);
    const extraLength = zip.readUInt16LE(offset + 30);
    const commentLength = zip.readUInt16LE(offset + 32);
    const localOffset = zip.readUInt32LE(offset + 42);
    const name = zip.subarray(offset + 46, offset + 46 + nameLength).toString("utf8");
    const localNameLength = zip.readUInt16LE(localOffset + 26);
    const localExtraLength = zip.readUInt16LE(localOffset + 28);
    const start = localOffset + 30 + localNameLength + localExtraLength;
    const raw = zip.subarray(start, start + compressedSize);
    if (!name.endsWith("/")) entries.set(name, method === 8 ? inflateRawSync(raw) : Buffer.from(raw));
    offset += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}
