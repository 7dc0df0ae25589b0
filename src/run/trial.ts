import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { agentGuidanceIntake, agentInstanceUsesModel } from "../agents/registry.js";
import type { Agent, AgentOutcome, GuidanceIntake } from "../agents/types.js";
import { describeError, InfraError, isConfigError } from "../errors.js";
import { evaluateTrial } from "../evaluate/evaluate-trial.js";
import { readGateFile } from "../evaluate/gate-files.js";
import { buildScriptEnv } from "../evaluate/gates.js";
import { readTargetCall } from "../evaluate/invocations.js";
import { computeExecution, computeInteraction } from "../evaluate/metrics.js";
import type { ModelClient } from "../model/model-client.js";
import { renderTranscriptMarkdown } from "../render/transcript-markdown.js";
import { harnessLoadsWorkDirGuidance } from "../results/guidance-delivery.js";
import { summarizeReplay } from "../results/replay-summary.js";
import type { ExecutionMetrics, TrialReport } from "../results/types.js";
import { createSandboxSelector, type SandboxSelector } from "../sandbox/sandbox-selection.js";
import { createTrialSandbox, WORK_DIR_GUIDANCE_FILE } from "../sandbox/trial-sandbox.js";
import type { GateFileTree, TrialSandbox } from "../sandbox/types.js";
import type { HomeLayout, Scenario, Variant } from "../scenario/types.js";
import { type EndReason, EVENTS_SCHEMA_VERSION, type TrialEvent } from "../transcript/events.js";
import { createEventWriter, type EventWriter } from "../transcript/writer.js";
import { homeLayoutOf, type RunOptions, sandboxSettingOf } from "./options.js";
import { folderNameFor, type PlannedTrial } from "./plan.js";

export interface TrialPorts {
  agent: Agent;
  /** Client for the judge; null when no judge can run. */
  judgeClient: ModelClient | null;
  parentEnv: Record<string, string | undefined>;
  redact: (text: string) => string;
  now: () => number;
  /** Aborted with reason "cancelled" when the run is interrupted. */
  signal: AbortSignal;
  onTurn?: (turn: number) => void;
  /** The run's sandbox selector (bwrap probed once per run); default one for this trial alone. */
  sandboxes?: SandboxSelector;
}

export interface TrialOutput {
  report: TrialReport;
  /** Why every further trial would fail the same way, when that is known. */
  fatalError: string | null;
  /** Folder of this trial's files, relative to the run's output folder. */
  folder: string;
  /**
   * The sandbox's removal (its leftover processes killed, its work dir deleted), still going when
   * the trial is returned, so the next trial need not wait for it. Never rejects.
   */
  cleanedUp: Promise<void>;
}

/** Paths of one trial's files inside the run's output folder. */
export function trialFolderOf(planned: Pick<PlannedTrial, "scenarioKey" | "trial">): string {
  return path.join("trials", folderNameFor(planned.scenarioKey), `trial-${planned.trial}`);
}

/** The judge of a trial: the scenario's judge model wins over the run's. */
function judgeFor(scenario: Scenario, options: RunOptions, client: ModelClient | null) {
  const model = scenario.evaluation.judge?.model ?? options.judgeModel;
  return client && model ? { client, model } : null;
}

/** The most of the work dir's AGENTS.md the harness puts in a system prompt (as Codex's default bound). */
export const MAX_WORK_DIR_GUIDANCE_BYTES = 32 * 1024;

/**
 * The system prompt every agent is given: where it works, the work dir's AGENTS.md for an agent the
 * harness loads it for (agent CLIs load it themselves; guidance-delivery.ts says which), the
 * guidance in `system`/`both` mode, and the scenario's `system`.
 */
async function composeSystemPrompt(
  scenario: Scenario,
  variant: Variant | null,
  sandbox: TrialSandbox,
  intake: GuidanceIntake,
): Promise<string> {
  const workDir = sandbox.visibleWorkDir;
  const parts = [
    // What the shell keeps between calls is each agent's own (the built-in bash tool's description
    // says its shell persists; an agent CLI's tool has its own rules): only what holds for all here.
    `You are working in a sandboxed directory: ${workDir}. Run commands there with your shell tool; it is not interactive: nothing can be typed into a command's prompt.`,
    "When the task is complete, say so briefly and stop calling tools.",
  ];
  const guidance = variant?.guidance ?? scenario.guidance;
  if (harnessLoadsWorkDirGuidance(intake, guidance?.mode ?? null)) {
    const loaded = await workDirGuidanceSection(sandbox.gateFiles, workDir);
    if (loaded) parts.push(loaded);
  }
  if (guidance && (guidance.mode === "system" || guidance.mode === "both")) {
    const text = await readFile(guidance.file, "utf8");
    parts.push(`The following documentation is available for the tools you will use:\n\n${text.trim()}`);
  }
  if (scenario.system) parts.push(scenario.system.trim());
  return parts.join("\n\n");
}

/**
 * The work dir's AGENTS.md as the agent CLIs put it in context (its path, then its text), read as
 * the agent's own file (never a link out of the sandbox) after the setup commands, cut past
 * MAX_WORK_DIR_GUIDANCE_BYTES with a note saying where the rest is. Null when there is none to read.
 */
async function workDirGuidanceSection(files: GateFileTree, workDir: string): Promise<string | null> {
  const read = await readGateFile(files, WORK_DIR_GUIDANCE_FILE, MAX_WORK_DIR_GUIDANCE_BYTES, { cut: true });
  if ("problem" in read || read.text.trim().length === 0) return null;
  const where = path.posix.join(workDir, WORK_DIR_GUIDANCE_FILE);
  const cut = read.cut
    ? `\n\n[Cut: only its first ${MAX_WORK_DIR_GUIDANCE_BYTES} bytes are shown here of ${read.size}; read ${where} for the rest.]`
    : "";
  return `Instructions for agents working in this directory, from ${where}:\n\n<${WORK_DIR_GUIDANCE_FILE}>\n${read.text.trim()}${cut}\n</${WORK_DIR_GUIDANCE_FILE}>`;
}

function reasonFromAbort(signal: AbortSignal): EndReason {
  return signal.reason === "cancelled" ? "cancelled" : "timeout";
}

/**
 * Runs one trial start to finish: work dir, agent, events, evaluation, files. Never throws for a
 * failing or broken trial: that is data (`fail` / `error`) in the returned report.
 */
export async function runTrial(
  planned: PlannedTrial,
  options: RunOptions,
  ports: TrialPorts,
): Promise<TrialOutput> {
  const folder = trialFolderOf(planned);
  const trialDir = path.join(options.outDir, folder);
  // The trial's files are written off the event loop: at high concurrency the loop is shared by
  // every trial's model calls and commands, and a synchronous write holds them all up.
  await mkdir(trialDir, { recursive: true });
  const startedAtMs = ports.now();
  const writer = await createEventWriter(path.join(trialDir, "events.jsonl"), {
    startedAtMs,
    now: ports.now,
    redact: ports.redact,
  });
  const trial: TrialRun = {
    planned,
    options,
    ports,
    writer,
    trialDir,
    model: planned.model,
    home: homeLayoutOf(planned.scenario, planned.model, options),
  };
  const { sandbox, outcome } = await runAgentInSandbox(trial);

  try {
    if (sandbox) {
      for (const record of await sandbox.readTargetInvocations()) {
        writer.emit({
          type: "target_invocation",
          ...record,
          ...readTargetCall(record.argv, planned.scenario.target),
        });
      }
    }
    writer.emit({
      type: "trial_end",
      reason: outcome.reason,
      error: outcome.error ?? null,
      turns: outcome.turns,
      duration_ms: ports.now() - startedAtMs,
    });
    const transcript = renderTranscriptMarkdown(writer.events);
    // Script gates read events.jsonl: every event is in it before they run.
    await Promise.all([
      writer.flush(),
      writeFile(path.join(trialDir, "transcript.md"), ports.redact(transcript)),
    ]);
    const evaluated: TrialReport = {
      trial: planned.trial,
      ...(await evaluateOutcome(trial, sandbox, outcome, transcript)),
      ...replayField(writer.events),
      sandbox: sandbox?.mode ?? null,
      ...(trial.home ? { home_layout: trial.home.name } : {}),
      ...(outcome.guidanceNotShown ? { guidance_not_shown: outcome.guidanceNotShown } : {}),
      events_path: path.join(folder, "events.jsonl"),
      transcript_path: path.join(folder, "transcript.md"),
    };
    const serialized = `${JSON.stringify(evaluated, null, 2)}\n`;
    const redacted = ports.redact(serialized);
    await writeFile(path.join(trialDir, "result.json"), redacted);
    // The kept copy matches the file: the terminal summary, the comment and the run's report are
    // built from it, so a secret in a gate's message or an excerpt is gone from them too.
    const report = redacted === serialized ? evaluated : (JSON.parse(redacted) as TrialReport);
    return {
      report,
      folder,
      fatalError: outcome.fatal ? ports.redact(outcome.error ?? outcome.reason) : null,
      cleanedUp: removeSandbox(sandbox),
    };
  } catch (error) {
    await removeSandbox(sandbox);
    throw error;
  } finally {
    await writer.close();
  }
}

/** One trial in flight: what it runs and where its events and files go. */
interface TrialRun {
  planned: PlannedTrial;
  options: RunOptions;
  ports: TrialPorts;
  writer: EventWriter;
  trialDir: string;
  model: string;
  /** Where the agent starts and what HOME is, when the scenario says (a bashkit dataset's task). */
  home: HomeLayout | undefined;
}

/**
 * Creates the sandbox and runs the agent in it, under the trial's timeout and the run's signal.
 * Never throws: a failure is the outcome (the environment's before the agent started, the agent's after).
 */
async function runAgentInSandbox(
  trial: TrialRun,
): Promise<{ sandbox: TrialSandbox | null; outcome: AgentOutcome }> {
  const { planned, options, ports, writer, model } = trial;
  const { scenario, variant } = planned;
  const sandboxes =
    ports.sandboxes ??
    createSandboxSelector({ searchPath: ports.parentEnv.PATH ?? "", env: ports.parentEnv });
  const { mode } = await sandboxes.select(sandboxSettingOf(scenario, options.sandbox));
  const maxTurns = scenario.agent.maxTurns ?? options.maxTurns;
  const timeoutMs = scenario.agent.timeoutMs ?? options.trialTimeoutMs;
  const commandTimeoutMs = scenario.agent.commandTimeoutMs ?? options.commandTimeoutMs;

  const trialAbort = new AbortController();
  const onCancel = () => trialAbort.abort("cancelled");
  if (ports.signal.aborted) onCancel();
  ports.signal.addEventListener("abort", onCancel, { once: true });
  const timer = setTimeout(() => trialAbort.abort("timeout"), timeoutMs);

  let sandbox: TrialSandbox | null = null;
  let outcome: AgentOutcome;
  try {
    writer.emit({
      type: "trial_start",
      schema_version: EVENTS_SCHEMA_VERSION,
      scenario_id: scenario.id,
      variant: variant?.name ?? null,
      trial: planned.trial,
      agent: ports.agent.name,
      model: agentInstanceUsesModel(ports.agent) ? model : null,
      // Created next, by the sandbox; the setup events and the transcript follow from there.
      work_dir: null,
      sandbox: mode,
    });
    sandbox = await createTrialSandbox({
      scenario,
      ...(variant ? { variant } : {}),
      mode,
      trialDir: trial.trialDir,
      parentEnv: ports.parentEnv,
      events: writer,
      outputCapBytes: options.outputCapBytes,
      keepWorkDir: options.keepWorkDirs,
      ...(trial.home ? { home: trial.home } : {}),
    });
    const activeSandbox = sandbox;
    const systemPrompt = await composeSystemPrompt(
      scenario,
      variant,
      sandbox,
      agentGuidanceIntake(ports.agent),
    );
    writer.emit({
      type: "prompt",
      task: scenario.task,
      system_prompt: systemPrompt,
      work_dir: sandbox.visibleWorkDir,
    });
    let callCounter = 0;
    outcome = await ports.agent.run({
      scenario,
      scenarioKey: planned.scenarioKey,
      trial: planned.trial,
      task: scenario.task,
      systemPrompt,
      model,
      maxTurns,
      commandTimeoutMs,
      signal: trialAbort.signal,
      workDir: sandbox.visibleWorkDir,
      events: writer,
      bash: async (command, turn) => {
        callCounter += 1;
        const callId = `call_${callCounter}`;
        ports.onTurn?.(turn);
        writer.emit({ type: "tool_call", call_id: callId, turn, command });
        const result = await activeSandbox.runAgentCommand(command, {
          timeoutMs: commandTimeoutMs,
          signal: trialAbort.signal,
        });
        writer.emit({ type: "tool_result", call_id: callId, ...result });
        return { ...result, call_id: callId };
      },
      restartShell: () => activeSandbox.restartAgentShell(),
      // An external agent CLI; the trial's signal ends it, the timeout is only a backstop.
      runProcess: (file, args, { extraEnv, stop, ...processOptions } = {}) =>
        activeSandbox.runAgentProcess(file, args, {
          timeoutMs,
          signal: stop ? AbortSignal.any([trialAbort.signal, stop]) : trialAbort.signal,
          ...processOptions,
          ...(extraEnv ? { env: extraEnv } : {}),
        }),
    });
    if (trialAbort.signal.aborted && outcome.reason === "natural_stop") {
      outcome = { ...outcome, reason: reasonFromAbort(trialAbort.signal) };
    }
  } catch (error) {
    const infra = error instanceof InfraError;
    outcome = {
      // Before the agent started, any failure is the environment's; after, the agent's.
      reason: infra || !sandbox ? "infra_error" : "agent_crash",
      error: infra && error.detail ? `${error.message}\n${error.detail}` : describeError(error),
      turns: 0,
      // A configuration problem (bwrap unusable, a fixture that cannot be copied) repeats in every trial.
      ...(isConfigError(error) ? { fatal: true } : {}),
    };
  } finally {
    clearTimeout(timer);
    ports.signal.removeEventListener("abort", onCancel);
  }
  // Nothing the agent left (a setsid or double-forked survivor) may go on changing its work while
  // the gates judge it.
  await sandbox?.endAgentProcesses();
  return { sandbox, outcome };
}

/** The three layers when the agent ran in a sandbox; otherwise an `error` (or `skipped`) trial. */
async function evaluateOutcome(
  trial: TrialRun,
  sandbox: TrialSandbox | null,
  outcome: AgentOutcome,
  transcript: string,
): Promise<Omit<TrialReport, "trial" | "events_path" | "transcript_path">> {
  const { planned, options, ports, writer, model } = trial;
  const { scenario } = planned;
  if (sandbox && outcome.reason !== "cancelled") {
    const evaluation = await evaluateTrial({
      scenario,
      events: writer.events,
      sandbox,
      model,
      prices: options.prices,
      judge: judgeFor(scenario, options, ports.judgeClient),
      transcript,
      gateTimeoutMs: options.gateTimeoutMs,
      scriptEnv: buildScriptEnv({
        // As the gate's command sees it (in bwrap, /home/eval).
        workDir: sandbox.visibleWorkDir,
        eventsPath: path.resolve(trial.trialDir, "events.jsonl"),
        scenarioId: scenario.id,
        scenarioDir: path.dirname(scenario.source.file),
        model: agentInstanceUsesModel(ports.agent) ? model : null,
        trial: planned.trial,
      }),
      signal: ports.signal,
    });
    // Cancelled while its gates or judge ran: what they said is cut short, so it is not the trial's result.
    if (!ports.signal.aborted) return evaluation;
    return unevaluatedTrial({
      outcome: "skipped",
      reason: "the run was cancelled while this trial was being evaluated",
      endReason: "cancelled",
      execution: evaluation.execution,
    });
  }
  const cancelled = outcome.reason === "cancelled";
  return unevaluatedTrial({
    outcome: cancelled ? "skipped" : "error",
    reason: cancelled
      ? "the run was cancelled before this trial finished"
      : (outcome.error ?? outcome.reason),
    endReason: outcome.reason,
    execution: computeExecution(writer.events, { prices: options.prices, model }),
  });
}

function replayField(events: readonly TrialEvent[]): Pick<TrialReport, "replay"> {
  const replay = summarizeReplay(events);
  return replay ? { replay } : {};
}

/** Best effort: dispose ends what it can and falls back on its own failures (see trial-sandbox). */
function removeSandbox(sandbox: TrialSandbox | null): Promise<void> {
  return sandbox ? sandbox.dispose().catch(() => undefined) : Promise.resolve();
}

/** A trial that never started (the run stopped, or the budget ran out). */
export function skippedTrial(planned: Pick<PlannedTrial, "trial">, reason: string): TrialReport {
  return {
    trial: planned.trial,
    ...unevaluatedTrial({
      outcome: "skipped",
      reason,
      endReason: null,
      execution: computeExecution([], { prices: {}, model: "" }),
    }),
    events_path: null,
    transcript_path: null,
  };
}

/** A trial that never reached evaluation: no gates ran, no layer-1 commands to count. */
function unevaluatedTrial(fields: {
  outcome: "error" | "skipped";
  reason: string;
  endReason: EndReason | null;
  execution: ExecutionMetrics;
}): Omit<TrialReport, "trial" | "events_path" | "transcript_path"> {
  return {
    outcome: fields.outcome,
    reason: fields.reason,
    end_reason: fields.endReason,
    invocation_source: "none",
    interaction: computeInteraction([], false),
    by_subcommand: {},
    execution: fields.execution,
    gates: [],
    gates_passed: 0,
    gates_total: 0,
    score: 0,
    max_score: 0,
    judge_score: null,
    judge_response: null,
    judge_usage: null,
    composite_score: null,
  };
}
