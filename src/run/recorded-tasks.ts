/**
 * A replay grades a recording's calls against the tasks of the run's task file. When the file's
 * task differs from the one the recording was made on (bashkit-eval tightened some checks between
 * its runs), the calls would be scored against checks the recorded model never had, silently. A
 * bashkit-eval results file embeds its tasks, so each replayed task is compared with its own; a
 * difference stops the run before any trial, naming the tasks and what differs.
 */
import { ConfigError } from "../errors.js";
import type { RecordingSet } from "../results/read-recordings.js";
import { parseBashkitDataset } from "../scenario/bashkit-dataset.js";
import { stringifySorted } from "../scenario/content-hash.js";
import type { Scenario, UnhashedScenario } from "../scenario/types.js";

type Compared = Pick<UnhashedScenario, "task" | "system" | "files" | "evaluation" | "agent">;

/** What grades a task and what its agent is given, each named as a user would say it. */
const PARTS: ReadonlyArray<[string, (scenario: Compared) => unknown]> = [
  ["prompt", (s) => s.task],
  ["system prompt", (s) => s.system ?? null],
  ["files", (s) => s.files],
  ["checks", (s) => s.evaluation.gates],
  ["turn limit", (s) => s.agent],
];

/** The parts in which two versions of a task differ (empty: the same task); key order never counts. */
function describeTaskDifferences(given: Compared, recorded: Compared): string[] {
  return PARTS.filter(([, part]) => stringifySorted(part(given)) !== stringifySorted(part(recorded))).map(
    ([name]) => name,
  );
}

/**
 * Throws a ConfigError when a task of `scenarios` is not the task `recordings` were made on;
 * `option` names where the recordings came from (`--replay-from`).
 */
export function checkRecordedTasks(
  recordings: readonly RecordingSet[],
  scenarios: readonly Scenario[],
  option: string,
): void {
  const problems: string[] = [];
  for (const set of recordings) {
    if (!set.tasks) continue;
    const recorded = new Map(
      parseBashkitDataset([...set.tasks.values()].join("\n"), set.source).scenarios.map((task) => [
        task.id,
        task,
      ]),
    );
    const differing: string[] = [];
    for (const scenario of scenarios) {
      if (!set.tasks.has(scenario.id)) continue;
      const own = recorded.get(scenario.id);
      // A recorded task this version cannot read is not the task given.
      const parts = own ? describeTaskDifferences(scenario, own) : ["the recorded task does not load"];
      if (parts.length > 0) differing.push(`${scenario.id} (${parts.join(", ")})`);
    }
    if (differing.length > 0) {
      problems.push(
        `${set.source} was recorded on other versions of ${differing.length} task(s) than the task file gives: ${differing.join("; ")}`,
      );
    }
  }
  if (problems.length === 0) return;
  throw new ConfigError(
    `${problems.join(". ")}. Replaying would grade the recorded calls against checks the recorded model never had. Give the tasks that run had (its results file embeds them: jq -c '.results[].task' FILE > tasks.jsonl), and replay runs recorded on different task sets separately`,
    option,
  );
}
