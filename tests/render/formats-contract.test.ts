/**
 * The contract every output format keeps, run against each entry of the registry, so adding a
 * format is its entry and its renderer: nothing here names a format.
 */
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compareReports } from "../../src/compare/compare.js";
import { decide } from "../../src/compare/decision.js";
import { FORMAT_NAMES, OUTPUT_FORMATS, type OutputFormat } from "../../src/render/formats.js";
import { writeReportFiles } from "../../src/run/write-outputs.js";
import { readUserDocs } from "../support/docs-text.js";
import { loadFixture } from "../support/report-fixtures.js";

const base = loadFixture("base");
const head = loadFixture("head");
const comparison = compareReports(base, head);
const decision = decide({ head, baseline: base });
const docs = readUserDocs();

let withComparison: string;
let alone: string;
beforeAll(async () => {
  withComparison = await mkdtemp(path.join(tmpdir(), "ltt-format-contract-"));
  alone = await mkdtemp(path.join(tmpdir(), "ltt-format-contract-"));
  await writeReportFiles(head, withComparison, (text) => text, {
    comparison,
    decision,
    baseRuns: [{ report: base, label: "base" }],
  });
  await writeReportFiles(head, alone, (text) => text);
});
afterAll(async () => {
  await rm(withComparison, { recursive: true, force: true });
  await rm(alone, { recursive: true, force: true });
});

describe.each(FORMAT_NAMES)("the format %s", (name) => {
  const format: OutputFormat = OUTPUT_FORMATS[name];

  it("renders the report, with its comparison and decision, to text ending in a newline", () => {
    const text = format.render({ report: head, comparison, decision, events: {} });
    expect(text.trim().length).toBeGreaterThan(0);
    expect(text.endsWith("\n") || text.endsWith(">")).toBe(true);
  });

  it("without a comparison, renders the report alone, or refuses when it needs one", () => {
    const render = () => format.render({ report: head, events: {} });
    if (format.needsComparison) expect(render).toThrow(/comparison/);
    else expect(render().trim().length).toBeGreaterThan(0);
  });

  it.runIf(format.file !== null)(
    "is written by a run under its own file name, only when it has what it needs (a comparison, base runs)",
    async () => {
      const written = await readdir(withComparison);
      const writtenAlone = await readdir(alone);
      if (format.file === null) return;
      const sharing = FORMAT_NAMES.filter((other) => OUTPUT_FORMATS[other].file === format.file);
      expect(sharing).toEqual([name]);
      expect(written).toContain(format.file);
      expect(writtenAlone.includes(format.file)).toBe(!format.needsComparison && !format.needsBaseRuns);
      const text = await readFile(path.join(withComparison, format.file), "utf8");
      expect(text.length).toBeGreaterThan(0);
    },
  );

  it("is offered by `report --format`, as the docs say", () => {
    expect(docs).toContain(`--format ${FORMAT_NAMES.join("|")}`);
  });
});

it("a run writes exactly the formats that have a file", async () => {
  const files = FORMAT_NAMES.map((name) => OUTPUT_FORMATS[name].file).filter((file) => file !== null);
  expect((await readdir(withComparison)).sort()).toEqual([...files].sort());
});
