/**
 * A guidance author's pull request, simulated through the real pairing: base-branch reports and a
 * head report whose scenarios differ only in their treatment (the guidance file's hash), pooled by
 * `poolBaselines` and decided by `decide()` exactly as the CLI and the action do. "Before" pools the
 * same reports on the content hash (the treatment included), as versions before issue 24 did.
 */
import { decide } from "../src/compare/decision.js";
import { describePooling, poolBaselines } from "../src/compare/pool-baselines.js";
import type { Outcome, Report, ScenarioReport } from "../src/results/types.js";
import { DEFAULT_EXTRA_TRIALS } from "../src/stats/regression-decision.js";
import { DEFAULT_BASELINE_RUNS } from "../src/stats/run-clusters.js";
import { createRng, deriveSeed, type Rng } from "../src/stats/stats.js";
import { makeReport, makeScenarioReport, trialsFrom } from "../tests/support/report-factory.js";

const SCENARIOS = 20;
const BASE_RUNS = DEFAULT_BASELINE_RUNS;
const FIRST_TRIALS = 3;

export interface GuidanceChangeOutcome {
  label: string;
  prs: number;
  /** Mean share of the head's scenarios compared with a baseline. */
  comparedShare: number;
  failedRate: number;
  inconclusiveRate: number;
  noBaselineRate: number;
  /** PRs whose decision named the guidance change (treatment_changes lists AGENTS.md). */
  namedRate: number;
}

function scenario(
  id: string,
  rate: number,
  rng: Rng,
  guidance: string,
  extraTrials: number,
  keepMeasurement: boolean,
) {
  const draw = (): Outcome => (rng() < rate ? "pass" : "fail");
  const outcomes = Array.from({ length: FIRST_TRIALS }, draw);
  const extended = extraTrials > 0 && outcomes.some((o) => o === "fail");
  if (extended) for (let i = 0; i < extraTrials; i++) outcomes.push(draw());
  const report: Partial<ScenarioReport> = {
    // The content hash covers the guidance; the measurement hash does not.
    content_hash: `sha256:${id}-${guidance}`,
    ...(keepMeasurement ? { measurement_hash: `sha256:${id}-measurement` } : {}),
    treatment: { guidance: [{ path: "AGENTS.md", sha256: `sha256:${guidance}`, mode: "workdir" }], tool: [] },
    ...(extraTrials > 0 ? { first_trials: FIRST_TRIALS, extended } : {}),
  };
  return makeScenarioReport({ id, trials: trialsFrom(outcomes.map((outcome) => ({ outcome }))), ...report });
}

function runReport(
  rates: readonly number[],
  rng: Rng,
  guidance: string,
  extraTrials: number,
  keep: boolean,
  id: string,
) {
  return makeReport(
    rates.map((rate, i) => scenario(`s${i}`, rate, rng, guidance, extraTrials, keep)),
    { id },
  );
}

/** `prs` guidance-only PRs: base runs at `base` rates with AGENTS.md v1, the head at `head` rates with v2. */
export function simulateGuidanceChange(
  label: string,
  headRates: readonly number[],
  options: { prs: number; seed: number; before?: boolean },
): GuidanceChangeOutcome {
  const rng = createRng(deriveSeed(options.seed, label));
  const keep = !options.before;
  const tally = { compared: 0, failed: 0, inconclusive: 0, noBaseline: 0, named: 0 };
  for (let pr = 0; pr < options.prs; pr++) {
    const bases: Report[] = Array.from({ length: BASE_RUNS }, (_, r) =>
      runReport(Array(SCENARIOS).fill(0.9), rng, "v1", 0, keep, `base-${r}`),
    );
    const head = runReport(headRates, rng, "v2", DEFAULT_EXTRA_TRIALS, keep, "head");
    const pooled = poolBaselines(
      bases.map((report, r) => ({ report, label: `run #${r + 1}` })),
      head,
    );
    const decision = decide({ head, baseline: pooled.report, pooling: describePooling(pooled) });
    tally.compared += (pooled.report?.scenarios.length ?? 0) / SCENARIOS;
    if (decision.failed) tally.failed++;
    if (decision.basis === "inconclusive") tally.inconclusive++;
    if (decision.basis === "no_baseline") tally.noBaseline++;
    const files = decision.treatment_changes?.files ?? [];
    if (files.some((f) => f.kind === "guidance" && f.path === "AGENTS.md")) tally.named++;
  }
  const rate = (n: number) => n / options.prs;
  return {
    label,
    prs: options.prs,
    comparedShare: rate(tally.compared),
    failedRate: rate(tally.failed),
    inconclusiveRate: rate(tally.inconclusive),
    noBaselineRate: rate(tally.noBaseline),
    namedRate: rate(tally.named),
  };
}
