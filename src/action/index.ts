/** The bundle's entry (dist/index.js): run the action with the real runner's clients. */
import { run } from "./main.js";

// A cancelled workflow gets SIGINT, then SIGTERM: stop starting trials and publish what is done.
const cancel = new AbortController();
for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => cancel.abort("cancelled"));

await run({ signal: cancel.signal });
