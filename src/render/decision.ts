/**
 * The decision's words (compare/decision.ts), written once and used by every renderer: the PR
 * comment, the job summary, report.md, report.html, the terminal, comparison.md and comparison.json.
 * They render the Decision and nothing else for pass/fail, so none of them can disagree.
 *
 * A sentence is built once as pieces (our own words, and untrusted names kept apart), then written
 * out as Markdown (names in code spans), HTML (names in <code>, everything escaped) or plain text.
 */
import type {
  Decision,
  DecisionScenario,
  Design,
  MetricFinding,
  PassCount,
  ScenarioVerdict,
  SuiteVerdict,
} from "../compare/decision.js";
import type { NotComparedScenario, TreatmentFileChange, UnseenGuidance } from "../compare/pairing.js";
import { scenarioKey } from "../results/scenario-key.js";
import { formatTolerance } from "../results/tolerance-gates.js";
import { findMetric } from "../results/trial-metrics.js";
import type { Report, RunSummary, ScenarioReport } from "../results/types.js";
import { CONCLUSIVE_POWER } from "../stats/detection-power.js";
import { MIN_RUNS_FOR_VARIATION, roundIccUp, SCENARIO_TEST_RUNS } from "../stats/run-clusters.js";
import { renderBehaviourBrief } from "./behaviour.js";
import { escapeHtml, escapePlainText, markdownCode, markdownText } from "./escape.js";
import { formatMetricValue, formatPStatement, formatRate, formatRunCost } from "./format.js";

/** Words, and names that came from a report (scenario keys, metric names). */
type Piece = string | { name: string };
type Sentence = Piece[];

export interface HeadlineOptions {
  /** Why there is no baseline (basis no_baseline), in Markdown, e.g. "no successful run on `main` yet". */
  noBaselineReason?: string;
  /** The head run's summary, for the trial counts of fail-on outcome / never. */
  summary?: Pick<RunSummary, "passed" | "failed" | "errors"> & Partial<Pick<RunSummary, "skipped">>;
}

/** More regressed scenarios than this are named without their counts. */
const MAX_DETAILED = 3;

const ICON = {
  regression: "🔴",
  improved: "🟢",
  pass: "✅",
  fail: "❌",
  neutral: "⚪",
  inconclusive: "🟡",
  info: "ℹ️",
  incomplete: "⚠️",
} as const;

/**
 * The words of the decision's verdicts (`DecisionScenario.verdict`, `Decision.suite_verdict`),
 * written once: every renderer shows a scenario's verdict with these and derives none of its own.
 */
export const VERDICT_WORDS: Record<ScenarioVerdict, string> = {
  regressed: "regressed",
  improved: "improved",
  no_clear_change: "no clear change",
  not_tested: "not tested",
  not_compared: "not compared",
};

const VERDICT_ICONS: Partial<Record<ScenarioVerdict, string>> = {
  regressed: ICON.regression,
  improved: ICON.improved,
};

/** "🔴 regressed", "🟢 improved", "no clear change"; without the icon for plain text. */
export function formatVerdict(
  verdict: ScenarioVerdict | SuiteVerdict,
  options: { icon?: boolean } = {},
): string {
  const icon = options.icon === false ? undefined : VERDICT_ICONS[verdict];
  return icon ? `${icon} ${VERDICT_WORDS[verdict]}` : VERDICT_WORDS[verdict];
}

/** The decision's verdict on one scenario; null when the decision has no per-scenario verdicts (no comparison). */
export function findVerdict(decision: Decision | null | undefined, key: string): ScenarioVerdict | null {
  return decision?.scenarios.find((s) => s.key === key)?.verdict ?? null;
}

function toMarkdown(sentence: Sentence): string {
  return sentence.map((p) => (typeof p === "string" ? p : markdownCode(p.name))).join("");
}

function toHtml(sentence: Sentence): string {
  return sentence
    .map((p) => (typeof p === "string" ? escapeHtml(p) : `<code>${escapeHtml(p.name)}</code>`))
    .join("");
}

function toPlain(sentence: Sentence): string {
  return sentence.map((p) => escapePlainText(typeof p === "string" ? p : p.name)).join("");
}

function counts(c: PassCount | null): string {
  return c ? `${c.passed}/${c.trials}` : "–";
}

/** "`x`: 12/12 → 0/9 (adjusted p = 0.00200)", or without the colon in a list. */
function describeScenario(s: DecisionScenario, alpha: number, separator = ": "): Sentence {
  const p =
    s.adjusted_p === null
      ? ""
      : ` (${formatPStatement("adjusted p", s.adjusted_p, { alpha, rejected: s.regressed })})`;
  return [{ name: s.key }, `${separator}${counts(s.base)} → ${counts(s.head)}${p}`];
}

function joinNames(keys: readonly string[]): Sentence {
  return keys.flatMap((key, i): Piece[] => (i === 0 ? [{ name: key }] : [", ", { name: key }]));
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

function scenarioPart(decision: Decision): Sentence {
  const regressed = decision.regressed.map((key) => decision.scenarios.find((s) => s.key === key) ?? null);
  if (regressed.length === 1 && regressed[0]) {
    return ["in ", ...describeScenario(regressed[0], decision.alpha)];
  }
  if (regressed.length <= MAX_DETAILED && regressed.every((s) => s !== null)) {
    const each = regressed.flatMap((s, i): Piece[] => [
      ...(i === 0 ? [] : [", "]),
      ...describeScenario(s as DecisionScenario, decision.alpha, " "),
    ]);
    return [`in ${regressed.length} scenarios: `, ...each];
  }
  return [`in ${plural(regressed.length, "scenario")}: `, ...joinNames(decision.regressed)];
}

/**
 * Pass rates pooled over the scenarios both sides ran, the head's over its first trials: what the
 * suite test looked at (extra trials, run only where the head did worse at first, would bias it).
 */
export function pooledPassRates(decision: Decision): { base: number; head: number } | null {
  let basePassed = 0;
  let baseTrials = 0;
  let headPassed = 0;
  let headTrials = 0;
  for (const s of decision.scenarios) {
    if (!s.base || s.base.trials === 0 || s.head_first.trials === 0) continue;
    basePassed += s.base.passed;
    baseTrials += s.base.trials;
    headPassed += s.head_first.passed;
    headTrials += s.head_first.trials;
  }
  return baseTrials > 0 && headTrials > 0
    ? { base: basePassed / baseTrials, head: headPassed / headTrials }
    : null;
}

function suitePart(decision: Decision): Sentence {
  const rates = pooledPassRates(decision);
  const change = rates ? `pass rate ${formatRate(rates.base)} → ${formatRate(rates.head)} ` : "";
  const p = decision.suite?.adjusted_p;
  const verdict = { alpha: decision.alpha, rejected: decision.suite_regressed };
  // The extended scenarios' extra trials entered as a second stage: the p is both stages'.
  const extras = decision.suite?.extras_stage;
  const name = extras
    ? `suite test with the extra trials of ${plural(extras.scenarios, "scenario")}`
    : "suite test";
  const test =
    p === null || p === undefined ? name : `${name}, ${formatPStatement("adjusted p", p, verdict)}`;
  return [`across the suite: ${change}(${test})`];
}

function metricValue(metric: string, value: number | null): string {
  return formatMetricValue({ metric, kind: findMetric(metric).kind }, value);
}

function metricPart(decision: Decision, metric: string, keys: readonly string[]): Sentence {
  const family = decision.secondary.find((f) => f.metric === metric);
  const findings = keys.map((key) => family?.scenarios.find((s) => s.key === key) ?? null);
  const describe = (f: MetricFinding, separator = ": "): Sentence => {
    const verdict = { alpha: decision.alpha, rejected: f.regressed };
    const limit = f.tolerance === undefined ? "" : `limit ${formatTolerance(f.tolerance)}, `;
    const p =
      f.adjusted_p === null ? "" : ` (${limit}${formatPStatement("adjusted p", f.adjusted_p, verdict)})`;
    return [
      { name: f.key },
      `${separator}${metricValue(metric, f.base_mean)} → ${metricValue(metric, f.head_mean)}${p}`,
    ];
  };
  if (findings.length === 1 && findings[0])
    return ["in ", { name: metric }, " of ", ...describe(findings[0])];
  return [
    "in ",
    { name: metric },
    ` of ${plural(keys.length, "scenario")}: `,
    ...(findings.length <= MAX_DETAILED && findings.every((f) => f !== null)
      ? findings.flatMap((f, i): Piece[] => [
          ...(i === 0 ? [] : [", "]),
          ...describe(f as MetricFinding, " "),
        ])
      : joinNames(keys)),
  ];
}

function regressionSentence(decision: Decision): Sentence {
  const parts: Sentence[] = [];
  if (decision.regressed.length > 0) parts.push(scenarioPart(decision));
  if (decision.suite_regressed) parts.push(suitePart(decision));
  for (const { metric, scenarios } of decision.regressed_metrics) {
    parts.push(metricPart(decision, metric, scenarios));
  }
  return ["Regression ", ...parts.flatMap((part, i): Piece[] => [...(i === 0 ? [] : ["; "]), ...part])];
}

/** "`x`: 0/11 → 11/11 (adjusted p = 0.00100)": what the improvement test compared (the head's first trials). */
function describeImprovement(s: DecisionScenario, alpha: number, separator = ": "): Sentence {
  const p =
    s.improvement_adjusted_p === null
      ? ""
      : ` (${formatPStatement("adjusted p", s.improvement_adjusted_p, { alpha, rejected: true })})`;
  return [{ name: s.key }, `${separator}${counts(s.base)} → ${counts(s.head_first)}${p}`];
}

/**
 * "Improved: `x` 0/11 → 11/11 (adjusted p = 0.001)", and the suite when its mirrored test rejected;
 * null without an improvement. Shown ahead of a decision that did not regress; never gates.
 */
function improvementSentence(decision: Decision): Sentence | null {
  const improved = decision.scenarios.filter((s) => s.improved);
  if (improved.length === 0 && !decision.suite_improved) return null;
  const parts: Sentence[] = [];
  if (improved.length > MAX_DETAILED) {
    parts.push([`${plural(improved.length, "scenario")}: `, ...joinNames(decision.improved)]);
  } else if (improved.length > 0) {
    parts.push(
      improved.flatMap((s, i): Piece[] => [
        ...(i === 0 ? [] : [", "]),
        ...describeImprovement(s, decision.alpha, improved.length === 1 ? ": " : " "),
      ]),
    );
  }
  if (decision.suite_improved) {
    const rates = pooledPassRates(decision);
    const change = rates ? `pass rate ${formatRate(rates.base)} → ${formatRate(rates.head)} ` : "";
    const p = decision.improvement?.suite?.adjusted_p;
    const test =
      p === null || p === undefined
        ? "suite test"
        : `suite test, ${formatPStatement("adjusted p", p, { alpha: decision.alpha, rejected: true })}`;
    parts.push([`across the suite: ${change}(${test})`]);
  }
  const first = parts[0]?.[0];
  const lead = improved.length === 1 && typeof first !== "string" ? "Improved in " : "Improved ";
  return [lead, ...parts.flatMap((part, i): Piece[] => [...(i === 0 ? [] : ["; "]), ...part])];
}

function trialCounts(summary: HeadlineOptions["summary"]): string | null {
  if (!summary) return null;
  const evaluated = summary.passed + summary.failed;
  const errored = summary.errors > 0 ? `, ${summary.errors} errored` : "";
  return `${summary.passed}/${evaluated} trials passed${errored}`;
}

function thresholdOf(failOn: string): number | null {
  const match = /<\s*(\d*\.?\d+)$/.exec(failOn);
  return match ? Number(match[1]) : null;
}

/** The sentence and its icon, before any INCOMPLETE prefix. */
function describeDecision(
  decision: Decision,
  options: HeadlineOptions,
): { icon: string; sentence: Sentence } {
  const failOn = ` (fail-on: ${decision.fail_on})`;
  switch (decision.basis) {
    case "regression":
      return { icon: ICON.regression, sentence: regressionSentence(decision) };
    case "no_regression": {
      // Scenarios left out are never silently part of a pass.
      const left = decision.not_compared.length;
      const compared = decision.scenarios.length - left;
      const scope =
        left > 0 ? ` in ${plural(compared, "scenario")}; ${left} not compared (listed below)` : "";
      return {
        icon: ICON.pass,
        sentence: [`No regression detected${scope}${describeWhatItCouldSee(decision)}`],
      };
    }
    case "inconclusive": {
      // Never a pass: the design could not have seen the planned regression. Reasons are our own text.
      const reasons = decision.inconclusive?.reasons ?? [];
      const needs = decision.inconclusive?.needs ?? [];
      const why = reasons.length > 0 ? reasons.join("; ") : "this design could not have seen one";
      return {
        icon: ICON.inconclusive,
        sentence: [
          `Inconclusive: no regression seen, but ${why}` +
            (needs.length > 0 ? ` — conclusive with ${needs.join(" and ")}` : ""),
        ],
      };
    }
    case "no_baseline": {
      const left = decision.not_compared.length;
      if (left > 0) {
        // There were base runs, but no scenario measured what the head's measure.
        return {
          icon: ICON.neutral,
          sentence: [
            `Nothing to compare: ${plural(left, "scenario")} changed since the base runs or not in them (listed below) — this check does not gate`,
          ],
        };
      }
      const reason = options.noBaselineReason ? `: ${options.noBaselineReason}` : "";
      return {
        icon: ICON.neutral,
        sentence: [`No baseline yet${reason} — this check does not gate until there is one`],
      };
    }
    case "outcome": {
      const s = options.summary;
      if (!decision.failed) {
        const passed = trialCounts(s);
        if (decision.incomplete) {
          // Not "Passed": trials that never ran (a cancelled run) may have failed.
          const notRun = s?.skipped ? `, ${s.skipped} not run` : "";
          return {
            icon: ICON.pass,
            sentence: [`No trial that ran failed${passed ? `: ${passed}${notRun}` : ""}${failOn}`],
          };
        }
        return { icon: ICON.pass, sentence: [`Passed${passed ? `: ${passed}` : ""}${failOn}`] };
      }
      const what = s
        ? [
            s.failed > 0 ? `${s.failed}/${s.passed + s.failed} trials failed` : "",
            s.errors > 0 ? `${plural(s.errors, "trial")} errored` : "",
          ]
            .filter(Boolean)
            .join(", ")
        : "";
      // Errors are not failures (results/run-outcome.ts): the run is incomplete, and the check still
      // fails, as fail-on outcome asks every trial to pass.
      if (s && s.failed === 0) {
        const evaluated = s.passed + s.failed;
        const lead = evaluated === 0 ? "No trial was evaluated" : "Not passed: no trial failed";
        return { icon: ICON.fail, sentence: [`${lead}, ${what || "none ran"}${failOn}`] };
      }
      return {
        icon: ICON.fail,
        sentence: [`Failed: ${what || `the run's outcome is ${decision.run.outcome}`}${failOn}`],
      };
    }
    case "pass_rate": {
      const bar = thresholdOf(decision.fail_on);
      const barText = bar === null ? "the bar" : formatRate(bar);
      const rate = decision.run.pass_rate;
      if (rate === null) {
        return {
          icon: ICON.fail,
          sentence: [`No trial was evaluated: no pass rate to hold to ${barText}${failOn}`],
        };
      }
      return decision.failed
        ? { icon: ICON.fail, sentence: [`Pass rate ${formatRate(rate)} is below ${barText}${failOn}`] }
        : { icon: ICON.pass, sentence: [`Pass rate ${formatRate(rate)} meets ${barText}${failOn}`] };
    }
    case "never": {
      const passed = trialCounts(options.summary) ?? `pass rate ${formatRate(decision.run.pass_rate)}`;
      return { icon: ICON.info, sentence: [`Not gating: ${passed}${failOn}`] };
    }
  }
}

const INCOMPLETE_NOTE = "; only the trials that ran were judged";

/** The improvement leads a decision that did not regress: "🟢 Improved … · ✅ No regression detected". */
function withImprovement(decision: Decision, icon: string, sentence: Sentence, plain: boolean) {
  const improved = decision.failed ? null : improvementSentence(decision);
  if (!improved) return { icon, sentence };
  return {
    icon: ICON.improved,
    sentence: [...improved, plain ? "; " : ` · ${icon} `, ...sentence],
  };
}

function composeHeadline(
  decision: Decision,
  options: HeadlineOptions,
  write: (sentence: Sentence) => string,
): string {
  const described = describeDecision(decision, options);
  const { icon, sentence } = withImprovement(decision, described.icon, described.sentence, false);
  if (!decision.incomplete) return `${icon} ${write(sentence)}`;
  // Never a plain pass: the run was interrupted or cut by its budget.
  const failedIcon = decision.failed ? `${icon} ` : "";
  return `${ICON.incomplete} INCOMPLETE — ${failedIcon}${write([...sentence, INCOMPLETE_NOTE])}`;
}

/** Line one everywhere: "🔴 Regression in `x`: 5/5 → 0/5 (adjusted p = 0.020)", "✅ No regression detected". Markdown. */
export function renderDecisionHeadline(decision: Decision, options: HeadlineOptions = {}): string {
  return composeHeadline(decision, options, toMarkdown);
}

/** The headline as HTML (report.html). */
export function renderDecisionHeadlineHtml(decision: Decision, options: HeadlineOptions = {}): string {
  return composeHeadline(decision, options, toHtml);
}

/** One plain sentence, no Markdown and no icons: logs, exit messages, comparison.json's `decision.reason`. */
export function renderDecisionReason(decision: Decision, options: HeadlineOptions = {}): string {
  const described = describeDecision(decision, options);
  const { sentence } = withImprovement(decision, described.icon, described.sentence, true);
  const text = toPlain(sentence);
  return decision.incomplete ? `INCOMPLETE: ${text}${INCOMPLETE_NOTE}.` : `${text}.`;
}

/**
 * A power as every line prints it: whole percents rounded down (so a design short of 80% never reads
 * as 80%), the headline's reasons and the design line alike.
 */
function describePower(power: number): string {
  if (power >= 0.995) return ">99%";
  return power < 0.01 ? "<1%" : `~${Math.floor(power * 100)}%`;
}

/**
 * What a ✅ could have seen: the collapse it is judged by, and whether a 10-point drop across the
 * suite too — " — could see a 90% → 10% collapse in one scenario (>99%), not a 10-point drop across
 * the suite (~3%)". A design that passes only the first must not read as a pass on the second.
 */
function describeWhatItCouldSee(decision: Decision): string {
  const power = decision.design?.power;
  if (!power || power.broad_drop === undefined) return "";
  const collapse = `a 90% → 10% collapse in one scenario (${describePower(power.collapse)})`;
  // In the drift branch the head is compared with the base runs' trend, which sees less: say so.
  const where = power.broad_drop_in_drift_branch ? " with the base runs trending down, as here" : "";
  const broad = `a 10-point drop across the suite (${describePower(power.broad_drop)}${where})`;
  return power.broad_drop >= CONCLUSIVE_POWER
    ? ` — could see ${collapse} and ${broad}`
    : ` — could see ${collapse}, not ${broad}`;
}

/**
 * Line two: what the configured design can detect, and the run-to-run variation it was judged at.
 * "20 scenarios × 3 (+8) trials against 8 baseline runs (24 trials a scenario): catches a 90% → 10%
 * collapse in one scenario with ~93% power; a 90% → 50% drop with ~24%. Run-to-run variation: 8
 * base runs, ICC 0.04." The power is the design's (every screened scenario with its extra trials),
 * not of the extra trials this run happened to spend. Empty when the decision did not compare (no
 * baseline, fail-on outcome…).
 */
export function renderDesignLine(decision: Decision): string {
  const d = decision.design;
  if (!d) return "";
  const runs = plural(d.baseline_runs, "baseline run");
  const window =
    d.baseline_runs > SCENARIO_TEST_RUNS && !decision.suite_only
      ? `; each scenario's own test pools the newest ${SCENARIO_TEST_RUNS} runs`
      : "";
  const against = `against ${runs} (${plural(d.baseline_trials, "trial")} a scenario${window})`;
  const variation = describeVariation(decision);
  const after = ` ${[variation, describeRunCost(d)].filter(Boolean).join(" ")}`;
  if (decision.suite_only) {
    return `${plural(d.scenarios, "scenario")}, ${plural(d.head_trials, "trial")} per scenario ${against}: only the suite test can decide (no per-scenario verdicts).${after}`;
  }
  const extra = d.extra_trials > 0 ? ` (+${d.extra_trials})` : "";
  const design = `${plural(d.scenarios, "scenario")} × ${d.head_trials}${extra} trial${d.head_trials === 1 && !extra ? "" : "s"} ${against}`;
  if (!d.power) return `${design}.${after}`;
  return (
    `${design}: catches a 90% → 10% collapse in one scenario with ${describePower(d.power.collapse)} power; ` +
    `a 90% → 50% drop with ${describePower(d.power.half)}.${after}`
  );
}

/** "Run cost $0.42.", or which trials' cost is unknown (a model with no price): never $0 for them. */
function describeRunCost(design: Design): string {
  const cost = formatRunCost(design.cost);
  const why = design.cost.trials_cost_unknown > 0 ? " (no price for their model)" : "";
  return `Run ${cost}${why}.`;
}

function formatIcc(icc: number): string {
  return icc.toFixed(2);
}

/**
 * "Run-to-run variation: 8 base runs, ICC 0.04." — what the pooled base runs showed, and what the
 * tests (and the power above) assumed when that differs: the prior below three runs, or a value
 * the caller set. The suite test's form when the runs called for more than the ICC.
 */
function describeVariation(decision: Decision): string {
  const v = decision.variation;
  if (!v) return "";
  const runs = plural(v.runs, "base run");
  const assumed = `ICC ${formatIcc(v.icc_used)}`;
  // The tests use the estimate rounded up to 0.01: that is what the runs showed. Below three runs
  // there is no estimate to show (two runs give one difference a scenario), whatever was computed.
  const estimate = v.icc === null || v.runs < MIN_RUNS_FOR_VARIATION ? null : Math.max(0, v.icc);
  const rounded = estimate === null ? null : roundIccUp(estimate);
  const measured =
    estimate === null
      ? `${runs}, too few to measure it; tests and power assume ${assumed}`
      : rounded === v.icc_used
        ? `${runs}, ${assumed}`
        : `${runs}, ICC ${formatIcc(estimate)} measured; tests and power assume ${assumed}`;
  const suite =
    v.suite_method === "trend" && v.trend !== null
      ? `; the base runs' suite pass rate drifts ${formatSignedPoints(v.trend)} a run, which the suite test and each scenario's test allow for`
      : v.suite_method === "runs" && v.dispersion !== null
        ? `; the suite pass rate varies between base runs ${Number.isFinite(v.dispersion) ? `${v.dispersion.toFixed(1)}× as much as trials explain` : "where trials explain no variation"}, so the suite test compares runs`
        : "";
  return `Run-to-run variation: ${measured}${suite}.`;
}

function formatSignedPoints(delta: number): string {
  const points = Math.abs(delta) * 100;
  const text = String(Number(points.toFixed(points >= 10 ? 0 : 1)));
  return `${delta < 0 && /[1-9]/.test(text) ? "−" : "+"}${text} pts`;
}

/** Regressed scenarios given a why-line in the comment; the rest are counted. */
const MAX_CAUSES = 5;
/** A gate message (agent-influenced) is cut to this many characters of its first line. */
const MAX_CAUSE_CHARS = 160;

/** The first non-empty line of untrusted text, cut to `max` characters. */
function firstLine(text: string, max: number): string {
  const line = text.split(/\r?\n|\r/).find((l) => l.trim().length > 0) ?? "";
  // By code points, so a cut never splits a surrogate pair.
  const chars = [...line.trim()];
  return chars.length > max ? `${chars.slice(0, max - 1).join("")}…` : chars.join("");
}

/** Why the head's first failing trial failed: its first failed gate's message, else its reason. Markdown. */
function describeFirstFailure(scenario: ScenarioReport): string | null {
  const trial = scenario.trials.find((t) => t.outcome === "fail");
  if (!trial) return null;
  const gate = trial.gates.find((g) => !g.passed);
  if (gate) {
    const label = gate.description ? ` (${markdownText(firstLine(gate.description, 80))})` : "";
    const message = firstLine(gate.message, MAX_CAUSE_CHARS);
    return `trial ${trial.trial} failed gate ${markdownCode(gate.gate_type)}${label}${message ? `: ${markdownText(message)}` : ""}`;
  }
  const reason = trial.reason ? firstLine(trial.reason, MAX_CAUSE_CHARS) : "";
  return `trial ${trial.trial} failed${reason ? `: ${markdownText(reason)}` : ""}`;
}

/**
 * Under the headline, one line per regressed scenario saying why its head failed (its first failing
 * trial's first failed gate), so the cause is visible without opening the report. The messages
 * come from the agent's work: bounded and inert. A drop only the suite test saw names no
 * scenario: none broke on its own. Markdown lines; none when nothing regressed.
 */
export function renderRegressionCauses(decision: Decision, report: Report): string[] {
  if (decision.basis !== "regression") return [];
  const byKey = new Map(report.scenarios.map((s) => [scenarioKey(s), s]));
  const lines = decision.regressed.slice(0, MAX_CAUSES).map((key) => {
    const row = decision.scenarios.find((s) => s.key === key);
    const head = byKey.get(key);
    const failed = row ? `${row.head.trials - row.head.passed} of ${row.head.trials} head trials failed` : "";
    const why = head ? describeFirstFailure(head) : null;
    const bullet = `- ${markdownCode(key)}: ${[failed, why].filter(Boolean).join("; ") || "regressed"}.`;
    const behaviour = decision.behaviour?.find((diff) => diff.key === key);
    return [bullet, ...(behaviour ? renderBehaviourBrief(behaviour) : [])].join("\n");
  });
  const more = decision.regressed.length - MAX_CAUSES;
  if (more > 0) lines.push(`- … and ${plural(more, "more regressed scenario")}: see the report below.`);
  if (decision.suite_regressed && decision.regressed.length === 0) {
    lines.push(
      "No scenario regressed by its own test: the suite test saw a drop spread over the suite, not one scenario breaking.",
    );
  }
  return lines;
}

/** The most not-compared scenarios named with their counts; the rest are counted. */
const MAX_NOT_COMPARED_NAMED = 10;

const TREATMENT_VERB: Record<TreatmentFileChange["change"], string> = {
  changed: "changed",
  mode: "given another way (mode)",
  added: "added",
  removed: "removed",
};

/** "Guidance changed: `AGENTS.md` (12 scenarios); tool changed: `bin/tool` (12 scenarios)." */
function treatmentSentence(decision: Decision): Sentence | null {
  const files = decision.treatment_changes?.files ?? [];
  if (files.length === 0) return null;
  const parts = files.map((f, i): Piece[] => {
    const what = `${f.kind} ${TREATMENT_VERB[f.change]}: `;
    return [
      i === 0 ? `${what[0]?.toUpperCase()}${what.slice(1)}` : `; ${what}`,
      { name: f.path },
      ` (${plural(f.scenarios.length, "scenario")})`,
    ];
  });
  // Only compared scenarios are counted: this is what the verdict above is about.
  return [...parts.flat(), " — the change under test."];
}

/** Why a changed guidance file's effect cannot (or may not) show, by how it reached the head's agent. */
const UNSEEN_WHY: Record<UnseenGuidance["delivery"], { shown: string; so: string }> = {
  not_shown: {
    shown: "was not shown to the agent",
    so: "this agent reads no guidance, so the change cannot show in these results; run with an agent that does (docs/agents.md, Guidance)",
  },
  work_dir_only: {
    shown: "was only put in the work dir",
    so: "whether this agent reads it is not known, so the change may not show in these results",
  },
};

/** "⚠️ The changed guidance `AGENTS.md` was not shown to the agent (3 scenarios): …" per file and delivery. */
function unseenGuidanceSentences(decision: Decision): Sentence[] {
  return (decision.treatment_changes?.unseen ?? []).map((u) => {
    const why = UNSEEN_WHY[u.delivery];
    return [
      `${ICON.incomplete} The changed guidance `,
      { name: u.path },
      ` ${why.shown} (${plural(u.scenarios.length, "scenario")}): ${why.so}.`,
    ];
  });
}

/** "Not compared (no verdict): changed since the base runs `a` 0/3; not in the base runs `b` 3/3." */
function notComparedSentence(decision: Decision): Sentence | null {
  const left = decision.not_compared;
  if (left.length === 0) return null;
  const groups: Array<[NotComparedScenario["reason"], string]> = [
    ["measurement_changed", "changed since the base runs"],
    ["not_in_baseline", "not in the base runs"],
  ];
  let room = MAX_NOT_COMPARED_NAMED;
  const parts = groups.flatMap(([reason, why]): Piece[][] => {
    const all = left.filter((s) => s.reason === reason);
    if (all.length === 0) return [];
    const named = all.slice(0, Math.max(0, room));
    room -= named.length;
    const items = named.flatMap((s, i): Piece[] => [
      i === 0 ? " " : ", ",
      { name: s.key },
      ` ${counts(s.head)}`,
    ]);
    const more =
      all.length > named.length ? `${named.length > 0 ? " and" : ""} ${all.length - named.length} more` : "";
    return [[`${why} (${all.length}):`, ...items, more]];
  });
  return [
    "Not compared, no verdict (head results shown): ",
    ...parts.flatMap((part, i): Piece[] => [...(i === 0 ? [] : ["; "]), ...part]),
    ".",
  ];
}

function scopeSentences(decision: Decision): Sentence[] {
  return [
    treatmentSentence(decision),
    ...unseenGuidanceSentences(decision),
    notComparedSentence(decision),
  ].filter((s): s is Sentence => s !== null);
}

/**
 * What the comparison covered, under the design line: what the PR changed in the treatment
 * (guidance, the tool's build) and the scenarios not compared, with their head results. Markdown,
 * one line each; none when there is nothing to say. Paths and keys are user text, in code spans.
 */
export function renderScopeLines(decision: Decision): string[] {
  return scopeSentences(decision).map(toMarkdown);
}

/** The same as HTML. */
export function renderScopeLinesHtml(decision: Decision): string[] {
  return scopeSentences(decision).map(toHtml);
}

/** The same as plain text (the terminal, logs). */
export function renderScopeLinesPlain(decision: Decision): string[] {
  return scopeSentences(decision).map(toPlain);
}
