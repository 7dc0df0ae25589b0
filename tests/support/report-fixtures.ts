import { readFileSync } from "node:fs";
import path from "node:path";
import type { Report } from "../../src/results/types.js";

const FIXTURES = path.resolve(import.meta.dirname, "../fixtures/reports");

/** The hand-made reports under tests/fixtures/reports: base (sonnet) and head (opus). */
export function loadFixture(name: "base" | "head"): Report {
  return JSON.parse(readFileSync(path.join(FIXTURES, `${name}.json`), "utf8")) as Report;
}
