/**
 * Parity with bashkit-eval on real transcripts: its recorded Claude Haiku 4.5 and Opus 4.7 runs of
 * its 58 tasks (tests/fixtures/bashkit-eval/replay/) are replayed through the anthropic agent in
 * the bwrap sandbox, and each check's verdict is compared with the one bashkit-eval's scorer
 * recorded for the same model turns. Each task starts where the bashkit that recorded the run
 * started it (scenario/bashkit-home.ts: /home/user, HOME /home/eval absent, for May 2026). The commands now run in real bash, not bashkit's interpreter,
 * so where that interpreter differs from bash the verdicts may too: every such check is listed
 * below with its reason, and any other disagreement fails the test.
 */
import { execFileSync } from "node:child_process";
import { beforeAll, describe, expect, it } from "vitest";
import { type Disagreement, type ReplayResult, replayRecordedRun } from "../support/bashkit-replay.js";
import { findBwrapProblem } from "../support/processes.js";

interface KnownDisagreement {
  task: string;
  check: string;
  /** bashkit-eval's recorded verdict (the harness's is the opposite). */
  bashkit: boolean;
  reason: string;
  /** In bash the verdict depends on timing: the disagreement may or may not happen. */
  racy?: true;
}

const ASSOC_COUNTS =
  "bashkit's interpreter: counts kept in an associative array (`((count[$k]++))`, `counts[$ext]=$((…+1))`) come out wrong or empty there, so the recorded run never printed the right counts; bash prints them";

const HAIKU_DISAGREEMENTS: KnownDisagreement[] = [
  { task: "file_path_organizer", check: "stdout_contains:txt: 2", bashkit: false, reason: ASSOC_COUNTS },
  { task: "file_path_organizer", check: "stdout_contains:csv: 2", bashkit: false, reason: ASSOC_COUNTS },
  {
    task: "script_assoc_array",
    check: "stdout_regex:3.*visitor|United States.*3",
    bashkit: false,
    reason: ASSOC_COUNTS,
  },
];

/** Checks of Opus 4.7's file_path_organizer that hold only where the task starts in bashkit's /home/user. */
const ORGANIZED_FILES = [
  "file_exists:/uploads/txt/report.txt",
  "file_exists:/uploads/txt/notes.txt",
  "file_exists:/uploads/csv/data.csv",
  "file_exists:/uploads/csv/results.csv",
  "file_exists:/uploads/json/config.json",
];
const INI_CASE =
  'bashkit\'s interpreter: `case "$t" in \\[*\\])` does not match `[server]` there, so its merge script wrote an empty merged.ini; in bash it matches and writes it complete, but a later recorded command, `bash -x /tmp/merge.sh 2>&1 | head -80`, reruns the script (which empties the file before writing it) while `head` may close the pipe and SIGPIPE kill it halfway: complete or empty depends on timing';

const OPUS_DISAGREEMENTS: KnownDisagreement[] = [
  { task: "file_path_organizer", check: "stdout_contains:txt: 2", bashkit: false, reason: ASSOC_COUNTS },
  { task: "file_path_organizer", check: "stdout_contains:csv: 2", bashkit: false, reason: ASSOC_COUNTS },
  ...[
    "file_contains:/config/merged.ini:port=9090",
    "file_contains:/config/merged.ini:workers=8",
    "file_contains:/config/merged.ini:host=0.0.0.0",
    "file_contains:/config/merged.ini:pool_size=5",
    "file_contains:/config/merged.ini:level=debug",
  ].map((check) => ({
    task: "config_ini_merge",
    check,
    bashkit: false,
    reason: INI_CASE,
    racy: true as const,
  })),
];

/**
 * Host tools the recorded commands call that a minimal Debian lacks (.ci/run installs them). Where
 * one is missing, the tasks whose commands call it are left out of the comparison.
 */
const HOST_TOOLS: Record<string, RegExp> = {
  tree: /\btree\b/,
  gawk: /\b[gm]?awk\b/,
  jq: /\bjq\b/,
  python3: /\bpython3?\b/,
};

function missingHostTools(): string[] {
  return Object.keys(HOST_TOOLS).filter((tool) => {
    try {
      execFileSync("sh", ["-c", `command -v ${tool}`], { stdio: "ignore" });
      return false;
    } catch {
      return true;
    }
  });
}

/** Tasks whose recorded commands call a tool this host lacks, with the tool. */
function tasksNeedingMissingTools(result: ReplayResult, missing: string[]): Map<string, string> {
  const skipped = new Map<string, string>();
  for (const task of result.recorded.tasks) {
    const commands = task.turns
      .flat()
      .map((block) => block.input?.commands ?? "")
      .join("\n");
    const tool = missing.find((name) => HOST_TOOLS[name]?.test(commands));
    if (tool) skipped.set(task.id, tool);
  }
  return skipped;
}

function unexplained(
  result: ReplayResult,
  known: KnownDisagreement[],
  skipped: Map<string, string>,
): Disagreement[] {
  return result.disagreements.filter(
    (found) =>
      !skipped.has(found.task) &&
      !known.some(
        (entry) =>
          entry.task === found.task &&
          entry.check === found.check &&
          entry.bashkit === found.bashkit &&
          found.harness === !entry.bashkit,
      ),
  );
}

/** Listed disagreements that did not happen: fixed, or the list is stale. */
function unseen(result: ReplayResult, known: KnownDisagreement[], skipped: Map<string, string>) {
  return known.filter(
    (entry) =>
      !entry.racy &&
      !skipped.has(entry.task) &&
      !result.disagreements.some((found) => found.task === entry.task && found.check === entry.check),
  );
}

describe.skipIf(findBwrapProblem() !== null)(
  "replaying bashkit-eval's recorded runs through the anthropic agent in bwrap",
  () => {
    let haiku: ReplayResult;
    let opus: ReplayResult;
    const missing = missingHostTools();

    beforeAll(async () => {
      // Both recordings at once: most of a trial's time is spent waiting on bwrap start-ups.
      [haiku, opus] = await Promise.all([
        replayRecordedRun("haiku-4-5", 4),
        replayRecordedRun("opus-4-7", 4),
      ]);
      if (missing.length > 0) {
        console.warn(
          `bashkit replay: ${missing.join(", ")} missing on this host; tasks whose recorded commands call them are not compared (install them as .ci/run does)`,
        );
      }
    }, 180_000);

    it("Haiku 4.5: every check agrees but the listed ones, at least 56 of the 58 tasks", () => {
      const skipped = tasksNeedingMissingTools(haiku, missing);
      expect(haiku.recorded.tasks).toHaveLength(58);
      expect(unexplained(haiku, HAIKU_DISAGREEMENTS, skipped)).toEqual([]);
      expect(unseen(haiku, HAIKU_DISAGREEMENTS, skipped)).toEqual([]);
      const agreeing = haiku.agreeingTasks;
      expect(agreeing).toBeGreaterThanOrEqual(56 - skipped.size);
      if (skipped.size === 0)
        expect([agreeing, haiku.agreeingChecks, haiku.totalChecks]).toEqual([56, 312, 315]);
    });

    it("Haiku 4.5: turns, tool calls, natural stops and tokens are bashkit-eval's, with its 10-turn limit", () => {
      for (const task of haiku.recorded.tasks) {
        const trial = haiku.trials.get(task.id);
        expect(trial?.execution, task.id).toMatchObject({
          turns: task.metrics.turns,
          tool_calls: task.metrics.tool_calls,
          natural_stop: task.metrics.natural_stop,
          input_tokens: task.metrics.input_tokens,
          output_tokens: task.metrics.output_tokens,
        });
      }
      // Three recorded tasks ran into bashkit-eval's limit; they stop at the same turn here.
      const limited = haiku.recorded.tasks
        .filter((task) => !task.metrics.natural_stop)
        .map((task) => task.id);
      expect(limited.length).toBeGreaterThan(0);
      for (const id of limited) expect(haiku.trials.get(id)?.end_reason, id).toBe("turn_limit");
    });

    it("Opus 4.7: the hostname and /lib tasks agree, and only the listed checks disagree", () => {
      const skipped = tasksNeedingMissingTools(opus, missing);
      const verdicts = (id: string) =>
        opus.trials.get(id)?.gates.map((gate) => [gate.description, gate.passed]);
      const recorded = (id: string) =>
        opus.recorded.tasks
          .find((task) => task.id === id)
          ?.score.checks.map((check) => [check.check, check.passed]);
      // The model ran `hostname` and wrote /lib/utils.sh; bashkit-eval passed both tasks.
      expect(verdicts("sysinfo_env_report")).toContainEqual(["stdout_contains:host: bashkit-eval", true]);
      expect(verdicts("sysinfo_env_report")).toEqual(recorded("sysinfo_env_report"));
      expect(verdicts("script_function_lib")).toContainEqual(["file_exists:/lib/utils.sh", true]);
      expect(verdicts("script_function_lib")).toEqual(recorded("script_function_lib"));
      expect(unexplained(opus, OPUS_DISAGREEMENTS, skipped)).toEqual([]);
      expect(unseen(opus, OPUS_DISAGREEMENTS, skipped)).toEqual([]);
    });
  },
);

/**
 * A verdict that depends on where the task starts. Opus 4.7's first `cat > /home/eval/organize.sh`
 * failed in bashkit (HOME /home/eval did not exist there), so it wrote the script again in its
 * working directory, /home/user, ran it, and later ran a retry whose `mv /uploads/txt/* ...` undoes
 * nothing once the files are sorted. With the work dir /home/eval as HOME and cwd (how every
 * bashkit task ran before the layouts were kept), /home/user does not exist: the second script is
 * never written, the retry's `mv` puts the files back in /uploads, and five checks bashkit passed
 * fail. With the layout of the bashkit that recorded the run they pass, as in bashkit.
 */
describe.skipIf(findBwrapProblem() !== null)("the home layout decides Opus 4.7's file_path_organizer", () => {
  let harness: ReplayResult;
  let recorded: ReplayResult;
  let current: ReplayResult;

  beforeAll(async () => {
    const only = ["file_path_organizer"];
    [harness, recorded, current] = await Promise.all([
      replayRecordedRun("opus-4-7", 1, { only, home: "harness" }),
      replayRecordedRun("opus-4-7", 1, { only, home: "recorded" }),
      replayRecordedRun("opus-4-7", 1, { only, home: "current" }),
    ]);
  }, 120_000);

  const organized = (result: ReplayResult) =>
    result.trials
      .get("file_path_organizer")
      ?.gates.filter((gate) => ORGANIZED_FILES.includes(gate.description ?? ""))
      .map((gate) => gate.passed);
  const bashkitVerdicts = (result: ReplayResult) =>
    result.recorded.tasks[0]?.score.checks
      .filter((check) => ORGANIZED_FILES.includes(check.check))
      .map((check) => check.passed);

  it("bashkit passed the five checks; the harness's old /home/eval work dir fails them", () => {
    expect(bashkitVerdicts(harness)).toEqual([true, true, true, true, true]);
    expect(harness.trials.get("file_path_organizer")?.home_layout).toBeUndefined();
    expect(organized(harness)).toEqual([false, false, false, false, false]);
  });

  it("the recording's own layout (bashkit-home-missing, by its date) passes them, as bashkit did", () => {
    expect(recorded.trials.get("file_path_organizer")?.home_layout).toBe("bashkit-home-missing");
    expect(organized(recorded)).toEqual(bashkitVerdicts(recorded));
    // Its first script fails as in bashkit (exit 127: HOME names no folder); with /home/eval made it runs.
    const errors = (result: ReplayResult) =>
      result.trials.get("file_path_organizer")?.execution.tool_calls_error;
    expect(errors(recorded)).toBe((errors(current) ?? 0) + 1);
  });

  it("the current bashkit's layout (/home/eval made) passes them too: here the cwd decides", () => {
    expect(current.trials.get("file_path_organizer")?.home_layout).toBe("bashkit-home-created");
    expect(organized(current)).toEqual([true, true, true, true, true]);
  });
});
