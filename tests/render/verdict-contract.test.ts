/**
 * One decision, the same verdicts everywhere (issue 34): one fixture — a head run against pooled
 * base runs with a regressed, an improved, unchanged, an errored and a not-compared scenario — goes
 * through every format of the registry (src/render/formats.ts) and the comment, the job summary and
 * the comparison's terminal text; each scenario's verdict word is read back from each output and
 * must be the decision's. The extractors are keyed by format name, so a new format fails to compile
 * here until this test can read it (or it says why it shows no verdicts).
 */
import { describe, expect, it } from "vitest";
import { buildOutputs } from "../../src/action/outputs.js";
import { type Decision, decide, defaultFailOn, type ScenarioVerdict } from "../../src/compare/decision.js";
import { exitCodeForDecision } from "../../src/compare/exit-status.js";
import { renderComparisonTerminal } from "../../src/render/comparison-markdown.js";
import { VERDICT_WORDS } from "../../src/render/decision.js";
import { FORMAT_NAMES, type FormatInput, type FormatName, OUTPUT_FORMATS } from "../../src/render/formats.js";
import { renderJobSummary } from "../../src/render/job-summary.js";
import { type BaselineNote, renderComment } from "../../src/render/pr-comment.js";
import type { Report } from "../../src/results/types.js";
import { makeReport, makeScenarioReport, trialsFrom } from "../support/report-factory.js";
import { decideAndCompare, pooledBaseline, scenarioWith } from "./decision-fixtures.js";

const WORDS = Object.values(VERDICT_WORDS);
const WORD = `(${WORDS.join("|")})`;
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

type Verdicts = Map<string, string>;
/** Reads each scenario's verdict word from one output; null: the format shows no verdicts (and says why in `why`). */
type Extractor = { read: (text: string, keys: readonly string[]) => Verdicts } | { none: string };

/** Each key's first match of `pattern(key)`, group 1 the verdict word. */
function readEach(text: string, keys: readonly string[], pattern: (key: string) => RegExp): Verdicts {
  const found: Verdicts = new Map();
  for (const key of keys) {
    const match = pattern(escapeRegExp(key)).exec(text);
    if (match) found.set(key, match[1]!);
  }
  return found;
}

/** The scope line's "Not compared, no verdict (…): … `s4` 0/3 …" (Markdown, HTML or plain): those keys are not compared. */
function readNotCompared(text: string, keys: readonly string[], code: (key: string) => string): Verdicts {
  const line = text.split("\n").find((l) => l.includes("Not compared, no verdict")) ?? "";
  return new Map(keys.filter((k) => line.includes(code(k))).map((k) => [k, VERDICT_WORDS.not_compared]));
}

const markdownScope = (text: string, keys: readonly string[]) =>
  readNotCompared(text, keys, (k) => `\`${k}\``);

/** The comparison's per-scenario details (comparison.md, the comment, the job summary): "<code>k</code> · 3/3 → 0/3 · 🔴 regressed". */
function readDetails(text: string, keys: readonly string[]): Verdicts {
  const rows = readEach(
    text,
    keys,
    // A gate's regression names the gate: "🔴 <code>input_tokens</code> regressed".
    (k) => new RegExp(`<summary><code>${k}</code> · [^<]*?(?:🔴 |🟢 )?(?:<code>[^<]*</code> )?${WORD}`, "u"),
  );
  return new Map([...markdownScope(text, keys), ...rows]);
}

/** Every line, table row or JSON scenario entry that names the key (its pass rate's verdict lives there). */
function rowsNaming(text: string, key: string): string[] {
  if (text.trimStart().startsWith("{")) {
    const parsed = JSON.parse(text) as {
      scenarios?: Array<{ key: string; metrics: Array<{ metric: string }> }>;
    };
    return (parsed.scenarios ?? [])
      .filter((s) => s.key === key)
      .map((s) => JSON.stringify(s.metrics.find((m) => m.metric === "pass_rate")));
  }
  const name = new RegExp(`(scenario-id">|\u0060|<code>|name="|^\\S+ +)${escapeRegExp(key)}\\b`, "m");
  return text.split(/\n|<\/tr>/).filter((row) => name.test(row));
}

const EXTRACTORS: Record<FormatName, Extractor> = {
  json: { none: "the report alone: the decision and its verdicts are comparison.json's" },
  atif: { none: "trial trajectories, one per trial: no comparison" },
  "otel-json": { none: "trial spans, one per trial: no comparison" },
  history: {
    none: "each run's pass rate and the treatment changes: the decision's verdicts are the report's",
  },
  md: {
    read: (text, keys) =>
      new Map([
        ...markdownScope(text, keys),
        ...readEach(
          text,
          keys,
          (k) => new RegExp(`^\\| \`${k}\` \\| [^|]+ \\| (?:🔴 |🟢 )?${WORD} \\|`, "mu"),
        ),
      ]),
  },
  junit: {
    read: (text, keys) =>
      readEach(
        text,
        keys,
        (k) => new RegExp(`<testsuite name="${k}"[^>]*>[\\s\\S]*?<property name="verdict" value="${WORD}"/>`),
      ),
  },
  html: {
    read: (text, keys) =>
      new Map([
        ...readNotCompared(text, keys, (k) => `<code>${k}</code>`),
        ...readEach(
          text,
          keys,
          (k) =>
            new RegExp(
              `<tr><td data-v="${k}"><span class="scenario-id">${k}</span>.*?class="decision-verdict[^"]*">(?:🔴 |🟢 )?${WORD}<`,
              "u",
            ),
        ),
      ]),
  },
  terminal: {
    read: (text, keys) =>
      new Map([
        ...readNotCompared(text, keys, (k) => `\`${k}\``),
        ...readEach(text, keys, (k) => new RegExp(`^\\S+ +${k} .*vs base: ${WORD}`, "m")),
      ]),
  },
  "comparison-json": {
    read: (text) => {
      const parsed = JSON.parse(text) as {
        decision: { scenarios: Array<{ key: string; verdict: ScenarioVerdict }> };
      };
      return new Map(parsed.decision.scenarios.map((s) => [s.key, VERDICT_WORDS[s.verdict]]));
    },
  },
  "comparison-md": { read: readDetails },
};

/** Base runs: s0–s4 at 3/3 (12,000 input tokens a trial) in each of 8 runs except s1 (0/3: the head fixes it). The head adds s6, which no base run has. */
function buildFixture() {
  const base = pooledBaseline(6, 8, 3, (scenario) => (scenario === 1 ? 0 : 3));
  const errored = makeScenarioReport({
    id: "s5",
    trials: trialsFrom([{ outcome: "error" }, { outcome: "error" }, { outcome: "error" }]),
  });
  const head = makeReport([
    scenarioWith("s0", 0, 3), // regressed: 24/24 → 0/3
    scenarioWith("s1", 3, 3), // improved: 0/24 → 3/3
    scenarioWith("s2", 3, 3), // unchanged
    scenarioWith("s3", 2, 3), // a shrug: 24/24 → 2/3, no clear change
    // regressed by its own tolerance gate: passes as before, with 2.5× the base's input tokens.
    scenarioWith("s4", 3, 3, { input_tokens: 30_000 }, { tolerance_gates: { input_tokens: 0.2 } }),
    errored, // not tested: no evaluated head trial
    scenarioWith("s6", 1, 3), // not compared: not in the base runs
  ]);
  const { decision, comparison } = decideAndCompare(head, base.report, { pooling: base.pooling });
  return { head, decision, comparison: comparison! };
}

const BASELINE_NOTE: BaselineNote = {
  status: "found",
  source: {
    kind: "auto",
    sha: null,
    runId: 1,
    runNumber: 1,
    runUrl: null,
    file: "baseline/report.json",
    artifactId: 1,
    createdAt: "2026-01-01T00:00:00.000Z",
    matchesBaseSha: true,
  },
  baseRef: "main",
  baseSha: null,
  moreRuns: 7,
};

function layoutOf(report: Report, decision: Decision, comparison: FormatInput["comparison"]) {
  return {
    report,
    decision,
    comparison: comparison ?? null,
    baseline: BASELINE_NOTE,
    runUrl: null,
    artifactUrl: null,
    headSha: null,
    now: Date.parse("2026-01-02T00:00:00.000Z"),
  };
}

/** Every surface that shows the decision: the registry's formats, then the comment, the job summary and `compare`'s text. */
function renderEverySurface(report: Report, decision: Decision, comparison: FormatInput["comparison"]) {
  const input: FormatInput = { report, decision, ...(comparison ? { comparison } : {}), events: {} };
  const surfaces = FORMAT_NAMES.filter((name) => comparison || !OUTPUT_FORMATS[name].needsComparison).map(
    (name) => ({
      name: name as string,
      text: OUTPUT_FORMATS[name].render(input),
      extractor: EXTRACTORS[name],
    }),
  );
  const layout = layoutOf(report, decision, comparison);
  surfaces.push(
    { name: "comment", text: renderComment({ key: "suite", ...layout }), extractor: { read: readDetails } },
    { name: "job summary", text: renderJobSummary(layout), extractor: { read: readDetails } },
  );
  if (comparison) {
    surfaces.push({
      name: "compare (terminal)",
      text: renderComparisonTerminal(comparison, decision),
      // Only the scenarios that moved are listed, without icons.
      extractor: {
        read: (text, keys) => readEach(text, keys, (k) => new RegExp(`^ +${k} .*  ${WORD}`, "m")),
      },
    });
  }
  return surfaces;
}

describe("one decision, the same verdict in every rendering", () => {
  const { head, decision, comparison } = buildFixture();
  const expected = new Map(decision.scenarios.map((s) => [s.key, VERDICT_WORDS[s.verdict]]));
  const keys = [...expected.keys()];

  it("builds a fixture with every kind of verdict", () => {
    expect(Object.fromEntries(decision.scenarios.map((s) => [s.key, s.verdict]))).toEqual({
      s0: "regressed",
      s1: "improved",
      s2: "no_clear_change",
      s3: "no_clear_change",
      s4: "regressed",
      s5: "not_tested",
      s6: "not_compared",
    });
  });

  it("has an extractor, or a reason for none, for every format in the registry", () => {
    expect(Object.keys(EXTRACTORS).sort()).toEqual([...FORMAT_NAMES].sort());
  });

  for (const surface of renderEverySurface(head, decision, comparison)) {
    it(`${surface.name}: every scenario's verdict is the decision's`, () => {
      if ("none" in surface.extractor) {
        // A format without verdicts shows none of its own either.
        expect(surface.text).not.toMatch(/"verdict"|no clear change|🟢|🔴/u);
        return;
      }
      const found = surface.extractor.read(surface.text, keys);
      for (const [key, word] of found) expect(`${key}: ${word}`).toBe(`${key}: ${expected.get(key)}`);
      // The regression and the improvement are shown everywhere; the files list every scenario.
      expect(found.get("s0")).toBe("regressed");
      expect(found.get("s1")).toBe("improved");
      if (surface.name !== "compare (terminal)")
        expect(found.get("s4"), "the tolerance gate").toBe("regressed");
      if (surface.name !== "compare (terminal)") {
        expect([...found.keys()].sort(), "every scenario has a verdict here").toEqual(
          keys.filter((k) => surface.name !== "html" || k !== "s6" || found.has(k)).sort(),
        );
      }
      // A regressed or improved scenario is never "inconclusive" anywhere (other metrics' intervals may be).
      for (const key of ["s0", "s1"]) {
        for (const row of rowsNaming(surface.text, key))
          expect(row, `${surface.name}, ${key}`).not.toMatch(/inconclusive/i);
      }
    });
  }

  it("the tolerance gate that failed s4 is named with its limit where the decision is explained", () => {
    expect(decision.regressed_metrics).toEqual([{ metric: "input_tokens", scenarios: ["s4"] }]);
    const layout = layoutOf(head, decision, comparison);
    for (const [name, text] of [
      ["comment", renderComment({ key: "suite", ...layout })],
      [
        "comparison-md",
        OUTPUT_FORMATS["comparison-md"].render({ report: head, decision, comparison, events: {} }),
      ],
    ] as const) {
      expect(text, name).toMatch(/in `input_tokens` of `s4`: 12k → 30k \(limit \+20%, adjusted p/);
      expect(text, name).toMatch(
        /\| input tokens \| 12k \| 30k \| \+18k \[[^\]]+\] · limit \+20%, adjusted p [^|]*🔴 regressed \|/u,
      );
    }
  });

  it("the action's decision output carries the same verdicts and improvements", () => {
    const outputs = buildOutputs({
      report: head,
      reportPath: "out/report.json",
      comparison,
      decision,
      baseline: BASELINE_NOTE,
      artifactId: null,
      artifactUrl: null,
      commentUrl: null,
    });
    const output = JSON.parse(outputs.decision) as Record<string, unknown>;
    expect(output).toMatchObject({
      failed: true,
      regressed: ["s0"],
      improved: ["s1"],
      suite_improved: false,
    });
    expect(output.suite_verdict).toBe(decision.suite_verdict);
    expect(output.verdicts).toEqual(Object.fromEntries(decision.scenarios.map((s) => [s.key, s.verdict])));
  });

  it("marks the improvement 🟢 wherever icons are shown, and never the shrug", () => {
    const surfaces = renderEverySurface(head, decision, comparison);
    for (const name of ["md", "html", "comparison-md", "comment", "job summary"]) {
      const text = surfaces.find((s) => s.name === name)!.text;
      expect(text, name).toMatch(/🟢 improved/u);
      expect(text, `${name}: the shrug s3 is not improved`).not.toMatch(/`s3`[^\n]*🟢|>s3<\/code>[^\n]*🟢/u);
    }
    // The gate reads none of it: the check fails for s0 alone, and would without the improvement.
    const fixedOnly = decide({
      head: makeReport(head.scenarios.map((s) => (s.id === "s1" ? scenarioWith("s1", 0, 3) : s))),
      baseline: pooledBaseline(6, 8, 3, (scenario) => (scenario === 1 ? 0 : 3)).report,
      pooling: pooledBaseline(6, 8, 3, (scenario) => (scenario === 1 ? 0 : 3)).pooling,
    });
    expect(decision.failed).toBe(true);
    expect(decision.regressed).toEqual(["s0"]);
    expect(fixedOnly.failed).toBe(decision.failed);
    expect(exitCodeForDecision(decision)).toBe(exitCodeForDecision(fixedOnly));
  });

  it("report.html's baseline table and suite row agree with a −60-point drop the suite test called a regression", () => {
    const base = pooledBaseline(10, 8, 3);
    const drop = makeReport(Array.from({ length: 10 }, (_, i) => scenarioWith(`s${i}`, i < 8 ? 0 : 3, 3)));
    const { decision: fell, comparison: c } = decideAndCompare(drop, base.report, { pooling: base.pooling });
    expect(fell.suite_verdict).toBe("regressed");
    const html = OUTPUT_FORMATS.html.render({ report: drop, decision: fell, comparison: c!, events: {} });
    const section = html.slice(html.indexOf('<section id="comparison">'));
    expect(section).toMatch(/pass rate: [^<]* · regressed</);
    expect(section).not.toMatch(/inconclusive</);
    for (const key of fell.regressed) {
      expect(section).toMatch(new RegExp(`scenario-id">${key}<.*?decision-verdict[^"]*">🔴 regressed<`, "u"));
    }
  });
});

describe("an incomplete run is incomplete everywhere", () => {
  // Only API errors: no trial was evaluated. No baseline: decided on its outcome, as `run` does.
  const head = makeReport([
    makeScenarioReport({ id: "a", trials: trialsFrom([{ outcome: "error" }, { outcome: "error" }]) }),
    makeScenarioReport({ id: "b", trials: trialsFrom([{ outcome: "error" }]) }),
  ]);
  const decision = decide({ head, baseline: null, failOn: defaultFailOn(false) });

  it("says INCOMPLETE, never Failed, in every format that shows the run's result", () => {
    expect(decision.incomplete).toBe(true);
    const shown: Record<string, string> = {};
    for (const surface of renderEverySurface(head, decision, undefined)) shown[surface.name] = surface.text;
    const heading = (text: string) => text.split("\n").find((l) => l.trim() && !l.startsWith("<!--")) ?? "";
    expect(heading(shown.md!)).toMatch(/^# ⚠️ INCOMPLETE — /u);
    expect(heading(shown.terminal!)).toMatch(/^INCOMPLETE: /);
    expect(shown.html).toMatch(/<h1>⚠️ INCOMPLETE — /u);
    expect(heading(shown.comment!)).toMatch(/^## ⚠️ INCOMPLETE — /u);
    expect(heading(shown["job summary"]!)).toMatch(/^## ⚠️ INCOMPLETE — /u);
    for (const [name, text] of Object.entries(shown)) {
      expect(heading(text), `${name} calls errors a failure`).not.toMatch(/\bFailed\b|\bFAIL(ED)?\b/);
    }
    // Without a decision too: the report's own heading and the terminal's run line.
    const alone = OUTPUT_FORMATS.md.render({ report: head });
    expect(heading(alone)).toBe("# llm-tool-test report ⚠️ INCOMPLETE");
    expect(OUTPUT_FORMATS.terminal.render({ report: head }).trim().split("\n").at(-1)).toMatch(
      /^INCOMPLETE \(errors\)/,
    );
  });
});
