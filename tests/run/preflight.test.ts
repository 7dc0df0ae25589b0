/**
 * Local mode's check, before any trial, that the agent's account (a user of its own) reaches what
 * its trials run: an agent CLI or target under a private folder (a checkout in `mktemp -d`, 0700)
 * would otherwise crash every trial.
 */
import { chmod, mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createCommandAgent } from "../../src/agents/command.js";
import { createGeminiCliAgent } from "../../src/agents/gemini-cli.js";
import { ConfigError } from "../../src/errors.js";
import { checkAgentAccountReach } from "../../src/run/preflight.js";
import { sampleAgentAccount } from "../../src/sandbox/agent-account.js";
import { makeScenario } from "../support/scenario-factory.js";
import { makeTempDir } from "../support/temp-dirs.js";

const searchPath = process.env.PATH ?? "/usr/bin:/bin";
const account = await sampleAgentAccount(searchPath);

/** A folder closed to other users (what `mktemp -d` makes), with an executable script in it. */
async function privateProgram(name: string): Promise<{ folder: string; program: string }> {
  const folder = path.join(makeTempDir("ltt-reach-"), "private");
  await mkdir(folder, { mode: 0o700 });
  await chmod(folder, 0o700);
  const program = path.join(folder, name);
  await writeFile(program, "#!/bin/sh\nexit 0\n", { mode: 0o755 });
  return { folder, program };
}

describe.skipIf(account === null)("checkAgentAccountReach (agents run as accounts of their own)", () => {
  it("refuses an agent program under a folder closed to other users, naming it and the fix", async () => {
    const { folder, program } = await privateProgram("agent.sh");
    const agent = createCommandAgent({ template: `${program} {prompt}` });
    const check = checkAgentAccountReach(
      [makeScenario({ sandbox: "local" })],
      [agent],
      searchPath,
      "--sandbox",
    );
    await expect(check).rejects.toThrow(ConfigError);
    await expect(check).rejects.toThrow(
      `local sandbox: the agent runs as a user of its own (${account?.name}), which cannot run ${program} (the command agent's program): the folder ${folder} is closed to other users (mode 0700). Give other users access (chmod o+x ${folder}), move it (the checkout, the install) to a folder every user may read, or set --sandbox bwrap`,
    );
    // Opened to other users, the same program passes.
    await chmod(folder, 0o755);
    await expect(
      checkAgentAccountReach([makeScenario({ sandbox: "local" })], [agent], searchPath, "--sandbox"),
    ).resolves.toBeUndefined();
  });

  it("refuses a Node script others may not read (an agent CLI's bundle), and a script gate's closed folder", async () => {
    const { folder } = await privateProgram("unused");
    const bundle = path.join(path.dirname(folder), "gemini.js");
    await writeFile(bundle, "process.exit(0);\n", { mode: 0o600 });
    const gemini = createGeminiCliAgent({ apiKey: "AIza-test", binary: bundle });
    await expect(
      checkAgentAccountReach([makeScenario({ sandbox: "local" })], [gemini], searchPath, 'input "sandbox"'),
    ).rejects.toThrow(
      `which cannot read ${bundle} (the gemini-cli agent's program): it is not readable by other users (mode 0600). Give other users access (chmod o+r ${bundle})`,
    );
    const scenarioFile = path.join(folder, "scenario.yaml");
    const scripted = makeScenario({
      sandbox: "local",
      source: { file: scenarioFile, line: 1, format: "yaml" },
      evaluation: { gates: [{ type: "script", command: "./check.sh", weight: 1 }] },
    });
    await expect(checkAgentAccountReach([scripted], [], searchPath, "--sandbox")).rejects.toThrow(
      `cannot read ${folder} (the folder of demo, which its script gates run from): it is not readable by other users (mode 0700)`,
    );
  });

  it("checks nothing without a local scenario", async () => {
    const { program } = await privateProgram("agent.sh");
    const agent = createCommandAgent({ template: `${program} {prompt}` });
    await expect(checkAgentAccountReach([], [agent], searchPath, "--sandbox")).resolves.toBeUndefined();
  });
});
