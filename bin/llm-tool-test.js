#!/usr/bin/env node
// Runs the compiled CLI when present (npm package), else compiles on the fly is not possible:
// the repository's `prepare` step builds lib/ on `npm ci`.
import { main } from "../lib/cli/main.js";

main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
