/**
 * The one pipeline of a run, for every front end: a run produced → decided (compare/decide-run.ts)
 * → written (write-outputs.ts) → presented. A run is produced by running scenarios (prepare →
 * baseline settled for the plan → suite, `produceSuiteRun`) or otherwise (the action's merge of
 * shards, a fork's report read by its follow-up); presenting is the front end's own (the CLI
 * prints, the action publishes). Side effects come in as the steps and ports.
 */
import {
  type DecidedRun,
  type DecisionBaseline,
  type DecisionPolicy,
  decideRun,
} from "../compare/decide-run.js";
import type { Report } from "../results/types.js";
import type { RunBaseline } from "./baseline.js";
import { type PreparedRun, runPrepared } from "./prepare.js";
import { createRunRedactor, type SuitePorts } from "./suite.js";
import { type OutputFolder, writeRunOutputs } from "./write-outputs.js";

/** What the decide stage takes from the run stage. */
export interface ProducedRun {
  report: Report;
  /** The extra trials of the run's design; unset: read from the report (a run not at hand). */
  designExtraTrials?: number;
  /** The baseline settled for the run, as the decision takes it; null without one. */
  decisionBaseline: DecisionBaseline | null;
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
    baseline: produced.decisionBaseline,
    policy: steps.policy,
    designExtraTrials: produced.designExtraTrials,
  });
  const written = steps.output
    ? await writeRunOutputs(produced.report, decided, {
        ...(await steps.output(produced)),
        redact: produced.redact,
      })
    : [];
  return steps.present(produced, decided, written);
}

/** A settled baseline as the decide stage takes it: its report and what the pool is made of. */
export function decisionBaselineOf(
  settled: Pick<RunBaseline, "report" | "used" | "excluded" | "runCounts">,
): DecisionBaseline {
  return {
    report: settled.report,
    pooling: {
      runs: settled.used,
      excluded: settled.excluded,
      ...(settled.runCounts ? { runCounts: settled.runCounts } : {}),
    },
  };
}

/** The suite's ports a front end brings: cancellation, the commit, progress, the clock; `release` once it ends. */
export type FrontEndPorts = Pick<SuitePorts, "signal" | "git" | "onProgress" | "now"> & {
  release?: () => void;
};

/** How a front end runs scenarios: its setup, its baseline settled for the plan, its ports. */
export interface SuiteRunSteps<B extends Pick<RunBaseline, "report" | "counts">> {
  prepare(): Promise<PreparedRun>;
  /** The baseline settled for what the prepared run measures (poolTargetOfPrepared); null: none. */
  settle(prepared: PreparedRun): B | null;
  /** Its decision form (decisionBaselineOf). */
  decisionBaseline(settled: B | null): DecisionBaseline | null;
  ports(prepared: PreparedRun, settled: B | null): Promise<FrontEndPorts>;
}

/** The run stage of a run of scenarios: prepare → settle the baseline → run the suite. */
export async function produceSuiteRun<B extends Pick<RunBaseline, "report" | "counts">>(
  steps: SuiteRunSteps<B>,
): Promise<Required<ProducedRun> & { prepared: PreparedRun; settled: B | null }> {
  const prepared = await steps.prepare();
  const settled = steps.settle(prepared);
  const { release, ...ports } = await steps.ports(prepared, settled);
  try {
    const { report, designExtraTrials } = await runPrepared(prepared, settled, ports);
    return {
      report,
      designExtraTrials,
      decisionBaseline: steps.decisionBaseline(settled),
      // prepared.ports.env holds the keys under secret names: redaction covers them.
      redact: createRunRedactor(prepared.scenarios, prepared.ports.env),
      prepared,
      settled,
    };
  } finally {
    release?.();
  }
}
