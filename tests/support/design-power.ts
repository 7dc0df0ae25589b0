import { detectionPower } from "../../src/stats/detection-power.js";
import { iccForRuns } from "../../src/stats/run-clusters.js";

/**
 * A design's exact power with `baseTrials` in runs of 3 (as `plan` plans them), independent trials from
 * three runs on and the decision's prior ICC below.
 */
export function powerOf(
  baseTrials: number,
  head: number,
  extra: number,
  from: number,
  to: number,
  level: number,
) {
  const runs = Math.max(1, Math.round(baseTrials / 3));
  const runTrials = Array.from(
    { length: runs },
    (_, r) => Math.floor(baseTrials / runs) + (r < baseTrials % runs ? 1 : 0),
  );
  return detectionPower(
    { runTrials, headTrials: head, extraTrials: extra, icc: iccForRuns(runs, 0), level },
    from,
    to,
  );
}
