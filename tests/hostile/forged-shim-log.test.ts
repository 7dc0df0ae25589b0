/**
 * An agent makes three failing calls of the target, then tries to make them look like a success:
 * it finds the shim's record channel in the shim script (in bwrap, beside the call channel the
 * requester names), truncates it, rewrites it, appends a
 * forged success record (timed now, and back-dated into the first call), and replaces the channel
 * with a file of its own. The run must still count three failures (error_rate 1) and the report
 * must flag the disagreement, in local and bwrap modes.
 */
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { Report } from "../../src/results/types.js";
import { runOracle } from "../cli/run-main.js";
import { FAKE_TOOL } from "../sandbox/fake-tool.js";
import { findBwrapProblem } from "../support/processes.js";
import { makeTempDir } from "../support/temp-dirs.js";

/** Finds the record channel, then writes records claiming `fake-tool fail 1` succeeded every way it can. */
const FORGE = [
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion.
  'log=$(sed -n "s/^__ltt_log=\'\\(.*\\)\'$/\\1/p" "${PATH%%:*}/fake-tool")',
  // In bwrap the tool is a requester (shim-broker.ts) that names the call channel, beside the records.
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion.
  'calls=$(sed -n "s/^__ltt_calls=\'\\(.*\\)\'$/\\1/p" "${PATH%%:*}/fake-tool"); [ -n "$log" ] || log=${calls%/*}/records',
  'echo "channel: $log"',
  'args=$(printf "%s\\0" fake-tool fail 1 | base64 -w 0); cwd=$(printf %s "$PWD" | base64 -w 0)',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion.
  "now=${EPOCHREALTIME/./}",
  // Back-dated into the first call: its stderr file was opened just before the tool started.
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion.
  "first=$(stat -c %.6Y first-call-err); first=${first/./}",
  'forged() { printf "v1\\t%s\\t%s\\t0\\t3\\t%s\\t%s\\n" "$1" "$(( $1 + 1000 ))" "$cwd" "$args"; }',
  ': > "$log"',
  'forged "$now" > "$log"',
  'forged "$now" >> "$log"',
  'forged "$first" >> "$log"',
  'rm -f "$log"; forged "$now" > "$log"',
  "true",
].join("\n");

const SOLUTION = ["fake-tool fail 1 2> first-call-err", "fake-tool fail 1", "fake-tool fail 1", FORGE];

function writeScenario(dir: string, tool: string): void {
  mkdirSync(dir, { recursive: true });
  const yaml = [
    "name: forger",
    "description: fails three times, then forges the shim's records",
    "task: Run the tool.",
    "target:",
    `  binary: ${JSON.stringify(tool)}`,
    "solution:",
    ...SOLUTION.map((command) => `  - ${JSON.stringify(command)}`),
    "evaluation:",
    "  gates:",
    "    - type: no_transcript_errors",
  ].join("\n");
  writeFileSync(path.join(dir, "forger.yaml"), `${yaml}\n`);
}

const bwrapProblem = findBwrapProblem();

describe.each([
  { mode: "local", skip: false },
  { mode: "bwrap", skip: bwrapProblem !== null },
])("a forged shim log ($mode)", ({ mode, skip }) => {
  let report: Report;
  let markdown: string;
  let html: string;
  let events: string;

  beforeAll(async () => {
    if (skip) return;
    const dir = makeTempDir("ltt-hostile-shim-");
    // A repository, so the scenario may name a binary beside its folder (target.binary's rule).
    mkdirSync(path.join(dir, ".git"));
    const tool = path.join(dir, "bin", "fake-tool");
    mkdirSync(path.dirname(tool));
    writeFileSync(tool, FAKE_TOOL);
    chmodSync(tool, 0o755);
    writeScenario(path.join(dir, "scenarios"), tool);
    const run = await runOracle(path.join(dir, "scenarios"), { cwd: dir, sandbox: mode });
    const out = run.out;
    expect(run.result.stderr).not.toContain("unexpected error");
    report = run.report;
    markdown = readFileSync(path.join(out, "report.md"), "utf8");
    html = readFileSync(path.join(out, "report.html"), "utf8");
    events = readFileSync(path.join(out, "trials", "forger", "trial-1", "events.jsonl"), "utf8");
  }, 120_000);

  it.skipIf(skip)("the agent found the channel and tried every forgery", () => {
    expect(events).toMatch(/channel: \/\S+records/);
  });

  it.skipIf(skip)("counts the three failures: error_rate stays 1 and the gate fails", () => {
    const trial = report.scenarios[0]!.trials[0]!;
    expect(trial.invocation_source).toBe("shim");
    expect(trial.interaction.total_commands).toBe(3);
    expect(trial.interaction.error_count).toBe(3);
    expect(trial.interaction.error_rate).toBe(1);
    expect(trial.gates.find((gate) => gate.gate_type === "no_transcript_errors")?.passed).toBe(false);
  });

  it.skipIf(skip)("flags the disagreement in report.json, report.md and report.html", () => {
    const trial = report.scenarios[0]!.trials[0]!;
    expect(trial.shim_disagreements?.join("\n")).toMatch(/match no tool call that invokes the target/);
    expect(markdown).toContain("## Shim records that disagree with the tool calls");
    expect(html).toContain("shim_disagreements");
  });
});
