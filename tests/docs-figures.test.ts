/**
 * Figures the README states that a benchmark measured: the README's must be BENCHMARKS.md's (the
 * bench rewrites its section, and bench/footprint.bench-run.ts checks the README against the
 * measurement itself).
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "..");
const read = (file: string) => readFileSync(path.join(ROOT, file), "utf8");

it("the README's install footprint is the one BENCHMARKS.md measured, within 10%", () => {
  const stated = /about (\d+) MB of `node_modules`/.exec(read("README.md"))?.[1];
  const measured = /\| node_modules, every model SDK included \| [\d.]+ MB \((\d+) bytes\)/.exec(
    read("BENCHMARKS.md"),
  )?.[1];
  expect(stated, "README: about N MB of `node_modules`").toBeDefined();
  expect(measured, "BENCHMARKS.md: the footprint row").toBeDefined();
  const error = Math.abs(Number(stated) * 1e6 - Number(measured)) / Number(measured);
  expect(error).toBeLessThan(0.1);
});
