/** The bundle's entry (dist/index.js): run the action with the real runner's clients. */
import { withdrawEnvironment } from "../sandbox/withdraw-environment.js";
import { run } from "./main.js";
import { FILE_COMMAND_VARIABLES } from "./runner-environment.js";

// Before anything runs: the inputs (the API key, the GitHub token), ACTIONS_RUNTIME_TOKEN and the
// rest of the environment move into memory, and this process's /proc/<pid>/environ is cleared, so
// that no agent the run starts can read them there (sandbox/withdraw-environment.ts).
const withdrawn = withdrawEnvironment({ keep: FILE_COMMAND_VARIABLES });

// A cancelled workflow gets SIGINT, then SIGTERM: stop starting trials and publish what is done.
const cancel = new AbortController();
for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => cancel.abort("cancelled"));

await run({
  signal: cancel.signal,
  env: withdrawn.env,
  environmentWarning: withdrawn.warning ?? undefined,
});
