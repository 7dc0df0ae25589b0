/**
 * The why of a regression in every format that shows the decision (render/behaviour.ts): the mlr
 * user test — base runs called `mlr --icsv --ojson cat`, the head stopped passing `--icsv` — in
 * the comment's bullet above the fold, in report.md and in report.html; agent text inert.
 */
import { describe, expect, it } from "vitest";
import { decideRun } from "../../src/compare/decide-run.js";
import { renderBehaviourBrief } from "../../src/render/behaviour.js";
import { renderReportHtml } from "../../src/render/html.js";
import { renderComment } from "../../src/render/pr-comment.js";
import { renderReportMarkdown } from "../../src/render/report-markdown.js";
import { mlrRegression } from "./decision-fixtures.js";

const policy = { failOn: null, gateMetrics: [] as string[] };

function decided(options: Parameters<typeof mlrRegression>[0] = {}) {
  const { baseline, head } = mlrRegression(options);
  return { head, ...decideRun({ report: head, baseline, policy }) };
}

function comment(run: ReturnType<typeof decided>) {
  return renderComment({
    key: "llm-tool-test",
    report: run.head,
    decision: run.decision,
    comparison: run.comparison,
    baseline: { status: "disabled" },
    runUrl: null,
    artifactUrl: null,
    headSha: null,
    now: 0,
  });
}

/** The body above the first collapsed block. */
function aboveTheFold(body: string): string {
  return body.slice(0, body.indexOf("<details"));
}

describe("the regressed scenario's bullet in the PR comment", () => {
  it("shows the option that went (`--icsv` 100% → 0%), the new command and the failing call's stderr, above the fold", () => {
    const run = decided();
    const top = aboveTheFold(comment(run));
    const bullet = top.slice(top.indexOf("- `s0`"));
    const [first, changes, failure] = bullet.split("\n");
    expect(first).toMatch(/^- `s0`: 3 of 3 head trials failed/);
    expect(changes).toBe(
      "  - Calls vs the base runs: `--icsv` in 100% → 0% of calls; never in the base runs: `cat --ojson` (12 calls).",
    );
    expect(failure).toBe(
      "  - First failed call (trial 1, exit 1): `mlr --ojson cat example-1.csv`: `` mlr: data does not parse as JSON: `a,b` <\u200Bb>*bold*<\u200B/b> @\u200Bteam ``",
    );
  });

  it("adds two lines per regressed scenario, no more", () => {
    const run = decided();
    const { behaviour: _behaviour, ...without } = run.decision;
    const lines = (body: string) => aboveTheFold(body).split("\n").length;
    expect(lines(comment(run)) - lines(comment({ ...run, decision: without }))).toBe(2);
  });

  it("says the base runs' behaviour is not available when their reports predate it", () => {
    const run = decided({ baseRecordsCalls: false });
    expect(aboveTheFold(comment(run))).toContain(
      "  - Calls vs the base runs: not available in the base runs (their reports predate per-call options)",
    );
  });

  it("says how many calls each side made when a side made none, not shares of nothing", () => {
    const diff = decided().decision.behaviour?.[0];
    if (!diff) throw new Error("no behaviour diff");
    const silent = renderBehaviourBrief({ ...diff, head_calls: 0, shares: [], new_commands: [] });
    expect(silent[0]).toBe(
      "  - Calls vs the base runs: 96 calls of the target in 24 base trials, 0 in 3 trials of this run.",
    );
  });

  it("names help lookups only when they moved by half a lookup per trial or more", () => {
    const diff = decided().decision.behaviour?.[0];
    if (!diff) throw new Error("no behaviour diff");
    expect(renderBehaviourBrief(diff).join("\n")).not.toContain("help");
    const moved = renderBehaviourBrief({ ...diff, help_per_trial: { base: 0.25, head: 3 } });
    expect(moved[0]).toContain("help lookups 0.25 → 3 per trial");
  });
});

describe("report.md and report.html", () => {
  it("report.md has the table of shares, the new commands and the failing call's stderr in a fence", () => {
    const run = decided();
    const md = renderReportMarkdown(run.head, { decision: run.decision });
    expect(md).toContain("## What the agent did differently (regressed scenarios, base runs vs this run)");
    expect(md).toContain("| Calls of the target | 96 in 24 trials | 12 in 3 trials |");
    expect(md).toContain("| `--icsv` (option), share of calls | 100% | 0% |");
    expect(md).toContain("Commands never used in the base runs: `cat --ojson` (12 calls).");
    // In a fence, tags and mentions broken by a zero-width space.
    expect(md).toMatch(
      /\n```+\nmlr: data does not parse as JSON: `a,b` <\u200Bb>\*bold\*<\u200B\/b> @\u200Bteam\nsecond line\n```+\n/,
    );
  });

  it("report.html has the same table, every piece of agent text escaped", () => {
    const run = decided();
    const html = renderReportHtml({ report: run.head, decision: run.decision });
    const section = html.slice(html.indexOf('<section id="behaviour">'));
    expect(section).toContain(
      '<tr><td><code>--icsv</code> (option), share of calls</td><td class="num">100%</td><td class="num">0%</td></tr>',
    );
    expect(section).toContain("<code>cat --ojson</code> (12 calls)");
    expect(section).toContain("&lt;b&gt;*bold*&lt;/b&gt;");
    expect(section).not.toContain("<b>");
  });

  it("neither shows the section when nothing regressed", () => {
    const { baseline } = mlrRegression();
    const same = decideRun({ report: baseline.report, baseline, policy });
    expect(renderReportHtml({ report: baseline.report, decision: same.decision })).not.toContain(
      'id="behaviour"',
    );
    expect(renderReportMarkdown(baseline.report, { decision: same.decision })).not.toContain(
      "What the agent did differently",
    );
  });
});
