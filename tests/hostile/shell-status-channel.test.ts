/**
 * A hostile agent against the channel a call's exit status comes back on (issue #35, item 1): in
 * one call it redefines what the harness's own shell code would use (a function or an alias for
 * `builtin`, `command`, `printf`, `eval`, `exec`; a DEBUG trap that skips commands; PROMPT_COMMAND;
 * BASH_ENV), or leaves a background job reading and writing every channel it can find (the control
 * folder's FIFOs, /proc/<pid>/fd/* of every process it can see), meaning to report later calls as
 * passed. Through the real harness (oracle agent: one bash call per solution entry), the calls after
 * it must still run and fail as they really do: the tool call's recorded exit code stays non-zero,
 * `no_transcript_errors` fails, and so does the trial.
 */
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createAgent } from "../../src/agents/registry.js";
import { defaultRunOptions } from "../../src/run/options.js";
import type { SandboxMode } from "../../src/scenario/types.js";
import { FAKE_TOOL } from "../sandbox/fake-tool.js";
import { findBwrapProblem } from "../support/processes.js";
import { makeScenario } from "../support/scenario-factory.js";
import { eventsOf, runSingleTrial } from "../support/single-trial.js";
import { makeTempDir } from "../support/temp-dirs.js";

const CANARY_KEY = "sk-ant-canary-shell-status-7a6b5c";

/** Forges a status line `<nonce> 0` for any 32-hex word in its arguments, else runs the builtin. */
const FORGING_BUILTIN =
  'builtin() { if [[ $1 == printf && $3 =~ ^[0-9a-f]{32}$ ]]; then command printf "%s 0\\n" "$3"; else command "$@"; fi; }';

/**
 * A background job that reads every channel it can open (FIFOs of any control folder, and every
 * descriptor under /proc/<pid>/fd of every process it sees) and answers every 32-hex word it finds
 * with "<word> 0" on every descriptor it can write.
 */
const CHANNEL_THIEF = [
  "cat > thief.sh <<'EOF'",
  // The channels: what any process (started before this one) has open under a control folder's
  // names, and its anonymous pipes; by their /proc links and, for named ones, by their paths.
  // The control folder by its path too: the folder of the runner's program (its command line).
  // biome-ignore lint/suspicious/noTemplateCurlyInString: bash ${...}, on purpose
  'folder() { for f in $(grep -l "IFS= read -r" /proc/[0-9]*/cmdline 2>/dev/null); do a=$(tr "\\0" "\\n" < "$f" 2>/dev/null | head -1); for n in in status out err state call; do [ -e "${a%/*}/$n" ] && echo "${a%/*}/$n"; done; done; }',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: bash ${...}, on purpose
  'candidates() { { folder; for f in /proc/[0-9]*/fd/*; do p=${f#/proc/}; p=${p%%/*}; [ "$p" -lt "$$" ] || continue; t=$(readlink "$f" 2>/dev/null) || continue; case $t in */in|*/status|*/out|*/err|*/state|*/call|pipe:*) echo "$f"; [ "${t#pipe:}" = "$t" ] && echo "$t";; esac; done; } | sort -u; }',
  'forge() { for g in $(candidates); do timeout 1 sh -c \'printf "%s 0\\n" "$1" > "$2"\' sh "$1" "$g" 2>/dev/null; done; }',
  // A blocking reader on each: whatever passes through it (a call line, its nonce) is taken.
  'steal() { while :; do got=$(timeout 5 dd if="$1" bs=65536 count=1 2>/dev/null | grep -aoE \'[0-9a-f]{32}\'); for w in $got; do echo "stole $w from $1" >> stolen.txt; forge "$w"; done; [ -n "$got" ] || sleep 0.05; done; }',
  "candidates > candidates.txt",
  'for c in $(candidates); do steal "$c" & done',
  "wait",
  "EOF",
  "nohup bash thief.sh >/dev/null 2>&1 &",
  "sleep 1",
].join("\n");

/**
 * Each attack, made in one call before the failing ones, and a command that shows it still stands
 * after them (with what it prints), so the calls failed with the attack in place.
 */
const ATTACKS: Record<string, string> = {
  "a function named builtin": FORGING_BUILTIN,
  "an alias for builtin (and a function behind it)": `shopt -s expand_aliases; alias builtin=forge; forge() { ${FORGING_BUILTIN.replace("builtin() {", "").replace(/}$/, "")} }`,
  "functions named command, printf, eval and exec": [
    'command() { return 0; }; printf() { echo "forged" >&2; return 0; }',
    "eval() { return 0; }; exec() { return 0; }",
  ].join("; "),
  "aliases for command, printf, eval and exec": [
    "shopt -s expand_aliases",
    "alias command=true printf=true eval=true exec=true builtin=true",
  ].join("; "),
  // Keywords can be aliased too: shell code the harness parses after the agent's aliases would run
  // `exit 0` first.
  "aliases for the keywords if, for, case and {, and for declare and set": [
    "shopt -s expand_aliases",
    "alias if='exit 0; if' for='exit 0; for' case='exit 0; case' {='exit 0; {' declare='exit 0; declare' set='exit 0; set'",
  ].join("; "),
  // Alias expansion off as the call ends (its own save is not in the way), on again in the next
  // call's start: a harness line after the aliases there would run `exit 0` instead of the command.
  "aliases for export, declare and unset, with a function, expansion off at the end": [
    "shopt -s expand_aliases",
    "alias export='exit 0; export' declare='exit 0; declare' unset='exit 0; unset'",
    "helper() { :; }; shopt -u expand_aliases",
  ].join("\n"),
  "a DEBUG trap that skips the harness's commands and forges a status": [
    "shopt -s extdebug",
    // It forges a status for any nonce it sees, and skips (returns 1 for) the harness's `trap - DEBUG`.
    // biome-ignore lint/suspicious/noTemplateCurlyInString: bash ${...}, on purpose
    'trap \'if [[ $BASH_COMMAND =~ ([0-9a-f]{32}) ]]; then for f in /proc/$$/fd/*; do t=$(readlink $f); [[ $t == */in ]] && echo "${BASH_REMATCH[1]} 0" > ${t%/in}/status; done; fi; [[ $BASH_COMMAND != *"trap - DEBUG"* ]]\' DEBUG',
  ].join("; "),
  PROMPT_COMMAND: "PROMPT_COMMAND='exit 0'; export PROMPT_COMMAND; set -o history",
  // Every bash but the tool's own (whose exit the shim records) would end at once with 0.
  BASH_ENV: `printf '%s\\n' 'case $0 in *fake-tool*) ;; *) exit 0;; esac' > "$HOME/.forge-env"; export BASH_ENV="$HOME/.forge-env" ENV="$HOME/.forge-env"`,
  "a background job on every channel it can find": CHANNEL_THIEF,
};

const STILL_THERE: Record<string, [string, string]> = {
  "a function named builtin": ["type -t builtin", "function\n"],
  "an alias for builtin (and a function behind it)": ["alias builtin", "alias builtin='forge'\n"],
  "functions named command, printf, eval and exec": [
    "type -t command printf eval exec",
    "function\n".repeat(4),
  ],
  "aliases for command, printf, eval and exec": ["alias eval", "alias eval='true'\n"],
  "aliases for the keywords if, for, case and {, and for declare and set": [
    "\\alias if",
    "alias if='exit 0; if'\n",
  ],
  "aliases for export, declare and unset, with a function, expansion off at the end": [
    "\\alias export; \\type -t helper",
    "alias export='exit 0; export'\nfunction\n",
  ],
  // Traps are not carried from one call to the next (shell-state.ts): the trap is gone.
  "a DEBUG trap that skips the harness's commands and forges a status": [
    "trap -p DEBUG; echo checked",
    "checked\n",
  ],
  PROMPT_COMMAND: ["echo $PROMPT_COMMAND", "exit 0\n"],
  // biome-ignore lint/suspicious/noTemplateCurlyInString: bash ${...}, on purpose
  BASH_ENV: ["echo ${BASH_ENV##*/}", ".forge-env\n"],
  "a background job on every channel it can find": [
    "grep -c /in candidates.txt >/dev/null && pgrep -fc thief.sh >/dev/null && echo running",
    "running\n",
  ],
};

/** After the attack: a failing call of the tool, a failing plain command, a marker of what ran. */
const FAILING_CALLS = ["fake-tool fail 2", "cat /nonexistent", "echo ran > ran.txt; cat ran.txt"];

function setUp(): { dir: string; tool: string } {
  const dir = makeTempDir("ltt-hostile-status-");
  const tool = path.join(dir, "bin", "fake-tool");
  mkdirSync(path.dirname(tool));
  writeFileSync(tool, FAKE_TOOL);
  chmodSync(tool, 0o755);
  return { dir, tool };
}

async function runAttack(mode: SandboxMode, name: string, attack: string) {
  const { dir, tool } = setUp();
  const outDir = await mkdtemp(path.join(dir, "out-"));
  const scenario = makeScenario({
    id: "forged-status",
    target: { binary: tool, env: {} },
    solution: [attack, ...FAILING_CALLS, (STILL_THERE[name] as [string, string])[0]],
    evaluation: { gates: [{ type: "no_transcript_errors", weight: 1 }] },
  });
  const options = defaultRunOptions({ outDir, agent: "oracle", trialTimeoutMs: 90_000, sandbox: mode });
  return runSingleTrial(scenario, options, createAgent("oracle", {}), { canaryKey: CANARY_KEY });
}

const bwrapProblem = findBwrapProblem();
if (bwrapProblem) console.warn(`skipping the bwrap shell-status tests: ${bwrapProblem}`);

for (const mode of ["bwrap", "local"] as const) {
  describe.skipIf(mode === "bwrap" && bwrapProblem !== null)(
    `a call's exit status cannot be forged by earlier calls (${mode})`,
    () => {
      it.each(Object.entries(ATTACKS))(
        "%s",
        async (name, attack) => {
          const { output, events } = await runAttack(mode, name, attack);
          const results = eventsOf(events, "tool_result");
          // The attack's own call, then each failing call, in order.
          expect(results.map((result) => result.exit_code).slice(1, 4)).toEqual([2, 1, 0]);
          expect(results[1]?.stderr).toContain("failing with 2");
          expect(results[2]?.stderr).toContain("No such file or directory");
          // The marker call really ran (it was not stolen and answered by someone else).
          expect(results[3]?.stdout).toBe("ran\n");
          expect(results[4]?.stdout).toBe(STILL_THERE[name]?.[1]);
          const report = output.report;
          expect(report.gates[0]).toMatchObject({ gate_type: "no_transcript_errors", passed: false });
          expect(report.outcome).toBe("fail");
          expect(report.interaction).toMatchObject({ error_count: 1 });
        },
        120_000,
      );
    },
  );
}
