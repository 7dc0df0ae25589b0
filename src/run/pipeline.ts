/**
 * The one pipeline of a run, for every front end: produced (by running scenarios, `produceSuiteRun`,
 * or a merge of shards, a fork's report) → decided → written → presented as the front end's own
 * (the CLI prints, the action publishes). Side effects come in as the steps and ports.
 */
import type { DecidedRun, DecisionBaseline, DecisionPolicy } from "../compare/decide-run.js";
import { decideRun } from "../compare/decide-run.js";
import type { PoolTarget } from "../compare/pool-baselines.js";
import type { Report } from "../results/types.js";
import { poolTargetOf, type RunBaseline } from "./baseline.js";
import type { PreparedRun } from "./prepare.js";
import { createRunRedactor, runSuite, type SuitePorts } from "./suite.js";
import { type OutputFolder, writeRunOutputs } from "./write-outputs.js";

/** What the decide stage takes from the run stage. */
export interface ProducedRun {
  report: Report;
  /** The extra trials of the run's design; unset: read from the report (a run not at hand). */
  designExtraTrials?: number;
  /** The baseline settled for the run (run/baseline.ts); null without one. */
  settled: Pick<RunBaseline, "report" | "used" | "excluded" | "runCounts"> | null;
  /** Redacts what is written: the run's secrets, the scenarios' included. */
  redact: (text: string) => string;
}

export interface PipelineSteps<P extends ProducedRun, R> {
  produce(): Promise<P>;
  policy: DecisionPolicy;
  /** Where the decided run's files go; null: none are written (a fork's follow-up only comments). */
  output: ((produced: P) => Promise<Omit<OutputFolder, "redact">>) | null;
  /** The front end's presentation of the decided run (and the files written). */
  present(produced: P, decided: DecidedRun, written: string[]): Promise<R> | R;
}

/** Produce → decide → write → present. */
export async function runPipeline<P extends ProducedRun, R>(steps: PipelineSteps<P, R>): Promise<R> {
  const produced = await steps.produce();
  const decided = decideRun({
    report: produced.report,
    baseline: produced.settled && decisionBaselineOf(produced.settled),
    policy: steps.policy,
    designExtraTrials: produced.designExtraTrials,
  });
  const output = steps.output && { ...(await steps.output(produced)), redact: produced.redact };
  const written = output ? await writeRunOutputs(produced.report, decided, output) : [];
  return steps.present(produced, decided, written);
}

/** A settled baseline as the decide stage takes it: its report and what the pool is made of. */
export function decisionBaselineOf(settled: NonNullable<ProducedRun["settled"]>): DecisionBaseline {
  const { report, used, excluded, runCounts } = settled;
  return { report, pooling: { runs: used, excluded, ...(runCounts ? { runCounts } : {}) } };
}

/** The suite's ports a front end brings: cancellation, the commit, progress, the clock; `release` once it ends. */
export type FrontEndPorts = Pick<SuitePorts, "signal" | "git" | "onProgress" | "now"> & {
  release?: () => void;
};

/** How a front end runs scenarios: its setup, its baseline settled for the plan, its ports. */
export interface SuiteRunSteps<B extends RunBaseline> {
  prepare(): Promise<PreparedRun>;
  /** The baseline settled for what the run measures: its scenarios, settings and sandboxes; null: none. */
  settle(target: PoolTarget): B | null;
  ports(prepared: PreparedRun, settled: B | null): Promise<FrontEndPorts>;
}

/**
 * The run stage of a run of scenarios: prepare → settle the baseline → run the suite, whose
 * baseline's counts screen scenarios for extra trials and whose costs estimate the budget.
 */
export async function produceSuiteRun<B extends RunBaseline>(
  steps: SuiteRunSteps<B>,
): Promise<Required<ProducedRun> & { settled: B | null }> {
  const prepared = await steps.prepare();
  const { scenarios, options } = prepared;
  const settled = steps.settle(poolTargetOf(scenarios, options, prepared.ports.sandboxes.selected()));
  const { release, ...ports } = await steps.ports(prepared, settled);
  try {
    const { report, designExtraTrials } = await runSuite(
      scenarios,
      { ...options, baselineCounts: settled?.report ? settled.counts : null },
      { ...prepared.ports, ...ports, baseline: settled?.report ?? null },
    );
    return {
      report,
      designExtraTrials,
      // prepared.ports.env holds the keys under secret names: redaction covers them.
      redact: createRunRedactor(scenarios, prepared.ports.env),
      settled,
    };
  } finally {
    release?.();
  }
}
