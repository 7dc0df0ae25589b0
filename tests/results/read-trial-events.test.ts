import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadTrialEvents } from "../../src/results/read-trial-events.js";
import type { TrialEvent } from "../../src/transcript/events.js";
import {
  FAILING_EVENTS_PATH,
  makeFailingTrialEvents,
  makePassingTrialEvents,
  makeSampleReport,
  PASSING_EVENTS_PATH,
} from "../support/sample-report.js";

describe("loadTrialEvents", () => {
  let dir: string | null = null;
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
    dir = null;
  });

  async function writeEvents(root: string, relative: string, events: TrialEvent[], tail = ""): Promise<void> {
    const file = path.join(root, relative);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, events.map((e) => JSON.stringify(e)).join("\n") + "\n" + tail);
  }

  it("reads each trial's events.jsonl relative to the report and skips missing files", async () => {
    dir = await mkdtemp(path.join(tmpdir(), "html-events-"));
    const reportDir = path.join(dir, "out");
    await writeEvents(reportDir, FAILING_EVENTS_PATH, makeFailingTrialEvents(), `{"type":"trial_e`);
    await writeEvents(reportDir, PASSING_EVENTS_PATH, makePassingTrialEvents());
    const loaded = await loadTrialEvents(makeSampleReport(), reportDir);
    expect(Object.keys(loaded).sort()).toEqual([PASSING_EVENTS_PATH, FAILING_EVENTS_PATH].sort());
    expect(loaded[FAILING_EVENTS_PATH]).toEqual(makeFailingTrialEvents());
    expect(loaded[PASSING_EVENTS_PATH]).toHaveLength(makePassingTrialEvents().length);
  });

  it("ignores events paths that leave the report's folder", async () => {
    dir = await mkdtemp(path.join(tmpdir(), "html-events-"));
    const reportDir = path.join(dir, "out");
    await mkdir(reportDir, { recursive: true });
    await writeEvents(dir, "secret/events.jsonl", makePassingTrialEvents());
    const report = makeSampleReport();
    const trial = report.scenarios[0]?.trials[0];
    if (!trial) throw new Error("fixture changed");
    trial.events_path = "../secret/events.jsonl";
    const absolute = report.scenarios[0]?.trials[1];
    if (!absolute) throw new Error("fixture changed");
    absolute.events_path = path.join(dir, "secret/events.jsonl");
    expect(await loadTrialEvents(report, reportDir)).toEqual({});
  });
});
