/** The static parts of the HTML report: headline, tables, failures and the baseline comparison. */
import type { Decision, ScenarioVerdict, SuiteVerdict } from "../../compare/decision.js";
import type {
  Comparison,
  MetricComparison,
  ScenarioComparison,
  ScenarioStatus,
  Verdict,
} from "../../compare/types.js";
import { judgeRun } from "../../results/run-outcome.js";
import { formatTolerance } from "../../results/tolerance-gates.js";
import { findMetric } from "../../results/trial-metrics.js";
import type { Report, ScenarioReport, TrialReport } from "../../results/types.js";
import { wilsonInterval } from "../../stats/stats.js";
import {
  findVerdict,
  formatVerdict,
  renderDecisionHeadlineHtml,
  renderDesignLine,
  renderScopeLinesHtml,
  VERDICT_WORDS,
} from "../decision.js";
import { escapeHtml } from "../escape.js";
import {
  formatCostCell,
  formatDuration,
  formatMetricDelta,
  formatMetricInterval,
  formatMetricValue,
  formatNumber,
  formatPStatement,
  formatRate,
  formatRateRange,
  formatRunCost,
  formatTokens,
  formatUsd,
} from "../format.js";
import { CORRECTION_NAME, describeRunAgents, STATUS_LABEL, VERDICT_LABEL } from "../labels.js";
import { type DeltaRow, renderDeltaChart, renderMiniDelta, renderPassRateChart } from "./charts.js";
import { labelScenario } from "./trial-data.js";

const esc = escapeHtml;

/** A sort key for a cell: numbers as-is, missing values empty (they sort last). */
function sortKey(value: number | null | undefined): string {
  return value === null || value === undefined || !Number.isFinite(value) ? "" : String(value);
}

function numCell(text: string, value: number | null | undefined, extra = ""): string {
  return `<td class="num" data-v="${sortKey(value)}">${text}${extra}</td>`;
}

function header(label: string, type: "num" | "text", title?: string): string {
  const cls = type === "num" ? ` class="num"` : "";
  const tip = title ? ` title="${esc(title)}"` : "";
  return `<th${cls} data-type="${type}" scope="col" tabindex="0"${tip}>${esc(label)}</th>`;
}

function describeScenarioOutcome(scenario: ScenarioReport): {
  label: string;
  cls: string;
  rank: number;
} {
  const s = scenario.summary;
  const n = s.passed + s.failed;
  if (n === 0)
    return s.errors > 0
      ? { label: "error", cls: "error", rank: 1 }
      : { label: "skipped", cls: "skipped", rank: 4 };
  if (s.failed === 0 && s.errors === 0) return { label: "pass", cls: "pass", rank: 5 };
  if (s.failed === 0) return { label: "pass + errors", cls: "error", rank: 2 };
  if (s.passed === 0) return { label: "fail", cls: "fail", rank: 0 };
  return { label: `flaky ${s.passed}/${n}`, cls: "flaky", rank: 0.5 };
}

function renderCard(label: string, value: string, sub: string, tone = ""): string {
  return `<div class="card${tone ? ` ${tone}` : ""}"><div class="label">${esc(label)}</div><div class="value">${esc(value)}</div><div class="sub">${esc(sub)}</div></div>`;
}

/** The run's own verdict as a badge: an incomplete run is never a plain pass. */
function renderOutcomeBadge(report: Report): string {
  const outcome = report.summary.outcome;
  const badge = `<span class="badge ${esc(outcome)}">${esc(outcome)}</span>`;
  if (!judgeRun(report).incomplete) return badge;
  return `<span class="badge error">INCOMPLETE</span>${outcome === "pass" ? "" : ` ${badge}`}`;
}

/** The decision's verdict on the baseline, for the summary cards (the decision, never the comparison's own verdicts). */
function renderDecisionCard(decision: Decision): string {
  const regressed = decision.regressed.length + decision.regressed_metrics.length;
  const value = decision.failed
    ? "regression"
    : decision.basis === "no_regression"
      ? "no regression"
      : decision.basis === "inconclusive"
        ? "inconclusive"
        : "not decided";
  const needs = decision.inconclusive?.needs ?? [];
  const sub = decision.failed
    ? `${decision.regressed.length} scenario(s) regressed${decision.suite_regressed ? " · suite test rejects" : ""}${decision.regressed_metrics.length ? ` · ${decision.regressed_metrics.length} gate metric(s)` : ""}`
    : decision.basis === "inconclusive"
      ? `no regression seen; conclusive with ${needs.length > 0 ? needs.join(" and ") : "a stronger design"}`
      : `fail-on: ${decision.fail_on}`;
  const improved = [
    decision.improved.length > 0 ? `${decision.improved.length} scenario(s) 🟢 improved` : "",
    decision.suite_improved ? "suite 🟢 improved" : "",
  ].filter(Boolean);
  // Inconclusive is never shown as a pass.
  const tone = decision.failed || regressed > 0 ? "bad" : decision.basis === "inconclusive" ? "warn" : "good";
  return renderCard("Against baseline", value, [...improved, sub].join(" · "), tone);
}

export function renderHeadline(
  report: Report,
  comparison: Comparison | null | undefined,
  decision?: Decision,
): string {
  const s = report.summary;
  const run = report.run;
  const evaluated = s.passed + s.failed;
  const interval = evaluated > 0 ? wilsonInterval(s.passed, evaluated) : null;
  const facts = [
    describeRunAgents(run, (m) => m),
    run.judge_model ? `judge ${run.judge_model}` : "",
    run.git_ref ? `ref ${run.git_ref}` : "",
    run.git_sha ? `commit ${run.git_sha.slice(0, 7)}` : "",
    run.shard ? `shard ${run.shard.index}/${run.shard.count}` : "",
    `llm-tool-test ${run.harness_version}`,
    `run ${run.id}`,
    `${run.started_at} → ${run.ended_at}`,
  ].filter(Boolean);
  const cards = [
    renderCard(
      "Pass rate",
      formatRate(s.pass_rate),
      `${s.passed} of ${evaluated} evaluated trial(s)${interval ? ` · 95% CI ${formatRateRange(interval.low, interval.high)}` : ""}`,
      s.pass_rate === null ? "" : s.failed > 0 ? "bad" : "good",
    ),
    renderCard(
      "Scenarios",
      `${s.scenarios_passed}/${s.scenarios}`,
      "passed every trial",
      s.scenarios_passed < s.scenarios ? "bad" : "good",
    ),
    renderCard(
      "Errors",
      String(s.errors),
      `infrastructure; excluded from rates${s.skipped ? ` · ${s.skipped} skipped` : ""}`,
      s.errors > 0 ? "warn" : "",
    ),
    renderCard(
      "Tool calls",
      String(s.total_tool_calls),
      `${s.tool_calls_ok} ok / ${s.tool_calls_error} error · ${formatNumber(s.avg_turns_per_task)} turns per trial`,
    ),
    renderCard(
      "Cost",
      formatRunCost(s, { label: false }),
      `${formatTokens(s.total_input_tokens)} in / ${formatTokens(s.total_output_tokens)} out tokens${s.judge_cost_usd ? ` · judge ${formatUsd(s.judge_cost_usd)}` : ""}`,
    ),
    renderCard(
      "Time",
      formatDuration(s.total_duration_ms),
      `summed over trials · ${formatDuration(s.avg_duration_ms)} per trial`,
    ),
  ];
  if (
    decision &&
    (decision.basis === "regression" ||
      decision.basis === "no_regression" ||
      decision.basis === "inconclusive")
  ) {
    cards.push(renderDecisionCard(decision));
  } else if (comparison) {
    const passRate = comparison.suite.metrics.find((m) => m.metric === "pass_rate");
    const c = comparison.counts;
    cards.push(
      renderCard(
        "Against baseline",
        passRate ? formatMetricDelta(passRate, passRate.delta) : "–",
        `pass rate${passRate ? ` (${VERDICT_LABEL[passRate.verdict]})` : ""} · ${c.newly_failing} newly failing · ${c.regressed} scenario(s) regressed`,
        c.newly_failing > 0 || c.regressed > 0 ? "bad" : c.improved > 0 || c.newly_passing > 0 ? "good" : "",
      ),
    );
  }
  const banners = [
    run.incomplete
      ? `<p class="banner">This run is <strong>incomplete</strong>: it was interrupted or cut by its budget, so some trials are missing or skipped.</p>`
      : "",
    ...(run.warnings ?? []).map((warning) => `<p class="banner">${esc(warning)}</p>`),
    comparison === null ? `<p class="muted">No baseline report to compare against.</p>` : "",
  ].join("");
  const design = decision ? renderDesignLine(decision) : "";
  const title = decision
    ? `<p class="kicker">llm-tool-test report ${renderOutcomeBadge(report)}</p><h1>${renderDecisionHeadlineHtml(decision, { summary: s })}</h1>` +
      (design ? `<p class="design">${esc(design)}</p>` : "") +
      renderScopeLinesHtml(decision)
        .map((line) => `<p class="design">${line}</p>`)
        .join("")
    : `<h1>llm-tool-test report ${renderOutcomeBadge(report)}</h1>`;
  return (
    `<header>${title}` +
    `<p class="meta">${facts.map(esc).join(" · ")}</p>${banners}</header>` +
    `<section class="cards" aria-label="Summary">${cards.join("")}</section>`
  );
}

export function renderCategoryTable(report: Report): string {
  const entries = Object.entries(report.summary.by_category);
  if (entries.length === 0) return "";
  const rows = entries.map(
    ([name, c]) =>
      `<tr><td>${esc(name)}</td>${numCell(String(c.tasks), c.tasks)}${numCell(String(c.passed), c.passed)}` +
      `${numCell(formatRate(c.pass_rate), c.pass_rate)}${numCell(`${formatNumber(c.score)}/${formatNumber(c.max_score)}`, c.score)}` +
      `${numCell(formatRate(c.rate), c.rate)}${numCell(String(c.errors), c.errors)}</tr>`,
  );
  return (
    `<section id="categories"><h2>By category</h2><div class="table-wrap"><table class="sortable" id="category-table"><thead><tr>` +
    header("Category", "text") +
    header("Trials", "num", "Evaluated trials (errors and skips excluded)") +
    header("Passed", "num") +
    header("Pass rate", "num") +
    header("Score", "num", "Gate score over evaluated trials") +
    header("Score rate", "num") +
    header("Errors", "num") +
    `</tr></thead><tbody>${rows.join("")}</tbody></table></div></section>`
  );
}

/** Each scenario's target invocations per subcommand, pooled over its evaluated trials, one collapsed table each. */
export function renderSubcommandSection(report: Report): string {
  const scenarios = report.scenarios.filter((s) => Object.keys(s.by_subcommand ?? {}).length > 0);
  if (scenarios.length === 0) return "";
  const blocks = scenarios.map((scenario) => {
    const rows = Object.entries(scenario.by_subcommand ?? {}).map(
      ([name, c]) =>
        `<tr><td><code>${esc(name)}</code></td>${numCell(String(c.trials), c.trials)}${numCell(String(c.commands), c.commands)}` +
        `${numCell(String(c.errors), c.errors)}${numCell(formatRate(c.error_rate), c.error_rate)}` +
        `${numCell(String(c.retries), c.retries)}${numCell(String(c.help_invocations), c.help_invocations)}</tr>`,
    );
    return (
      `<details><summary><code>${esc(labelScenario(scenario))}</code></summary><div class="table-wrap"><table class="sortable"><thead><tr>` +
      header("Subcommand", "text") +
      header("Trials", "num", "Evaluated trials that invoked it") +
      header("Commands", "num") +
      header("Errors", "num") +
      header("Error rate", "num") +
      header("Retries", "num") +
      header("Help", "num") +
      `</tr></thead><tbody>${rows.join("")}</tbody></table></div></details>`
    );
  });
  return `<section id="subcommands"><h2>Per subcommand</h2>${blocks.join("")}</section>`;
}

function metricCell(scenario: ScenarioReport, name: string, kind: "rate" | "number"): string {
  const m = scenario.summary.metrics[name];
  const mean = m?.mean ?? null;
  return numCell(kind === "rate" ? formatRate(mean) : formatNumber(mean), mean);
}

function renderTrialChips(scenario: ScenarioReport, firstIndex: number): string {
  const chips = scenario.trials.map(
    (t, i) =>
      `<button type="button" class="chip ${t.outcome}" data-trial="${firstIndex + i}" title="${esc(`trial #${t.trial}: ${t.outcome}${t.reason ? ` — ${t.reason}` : ""}`)}">${t.trial}</button>`,
  );
  return `<div class="chips">${chips.join("")}</div>`;
}

function passRateDelta(comparison: ScenarioComparison | undefined): MetricComparison | undefined {
  return comparison?.metrics.find((m) => m.metric === "pass_rate");
}

export function renderScenarioTable(
  report: Report,
  trialIndex: Map<TrialReport, number>,
  comparison: Comparison | null | undefined,
  decision?: Decision,
): string {
  const compared = new Map((comparison?.scenarios ?? []).map((c) => [c.key, c]));
  const rows = report.scenarios.map((scenario) => {
    const s = scenario.summary;
    const outcome = describeScenarioOutcome(scenario);
    const label = labelScenario(scenario);
    const first = scenario.trials[0];
    const firstIndex = first ? (trialIndex.get(first) ?? 0) : 0;
    const ci =
      s.pass_rate_ci_low !== null && s.pass_rate_ci_high !== null && s.passed + s.failed > 1
        ? ` <span class="ci">[${formatRateRange(s.pass_rate_ci_low, s.pass_rate_ci_high)}]</span>`
        : "";
    const search = [scenario.id, scenario.variant ?? "", scenario.category, ...scenario.tags, outcome.label]
      .join(" ")
      .toLowerCase();
    const failing = s.failed > 0 || s.errors > 0 ? "1" : "0";
    const counts = [
      `${s.passed} of ${s.passed + s.failed} passed`,
      s.errors ? `${s.errors} error${s.errors === 1 ? "" : "s"}` : "",
      s.skipped ? `${s.skipped} skipped` : "",
    ]
      .filter(Boolean)
      .join(" · ");
    let deltaCells = "";
    if (comparison) {
      const c = compared.get(label);
      const m = passRateDelta(c);
      // The decision's verdict where it judged the scenario; the interval's word only without one.
      const verdict = findVerdict(decision, label);
      const tone = verdict ? VERDICT_TONE[verdict] : m?.verdict;
      const word = verdict ? formatVerdict(verdict) : m ? VERDICT_LABEL[m.verdict] : "";
      deltaCells =
        m && c
          ? `<td class="num" data-v="${sortKey(m.delta)}" title="${esc(`${STATUS_LABEL[c.status]} · ${word}`)}">${esc(formatMetricDelta(m, m.delta))}<div class="ci verdict-${tone}">${esc(word)}</div></td>`
          : `<td class="num" data-v="">${verdict ? esc(formatVerdict(verdict)) : "new"}</td>`;
    }
    return (
      `<tr data-search="${esc(search)}" data-failing="${failing}">` +
      `<td data-v="${esc(label)}"><span class="scenario-id">${esc(label)}</span>` +
      (scenario.description ? `<div class="description">${esc(scenario.description)}</div>` : "") +
      `</td><td>${esc(scenario.category)}</td>` +
      `<td data-v="${outcome.rank}"><span class="badge ${outcome.cls}">${esc(outcome.label)}</span></td>` +
      `<td class="trials">${renderTrialChips(scenario, firstIndex)}</td>` +
      numCell(formatRate(s.pass_rate), s.pass_rate, `${ci}<div class="ci">${esc(counts)}</div>`) +
      deltaCells +
      metricCell(scenario, "total_commands", "number") +
      metricCell(scenario, "error_rate", "rate") +
      metricCell(scenario, "retry_rate", "rate") +
      metricCell(scenario, "help_invocations", "number") +
      metricCell(scenario, "first_try_success_rate", "rate") +
      metricCell(scenario, "iteration_ratio", "rate") +
      metricCell(scenario, "turns", "number") +
      numCell(formatCostCell(s.cost_usd, s.trials_cost_unknown, s.trials), s.cost_usd) +
      "</tr>"
    );
  });
  return (
    `<section id="scenarios"><h2>Scenarios</h2>` +
    `<div class="controls"><input type="search" id="scenario-filter" placeholder="Filter by id, category, tag, outcome…" aria-label="Filter scenarios">` +
    `<label><input type="checkbox" id="failing-only"> failing or erroring only</label>` +
    `<span class="muted" id="scenario-count">${report.scenarios.length} scenarios</span></div>` +
    `<div class="table-wrap"><table class="sortable" id="scenario-table"><thead><tr>` +
    header("Scenario", "text") +
    header("Category", "text") +
    header("Outcome", "num", "Sorted worst first") +
    `<th scope="col">Trials</th>` +
    header("Pass rate [95% CI]", "num", "passed / (passed + failed), Wilson interval; errors excluded") +
    (comparison
      ? header("Δ vs base", "num", "Change of the pass rate against the baseline, in points")
      : "") +
    header("Commands", "num", "Target invocations per trial (mean)") +
    header("Error rate", "num", "Target invocations with a non-zero exit") +
    header("Retry rate", "num", "Invocations retrying a failed subcommand") +
    header("Help", "num", "--help / -h / help invocations per trial (mean)") +
    header("First-try", "num", "Share of subcommands whose first invocation succeeded") +
    header("Iteration", "num", "unique commands / commands") +
    header("Turns", "num") +
    header("Cost", "num") +
    `</tr></thead><tbody>${rows.join("")}</tbody></table></div>` +
    `<p class="legend">Click a column to sort; click a trial number to open its transcript. Metrics are means over evaluated trials; – means there was nothing to measure.</p></section>`
  );
}

export function renderPassRateSection(report: Report): string {
  if (report.scenarios.length === 0) return "";
  return (
    `<section id="pass-rates"><h2>Pass rate per scenario</h2>` +
    `<p class="legend">Dot: pass rate over evaluated trials. Whisker: 95% Wilson interval — the wider it is, the fewer trials back the figure. Worst first.</p>` +
    `<div class="chart-scroll">${renderPassRateChart(report.scenarios)}</div></section>`
  );
}

/** Distinct values with how often each occurs, most frequent first. */
function tally(values: string[]): [string, number][] {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts.entries()].sort((a, b) => b[1] - a[1]);
}

function describeTally(values: string[], max: number): string {
  const entries = tally(values);
  const shown = entries.slice(0, max).map(([v, n]) => (n > 1 ? `${v} ×${n}` : v));
  if (entries.length > max) shown.push(`${entries.length - max} more`);
  return shown.join(" · ");
}

/** One entry per scenario with failing or erroring trials: their trial numbers, distinct reasons, failed gates. */
export function renderFailureList(report: Report, trialIndex: Map<TrialReport, number>): string {
  const items: string[] = [];
  let trialCount = 0;
  for (const scenario of report.scenarios) {
    const bad = scenario.trials.filter((t) => t.outcome === "fail" || t.outcome === "error");
    if (bad.length === 0) continue;
    trialCount += bad.length;
    const s = scenario.summary;
    const badges = [
      s.failed ? `<span class="badge fail">${s.failed} of ${s.passed + s.failed} failed</span>` : "",
      s.errors ? `<span class="badge error">${s.errors} error${s.errors === 1 ? "" : "s"}</span>` : "",
    ].join(" ");
    const gates = bad.flatMap((t) =>
      t.gates
        .filter((g) => !g.passed)
        .map((g) => (g.description ? `${g.gate_type} (${g.description})` : g.gate_type)),
    );
    const judgeIssues = bad.reduce((n, t) => n + (t.judge_response?.issues.length ?? 0), 0);
    const details = [
      gates.length ? `failed gates: ${describeTally(gates, 6)}` : "",
      judgeIssues ? `${judgeIssues} judge issue(s)` : "",
    ].filter(Boolean);
    items.push(
      `<li><span class="scenario-id">${esc(labelScenario(scenario))}</span> ${badges} ` +
        `<span class="chips inline">${bad
          .map(
            (t) =>
              `<button type="button" class="chip ${t.outcome}" data-trial="${trialIndex.get(t) ?? 0}" title="${esc(`open trial #${t.trial}`)}">#${t.trial}</button>`,
          )
          .join("")}</span>` +
        `<div class="why">${esc(
          describeTally(
            bad.map((t) => t.reason ?? t.outcome),
            4,
          ),
        )}</div>` +
        (details.length ? `<div class="gate-names">${esc(details.join(" · "))}</div>` : "") +
        "</li>",
    );
  }
  if (items.length === 0) return "";
  return (
    `<section id="failures"><h2>Failures and errors (${trialCount} trial${trialCount === 1 ? "" : "s"} in ${items.length} scenario${items.length === 1 ? "" : "s"})</h2>` +
    `<p class="legend">Click a trial to open its transcript.</p><ul class="failures">${items.join("")}</ul></section>`
  );
}

const STATUS_TONE: Partial<Record<ScenarioStatus, string>> = {
  newly_failing: "status-bad",
  became_flaky: "status-bad",
  stabilized_fail: "status-bad",
  newly_passing: "status-good",
  stabilized_pass: "status-good",
};

const STATUS_RANK: Record<ScenarioStatus, number> = {
  newly_failing: 0,
  stabilized_fail: 1,
  became_flaky: 2,
  still_failing: 3,
  still_flaky: 4,
  no_data: 5,
  newly_passing: 6,
  stabilized_pass: 7,
  still_passing: 8,
};

function describeMetric(name: string): string {
  return name.replace(/_/g, " ");
}

/** The chart colour of a decision's verdict (the charts' classes are the comparison's verdicts). */
const VERDICT_TONE: Record<ScenarioVerdict | SuiteVerdict, Verdict> = {
  regressed: "regressed",
  improved: "improved",
  no_clear_change: "unchanged",
  not_tested: "too_few_samples",
  not_compared: "too_few_samples",
};

function renderSuiteDeltas(comparison: Comparison, decision: Decision | undefined): string {
  // The pass rate's verdict is the decision's suite verdict where it tested the suite, never the
  // comparison's own interval: a drop the suite test called a regression is never "inconclusive".
  const suiteVerdict = decision?.suite ? decision.suite_verdict : null;
  const rows: DeltaRow[] = comparison.suite.metrics.map((m) => {
    const decided = m.metric === "pass_rate" && suiteVerdict !== null;
    const word = decided ? formatVerdict(suiteVerdict, { icon: false }) : VERDICT_LABEL[m.verdict];
    return {
      label: describeMetric(m.metric),
      kind: m.kind,
      delta: m.delta,
      ci_low: m.ci_low,
      ci_high: m.ci_high,
      base_mean: m.base_mean,
      verdict: decided ? VERDICT_TONE[suiteVerdict] : m.verdict,
      text: `${formatMetricDelta(m, m.delta)} ${m.ci_low !== null ? formatMetricInterval(m, m.ci_low, m.ci_high) : ""} · ${word}`,
    };
  });
  if (rows.length === 0) return "";
  return (
    `<h3>Suite-level changes</h3>` +
    `<p class="legend">Dot: change from the baseline (head − base) over ${comparison.suite.scenarios} matched scenario(s); whisker: 95% interval. Rates in percentage points; counts, tokens, cost and time in % of the baseline mean. Colour is the verdict: green improved, red regressed, amber inconclusive, grey unchanged or too few samples${comparison.suite.scenarios < comparison.suite.min_scenarios ? ` (suite verdicts need ${comparison.suite.min_scenarios} scenarios)` : ""}.</p>` +
    `<div class="chart-scroll">${renderDeltaChart(rows)}</div>`
  );
}

/** The pass rate's verdict cell: the decision's verdict when it has one for the scenario, else the comparison's. */
function renderVerdictCell(m: MetricComparison | undefined, verdict: ScenarioVerdict | null): string {
  if (verdict !== null) {
    return `<td data-v="${esc(verdict)}"><span class="decision-verdict verdict-${VERDICT_TONE[verdict]}">${esc(formatVerdict(verdict))}</span></td>`;
  }
  return `<td data-v="${m ? esc(m.verdict) : ""}">${m ? `<span class="verdict-${m.verdict}">${esc(VERDICT_LABEL[m.verdict])}</span>` : "–"}</td>`;
}

function renderScenarioComparisons(comparison: Comparison, decision: Decision | undefined): string {
  if (comparison.scenarios.length === 0) return "";
  const rows = comparison.scenarios.map((c) => {
    const m = c.metrics.find((x) => x.metric === "pass_rate");
    const verdict = findVerdict(decision, c.key);
    const base = c.base.pass_rate;
    const head = c.head.pass_rate;
    const changed = (names: string[]) => names.map(describeMetric).join(", ");
    return (
      `<tr><td data-v="${esc(c.key)}"><span class="scenario-id">${esc(c.key)}</span>` +
      (c.renamed_from ? `<div class="description">renamed from ${esc(c.renamed_from)}</div>` : "") +
      (c.content_changed ? `<div class="description">scenario changed since the baseline</div>` : "") +
      `</td><td data-v="${STATUS_RANK[c.status]}"><span class="${STATUS_TONE[c.status] ?? ""}">${esc(STATUS_LABEL[c.status])}</span></td>` +
      numCell(`${formatRate(base)} → ${formatRate(head)}`, head) +
      numCell(m ? esc(formatMetricDelta(m, m.delta)) : "–", m?.delta ?? null) +
      `<td>${m ? renderMiniDelta(m.delta, m.ci_low, m.ci_high, verdict ? VERDICT_TONE[verdict] : m.verdict) : ""}</td>` +
      renderVerdictCell(m, verdict) +
      `<td class="verdict-regressed">${esc(changed(c.regressed))}</td>` +
      `<td class="verdict-improved">${esc(changed(c.improved))}</td></tr>`
    );
  });
  return (
    `<h3>Per scenario</h3><div class="table-wrap"><table class="sortable" id="comparison-table"><thead><tr>` +
    header("Scenario", "text") +
    header("Status", "num", "Sorted worst first") +
    header("Pass rate base → head", "num") +
    header("Δ pass rate", "num") +
    `<th scope="col" title="Change with its 95% interval on −100…+100 points">Δ [95% CI]</th>` +
    header(
      "Verdict",
      "text",
      decision ? `The decision's: ${Object.values(VERDICT_WORDS).join(", ")}` : "The interval's, not a test",
    ) +
    header("Regressed metrics", "text") +
    header("Improved metrics", "text") +
    `</tr></thead><tbody>${rows.join("")}</tbody></table></div>`
  );
}

/**
 * Each tolerance gate's family: per scenario the base and head means, the limit, the gate's adjusted
 * p and its verdict, as comparison.md's metric rows show them.
 */
function renderToleranceGates(decision: Decision | undefined): string {
  const families = (decision?.secondary ?? []).filter((f) => f.tolerance_gate);
  if (!decision || families.length === 0) return "";
  const rows = families.flatMap((family) =>
    family.scenarios.map((f) => {
      const value = (v: number | null) =>
        formatMetricValue({ metric: family.metric, kind: findMetric(family.metric).kind }, v);
      const tested = f.tolerance !== undefined && f.adjusted_p !== null;
      const verdict = !tested ? "not tested" : f.regressed ? "regressed" : "within the limit";
      const tone = !tested ? "" : f.regressed ? "status-bad" : "status-good";
      return (
        `<tr><td>${esc(describeMetric(family.metric))}</td><td><span class="scenario-id">${esc(f.key)}</span></td>` +
        `<td class="num">${esc(`${value(f.base_mean)} → ${value(f.head_mean)}`)}</td>` +
        `<td class="num">${f.tolerance === undefined ? "–" : esc(formatTolerance(f.tolerance))}</td>` +
        `<td class="num">${f.adjusted_p === null ? "–" : esc(formatPStatement("adjusted p", f.adjusted_p, { alpha: decision.alpha, rejected: f.regressed }))}</td>` +
        `<td class="tolerance-verdict ${tone}">${esc(verdict)}</td></tr>`
      );
    }),
  );
  return (
    `<h3>Tolerance gates</h3>` +
    `<p class="legend">A scenario fails its gate when the one-sided bound shows its mean exceeds the base's by more than the limit; one family per metric, Holm, α split equally.</p>` +
    `<div class="table-wrap"><table id="tolerance-gates"><thead><tr><th>Metric</th><th>Scenario</th><th class="num">Base → head (mean per trial)</th>` +
    `<th class="num">Limit</th><th class="num">Test</th><th>Verdict</th></tr></thead><tbody>${rows.join("")}</tbody></table></div>`
  );
}

export function renderComparisonSection(comparison: Comparison, decision?: Decision): string {
  const base = comparison.base;
  const c = comparison.counts;
  const baseFacts = [
    `run ${base.run_id}`,
    base.git_ref ? `ref ${base.git_ref}` : "",
    base.git_sha ? `commit ${base.git_sha.slice(0, 7)}` : "",
    // A matrix baseline is named by every entry (or model), never by its first.
    ...(base.entries && base.entries.length > 0
      ? [`agents · models ${base.entries.join(", ")}`]
      : [
          `agent ${base.agent}`,
          base.models && base.models.length > 1
            ? `models ${base.models.join(", ")}`
            : base.model
              ? `model ${base.model}`
              : "",
        ]),
    base.started_at,
  ].filter(Boolean);
  const warnings = comparison.warnings.map((w) => `<li>${esc(w.message)}</li>`).join("");
  const listRefs = (title: string, keys: string[]) =>
    keys.length ? `<p><strong>${esc(title)}:</strong> ${keys.map(esc).join(", ")}</p>` : "";
  return (
    `<section id="comparison"><h2>Against the baseline</h2>` +
    `<p class="meta">Baseline: ${baseFacts.map(esc).join(" · ")}</p>` +
    (warnings ? `<div class="banner"><ul>${warnings}</ul></div>` : "") +
    `<p>${c.matched} matched scenario(s) · <span class="${c.newly_failing ? "status-bad" : ""}">${c.newly_failing} newly failing</span> · ` +
    `<span class="${c.newly_passing ? "status-good" : ""}">${c.newly_passing} newly passing</span> · ` +
    `${c.regressed} with a regressed metric · ${c.improved} with an improved metric · ${c.added} added · ${c.removed} removed · ${c.renamed} renamed. ` +
    `<span class="muted">Tests: ${esc(CORRECTION_NAME[comparison.settings.correction])} correction over ${comparison.settings.family_size} test(s), alpha ${comparison.settings.alpha}.</span></p>` +
    renderSuiteDeltas(comparison, decision) +
    renderToleranceGates(decision) +
    renderScenarioComparisons(comparison, decision) +
    listRefs(
      "Added (no baseline)",
      comparison.added.map((s) => s.key),
    ) +
    listRefs(
      "Removed since the baseline",
      comparison.removed.map((s) => s.key),
    ) +
    `</section>`
  );
}
