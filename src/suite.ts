import { createHash, randomUUID } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import type { ModelClient } from "./agents/model-client.js";
import type { Agent } from "./agents/types.js";
import { type PlannedTrial, planTrials } from "./plan.js";
import { assembleReport, buildScenarioReport } from "./report/aggregate.js";
import { renderReportMarkdown } from "./report/markdown.js";
import type { Report, RunInfo, TrialReport } from "./report/types.js";
import type { RunOptions } from "./run-options.js";
import { runTrial } from "./run-trial.js";
import { collectSecretValues, redactSecrets } from "./sandbox/secrets.js";
import type { Scenario } from "./scenario/types.js";
import { HARNESS_VERSION } from "./version.js";

export type ProgressEvent =
  | { type: "plan"; trials: number; scenarios: number }
  | { type: "trial_start"; key: string; scenarioKey: string; trial: number }
  | { type: "turn"; key: string; turn: number }
  | { type: "trial_end"; key: string; report: TrialReport; done: number; total: number };

export interface SuitePorts {
  agent: Agent;
  judgeClient?: ModelClient | null;
  /** The parent process environment: the sandbox builds the agent's env from it, minus secrets. */
  env: Record<string, string | undefined>;
  now?: () => number;
  signal?: AbortSignal;
  onProgress?: (event: ProgressEvent) => void;
  /** Git facts for the report, when known. */
  git?: { sha: string | null; ref: string | null };
}

function hashSettings(options: RunOptions, scenarios: Scenario[]): string {
  const hash = createHash("sha256");
  hash.update(
    JSON.stringify({
      agent: options.agent,
      model: options.model,
      judge: options.judgeModel,
      maxTurns: options.maxTurns,
      trials: options.trials,
      timeouts: [options.trialTimeoutMs, options.commandTimeoutMs, options.gateTimeoutMs],
      sandbox: options.sandbox,
      scenarios: scenarios.map((s) => [s.id, s.contentHash]),
    }),
  );
  return hash.digest("hex").slice(0, 16);
}

/** Runs up to `limit` tasks at once, in order of the list. */
async function runPool<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const workers = Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, async () => {
    while (next < items.length) {
      const item = items[next++] as T;
      await work(item);
    }
  });
  await Promise.all(workers);
}

/**
 * The front door of the core: scenarios in, a report out (also written to `options.outDir`).
 * A failing or broken trial is data in the report; only configuration errors throw.
 */
export async function runSuite(
  scenarios: Scenario[],
  options: RunOptions,
  ports: SuitePorts,
): Promise<Report> {
  const now = ports.now ?? Date.now;
  const signal = ports.signal ?? new AbortController().signal;
  const startedAt = new Date(now()).toISOString();
  const secrets = collectSecretValues(ports.env);
  const redact = (text: string) => redactSecrets(text, secrets);
  await mkdir(options.outDir, { recursive: true });

  const plan = planTrials(scenarios, options);
  ports.onProgress?.({ type: "plan", trials: plan.length, scenarios: scenarios.length });
  const results = new Map<string, TrialReport>();
  let done = 0;

  await runPool(plan, options.concurrency, async (planned: PlannedTrial) => {
    ports.onProgress?.({
      type: "trial_start",
      key: planned.key,
      scenarioKey: planned.scenarioKey,
      trial: planned.trial,
    });
    const { report } = await runTrial(planned, options, {
      agent: ports.agent,
      judgeClient: ports.judgeClient ?? null,
      parentEnv: ports.env,
      redact,
      now,
      signal,
      onTurn: (turn) => ports.onProgress?.({ type: "turn", key: planned.key, turn }),
    });
    results.set(planned.key, report);
    done += 1;
    ports.onProgress?.({ type: "trial_end", key: planned.key, report, done, total: plan.length });
  });

  const run: RunInfo = {
    id: randomUUID(),
    started_at: startedAt,
    ended_at: new Date(now()).toISOString(),
    harness_version: HARNESS_VERSION,
    agent: options.agent,
    model: options.agent === "anthropic" || options.agent === "claude-code" ? options.model : null,
    judge_model: options.judgeModel,
    git_sha: ports.git?.sha ?? null,
    git_ref: ports.git?.ref ?? null,
    settings_hash: hashSettings(options, scenarios),
    price_table: options.prices,
    incomplete: signal.aborted,
    shard: options.shard,
  };
  const scenarioReports = [];
  const byScenario = new Map<string, PlannedTrial[]>();
  for (const planned of plan) {
    const list = byScenario.get(planned.scenarioKey) ?? [];
    list.push(planned);
    byScenario.set(planned.scenarioKey, list);
  }
  for (const trials of byScenario.values()) {
    const first = trials[0] as PlannedTrial;
    const reports = trials.map((t) => results.get(t.key)).filter((r): r is TrialReport => r !== undefined);
    scenarioReports.push(buildScenarioReport(first.scenario, first.variant?.name ?? null, reports));
  }
  const report = assembleReport(run, scenarioReports);
  await writeReportFiles(report, options.outDir, redact);
  return report;
}

export async function writeReportFiles(report: Report, outDir: string, redact: (text: string) => string) {
  await writeFile(path.join(outDir, "report.json"), redact(`${JSON.stringify(report, null, 2)}\n`));
  await writeFile(path.join(outDir, "report.md"), redact(renderReportMarkdown(report)));
}
