/**
 * An agent hides its failed calls of the target from layer 1 by going around the PATH shim: it
 * calls the tool by its real path, through a PATH without the shim's folder, and with a clean
 * environment (issue #25, break 4). In bwrap the shim covers every path at which the tool is
 * reachable, so each call is still recorded: error_count counts them all, with the built-in
 * agent's tool calls and with a `command` agent (no tool calls to cross-check). In local mode the
 * shim cannot cover the host's files: the trial is marked as going around the shim and
 * `no_transcript_errors` fails closed.
 */
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createAgent } from "../../src/agents/registry.js";
import { defaultRunOptions } from "../../src/run/options.js";
import type { Scenario } from "../../src/scenario/types.js";
import { FAKE_TOOL } from "../sandbox/fake-tool.js";
import { findBwrapProblem } from "../support/processes.js";
import { makeScenario } from "../support/scenario-factory.js";
import { runSingleTrial } from "../support/single-trial.js";
import { makeTempDir } from "../support/temp-dirs.js";

const CANARY_KEY = "sk-ant-canary-shim-bypass-1f2e3d";

/** Each call fails (exit 3); none finds the tool through the shim's folder on PATH. */
function bypassCalls(tool: string): string[] {
  return [
    `${tool} fail 3`,
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion.
    "PATH=${PATH#*:} fake-tool fail 3",
    `env -i ${tool} fail 3`,
  ];
}

/** `jq` from the system folders, by its real path and around PATH. */
const JQ_CALLS = [
  "/usr/bin/jq . missing.json",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion.
  "PATH=${PATH#*:} jq . missing.json",
  "/bin/jq . missing.json",
];

function setUp(): { dir: string; tool: string } {
  const dir = makeTempDir("ltt-hostile-bypass-");
  const tool = path.join(dir, "bin", "fake-tool");
  mkdirSync(path.dirname(tool));
  writeFileSync(tool, FAKE_TOOL);
  chmodSync(tool, 0o755);
  return { dir, tool };
}

function scenarioFor(binary: string, solution: string[], id: string): Scenario {
  return makeScenario({
    id,
    target: { binary, env: {} },
    solution,
    files: { "calls.sh": `${solution.join(" || true\n")} || true\n` },
    evaluation: { gates: [{ type: "no_transcript_errors", weight: 1 }] },
  });
}

async function runWith(
  dir: string,
  scenario: Scenario,
  sandbox: "local" | "bwrap",
  agentName: "oracle" | "command",
) {
  const outDir = await mkdtemp(path.join(dir, "out-"));
  const template = "bash calls.sh";
  const options = defaultRunOptions({
    outDir,
    agent: agentName,
    ...(agentName === "command" ? { agentCommand: template } : {}),
    trialTimeoutMs: 60_000,
    sandbox,
  });
  const agent = createAgent(agentName, agentName === "command" ? { agentCommand: template } : {});
  const { output } = await runSingleTrial(scenario, options, agent, { canaryKey: CANARY_KEY });
  return output.report;
}

const bwrapProblem = findBwrapProblem();
if (bwrapProblem) console.warn(`skipping the bwrap shim-bypass tests: ${bwrapProblem}`);

describe.skipIf(bwrapProblem !== null)("calls around the shim in bwrap are still recorded", () => {
  it.each(["oracle", "command"] as const)(
    "a tool of the user's by its path (%s agent)",
    async (agentName) => {
      const { dir, tool } = setUp();
      const report = await runWith(dir, scenarioFor(tool, bypassCalls(tool), "bypass"), "bwrap", agentName);
      expect(report.invocation_source).toBe("shim");
      expect(report.interaction).toMatchObject({ total_commands: 3, error_count: 3 });
      expect(report.gates[0]).toMatchObject({ gate_type: "no_transcript_errors", passed: false });
    },
    120_000,
  );

  it.each(["oracle", "command"] as const)(
    "jq from /usr/bin by its path (%s agent)",
    async (agentName) => {
      const { dir } = setUp();
      const report = await runWith(dir, scenarioFor("jq", JQ_CALLS, "bypass-jq"), "bwrap", agentName);
      expect(report.interaction).toMatchObject({ total_commands: 3, error_count: 3 });
      expect(report.gates[0]).toMatchObject({ gate_type: "no_transcript_errors", passed: false });
      expect(report.shim_disagreements ?? []).toEqual([]);
    },
    120_000,
  );
});

describe("calls around the shim in local mode", () => {
  it("mark the trial and fail no_transcript_errors closed", async () => {
    const { dir, tool } = setUp();
    // Each call succeeds here: only going around the shim can fail the gate.
    const calls = [
      `${tool} echo hi`,
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion.
      "PATH=${PATH#*:} fake-tool echo hi",
    ];
    const report = await runWith(dir, scenarioFor(tool, calls, "bypass-local"), "local", "oracle");
    expect(report.shim_disagreements?.join("\n")).toMatch(/around the shim/);
    expect(report.gates[0]).toMatchObject({ gate_type: "no_transcript_errors", passed: false });
    expect(report.gates[0]?.message).toMatch(/around the shim/);
  }, 120_000);
});
