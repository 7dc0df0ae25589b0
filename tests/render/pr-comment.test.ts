import path from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { compareReports } from "../../src/compare/compare.js";
import { type Decision, decide } from "../../src/compare/decision.js";
import type { BaselineSource, Comparison } from "../../src/compare/types.js";
import { renderDecisionHeadline } from "../../src/render/decision.js";
import { markdownCode } from "../../src/render/escape.js";
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
import { makeReport, makeScenarioReport } from "../support/report-factory.js";
import {
  adaptiveHead,
  decideAndCompare,
  pooledBaseline,
  repeat,
  scenarioWith,
  suiteOf,
} from "./decision-fixtures.js";

const REPORTS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../fixtures/action/reports");
const NOW = Date.parse("2025-01-02T03:00:00.000Z");
const RUN_URL = "https://github.com/octo-org/octo-tool/actions/runs/200";
const ARTIFACT_URL = `${RUN_URL}/artifacts/9002`;

let base: Report;
let head: Report;
let comparison: Comparison;
let decision: Decision;

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
  decision = decide({ head, baseline: base });
});

/** What a reader sees before opening anything: the body above the first collapsed block. */
function aboveTheFold(body: string): string[] {
  return body.slice(0, body.indexOf("<details")).trimEnd().split("\n");
}

function input(overrides: Partial<CommentInput> = {}): CommentInput {
  return {
    key: "llm-tool-test",
    report: head,
    decision,
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
  it("leads with the decision and what the run could detect, then the suite and what moved (snapshot)", () => {
    const body = renderComment(input());
    expect(body).toMatchSnapshot();
    const lines = body.split("\n");
    expect(lines[0]).toBe("<!-- llm-tool-test:llm-tool-test -->");
    expect(lines[1]).toBe(`## ${renderDecisionHeadline(decision, { summary: head.summary })}`);
    expect(lines[1]).toMatch(/^## 🔴 Regression in `create-note`: 10\/10 → 0\/10 \(adjusted p = 0\.\d+\)/u);
    expect(lines[2]).toMatch(
      /^9 scenarios × 5 trials against 1 baseline run \(5 trials a scenario\): catches .*\. Run-to-run variation: 1 base run, too few to measure it; tests and power assume ICC 0\.10\. Run cost \$[\d.]+\.$/,
    );
    // What was not compared, then the cause, visible: the regressed scenario's first failed gate.
    expect(lines[3]).toBe("");
    expect(lines[4]).toMatch(/^Not compared, no verdict/);
    expect(lines[6]).toMatch(/^- `create-note`: 10 of 10 head trials failed; trial 1 failed gate `[a-z_]+`/);
    const order = [
      // Scenarios the decision did not compare are named visibly, with their head results.
      "Not compared, no verdict (head results shown): changed since the base runs (1): `list-notes` 5/5; not in the base runs (2): `tag-notes-bulk` 3/3, `import` 3/3.",
      "| Suite (8 scenarios) | Base → head | Change (95% CI) |",
      "| `create-note` | 10/10 → 0/10 | 0.00188 | 🔴 regressed · newly failing |",
      "5 other scenarios without a clear change",
      "This run: 31/42 trials passed (74%)",
      "Compared with `0123456` on `main` ([run #17](https://github.com/octo-org/octo-tool/actions/runs/100), 27 hours old).",
      "<details><summary>Metrics of each scenario (6)</summary>",
      "<details><summary>Full report of this run</summary>",
    ].map((text) => body.indexOf(text));
    for (const i of order) expect(i).toBeGreaterThan(0);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    // No verdict tallies, no unexplained marks, no rows for scenarios that did not move.
    expect(body).not.toMatch(/[❔➖🟢]|inconclusive|Metric verdicts/u);
    expect(aboveTheFold(body).join("\n")).not.toContain("`search@agents-v1`");
    expect(body.endsWith("<sub>llm-tool-test 0.1.0 · measured on `89abcde`</sub>")).toBe(true);
    expect(body).toContain(`[Workflow run](${RUN_URL}) · [Report artifact](${ARTIFACT_URL})`);
  });

  it("with nothing changed in 30 scenarios, keeps what shows above the first <details> to 15 lines", () => {
    const eight = pooledBaseline(30, 8);
    const report = adaptiveHead(repeat(30, 3, 3));
    const { decision: same, comparison: c } = decideAndCompare(report, eight.report, {
      pooling: eight.pooling,
      extraTrials: 8,
    });
    const body = renderComment(input({ report, decision: same, comparison: c }));
    const lines = aboveTheFold(body);
    expect(lines.length).toBeLessThanOrEqual(15);
    expect(lines[1]).toMatch(
      /^## ✅ No regression detected — could see a 90% → 10% collapse in one scenario \(~\d+%\), not a 10-point drop across the suite \(~\d+%\)$/u,
    );
    // The configured design (+8), though no scenario needed extra trials, and the runs' variation.
    expect(lines[2]).toMatch(
      /^30 scenarios × 3 \(\+8\) trials against 8 baseline runs \(24 trials a scenario\): catches a 90% → 10% collapse in one scenario with (~\d+%|>99%) power; .*\. Run-to-run variation: 8 base runs, ICC 0\.00\. Run cost \$4\.50\.$/,
    );
    expect(lines).toContain("| commands | 4 → 4 | 0 [0, 0] |");
    // Completion closes the suite table of the seed's layer-1 metrics (issue 14, point 8).
    const completion = lines.findIndex((line) => line.startsWith("| completion | 100% → 100% | 0 "));
    expect(completion).toBe(lines.indexOf("| commands | 4 → 4 | 0 [0, 0] |") + 1);
    expect(lines.at(-1)).toMatch(
      /^All 30 scenarios without a clear change \(a scenario is listed when [^)]+\)\. This run: 90\/90 trials passed \(100%\)/,
    );
    expect(lines.join("\n")).not.toContain("| Scenario |");
  });

  it("says inconclusive with 1 or 2 base runs, never ✅, and what would make it conclusive", () => {
    for (const runs of [1, 2]) {
      const pooled = pooledBaseline(10, runs);
      const report = adaptiveHead(repeat(10, 3, 3));
      const { decision: unsure, comparison: c } = decideAndCompare(report, pooled.report, {
        pooling: pooled.pooling,
        extraTrials: 8,
      });
      const body = renderComment(input({ report, decision: unsure, comparison: c }));
      const lines = body.split("\n");
      expect(lines[1]).toMatch(
        new RegExp(
          `^## 🟡 Inconclusive: no regression seen, but only ${runs} base-branch runs?: run-to-run variation cannot be estimated \\(3 needed\\).* — conclusive with .+`,
          "u",
        ),
      );
      expect(lines[2]).toContain(`Run-to-run variation: ${runs} base run`);
      // Above the fold (the collapsed full report marks its passing trials).
      expect(aboveTheFold(body).join("\n")).not.toContain("✅");
    }
  });

  it("names no scenario as broken when only the suite test saw a drop", () => {
    const pooled = pooledBaseline(30, 8, 3, (i, r) => ((i + r) % 8 === 0 ? 2 : 3));
    const report = suiteOf(Array.from({ length: 30 }, (_, i) => (i % 2 === 0 ? [2, 3] : [3, 3])));
    const { decision: broad, comparison: c } = decideAndCompare(report, pooled.report, {
      pooling: pooled.pooling,
    });
    expect(broad.regressed).toEqual([]);
    const top = aboveTheFold(renderComment(input({ report, decision: broad, comparison: c })));
    expect(top[1]).toBe(
      "## 🔴 Regression across the suite: pass rate 96% → 83% (suite test, adjusted p = 0.00478)",
    );
    expect(top[4]).toBe(
      "No scenario regressed by its own test: the suite test saw a drop spread over the suite, not one scenario breaking.",
    );
    expect(top.slice(0, 5).join("\n")).not.toMatch(/`s\d+`/);
  });

  it("shows each regressed scenario's cause above the fold, its agent-written message inert", () => {
    const message = "<img src=x onerror=alert(1)> @octocat see #12 `rm -rf` ![x](http://e/x.png)";
    const broken = makeScenarioReport({
      id: "broken",
      trials: scenarioWith("broken", 0, 9).trials.map((t) => ({
        ...t,
        gates: [{ gate_type: "command_output", passed: false, message, weight: 1 }],
      })),
    });
    const report = makeReport([broken, ...Array.from({ length: 9 }, (_, i) => scenarioWith(`s${i}`, 3, 3))]);
    const baseline = makeReport([
      scenarioWith("broken", 24, 24),
      ...Array.from({ length: 9 }, (_, i) => scenarioWith(`s${i}`, 24, 24)),
    ]);
    const { decision: d, comparison: c } = decideAndCompare(report, baseline);
    expect(d.regressed).toEqual(["broken"]);
    const top = aboveTheFold(renderComment(input({ report, decision: d, comparison: c })));
    expect(top[4]).toBe(
      "- `broken`: 9 of 9 head trials failed; trial 1 failed gate `command_output`: &lt;img src=x onerror=alert(1)&gt; @\u200Boctocat see \\#\u200B12 \\`rm -rf\\` !\\[x\\](http://\u200be/x.png).",
    );
  });

  it("shows the suite rows over first trials after extra trials, and says so", () => {
    // s0 failed its first 3 trials, then passed its 8 extra ones: all 11 would read +73 points.
    const extended = makeScenarioReport({
      id: "s0",
      first_trials: 3,
      extended: true,
      trials: [
        ...scenarioWith("s0", 0, 3, { completed: false }).trials,
        ...scenarioWith("s0", 8, 8).trials.map((t, i) => ({ ...t, trial: 4 + i })),
      ],
    });
    const report = makeReport([
      extended,
      ...Array.from({ length: 9 }, (_, i) =>
        scenarioWith(`s${i + 1}`, 3, 3, {}, { first_trials: 3, extended: false }),
      ),
    ]);
    const pooled = pooledBaseline(10, 8);
    const { decision: d, comparison: c } = decideAndCompare(report, pooled.report, {
      pooling: pooled.pooling,
      extraTrials: 8,
    });
    expect(c!.suite.first_trials_only).toBe(true);
    const body = renderComment(input({ report, decision: d, comparison: c }));
    expect(body).toContain("| completion | 100% → 90% | −10 [−30, 0] pts |");
    expect(body).toContain(
      "<sub>Suite rows count each scenario's first trials only: extra trials, run only where the head started worse than the baseline, would bias them towards the head. Scenario rows count all trials.</sub>",
    );
    expect(body).toMatch(/\| `s0` \| 24\/24 → 8\/11 \| [^|]+ \| [^|]*all 11 trials: 3 first \+ 8 extra \|/);
  });

  it("keeps agent-controlled scenario names inert in the headline and the rows", () => {
    const names = ["a`b", "</details><!-- hidden", "@octocat please"];
    const h = makeReport(names.map((id) => scenarioWith(id, 0, 9)));
    const b = makeReport(names.map((id) => scenarioWith(id, 12, 12)));
    const { decision: d, comparison: c } = decideAndCompare(h, b);
    const body = renderComment(input({ report: h, decision: d, comparison: c }));
    const headline = body.split("\n")[1]!;
    for (const name of names) {
      expect(headline).toContain(markdownCode(name));
      expect(body).toContain(`| ${markdownCode(name)} | 12/12 → 0/9 |`);
    }
    // Outside code spans and <code>, every </details> closes one of ours and no comment opens.
    let outside = body.replace(/<code>.*?<\/code>/g, "");
    for (const name of names) outside = outside.replaceAll(markdownCode(name), "");
    expect(outside.match(/<\/details>/g)?.length).toBe(outside.match(/<details>/g)?.length);
    expect(outside.split("\n").filter((l) => l.includes("<!--"))).toEqual([
      "<!-- llm-tool-test:llm-tool-test -->",
    ]);
    expect(outside).not.toContain("@octocat");
  });

  it("says so, neutrally, when there is no baseline, and shows the run on its own (snapshot)", () => {
    const reason = "no successful push run of this workflow on `main` yet";
    const body = renderComment(
      input({
        decision: decide({ head, baseline: null }),
        comparison: null,
        baseline: { status: "missing", reason },
      }),
    );
    expect(body).toMatchSnapshot();
    expect(body.split("\n")[1]).toBe(
      `## ⚪ No baseline yet: ${reason} — this check does not gate until there is one`,
    );
    expect(body).not.toContain("Compared with");
    expect(aboveTheFold(body).join("\n")).not.toContain("| Suite");
    expect(body).toContain("This run: 31/42 trials passed (74%)");
    expect(body).toContain("### Scenarios");
  });

  it("decides on the run alone under fail-on outcome, and still shows the comparison as estimates", () => {
    const { decision: outcome, comparison: c } = decideAndCompare(head, base, { failOnText: "outcome" });
    const body = renderComment(input({ decision: outcome, comparison: c }));
    expect(body.split("\n")[1]).toBe("## ❌ Failed: 11/42 trials failed (fail-on: outcome)");
    expect(body).toContain("| Scenario | Passed (base → head) | Notes |");
    expect(body).not.toContain("Adjusted p");
    expect(body).not.toContain("🔴");
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
    const off = renderComment(
      input({
        decision: decide({ head, baseline: null }),
        comparison: null,
        baseline: { status: "disabled" },
      }),
    );
    expect(off).toContain("Baseline comparison is off (`baseline: none`).");
  });

  it("says INCOMPLETE first for an incomplete run, and warns about errored trials", () => {
    const incomplete: Report = {
      ...head,
      run: { ...head.run, incomplete: true },
      summary: { ...head.summary, errors: 2, skipped: 3 },
    };
    const body = renderComment(
      input({ report: incomplete, decision: decide({ head: incomplete, baseline: base }) }),
    );
    expect(body.split("\n")[1]).toMatch(/^## ⚠️ INCOMPLETE — 🔴 Regression in `create-note`/u);
    expect(body).toContain("> This run is **incomplete**: it was interrupted or cut by its budget.");
    expect(body).toContain("**2 trials errored** (infrastructure, not counted in the pass rate)");
    expect(body).toContain("3 skipped");
  });

  it("warns above the fold about trials that ran the target around the shim", () => {
    const [first, ...rest] = head.scenarios;
    const flagged: Report = {
      ...head,
      scenarios: [
        {
          ...first!,
          trials: first!.trials.map((trial, index) =>
            index === 0
              ? {
                  ...trial,
                  shim_disagreements: ["tool call 1: `/usr/bin/tool x` ran around the shim (by its path)"],
                }
              : trial,
          ),
        },
        ...rest,
      ],
    };
    const body = renderComment(
      input({ report: flagged, decision: decide({ head: flagged, baseline: base }) }),
    );
    expect(aboveTheFold(body).join("\n")).toContain(
      "> **1 trial: the shim's records disagree with the tool calls** (1 of them ran the target around the shim, where `no_transcript_errors` fails closed)",
    );
    expect(renderComment(input())).not.toContain("the shim's records disagree");
  });

  it("says when the artifact could not be uploaded", () => {
    expect(renderComment(input({ artifactUrl: null }))).toContain("Report artifact: not uploaded");
  });

  it("says the artifact holds history.html when it was written, in the footer below the fold", () => {
    const eight = pooledBaseline(30, 8);
    const report = adaptiveHead(repeat(30, 3, 3));
    const { decision: same, comparison: c } = decideAndCompare(report, eight.report, {
      pooling: eight.pooling,
      extraTrials: 8,
    });
    const view = input({ report, decision: same, comparison: c });
    const without = renderComment(view);
    const body = renderComment({ ...view, history: { file: "history.html", baseRuns: 8 } });
    expect(body).toContain(
      `[Report artifact](${ARTIFACT_URL}) (with \`history.html\`: this run beside the 8 base-branch runs, one by one)`,
    );
    // Nothing above the fold moves: the 15 lines stay as they were.
    expect(aboveTheFold(body)).toEqual(aboveTheFold(without));
    expect(aboveTheFold(body).length).toBeLessThanOrEqual(15);
    expect(without).not.toContain("history.html");
    expect(renderComment({ ...view, history: null })).toBe(without);
    // No artifact uploaded: no page to point to.
    expect(
      renderComment({ ...view, artifactUrl: null, history: { file: "history.html", baseRuns: 8 } }),
    ).not.toContain("history.html");
  });

  it.each([65_000, 20_000, 6_000, 2_500, 1_800])(
    "fits %i characters by dropping detail, never the decision",
    (maxChars) => {
      const full = renderComment(input({ maxChars: 1_000_000 }));
      const body = renderComment(input({ maxChars }));
      expect(body.length).toBeLessThanOrEqual(maxChars);
      const top = full.slice(0, full.indexOf("\n\n"));
      expect(body.startsWith(top)).toBe(true);
      expect(body).toContain(`[Report artifact](${ARTIFACT_URL})`);
      // What went: per-scenario details, scenario rows, or the end of the full report (with a note).
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
    const body = renderComment(
      input({
        report: many,
        decision: decide({ head: many, baseline: base }),
        comparison: compareReports(base, many),
      }),
    );
    expect(body.length).toBeLessThanOrEqual(COMMENT_MAX_CHARS);
    expect(body.length).toBeGreaterThan(COMMENT_MAX_CHARS - 5_000);
    expect(body.match(/<details/g)?.length).toBe(body.match(/<\/details>/g)?.length);
    expect(body.split("\n")[1]).toMatch(/^## /);
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
    expect(summary.startsWith(`## ${renderDecisionHeadline(decision, { summary: head.summary })}\n`)).toBe(
      true,
    );
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
