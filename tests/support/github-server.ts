/**
 * A fake of the GitHub services an action talks to, on 127.0.0.1, speaking their real wire formats
 * so the real `@actions/github` (Octokit) and `@actions/artifact` clients can be pointed at it:
 * - the REST API: workflow runs, run artifacts (download answered with a 302 to blob storage, or
 *   410 when expired), issue comments (paginated with `Link` headers, each with its author), with
 *   `token` auth;
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

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

export interface FakeRun {
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

export interface FakeArtifact {
  id: number;
  name: string;
  runId: number;
  expired: boolean;
  /** Answer the download with 410 Gone even though the listing says it is there. */
  gone: boolean;
  data: Buffer;
  created_at: string;
}

/** A comment's author as REST shows it (`user.login`, `user.type`). */
export interface FakeUser {
  login: string;
  type: "User" | "Bot";
}

export interface FakeComment {
  id: number;
  issueNumber: number;
  body: string;
  user: FakeUser;
  created_at: string;
  updated_at: string;
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

export async function startGitHubFake(options: GitHubFakeOptions = {}): Promise<GitHubFake> {
  const owner = options.owner ?? "octo-org";
  const repo = options.repo ?? "octo-tool";
  const requests: RecordedRequest[] = [];
  const runs: FakeRun[] = [];
  const artifacts: FakeArtifact[] = [];
  const comments: FakeComment[] = [];
  const failures: GitHubFake["failures"] = {};
  const identity: GitHubFake["identity"] = {
    user: { login: "github-actions[bot]", type: "Bot" },
    viewerLogin: "github-actions",
  };
  const blobs = new Map<string, Buffer>();
  const stagedBlocks = new Map<string, Map<string, Buffer>>();
  /** Created but not yet finalized uploads, by run backend id + name. */
  const pending = new Map<string, { runId: number; name: string; blobKey: string }>();
  let nextArtifactId = 9001;
  let nextCommentId = 5001;
  let baseUrl = "";
  let serverUrl = options.serverUrl ?? "";

  const fake: GitHubFake = {
    url: "",
    owner,
    repo,
    serverUrl,
    requests,
    runs,
    artifacts,
    comments,
    identity,
    failures,
    addRun(run) {
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
      runs.push(full);
      return full;
    },
    addArtifact(artifact) {
      const full: FakeArtifact = {
        id: nextArtifactId++,
        expired: false,
        gone: false,
        data: Buffer.alloc(0),
        created_at: new Date().toISOString(),
        ...artifact,
      };
      artifacts.push(full);
      return full;
    },
    addComment(issueNumber, body, user = identity.user) {
      const now = new Date().toISOString();
      const comment = {
        id: nextCommentId++,
        issueNumber,
        body,
        user: { ...user },
        created_at: now,
        updated_at: now,
      };
      comments.push(comment);
      return comment;
    },
    runtimeToken(runId) {
      const ids = backendIds(runId);
      const header = encodeBase64Url(JSON.stringify({ alg: "HS256", typ: "JWT" }));
      const payload = encodeBase64Url(
        JSON.stringify({
          scp: `Actions.ExampleScope Actions.Results:${ids.run}:${ids.job}`,
          exp: 4102444800,
        }),
      );
      return `${header}.${payload}.${encodeBase64Url("fake-signature")}`;
    },
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, "close");
    },
  };

  const repoPath = `/repos/${owner}/${repo}`;
  const runJson = (run: FakeRun) => ({
    ...run,
    name: "llm-tool-test",
    html_url: `${serverUrl}/${owner}/${repo}/actions/runs/${run.id}`,
    head_commit: { id: run.head_sha, timestamp: run.created_at },
    repository: { full_name: `${owner}/${repo}` },
  });
  const artifactJson = (artifact: FakeArtifact) => ({
    id: artifact.id,
    node_id: `A_${artifact.id}`,
    name: artifact.name,
    size_in_bytes: artifact.data.length,
    url: `${baseUrl}${repoPath}/actions/artifacts/${artifact.id}`,
    archive_download_url: `${baseUrl}${repoPath}/actions/artifacts/${artifact.id}/zip`,
    expired: artifact.expired,
    created_at: artifact.created_at,
    updated_at: artifact.created_at,
    expires_at: artifact.created_at,
    workflow_run: { id: artifact.runId },
  });
  const commentJson = (comment: FakeComment) => ({
    id: comment.id,
    node_id: `IC_${comment.id}`,
    url: `${baseUrl}${repoPath}/issues/comments/${comment.id}`,
    html_url: `${serverUrl}/${owner}/${repo}/pull/${comment.issueNumber}#issuecomment-${comment.id}`,
    issue_url: `${baseUrl}${repoPath}/issues/${comment.issueNumber}`,
    body: comment.body,
    user: { login: comment.user.login, type: comment.user.type },
    created_at: comment.created_at,
    updated_at: comment.updated_at,
  });

  type Reply = { status: number; json?: unknown; body?: Buffer; headers?: Record<string, string> };
  const json = (status: number, value: unknown, headers: Record<string, string> = {}): Reply => ({
    status,
    json: value,
    headers,
  });
  const notFound = (): Reply =>
    json(404, { message: "Not Found", documentation_url: "https://docs.github.com/rest", status: "404" });
  const failure = (op: keyof GitHubFake["failures"]): Reply | null => {
    const status = failures[op];
    return status ? json(status, { message: `forced failure of ${op}`, status: String(status) }) : null;
  };

  function paginate<T>(
    items: T[],
    query: Record<string, string>,
    path: string,
  ): { page: T[]; headers: Record<string, string> } {
    const perPage = Math.min(100, Number(query.per_page ?? 30));
    const pageNumber = Math.max(1, Number(query.page ?? 1));
    const last = Math.max(1, Math.ceil(items.length / perPage));
    const link = (n: number, rel: string) => {
      const params = new URLSearchParams({ ...query, per_page: String(perPage), page: String(n) });
      return `<${baseUrl}${path}?${params}>; rel="${rel}"`;
    };
    const links: string[] = [];
    if (pageNumber < last) links.push(link(pageNumber + 1, "next"), link(last, "last"));
    if (pageNumber > 1) links.push(link(1, "first"), link(pageNumber - 1, "prev"));
    return {
      page: items.slice((pageNumber - 1) * perPage, pageNumber * perPage),
      headers: links.length > 0 ? { link: links.join(", ") } : {},
    };
  }

  function handleRest(
    method: string,
    path: string,
    query: Record<string, string>,
    body: Buffer,
    auth: string | undefined,
  ): Reply {
    if (!auth || !/^(token|bearer) \S+/i.test(auth)) {
      return json(401, { message: "Requires authentication", status: "401" });
    }
    if (method === "POST" && path === "/graphql") return handleGraphql(body);
    if (!path.startsWith(`${repoPath}/`)) return notFound();
    const rest = path.slice(repoPath.length);
    /** The route's one parameter when method and path match, else null. */
    const route = (want: string, pattern: RegExp): string | null =>
      method === want ? (pattern.exec(rest)?.[1] ?? null) : null;

    const runParam = route("GET", /^\/actions\/runs\/(\d+)$/);
    if (runParam !== null) {
      const run = runs.find((r) => r.id === Number(runParam));
      return run ? json(200, runJson(run)) : notFound();
    }
    const workflowParam = route("GET", /^\/actions\/workflows\/([^/]+)\/runs$/);
    if (workflowParam !== null) {
      const forced = failure("listWorkflowRuns");
      if (forced) return forced;
      const workflow = decodeURIComponent(workflowParam);
      const selected = runs
        .filter((r) => String(r.workflow_id) === workflow)
        .filter((r) => !query.branch || r.head_branch === query.branch)
        .filter((r) => !query.event || r.event === query.event)
        .filter((r) => !query.status || r.status === query.status || r.conclusion === query.status)
        .sort((a, b) => Date.parse(b.created_at) - Date.parse(a.created_at));
      const { page, headers } = paginate(selected, query, path);
      return json(200, { total_count: selected.length, workflow_runs: page.map(runJson) }, headers);
    }
    const artifactsRunParam = route("GET", /^\/actions\/runs\/(\d+)\/artifacts$/);
    if (artifactsRunParam !== null) {
      const runId = Number(artifactsRunParam);
      const selected = artifacts.filter((a) => a.runId === runId && (!query.name || a.name === query.name));
      const { page, headers } = paginate(selected, query, path);
      return json(200, { total_count: selected.length, artifacts: page.map(artifactJson) }, headers);
    }
    const zipParam = route("GET", /^\/actions\/artifacts\/(\d+)\/zip$/);
    if (zipParam !== null) {
      const artifact = artifacts.find((a) => a.id === Number(zipParam));
      if (!artifact) return notFound();
      if (artifact.expired || artifact.gone)
        return json(410, { message: "Artifact has expired", status: "410" });
      return {
        status: 302,
        headers: {
          location: `${baseUrl}/${BLOB_ACCOUNT}/actions-results/artifact-${artifact.id}.zip?sig=download-${artifact.id}`,
        },
      };
    }
    const listIssueParam = route("GET", /^\/issues\/(\d+)\/comments$/);
    if (listIssueParam !== null) {
      const forced = failure("listComments");
      if (forced) return forced;
      const issue = Number(listIssueParam);
      const { page, headers } = paginate(
        comments.filter((c) => c.issueNumber === issue),
        query,
        path,
      );
      return json(200, page.map(commentJson), headers);
    }
    const createIssueParam = route("POST", /^\/issues\/(\d+)\/comments$/);
    if (createIssueParam !== null) {
      const forced = failure("createComment");
      if (forced) return forced;
      const { body: text } = JSON.parse(body.toString("utf8")) as { body: string };
      if (text.length > 65_536)
        return json(422, { message: "Validation Failed: body is too long (maximum is 65536 characters)" });
      return json(201, commentJson(fake.addComment(Number(createIssueParam), text)));
    }
    const commentParam = route("PATCH", /^\/issues\/comments\/(\d+)$/);
    if (commentParam !== null) {
      const forced = failure("updateComment");
      if (forced) return forced;
      const comment = comments.find((c) => c.id === Number(commentParam));
      if (!comment) return notFound();
      const { body: text } = JSON.parse(body.toString("utf8")) as { body: string };
      if (text.length > 65_536)
        return json(422, { message: "Validation Failed: body is too long (maximum is 65536 characters)" });
      comment.body = text;
      comment.updated_at = new Date().toISOString();
      return json(200, commentJson(comment));
    }
    return notFound();
  }

  /** GraphQL: only `viewer { login }` is known; anything else is an error as GitHub words it. */
  function handleGraphql(body: Buffer): Reply {
    const forced = failure("graphql");
    if (forced) return forced;
    const { query } = JSON.parse(body.toString("utf8") || "{}") as { query?: string };
    if (typeof query === "string" && /^\s*(query\s*)?\{\s*viewer\s*\{\s*login\s*\}\s*\}\s*$/.test(query)) {
      return json(200, { data: { viewer: { login: identity.viewerLogin } } });
    }
    return json(200, {
      errors: [{ type: "UNSUPPORTED", message: `the fake answers only viewer { login }, not: ${query}` }],
    });
  }

  function runForBackend(backendRunId: string): FakeRun | undefined {
    return runs.find((r) => backendIds(r.id).run === backendRunId);
  }

  function handleTwirp(method: string, body: Buffer): Reply {
    const request = JSON.parse(body.toString("utf8") || "{}") as Record<string, unknown>;
    const backendRun = String(request.workflow_run_backend_id ?? "");
    const run = runForBackend(backendRun);
    if (!run) return json(404, { code: "not_found", msg: `no workflow run for backend id ${backendRun}` });
    const name = String(request.name ?? "");
    switch (method) {
      case "CreateArtifact": {
        if (artifacts.some((a) => a.runId === run.id && a.name === name)) {
          return json(409, {
            code: "already_exists",
            msg: "an artifact with this name already exists on the workflow run",
          });
        }
        const blobKey = randomUUID();
        pending.set(`${backendRun}/${name}`, { runId: run.id, name, blobKey });
        return json(200, {
          ok: true,
          signed_upload_url: `${baseUrl}/${BLOB_ACCOUNT}/actions-results/${blobKey}/${encodeURIComponent(name)}.zip?sig=upload-${blobKey}`,
        });
      }
      case "FinalizeArtifact": {
        const upload = pending.get(`${backendRun}/${name}`);
        if (!upload) return json(404, { code: "not_found", msg: "no such upload" });
        pending.delete(`${backendRun}/${name}`);
        const data =
          blobs.get(`actions-results/${upload.blobKey}/${encodeURIComponent(name)}.zip`) ?? Buffer.alloc(0);
        const artifact = fake.addArtifact({ name, runId: run.id, data });
        return json(200, { ok: true, artifact_id: String(artifact.id) });
      }
      case "ListArtifacts": {
        const idFilter = (request.id_filter as string | undefined) ?? null;
        const nameFilter = (request.name_filter as string | undefined) ?? null;
        const list = artifacts
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
      case "GetSignedArtifactURL": {
        const artifact = artifacts.find((a) => a.runId === run.id && a.name === name);
        if (!artifact) return json(404, { code: "not_found", msg: "no such artifact" });
        return json(200, {
          signed_url: `${baseUrl}/${BLOB_ACCOUNT}/actions-results/artifact-${artifact.id}.zip?sig=download-${artifact.id}`,
        });
      }
      default:
        return json(404, { code: "bad_route", msg: `no handler for ${method}` });
    }
  }

  function handleBlob(method: string, path: string, query: Record<string, string>, body: Buffer): Reply {
    const key = decodeURIComponent(path.slice(`/${BLOB_ACCOUNT}/`.length));
    const azureHeaders = {
      "x-ms-request-id": randomUUID(),
      "x-ms-version": "2025-01-05",
      date: new Date().toUTCString(),
    };
    if (method === "PUT" && query.comp === "block") {
      const blocks = stagedBlocks.get(key) ?? new Map<string, Buffer>();
      blocks.set(query.blockid ?? "", body);
      stagedBlocks.set(key, blocks);
      return {
        status: 201,
        body: Buffer.alloc(0),
        headers: { ...azureHeaders, "x-ms-request-server-encrypted": "true" },
      };
    }
    if (method === "PUT" && query.comp === "blocklist") {
      const blocks = stagedBlocks.get(key) ?? new Map<string, Buffer>();
      const ids = [...body.toString("utf8").matchAll(/<(?:Latest|Uncommitted|Committed)>([^<]*)<\//g)].map(
        (x) => x[1] as string,
      );
      const missing = ids.filter((id) => !blocks.has(id));
      if (missing.length > 0)
        return { status: 400, body: Buffer.from("InvalidBlockList"), headers: azureHeaders };
      blobs.set(key, Buffer.concat(ids.map((id) => blocks.get(id) as Buffer)));
      stagedBlocks.delete(key);
      return {
        status: 201,
        body: Buffer.alloc(0),
        headers: {
          ...azureHeaders,
          etag: `"0x${Date.now().toString(16)}"`,
          "last-modified": azureHeaders.date,
        },
      };
    }
    if (method === "GET") {
      const download = /^actions-results\/artifact-(\d+)\.zip$/.exec(key);
      const artifact = download ? artifacts.find((a) => a.id === Number(download[1])) : undefined;
      const data = artifact?.data ?? blobs.get(key);
      if (!data) return { status: 404, body: Buffer.from("BlobNotFound"), headers: azureHeaders };
      return {
        status: 200,
        body: data,
        headers: {
          ...azureHeaders,
          "content-type": "application/zip",
          "content-length": String(data.length),
        },
      };
    }
    return { status: 405, body: Buffer.from("unsupported"), headers: azureHeaders };
  }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", baseUrl);
      const query = Object.fromEntries(url.searchParams);
      const body = Buffer.concat(chunks);
      const method = req.method ?? "GET";
      requests.push({ method, path: url.pathname, query, headers: req.headers, body });
      let reply: Reply;
      try {
        if (url.pathname.startsWith(TWIRP_PREFIX)) {
          reply =
            method === "POST"
              ? handleTwirp(url.pathname.slice(TWIRP_PREFIX.length), body)
              : json(405, { code: "bad_route", msg: "POST only" });
        } else if (url.pathname.startsWith(`/${BLOB_ACCOUNT}/`)) {
          reply = handleBlob(method, url.pathname, query, body);
        } else {
          reply = handleRest(method, url.pathname, query, body, req.headers.authorization);
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
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  baseUrl = `http://127.0.0.1:${port}`;
  if (!serverUrl) serverUrl = `http://github.localhost:${port}`;
  fake.url = baseUrl;
  fake.serverUrl = serverUrl;
  return fake;
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
