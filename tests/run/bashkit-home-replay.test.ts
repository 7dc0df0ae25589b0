/**
 * `--agent replay --replay-from` a bashkit-eval results file: its tasks start where the bashkit that
 * recorded it started them, by the run's date (scenario/bashkit-home.ts), and each model of a
 * matrix gets its own run's. Two runs of Claude Haiku 4.5 from bashkit's history, each cut to the
 * task where its layout shows (tests/fixtures/bashkit-eval/SOURCE.md):
 *
 * - 2026-02-27 (HOME /home/eval, absent): file_path_organizer's third call, `pwd && ls -la ~`,
 *   printed /home/user and exited 2 ("cannot access '/home/eval'");
 * - 2026-02-09 (no HOME; `~` is /home/user): json_to_csv_export's third call listed `~` and exited 0.
 *
 * Each call is replayed in real bash in the bwrap sandbox; with the recording's own layout it exits
 * as recorded, with another it does not. A replay of such a replay's output folder keeps the layout.
 */
import { cp, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { EXIT } from "../../src/cli/command.js";
import type { Report } from "../../src/results/types.js";
import type { TrialEvent } from "../../src/transcript/events.js";
import { runMain } from "../cli/run-main.js";
import { findBwrapProblem } from "../support/processes.js";
import { makeTempDir } from "../support/temp-dirs.js";

const FIXTURES = path.resolve(import.meta.dirname, "../fixtures/bashkit-eval");
const FEBRUARY_27 = path.join(FIXTURES, "results/haiku-4-5-2026-02-27-file-path-organizer.results.json");
const FEBRUARY_9 = path.join(FIXTURES, "results/haiku-4-5-2026-02-09-json-to-csv.results.json");
const FEBRUARY_28_GPT = path.join(FIXTURES, "results/gpt-5.2-2026-02-28-data-regex-extract.results.json");
const MAY_26_OPUS = path.join(FIXTURES, "results/eval-anthropic-claude-opus-4-7-2026-05-26-020742.json");
const dir = makeTempDir("ltt-bashkit-home-replay-");

/** One task of the 58-task dataset, as a dataset of its own. */
async function datasetOf(id: string): Promise<string> {
  const lines = (await readFile(path.join(FIXTURES, "replay/haiku-4-5.tasks.jsonl"), "utf8")).split("\n");
  const line = lines.find((text) => text.includes(`"id":"${id}"`));
  if (!line) throw new Error(`no task ${id}`);
  const file = path.join(dir, `${id}.jsonl`);
  await writeFile(file, `${line}\n`);
  return file;
}

let runs = 0;
async function replay(
  dataset: string,
  args: string[],
): Promise<{ report: Report; out: string; stderr: string }> {
  runs += 1;
  const out = path.join(dir, `out-${runs}`);
  const result = await runMain(["run", dataset, ...args, "--sandbox", "bwrap", "--out", out], { cwd: dir });
  // The recorded tasks fail some checks: exit 1, never a configuration or infrastructure error.
  expect([0, 1], result.stderr).toContain(result.code);
  return {
    report: JSON.parse(await readFile(path.join(out, "report.json"), "utf8")) as Report,
    out,
    stderr: result.stderr,
  };
}

/** Each replayed call's exit code beside the recorded one, by call number. */
async function exitCodes(
  run: { report: Report; out: string },
  scenario = 0,
): Promise<Map<number, { recorded: number | null; now: number }>> {
  const trial = run.report.scenarios[scenario]?.trials[0];
  const text = await readFile(path.join(run.out, trial?.events_path as string), "utf8");
  const codes = new Map<number, { recorded: number | null; now: number }>();
  for (const line of text.split("\n").filter(Boolean)) {
    const event = JSON.parse(line) as TrialEvent;
    if (event.type === "replay_check")
      codes.set(event.index, { recorded: event.recorded_exit_code, now: event.exit_code });
  }
  return codes;
}

describe.skipIf(findBwrapProblem() !== null)(
  "a replayed bashkit-eval run gets its bashkit's home layout",
  () => {
    let own: { report: Report; out: string; stderr: string };
    let current: { report: Report; out: string; stderr: string };

    beforeAll(async () => {
      const organizer = await datasetOf("file_path_organizer");
      [own, current] = await Promise.all([
        replay(organizer, ["--replay-from", FEBRUARY_27]),
        replay(organizer, ["--replay-from", FEBRUARY_27, "--bashkit-home", "current"]),
      ]);
    }, 240_000);

    it("2026-02-27: HOME /home/eval absent, so `ls -la ~` exits 2 as recorded", async () => {
      expect(own.report.scenarios[0]?.trials[0]?.home_layout).toBe("bashkit-home-missing");
      expect((await exitCodes(own)).get(3)).toEqual({ recorded: 2, now: 2 });
    });

    it("the same calls with the current bashkit's layout (--bashkit-home current): /home/eval exists, exit 0", async () => {
      expect(current.report.scenarios[0]?.trials[0]?.home_layout).toBe("bashkit-home-created");
      expect((await exitCodes(current)).get(3)).toEqual({ recorded: 2, now: 0 });
      // Said in the flag's words (the action names its input: tests/run/setting-names.test.ts).
      expect(current.stderr).toContain(
        "note: --bashkit-home bashkit-home-created: every bashkit task gets it, not the layout of the bashkit that recorded the replayed run\n",
      );
      expect(own.stderr).not.toContain("--bashkit-home");
    });

    it("a matrix of runs recorded on two versions of the task stops before any trial (no silent regrade)", async () => {
      // February 9th's json_to_csv_export had other checks than May 26th's: one task file cannot grade both.
      const result = await runMain(
        [
          "run",
          await datasetOf("json_to_csv_export"),
          "--replay-from",
          FEBRUARY_9,
          "--replay-from",
          MAY_26_OPUS,
          "--sandbox",
          "bwrap",
          "--out",
          path.join(dir, "never-written"),
        ],
        { cwd: dir },
      );
      expect(result.code).toBe(EXIT.usage);
      expect(result.stderr).toContain(
        `${FEBRUARY_9} was recorded on other versions of 1 task(s) than the task file gives: json_to_csv_export (checks)`,
      );
      expect(result.stderr).not.toContain(MAY_26_OPUS);
    });

    it("replaying that replay's own output folder keeps the layout its trials had", async () => {
      const again = await replay(await datasetOf("file_path_organizer"), ["--replay-from", own.out]);
      expect(again.report.scenarios[0]?.trials[0]?.home_layout).toBe("bashkit-home-missing");
      expect((await exitCodes(again)).get(3)).toEqual({ recorded: 2, now: 2 });
    }, 120_000);

    it("a run folder naming a layout this version does not know: the current one, never a path", async () => {
      const forged = path.join(dir, "forged-run");
      await cp(own.out, forged, { recursive: true });
      const report = JSON.parse(await readFile(path.join(forged, "report.json"), "utf8")) as Report;
      for (const scenario of report.scenarios)
        for (const trial of scenario.trials) trial.home_layout = "../../etc";
      await writeFile(path.join(forged, "report.json"), JSON.stringify(report));
      const again = await replay(await datasetOf("file_path_organizer"), ["--replay-from", forged]);
      expect(again.report.scenarios[0]?.trials[0]?.home_layout).toBe("bashkit-home-created");
    }, 120_000);

    it("the run's evaluation hash says which layouts it gave, so it is not pooled with a run that gave others", () => {
      expect(own.report.run.evaluation_hash).not.toBe(current.report.run.evaluation_hash);
    });
  },
);

/**
 * A verdict that turns on HOME's folder. GPT-5.2's one call of data_regex_extract (2026-02-28)
 * begins `cd /home/eval || exit 1`. In bashkit that cd failed (HOME /home/eval did not exist), yet
 * its interpreter did not exit and printed the answer: 5 of 6 checks passed. With the recording's
 * layout the cd fails here too, with bashkit's message, and bash exits as `|| exit 1` says: every
 * check fails, an interpreter difference (as in tests/run/bashkit-replay.test.ts), now visible for
 * what it is. With the current bashkit's layout /home/eval exists, the cd succeeds, and the
 * verdicts match bashkit's for another reason.
 */
describe.skipIf(findBwrapProblem() !== null)("HOME's folder decides GPT-5.2's data_regex_extract", () => {
  let own: { report: Report; out: string };
  let current: { report: Report; out: string };
  let recorded: boolean[];

  beforeAll(async () => {
    const dataset = await datasetOf("data_regex_extract");
    [own, current] = await Promise.all([
      replay(dataset, ["--replay-from", FEBRUARY_28_GPT]),
      replay(dataset, ["--replay-from", FEBRUARY_28_GPT, "--bashkit-home", "current"]),
    ]);
    const file = JSON.parse(await readFile(FEBRUARY_28_GPT, "utf8")) as {
      results: { score: { results: { passed: boolean }[] } }[];
    };
    recorded = file.results[0]?.score.results.map((check) => check.passed) ?? [];
  }, 240_000);

  const verdicts = (run: { report: Report }) =>
    run.report.scenarios[0]?.trials[0]?.gates.map((gate) => gate.passed);

  it("bashkit passed five of its six checks", () => {
    expect(recorded).toEqual([true, true, true, false, true, true]);
  });

  it("its own layout (bashkit-home-missing): the cd fails as it did in bashkit, and bash exits", async () => {
    expect(own.report.scenarios[0]?.trials[0]?.home_layout).toBe("bashkit-home-missing");
    const trial = own.report.scenarios[0]?.trials[0];
    const events = (await readFile(path.join(own.out, trial?.events_path as string), "utf8"))
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as TrialEvent);
    const result = events.find((event) => event.type === "tool_result");
    expect(result?.type === "tool_result" && result.stderr).toMatch(
      /cd: \/home\/eval: No such file or directory/,
    );
    expect(result?.type === "tool_result" && result.exit_code).toBe(1);
    expect(verdicts(own)).toEqual([false, false, false, false, false, false]);
  });

  it("the current bashkit's layout: /home/eval exists, the cd succeeds, five checks pass", () => {
    expect(current.report.scenarios[0]?.trials[0]?.home_layout).toBe("bashkit-home-created");
    expect(verdicts(current)).toEqual(recorded);
  });
});

describe("bad input", () => {
  it("--bashkit-home that names no layout or date: a usage error naming the option and the choices, nothing run", async () => {
    const out = path.join(dir, "out-bad-option");
    const result = await runMain(
      ["run", await datasetOf("file_path_organizer"), "--bashkit-home", "2026-02-30", "--out", out],
      { cwd: dir },
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /--bashkit-home: expected current, bashkit-home-unset, bashkit-home-missing, bashkit-home-created, or a date/,
    );
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it.skipIf(findBwrapProblem() !== null)(
    "a bashkit-eval results file whose timestamp is no date: the current layout, and a note saying why",
    async () => {
      const recorded = JSON.parse(await readFile(FEBRUARY_27, "utf8")) as Record<string, unknown>;
      const undated = path.join(dir, "undated.results.json");
      await writeFile(undated, JSON.stringify({ ...recorded, timestamp: "last tuesday" }));
      const out = path.join(dir, "out-undated");
      const result = await runMain(
        [
          "run",
          await datasetOf("file_path_organizer"),
          "--replay-from",
          undated,
          "--sandbox",
          "bwrap",
          "--out",
          out,
        ],
        { cwd: dir },
      );
      expect([0, 1], result.stderr).toContain(result.code);
      expect(result.stderr).toMatch(
        /undated\.results\.json: the recorded run has no date .*current bashkit's home layout/,
      );
      const report = JSON.parse(await readFile(path.join(out, "report.json"), "utf8")) as Report;
      expect(report.scenarios[0]?.trials[0]?.home_layout).toBe("bashkit-home-created");
    },
    120_000,
  );
});
