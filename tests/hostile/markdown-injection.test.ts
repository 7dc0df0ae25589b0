/**
 * Hostile: agent- and author-controlled text is inert in every rendering (issue #16, break 5).
 * The injection strings go in as gate messages, output excerpts, trial reasons, judge rationales,
 * scenario ids, variants, categories, descriptions, subcommands, model names and transcript
 * events; the rendered report.md, PR comment, job summary, comparison.md, transcript.md and the
 * terminal text are checked for the properties that must hold: our `<details>` blocks balance,
 * our marker is the comment's only HTML comment and comes first, no mention, no tag, no
 * `javascript:` link, no control character, table rows keep their cells, fenced excerpts stay shut.
 */
import { describe, expect, it } from "vitest";
import { createProgressReporter } from "../../src/cli/progress.js";
import { diffRegressedBehaviour } from "../../src/compare/behaviour-diff.js";
import { compareReports } from "../../src/compare/compare.js";
import { decide } from "../../src/compare/decision.js";
import { evaluateGates } from "../../src/evaluate/gates.js";
import { type Invocation, quoteShellWord, readTargetCall } from "../../src/evaluate/invocations.js";
import { renderComparisonMarkdown, renderComparisonTerminal } from "../../src/render/comparison-markdown.js";
import { renderJobSummary } from "../../src/render/job-summary.js";
import { type CommentInput, formatCommentMarker, renderComment } from "../../src/render/pr-comment.js";
import { renderReportMarkdown } from "../../src/render/report-markdown.js";
import { renderTerminalSummary } from "../../src/render/terminal.js";
import { renderTranscriptMarkdown } from "../../src/render/transcript-markdown.js";
import type { GateResult, Report, ScenarioReport, TrialReport } from "../../src/results/types.js";
import { createEventLog } from "../support/event-builder.js";
import { makeReport, makeScenarioReport, makeTrial, trialsFrom } from "../support/report-factory.js";

const MARKER = formatCommentMarker("llm-tool-test");

/** Each on its own: a block closer, a comment opener, a mention, tags, a link, controls, a fence, a row, our marker. */
const INJECTIONS = [
  "</details>",
  "<!-- ",
  "@someone",
  "<img src=x onerror=alert(1)>",
  "[x](javascript:alert(1))",
  "NUL\u0000byte",
  "\u001b[2J\u001b[31mred",
  "abc\u202Eevil",
  "| a | b |",
  MARKER,
  "#123 GH-45",
  // Links GitHub would make of plain text (issue #25, break 9): a bare URL, an angle autolink, www.
  "see https://evil.example/x",
  "<http://evil.example/angle>",
  "www.evil.example/w",
  "[y](https://evil.example/z)",
];
/** The injections on one line (names, labels, rationales). */
const ONE_LINE = INJECTIONS.join(" ");
/** The injections over several lines, with fence lines of every length around a word that must stay in code. */
const MANY_LINES = ["first line", ...INJECTIONS, "```", "FENCED_WORD", "````````````````````", "~~~"].join(
  "\n",
);

/**
 * The behaviour gates' own messages, which quote the agent's calls: a failing call whose argv holds
 * the injections, recorded twice, judged by each of them.
 */
async function judgeHostileCalls(): Promise<GateResult[]> {
  const argv = ["tool", "--force", ONE_LINE, MANY_LINES];
  const call: Invocation = {
    command: argv.map(quoteShellWord).join(" "),
    argv,
    ...readTargetCall(argv, { binary: "tool", env: {} }),
    exit_code: 1,
    duration_ms: 1,
  };
  const results = await evaluateGates(
    [
      { type: "forbidden_commands", options: ["--force"], weight: 1 },
      { type: "max_invocations", subcommands: { [ONE_LINE]: 1 }, weight: 1 },
      { type: "no_loops", repeats: 2, weight: 1 },
    ],
    {
      sandbox: {
        runGateCommand: () => Promise.reject(new Error("not used")),
        gateFiles: { root: "/nonexistent", workDir: "/nonexistent", absoluteLinks: "host" },
      },
      events: [],
      invocations: [call, call],
      invocationSource: "shim",
      recordedCalls: [call, call],
      scriptEnv: {},
      gateTimeoutMs: 1000,
    },
  );
  if (results.some((result) => result.passed)) throw new Error("every behaviour gate must fail here");
  return results;
}
const BEHAVIOUR_GATES = await judgeHostileCalls();

function hostileTrials(outcome: "fail" | "error", count: number): TrialReport[] {
  return Array.from({ length: count }, (_, i) =>
    makeTrial({
      trial: i + 1,
      outcome,
      reason: i === 0 ? MANY_LINES : ONE_LINE,
      end_reason: outcome === "error" ? "infra_error" : "natural_stop",
      gates: [
        {
          gate_type: "stdout_contains",
          passed: false,
          message: MANY_LINES,
          weight: 1,
          description: ONE_LINE,
        },
        { gate_type: "exit_code", passed: false, message: ONE_LINE, weight: 1 },
        ...BEHAVIOUR_GATES,
      ],
      gates_total: 2 + BEHAVIOUR_GATES.length,
      judge_response: {
        scores: { correctness: 0.1 },
        weighted_score: 0.1,
        confidence: 0.9,
        issues: [ONE_LINE, MANY_LINES],
        highlights: [ONE_LINE],
      },
      by_subcommand: { [ONE_LINE]: makeTrial({ trial: 1, outcome: "pass" }).interaction },
      // Option names, command shapes and the failed call's stderr: the behaviour diff shows them.
      behaviour: {
        options: { [ONE_LINE]: 1 },
        shapes: { [ONE_LINE]: 1 },
        first_failure: { command: ONE_LINE, exit_code: 1, stderr: MANY_LINES },
      },
      transcript_path: `trials/${ONE_LINE}/transcript.md`,
    }),
  );
}

function hostileScenario(id: string, variant: string | null, trials: TrialReport[]): ScenarioReport {
  return makeScenarioReport({ id, variant, category: ONE_LINE, description: ONE_LINE, trials });
}

function reports(): { head: Report; base: Report } {
  const passing = trialsFrom(Array.from({ length: 5 }, () => ({ outcome: "pass" as const })));
  const run = { agent: `agent ${ONE_LINE}`, judge_model: ONE_LINE, harness_version: ONE_LINE };
  const head = makeReport(
    [
      hostileScenario(ONE_LINE, null, hostileTrials("fail", 5)),
      hostileScenario("guided", "v1", passing),
      hostileScenario("guided", ONE_LINE, hostileTrials("error", 2)),
    ],
    { ...run, model: `model ${ONE_LINE}` },
  );
  const base = makeReport(
    [hostileScenario(ONE_LINE, null, passing), hostileScenario("guided", "v1", passing)],
    { ...run, model: "claude-sonnet-4-5" },
  );
  return { head, base };
}

function renderAll() {
  const { head, base } = reports();
  const decided = decide({ head, baseline: base });
  const decision = { ...decided, behaviour: diffRegressedBehaviour(base, head, decided.regressed) };
  const comparison = compareReports(base, head, { bootstrapResamples: 200, permutationResamples: 200 });
  const input: CommentInput = {
    key: "llm-tool-test",
    report: head,
    decision,
    comparison,
    baseline: { status: "missing", reason: "none yet" },
    runUrl: null,
    artifactUrl: null,
    headSha: null,
    now: 0,
  };
  const log = createEventLog();
  log.push({
    type: "trial_start",
    scenario_id: ONE_LINE,
    variant: ONE_LINE,
    trial: 1,
    agent: ONE_LINE,
    model: ONE_LINE,
    sandbox: "local",
  } as never);
  log.push({ type: "prompt", task: MANY_LINES, system_prompt: MANY_LINES } as never);
  log.push({
    type: "model_response",
    turn: 1,
    stop_reason: ONE_LINE,
    usage: { input_tokens: 1, output_tokens: 1, cache_read_tokens: 0, cache_write_tokens: 0 },
    text: MANY_LINES,
    tool_uses: [],
    duration_ms: 1,
  } as never);
  log.push({
    type: "model_error",
    attempt: 1,
    status: 500,
    message: ONE_LINE,
    will_retry: false,
  } as never);
  log.call(ONE_LINE, 1, { stdout: MANY_LINES, stderr: MANY_LINES });
  log.shim([ONE_LINE, "a|b", "x\\|y"], 1);
  log.push({ type: "agent_output", text: MANY_LINES } as never);
  log.end("infra_error", 10, 1, MANY_LINES);
  return {
    markdown: {
      "report.md": renderReportMarkdown(head, { decision }),
      comment: renderComment(input),
      "job summary": renderJobSummary(input),
      "comparison.md": renderComparisonMarkdown(comparison, decision),
      "transcript.md": renderTranscriptMarkdown(log.events),
    },
    terminal: {
      plain: renderTerminalSummary(head, { decision }),
      coloured: renderTerminalSummary(head, { decision, color: true }),
      comparison: renderComparisonTerminal(comparison, decision, { color: true }),
    },
  };
}

const rendered = renderAll();

it("renders the regressed scenario's behaviour diff, hostile names and stderr included", () => {
  expect(rendered.markdown["report.md"]).toContain("What the agent did differently");
  expect(rendered.markdown.comment).toContain("  - First failed call (trial 1, exit 1): ");
});
const markdownOutputs = Object.entries(rendered.markdown);

it("feeds the behaviour gates' messages, which quote the hostile argv, into the report", () => {
  expect(BEHAVIOUR_GATES.map((gate) => gate.message)).toEqual([
    expect.stringMatching(/^2 of 2 target invocations used what is forbidden: "tool --force /),
    expect.stringMatching(/^".*called 2 times \(at most 1\), first "tool --force /),
    expect.stringMatching(
      /^the same failing call ran 2 or more times: "tool --force .*.* failed 2 times \(exit 1\)$/,
    ),
  ]);
  expect(rendered.markdown["report.md"]).toContain("used what is forbidden");
});

/** The Markdown with fenced blocks and code spans taken out (what GitHub renders as Markdown and HTML). */
function outsideCode(markdown: string): string {
  const kept: string[] = [];
  let fence: string | null = null;
  for (const line of markdown.split("\n")) {
    const run = /^ {0,3}(`{3,}|~{3,})\s*$/.exec(line)?.[1] ?? /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === null) {
      if (run) fence = run;
      else kept.push(line);
    } else if (run && run[0] === fence[0] && run.length >= fence.length && /^ {0,3}[`~]+\s*$/.test(line)) {
      fence = null;
    }
  }
  expect(fence, "every fenced block is closed").toBeNull();
  // A code span: a backtick run (not escaped) up to the next run of the same length.
  return kept.join("\n").replace(/(?<![`\\])(`+)(?!`)[\s\S]*?(?<!`)\1(?!`)/g, "");
}

/** A table row's cells as GFM splits them: on `|` that is not escaped (a backslash escapes the next character). */
function cellCount(line: string): number {
  let count = 0;
  for (let i = 0; i < line.length; i += 1) {
    if (line[i] === "\\") i += 1;
    else if (line[i] === "|") count += 1;
  }
  return count;
}

const CONTROLS = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]/;

describe.each(markdownOutputs)("%s", (name, markdown) => {
  it("carries the injections (the test feeds what it claims to)", () => {
    expect(markdown).toContain("someone");
    expect(markdown).toContain("onerror");
    expect(markdown).toContain("javascript:alert(1)");
  });

  it("has no HTML comment but the comment's own marker, first and once", () => {
    if (name === "comment") {
      expect(markdown.startsWith(`${MARKER}\n`)).toBe(true);
      expect(markdown.split("<!--")).toHaveLength(2);
    } else {
      expect(markdown).not.toContain("<!--");
    }
  });

  it("opens and closes its own <details> blocks in balance", () => {
    let depth = 0;
    for (const tag of markdown.match(/<\/?details\b/g) ?? []) {
      depth += tag === "<details" ? 1 : -1;
      expect(depth).toBeGreaterThanOrEqual(0);
    }
    expect(depth).toBe(0);
  });

  it("holds no tag, mention, issue reference, link or control character of the injections", () => {
    expect(markdown).not.toMatch(/<img|<script|<\/?a\b/i);
    expect(markdown).not.toContain("@someone");
    expect(markdown).not.toMatch(/#123|GH-45/);
    expect(markdown).not.toMatch(CONTROLS);
    // The sequence goes whole (a JSON-quoted argv may show it as the text "\u001b[2J", its `[`
    // escaped in prose: no ESC in that).
    expect(markdown).not.toMatch(/(?<!\\u001b\\?)\[2J/);
    // Outside code, brackets are escaped: no link can form.
    const prose = outsideCode(markdown);
    for (const line of prose.split("\n")) expect(line).not.toMatch(/(?<!\\)\]\(javascript:/);
    expect(prose).not.toMatch(/(?<!\\)\[x/);
  });

  it("makes no link of the agent's URLs: no autolink, no angle link, no www. link", () => {
    expect(markdown).toContain("evil.example/x");
    const prose = outsideCode(markdown);
    // GitHub autolinks http(s):// and www. in text; a zero-width space before the domain stops it.
    expect(prose).not.toMatch(/https?:\/\/evil/i);
    expect(prose).not.toMatch(/(?<![\w\u200B])www\.evil/i);
    expect(prose).not.toMatch(/<https?:/i);
    for (const line of prose.split("\n")) expect(line).not.toMatch(/(?<!\\)\]\(https?:/);
  });

  it("keeps multi-line excerpts inside their fence whatever fences they hold", () => {
    // comparison.md carries names only, no excerpts.
    if (name !== "comparison.md") expect(markdown).toContain("FENCED_WORD");
    // Flattened into one line of prose it is escaped text; on a line of its own only inside a fence.
    const ownLine = outsideCode(markdown)
      .split("\n")
      .filter((line) => line.trim() === "FENCED_WORD");
    expect(ownLine).toEqual([]);
  });

  it("keeps every table row to its header's cells", () => {
    let header: number | null = null;
    for (const line of markdown.split("\n")) {
      if (!line.startsWith("|")) {
        header = null;
        continue;
      }
      header ??= cellCount(line);
      expect(cellCount(line), line).toBe(header);
    }
  });
});

describe("terminal output", () => {
  it("passes no escape sequence of the agent's: without colour there is no ESC at all", () => {
    expect(rendered.terminal.plain).toContain("someone");
    expect(rendered.terminal.plain).not.toContain("\u001b");
    expect(rendered.terminal.plain).not.toMatch(/[\u0000\u0080-\u009F\u202A-\u202E\u2066-\u2069]/);
  });

  it("keeps its own colours and only those", () => {
    for (const text of [rendered.terminal.coloured, rendered.terminal.comparison]) {
      expect(text).toContain("\u001b[31m");
      const sequences = text.match(/\u001b[^m]*m?/g) ?? [];
      for (const sequence of sequences) expect(sequence).toMatch(/^\u001b\[(0|2|31|32|33)m$/);
      expect(text).toContain("␛[2J");
      expect(text).not.toMatch(/[\u0000\u0080-\u009F\u202A-\u202E\u2066-\u2069]/);
    }
  });

  it("prints progress lines of hostile scenario keys without their escape sequences", () => {
    for (const isTTY of [false, true]) {
      let written = "";
      const progress = createProgressReporter({ isTTY, columns: 400, write: (t: string) => (written += t) });
      const key = `${ONE_LINE}#1`;
      progress.onProgress({
        type: "plan",
        trials: 1,
        scenarios: 1,
        resumed: 0,
        estimatedCostUsd: null,
      } as never);
      progress.onProgress({ type: "trial_start", key, scenarioKey: ONE_LINE, trial: 1 });
      progress.onProgress({ type: "turn", key, turn: 2 });
      progress.onProgress({ type: "note", message: ONE_LINE });
      progress.onProgress({ type: "stopping", reason: ONE_LINE });
      progress.onProgress({
        type: "trial_end",
        key,
        report: makeTrial({ trial: 1, outcome: "fail" }),
        done: 1,
        total: 1,
      });
      progress.finish();
      expect(written).toContain("someone");
      expect(written).not.toContain("\u001b");
      expect(written).not.toMatch(/[\u0000\u0080-\u009F\u202A-\u202E\u2066-\u2069]/);
    }
  });
});
