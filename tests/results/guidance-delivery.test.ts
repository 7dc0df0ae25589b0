import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { AGENT_NAMES, agentGuidanceIntake, createAgent } from "../../src/agents/registry.js";
import type { GuidanceIntake } from "../../src/agents/types.js";
import { guidanceDelivery, harnessLoadsWorkDirGuidance } from "../../src/results/guidance-delivery.js";
import { GUIDANCE_DELIVERIES } from "../../src/results/types.js";
import type { GuidanceMode } from "../../src/scenario/types.js";

const MODES: GuidanceMode[] = ["workdir", "system", "both"];

/** Each registered agent's answer per mode, by its descriptor (the command agent's by its template). */
function deliveries(agent: Parameters<typeof agentGuidanceIntake>[0]) {
  const intake = agentGuidanceIntake(agent);
  return Object.fromEntries(MODES.map((mode) => [mode, guidanceDelivery(intake, mode)]));
}

describe("how the guidance reaches each agent's model", () => {
  it("per kind of intake and mode, as the guidance section says; every agent's intake is one of these", () => {
    const cli = { workdir: "cli_context_file", system: "system_prompt", both: "system_prompt" };
    const none = { workdir: "not_shown", system: "not_shown", both: "not_shown" };
    const byIntake: Array<[GuidanceIntake, Record<GuidanceMode, string>]> = [
      [
        { systemPrompt: true, workDirFile: "harness" },
        { workdir: "system_prompt", system: "system_prompt", both: "system_prompt" },
      ],
      [{ systemPrompt: true, workDirFile: "cli" }, cli],
      [{ systemPrompt: false, workDirFile: "none" }, none],
      [
        { systemPrompt: false, workDirFile: "unknown" },
        { workdir: "work_dir_only", system: "not_shown", both: "work_dir_only" },
      ],
    ];
    for (const name of AGENT_NAMES) {
      const intake = agentGuidanceIntake({ name });
      const known = byIntake.find(([kind]) => JSON.stringify(kind) === JSON.stringify(intake));
      expect(known, `${name}: a kind of intake the table does not have`).toBeDefined();
      expect(deliveries({ name }), name).toEqual(known?.[1]);
    }
    expect(deliveries({ name: "anthropic" }).workdir).toBe("system_prompt");
    expect(deliveries({ name: "oracle" })).toEqual(none);
  });

  it("the command agent's model gets the system prompt only when its template passes {system}", () => {
    const withSystem = createAgent("command", { agentCommand: "my-agent --system {system} {prompt}" });
    expect(deliveries(withSystem)).toEqual({
      workdir: "work_dir_only",
      system: "system_prompt",
      both: "system_prompt",
    });
    const without = createAgent("command", { agentCommand: "my-agent {prompt}" });
    expect(deliveries(without).system).toBe("not_shown");
  });

  it("the harness loads the work dir's file only for the built-in agent, and not in both mode (the text is in already)", () => {
    const builtIn = agentGuidanceIntake({ name: "anthropic" });
    expect([null, ...MODES].map((mode) => harnessLoadsWorkDirGuidance(builtIn, mode))).toEqual([
      true,
      true,
      true,
      false,
    ]);
    for (const name of AGENT_NAMES.filter((n) => n !== "anthropic")) {
      expect(harnessLoadsWorkDirGuidance(agentGuidanceIntake({ name }), "workdir"), name).toBe(false);
    }
  });

  it("the report schema lists exactly the deliveries there are", () => {
    const schema = JSON.parse(
      readFileSync(path.resolve(import.meta.dirname, "../../schema/report.schema.json"), "utf8"),
    );
    const guidance =
      schema.properties.scenarios.items.properties.treatment.properties.guidance.items.properties;
    expect(guidance.delivery.enum).toEqual([...GUIDANCE_DELIVERIES]);
  });
});
