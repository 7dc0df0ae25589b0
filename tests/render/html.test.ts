import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { compareReports } from "../../src/compare/compare.js";
import { embedJson } from "../../src/render/escape.js";
import { PAGE_SCRIPT } from "../../src/render/html/page-script.js";
import {
  buildTimeline,
  clipText,
  type TimelineStep,
  type TrialView,
} from "../../src/render/html/trial-data.js";
import { buildContentSecurityPolicy, renderReportHtml } from "../../src/render/html.js";
import type { TrialEvent } from "../../src/transcript/events.js";
import { makeInteraction, makeReport, makeScenarioReport, makeTrial } from "../support/report-factory.js";
import {
  CDATA_END,
  CONTROL_PAYLOAD,
  FAILING_EVENTS_PATH,
  IMG_PAYLOAD,
  makeBaselineReport,
  makeFailingTrialEvents,
  makeLargeReport,
  makeSampleEvents,
  makeSampleReport,
  SCRIPT_PAYLOAD,
} from "../support/sample-report.js";
import { decideAndCompare, repeat, suiteOf } from "./decision-fixtures.js";

function readBlob(html: string): { trials: TrialView[] } {
  const match = /<script type="application\/json" id="report-data">([\s\S]*?)<\/script>/.exec(html);
  if (!match) throw new Error("no data blob in the page");
  return JSON.parse(match[1] as string);
}

function staticPart(html: string): string {
  return html.slice(0, html.indexOf(`<script type="application/json"`));
}

function sha256(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("base64");
}

describe("renderReportHtml", () => {
  const report = makeSampleReport();
  const html = renderReportHtml({ report, events: makeSampleEvents() });

  it("is one self-contained document that loads nothing", () => {
    expect(html.startsWith("<!DOCTYPE html>")).toBe(true);
    expect(html).not.toMatch(/https?:\/\//);
    expect(html).not.toMatch(/@import|url\(/);
    const references = [...html.matchAll(/\s(?:src|href)="([^"]*)"/g)].map((m) => m[1]);
    expect(references).toEqual(["data:,"]);
    const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html)?.[1];
    expect(csp).toBe(buildContentSecurityPolicy());
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toContain("unsafe-inline");
  });

  it("allows exactly its own style and script by hash", () => {
    const style = /<style>([\s\S]*?)<\/style>/.exec(html)?.[1];
    const script = /<script>([\s\S]*?)<\/script>/.exec(html)?.[1];
    expect(style).toBeDefined();
    expect(script).toBe(PAGE_SCRIPT);
    const csp = buildContentSecurityPolicy();
    expect(csp).toContain(`style-src 'sha256-${sha256(style as string)}'`);
    expect(csp).toContain(`script-src 'sha256-${sha256(script as string)}'`);
    // No inline style attributes: the CSP would refuse them.
    expect(html).not.toMatch(/\sstyle="/);
  });

  it("escapes report text in the page and keeps agent output inert in the data blob", () => {
    expect(html.match(/<script/g)).toHaveLength(2);
    expect(html).not.toContain(SCRIPT_PAYLOAD);
    expect(html).not.toContain("<img");
    expect(html).not.toContain(`<b>link</b>`);
    expect(html).toContain("Capture two notes and &lt;b&gt;link&lt;/b&gt; them");
    expect(html).toContain("judge score 0.4 &lt; 0.7");
    const blobText = /id="report-data">([\s\S]*?)<\/script>/.exec(html)?.[1] ?? "";
    expect(blobText).not.toMatch(/[<>]/);
    // ...and still carries the text exactly.
    const failing = readBlob(html).trials[1] as TrialView;
    const command = failing.timeline?.find((s) => s.kind === "command");
    expect(command).toMatchObject({ stdout: `created note cap\n${SCRIPT_PAYLOAD}\n${CDATA_END}\n` });
    expect(failing.gates[1]?.message).toContain(IMG_PAYLOAD);
    // Colour codes and NULs read as control pictures rather than blank boxes.
    expect(CONTROL_PAYLOAD).toContain("\u001b[31m");
    expect(failing.gates[2]?.message).toContain("␛[31mred␛[0m and a NUL ␀ here");
    expect(failing.timeline?.[3]).toMatchObject({
      kind: "command",
      stderr: expect.stringContaining("␛[31mred"),
    });
  });

  it("embedJson survives a closing script tag, a comment opener and line separators", () => {
    const value = { a: "</script><!-- \u2028 \u2029 & >" };
    const text = embedJson(value);
    expect(text).not.toMatch(/[<>&\u2028\u2029]/);
    expect(JSON.parse(text)).toEqual(value);
  });

  it("shows the headline, the category table and the scenario table", () => {
    const page = staticPart(html);
    expect(page).toContain("llm-tool-test report");
    expect(page).toContain(`<span class="badge fail">fail</span>`);
    // 3 of 4 evaluated trials passed (the error and the skip are excluded).
    expect(page).toMatch(/<div class="value">75%<\/div><div class="sub">3 of 4 evaluated trial\(s\)/);
    expect(page).toContain(`<table class="sortable" id="category-table">`);
    expect(page).toMatch(
      /<tr><td>capture<\/td><td class="num" data-v="2">2<\/td><td class="num" data-v="1">1<\/td>/,
    );
    expect(page).toMatch(/<tr><td>search<\/td>/);
    expect(page).toContain(`<span class="scenario-id">create_and_link</span>`);
    expect(page).toContain(`<span class="scenario-id">search_notes@terse</span>`);
    // create_and_link: 1 of 2 evaluated passed; Wilson 95% interval [9%, 91%].
    expect(page).toMatch(/data-v="0.5">50% <span class="ci">\[9.5%–91%\]<\/span>/);
    expect(page).toContain(`<span class="badge flaky">flaky 1/2</span>`);
    expect(page).toContain("Failures and errors (2 trials in 1 scenario)");
    const failures = /<section id="failures">[\s\S]*?<\/section>/.exec(page)?.[0] ?? "";
    expect([...failures.matchAll(/data-trial="(\d+)"/g)].map((m) => m[1])).toEqual(["1", "2"]);
    expect(failures).toContain("2 of 3 gates failed; judge score 0.4 &lt; 0.7 · setup failed");
    expect(failures).toContain(
      "failed gates: command_json_path (the two notes are linked) · file_contains · 2 judge issue(s)",
    );
  });

  it("shows each scenario's subcommands pooled over its trials, names escaped", () => {
    const hostile = makeReport([
      makeScenarioReport({
        id: "tool",
        trials: [
          makeTrial({
            trial: 1,
            outcome: "pass",
            by_subcommand: {
              "<img src=x onerror=alert(1)>": makeInteraction({
                total_commands: 2,
                error_count: 1,
                error_rate: 0.5,
              }),
            },
          }),
        ],
      }),
    ]);
    const page = renderReportHtml({ report: hostile, events: {} });
    const section = page.slice(page.indexOf('<section id="subcommands">'));
    expect(section).toContain("<h2>Per subcommand</h2>");
    expect(section).toContain("<code>&lt;img src=x onerror=alert(1)&gt;</code>");
    expect(section).not.toContain("<img src=x");
    expect(section).toMatch(/>2<\/td>.*>1<\/td>.*>50%<\/td>/);
  });

  it("carries the calls command_pattern missed to the trial viewer, as data", () => {
    const missed = "my-tool --help <img src=x onerror=alert(1)>";
    const page = renderReportHtml({
      report: makeReport([
        makeScenarioReport({
          id: "tool",
          trials: [
            makeTrial({ trial: 1, outcome: "pass", command_pattern_misses: [missed] }),
            makeTrial({ trial: 2, outcome: "pass" }),
          ],
        }),
      ]),
      events: {},
    });
    expect(readBlob(page).trials.map((trial) => trial.command_pattern_misses)).toEqual([[missed], []]);
    expect(staticPart(page)).not.toContain("<img src=x");
    expect(PAGE_SCRIPT).toContain("t.command_pattern_misses.join");
  });

  it("numbers the trial chips in the order of the data blob", () => {
    const chips = [
      ...staticPart(html).matchAll(
        /<button type="button" class="chip (\w+)" data-trial="(\d+)"[^>]*>(\d+)</g,
      ),
    ];
    const blob = readBlob(html).trials;
    expect(chips).toHaveLength(6);
    for (const [, outcome, index, trial] of chips) {
      const view = blob[Number(index)] as TrialView;
      expect(view.outcome).toBe(outcome);
      expect(view.trial).toBe(Number(trial));
    }
    expect(blob.map((t) => `${t.scenario}#${t.trial}`)).toEqual([
      "create_and_link#1",
      "create_and_link#2",
      "create_and_link#3",
      "search_notes@terse#1",
      "search_notes@terse#2",
      "search_notes@terse#3",
    ]);
  });

  it("keeps trial details out of the static page (they are drawn when opened)", () => {
    const page = staticPart(html);
    expect(page).not.toContain("<details");
    expect(page).not.toContain("created note cap");
    const blob = readBlob(html).trials;
    expect(blob[0]?.timeline?.[0]).toMatchObject({ kind: "setup", command: "my-tool init", exit_code: 0 });
    expect(blob[2]?.timeline).toBeNull();
    expect(blob[1]?.judge).toMatchObject({
      score: 0.4,
      issues: ["Never linked the notes", `Printed ${SCRIPT_PAYLOAD} to the user`],
    });
    expect(blob[1]?.invocations.map((i) => i.exit_code)).toEqual([0, 2]);
  });

  it("draws each pass rate as a dot on its Wilson whisker, worst first", () => {
    const chart = /<svg class="chart pass-rate-chart"[\s\S]*?<\/svg>/.exec(html)?.[0] ?? "";
    const dots = [...chart.matchAll(/<circle class="dot (\w+)" cx="([\d.]+)"/g)].map((m) => [
      m[1],
      Number(m[2]),
    ]);
    // Plot spans x 272..720: 50% at 496, 100% at 720.
    expect(dots).toEqual([
      ["mid", 496],
      ["pass", 720],
    ]);
    const whisker = /<line class="whisker" x1="([\d.]+)" x2="([\d.]+)"/.exec(chart);
    const s = report.scenarios[0]?.summary;
    expect(Number(whisker?.[1])).toBeCloseTo(272 + (s?.pass_rate_ci_low ?? 0) * 448, 0);
    expect(Number(whisker?.[2])).toBeCloseTo(272 + (s?.pass_rate_ci_high ?? 0) * 448, 0);
  });

  it("adds the baseline section and the delta chart when a comparison is given", () => {
    const comparison = compareReports(makeBaselineReport(), report);
    const withBase = renderReportHtml({ report, events: makeSampleEvents(), comparison });
    expect(withBase).toContain(`<section id="comparison"><h2>Against the baseline</h2>`);
    const chart = /<svg class="chart delta-chart"[\s\S]*?<\/svg>/.exec(withBase)?.[0] ?? "";
    expect(chart.match(/<g class="chart-row">/g)).toHaveLength(comparison.suite.metrics.length);
    expect(chart).toContain("pass rate");
    expect(withBase).toContain(`<table class="sortable" id="comparison-table">`);
    expect(withBase).toContain("Δ vs base");
    const passRate = comparison.scenarios[0]?.metrics.find((m) => m.metric === "pass_rate");
    expect(passRate?.delta).toBeCloseTo(-0.5);
    expect(withBase).toMatch(/data-v="-0.5"[^>]*>−50 pts/);

    const none = renderReportHtml({ report, comparison: null });
    expect(none).toContain("No baseline report to compare against.");
    expect(none).not.toContain(`id="comparison"`);
    expect(html).not.toContain("No baseline report");
  });

  it("marks an incomplete run", () => {
    const incomplete = makeSampleReport();
    incomplete.run.incomplete = true;
    expect(renderReportHtml({ report: incomplete })).toContain("This run is <strong>incomplete</strong>");
  });

  it("stays light for 1,000 scenarios × 5 trials: one table row and five chips per scenario, details in the blob", () => {
    const large = makeLargeReport(1000, 5);
    const page = renderReportHtml({ report: large });
    const visible = staticPart(page);
    expect(visible.match(/<tr data-search=/g)).toHaveLength(1000);
    const table = /<table class="sortable" id="scenario-table">[\s\S]*?<\/table>/.exec(visible)?.[0] ?? "";
    expect(table.match(/class="chip /g)).toHaveLength(5000);
    // The failures list: one entry per scenario with failures (every fifth), its two failing trials.
    const failures = /<section id="failures">[\s\S]*?<\/section>/.exec(visible)?.[0] ?? "";
    expect(failures.match(/<li>/g)).toHaveLength(200);
    expect(failures.match(/class="chip fail"/g)).toHaveLength(400);
    expect(visible).not.toContain("<details");
    expect(readBlob(page).trials).toHaveLength(5000);
    expect(page.length).toBeLessThan(6_000_000);
  });

  it("clips long outputs in the page, keeping the head and the tail", () => {
    const long = `HEAD${"x".repeat(50_000)}TAIL`;
    const clipped = clipText(long, 1000);
    expect(clipped.startsWith("HEADx")).toBe(true);
    expect(clipped.endsWith("xTAIL")).toBe(true);
    expect(clipped).toContain("characters not shown here");
    expect(clipped.length).toBeLessThan(1200);
    expect(clipText("short\ttabs\r\nand lines", 1000)).toBe("short\ttabs\r\nand lines");
  });

  it("parses as a script (the browser test runs it)", () => {
    expect(() => new Function(PAGE_SCRIPT)).not.toThrow();
  });
});

describe("buildTimeline", () => {
  it("pairs each command with its result and keeps turns and the end in order", () => {
    const steps = buildTimeline(makeFailingTrialEvents(), 20_000);
    expect(steps.map((s) => s.kind)).toEqual(["turn", "command", "turn", "command", "turn", "end"]);
    const commands = steps.filter(
      (s): s is Extract<TimelineStep, { kind: "command" }> => s.kind === "command",
    );
    expect(commands.map((c) => [c.command, c.exit_code])).toEqual([
      ['my-tool create "CAP theorem"', 0],
      ["my-tool link cap paxos", 2],
    ]);
    expect(commands[1]?.stderr).toContain('no note named "paxos"');
  });

  it("shows a call that never returned as having no result", () => {
    const steps = buildTimeline(
      [{ type: "tool_call", call_id: "x", turn: 1, command: "sleep 100", ts: "", t_ms: 0 }],
      100,
    );
    expect(steps).toEqual([expect.objectContaining({ kind: "command", exit_code: null, duration_ms: null })]);
  });

  it("does not break on event lines with missing fields", () => {
    const odd = [
      { type: "model_response", turn: 1 },
      { type: "tool_call", call_id: "a" },
      { type: "tool_result", call_id: "a" },
      { type: "target_invocation" },
      { type: "trial_end" },
    ] as unknown as TrialEvent[];
    const steps = buildTimeline(odd, 100);
    expect(steps.map((s) => s.kind)).toEqual(["turn", "command", "end"]);
    const report = makeSampleReport();
    const events = { [FAILING_EVENTS_PATH]: odd };
    expect(() => renderReportHtml({ report, events })).not.toThrow();
  });
});

describe("the decision card", () => {
  it("shows inconclusive as its own verdict, never as a pass, with what would make it conclusive", () => {
    const report = suiteOf(repeat(5, 3, 3));
    const { decision, comparison } = decideAndCompare(report, suiteOf(repeat(5, 3, 3)));
    expect(decision.basis).toBe("inconclusive");
    const html = staticPart(renderReportHtml({ report, comparison, decision }));
    const card =
      /<div class="card ([a-z]+)"><div class="label">Against baseline<\/div><div class="value">([^<]*)<\/div><div class="sub">([^<]*)<\/div><\/div>/.exec(
        html,
      );
    expect(card?.[1]).toBe("warn");
    expect(card?.[2]).toBe("inconclusive");
    expect(card?.[3]).toBe(
      `no regression seen; conclusive with ${decision.inconclusive!.needs.join(" and ")}`,
    );
  });
});
