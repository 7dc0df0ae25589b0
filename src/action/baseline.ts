/**
 * The action's baseline: found (resolve-baseline.ts), settled for what this run measures (pooled
 * for `baseline: auto`, a path's report as given), handed to the decide stage, and described for
 * the summary, the comment and the outputs.
 */
import path from "node:path";
import type { DecidedRun } from "../compare/decide-run.js";
import { describeExclusions, type PoolTarget } from "../compare/pool-baselines.js";
import type { BaselineSource } from "../compare/types.js";
import type { FoundBaseline } from "../github/find-baseline.js";
import type { BaselineNote } from "../render/pr-comment.js";
import { type RunBaseline, settleBaseline } from "../run/baseline.js";
import type { ActionRun } from "./action-run.js";
import type { RunContext } from "./context.js";
import type { ReplaySource } from "./fork-replay.js";
import { type BaselineResolution, resolveBaseline } from "./resolve-baseline.js";

/** The baseline as settled for this run's scenarios, with the reports it is made of. */
export interface ActionBaseline extends RunBaseline {
  /** The runs in `report` (`used`), newest first. */
  runs: FoundBaseline[];
}

/** "run #12 (`abc1234`)", or the file of a `baseline: <path>`. */
export function labelBaseline(source: BaselineSource): string {
  if (source.kind === "path") return source.file;
  return `run #${source.runNumber ?? source.runId ?? "?"} (\`${(source.sha ?? "unknown").slice(0, 7)}\`)`;
}

/** Finds the baseline report(s) for `baseline:` and logs what was found, passed over or missing. */
export async function lookUpBaseline(
  { settings, deps, log }: ActionRun,
  context: RunContext,
  where: { workDir: string; downloadDir: string },
): Promise<BaselineResolution> {
  const baseline = await resolveBaseline(
    settings,
    context,
    where.workDir,
    path.join(where.downloadDir, "baseline"),
    {
      github: () => deps.createGitHubClient(settings.githubToken),
      artifacts: deps.artifacts,
      info: log.info,
    },
  );
  if (baseline.status === "found") {
    for (const reason of baseline.skipped) log.info(`Passed over for the baseline: ${reason}.`);
    log.info(
      `Baseline: ${baseline.candidates.map((c) => labelBaseline(c.source)).join(", ")}${baseline.pool ? " (pooled where they measured what this run measures)" : ""}.`,
    );
  } else if (baseline.status === "missing") {
    log.info(`No baseline: ${baseline.reason}.`);
  }
  return baseline;
}

/**
 * Pools `auto`'s reports for the head (or takes a path's report as given), and logs what was left
 * out. Null without a baseline.
 */
export function settleActionBaseline(
  baseline: BaselineResolution,
  target: PoolTarget,
  { log }: Pick<ActionRun, "log">,
): ActionBaseline | null {
  if (baseline.status !== "found") return null;
  const byLabel = new Map(baseline.candidates.map((c) => [labelBaseline(c.source), c]));
  const settled = settleBaseline(
    [...byLabel].map(([label, c]) => ({ label, report: c.report })),
    target,
    // Runs whose report was not valid data were passed over (logged as such) and are listed too.
    { pool: baseline.pool, rejected: baseline.rejected ?? [] },
  );
  // The rejected runs were logged as passed over already: only the pool's own exclusions here.
  const pooledOut = settled.excluded.slice(baseline.rejected?.length ?? 0);
  for (const line of describeExclusions(pooledOut)) log.info(`Left out of the baseline: ${line}.`);
  if (baseline.pool && settled.report) {
    log.info(
      `The baseline pools ${settled.used.length} of ${baseline.candidates.length} base-branch run(s).`,
    );
  }
  return { ...settled, runs: settled.used.map((label) => byLabel.get(label) as FoundBaseline) };
}

/** A shard has no baseline of its own: the merge job compares the merged report. */
export const SHARD_BASELINE: BaselineResolution = {
  status: "missing",
  reason: "a shard is compared with the baseline after the merge",
};

/**
 * A replay is compared with the run whose calls it replays, used as given (its agent was a model's,
 * so pooling would leave every run out). A shard is compared after the merge.
 */
export function replayBaseline(
  source: ReplaySource & { status: "found" },
  sharded: boolean,
): BaselineResolution {
  if (sharded) return SHARD_BASELINE;
  return { status: "found", candidates: [source.candidate], pool: false, skipped: [] };
}

/** What the summary, comment and outputs say about the baseline this run was compared with. */
export function noteBaseline(
  baseline: BaselineResolution,
  settled: ActionBaseline | null,
  { comparison, comparisonError }: Pick<DecidedRun, "comparison" | "comparisonError">,
  context: RunContext,
  { log }: Pick<ActionRun, "log">,
): BaselineNote {
  const pr = context.pullRequest;
  const [newest, ...older] = settled?.runs ?? [];
  if (baseline.status !== "found") return baseline;
  if (!newest) {
    return {
      status: "missing",
      reason: `no base-branch run measured what this run measures (${describeExclusions(settled?.excluded ?? []).join("; ")})`,
    };
  }
  if (comparison) {
    return {
      status: "found",
      source: newest.source,
      baseRef: pr?.baseRef ?? null,
      baseSha: pr?.baseSha ?? null,
      moreRuns: older.length,
    };
  }
  log.warn(`The baseline report could not be compared: ${comparisonError}`);
  return {
    status: "missing",
    reason: `the baseline report could not be compared (${comparisonError})`,
  };
}
