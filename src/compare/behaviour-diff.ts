/**
 * What the agent did differently, base vs head, in a regressed scenario: the share of calls using
 * each subcommand and each option (`--icsv` in 100% → 0% of calls), the command shapes the base
 * runs never used, help lookups, and the head's first failed call. Read from each side's trials'
 * `behaviour` (pooled by results/aggregate.ts summarizeBehaviour), so base runs need no transcripts.
 * Pure; descriptive only: it never moves a verdict.
 */
import { summarizeBehaviour } from "../results/aggregate.js";
import { scenarioKey } from "../results/scenario-key.js";
import type { BehaviourSummary, Report } from "../results/types.js";

export interface ShareChange {
  kind: "subcommand" | "option";
  name: string;
  /** Share of the side's calls (0–1); null when the side made no call. */
  base: number | null;
  head: number | null;
}

export interface BehaviourDiff {
  /** The scenario key. */
  key: string;
  /** False when the base runs do not record behaviour (reports of earlier versions): only the head is shown. */
  base_available: boolean;
  base_calls: number;
  head_calls: number;
  base_trials: number;
  head_trials: number;
  /** Subcommands and options whose share of calls changed, the largest change first (at most 20). */
  shares: ShareChange[];
  /** Command shapes (subcommand and options) of the head that no base run used, most used first (at most 10). */
  new_commands: Array<{ shape: string; calls: number }>;
  /** Help lookups per trial; base null when not available. */
  help_per_trial: { base: number | null; head: number };
  /** The head's first failed call (a failing trial's when one has it). */
  first_failure: BehaviourSummary["first_failure"];
}

const MAX_SHARES = 20;
const MAX_NEW_COMMANDS = 10;

/** The diff of one scenario; null when the head does not record behaviour. */
export function diffBehaviour(
  key: string,
  base: BehaviourSummary | undefined,
  head: BehaviourSummary | undefined,
): BehaviourDiff | null {
  if (!head) return null;
  const share = (count: number | undefined, calls: number) => (calls > 0 ? (count ?? 0) / calls : null);
  const shares: ShareChange[] = [];
  const newCommands: BehaviourDiff["new_commands"] = [];
  if (base) {
    for (const [kind, baseCounts, headCounts] of [
      ["subcommand", base.subcommands, head.subcommands],
      ["option", base.options, head.options],
    ] as const) {
      for (const name of new Set([...Object.keys(baseCounts), ...Object.keys(headCounts)])) {
        const change = {
          kind,
          name,
          base: share(baseCounts[name], base.calls),
          head: share(headCounts[name], head.calls),
        };
        if (change.base !== change.head) shares.push(change);
      }
    }
    shares.sort((a, b) => changeSize(b) - changeSize(a) || a.name.localeCompare(b.name));
    for (const [shape, calls] of Object.entries(head.shapes)) {
      if (!(shape in base.shapes)) newCommands.push({ shape, calls });
    }
    newCommands.sort((a, b) => b.calls - a.calls || a.shape.localeCompare(b.shape));
  }
  return {
    key,
    base_available: base !== undefined,
    base_calls: base?.calls ?? 0,
    head_calls: head.calls,
    base_trials: base?.trials ?? 0,
    head_trials: head.trials,
    shares: shares.slice(0, MAX_SHARES),
    new_commands: newCommands.slice(0, MAX_NEW_COMMANDS),
    help_per_trial: {
      base: base && base.trials > 0 ? base.help_calls / base.trials : null,
      head: head.trials > 0 ? head.help_calls / head.trials : 0,
    },
    first_failure: head.first_failure,
  };
}

/** How far a share moved, to 1e-9 (so equal moves tie); a side without calls counts as 0. */
export function changeSize(change: ShareChange): number {
  return Math.round(Math.abs((change.head ?? 0) - (change.base ?? 0)) * 1e9) / 1e9;
}

/** The diffs of the given scenarios (the regressed ones), in their order; those the head cannot show are left out. */
export function diffRegressedBehaviour(
  baseline: Report,
  head: Report,
  keys: readonly string[],
): BehaviourDiff[] {
  // From the trials (shape-checked when a report is read), not a scenario's stored summary.
  const pooled = (report: Report) =>
    new Map(report.scenarios.map((s) => [scenarioKey(s), summarizeBehaviour(s.trials) ?? undefined]));
  const baseByKey = pooled(baseline);
  const headByKey = pooled(head);
  return keys
    .map((key) => diffBehaviour(key, baseByKey.get(key), headByKey.get(key)))
    .filter((diff): diff is BehaviourDiff => diff !== null);
}
