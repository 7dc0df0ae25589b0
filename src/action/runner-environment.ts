/**
 * The action's side of sandbox/withdraw-environment.ts: the runner hands the action its inputs
 * (INPUT_*), its artifact token and its URLs in the environment, and `@actions/*` read them from
 * `process.env`, which the entry empties before anything runs. Here they are read from the
 * withdrawn copy instead.
 */
import type { ArtifactClient } from "../github/types.js";
import type { Environment } from "../sandbox/withdraw-environment.js";

/** Paths of the runner's file commands (`core.setOutput`, the job summary): kept in process.env, not secrets. */
export const FILE_COMMAND_VARIABLES: readonly string[] = ["GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY"];

/** `core.getInput` (name to INPUT_NAME, trimmed), over the withdrawn environment. */
export function createInputReader(env: Environment): (name: string) => string {
  return (name) => (env[`INPUT_${name.replace(/ /g, "_").toUpperCase()}`] ?? "").trim();
}

/** What `@actions/artifact` and `@actions/http-client` read from process.env when they are called. */
function isServiceVariable(name: string): boolean {
  return (
    name.startsWith("ACTIONS_ARTIFACT_") ||
    /^(https?_proxy|no_proxy)$/i.test(name) ||
    [
      "ACTIONS_RUNTIME_TOKEN",
      "ACTIONS_RESULTS_URL",
      "ACTIONS_ORCHESTRATION_ID",
      "GITHUB_SERVER_URL",
      "GITHUB_WORKSPACE",
      "GITHUB_RETENTION_DAYS",
    ].includes(name)
  );
}

let holders = 0;
let lent: string[] = [];

/**
 * Runs `call` with the runner's service variables (the artifact token among them) put back into
 * process.env, and takes them out again when the last overlapping call ends.
 *
 * Why this is safe: a value set here lives in the process's heap, not in its original environment
 * block, so /proc/<pid>/environ never shows it; the only way it could travel is a child that
 * inherits process.env, and the harness starts none (its process runners and every command they
 * run get an explicit environment). The calls are the baseline lookup before the trials and the
 * upload after them, never while an agent runs. (`@actions/artifact` takes no token argument, so
 * lending it the variables is the only way to pass them.)
 */
export async function withServiceVariables<T>(env: Environment, call: () => Promise<T>): Promise<T> {
  lend(env);
  try {
    return await call();
  } finally {
    giveBack();
  }
}

/** The synchronous form, for a client that reads them once when it is built (Octokit's proxy agent). */
export function withServiceVariablesSync<T>(env: Environment, build: () => T): T {
  lend(env);
  try {
    return build();
  } finally {
    giveBack();
  }
}

function lend(env: Environment): void {
  holders += 1;
  if (holders > 1) return;
  lent = [];
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || !isServiceVariable(name) || process.env[name] !== undefined) continue;
    process.env[name] = value;
    lent.push(name);
  }
}

function giveBack(): void {
  holders -= 1;
  if (holders > 0) return;
  for (const name of lent) delete process.env[name];
  lent = [];
}

/** An artifact client whose every call has the service variables it reads. */
export function lendServiceVariables(client: ArtifactClient, env: Environment): ArtifactClient {
  return {
    uploadArtifact: (...args) => withServiceVariables(env, () => client.uploadArtifact(...args)),
    downloadArtifact: (...args) => withServiceVariables(env, () => client.downloadArtifact(...args)),
    listArtifacts: (...args) => withServiceVariables(env, () => client.listArtifacts(...args)),
  };
}
