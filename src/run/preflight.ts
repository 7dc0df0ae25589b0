import path from "node:path";
import type { Agent } from "../agents/types.js";
import { ConfigError } from "../errors.js";
import { type ClosedPath, findClosedPath, sampleAgentAccount } from "../sandbox/agent-account.js";
import type { SandboxSelector } from "../sandbox/sandbox-selection.js";
import { resolveRealBinary } from "../sandbox/shim.js";
import type { HostFile } from "../sandbox/types.js";
import type { SandboxSetting, Scenario } from "../scenario/types.js";
import { sandboxSettingOf } from "./options.js";

/**
 * Before anything runs: every target named by a bare command name must be on PATH, or every trial
 * of its scenarios would end in the same infrastructure error. (Targets given as paths may be
 * built by the scenario's setup, so they are checked per trial.)
 */
export async function checkTargetBinaries(scenarios: Scenario[], searchPath: string): Promise<void> {
  const missing = new Map<string, Scenario[]>();
  for (const scenario of scenarios) {
    const binary = scenario.target.binary;
    if (!binary || binary.includes("/")) continue;
    if (missing.has(binary)) {
      missing.get(binary)?.push(scenario);
      continue;
    }
    try {
      await resolveRealBinary(binary, searchPath);
    } catch {
      missing.set(binary, [scenario]);
    }
  }
  const problems = [...missing.entries()];
  if (problems.length === 0) return;
  const lines = problems.map(
    ([binary, list]) =>
      `target binary "${binary}" is not on PATH (needed by ${list.map((s) => `${s.id} in ${s.source.file}`).join(", ")})`,
  );
  throw new ConfigError(
    `${lines.join("; ")}. Install it, put it on PATH, or fix target.binary in the scenario; the shim records the tool's real invocations, so it must exist before the run starts.`,
  );
}

/**
 * bwrap is probed once before a run that needs it: an explicit `bwrap` that cannot work is one
 * clear error; `auto` settles here whether it runs in bwrap. Returns the selections' warnings (an
 * `auto` that fell back to the local sandbox), for the log.
 */
export async function checkSandbox(
  scenarios: Scenario[],
  override: SandboxSetting | null,
  selector: SandboxSelector,
): Promise<string[]> {
  const settings = new Set(scenarios.map((scenario) => sandboxSettingOf(scenario, override)));
  if (settings.has("bwrap")) {
    await selector.requireBwrap();
  }
  for (const setting of settings) await selector.select(setting);
  return selector.warnings();
}

/** A host file the agent's account must reach, and why it must. */
interface NeededFile extends HostFile {
  what: string;
}

/**
 * Local mode, where each agent runs as an account of its own: before any trial, that account
 * must reach what its trials run (the targets found on PATH, each agent's programs, the folder
 * of a scenario whose script gates run from it), or every trial would crash on it (a checkout in
 * a private home: `mktemp -d` makes 0700 folders, and an agent CLI in its node_modules could not
 * load). A ConfigError names the closed path and the fix. Nothing to check where the agent runs as
 * the harness's own user.
 */
export async function checkAgentAccountReach(
  localScenarios: readonly Scenario[],
  agents: readonly Agent[],
  searchPath: string,
  sandboxSetting: string,
): Promise<void> {
  if (localScenarios.length === 0) return;
  const account = await sampleAgentAccount(searchPath);
  if (!account) return;
  const needed: NeededFile[] = [];
  for (const agent of agents)
    for (const file of agent.hostFiles ?? [])
      needed.push({ ...file, what: `the ${agent.name} agent's program` });
  for (const scenario of localScenarios) {
    const binary = scenario.target.binary;
    // A bare name is the host's; a path may be built by the scenario's setup (checked per trial).
    if (binary && !binary.includes("/")) {
      const real = await resolveRealBinary(binary, searchPath).catch(() => null);
      if (real)
        needed.push({ path: real, use: "execute", what: `target binary "${binary}" of ${scenario.id}` });
    }
    if (scenario.evaluation.gates.some((gate) => gate.type === "script")) {
      needed.push({
        path: path.dirname(scenario.source.file),
        use: "read",
        what: `the folder of ${scenario.id}, which its script gates run from`,
      });
    }
  }
  const seen = new Set<string>();
  for (const file of needed) {
    if (seen.has(file.path)) continue;
    seen.add(file.path);
    const closed = await findClosedPath(file.path, account, file.use);
    // A missing file is another check's to report (the target's, the agent's).
    if (!closed || closed.lacks === "missing") continue;
    throw new ConfigError(describeClosedPath(file, closed, account.name, sandboxSetting));
  }
}

function describeClosedPath(
  file: NeededFile,
  closed: ClosedPath,
  accountName: string,
  sandboxSetting: string,
): string {
  const verb = file.use === "read" ? "read" : "run";
  const where =
    closed.path === path.resolve(file.path)
      ? `it is not ${file.use === "read" ? "readable" : "executable"} by other users`
      : `the folder ${closed.path} is closed to other users`;
  const grant = closed.lacks === "read" ? "o+r" : "o+x";
  return (
    `local sandbox: the agent runs as a user of its own (${accountName}), which cannot ${verb} ${file.path} (${file.what}): ${where} (mode ${closed.mode.toString(8).padStart(4, "0")}). ` +
    `Give other users access (chmod ${grant} ${closed.path}), move it (the checkout, the install) to a folder every user may read, or set ${sandboxSetting} bwrap`
  );
}
