import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { ConfigError } from "../errors.js";
import { describeExcessNesting, findExcessNesting } from "../json-nesting.js";
import type { TrialReport } from "../results/types.js";
import type { AdaptiveDesign } from "./adaptive.js";
import type { PlannedTrial } from "./plan.js";
import { trialFolderOf } from "./trial.js";

/** `run.json`: what a run set out to do, so `--resume` can refuse a run whose inputs changed. */
export interface RunManifest {
  manifest_version: 1;
  run_id: string;
  started_at: string;
  harness_version: string;
  settings_hash: string;
  shard: { index: number; count: number } | null;
  /** The first trials; extra trials are not listed, the adaptive design below decides them. */
  trial_keys: string[];
  /**
   * The adaptive design the run started with (null: no extra trials). A resumed run recomputes
   * which scenarios get extra trials from it and the finished first trials. Absent in manifests of
   * earlier versions, whose runs had no extra trials.
   */
  adaptive?: AdaptiveDesign | null;
}

const MANIFEST = "run.json";

export async function writeManifest(outDir: string, manifest: RunManifest): Promise<void> {
  await writeFile(path.join(outDir, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
}

export async function readManifest(outDir: string): Promise<RunManifest> {
  const file = path.join(outDir, MANIFEST);
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch {
    throw new ConfigError(
      `nothing to resume: no ${MANIFEST} there (pass the --out folder of an earlier run)`,
      outDir,
    );
  }
  refuseExcessNesting(text, file);
  try {
    return JSON.parse(text) as RunManifest;
  } catch {
    throw new ConfigError("the run manifest is not valid JSON: start a new run instead", file);
  }
}

/** Refuses to resume when the scenarios, model or settings differ from the interrupted run's. */
export function checkResumable(
  manifest: RunManifest,
  settingsHash: string,
  plan: PlannedTrial[],
  outDir: string,
): void {
  const planned = plan.map((t) => t.key).sort();
  const recorded = [...manifest.trial_keys].sort();
  if (manifest.settings_hash !== settingsHash || JSON.stringify(planned) !== JSON.stringify(recorded)) {
    throw new ConfigError(
      "cannot resume: the scenarios, model or settings changed since this run started " +
        `(settings ${manifest.settings_hash} then, ${settingsHash} now). Run with the same scenarios and flags, or start a new run with another --out`,
      outDir,
    );
  }
}

/**
 * The adaptive design a resumed run keeps: the one it started with. Refused when the flags now ask
 * for another (other baseline counts or extra trials), since the extra trials already run or
 * skipped were decided by the first; a run of an earlier version resumes without extra trials.
 */
export function resumedDesign(
  manifest: RunManifest,
  requested: AdaptiveDesign | null,
  outDir: string,
): AdaptiveDesign | null {
  if (manifest.adaptive === undefined) return null;
  if (stableJson(manifest.adaptive) !== stableJson(requested)) {
    throw new ConfigError(
      "cannot resume: the baseline or --extra-trials differ from this run's start, and they decide which scenarios get extra trials. " +
        "Pass the same --baseline files and --extra-trials, or start a new run with another --out",
      outDir,
    );
  }
  return manifest.adaptive;
}

/** JSON with object keys sorted, so equal designs compare equal whatever their key order. */
function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

/** Trials of an earlier attempt that finished (pass, fail or error); skipped ones run again. */
export async function loadFinishedTrials(
  outDir: string,
  plan: readonly PlannedTrial[],
): Promise<Map<string, TrialReport>> {
  const finished = new Map<string, TrialReport>();
  for (const planned of plan) {
    const file = path.join(outDir, trialFolderOf(planned), "result.json");
    const text = await readFile(file, "utf8").catch(() => null);
    // Not finished (no result): it runs again.
    if (text === null) continue;
    // Not something a torn write makes: a clear error, not a stack overflow in what walks it later.
    refuseExcessNesting(text, file);
    try {
      const report = JSON.parse(text) as TrialReport;
      if (report.outcome !== "skipped") finished.set(planned.key, report);
    } catch {
      // A torn write from the interruption: it runs again.
    }
  }
  return finished;
}

function refuseExcessNesting(text: string, file: string): void {
  const line = findExcessNesting(text);
  if (line !== null) throw new ConfigError(describeExcessNesting(), `${file}:${line}`);
}
