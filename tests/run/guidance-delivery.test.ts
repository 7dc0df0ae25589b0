/**
 * A run's report says per scenario entry how its guidance reached the agent's model: from the
 * agent's intake and the mode, and from what its trials found (an agent CLI that read a context
 * file of the work dir's own instead of AGENTS.md was not shown it).
 */
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { expect, it } from "vitest";
import type { Agent, AgentOutcome } from "../../src/agents/types.js";
import { defaultRunOptions } from "../../src/run/options.js";
import { runSuite } from "../../src/run/suite.js";
import type { Scenario } from "../../src/scenario/types.js";
import { reportSchemaErrors } from "../support/report-schema.js";
import { makeScenario } from "../support/scenario-factory.js";
import { makeTempDir } from "../support/temp-dirs.js";

async function guidedScenario(): Promise<Scenario> {
  const file = path.join(makeTempDir("ltt-delivery-scenario-"), "AGENTS.md");
  await writeFile(file, "Always pass --json.\n");
  return makeScenario({
    id: "guided",
    trials: 2,
    guidance: { file, mode: "workdir" },
    treatment: { guidance: { path: "AGENTS.md", sha256: null, mode: "workdir" }, variants: {}, tool: null },
  });
}

/** A stand-in for the claude-code agent: its CLI's outcome, as the agent reports it. */
function claudeCodeStandIn(outcome: AgentOutcome): Agent {
  return { name: "claude-code", run: async () => outcome };
}

async function runWith(agent: Agent) {
  const options = defaultRunOptions({ outDir: makeTempDir("ltt-delivery-out-"), sandbox: "local" });
  const { report } = await runSuite([await guidedScenario()], options, {
    agent,
    env: { PATH: process.env.PATH },
  });
  // The report's schema (schema/report.schema.json) knows both fields.
  expect(reportSchemaErrors(report)).toEqual([]);
  return report.scenarios[0];
}

it("an agent CLI that loads AGENTS.md: cli_context_file; one that read its own CLAUDE.md instead: not_shown, with why", async () => {
  const shown = await runWith(claudeCodeStandIn({ reason: "natural_stop", turns: 1 }));
  expect(shown?.treatment?.guidance).toEqual([
    { path: "AGENTS.md", mode: "workdir", sha256: null, delivery: "cli_context_file" },
  ]);
  expect(shown?.trials.map((t) => t.guidance_not_shown)).toEqual([undefined, undefined]);

  const why = "the work dir has a CLAUDE.md of its own, which Claude Code reads instead of AGENTS.md";
  const shadowed = await runWith(
    claudeCodeStandIn({ reason: "natural_stop", turns: 1, guidanceNotShown: why }),
  );
  expect(shadowed?.treatment?.guidance?.[0]?.delivery).toBe("not_shown");
  expect(shadowed?.trials.map((t) => t.guidance_not_shown)).toEqual([why, why]);
}, 60_000);
