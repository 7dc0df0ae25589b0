import path from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { compareReports } from "../../src/compare/compare.js";
import type { BaselineSource, Comparison } from "../../src/compare/types.js";
import { renderJobSummary } from "../../src/render/job-summary.js";
import {
  COMMENT_MAX_CHARS,
  type CommentInput,
  cutLines,
  formatAge,
  renderComment,
} from "../../src/render/pr-comment.js";
import { readReportFile } from "../../src/results/read-report.js";
import type { Report } from "../../src/results/types.js";

const REPORTS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../fixtures/action/reports");
const NOW = Date.parse("2025-01-02T03:00:00.000Z");
const RUN_URL = "https://github.com/octo-org/octo-tool/actions/runs/200";
const ARTIFACT_URL = `${RUN_URL}/artifacts/9002`;

let base: Report;
let head: Report;
let comparison: Comparison;

const source: BaselineSource = {
  kind: "auto",
  sha: "0123456789abcdef0123456789abcdef01234567",
  createdAt: "2025-01-01T00:00:00.000Z",
  runId: 100,
  runNumber: 17,
  runUrl: "https://github.com/octo-org/octo-tool/actions/runs/100",
  artifactId: 9001,
  matchesBaseSha: true,
  file: "/tmp/baseline/run-100/report.json",
};

beforeAll(async () => {
  base = await readReportFile(path.join(REPORTS, "base.json"));
  head = await readReportFile(path.join(REPORTS, "head.json"));
  comparison = compareReports(base, head);
});

function input(overrides: Partial<CommentInput> = {}): CommentInput {
  return {
    key: "llm-tool-test",
    report: head,
    comparison,
    baseline: { status: "found", source, baseRef: "main", baseSha: source.sha },
    runUrl: RUN_URL,
    artifactUrl: ARTIFACT_URL,
    headSha: "89abcdef0123456789abcdef0123456789abcdef",
    now: NOW,
    ...overrides,
  };
}

describe("renderComment", () => {
  it("renders the comparison with the base branch (snapshot)", () => {
    const body = renderComment(input());
    expect(body).toMatchSnapshot();
    expect(body.split("\n")[0]).toBe("<!-- llm-tool-test:llm-tool-test -->");
    expect(body).toContain("## ❌ llm-tool-test: FAIL · 31/42 trials passed (74%) · cost $2.15");
    expect(body).toContain(
      "Compared with `0123456` on `main` ([run #17](https://github.com/octo-org/octo-tool/actions/runs/100), 27 hours old).",
    );
    // Newly failing before the rest, and the full report collapsed after the comparison.
    expect(body.indexOf("create-note")).toBeLessThan(body.indexOf("link-notes"));
    expect(body.indexOf("<details><summary>Full report of this run</summary>")).toBeGreaterThan(
      body.indexOf("| Scenario |"),
    );
    expect(body.endsWith("<sub>llm-tool-test 0.1.0 · measured on `89abcde`</sub>")).toBe(true);
    expect(body).toContain(`[Workflow run](${RUN_URL}) · [Report artifact](${ARTIFACT_URL})`);
  });

  it("says so, neutrally, when there is no baseline (snapshot)", () => {
    const body = renderComment(
      input({
        comparison: null,
        baseline: { status: "missing", reason: "no successful push run of this workflow on `main` yet" },
      }),
    );
    expect(body).toMatchSnapshot();
    expect(body).toContain(
      "**No baseline to compare with:** no successful push run of this workflow on `main` yet. This is neutral: the run is shown on its own.",
    );
    expect(body).not.toContain("Compared with");
    expect(body).not.toMatch(/^### [🔴🟢⚪]/mu);
    expect(body).toContain("### Scenarios");
  });

  it("names a baseline from another commit than the PR's base, and a baseline file", () => {
    const other = renderComment(
      input({
        baseline: {
          status: "found",
          source: { ...source, matchesBaseSha: false },
          baseRef: "main",
          baseSha: "f".repeat(40),
        },
      }),
    );
    expect(other).toContain(
      "It is the newest usable baseline: the PR's base commit `fffffff` has no report of its own.",
    );
    const file = renderComment(
      input({
        baseline: {
          status: "found",
          source: {
            ...source,
            kind: "path",
            file: "baseline/report.json",
            runId: null,
            runNumber: null,
            runUrl: null,
          },
          baseRef: null,
          baseSha: null,
        },
      }),
    );
    expect(file).toContain(
      "Compared with the report `baseline/report.json` (commit `0123456`, 27 hours old).",
    );
    // A report given as a path may not know its commit: it is not described as "an unknown commit".
    const pathOnly = renderComment(
      input({
        baseline: {
          status: "found",
          source: {
            ...source,
            kind: "path",
            file: "base.json",
            sha: null,
            runId: null,
            runNumber: null,
            runUrl: null,
          },
          baseRef: null,
          baseSha: null,
        },
      }),
    );
    expect(pathOnly).toContain("Compared with the report `base.json`, 27 hours old.");
    expect(pathOnly).not.toContain("unknown commit");
    const off = renderComment(input({ comparison: null, baseline: { status: "disabled" } }));
    expect(off).toContain("Baseline comparison is off (`baseline: none`).");
  });

  it("warns about an incomplete run and errored trials", () => {
    const incomplete: Report = {
      ...head,
      run: { ...head.run, incomplete: true },
      summary: { ...head.summary, errors: 2, skipped: 3 },
    };
    const body = renderComment(input({ report: incomplete }));
    expect(body).toContain("> This run is **incomplete**: it was interrupted or cut by its budget.");
    expect(body).toContain("**2 trials errored** (infrastructure, not counted in the pass rate)");
    expect(body).toContain("3 skipped");
  });

  it("says when the artifact could not be uploaded", () => {
    expect(renderComment(input({ artifactUrl: null }))).toContain("Report artifact: not uploaded");
  });

  it.each([65_000, 20_000, 6_000, 2_500, 1_200])(
    "fits %i characters by dropping detail, never the headline",
    (maxChars) => {
      const full = renderComment(input({ maxChars: 1_000_000 }));
      const body = renderComment(input({ maxChars }));
      expect(body.length).toBeLessThanOrEqual(maxChars);
      const headline = full.slice(0, full.indexOf("### "));
      expect(body.startsWith(headline)).toBe(true);
      expect(body).toContain(`[Report artifact](${ARTIFACT_URL})`);
      // What went: the comparison's collapsed details, or the end of the full report (with a note).
      const detailBlocks = (text: string) => text.match(/<details/g)?.length ?? 0;
      const cutReport =
        /cut to fit; the full report is `report.md` in the report artifact|did not fit here/.test(body);
      if (full.length > maxChars) {
        expect(cutReport || detailBlocks(body) < detailBlocks(full)).toBe(true);
      } else {
        expect(body).toBe(full);
      }
      expect(detailBlocks(body)).toBe(body.match(/<\/details>/g)?.length ?? 0);
    },
  );

  it("keeps a huge report under GitHub's limit and closes what it cuts", () => {
    const many: Report = {
      ...head,
      scenarios: Array.from({ length: 400 }, (_, i) => ({
        ...(head.scenarios[0] as Report["scenarios"][number]),
        id: `scenario-${String(i).padStart(3, "0")}`,
      })),
    };
    const body = renderComment(input({ report: many, comparison: compareReports(base, many) }));
    expect(body.length).toBeLessThanOrEqual(COMMENT_MAX_CHARS);
    expect(body.length).toBeGreaterThan(COMMENT_MAX_CHARS - 5_000);
    expect(body.match(/<details/g)?.length).toBe(body.match(/<\/details>/g)?.length);
    expect(body).toContain("## ❌ llm-tool-test: FAIL");
  });
});

describe("cutLines", () => {
  const line = (label: string) => `${label} ${"x".repeat(40)}`;
  const balanced = (text: string) => ({
    fences: (text.match(/^```/gm)?.length ?? 0) % 2,
    details: (text.match(/<details/g)?.length ?? 0) - (text.match(/<\/details>/g)?.length ?? 0),
  });

  it("keeps whole lines within the limit and closes an open code fence", () => {
    const text = [
      "intro",
      "```",
      ...Array.from({ length: 20 }, (_, i) => line(`code ${i}`)),
      "```",
      "outro",
    ].join("\n");
    const cut = cutLines(text, 400, "(cut)");
    expect(cut.length).toBeLessThanOrEqual(400);
    expect(cut.endsWith("```\n\n(cut)")).toBe(true);
    expect(balanced(cut)).toEqual({ fences: 0, details: 0 });
    const kept = cut.split("\n").slice(0, -4);
    expect(text.startsWith(kept.join("\n"))).toBe(true);
    expect(kept.length).toBeGreaterThan(4);
    expect(cutLines(text, 10_000, "(cut)")).toBe(text);
  });

  it("closes the <details> blocks it cuts into", () => {
    const text = [
      "<details><summary>outer</summary>",
      "",
      ...Array.from({ length: 5 }, (_, i) => line(`a ${i}`)),
      "<details>",
      ...Array.from({ length: 20 }, (_, i) => line(`b ${i}`)),
      "</details>",
      "</details>",
    ].join("\n");
    const cut = cutLines(text, 700, "(cut)");
    expect(cut.length).toBeLessThanOrEqual(700);
    expect(cut).toContain("b 3");
    expect(cut).not.toContain("b 19");
    expect(balanced(cut)).toEqual({ fences: 0, details: 0 });
    expect(cut.endsWith("</details>\n\n</details>\n\n(cut)")).toBe(true);
  });
});

describe("formatAge", () => {
  it.each([
    [30_000, "just now"],
    [60_000, "1 minute old"],
    [45 * 60_000, "45 minutes old"],
    [3_600_000, "1 hour old"],
    [47 * 3_600_000, "47 hours old"],
    [49 * 3_600_000, "2 days old"],
    [-5_000, "just now"],
  ])("%i ms is %s", (ms, text) => {
    expect(formatAge(ms)).toBe(text);
  });
});

describe("renderJobSummary", () => {
  it("shows the full report expanded, without the comment's marker", () => {
    const summary = renderJobSummary(input());
    expect(summary.startsWith("## ❌ llm-tool-test: FAIL")).toBe(true);
    expect(summary).not.toContain("<!-- llm-tool-test:");
    expect(summary).toContain("## Full report");
    expect(summary).not.toContain("<summary>Full report of this run</summary>");
  });

  it("measures its limit in bytes of UTF-8", () => {
    // A report full of 3-byte characters: the characters fit, the bytes would not.
    const wide: Report = {
      ...head,
      scenarios: Array.from({ length: 300 }, (_, i) => ({
        ...(head.scenarios[0] as Report["scenarios"][number]),
        id: `場景-${"測試".repeat(20)}-${i}`,
      })),
    };
    const maxBytes = 40_000;
    const summary = renderJobSummary(
      input({ report: wide, comparison: null, baseline: { status: "disabled" }, maxBytes } as never),
    );
    expect(Buffer.byteLength(summary, "utf8")).toBeLessThanOrEqual(maxBytes);
    expect(Buffer.byteLength(summary, "utf8")).toBeGreaterThan(maxBytes * 0.8);
    expect(summary).toContain("cut to fit");
  });
});
