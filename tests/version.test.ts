import { readFileSync } from "node:fs";
import path from "node:path";
import { expect, it } from "vitest";
import { HARNESS_VERSION } from "../src/version.js";
import { runCli } from "./support/run-cli.js";

it("the harness version recorded in reports is package.json's, and --version prints it", async () => {
  const pkg = JSON.parse(readFileSync(path.resolve(import.meta.dirname, "../package.json"), "utf8"));
  expect(HARNESS_VERSION).toBe(pkg.version);
  const result = await runCli(["--version"]);
  expect(result.stdout.trim()).toBe(pkg.version);
});
