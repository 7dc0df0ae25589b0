/**
 * Which head scenarios the decision compares, and what the pull request changed in those it does.
 *
 * A head scenario is compared with the baseline's entry of the same key only when both measured the
 * same thing (`sameMeasurement`: the measurement hash, or the content hash for reports of earlier
 * versions). The others are *not compared* — their measurement changed, or the baseline has no
 * entry for them (a new scenario, or runs left out) — and are listed with their head results, never
 * dropped silently. Among the compared ones, the *treatment* (guidance files, the tool's build) may
 * differ: that is what a PR changes, and the decision says so ("guidance changed: `AGENTS.md`").
 */
import { scenarioKey } from "../results/scenario-key.js";
import {
  GUIDANCE_DELIVERIES,
  type GuidanceDelivery,
  type Report,
  type ReportTreatment,
  type ScenarioReport,
  type TreatmentFileReport,
  type TrialReport,
} from "../results/types.js";
import type { PassCount } from "./decision.js";
import { type ExcludedBaseline, MEASUREMENT_CHANGED, sameMeasurement } from "./pool-baselines.js";

type NotComparedReason = "measurement_changed" | "not_in_baseline";

export interface NotComparedScenario {
  key: string;
  /** `measurement_changed`: the scenario itself changed since the base runs; `not_in_baseline`: new, or its runs were left out. */
  reason: NotComparedReason;
  /** The head's pass counts (evaluated trials). */
  head: PassCount;
}

type TreatmentKind = "guidance" | "tool";
/** `changed`: other contents; `mode`: the same contents given another way (workdir, system); `added`/`removed`. */
type TreatmentChangeKind = "changed" | "mode" | "added" | "removed";

/** One file of the treatment that differs between baseline and head, and the compared scenarios it concerns. */
export interface TreatmentFileChange {
  kind: TreatmentKind;
  /** From the repository root, as the report recorded it (user text: render it inert). */
  path: string;
  change: TreatmentChangeKind;
  scenarios: string[];
}

interface ScenarioTreatmentChange {
  key: string;
  changes: Array<{ kind: TreatmentKind; path: string; change: TreatmentChangeKind }>;
}

/** A guidance file the PR changed that the head's agent was not shown (or not known to be shown). */
export interface UnseenGuidance {
  /** From the repository root, as the report recorded it (user text: render it inert). */
  path: string;
  delivery: Extract<GuidanceDelivery, "not_shown" | "work_dir_only">;
  /** The compared scenarios concerned. */
  scenarios: string[];
}

export interface TreatmentChanges {
  /** Summarised: one entry per file and kind of change, in the order first seen. */
  files: TreatmentFileChange[];
  /**
   * Changed guidance that did not reach the head's agent's model (its report's `delivery`): the
   * comparison cannot measure that change. In the order first seen; empty when there is none.
   */
  unseen: UnseenGuidance[];
  /** Per compared scenario whose treatment changed. */
  scenarios: ScenarioTreatmentChange[];
  /** Compared scenarios for which a side recorded no treatment (a report of an earlier version). */
  unknown: number;
}

export interface Pairing {
  /** Every head scenario, with the baseline entry it is compared with (null: not compared). */
  paired: Array<{ head: ScenarioReport; base: ScenarioReport | null }>;
  notCompared: NotComparedScenario[];
}

function countPasses(trials: readonly TrialReport[]): PassCount {
  const passed = trials.filter((t) => t.outcome === "pass").length;
  return { passed, trials: passed + trials.filter((t) => t.outcome === "fail").length };
}

/** Keys of head scenarios some pooled run left out because the scenario changed. */
function changedKeys(excluded: readonly ExcludedBaseline[] | undefined): Set<string> {
  return new Set(
    (excluded ?? []).flatMap((e) =>
      e.scenario !== null && e.reason === MEASUREMENT_CHANGED ? [e.scenario] : [],
    ),
  );
}

/** Pairs each head scenario with the baseline's entry of the same key, when it measured the same thing. */
export function pairWithBaseline(
  baseline: Report,
  head: Report,
  excluded?: readonly ExcludedBaseline[],
): Pairing {
  const baseByKey = new Map(baseline.scenarios.map((s) => [scenarioKey(s), s]));
  const changed = changedKeys(excluded);
  const paired: Pairing["paired"] = [];
  const notCompared: NotComparedScenario[] = [];
  for (const h of head.scenarios) {
    const key = scenarioKey(h);
    const b = baseByKey.get(key);
    if (b && sameMeasurement(b, h)) {
      paired.push({ head: h, base: b });
      continue;
    }
    paired.push({ head: h, base: null });
    const reason = b || changed.has(key) ? "measurement_changed" : "not_in_baseline";
    notCompared.push({ key, reason, head: countPasses(h.trials) });
  }
  return { paired, notCompared };
}

/** Without a usable baseline: the head scenarios that were left out only because they changed. */
export function listChangedWithoutBaseline(
  head: Report,
  excluded: readonly ExcludedBaseline[] | undefined,
): NotComparedScenario[] {
  const changed = changedKeys(excluded);
  return head.scenarios
    .filter((s) => changed.has(scenarioKey(s)))
    .map((s) => ({ key: scenarioKey(s), reason: "measurement_changed", head: countPasses(s.trials) }));
}

/**
 * A report's treatment, or null when it has none or it is malformed: a baseline report is an
 * artifact of another run, read as data, never trusted to have the right shape.
 */
export function readTreatment(value: unknown): ReportTreatment | null {
  if (typeof value !== "object" || value === null) return null;
  const { guidance, tool } = value as Record<string, unknown>;
  const isFile = (item: unknown): item is TreatmentFileReport => {
    if (typeof item !== "object" || item === null) return false;
    const { path, sha256 } = item as Record<string, unknown>;
    return typeof path === "string" && (sha256 === null || typeof sha256 === "string");
  };
  if (!Array.isArray(guidance) || !Array.isArray(tool)) return null;
  if (!guidance.every((g) => isFile(g) && typeof (g as { mode?: unknown }).mode === "string")) return null;
  if (!tool.every(isFile)) return null;
  return {
    guidance: (guidance as ReportTreatment["guidance"]).map(({ delivery, ...file }) =>
      // Only a delivery this version knows is believed; another is as good as none.
      delivery !== undefined && GUIDANCE_DELIVERIES.includes(delivery) ? { ...file, delivery } : file,
    ),
    tool: tool as ReportTreatment["tool"],
  };
}

type FileChange = ScenarioTreatmentChange["changes"][number];

/** Files of one kind: contents that differ (both known), modes that differ, files only on one side. */
function diffFiles(
  kind: TreatmentKind,
  base: ReadonlyArray<TreatmentFileReport & { mode?: string }>,
  head: ReadonlyArray<TreatmentFileReport & { mode?: string }>,
): FileChange[] {
  const changes: FileChange[] = [];
  const baseByPath = new Map(base.map((f) => [f.path, f]));
  const headPaths = new Set(head.map((f) => f.path));
  for (const h of head) {
    const b = baseByPath.get(h.path);
    if (!b) changes.push({ kind, path: h.path, change: "added" });
    // An unreadable side (null) cannot say whether the contents changed.
    else if (b.sha256 !== null && h.sha256 !== null && b.sha256 !== h.sha256)
      changes.push({ kind, path: h.path, change: "changed" });
    else if (b.mode !== h.mode) changes.push({ kind, path: h.path, change: "mode" });
  }
  for (const b of base) if (!headPaths.has(b.path)) changes.push({ kind, path: b.path, change: "removed" });
  return changes;
}

/** What differs in the treatment of each compared scenario, and summarised by file. */
export function describeTreatmentChanges(
  paired: ReadonlyArray<{ head: ScenarioReport; base: ScenarioReport | null }>,
): TreatmentChanges {
  const files: TreatmentFileChange[] = [];
  const scenarios: ScenarioTreatmentChange[] = [];
  const unseen: UnseenGuidance[] = [];
  let unknown = 0;
  for (const { head, base } of paired) {
    if (!base) continue;
    const b = readTreatment(base.treatment);
    const h = readTreatment(head.treatment);
    if (!b || !h) {
      unknown += 1;
      continue;
    }
    const changes = [...diffFiles("guidance", b.guidance, h.guidance), ...diffFiles("tool", b.tool, h.tool)];
    if (changes.length === 0) continue;
    const key = scenarioKey(head);
    scenarios.push({ key, changes });
    for (const change of changes) {
      const entry = files.find(
        (f) => f.kind === change.kind && f.path === change.path && f.change === change.change,
      );
      if (entry) entry.scenarios.push(key);
      else files.push({ ...change, scenarios: [key] });
    }
    for (const file of unseenGuidance(changes, h)) {
      const entry = unseen.find((u) => u.path === file.path && u.delivery === file.delivery);
      if (entry) entry.scenarios.push(key);
      else unseen.push({ ...file, scenarios: [key] });
    }
  }
  return { files, unseen, scenarios, unknown };
}

/** The head's guidance files among `changes` whose delivery says no model was (known to be) shown them. */
function unseenGuidance(
  changes: readonly FileChange[],
  head: ReportTreatment,
): Array<Omit<UnseenGuidance, "scenarios">> {
  return changes.flatMap((change) => {
    if (change.kind !== "guidance" || change.change === "removed") return [];
    const delivery = head.guidance.find((g) => g.path === change.path)?.delivery;
    return delivery === "not_shown" || delivery === "work_dir_only" ? [{ path: change.path, delivery }] : [];
  });
}
