import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createAgent } from "../agents/registry.js";
import type { AgentName } from "../agents/types.js";
import { describeOptionCapture, findOptionCapture } from "../evaluate/invocations.js";
import type { Report, ScenarioReport } from "../results/types.js";
import type { SandboxSetting, Scenario } from "../scenario/types.js";
import { defaultRunOptions } from "./options.js";
import { runSuite } from "./suite.js";

export interface OracleFinding {
  id: string;
  /** ok: the solution passes and doing nothing fails; unsatisfiable: the solution fails a gate;
   * vacuous: the null agent passes every gate; no_gates: nothing checks the agent's work (any agent
   * passes, or only a judge decides, which no oracle can prove); no_solution: nothing to check;
   * error: infrastructure. */
  status: "ok" | "unsatisfiable" | "vacuous" | "no_gates" | "no_solution" | "error";
  message: string;
}

async function runWith(
  agent: AgentName,
  scenarios: Scenario[],
  env: Record<string, string | undefined>,
  sandbox: SandboxSetting | null,
) {
  const outDir = await mkdtemp(path.join(os.tmpdir(), `llm-tool-test-validate-${agent}-`));
  try {
    // Gates only: the judge would need a model and says nothing about satisfiability.
    const gatesOnly = scenarios.map((s) => ({
      ...s,
      trials: 1,
      evaluation: { ...s.evaluation, judge: undefined },
    }));
    const { report } = await runSuite(
      gatesOnly,
      defaultRunOptions({ agent, outDir, sandbox, concurrency: 2 }),
      {
        agent: createAgent(agent, {}),
        env,
      },
    );
    return report;
  } finally {
    await rm(outDir, { recursive: true, force: true });
  }
}

function firstTrial(report: Report, id: string): ScenarioReport["trials"][number] | undefined {
  return report.scenarios.find((s) => s.id === id)?.trials[0];
}

/** Why a scenario without gates proves nothing: `validate` warns with it, `validate --oracle` fails it. */
export function describeNoGates(scenario: Scenario): string {
  const judged = scenario.evaluation.judge?.enabled === true;
  return judged
    ? "no gates: only its judge decides, which no oracle can check; add `evaluation.gates` that check the task's result"
    : "no gates: nothing checks the agent's work, so an agent that does nothing passes; add `evaluation.gates`";
}

/**
 * `validate`'s warning about a `target.command_pattern` whose group 1 takes an option for the
 * subcommand (evaluate/invocations.ts findOptionCapture), or null when it does not.
 */
export function describePatternWarning(scenario: Scenario): string | null {
  const capture = findOptionCapture(scenario.target, scenario.solution);
  return capture ? `target.command_pattern: ${describeOptionCapture(capture)}` : null;
}

/** Proves each scenario's gates can pass (oracle) and can fail (null agent); a scenario without gates fails. */
export async function validateWithOracle(
  scenarios: Scenario[],
  options: { env: Record<string, string | undefined>; sandbox: SandboxSetting | null },
): Promise<OracleFinding[]> {
  const gated = scenarios.filter((s) => s.evaluation.gates.length > 0);
  const withSolution = gated.filter((s) => s.solution && s.solution.length > 0);
  const findings: OracleFinding[] = scenarios.flatMap((s): OracleFinding[] => {
    if (!gated.includes(s)) return [{ id: s.id, status: "no_gates", message: describeNoGates(s) }];
    if (withSolution.includes(s)) return [];
    return [
      {
        id: s.id,
        status: "no_solution",
        message: "no solution: add `solution:` to prove its gates can pass",
      },
    ];
  });
  if (withSolution.length === 0) return findings;
  const oracle = await runWith("oracle", withSolution, options.env, options.sandbox);
  const nothing = await runWith("null", withSolution, options.env, options.sandbox);
  for (const scenario of withSolution) {
    const solved = firstTrial(oracle, scenario.id);
    const idle = firstTrial(nothing, scenario.id);
    if (!solved || !idle || solved.outcome === "error" || idle.outcome === "error") {
      findings.push({
        id: scenario.id,
        status: "error",
        message: solved?.reason ?? idle?.reason ?? "did not run",
      });
    } else if (solved.outcome !== "pass") {
      const failed = solved.gates
        .filter((g) => !g.passed)
        .map((g) => `${g.gate_type}: ${g.message.split("\n")[0]}`);
      findings.push({
        id: scenario.id,
        status: "unsatisfiable",
        message: `the solution does not pass: ${failed.join("; ") || solved.reason}`,
      });
    } else if (idle.gates.every((g) => g.passed)) {
      findings.push({
        id: scenario.id,
        status: "vacuous",
        message: "an agent that does nothing passes every gate: add a gate that checks the task's result",
      });
    } else {
      findings.push({ id: scenario.id, status: "ok", message: "solution passes; doing nothing fails" });
    }
  }
  return findings.sort((a, b) => a.id.localeCompare(b.id));
}
