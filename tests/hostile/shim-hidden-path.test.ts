/**
 * The shim's hiding place (issue #25, item 3): an agent that runs as the shim's own user reads
 * whatever the shim reads, so it learns where the real binary is (the shim script names it, the
 * mount table shows it) and runs it from a script, unrecorded: `no_transcript_errors` passed and
 * `error_count` stayed 0 however often it failed. In bwrap the binary must run only through the
 * harness (shim-broker.ts): every run the agent manages, by any path it finds, is recorded.
 */
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createAgent } from "../../src/agents/registry.js";
import { defaultRunOptions } from "../../src/run/options.js";
import { findBwrapProblem } from "../support/processes.js";
import { makeScenario } from "../support/scenario-factory.js";
import { runSingleTrial } from "../support/single-trial.js";
import { makeTempDir } from "../support/temp-dirs.js";

const CANARY_KEY = "sk-ant-canary-hidden-path-5b2a";
/** Says that it ran (one line per run), then fails. */
const TOOL = "#!/bin/sh\necho TOOL-RAN\nexit 3\n";

/** Every way to the real binary a same-user agent can find, each tried from a script. */
function attack(tool: string): string {
  return `shim=$(command -v hidden-tool)
real=$(sed -n "s/^__ltt_real='\\(.*\\)'$/\\1/p" "$shim")
candidates="$real /run/llm-tool-test/real${tool}"
for mount in $(awk '{print $5}' /proc/self/mountinfo | grep llm-tool-test/real); do
  candidates="$candidates $mount ${"$"}mount${tool}"
done
candidates="$candidates $(find / -xdev -name hidden-tool -type f 2>/dev/null | tr '\\n' ' ')"
for candidate in $candidates; do
  [ -f "$candidate" ] || continue
  "$candidate" fail 2>/dev/null </dev/null; echo "ATTEMPT $candidate -> $?"
  cp "$candidate" ./copy 2>/dev/null && chmod +x ./copy && ./copy; rm -f ./copy
done
echo ATTACK-DONE
`;
}

const bwrapProblem = findBwrapProblem();

describe.skipIf(bwrapProblem !== null)("the real binary's path, found by a same-user agent in bwrap", () => {
  it.each(["command", "oracle"] as const)(
    "is of no use: every run is recorded (%s agent)",
    async (agentName) => {
      const dir = makeTempDir("ltt-hostile-hidden-path-");
      const tool = path.join(dir, "bin", "hidden-tool");
      mkdirSync(path.dirname(tool));
      writeFileSync(tool, TOOL);
      chmodSync(tool, 0o755);
      const scenario = makeScenario({
        id: "hidden-path",
        target: { binary: tool, env: {} },
        solution: ["bash attack.sh"],
        files: { "attack.sh": attack(tool) },
        evaluation: { gates: [{ type: "no_transcript_errors", weight: 1 }] },
      });
      const template = "bash attack.sh";
      const options = defaultRunOptions({
        outDir: path.join(dir, "out"),
        agent: agentName,
        ...(agentName === "command" ? { agentCommand: template } : {}),
        trialTimeoutMs: 60_000,
        sandbox: "bwrap",
      });
      const agent = createAgent(agentName, agentName === "command" ? { agentCommand: template } : {});
      const { output, eventsText } = await runSingleTrial(scenario, options, agent, {
        canaryKey: CANARY_KEY,
      });
      expect(eventsText).toContain("ATTACK-DONE");
      const runs = eventsText.split("TOOL-RAN").length - 1;
      const report = output.report;
      // However many runs the agent managed, each one is recorded, and each failed.
      expect(report.interaction?.total_commands).toBe(runs);
      expect(report.interaction?.error_count).toBe(runs);
      if (runs === 0)
        expect(report.gates[0]).toMatchObject({ gate_type: "no_transcript_errors", passed: true });
      else expect(report.gates[0]).toMatchObject({ gate_type: "no_transcript_errors", passed: false });
    },
    120_000,
  );
});

/** A target that echoes its input (as `jq -R`, `cat`-like tools do). */
const ECHO_TOOL = "#!/bin/sh\n# the real echo-tool\ncat\n";

/**
 * A request of its own making whose stdin is a link to the real binary in the broker's sandbox
 * (its place there is documented): the target, echoing its input, would hand the agent its bytes.
 */
function forgedRequest(tool: string): string {
  return `calls=$(sed -n "s/^__ltt_calls='\\(.*\\)'$/\\1/p" "$(command -v echo-tool)")
dir=$(mktemp -d /tmp/.ltt-call.XXXXXXXXXX)
mkfifo "$dir/out" "$dir/err" "$dir/status"
ln -s /run/llm-tool-test/real${tool} "$dir/in"
printf '%s\\0' > "$dir/argv"; printf 'PATH=/usr/bin:/bin\\0' > "$dir/env"; printf /home/eval > "$dir/cwd"
printf 'c1\\t%s\\n' "$dir" >> "$calls"
cat "$dir/err" >/dev/null & cat "$dir/out" > got.txt & read -r status < "$dir/status"; wait
echo "FORGED-STATUS $status"
grep -c "the real echo-tool" got.txt && echo BYTES-STOLEN
echo FORGE-DONE
`;
}

describe.skipIf(bwrapProblem !== null)("a forged request whose stdin links to the real binary", () => {
  it("is refused: the agent never gets the binary's bytes", async () => {
    const dir = makeTempDir("ltt-hostile-forged-request-");
    const tool = path.join(dir, "bin", "echo-tool");
    mkdirSync(path.dirname(tool));
    writeFileSync(tool, ECHO_TOOL);
    chmodSync(tool, 0o755);
    const scenario = makeScenario({
      id: "forged-request",
      target: { binary: tool, env: {} },
      solution: ["bash forge.sh"],
      files: { "forge.sh": forgedRequest(tool) },
      evaluation: { gates: [{ type: "no_transcript_errors", weight: 1 }] },
    });
    const options = defaultRunOptions({
      outDir: path.join(dir, "out"),
      agent: "oracle",
      trialTimeoutMs: 60_000,
      sandbox: "bwrap",
    });
    const { eventsText } = await runSingleTrial(scenario, options, createAgent("oracle", {}), {
      canaryKey: CANARY_KEY,
    });
    expect(eventsText).toContain("FORGE-DONE");
    expect(eventsText).toContain("FORGED-STATUS 126");
    expect(eventsText).not.toContain("BYTES-STOLEN");
  }, 120_000);
});

/** Prints how many arguments it got, then its input: a target used as a filter (`… | sort`). */
const ARGS_TOOL = '#!/bin/sh\necho "ARGC=$#"\ncat\n';

describe.skipIf(bwrapProblem !== null)("a target called through the broker", () => {
  it("gets exactly the arguments it was called with, none included, and its input from a pipe", async () => {
    const dir = makeTempDir("ltt-broker-argv-");
    const tool = path.join(dir, "bin", "args-tool");
    mkdirSync(path.dirname(tool));
    writeFileSync(tool, ARGS_TOOL);
    chmodSync(tool, 0o755);
    const scenario = makeScenario({
      id: "broker-argv",
      target: { binary: tool, env: {} },
      solution: ["printf 'b\\na\\n' | args-tool > none.txt", "args-tool '' x < /dev/null > two.txt"],
      evaluation: {
        gates: [
          { type: "file_contains", path: "none.txt", substring: "ARGC=0\nb\na\n", weight: 1 },
          { type: "file_contains", path: "two.txt", substring: "ARGC=2", weight: 1 },
        ],
      },
    });
    const options = defaultRunOptions({
      outDir: path.join(dir, "out"),
      agent: "oracle",
      trialTimeoutMs: 60_000,
      sandbox: "bwrap",
    });
    const { output } = await runSingleTrial(scenario, options, createAgent("oracle", {}), {
      canaryKey: CANARY_KEY,
    });
    expect(output.report.gates.map((gate) => [gate.passed, gate.message])).toEqual([
      [true, expect.any(String)],
      [true, expect.any(String)],
    ]);
    expect(output.report.interaction?.total_commands).toBe(2);
  }, 120_000);
});
