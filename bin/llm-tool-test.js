#!/usr/bin/env node
// The CLI's entry: lib/ is compiled from src/ by `npm run build` (and by `npm pack`/`npm publish`, the
// `prepack` script, so the package ships it: installing the package builds nothing).
import { createProcessIo, main } from "../lib/cli/main.js";
import { withdrawEnvironment } from "../lib/sandbox/withdraw-environment.js";

// First of all: the environment (API keys, tokens) moves into memory and this process's
// /proc/<pid>/environ is cleared, so that no agent this run starts can read it there.
const withdrawn = withdrawEnvironment();

// A closed pipe (`llm-tool-test list | head`) is not an error worth a stack trace.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error) => {
    if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
    throw error;
  });
}

main(process.argv.slice(2), createProcessIo(withdrawn)).then((code) => {
  process.exitCode = code;
});
