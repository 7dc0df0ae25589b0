import { ConfigError } from "../errors.js";
import { buildScenarioReport } from "./aggregate.js";
import { assembleReport } from "./assemble-report.js";
import { collectSandboxesUsed, sandboxUsedField } from "./sandbox-used.js";
import { scenarioKey } from "./scenario-key.js";
import type { Report, ScenarioReport, TrialReport } from "./types.js";

export interface ShardInput {
  /** Where the report came from, for error messages. */
  file: string;
  report: Report;
}

/**
 * Combines the reports of the shards of one run (`--shard i/n` on a matrix) into one report.
 * Refuses shards of different runs (settings differ), repeated shards and overlapping trials.
 * A missing shard leaves the merged report marked incomplete.
 */
export function mergeShardReports(inputs: ShardInput[]): Report {
  const first = inputs[0];
  if (!first) throw new ConfigError("merge needs at least one report");
  const settings = first.report.run.settings_hash;
  const count = first.report.run.shard?.count ?? 1;
  const seenShards = new Map<number, string>();
  for (const { file, report } of inputs) {
    if (report.run.settings_hash !== settings) {
      throw new ConfigError(
        `belongs to another run (settings ${report.run.settings_hash}, expected ${settings} as in ${first.file}): merge only the shards of one run`,
        file,
      );
    }
    const shard = report.run.shard;
    if ((shard?.count ?? 1) !== count) {
      throw new ConfigError(
        `was split into ${shard?.count ?? 1} shard(s), ${first.file} into ${count}`,
        file,
      );
    }
    const index = shard?.index ?? 1;
    const earlier = seenShards.get(index);
    if (earlier) throw new ConfigError(`is shard ${index}/${count} again (also ${earlier})`, file);
    seenShards.set(index, file);
  }

  const scenarios = new Map<
    string,
    { meta: ScenarioReport; trials: Map<number, TrialReport>; file: string }
  >();
  for (const { file, report } of inputs) {
    for (const scenario of report.scenarios) {
      const key = scenarioKey(scenario);
      const entry = scenarios.get(key) ?? { meta: scenario, trials: new Map(), file };
      scenarios.set(key, entry);
      if (entry.meta.content_hash !== scenario.content_hash) {
        throw new ConfigError(
          `scenario ${key} differs from the one in ${entry.file}: merge only the shards of one run`,
          file,
        );
      }
      for (const trial of scenario.trials) {
        if (entry.trials.has(trial.trial)) {
          throw new ConfigError(
            `trial ${key}#${trial.trial} is also in ${entry.file}: shards must not overlap`,
            file,
          );
        }
        entry.trials.set(trial.trial, trial);
      }
    }
  }

  const reports = inputs.map((i) => i.report);
  const startedAt = reports.map((r) => r.run.started_at).sort()[0] ?? first.report.run.started_at;
  const endedAt =
    reports
      .map((r) => r.run.ended_at)
      .sort()
      .at(-1) ?? first.report.run.ended_at;
  const missingShards = count - seenShards.size;
  const merged = [...scenarios.values()]
    .map(({ meta, trials }) => {
      const { trials: _trials, summary: _summary, ...rest } = meta;
      return buildScenarioReport(rest, [...trials.values()], first.report.run.pass_k);
    })
    .sort((a, b) => scenarioKey(a).localeCompare(scenarioKey(b)));
  return assembleReport(
    {
      ...first.report.run,
      started_at: startedAt,
      ended_at: endedAt,
      incomplete: missingShards > 0 || reports.some((r) => r.run.incomplete),
      ...mergeWarnings(reports.map((r) => r.run.warnings ?? [])),
      ...sandboxUsedField(collectSandboxesUsed(merged.flatMap((scenario) => scenario.trials))),
      shard: null,
    },
    merged,
  );
}

/** Each shard's warnings, each once (every shard probes its own runner). */
function mergeWarnings(lists: string[][]): { warnings?: string[] } {
  const warnings = [...new Set(lists.flat())];
  return warnings.length > 0 ? { warnings } : {};
}
