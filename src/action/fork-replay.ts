/**
 * `fork-mode: replay`: a pull request that gets no secrets (a fork's, Dependabot's) cannot call a
 * model, so instead of skipping it replays the baseline's recorded tool calls against its own
 * build of the tool (the replay agent). The baseline artifact holds the whole output folder, so
 * each trial's events.jsonl is next to its report.json.
 */
import path from "node:path";
import { describeError } from "../errors.js";
import type { FoundBaseline } from "../github/find-baseline.js";
import { markdownText } from "../render/escape.js";
import { readRecordings } from "../results/read-recordings.js";
import type { BaselineResolution } from "./resolve-baseline.js";

export type ReplaySource =
  | {
      status: "found";
      /** The baseline run whose transcripts are replayed: the run is compared with it alone. */
      candidate: FoundBaseline;
      /** What `--replay-from` gets: the report.json (its trials' events.jsonl beside it). */
      replayFrom: string;
      /** Scenario keys with recorded calls. */
      scenarios: number;
    }
  | { status: "missing"; reason: string };

/**
 * The first baseline run (the base commit's own first, then newest) whose report has its trials'
 * transcripts; the reason when none has.
 */
export async function findReplaySource(baseline: BaselineResolution, workDir: string): Promise<ReplaySource> {
  if (baseline.status === "disabled") return { status: "missing", reason: 'the input "baseline" is none' };
  if (baseline.status === "missing") return { status: "missing", reason: `no baseline: ${baseline.reason}` };
  const reasons: string[] = [];
  for (const candidate of baseline.candidates) {
    const replayFrom = path.resolve(workDir, candidate.source.file);
    try {
      const recordings = await readRecordings(replayFrom);
      return { status: "found", candidate, replayFrom, scenarios: recordings.byScenario.size };
    } catch (error) {
      reasons.push(describeError(error));
    }
  }
  return {
    status: "missing",
    reason: `no baseline report has its trials' transcripts (${reasons.join("; ")})`,
  };
}

/** Who sent a pull request that gets no secrets, for the messages. */
export function describeSecretlessSender(fromFork: boolean, headRepo: string | null): string {
  return fromFork ? `a fork (${headRepo ?? "a deleted repository"})` : "Dependabot";
}

/**
 * The paragraph above the job summary of a replayed run: why it is a replay, what a replay can and
 * cannot show, what the decision compared, and where the comment went.
 */
export function renderReplayPreamble(input: {
  sender: string;
  /** "run #12 (`abc1234`)" or the baseline file. */
  replayed: string;
  commented: boolean;
}): string {
  const comment = input.commented
    ? ""
    : ' A pull request from a fork gets a read-only token, so this result is here and in the step\'s outputs, not in a comment; a `workflow_run` follow-up workflow can post it (docs/action.md: "Pull requests from forks").';
  return [
    "## 🔁 llm-tool-test: replay of the baseline's recorded calls",
    "",
    `This pull request comes from ${markdownText(input.sender)}, and GitHub gives such workflow runs no secrets, so no model could be called. Instead, the tool calls recorded in the baseline ${input.replayed} were re-issued, in order, against this pull request's build of the tool, and each scenario's gates judged the replayed trials.`,
    "",
    "A replay shows where the tool now behaves differently under the same calls (an exit status, an output, a gate that no longer passes); it cannot show how a model would react to the change (a new flag it would find, an error message that would lead it elsewhere). The decision compares the replayed trials with the trials they replay." +
      comment,
    "",
  ].join("\n");
}

/** The file a `workflow_run` follow-up posts as the comment of a fork's pull request. */
export const FORK_COMMENT_FILE = "comment.md";
