/**
 * Runs the bundled action (`node dist/index.js`) as the GitHub runner does: every input as an
 * `INPUT_<NAME>` variable (defaults from action.yml filled in, dashes kept), the event payload in
 * a file, GITHUB_OUTPUT and GITHUB_STEP_SUMMARY files, and the GitHub services pointed at the fake.
 */
import { spawn } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseYamlFile } from "../../src/scenario/load.js";
import type { GitHubFake } from "../support/github-server.js";
import { makeTempDir } from "../support/temp-dirs.js";

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const DIST_ENTRY = path.join(REPO_ROOT, "dist", "index.js");
export const FIXTURES = path.join(REPO_ROOT, "tests", "fixtures", "action");
export const FAKE_GITHUB_TOKEN = "ghs_fakeWorkflowToken0123456789";

export interface DistRun {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  outputs: Record<string, string>;
  summary: string;
  tempDir: string;
}

export interface DistRunOptions {
  fake: GitHubFake;
  runId: number;
  eventName: string;
  payload: unknown;
  /** Raw input values by input name; unset ones get action.yml's defaults. */
  inputs: Record<string, string>;
  workspace?: string;
  sha?: string;
  ref?: string;
  /** Extra environment (e.g. ANTHROPIC_BASE_URL). */
  env?: Record<string, string>;
  timeoutMs?: number;
  /** Send a signal once stdout matches (as the runner does when a workflow is cancelled). */
  signalWhen?: { pattern: RegExp; signal: NodeJS.Signals };
  /** Node's arguments that start the action; default the bundle (dist/index.js). */
  entry?: string[];
}

let defaults: Record<string, string> | null = null;

/** Input defaults as action.yml declares them. */
export async function readActionDefaults(): Promise<Record<string, string>> {
  if (defaults) return defaults;
  const action = (await parseYamlFile(path.join(REPO_ROOT, "action.yml"))) as {
    inputs: Record<string, { default?: string }>;
  };
  defaults = Object.fromEntries(
    Object.entries(action.inputs).map(([name, spec]) => [name, String(spec.default ?? "")]),
  );
  return defaults;
}

/** The runner's file command format: `name<<DELIMITER\nvalue\nDELIMITER`. */
function parseOutputFile(text: string): Record<string, string> {
  const outputs: Record<string, string> = {};
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i += 1) {
    const match = /^([^<=]+)<<(.+)$/.exec(lines[i] as string);
    if (!match) continue;
    const [, name, delimiter] = match;
    const value: string[] = [];
    for (i += 1; i < lines.length && lines[i] !== delimiter; i += 1) value.push(lines[i] as string);
    outputs[name as string] = value.join("\n");
  }
  return outputs;
}

export async function runDist(options: DistRunOptions): Promise<DistRun> {
  const tempDir = makeTempDir("llm-tool-test-action-");
  const eventPath = path.join(tempDir, "event.json");
  const outputPath = path.join(tempDir, "github_output");
  const summaryPath = path.join(tempDir, "step_summary.md");
  await writeFile(eventPath, JSON.stringify(options.payload, null, 2));
  await writeFile(outputPath, "");
  await writeFile(summaryPath, "");

  const inputEnv: Record<string, string> = {};
  const values = { ...(await readActionDefaults()), ...options.inputs };
  for (const [name, raw] of Object.entries(values)) {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the workflow expression the runner evaluates.
    const value = raw.replace("${{ github.token }}", FAKE_GITHUB_TOKEN);
    inputEnv[`INPUT_${name.replace(/ /g, "_").toUpperCase()}`] = value;
  }
  const { fake } = options;
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: tempDir,
    LANG: "C.UTF-8",
    CI: "true",
    GITHUB_ACTIONS: "true",
    GITHUB_EVENT_NAME: options.eventName,
    GITHUB_EVENT_PATH: eventPath,
    GITHUB_OUTPUT: outputPath,
    GITHUB_STEP_SUMMARY: summaryPath,
    GITHUB_API_URL: fake.url,
    GITHUB_SERVER_URL: fake.serverUrl,
    GITHUB_GRAPHQL_URL: `${fake.url}/graphql`,
    GITHUB_REPOSITORY: `${fake.owner}/${fake.repo}`,
    GITHUB_REPOSITORY_OWNER: fake.owner,
    GITHUB_RUN_ID: String(options.runId),
    GITHUB_RUN_NUMBER: String(options.runId % 1000),
    GITHUB_RUN_ATTEMPT: "1",
    GITHUB_SHA: options.sha ?? "f".repeat(40),
    GITHUB_REF: options.ref ?? "refs/heads/main",
    GITHUB_ACTOR: "octocat",
    GITHUB_WORKFLOW: "llm-tool-test",
    GITHUB_WORKFLOW_REF: `${fake.owner}/${fake.repo}/.github/workflows/llm-tool-test.yml@refs/heads/main`,
    GITHUB_WORKSPACE: options.workspace ?? FIXTURES,
    GITHUB_ACTION: "__run",
    GITHUB_JOB: "evaluate",
    RUNNER_TEMP: tempDir,
    // The test file's temp dir, checked for leftovers when the file ends (tests/support/temp-dir-check.ts).
    TMPDIR: os.tmpdir(),
    RUNNER_OS: "Linux",
    ACTIONS_RUNTIME_TOKEN: fake.runtimeToken(options.runId),
    ACTIONS_RESULTS_URL: `${fake.url}/`,
    ...inputEnv,
    ...options.env,
  };

  const child = spawn(process.execPath, options.entry ?? [DIST_ENTRY], {
    cwd: options.workspace ?? FIXTURES,
    env,
    stdio: "pipe",
  });
  let stdout = "";
  let stderr = "";
  let signalled = false;
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString("utf8");
    if (options.signalWhen && !signalled && options.signalWhen.pattern.test(stdout)) {
      signalled = true;
      child.kill(options.signalWhen.signal);
    }
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 90_000);
  const exitCode = await new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  clearTimeout(timer);
  return {
    exitCode,
    stdout,
    stderr,
    outputs: parseOutputFile(await readFile(outputPath, "utf8")),
    summary: await readFile(summaryPath, "utf8"),
    tempDir,
  };
}

export interface PullRequestEventOptions {
  number: number;
  owner: string;
  repo: string;
  baseRef?: string;
  baseSha: string;
  headRef?: string;
  headSha: string;
  /** `owner/name` of the head repository; differs from the base for a fork. */
  headRepo?: string;
}

/** A `pull_request` (synchronize) payload shaped like the real one, trimmed of unused fields. */
export function buildPullRequestEvent(options: PullRequestEventOptions) {
  const baseRepo = `${options.owner}/${options.repo}`;
  const headRepo = options.headRepo ?? baseRepo;
  const repository = (fullName: string) => ({
    id: fullName.length * 1000,
    name: fullName.split("/")[1],
    full_name: fullName,
    private: false,
    fork: fullName !== baseRepo,
    owner: { login: fullName.split("/")[0], type: "Organization" },
    html_url: `https://github.com/${fullName}`,
    default_branch: "main",
  });
  return {
    action: "synchronize",
    number: options.number,
    pull_request: {
      number: options.number,
      state: "open",
      title: "Improve the tool's help text",
      user: { login: headRepo === baseRepo ? "octocat" : "outsider", type: "User" },
      head: {
        label: `${headRepo.split("/")[0]}:${options.headRef ?? "feature"}`,
        ref: options.headRef ?? "feature",
        sha: options.headSha,
        repo: repository(headRepo),
      },
      base: {
        label: `${options.owner}:${options.baseRef ?? "main"}`,
        ref: options.baseRef ?? "main",
        sha: options.baseSha,
        repo: repository(baseRepo),
      },
      draft: false,
      merged: false,
    },
    repository: repository(baseRepo),
    sender: { login: headRepo === baseRepo ? "octocat" : "outsider", type: "User" },
  };
}

/** A `push` payload. */
export function buildPushEvent(options: { owner: string; repo: string; ref: string; sha: string }) {
  return {
    ref: options.ref,
    before: "0".repeat(40),
    after: options.sha,
    head_commit: { id: options.sha, message: "Merge pull request", timestamp: new Date().toISOString() },
    repository: {
      name: options.repo,
      full_name: `${options.owner}/${options.repo}`,
      owner: { login: options.owner },
    },
    pusher: { name: "octocat" },
  };
}
